//! The router core under a fake clock: exact schedules, hand-over between
//! links, malformed input, CE rewriting.

use super::*;
use crate::config::{EndConfig, LinkConfig, RouteConfig};
use ecnlab_aqm::{DropTailParams, QueueConfig, RedParams};
use ecnlab_wire::{Duration, Ipv4Packet};

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

#[derive(Default)]
struct Recorder {
    delivered: Vec<(usize, Instant, Vec<u8>)>,
    taps: Vec<(usize, Instant)>,
}

impl Sink for Recorder {
    fn deliver(&mut self, end: usize, due: Instant, frame: &Frame) {
        self.delivered.push((end, due, frame.bytes().to_vec()));
    }
    fn tap(&mut self, link: usize, t: Instant, _frame: &Frame) {
        self.taps.push((link, t));
    }
}

fn droptail(limit: u32) -> QueueConfig {
    QueueConfig::DropTail(DropTailParams { limit_pkts: Some(limit), limit_bytes: None })
}

/// RED over 100 packets, thresholds 2/40, 1500-byte packets at 10 Mbit/s, plus `extra`
/// (through JSON, as the router receives it; fields it does not name take their defaults).
fn red(extra: serde_json::Value) -> RedParams {
    let mut v = serde_json::json!({
        "limit_pkts": 100, "min_th": 2.0, "max_th": 40.0, "mode": "packet",
        "mean_pkt_bytes": 1500, "link_rate_bps": 10_000_000u64,
    });
    for (k, x) in extra.as_object().into_iter().flatten() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

fn link(name: &str, index: u32, rate_bps: u64, delay_ns: u64, queue: QueueConfig) -> LinkConfig {
    LinkConfig { name: name.into(), index, rate_bps, delay_ns, loss: 0.0, queue, pcap: None, impairments: vec![] }
}

fn end(name: &str, addr: [u8; 4]) -> EndConfig {
    EndConfig { name: name.into(), netns: None, dev: "tun0".into(), addr: addr.into() }
}

/// Ends a = 10.0.1.1 and b = 10.0.2.1; a→b over `links` (indices 0..n), b→a over none.
fn config(links: Vec<LinkConfig>) -> RouterConfig {
    let n = links.len();
    RouterConfig {
        seed: 1,
        ends: vec![end("a", [10, 0, 1, 1]), end("b", [10, 0, 2, 1])],
        links,
        routes: vec![RouteConfig { from: 0, to: 1, links: (0..n).collect() }],
    }
}

/// An IPv4 packet of `len` bytes from a to b.
fn packet(len: u16, ecn: Ecn) -> Vec<u8> {
    let mut b = vec![0u8; usize::from(len)];
    let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
    p.set_version_and_header_len(4, 20);
    p.set_total_len(len);
    p.set_ttl(64);
    p.set_protocol(6);
    p.set_src_addr([10, 0, 1, 1]);
    p.set_dst_addr([10, 0, 2, 1]);
    p.set_ecn(ecn);
    p.fill_checksum();
    b
}

fn at(ns: u64) -> Instant {
    Instant::from_nanos(ns)
}

/// Steps the fake clock from deadline to deadline, as the IO loop would with an on-time wake-up.
fn run_to_idle(net: &mut Net, rec: &mut Recorder) -> Vec<Instant> {
    let mut wakeups = Vec::new();
    while let Some(t) = net.next_deadline() {
        wakeups.push(t);
        net.poll(t, rec);
    }
    wakeups
}

#[test]
fn test_rate_and_delay_exact_to_the_microsecond() {
    // 10 Mbit/s: a 1500-byte packet takes 1200 µs; 20 ms of propagation.
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, 20 * MS, droptail(100))])).unwrap();
    let mut rec = Recorder::default();
    for _ in 0..3 {
        net.arrive(at(0), 0, packet(1500, Ecn::Ect0), &mut rec);
    }
    assert_eq!(net.next_deadline(), Some(at(1200 * US)), "first transmission ends");
    net.poll(at(10 * MS), &mut rec); // the link idles from 3.6 ms on
    net.arrive(at(10 * MS), 0, packet(1000, Ecn::Ect0), &mut rec);
    run_to_idle(&mut net, &mut rec);
    let due: Vec<u64> = rec.delivered.iter().map(|(e, t, _)| (assert_eq!(*e, 1), t.as_nanos()).1).collect();
    // 1000 bytes: 800 µs.
    assert_eq!(due, vec![21_200 * US, 22_400 * US, 23_600 * US, 30_800 * US]);
    let r = net.report(at(40 * MS));
    assert_eq!((r.links[0].counters.packets, r.links[0].counters.bytes), (4, 5500));
    assert_eq!((r.ends[1].counters.tx_packets, r.ends[0].counters.rx_packets), (4, 4));
    assert_eq!(r.lateness.max_us, 0.0, "every poll was on time");
}

#[test]
fn test_late_wakeup_keeps_the_virtual_schedule() {
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, 20 * MS, droptail(100))])).unwrap();
    let mut rec = Recorder::default();
    for _ in 0..3 {
        net.arrive(at(0), 0, packet(1500, Ecn::Ect0), &mut rec);
    }
    net.poll(at(25 * MS), &mut rec); // one wake-up, 1.4 ms after the last departure was due
    let due: Vec<u64> = rec.delivered.iter().map(|(_, t, _)| t.as_nanos()).collect();
    assert_eq!(due, vec![21_200 * US, 22_400 * US, 23_600 * US], "late, but on the same schedule");
    let l = net.report(at(25 * MS)).lateness;
    assert_eq!((l.samples, l.p50_us, l.max_us), (3, 2600.0, 3800.0));
}

#[test]
fn test_two_links_hand_over_at_virtual_arrival_times() {
    // 100 Mbit/s + 1 ms, then 10 Mbit/s + 20 ms.
    let links =
        vec![link("s1->R1", 0, 100_000_000, MS, droptail(100)), link("R1->R2", 1, 10_000_000, 20 * MS, droptail(100))];
    let mut net = Net::new(&config(links)).unwrap();
    let mut rec = Recorder::default();
    net.arrive(at(0), 0, packet(1500, Ecn::NotEct), &mut rec);
    net.arrive(at(0), 0, packet(1500, Ecn::NotEct), &mut rec);
    let wakeups = run_to_idle(&mut net, &mut rec);
    let due: Vec<u64> = rec.delivered.iter().map(|(_, t, _)| t.as_nanos()).collect();
    // #1: 120 µs + 1 ms → 1.12 ms; 1.2 ms + 20 ms → 22.32 ms.
    // #2: first link until 240 µs → 1.24 ms, waits for the second until 2.32 ms → 3.52 + 20 ms.
    assert_eq!(due, vec![22_320 * US, 23_520 * US]);
    assert!(wakeups.windows(2).all(|w| w[0] <= w[1]), "deadlines never go back: {wakeups:?}");
    let r = net.report(at(30 * MS));
    assert_eq!(r.links[1].queue.max_qlen_pkts, 1, "#2 waited in the bottleneck queue while #1 was sent");
}

#[test]
fn test_malformed_and_unroutable_packets_are_counted_and_dropped() {
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, MS, droptail(10))])).unwrap();
    let mut rec = Recorder::default();
    let mut bad_ihl = packet(60, Ecn::Ect0);
    bad_ihl[0] = 0x43;
    let mut bad_total = packet(60, Ecn::Ect0);
    bad_total[2..4].copy_from_slice(&61u16.to_be_bytes());
    let mut v6 = packet(60, Ecn::Ect0);
    v6[0] = 0x60;
    let mut elsewhere = packet(60, Ecn::Ect0);
    elsewhere[16..20].copy_from_slice(&[10, 9, 9, 9]);
    for bytes in [vec![], vec![0x45; 12], bad_ihl, bad_total, v6, elsewhere] {
        net.arrive(at(0), 0, bytes, &mut rec);
    }
    run_to_idle(&mut net, &mut rec);
    let r = net.report(at(MS));
    let c = &r.ends[0].counters;
    assert_eq!(
        (c.rx_packets, c.malformed_short, c.malformed_bad_ihl, c.malformed_bad_total_len, c.malformed_not_ipv4),
        (6, 2, 1, 1, 1)
    );
    assert_eq!((c.unroutable, c.malformed()), (1, 5));
    assert_eq!(r.links[0].queue.arrivals, 0);
    assert!(rec.delivered.is_empty());
}

#[test]
fn test_ce_marks_rewrite_the_bytes_and_match_the_queue_count() {
    // wq = 1: RED's average is the instantaneous queue; a burst crosses min_th at once.
    let red = red(serde_json::json!({"max_p": 0.5, "wq": 1.0, "gentle": false, "wait": false, "ecn": true}));
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, MS, QueueConfig::Red(red))])).unwrap();
    let mut rec = Recorder::default();
    for _ in 0..30 {
        net.arrive(at(0), 0, packet(1500, Ecn::Ect0), &mut rec);
    }
    run_to_idle(&mut net, &mut rec);
    let q = &net.report(at(Duration::from_secs(1).as_nanos())).links[0].queue;
    let ce: Vec<_> = rec.delivered.iter().map(|(_, _, b)| Ipv4Packet::new_checked(&b[..]).unwrap()).collect();
    assert!(ce.iter().all(|p| p.verify_checksum()), "every header checksum still verifies");
    let marked = ce.iter().filter(|p| p.ecn() == Ecn::Ce).count() as u64;
    assert!(q.marks > 0 && q.drops() == 0, "an ECN queue marks ECT packets: {q:?}");
    assert_eq!((marked, rec.delivered.len() as u64), (q.marks, 30));
}

#[test]
fn test_route_counters_give_each_routes_drops_and_marks() {
    // An ECN RED queue with wq = 1: ECT packets are marked, Not-ECT ones dropped; the route's
    // in − out equals the queue's drops and its CE deliveries the queue's marks.
    let red = red(serde_json::json!({"max_p": 0.5, "wq": 1.0, "gentle": false, "wait": false, "ecn": true}));
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, MS, QueueConfig::Red(red))])).unwrap();
    let mut rec = Recorder::default();
    for i in 0..40 {
        net.arrive(at(0), 0, packet(1500, if i % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct }), &mut rec);
    }
    run_to_idle(&mut net, &mut rec);
    let r = net.report(at(Duration::from_secs(1).as_nanos()));
    let (q, route) = (&r.links[0].queue, &r.routes[0]);
    assert_eq!((route.from.as_str(), route.to.as_str()), ("a", "b"));
    assert!(q.marks > 0 && q.drops() > 0, "{q:?}");
    assert_eq!(route.counters.packets_in, 40);
    assert_eq!(route.counters.packets_in - route.counters.packets_out, q.drops());
    assert_eq!(route.counters.ce_out, q.marks);
}

#[test]
fn test_same_seed_same_decisions() {
    let red = red(serde_json::json!({"max_p": 0.3, "wq": 0.5, "gentle": true, "wait": true, "ecn": false}));
    let run = |seed: u64| {
        let mut cfg = config(vec![link("R1->R2", 3, 10_000_000, MS, QueueConfig::Red(red))]);
        cfg.seed = seed;
        cfg.links[0].loss = 0.1;
        let mut net = Net::new(&cfg).unwrap();
        let mut rec = Recorder::default();
        for i in 0..200u64 {
            net.arrive(at(i * 500 * US), 0, packet(1500, Ecn::NotEct), &mut rec);
        }
        run_to_idle(&mut net, &mut rec);
        let r = net.report(at(Duration::from_secs(1).as_nanos()));
        (r.links[0].queue.early_drops, r.links[0].counters.random_losses, rec.delivered.len())
    };
    let a = run(7);
    assert!(a.0 > 0 && a.1 > 0, "{a:?}");
    assert_eq!(a, run(7));
    assert_ne!(a, run(8));
}

#[test]
fn test_window_averages_from_traffic_start_and_utilisation_after_warmup() {
    // The router starts at 0 and idles; the traffic starts at 2 s. An average taken
    // from the router's start would count the idle time and come out low.
    let (start, warmup) = (2_000 * MS, 2_100 * MS);
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, 20 * MS, droptail(100))])).unwrap();
    let mut rec = Recorder::default();
    net.set_window(at(start), at(warmup));
    assert_eq!(net.next_deadline(), Some(at(start)), "the router wakes for the window marks");
    assert_eq!(run_to_idle(&mut net, &mut rec), vec![at(start), at(warmup)]);
    let r = net.report(at(warmup));
    assert_eq!((r.window.start_s, r.window.warmup_s), (Some(2.0), Some(2.1)));
    // Ten 1500-byte packets at `start` (1.2 ms each): the queue holds 9, 8, ..., 0 packets
    // behind the one in transmission, each for 1.2 ms: ∫ = 45 · 1.2 ms over 12 ms → 4.5
    // (over the router's 2.012 s it would be 0.027).
    let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, 20 * MS, droptail(100))])).unwrap();
    net.set_window(at(start), at(start + 6 * 1200 * US));
    net.poll(at(start), &mut rec);
    for _ in 0..10 {
        net.arrive(at(start), 0, packet(1500, Ecn::Ect0), &mut rec);
    }
    run_to_idle(&mut net, &mut rec);
    let r = net.report(at(start + 10 * 1200 * US));
    let q = &r.links[0].queue;
    assert!((q.avg_qlen_pkts - 4.5).abs() < 1e-9, "averaged from the traffic's start: {}", q.avg_qlen_pkts);
    assert!((q.avg_qlen_bytes - 4.5 * 1500.0).abs() < 1e-6);
    // Sojourn times after the warm-up only: the last 4 packets started at 7.2..10.8 ms (6 · 1.2 ms
    // onwards) after waiting 7.2, 8.4, 9.6, 10.8 ms (the one starting exactly at the mark counts).
    let sojourn = q.sojourn.as_ref().expect("recorded after the warm-up");
    assert!((sojourn.max_ms - 10.8).abs() < 0.1 && (sojourn.p50_ms - 8.4).abs() < 0.1, "{sojourn:?}");
    // Utilisation's bytes: those whose transmission started after the warm-up mark (packets 7..10).
    let c = r.links[0].counters;
    assert_eq!((c.bytes, c.bytes - c.bytes_at_warmup), (15_000, 4 * 1500));
}

#[test]
fn test_window_marks_run_in_time_order_with_a_late_wakeup() {
    // One wake-up long after both marks: the marks are still taken at their own times, between
    // the link events before and after them, so the average is the same as with on-time wake-ups.
    let run = |late: bool| {
        let mut net = Net::new(&config(vec![link("R1->R2", 0, 10_000_000, 20 * MS, droptail(100))])).unwrap();
        let mut rec = Recorder::default();
        for _ in 0..5 {
            net.arrive(at(0), 0, packet(1500, Ecn::Ect0), &mut rec);
        }
        net.set_window(at(1800 * US), at(3000 * US));
        if late {
            net.poll(at(50 * MS), &mut rec);
        } else {
            run_to_idle(&mut net, &mut rec);
        }
        let r = net.report(at(50 * MS));
        (r.links[0].queue.avg_qlen_pkts, r.links[0].counters.bytes_at_warmup, r.window)
    };
    let (avg, at_warmup, window) = run(true);
    assert_eq!(run(false), (avg, at_warmup, window));
    // Queue from 1.8 ms: 3 waiting until 2.4 ms, 2 until 3.6, 1 until 4.8 → ∫ = 3·0.6 + 2·1.2 + 1·1.2
    // packet·ms over 48.2 ms.
    assert!((avg - (3.0 * 0.6 + 2.0 * 1.2 + 1.2) / 48.2).abs() < 1e-12, "{avg}");
    assert_eq!(at_warmup, 3 * 1500, "transmissions started at 0, 1.2 and 2.4 ms");
    assert_eq!((window.start_s, window.warmup_s), (Some(0.0018), Some(0.003)));
}

fn impaired(mut l: LinkConfig, action: &str, extra: serde_json::Value) -> LinkConfig {
    let mut v = serde_json::json!({ "action": action });
    for (k, x) in extra.as_object().into_iter().flatten() {
        v[k] = x.clone();
    }
    l.impairments.push(serde_json::from_value(v).unwrap());
    l
}

/// A TCP segment from a to b with `flags` as real bytes.
fn segment(flags: ecnlab_wire::TcpFlags, ecn: Ecn) -> Vec<u8> {
    let ends = ecnlab_wire::Endpoints {
        src_addr: [10, 0, 1, 1],
        dst_addr: [10, 0, 2, 1],
        src_port: 40000,
        dst_port: 5201,
        src_isn: 0,
        dst_isn: 0,
    };
    let seg = ecnlab_wire::Segment { flags, ecn, payload_len: 100, ..Default::default() };
    let mut b = Vec::new();
    ecnlab_wire::emit_ipv4_tcp(&seg, &ends, 1, 0, &mut b).unwrap();
    b
}

#[test]
fn test_impairments_rewrite_in_their_window_from_the_traffic_start() {
    let from_to = serde_json::json!({ "from_ns": 10 * MS, "until_ns": 20 * MS });
    let links = vec![
        link("s1->R1", 0, 100_000_000, MS, droptail(100)),
        impaired(link("R1->R2", 1, 100_000_000, MS, droptail(100)), "bleach", from_to),
    ];
    let mut net = Net::new(&config(links)).unwrap();
    net.set_window(at(100 * MS), at(100 * MS));
    let mut rec = Recorder::default();
    for t in [105, 112, 125] {
        // Enters R1->R2 about 1.1 ms later: 6, 13 and 26 ms after the traffic's start.
        net.arrive(at(t * MS), 0, packet(1000, Ecn::Ect0), &mut rec);
        run_to_idle(&mut net, &mut rec);
    }
    let got: Vec<Ecn> = rec.delivered.iter().map(|(_, _, b)| Ipv4Packet::new_checked(&b[..]).unwrap().ecn()).collect();
    assert_eq!(got, [Ecn::Ect0, Ecn::NotEct, Ecn::Ect0]);
    assert!(rec.delivered.iter().all(|(_, _, b)| Ipv4Packet::new_checked(&b[..]).unwrap().verify_checksum()));
    let r = net.report(at(200 * MS));
    assert!(r.links[0].impairments.is_none());
    let counts = r.links[1].impairments.as_ref().unwrap();
    assert_eq!((counts[0].action, counts[0].rewritten, counts[0].dropped), ("bleach", 1, 0));
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["links"][0].get("impairments").is_none(), "absent on a link without impairments");
    assert_eq!(json["links"][1]["impairments"][0]["rewritten"], 1);
}

#[test]
fn test_router_drops_ecn_setup_syns_and_passes_the_rest() {
    use ecnlab_wire::TcpFlags as F;
    let links =
        vec![impaired(link("R1->R2", 0, 100_000_000, MS, droptail(100)), "drop_ecn_syn", serde_json::json!({}))];
    let mut net = Net::new(&config(links)).unwrap();
    let mut rec = Recorder::default();
    net.arrive(at(0), 0, segment(F::SYN | F::ECE | F::CWR, Ecn::NotEct), &mut rec);
    net.arrive(at(0), 0, segment(F::SYN, Ecn::NotEct), &mut rec);
    net.arrive(at(0), 0, segment(F::ACK | F::ECE, Ecn::Ect0), &mut rec);
    run_to_idle(&mut net, &mut rec);
    assert_eq!(rec.delivered.len(), 2);
    let r = net.report(at(10 * MS));
    let c = r.links[0].impairments.as_ref().unwrap()[0];
    assert_eq!((c.rewritten, c.dropped), (0, 1));
    assert_eq!((r.routes[0].counters.packets_in, r.routes[0].counters.packets_out), (3, 2));
    assert_eq!(r.links[0].counters.packets, 2, "a dropped SYN never reaches the queue");
}

#[test]
fn test_bad_impairment_names_the_field() {
    let links = vec![impaired(
        link("R1->R2", 0, 100_000_000, MS, droptail(100)),
        "ce_all",
        serde_json::json!({"fraction": 1.5}),
    )];
    let e = Net::new(&config(links)).err().unwrap().to_string();
    assert_eq!(e, "links[0].impairments[0].fraction = 1.5: must be in (0, 1]");
}

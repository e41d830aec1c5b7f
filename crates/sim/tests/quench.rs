//! ICMP Source Quench in the engine (`quench.rs`): a RED queue in quench mode
//! forwards the packets it selects and the gateway sends 56-byte quenches back
//! to their sources through the ordinary queues, where they can be lost.

mod common;
use common::*;
use ecnlab_aqm::QueueConfig;
use ecnlab_sim::pcap::node_addr;
use ecnlab_sim::spec::*;
use ecnlab_sim::Simulation;
use ecnlab_tcp::TcpConfig;

/// RED on R1->R2 (1.5 Mbit/s, 20 ms) in quench mode, three bulk flows without ECN.
fn quench_dumbbell(duration_ns: u64) -> SimSpec {
    let QueueConfig::Red(p) = red(5.0, 15.0, 0.1, 100, false, 1_500_000) else { unreachable!() };
    let q = QueueConfig::Red(ecnlab_aqm::RedParams { quench: true, ..p });
    dumbbell(3, 1_500_000, 20 * MS, q, TcpConfig::default(), duration_ns)
}

fn link_index(spec: &SimSpec, name: &str) -> usize {
    spec.links.iter().position(|l| l.name == name).unwrap()
}

/// Packets of a LINKTYPE_RAW pcap as (orig_len, bytes).
fn pcap_packets(path: &std::path::Path) -> Vec<(u32, Vec<u8>)> {
    let b = std::fs::read(path).unwrap();
    let (mut at, mut out) = (24, Vec::new());
    while at + 16 <= b.len() {
        let word = |i: usize| u32::from_le_bytes(b[at + i..at + i + 4].try_into().unwrap());
        let (incl, orig) = (word(8) as usize, word(12));
        out.push((orig, b[at + 16..at + 16 + incl].to_vec()));
        at += 16 + incl;
    }
    out
}

#[test]
fn test_quench_mode_quenches_instead_of_dropping_and_flows_back_off() {
    let spec = quench_dumbbell(20 * SEC);
    let mut sim = Simulation::new(spec).unwrap();
    let mut n = 0u64;
    while sim.step() {
        n += 1;
        if n.is_multiple_of(499) {
            let c = sim.census();
            assert_eq!(c.sent, c.delivered + c.stale + sim.packets_discarded() + sim.packets_in_network());
        }
    }
    let out = sim.run().unwrap();
    let q = out.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    assert!(q.quenches > 20, "RED selects packets early: {q:?}");
    assert_eq!((q.marks, q.early_drops), (0, 0), "selected packets are forwarded unmarked");
    let received: u64 = out.flows.iter().map(|f| f.quenches_received).sum();
    let reductions: u64 = out.flows.iter().map(|f| f.quench_reductions).sum();
    assert!(
        received <= q.quenches && q.quenches - received <= 3,
        "lossless reverse path: {received} of {}",
        q.quenches
    );
    assert!(reductions > 0 && reductions < received, "at most one reduction per window: {reductions} of {received}");
    for f in &out.flows {
        assert_eq!(f.pkts_sent, f.pkts_delivered + f.pkts_dropped + f.pkts_corrupted + f.pkts_in_flight, "{}", f.id);
        assert_eq!(f.ecn_reductions, 0);
    }
}

/// The quench's size and path: R1 sends it on R1->s_i (the source's access
/// link), as a real 56-byte ICMP type 4 packet from R1 to s_i quoting the
/// quenched segment's header (s_i → r_i, TCP) and ports.
#[test]
fn test_quench_packet_size_and_path_in_pcap() {
    let mut spec = quench_dumbbell(10 * SEC);
    let dir = std::env::temp_dir().join(format!("ecnlab-sim-quench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    spec.pcap_dir = Some(dir.display().to_string());
    for name in ["R1->s1", "R1->R2"] {
        let i = link_index(&spec, name);
        spec.links[i].pcap = true;
    }
    let out = Simulation::new(spec).unwrap().run().unwrap();
    let back = pcap_packets(&dir.join("R1-s1.pcap"));
    let forward = pcap_packets(&dir.join("R1-R2.pcap"));
    std::fs::remove_dir_all(&dir).ok();
    let (r1, s1, r1_host) = (node_addr(0), node_addr(2), node_addr(3));
    let icmp: Vec<&Vec<u8>> = back.iter().filter(|(_, b)| b[9] == 1).map(|(_, b)| b).collect();
    assert!(!icmp.is_empty());
    for b in &icmp {
        assert_eq!(b.len(), 56);
        assert_eq!((&b[12..16], &b[16..20]), (&r1[..], &s1[..]), "from the gateway to the source");
        assert_eq!((b[20], b[21]), (4, 0), "type 4 code 0");
        assert_eq!((b[28 + 9], &b[28 + 12..28 + 16], &b[28 + 16..28 + 20]), (6, &s1[..], &r1_host[..]));
    }
    assert!(forward.iter().all(|(_, b)| b[9] == 6), "no quench travels the forward path");
    let f1 = out.flows.iter().find(|f| f.id == "bulk1").unwrap();
    assert!(f1.quenches_received <= icmp.len() as u64 && icmp.len() as u64 - f1.quenches_received <= 1);
}

/// A quench can itself be lost: with 30 % random loss on the sources' access
/// links back from R1, fewer quenches arrive than were sent, and the packet
/// accounting still balances.
#[test]
fn test_quenches_can_be_lost_on_the_way_back() {
    let mut spec = quench_dumbbell(10 * SEC);
    for i in 1..=3 {
        let li = link_index(&spec, &format!("R1->s{i}"));
        spec.links[li].loss = 0.3;
    }
    let out = Simulation::new(spec).unwrap().run().unwrap();
    let q = out.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    let received: u64 = out.flows.iter().map(|f| f.quenches_received).sum();
    assert!(q.quenches > 0 && received * 10 < q.quenches * 9, "lost quenches: {received} of {}", q.quenches);
    for f in &out.flows {
        assert_eq!(f.pkts_sent, f.pkts_delivered + f.pkts_dropped + f.pkts_corrupted + f.pkts_in_flight, "{}", f.id);
    }
}

/// Same spec, same result: quench mode is deterministic.
#[test]
fn test_quench_runs_are_identical() {
    let run = || serde_json::to_string(&Simulation::new(quench_dumbbell(5 * SEC)).unwrap().run().unwrap()).unwrap();
    assert_eq!(run(), run());
}

/// A quench-mode queue at the source host's own output: the quench needs no
/// link and reaches the host's TCP at once, so every quench sent is received.
#[test]
fn test_quench_at_the_sources_own_queue_is_delivered_at_once() {
    let mut spec = quench_dumbbell(10 * SEC);
    let (access, bottleneck) = (link_index(&spec, "s1->R1"), link_index(&spec, "R1->R2"));
    spec.links[access].rate_bps = 1_000_000;
    spec.links[access].queue = spec.links[bottleneck].queue;
    spec.flows.truncate(1);
    let mut sim = Simulation::new(spec).unwrap();
    while sim.step() {
        let c = sim.census();
        assert_eq!(c.sent, c.delivered + c.stale + sim.packets_discarded() + sim.packets_in_network());
    }
    let out = sim.run().unwrap();
    let q = out.queues.iter().find(|q| q.link == "s1->R1").unwrap();
    let f = &out.flows[0];
    assert!(q.quenches > 0);
    assert_eq!(f.quenches_received, q.quenches);
    assert!(f.quench_reductions > 0);
}

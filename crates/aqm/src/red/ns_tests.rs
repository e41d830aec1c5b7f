//! ns-2 / ns-3 personality tests: scripted tables for the rules that differ
//! from F&J (qlen > 1, the `old` flag, the `mark_p` rule, ns-3's forced
//! region) and a differential run against an independent transcription of
//! ns-2.35 `REDQueue::enque` written out again below.

use ecnlab_wire::{Duration, Ecn, Instant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::config::{QueueConfig, RedPersonality};
use crate::queue::AqmQueue;
use crate::testutil::{ScriptRng, TestPkt};

fn params(personality: RedPersonality) -> RedParams {
    RedParams {
        limit_pkts: Some(1000),
        limit_bytes: None,
        min_th: 2.0,
        max_th: 4.0,
        max_p: 0.5,
        wq: 1.0, // avg = instantaneous queue: regions scripted by length
        gentle: true,
        wait: false,
        mode: RedMode::Packet,
        mean_pkt_bytes: 1000,
        link_rate_bps: 8_000_000,
        ecn: true,
        personality,
        mark_p: None,
        adaptive: false,
        ns2_rng_skip: None,
        quench: false,
    }
}

fn view(len_pkts: u32) -> QueueView {
    QueueView { len_pkts, len_bytes: u64::from(len_pkts) * 1000 }
}

const T: Instant = Instant::ZERO;

#[test]
fn test_no_action_while_queue_holds_at_most_one_packet() {
    // min_th below one packet: the average is above it with one packet queued,
    // yet ns never acts (and takes no draw) until two are queued.
    let cfg = RedParams { min_th: 0.5, ..params(RedPersonality::Ns3) };
    let mut red = NsRed::new(&cfg, Flavour::Ns3 { hard_drop: true });
    let mut rng = ScriptRng::default(); // panics on any draw
    for _ in 0..5 {
        assert_eq!(red.on_enqueue(T, 1000, &view(1), &mut rng), Verdict::Pass);
        assert!(!red.old, "qlen <= 1 resets old");
    }
    // qlen 2: first arrival above min_th only sets `old`; the next one draws.
    assert_eq!(red.on_enqueue(T, 1000, &view(2), &mut rng), Verdict::Pass);
    assert_eq!((red.old, red.count), (true, 1));
    rng.push(0.0);
    assert_eq!(red.on_enqueue(T, 1000, &view(2), &mut rng), Verdict::Signal(SignalKind::Early));
    assert_eq!((red.count, rng.remaining()), (0, 0));
}

#[test]
fn test_count_runs_below_min_th_and_restarts_at_crossing() {
    let mut red = NsRed::new(&params(RedPersonality::Ns2), Flavour::Ns2 { mark_p: 0.1 });
    let mut rng = ScriptRng::default();
    for _ in 0..7 {
        red.on_enqueue(T, 1000, &view(0), &mut rng);
    }
    assert_eq!(red.count, 7, "ns counts every arrival, also below min_th");
    red.on_enqueue(T, 1000, &view(3), &mut rng); // crossing: count = 1, no draw
    assert_eq!(red.count, 1);
    // avg 3: p1 = 0.5·(3−2)/2 = 0.25; count 2 → pa = 0.25/(1−0.5) = 0.5; u = 0.5 acts (u ≤ p).
    rng.push(0.5);
    assert_eq!(red.on_enqueue(T, 1000, &view(3), &mut rng), Verdict::Drop(DropReason::Early));
}

/// Through the host: ECT packets, avg = queue length before the arrival.
fn run_ect(cfg: RedParams, star: bool, qlen: u32, u: f64) -> (Result<(), DropReason>, u64, u64) {
    let qc = if star { QueueConfig::RedStar(cfg) } else { QueueConfig::Red(cfg) };
    let mut q = AqmQueue::new(&qc).unwrap();
    let mut rng = ScriptRng::default();
    for i in 0..u64::from(qlen) {
        rng.push(0.999_999); // early-region draws on the way up never act
        let _ = q.enqueue(T, TestPkt::new(i, 1000, Ecn::Ect0), &mut rng);
    }
    assert_eq!(q.len_pkts(), qlen);
    let before = q.stats(T);
    let mut rng = ScriptRng::new(&[u]);
    let r = q.enqueue(T, TestPkt::new(99, 1000, Ecn::Ect0), &mut rng).map_err(|(_, why)| why);
    let s = q.stats(T);
    (r, s.marks - before.marks, s.forced_drops - before.forced_drops)
}

/// One arrival with `qlen` queued (avg = qlen), `old` already set and count 0 → c = 1.
fn decide(cfg: RedParams, flavour: Flavour, qlen: u32, u: f64) -> Verdict {
    let mut red = NsRed::new(&cfg, flavour);
    (red.old, red.idle) = (true, Idle::Busy);
    red.on_enqueue(T, 1000, &view(qlen), &mut ScriptRng::new(&[u]))
}

#[test]
fn test_ns2_marks_only_below_mark_p_and_has_no_forced_region() {
    let ns2 = params(RedPersonality::Ns2); // max_p 0.5, gentle, thresholds 2/4
    let mark = |m: f64| Flavour::Ns2 { mark_p: m };
    let early_signal = Verdict::Signal(SignalKind::Early);
    let early_drop = Verdict::Drop(DropReason::Early);
    // avg 3: p1 = 0.25 < mark_p 0.3 → signal (a mark for ECT); ns-2's default 0.1 → drop.
    assert_eq!(decide(ns2, mark(0.3), 3, 0.0), early_signal);
    assert_eq!(decide(ns2, mark(0.1), 3, 0.0), early_drop);
    // Gentle region, avg 5: p1 = 0.75 ≥ mark_p 0.5 → drop; mark_p 2 → signal.
    assert_eq!(decide(ns2, mark(0.5), 5, 0.0), early_drop);
    assert_eq!(decide(ns2, mark(2.0), 5, 0.0), early_signal);
    // avg 9 ≥ 2·max_th: p1 = 1, an early drop with a draw (use_mark_p_ removes the forced region).
    assert_eq!(decide(ns2, mark(0.1), 9, 0.999), early_drop);
    // Through the host: a drop verdict drops an ECT packet, a signal marks it.
    // Arrivals 0–1: qlen ≤ 1; 2: crossing (old); 3: qlen 3, p1 = 0.9·2.5/99.5 ≈ 0.0226, drawn.
    for (m, marks, drops) in [(0.01, 0, 1), (0.3, 1, 0)] {
        let cfg = RedParams { mark_p: Some(m), min_th: 0.5, max_th: 100.0, max_p: 0.9, gentle: false, ..ns2 };
        let mut q = AqmQueue::new(&QueueConfig::Red(cfg)).unwrap();
        let mut rng = ScriptRng::default();
        for i in 0..4 {
            if i == 3 {
                rng.push(0.0);
            }
            let _ = q.enqueue(T, TestPkt::new(i, 1000, Ecn::Ect0), &mut rng);
        }
        let s = q.stats(T);
        assert_eq!((s.marks, s.early_drops, rng.remaining()), (marks, drops, 0), "mark_p {m}");
    }
}

#[test]
fn test_ns3_forced_region_drops_ect_with_hard_drop_marks_without() {
    let ns3 = params(RedPersonality::Ns3);
    // avg 8 = 2·max_th (gentle): forced; kind red = UseHardDrop, no draw taken.
    let mut q = AqmQueue::new(&QueueConfig::Red(ns3)).unwrap();
    let mut rng = ScriptRng::default();
    for i in 0..8 {
        rng.push(0.999_999);
        let _ = q.enqueue(T, TestPkt::new(i, 1000, Ecn::Ect0), &mut rng);
    }
    let drawn = rng.remaining();
    let (_, why) = q.enqueue(T, TestPkt::new(9, 1000, Ecn::Ect0), &mut rng).unwrap_err();
    assert_eq!((why, rng.remaining()), (DropReason::Forced, drawn));
    // red_star = UseHardDrop false: the ECT packet is marked.
    assert_eq!(run_ect(ns3, true, 8, 0.0).1, 1);
    // Early region marks ECT whatever p1 is (no mark_p in ns-3).
    assert_eq!(run_ect(ns3, false, 5, 0.0), (Ok(()), 1, 0));
}

#[test]
fn test_byte_mode_counts_mean_packets_and_scales_by_size() {
    let cfg = RedParams { mode: RedMode::Byte, wait: false, ..params(RedPersonality::Ns3) };
    let mut red = NsRed::new(&cfg, Flavour::Ns3 { hard_drop: true });
    red.old = true;
    red.idle = Idle::Busy;
    red.count_bytes = 2500 - 500; // after this 500-byte arrival: 2500 bytes = 2 mean packets (floor)
                                  // 3000 bytes queued: avg 3, p1 = 0.25; c = 2 → 0.25/(1 − 0.5) = 0.5; ×500/1000 = 0.25.
    let q = QueueView { len_pkts: 6, len_bytes: 3000 };
    let mut rng = ScriptRng::new(&[0.25]);
    assert_eq!(red.on_enqueue(T, 500, &q, &mut rng), Verdict::Signal(SignalKind::Early));
    red.count_bytes = 2000 - 500;
    let mut rng = ScriptRng::new(&[0.250_001]);
    assert_eq!(red.on_enqueue(T, 500, &q, &mut rng), Verdict::Pass);
}

/// ns-2.35 `REDQueue::enque` + `drop_early`, transcribed independently
/// (packet mode, `use_mark_p_` true, `setbit_` true, every packet ECT).
/// Returns 0 pass, 1 mark, 2 drop.
struct Ns2Ref {
    ave: f64,
    count: i64,
    old: bool,
    idle: bool,
    idletime: f64,
}

impl Ns2Ref {
    fn enque(&mut self, c: &RedParams, mark_p: f64, now: f64, qlen: u32, u: &mut dyn FnMut() -> f64) -> u8 {
        let ptc = c.link_rate_bps as f64 / (8.0 * f64::from(c.mean_pkt_bytes));
        let mut m = 0;
        if self.idle {
            self.idle = false;
            m = (ptc * (now - self.idletime)) as i64;
        }
        for _ in 0..m {
            self.ave *= 1.0 - c.wq;
        }
        self.ave = self.ave * (1.0 - c.wq) + c.wq * f64::from(qlen);
        self.count += 1;
        if !(self.ave >= c.min_th && qlen > 1) {
            self.old = false;
            return 0;
        }
        if !self.old {
            self.old = true;
            self.count = 1;
            return 0;
        }
        let p1 = if c.gentle && self.ave >= c.max_th {
            ((1.0 - c.max_p) / c.max_th * self.ave + 2.0 * c.max_p - 1.0).min(1.0)
        } else if self.ave >= c.max_th {
            1.0
        } else {
            (self.ave / (c.max_th - c.min_th) - c.min_th / (c.max_th - c.min_th)) * c.max_p
        };
        let cp = self.count as f64 * p1;
        let p = if cp < 1.0 { (p1 / (1.0 - cp)).min(1.0) } else { 1.0 };
        if u() <= p && p > 0.0 {
            self.count = 0;
            return if p1 < mark_p { 1 } else { 2 };
        }
        0
    }
}

#[test]
fn test_ns2_matches_transcribed_enque_on_random_traffic() {
    for seed in 0..20u64 {
        let mut gen = Pcg64Mcg::seed_from_u64(seed);
        let cfg = RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.02,
            mark_p: Some(0.1),
            limit_pkts: Some(10_000),
            ..params(RedPersonality::Ns2)
        };
        let mut red = NsRed::new(&cfg, Flavour::Ns2 { mark_p: 0.1 });
        let mut reference = Ns2Ref { ave: 0.0, count: 0, old: false, idle: true, idletime: 0.0 };
        let (mut rng_a, mut rng_b) = (Pcg64Mcg::seed_from_u64(seed + 100), Pcg64Mcg::seed_from_u64(seed + 100));
        let (mut qlen, mut now_ns) = (0u32, 0u64);
        let mut acts = 0;
        for step in 0..20_000 {
            now_ns += gen.random_range(0..3_000_000u64);
            if qlen > 0 && gen.random_bool(0.45) {
                qlen -= 1;
                if qlen == 0 {
                    red.on_idle(Instant::from_nanos(now_ns));
                    (reference.idle, reference.idletime) = (true, now_ns as f64 * 1e-9);
                }
                continue;
            }
            let v = red.on_enqueue(Instant::from_nanos(now_ns), 1000, &view(qlen), &mut rng_a);
            let got = match v {
                Verdict::Pass => 0,
                Verdict::Signal(_) => 1,
                Verdict::Drop(_) => 2,
            };
            let want = reference.enque(&cfg, 0.1, now_ns as f64 * 1e-9, qlen, &mut || rng_b.random::<f64>());
            assert_eq!(got, want, "seed {seed} step {step}: avg {} vs {}", red.avg, reference.ave);
            assert!((red.avg - reference.ave).abs() <= 1e-9 * reference.ave.max(1.0));
            acts += u32::from(got != 0);
            if got != 2 {
                qlen += 1;
            }
        }
        assert!(acts > 50, "seed {seed}: the run must reach the early region ({acts} actions)");
    }
}

/// ns-2.35 `REDQueue::deque` sets `idle_` and `idletime_` when the link asks
/// for a packet and the queue is empty, i.e. when the last packet's
/// transmission ends; `enque` then decays the average by m = ⌊ptc·(now −
/// idletime_)⌋ extra steps. ecnlab's host reports the queue empty when that
/// packet leaves it, so `ns2` starts the idle period one transmission later
/// (1000 B at 8 Mbit/s: 1 ms); `ns3` starts it at once.
#[test]
fn test_ns2_idle_starts_after_the_last_transmission() {
    let cfg = RedParams { wq: 0.5, min_th: 100.0, max_th: 200.0, ..params(RedPersonality::Ns2) };
    let ms = |x: u64| Instant::from_nanos(x * 1_000_000);
    let avg_after_gap = |flavour: Flavour| {
        let mut red = NsRed::new(&cfg, flavour);
        red.avg = 8.0;
        red.on_dequeue(ms(10), Duration::ZERO, 1000, &view(0));
        red.on_idle(ms(10));
        // 1.5 ms after the dequeue: ns-2's link finished 0.5 ms ago (m = 0);
        // measured from the dequeue, one mean-packet time (1 ms) has passed (m = 1).
        red.on_enqueue(ms(10) + Duration::from_micros(1500), 1000, &view(0), &mut ScriptRng::default());
        red.avg
    };
    assert_eq!(avg_after_gap(Flavour::Ns2 { mark_p: 0.1 }), 8.0 * 0.5); // (1 − wq)^(0+1)·avg + wq·0
    assert_eq!(avg_after_gap(Flavour::Ns3 { hard_drop: true }), 8.0 * 0.25); // m = 1
}

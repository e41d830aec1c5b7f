//! CoDel tests: Linux's fixed point against values computed independently
//! (a Python model of `codel_impl.h`, and u128 arithmetic here), exact drop
//! sequences for both personalities, the re-entry rule, the mtu rule, ECN
//! and `ce_threshold`, ports of ns-3's `codel-queue-disc-test-suite.cc`,
//! validation, and conservation properties.

use ecnlab_wire::{Ecn, Instant};
use proptest::prelude::*;

use super::*;
use crate::backlog::Store;
use crate::config::QueueConfig;
use crate::queue::AqmQueue;
use crate::stats::StatsAcc;
use crate::testutil::ScriptRng;
use crate::verdict::{DropReason, Enqueued, Verdict};

pub(crate) const MS: u64 = 1_000_000;

/// The tests' packet, with a flow key.
pub(crate) use crate::testutil::TestPkt as Pkt;

/// A minimal host with the steps of `queue.rs` whose AQM state the tests can read.
pub(crate) struct Host<A: SchedAqm> {
    pub store: Store<Pkt>,
    pub aqm: A,
    pub rng: ScriptRng,
}

impl<A: SchedAqm> Host<A> {
    pub fn new(aqm: A, ecn: bool) -> Self {
        Host { store: Store::new(aqm.subqueues(), ecn, StatsAcc::new()), aqm, rng: ScriptRng::default() }
    }

    pub fn enqueue(&mut self, now: u64, p: Pkt) -> usize {
        let now = Instant::from_nanos(now);
        self.store.at(now);
        self.aqm.tick(now, &self.store);
        self.aqm.prepare(&mut self.rng);
        let sub = self.aqm.classify(p.key, p.ecn);
        let len = p.len;
        assert_eq!(self.aqm.on_enqueue(now, len, sub, &self.store, &mut self.rng), Verdict::Pass);
        self.store.push(sub, p, len, Enqueued::Plain);
        self.aqm.on_enqueued(now, sub, &mut self.store);
        sub
    }

    pub fn dequeue(&mut self, now: u64) -> Option<Pkt> {
        let now = Instant::from_nanos(now);
        self.store.at(now);
        self.aqm.tick(now, &self.store);
        let sub = self.aqm.dequeue(now, &mut self.store, &mut self.rng)?;
        self.store.pop(sub)
    }

    /// Packets dropped since the last call.
    pub fn dropped(&mut self) -> Vec<(u64, DropReason)> {
        self.store.dropped.drain(..).map(|(p, r)| (p.id, r)).collect()
    }

    pub fn stats(&self) -> crate::QueueStats {
        self.store.stats.snapshot(Instant::ZERO, self.store.len_pkts(), self.store.len_bytes())
    }
}

pub(crate) fn params(personality: AqmPersonality) -> CodelParams {
    CodelParams {
        limit_pkts: Some(10_000),
        limit_bytes: None,
        target_ns: 5 * MS,
        interval_ns: 100 * MS,
        ecn: false,
        ce_threshold_ns: None,
        mtu_bytes: 1514,
        personality,
    }
}

fn host(p: &CodelParams) -> Host<Codel> {
    Host::new(Codel::new(p), p.ecn)
}

fn fill(h: &mut Host<Codel>, n: u64, at: u64, ecn: Ecn) {
    for id in 0..n {
        h.enqueue(at, Pkt::keyed(id, 1000, ecn, 0));
    }
}

/// The Newton step written out in u128 (an independent form of Linux's Q0.32 arithmetic).
fn newton_ref(rec: u16, count: u32) -> u16 {
    let x = u128::from(rec) << 16;
    let x2 = (x * x) >> 32;
    let val = (((3u128 << 32).wrapping_sub(u128::from(count) * x2)) & u128::from(u64::MAX)) >> 2;
    let val = ((val * x) & u128::from(u64::MAX)) >> 31;
    (val >> 16) as u16
}

/// ns-3 "NewtonStep arithmetic unit test": rec_inv_sqrt 0xff, 0x7f, …, 1 and
/// count 1, 2, 4, …, 128 against the reference; plus values computed by hand
/// / the Python model: one step from 1.0 (0xFFFF) at count 2 gives 0.5
/// (0x8001), at count 3 a near-zero value (Linux steps one count at a time).
#[test]
fn test_newton_step_matches_linux_arithmetic() {
    let mut rec = 0xffu16;
    while rec > 0 {
        let mut count = 1u32;
        while count < 0xff {
            assert_eq!(newton_step(rec, count), newton_ref(rec, count), "rec {rec:#x} count {count}");
            count *= 2;
        }
        rec /= 2;
    }
    assert_eq!(newton_step(0xffff, 2), 0x8001);
    assert_eq!(newton_step(0xffff, 3), 0x0002);
    assert_eq!(newton_step(0xffff, 4), 0x8004);
    assert_eq!(newton_step(0x8000, 4), 0x8000, "1/√4 = 0.5 is a fixed point");
}

/// ns-3 "ControlLaw arithmetic unit test": t from 0 to 20 s by 100 ms (in
/// ticks), rec_inv_sqrt 0xff halving, interval 100 ms, against
/// `t + ⌊interval · (rec << 16) / 2^32⌋`; and 97656 ticks · 0xFFFF/2^16 → 97654.
#[test]
fn test_control_law_matches_linux_arithmetic() {
    let interval = ((100 * MS) >> 10) as u32;
    assert_eq!(interval, 97_656);
    for k in 0..=200u64 {
        let t = ((k * 100 * MS) >> 10) as u32;
        let mut rec = 0xffu16;
        while rec > 0 {
            let want = u128::from(t) + ((u128::from(interval) * (u128::from(rec) << 16)) >> 32);
            assert_eq!(u128::from(linux_control_law(t, interval, rec)), want);
            rec /= 2;
        }
    }
    assert_eq!(linux_control_law(0, interval, 0xffff), 97_654);
    assert_eq!(linux_control_law(u32::MAX, 2, 0x8000), 0, "wraps like u32");
}

/// 3000 Not-ECT packets of 1000 B at t = 0; one dequeue per ms from 1 ms to
/// 1500 ms. Returns (dequeue instants in ms that dropped, (count, drop_next)
/// after each control-law update).
fn drop_run(personality: AqmPersonality) -> (Vec<u64>, Vec<(u32, u64)>) {
    let mut h = host(&params(personality));
    fill(&mut h, 3000, 0, Ecn::NotEct);
    let (mut drops, mut laws) = (Vec::new(), Vec::new());
    let mut last = h.aqm.vars.drop_next;
    for k in 1..=1500 {
        assert!(h.dequeue(k * MS).is_some());
        let d = h.dropped();
        if !d.is_empty() {
            assert_eq!(d.len(), 1, "one drop per dequeue at this rate");
            assert_eq!(d[0].1, DropReason::Early);
            drops.push(k);
        }
        if h.aqm.vars.drop_next != last {
            last = h.aqm.vars.drop_next;
            laws.push((h.aqm.vars.count, last));
        }
    }
    (drops, laws)
}

/// Linux personality, exactly as the Python model of `codel_impl.h` computes
/// it: the sojourn reaches target (4882 ticks) at 5 ms, so first_above =
/// 4882 + 97656 = 102538 and the first drop is the first dequeue strictly
/// after it (105 ms = 102539 ticks); drop_next = 102539 + 97654 = 200193;
/// at count 2 Linux's first Newton step gives 1/√2 ≈ 0.5, so the next gap is
/// 48829 ticks (not 69053).
#[test]
fn test_linux_drop_times_and_control_law_exact() {
    let (drops, laws) = drop_run(AqmPersonality::Linux);
    let want_drops = [
        105, 205, 255, 312, 361, 405, 445, 483, 518, 551, 582, 612, 641, 669, 696, 721, 746, 771, 794, 817, 839, 861,
        882, 903, 924, 944, 963, 983, 1001, 1020, 1038, 1056, 1074, 1091, 1108, 1125, 1142, 1158, 1175, 1191, 1206,
        1222, 1237, 1253, 1268, 1283, 1297, 1312, 1326, 1341, 1355, 1369, 1383, 1396, 1410, 1424, 1437, 1450, 1463,
        1476, 1489,
    ];
    assert_eq!(drops, want_drops);
    let want_laws = [
        (1, 200_193),
        (2, 249_022),
        (3, 303_953),
        (4, 351_588),
        (5, 394_704),
        (6, 434_163),
        (7, 470_801),
        (8, 505_128),
        (9, 537_531),
        (10, 568_297),
        (11, 597_650),
        (12, 625_766),
        (13, 652_790),
        (14, 678_838),
        (15, 704_010),
        (16, 728_388),
    ];
    assert_eq!(laws[..16], want_laws);
}

/// RFC personality: drop_next = 105 ms + 100 ms/√1, then + 100 ms/√count
/// truncated to ns (205 ms, 275.710678 ms, 333.445704 ms, …).
#[test]
fn test_rfc_drop_times_and_control_law_exact() {
    let (drops, laws) = drop_run(AqmPersonality::Rfc);
    let want_drops = [
        105, 205, 276, 334, 384, 429, 469, 507, 543, 576, 608, 638, 667, 694, 721, 747, 772, 796, 820, 843, 865, 887,
        908, 929, 949, 969, 989, 1008, 1027, 1046, 1064, 1082, 1100, 1117, 1134, 1151, 1168, 1184, 1200, 1216, 1232,
        1248, 1263, 1279, 1294, 1309, 1323, 1338, 1352, 1367, 1381, 1395, 1409, 1422, 1436, 1449, 1463, 1476, 1489,
    ];
    assert_eq!(drops, want_drops);
    let want_laws = [
        (1, 205_000_000),
        (2, 275_710_678),
        (3, 333_445_704),
        (4, 383_445_704),
        (5, 428_167_063),
        (6, 468_991_892),
        (7, 506_788_339),
        (8, 542_143_678),
    ];
    assert_eq!(laws[..8], want_laws);
}

/// Linux drops only when now is strictly after first_above_time; the RFC
/// already at it. Times are multiples of 1024 ns so both clocks agree.
#[test]
fn test_first_drop_strictly_after_first_above_linux_at_it_rfc() {
    const TICK: u64 = 1024;
    for (personality, first_drop) in [(AqmPersonality::Linux, 105_001 * TICK), (AqmPersonality::Rfc, 105_000 * TICK)] {
        let p = CodelParams { target_ns: 4000 * TICK, interval_ns: 100_000 * TICK, ..params(personality) };
        let mut h = host(&p);
        fill(&mut h, 50, 0, Ecn::NotEct);
        h.dequeue(5000 * TICK);
        assert_eq!(h.aqm.vars.first_above_time, h.aqm.cfg.clock(Instant::from_nanos(105_000 * TICK)));
        for t in [105_000 * TICK, 105_001 * TICK] {
            h.dequeue(t);
            assert_eq!(h.dropped().len(), usize::from(t == first_drop), "{personality:?} at {t}");
        }
    }
}

/// Re-entry (RFC 8289 §5 / Linux): entering the dropping state with
/// delta = count − lastcount > 1 and now − drop_next < 16·interval resumes at
/// count = delta (Linux: one Newton step from the old rec_inv_sqrt), else 1.
#[test]
fn test_reentry_count_rule() {
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        let p = params(personality);
        let cfg = Codel::new(&p).cfg;
        let at = |ms: u64| cfg.clock(Instant::from_nanos(ms * MS));
        // (count, lastcount, drop_next at ms, now ms) → expected count
        let cases = [
            (10, 3, 1000, 1000 + 1590, 7), // 15.9 intervals after drop_next: resume at delta
            (10, 3, 1000, 1000 + 1610, 1), // 16.1 intervals: restart
            (10, 9, 1000, 1100, 1),        // delta = 1
            (10, 3, 3000, 2900, 7),        // drop_next still ahead: resume
        ];
        for (count, lastcount, dn_ms, now_ms, want) in cases {
            let mut h = host(&p);
            fill(&mut h, 20, (now_ms - 50) * MS, Ecn::NotEct);
            let rec = 0x5000;
            h.aqm.vars = CodelVars {
                count,
                lastcount,
                rec_inv_sqrt: rec,
                drop_next: at(dn_ms),
                first_above_time: at(now_ms - 10),
                ..CodelVars::default()
            };
            assert!(h.dequeue(now_ms * MS).is_some());
            assert_eq!(h.dropped().len(), 1);
            let v = h.aqm.vars;
            assert!(v.dropping);
            assert_eq!((v.count, v.lastcount), (want, want), "{personality:?} {now_ms}");
            if personality == AqmPersonality::Linux {
                let want_rec = if want == 1 { 0xffff } else { newton_ref(rec, want) };
                assert_eq!(v.rec_inv_sqrt, want_rec);
                assert_eq!(v.drop_next, u64::from(linux_control_law(at(now_ms) as u32, 97_656, want_rec)));
            } else {
                let gap = (100.0 * MS as f64 / f64::from(want).sqrt()) as u64;
                assert_eq!(v.drop_next, now_ms * MS + gap);
            }
        }
    }
}

/// No drop while the bytes behind the head are ≤ mtu_bytes, however long the
/// sojourn; with mtu 999 the same run drops.
#[test]
fn test_no_drop_while_backlog_at_most_mtu() {
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        for (mtu, drops) in [(1514, false), (1000, false), (999, true)] {
            let mut h = host(&CodelParams { mtu_bytes: mtu, ..params(personality) });
            fill(&mut h, 2, 0, Ecn::NotEct);
            for k in 1..=200u64 {
                // Two packets queued at each dequeue, the head 20 ms old.
                h.dequeue(10 * k * MS);
                h.enqueue(10 * k * MS, Pkt::keyed(k + 10, 1000, Ecn::NotEct, 0));
            }
            assert_eq!(!h.dropped().is_empty(), drops, "{personality:?} mtu {mtu}");
        }
    }
}

/// ns-3 "Basic drop operations": 20 packets at t = 0; a dequeue at 2·target
/// drops nothing; at 2·target + 2·interval one drop and the next packet
/// leaves (queue −2); a second dequeue at that instant is not yet due (−1);
/// at twice that instant, as many drops as drop_next updates.
#[test]
fn test_ns3_basic_drop() {
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        let mut h = host(&params(personality));
        fill(&mut h, 20, 0, Ecn::NotEct);
        h.dequeue(10 * MS).unwrap();
        assert_eq!((h.store.len_pkts(), h.dropped().len()), (19, 0));
        h.dequeue(210 * MS).unwrap();
        assert_eq!((h.store.len_pkts(), h.dropped().len()), (17, 1));
        h.dequeue(210 * MS).unwrap();
        assert_eq!((h.store.len_pkts(), h.dropped().len()), (16, 0));
        let count_before = h.aqm.vars.count;
        h.dequeue(420 * MS).unwrap();
        let drops = h.dropped().len();
        assert!(drops >= 1);
        assert_eq!(h.aqm.vars.count - count_before, drops as u32);
        assert_eq!(h.store.len_pkts(), 16 - 1 - drops as u32);
    }
}

/// ns-3 "Basic mark operations" cases 1, 2 and 4: ECN on, Not-ECT packets are
/// dropped; ECT packets are marked instead (the marked packet leaves, the
/// queue shrinks by one); with ce_threshold 2 ms, a packet leaving after 1 ms
/// is not marked, after 3 ms and 10 ms it is (step marks), and at 210 ms the
/// control law marks (an AQM mark, not counted twice).
#[test]
fn test_ecn_marks_ect_drops_not_ect_and_ce_threshold() {
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        let p = CodelParams { ecn: true, ..params(personality) };
        let mut h = host(&p);
        fill(&mut h, 20, 0, Ecn::NotEct);
        h.dequeue(10 * MS).unwrap();
        h.dequeue(210 * MS).unwrap();
        assert_eq!((h.store.len_pkts(), h.dropped().len(), h.stats().marks), (17, 1, 0));

        let mut h = host(&p);
        fill(&mut h, 20, 0, Ecn::Ect0);
        h.dequeue(10 * MS).unwrap();
        let out = h.dequeue(210 * MS).unwrap();
        assert_eq!((out.id, out.ecn), (1, Ecn::Ce));
        assert_eq!((h.store.len_pkts(), h.dropped().len(), h.stats().marks), (18, 0, 1));
        assert_eq!(h.dequeue(210 * MS).unwrap().ecn, Ecn::Ect0, "not yet time for the next mark");
        assert_eq!(h.dequeue(420 * MS).unwrap().ecn, Ecn::Ce);
        assert_eq!(h.stats().dequeue_marks, 2);

        let mut h = host(&CodelParams { ce_threshold_ns: Some(2 * MS), ..p });
        fill(&mut h, 20, 0, Ecn::Ect0);
        let ecn_at = |h: &mut Host<Codel>, ms: u64| h.dequeue(ms * MS).unwrap().ecn;
        assert_eq!(ecn_at(&mut h, 1), Ecn::Ect0);
        assert_eq!(ecn_at(&mut h, 3), Ecn::Ce);
        assert_eq!(ecn_at(&mut h, 10), Ecn::Ce);
        let s = h.stats();
        assert_eq!((s.marks, s.step_marks), (2, 2));
        assert_eq!(ecn_at(&mut h, 210), Ecn::Ce);
        let s = h.stats();
        assert_eq!((s.marks, s.step_marks, s.dequeue_drops), (3, 2, 0), "control-law mark counted once");
    }
}

/// Linux applies ce_threshold with `INET_ECN_set_ce` alone: ECT packets are
/// marked even with ecn off, Not-ECT packets are neither marked nor dropped.
#[test]
fn test_ce_threshold_ignores_ecn_switch_and_spares_not_ect() {
    let p = CodelParams { ce_threshold_ns: Some(2 * MS), ..params(AqmPersonality::Linux) };
    let mut h = host(&p);
    h.enqueue(0, Pkt::keyed(1, 1000, Ecn::Ect1, 0));
    h.enqueue(0, Pkt::keyed(2, 1000, Ecn::NotEct, 0));
    h.enqueue(0, Pkt::keyed(3, 1000, Ecn::Ce, 0));
    assert_eq!(h.dequeue(3 * MS).unwrap().ecn, Ecn::Ce);
    assert_eq!(h.dequeue(3 * MS).unwrap().ecn, Ecn::NotEct);
    assert_eq!(h.dequeue(3 * MS).unwrap().ecn, Ecn::Ce);
    let s = h.stats();
    assert_eq!((s.step_marks, s.dequeue_drops), (2, 0), "an arriving CE counts, as INET_ECN_set_ce succeeds");
}

#[test]
fn test_empty_queue_leaves_dropping_state() {
    let mut h = host(&params(AqmPersonality::Linux));
    h.aqm.vars.dropping = true;
    assert!(h.dequeue(MS).is_none());
    assert!(!h.aqm.vars.dropping);
}

#[test]
fn test_codel_validate_rejections() {
    let ok = params(AqmPersonality::Linux);
    assert_eq!(ok.validate(), Ok(()));
    assert_eq!(QueueConfig::Codel(ok).validate(), Ok(()));
    let e = |p: CodelParams| p.validate().unwrap_err().to_string();
    assert_eq!(e(CodelParams { target_ns: 0, ..ok }), "target_ns = 0: must be > 0");
    assert_eq!(e(CodelParams { interval_ns: 0, ..ok }), "interval_ns = 0: must be > 0");
    assert_eq!(e(CodelParams { ce_threshold_ns: Some(0), ..ok }), "ce_threshold_ns = 0: must be > 0");
    assert_eq!(e(CodelParams { mtu_bytes: 0, ..ok }), "mtu_bytes = 0: must be >= 1");
    // RFC 8289 §4.3: the target is a fraction of the interval.
    let late = CodelParams { target_ns: 200 * 1_000_000, interval_ns: 100 * 1_000_000, ..ok };
    assert_eq!(e(late), "target_ns = 200000000: must be <= interval_ns (RFC 8289 §4.3: 5-10 % of it)");
    assert_eq!(CodelParams { target_ns: ok.interval_ns, ..ok }.validate(), Ok(()));
    assert!(e(CodelParams { interval_ns: 1 << 41, ..ok }).starts_with("interval_ns = 2199023255552: must be < 2^41"));
    let rfc = CodelParams { interval_ns: 1 << 41, ..params(AqmPersonality::Rfc) };
    assert_eq!(rfc.validate(), Ok(()));
    assert_eq!(e(CodelParams { limit_pkts: None, ..ok }).split(':').next(), Some("limit_pkts = null"));
    assert_eq!(e(CodelParams { limit_pkts: Some(0), ..ok }), "limit_pkts = 0: must be > 0");
    assert_eq!(e(CodelParams { limit_bytes: Some(10), ..ok }).split(':').next(), Some("limit_bytes = 10"));
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    Arrive { gap_us: u64, ecn: u8, len: u32 },
    Depart { gap_us: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3000u64, 0..4u8, 40..1500u32).prop_map(|(gap_us, ecn, len)| Op::Arrive { gap_us, ecn, len }),
        (0..3000u64).prop_map(|gap_us| Op::Depart { gap_us }),
    ]
}

/// Runs `ops` through a host queue; checks the counters' identities and that
/// no Not-ECT packet leaves marked.
pub(crate) fn conservation_run(cfg: &QueueConfig, ops: &[Op], keys: u64) -> Result<(), TestCaseError> {
    let mut q: AqmQueue<Pkt> = AqmQueue::new(cfg).unwrap();
    let mut rng = rand_pcg::Pcg64::new(7, 11);
    let (mut t, mut id, mut out, mut arrival_drops) = (0u64, 0u64, 0u64, 0u64);
    let mut dropped_later = 0u64;
    for o in ops {
        match *o {
            Op::Arrive { gap_us, ecn, len } => {
                t += gap_us * 1000;
                id += 1;
                let p = Pkt::keyed(id, len, Ecn::from_tos(ecn), id % keys);
                if q.enqueue(Instant::from_nanos(t), p, &mut rng).is_err() {
                    arrival_drops += 1;
                }
            }
            Op::Depart { gap_us } => {
                t += gap_us * 1000;
                if let Some(p) = q.dequeue(Instant::from_nanos(t), &mut rng) {
                    out += 1;
                    prop_assert!(p.ecn != Ecn::Ce || p.id > 0);
                }
            }
        }
        for (p, _) in q.drain_dropped() {
            dropped_later += 1;
            prop_assert!(p.ecn != Ecn::Ce || p.id > 0);
        }
        let s = q.stats(Instant::from_nanos(t));
        prop_assert_eq!(s.arrivals, s.enqueued + s.arrival_drops());
        prop_assert_eq!(s.enqueued, s.dequeued + s.dequeue_drops + u64::from(q.len_pkts()));
        prop_assert_eq!((s.dequeued, s.dequeue_drops, s.arrival_drops()), (out, dropped_later, arrival_drops));
        prop_assert!(s.marks <= s.enqueued);
    }
    Ok(())
}

/// Not-ECT packets are never marked: every packet that leaves CE arrived ECT or CE.
pub(crate) fn not_ect_never_marked(cfg: &QueueConfig, ops: &[Op], keys: u64) -> Result<(), TestCaseError> {
    let mut q: AqmQueue<Pkt> = AqmQueue::new(cfg).unwrap();
    let mut rng = rand_pcg::Pcg64::new(3, 5);
    let mut sent_ecn = std::collections::HashMap::new();
    let (mut t, mut id) = (0u64, 0u64);
    for o in ops {
        match *o {
            Op::Arrive { gap_us, ecn, len } => {
                t += gap_us * 1000;
                id += 1;
                let e = Ecn::from_tos(ecn);
                sent_ecn.insert(id, e);
                let _ = q.enqueue(Instant::from_nanos(t), Pkt::keyed(id, len, e, id % keys), &mut rng);
            }
            Op::Depart { gap_us } => {
                t += gap_us * 1000;
                if let Some(p) = q.dequeue(Instant::from_nanos(t), &mut rng) {
                    if sent_ecn[&p.id] == Ecn::NotEct {
                        prop_assert_eq!(p.ecn, Ecn::NotEct);
                    }
                }
            }
        }
        q.drain_dropped().for_each(drop);
    }
    Ok(())
}

pub(crate) fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(op(), 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn prop_codel_conservation(ops in ops(), rfc in any::<bool>(), ecn in any::<bool>(), ce in any::<bool>()) {
        let personality = if rfc { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let p = CodelParams {
            limit_pkts: Some(60),
            target_ns: MS,
            interval_ns: 10 * MS,
            ecn,
            ce_threshold_ns: ce.then_some(2 * MS),
            ..params(personality)
        };
        conservation_run(&QueueConfig::Codel(p), &ops, 1)?;
    }

    #[test]
    fn prop_codel_not_ect_never_marked(ops in ops(), rfc in any::<bool>(), ce in any::<bool>()) {
        let personality = if rfc { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let p = CodelParams {
            limit_pkts: Some(60),
            target_ns: MS,
            interval_ns: 10 * MS,
            ecn: true,
            ce_threshold_ns: ce.then_some(2 * MS),
            ..params(personality)
        };
        not_ect_never_marked(&QueueConfig::Codel(p), &ops, 1)?;
    }
}

//! DualPI2 tests: the p' trajectory (Linux fixed point and RFC), the coupling
//! p_C = p'², p_CL = min(k·p', 1), scripted-draw verdicts (C marks and drops,
//! L marks, overload, step and ramp), the 2-MTU rule, the WRR order, the
//! decision at enqueue (`drop_early`), the packet and memory limits, the
//! sojourn's span, validation, and properties through the host queue. Each
//! test of a Linux rule names the `sch_dualpi2.c` function it pins.

use ecnlab_wire::{Ecn, Instant};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::{scale_gain, Base, DualPi2, C, L};
use crate::aqm::SchedAqm;
use crate::backlog::Store;
use crate::config::{AqmPersonality, DualPi2Params, EcnMask, QueueConfig};
use crate::queue::AqmQueue;
use crate::stats::StatsAcc;
use crate::testutil::{op, Op, ScriptRng, TestPkt};
use crate::verdict::{DropReason, Enqueued, Verdict};

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

fn params(personality: AqmPersonality) -> DualPi2Params {
    DualPi2Params {
        limit_pkts: 10_000,
        target_ns: 15 * MS,
        tupdate_ns: 16 * MS,
        alpha: 0.16,
        beta: 3.2,
        coupling: 2.0,
        step_thresh_ns: None,
        step_thresh_pkts: None,
        min_qlen_step: 0,
        ramp_min_ns: None,
        ramp_range_ns: None,
        classic_protection_pct: 10,
        ecn_mask: EcnMask::L4sEct,
        drop_on_overload: true,
        mtu_bytes: 1514,
        personality,
        drop_early: false,
        memory_limit_bytes: None,
    }
}

fn linux() -> DualPi2Params {
    params(AqmPersonality::Linux)
}

fn rfc() -> DualPi2Params {
    params(AqmPersonality::Rfc)
}

fn t(ns: u64) -> Instant {
    Instant::from_nanos(ns)
}

/// The AQM on a bare host store (lets a test set p' directly).
struct H {
    aqm: DualPi2,
    st: Store<TestPkt>,
    next_id: u64,
}

impl H {
    fn new(p: &DualPi2Params) -> Self {
        let aqm = DualPi2::new(p);
        let st = Store::new(2, true, StatsAcc::with_classes(vec![0, 1], &["L", "C"]));
        H { aqm, st, next_id: 0 }
    }

    /// Sets p' (Linux: fixed point from the fraction) and stops the updates.
    fn with_p(mut self, p: f64) -> Self {
        self.aqm.base = match self.aqm.base {
            Base::Linux { .. } => Base::Linux { prob: (p * f64::from(u32::MAX)) as u32, last_qdelay: 0 },
            Base::Rfc { .. } => Base::Rfc { p, prevq: 0.0 },
        };
        self.aqm.next_update = Instant::from_nanos(u64::MAX / 2);
        self
    }

    fn enq(&mut self, now: Instant, len: u32, ecn: Ecn) -> usize {
        self.st.at(now);
        self.aqm.tick(now, &self.st);
        let sub = self.aqm.classify(0, ecn);
        self.st.push(sub, TestPkt::new(self.next_id, len, ecn), len, Enqueued::Plain);
        self.next_id += 1;
        self.aqm.on_enqueued(now, sub, &mut self.st);
        sub
    }

    /// One host dequeue: (sub-queue, packet) of the packet sent.
    fn deq(&mut self, now: Instant, rng: &mut ScriptRng) -> Option<(usize, TestPkt)> {
        self.st.at(now);
        self.aqm.tick(now, &self.st);
        let sub = self.aqm.dequeue(now, &mut self.st, rng)?;
        Some((sub, self.st.pop(sub).unwrap()))
    }

    /// One host arrival: `on_enqueue`'s verdict, applied as the host does
    /// (a signal CE-marks the packet, which is ECT here).
    fn arrive(&mut self, now: Instant, len: u32, ecn: Ecn, rng: &mut ScriptRng) -> Verdict {
        self.st.at(now);
        self.aqm.tick(now, &self.st);
        let sub = self.aqm.classify(0, ecn);
        let v = self.aqm.on_enqueue(now, len, sub, &self.st, rng);
        let mut pkt = TestPkt::new(self.next_id, len, ecn);
        self.next_id += 1;
        let how = match v {
            Verdict::Drop(_) => return v,
            Verdict::Signal(_) => {
                assert!(crate::queue::QueuedPacket::set_ce(&mut pkt));
                Enqueued::Marked
            }
            Verdict::Pass => Enqueued::Plain,
        };
        self.st.push(sub, pkt, len, how);
        self.aqm.on_enqueued(now, sub, &mut self.st);
        v
    }

    fn drops(&mut self) -> Vec<(u64, DropReason)> {
        self.st.dropped.drain(..).map(|(p, r)| (p.id, r)).collect()
    }
}

/// `dualpi2_scale_alpha_beta`: α, β in Hz → tc's 1/256 Hz → u32 probability per 64 ns.
#[test]
fn test_dualpi2_gain_scaling_matches_linux_defaults() {
    // dualpi2_scale_alpha_beta(41) and (819): tc's 1/256 Hz units → per 64 ns of u32 probability.
    assert_eq!(scale_gain(0.16), 44); // (41·(2^32 − 1) >> 2) / 1e9
    assert_eq!(scale_gain(3.2), 879);
}

/// `calculate_probability` (`__scale_delta`, the wrap checks) against exact arithmetic.
#[test]
fn test_dualpi2_linux_p_trajectory_fixed_point() {
    // One C packet enqueued at 0 and never served: qdelay = t_k at each update
    // t_k = 16, 32, 48, 64 ms; then it leaves and the queue is empty.
    let mut h = H::new(&linux());
    h.enq(t(0), 1500, Ecn::NotEct);
    let (a, b) = (44i64, 879i64);
    let (mut prob, mut prev) = (0i64, 0i64);
    for k in 1..=4u64 {
        let qd = (k * 16 * MS) as i64;
        prob += ((qd - 15 * MS as i64) * a + (qd - prev) * b) / 64;
        prev = qd;
        h.aqm.tick(t(k * 16 * MS), &h.st);
        assert_eq!(h.aqm.prob_fx(), Some(prob as u32), "update {k}");
        // p_C = p'² and p_CL = min(k·p', 1) at every update.
        let p = prob as f64 / f64::from(u32::MAX);
        assert!((h.aqm.p_c() - p * p).abs() < 1e-15);
        assert!((h.aqm.p_cl() - (2.0 * p).min(1.0)).abs() < 1e-15);
    }
    // The fixed point is Linux's α, β to 0.1 %: compare with exact arithmetic.
    let mut exact = 0.0;
    let mut old = 0.0;
    for k in 1..=4 {
        let qd = k as f64 * 0.016;
        exact += 0.16 * (qd - 0.015) + 3.2 * (qd - old);
        old = qd;
    }
    assert!((h.aqm.p_base() - exact).abs() / exact < 2e-3, "{} vs {exact}", h.aqm.p_base());
    // Saturates at 1 (u32::MAX) without wrapping.
    h.aqm.tick(t(2_000 * MS), &h.st);
    assert_eq!(h.aqm.prob_fx(), Some(u32::MAX));
    // Drained: with both queues empty p' falls by α·target per update to 0 and stays.
    let mut rng = ScriptRng::default();
    h.deq(t(2_000 * MS), &mut rng).unwrap();
    h.aqm.tick(t(100_000 * MS), &h.st);
    assert_eq!(h.aqm.prob_fx(), Some(0));
}

/// `calculate_probability`: qdelay = max(L head, C head) (`get_queue_delays`); RFC 9332 A.1: the C head.
#[test]
fn test_dualpi2_qdelay_is_max_of_heads_linux_c_only_rfc() {
    // An L packet alone: Linux counts its sojourn, the RFC's update uses the C head only.
    let mut lx = H::new(&linux());
    lx.enq(t(0), 1500, Ecn::Ect1);
    lx.aqm.tick(t(32 * MS), &lx.st);
    assert!(lx.aqm.p_base() > 0.0);
    let mut rf = H::new(&rfc());
    rf.enq(t(0), 1500, Ecn::Ect1);
    rf.aqm.tick(t(32 * MS), &rf.st);
    assert_eq!(rf.aqm.p_base(), 0.0);
    // RFC with a C packet: exact p' = Σ α(q − target) + β(q − prev), clamped.
    let mut rf = H::new(&rfc());
    rf.enq(t(0), 1500, Ecn::Ect0);
    let want = [
        0.16 * (0.016 - 0.015) + 3.2 * 0.016,
        0.16 * (0.016 - 0.015) + 3.2 * 0.016 + 0.16 * (0.032 - 0.015) + 3.2 * 0.016,
    ];
    for (k, w) in want.iter().enumerate() {
        rf.aqm.tick(t((k as u64 + 1) * 16 * MS), &rf.st);
        assert!((rf.aqm.p_base() - w).abs() < 1e-15, "{k}");
        assert!((rf.aqm.p_c() - w * w).abs() < 1e-15);
    }
}

/// `calculate_probability` without `drop_overload`: p' ≤ `MAX_PROB / coupling_factor`.
#[test]
fn test_dualpi2_no_drop_on_overload_caps_p_at_one_over_k() {
    let mut h = H::new(&DualPi2Params { drop_on_overload: false, ..linux() });
    h.enq(t(0), 1500, Ecn::Ect0);
    h.aqm.tick(t(5_000 * MS), &h.st);
    assert_eq!(h.aqm.prob_fx(), Some(u32::MAX / 2));
    let mut h = H::new(&DualPi2Params { drop_on_overload: false, ..rfc() });
    h.enq(t(0), 1500, Ecn::Ect0);
    h.aqm.tick(t(5_000 * MS), &h.st);
    assert_eq!(h.aqm.p_base(), 0.5);
}

/// Fills: `n` packets of 1500 bytes with `ecn` at t = 0.
fn fill(h: &mut H, n: usize, ecn: Ecn) {
    for _ in 0..n {
        h.enq(t(0), 1500, ecn);
    }
}

/// `dualpi2_classic_marking`: p_C = p'² as two `dualpi2_roll`s; ECT marked, Not-ECT dropped.
#[test]
fn test_dualpi2_linux_classic_two_rolls_mark_ect_drop_not_ect() {
    let mut h = H::new(&linux()).with_p(0.5);
    fill(&mut h, 3, Ecn::Ect0); // ids 0..3, C (ECT(0) is Classic under l4s_ect)
    fill(&mut h, 4, Ecn::NotEct); // ids 3..7
                                  // id 0: rolls 0.1, 0.2 ≤ 0.5 → marked; id 1: 0.1 then 0.9 → not; id 2: 0.9 → one roll only.
                                  // id 3: two low rolls → dropped; id 4 then leaves 3000 B < 2 MTU behind it: no roll.
    let mut rng = ScriptRng::new(&[0.1, 0.2, 0.1, 0.9, 0.9, 0.1, 0.1]);
    let got: Vec<(u64, Ecn)> = (0..4)
        .map(|_| {
            h.deq(t(0), &mut rng)
                .map(|(s, p)| {
                    assert_eq!(s, C);
                    (p.id, p.ecn)
                })
                .unwrap()
        })
        .collect();
    assert_eq!(got, [(0, Ecn::Ce), (1, Ecn::Ect0), (2, Ecn::Ect0), (4, Ecn::NotEct)]);
    assert_eq!(h.drops(), [(3, DropReason::Early)]);
    assert_eq!(rng.remaining(), 0);
}

/// `dualpi2_scalable_marking`: p_CL = k·p' as one roll against `local_l_prob`.
#[test]
fn test_dualpi2_linux_l_marks_with_k_times_p() {
    let mut h = H::new(&linux()).with_p(0.3); // p_L = 0.6
    fill(&mut h, 5, Ecn::Ect1);
    let mut rng = ScriptRng::new(&[0.5, 0.7]);
    let (s, p) = h.deq(t(0), &mut rng).unwrap();
    assert_eq!((s, p.ecn), (L, Ecn::Ce));
    let (_, p) = h.deq(t(0), &mut rng).unwrap();
    assert_eq!(p.ecn, Ecn::Ect1);
    assert_eq!(rng.remaining(), 0);
    let s = h.st.stats.snapshot(t(0), 0, 0);
    assert_eq!((s.marks, s.step_marks, s.dequeue_marks), (1, 0, 1));
}

/// `dualpi2_scalable_marking` and `dualpi2_classic_marking` in overload (`local_l_prob > MAX_PROB`), `drop_overload`.
#[test]
fn test_dualpi2_linux_overload_drops_l_with_p_squared_else_marks() {
    let mut h = H::new(&linux()).with_p(0.6); // k·p' = 1.2 > 1
    fill(&mut h, 6, Ecn::Ect1);
    // id 0: 0.1, 0.1 → dropped; id 1: 0.1, 0.9 → marked; id 2: 0.9 → marked.
    let mut rng = ScriptRng::new(&[0.1, 0.1, 0.1, 0.9, 0.9]);
    let a = h.deq(t(0), &mut rng).unwrap().1;
    let b = h.deq(t(0), &mut rng).unwrap().1;
    assert_eq!((a.id, a.ecn, b.id, b.ecn), (1, Ecn::Ce, 2, Ecn::Ce));
    assert_eq!(h.drops(), [(0, DropReason::Early)]);
    // C in overload: an ECT packet whose rolls succeed is dropped, not marked.
    let mut h = H::new(&linux()).with_p(0.6);
    fill(&mut h, 4, Ecn::Ect0);
    let mut rng = ScriptRng::new(&[0.1, 0.1, 0.9]);
    assert_eq!(h.deq(t(0), &mut rng).unwrap().1.id, 1);
    assert_eq!(h.drops(), [(0, DropReason::Early)]);
    // Without drop_on_overload the L packet is marked with no roll at all.
    let mut h = H::new(&DualPi2Params { drop_on_overload: false, ..linux() }).with_p(0.6);
    fill(&mut h, 4, Ecn::Ect1);
    assert_eq!(h.deq(t(0), &mut ScriptRng::default()).unwrap().1.ecn, Ecn::Ce);
}

/// `must_drop`: no roll while the backlog without the packet is below 2·`psched_mtu`.
#[test]
fn test_dualpi2_nothing_below_two_mtu_backlog() {
    // Backlog without the head: 2·1000 < 2·1514 → no roll (ScriptRng would panic), no mark.
    let mut h = H::new(&linux()).with_p(1.0);
    for _ in 0..3 {
        h.enq(t(0), 1000, Ecn::Ect0);
    }
    let mut none = ScriptRng::default();
    for _ in 0..3 {
        assert_eq!(h.deq(t(0), &mut none).unwrap().1.ecn, Ecn::Ect0);
    }
    // 4 packets: the first head sees 3000 < 3028: no roll; adding one more byte-sized margin rolls.
    let mut h = H::new(&linux()).with_p(0.5);
    for _ in 0..4 {
        h.enq(t(0), 1010, Ecn::Ect0);
    }
    let mut two = ScriptRng::new(&[0.1, 0.1]);
    assert_eq!(h.deq(t(0), &mut two).unwrap().1.ecn, Ecn::Ce); // 3030 ≥ 3028
    assert_eq!(two.remaining(), 0);
}

/// `do_step_aqm` in time: mark when the sojourn is above `step_thresh` (1 ms); C untouched.
#[test]
fn test_dualpi2_linux_step_marks_above_1ms_sojourn() {
    // Two L packets (backlog below 2 MTU: the coupled AQM is off, the step is not).
    let mut h = H::new(&linux());
    h.enq(t(0), 1000, Ecn::Ect1);
    h.enq(t(0), 1000, Ecn::Ect1);
    let mut none = ScriptRng::default();
    assert_eq!(h.deq(t(MS), &mut none).unwrap().1.ecn, Ecn::Ect1); // sojourn = 1 ms: not above
    assert_eq!(h.deq(t(MS + 1), &mut none).unwrap().1.ecn, Ecn::Ce);
    let s = h.st.stats.snapshot(t(MS + 1), 0, 0);
    assert_eq!((s.marks, s.step_marks), (1, 1));
    assert_eq!((s.classes[0].step_marks, s.classes[1].marks), (1, 0));
    // The step never touches C.
    let mut h = H::new(&linux());
    h.enq(t(0), 1000, Ecn::Ect0);
    assert_eq!(h.deq(t(10 * MS), &mut none).unwrap().1.ecn, Ecn::Ect0);
}

/// `skb_apply_step` (`min_qlen_step`, taken at enqueue) and `do_step_aqm` in packets (`step_in_packets`).
#[test]
fn test_dualpi2_step_flags_min_qlen_and_packets() {
    // min_qlen_step = 2: the first two L packets found < 2 ahead of them: no step.
    let mut h = H::new(&DualPi2Params { min_qlen_step: 2, ..linux() });
    for _ in 0..3 {
        h.enq(t(0), 100, Ecn::Ect1);
    }
    let mut none = ScriptRng::default();
    let ecns: Vec<Ecn> = (0..3).map(|_| h.deq(t(5 * MS), &mut none).unwrap().1.ecn).collect();
    assert_eq!(ecns, [Ecn::Ect1, Ecn::Ect1, Ecn::Ce]);
    assert!(h.aqm.apply.is_empty());
    // step_thresh_pkts = 2: mark while more than 2 L packets remain behind the head.
    let mut h = H::new(&DualPi2Params { step_thresh_pkts: Some(2), ..linux() });
    for _ in 0..5 {
        h.enq(t(0), 100, Ecn::Ect1);
    }
    let ecns: Vec<Ecn> = (0..5).map(|_| h.deq(t(0), &mut none).unwrap().1.ecn).collect();
    assert_eq!(ecns, [Ecn::Ce, Ecn::Ce, Ecn::Ect1, Ecn::Ect1, Ecn::Ect1]);
}

#[test]
fn test_dualpi2_rfc_ramp_and_coupled_l_probability() {
    // Ramp 800 µs + 400 µs: sojourn 1000 µs → p'_L = 0.5 (p' = 0); one uniform each.
    let mut h = H::new(&rfc());
    for _ in 0..3 {
        h.enq(t(0), 100, Ecn::Ect1);
    }
    let mut rng = ScriptRng::new(&[0.4, 0.6]);
    assert_eq!(h.deq(t(1_000 * US), &mut rng).unwrap().1.ecn, Ecn::Ce);
    assert_eq!(h.deq(t(1_000 * US), &mut rng).unwrap().1.ecn, Ecn::Ect1);
    // Below the ramp: p_L = 0, no draw.
    assert_eq!(h.deq(t(800 * US), &mut ScriptRng::default()).unwrap().1.ecn, Ecn::Ect1);
    let s = h.st.stats.snapshot(t(MS), 0, 0);
    assert_eq!(s.step_marks, 1);
    // Coupled: p' = 0.3, above 2 MTU: p_L = max(0, 0.6); C: one uniform against p'² = 0.09.
    let mut h = H::new(&rfc()).with_p(0.3);
    fill(&mut h, 4, Ecn::Ect1);
    let mut rng = ScriptRng::new(&[0.59]);
    assert_eq!(h.deq(t(0), &mut rng).unwrap().1.ecn, Ecn::Ce);
    let mut h = H::new(&DualPi2Params { classic_protection_pct: 100, ..rfc() }).with_p(0.3);
    fill(&mut h, 3, Ecn::Ect0);
    fill(&mut h, 4, Ecn::NotEct);
    let mut rng = ScriptRng::new(&[0.08, 0.1, 0.1, 0.05]);
    let got: Vec<Ecn> = (0..4).map(|_| h.deq(t(0), &mut rng).unwrap().1.ecn).collect();
    assert_eq!(got, [Ecn::Ce, Ecn::Ect0, Ecn::Ect0, Ecn::NotEct]);
    assert_eq!(h.drops(), [(3, DropReason::Early)]);
}

#[test]
fn test_dualpi2_rfc_lone_packet_and_overload_boundary() {
    // Th_len = 1: a lone L packet is not ramp-marked even at 2 ms of sojourn (no draw).
    let mut h = H::new(&rfc());
    h.enq(t(0), 100, Ecn::Ect1);
    assert_eq!(h.deq(t(2 * MS), &mut ScriptRng::default()).unwrap().1.ecn, Ecn::Ect1);
    // k·p' = 1 exactly: RFC saturation (p_CL ≥ 1): L dropped with p_C = 0.25 (u = 0.2).
    let mut h = H::new(&rfc()).with_p(0.5);
    fill(&mut h, 4, Ecn::Ect1);
    let mut rng = ScriptRng::new(&[0.2]);
    assert_eq!(h.deq(t(0), &mut rng).unwrap().1.id, 1); // id 1: below 2 MTU behind it, no draw
    assert_eq!(h.drops(), [(0, DropReason::Early)]);
    assert_eq!(rng.remaining(), 0);
    // ... while Linux (⌊2·(2^31 − 1)⌋ ≤ u32::MAX) is not overloaded: one roll marks.
    let mut h = H::new(&linux()).with_p(0.5);
    fill(&mut h, 4, Ecn::Ect1);
    let mut rng = ScriptRng::new(&[0.2]);
    let p = h.deq(t(0), &mut rng).unwrap().1;
    assert_eq!((p.id, p.ecn), (0, Ecn::Ce));
}

/// Sub-queues of the first `n` packets sent with both queues backlogged and no AQM action.
fn wrr(pct: u8, n: usize) -> String {
    let mut h = H::new(&DualPi2Params { classic_protection_pct: pct, ..linux() });
    fill(&mut h, 40, Ecn::Ect1);
    fill(&mut h, 40, Ecn::Ect0);
    // p' = 0: every Linux roll must fail: draws just below 1.
    let mut rng = ScriptRng::new(&[0.999_999; 200]);
    (0..n).map(|_| if h.deq(t(0), &mut rng).unwrap().0 == L { 'L' } else { 'C' }).collect()
}

/// `dequeue_packet` and `dualpi2_calculate_c_protection`: the WRR credit, its reset when both queues are empty.
#[test]
fn test_dualpi2_wrr_order_with_classic_protection() {
    // 10 %: credit starts at 1514·(10 − 90); +10·1500 per L, −90·1500 per C: 9 L then 1 C.
    assert_eq!(wrr(10, 30), "LLLLLLLLLCLLLLLLLLLCLLLLLLLLLC");
    assert_eq!(wrr(50, 8), "LCLCLCLC");
    assert_eq!(wrr(0, 5), "LLLLL");
    assert_eq!(wrr(100, 5), "CCCCC");
    // C still gets the link when L is empty, and the credit resets when both are.
    let mut h = H::new(&linux());
    fill(&mut h, 1, Ecn::Ect0);
    let mut none = ScriptRng::default();
    assert_eq!(h.deq(t(0), &mut none).unwrap().0, C);
    assert!(h.deq(t(0), &mut none).is_none());
    assert_eq!(h.aqm.credit(), 1514 * (10 - 90));
}

#[test]
fn test_dualpi2_coupled_rates_match_p_squared_and_k_p() {
    // Statistical check of the coupling: C signalled with p'², L with min(k·p', 1).
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        for (pct, ecn, want) in [(100u8, Ecn::Ect0, 0.09), (0u8, Ecn::Ect1, 0.6)] {
            let p = DualPi2Params { classic_protection_pct: pct, ..params(personality) };
            let mut h = H::new(&p).with_p(0.3);
            let mut rng = Pcg64Mcg::seed_from_u64(11);
            fill(&mut h, 4, ecn);
            let (mut marks, n) = (0u32, 20_000u32);
            for _ in 0..n {
                h.st.at(t(0));
                let sub = h.aqm.dequeue(t(0), &mut h.st, &mut rng).unwrap();
                marks += u32::from(h.st.pop(sub).unwrap().ecn == Ecn::Ce);
                h.enq(t(0), 1500, ecn);
            }
            let rate = f64::from(marks) / f64::from(n);
            assert!((rate - want).abs() < 0.015, "{personality:?} {ecn:?}: {rate} vs {want}");
        }
    }
}

#[test]
fn test_dualpi2_long_idle_equals_stepwise_updates() {
    for personality in [AqmPersonality::Linux, AqmPersonality::Rfc] {
        let mut a = H::new(&params(personality));
        a.enq(t(0), 1500, Ecn::Ect0);
        a.aqm.tick(t(400 * MS), &a.st); // p' saturates
        a.deq(t(400 * MS), &mut ScriptRng::default()).unwrap();
        let mut b = H::new(&params(personality));
        b.aqm.base = a.aqm.base.clone();
        b.aqm.next_update = a.aqm.next_update;
        for k in 26..=5_000u64 {
            a.aqm.tick(t(k * 16 * MS), &a.st);
        }
        b.aqm.tick(t(5_000 * 16 * MS), &b.st);
        assert_eq!(a.aqm.base, b.aqm.base, "{personality:?}");
        assert_eq!(a.aqm.next_update, b.aqm.next_update);
        assert_eq!(a.aqm.p_base(), 0.0);
    }
}

/// `dualpi2_skb_classify`: L iff `cb->ect & ecn_mask` (masks 1, 2, 3 of
/// `TC_DUALPI2_ECN_MASK_*`); Not-ECT never goes to L.
#[test]
fn test_dualpi2_classify_by_mask_and_host_classes() {
    let mut a = DualPi2::new(&linux());
    let subs: Vec<usize> = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].iter().map(|&e| a.classify(0, e)).collect();
    assert_eq!(subs, [C, C, L, L]);
    let mut a = DualPi2::new(&DualPi2Params { ecn_mask: EcnMask::ClaEct, ..linux() });
    let subs: Vec<usize> = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].iter().map(|&e| a.classify(0, e)).collect();
    assert_eq!(subs, [C, L, C, L]);
    let mut a = DualPi2::new(&DualPi2Params { ecn_mask: EcnMask::AnyEct, ..linux() });
    let subs: Vec<usize> = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].iter().map(|&e| a.classify(0, e)).collect();
    assert_eq!(subs, [C, L, L, L]);
    assert_eq!(a.class_names(), ["L", "C"]);
    assert_eq!(a.subqueues(), 2);
}

#[test]
fn test_dualpi2_validation_rejects_each_field() {
    let e = |p: DualPi2Params| p.validate().unwrap_err().to_string();
    assert_eq!(linux().validate(), Ok(()));
    assert_eq!(rfc().validate(), Ok(()));
    assert_eq!(e(DualPi2Params { limit_pkts: 0, ..linux() }), "limit_pkts = 0: must be >= 1");
    assert_eq!(e(DualPi2Params { target_ns: 0, ..linux() }), "target_ns = 0: must be > 0 ns");
    assert_eq!(e(DualPi2Params { tupdate_ns: 0, ..linux() }), "tupdate_ns = 0: must be > 0 ns");
    assert_eq!(e(DualPi2Params { alpha: -1.0, ..linux() }), "alpha = -1: must be finite and >= 0");
    assert_eq!(e(DualPi2Params { beta: f64::INFINITY, ..linux() }), "beta = inf: must be finite and >= 0");
    assert_eq!(e(DualPi2Params { coupling: 0.0, ..linux() }), "coupling = 0: must be finite and > 0");
    assert_eq!(e(DualPi2Params { coupling: f64::NAN, ..linux() }), "coupling = NaN: must be finite and > 0");
    assert_eq!(
        e(DualPi2Params { classic_protection_pct: 101, ..linux() }),
        "classic_protection_pct = 101: must be <= 100"
    );
    let both = DualPi2Params { step_thresh_ns: Some(MS), step_thresh_pkts: Some(3), ..linux() };
    assert_eq!(e(both), "step_thresh_pkts = 3: must not be set together with step_thresh_ns");
    let above = DualPi2Params { step_thresh_ns: None, step_thresh_pkts: Some(10), limit_pkts: 10, ..linux() };
    assert_eq!(e(above), "step_thresh_pkts = 10: must be < limit_pkts (10): a full queue drops the arrival first");
    let half = DualPi2Params { ramp_min_ns: Some(800 * US), ..rfc() };
    assert_eq!(e(half), "ramp_range_ns = null: must be set with ramp_min_ns (800000)");
    let half = DualPi2Params { ramp_range_ns: Some(400 * US), ..rfc() };
    assert_eq!(e(half), "ramp_min_ns = null: must be set with ramp_range_ns (400000)");
    let zero = DualPi2Params { ramp_min_ns: Some(800 * US), ramp_range_ns: Some(0), ..rfc() };
    assert_eq!(e(zero), "ramp_range_ns = 0: must be > 0 ns");
    let ramp_linux = DualPi2Params { ramp_min_ns: Some(1), ramp_range_ns: Some(1), ..linux() };
    assert!(e(ramp_linux).starts_with("ramp_min_ns = 1: only applies to personality rfc"));
    let step_rfc = DualPi2Params { step_thresh_ns: Some(MS), ..rfc() };
    assert!(e(step_rfc).starts_with("step_thresh_ns = 1000000: only applies to personality linux"));
    assert_eq!(e(DualPi2Params { mtu_bytes: 0, ..linux() }), "mtu_bytes = 0: must be >= 1");
    let zero = DualPi2Params { memory_limit_bytes: Some(0), ..linux() };
    assert_eq!(e(zero), "memory_limit_bytes = 0: must be >= 1 byte");
    assert!(QueueConfig::DualPi2(DualPi2Params { limit_pkts: 0, ..linux() }).validate().is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Through the host: conservation, Not-ECT never marked, p' in [0, 1], per-class counters add up.
    #[test]
    fn prop_dualpi2_conservation_and_bounds(
        ops in prop::collection::vec(op(30_000_000), 1..400),
        rfc_p in any::<bool>(),
        pct in 0u8..=100,
        any_ect in any::<bool>(),
        overload_drop in any::<bool>(),
        early in any::<bool>(),
        mem in prop::option::of(1_000u64..40_000),
        seed in any::<u64>(),
    ) {
        let personality = if rfc_p { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let p = DualPi2Params {
            limit_pkts: 40, target_ns: MS, tupdate_ns: 2 * MS, alpha: 5.0, beta: 50.0,
            classic_protection_pct: pct, drop_on_overload: overload_drop,
            drop_early: early, memory_limit_bytes: mem,
            ecn_mask: if any_ect { EcnMask::AnyEct } else { EcnMask::L4sEct },
            ..params(personality)
        };
        let mut q: AqmQueue<TestPkt> = AqmQueue::new(&QueueConfig::DualPi2(p)).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut now = 0u64;
        let (mut arrivals, mut out) = (0u64, 0u64);
        let mut sent_ecn = Vec::new();
        for (i, o) in ops.into_iter().enumerate() {
            let tt = Instant::from_nanos(now);
            sent_ecn.push(Ecn::NotEct);
            match o {
                Op::Enqueue(len, ecn) => {
                    arrivals += 1;
                    sent_ecn[i] = ecn;
                    let _ = q.enqueue(tt, TestPkt::new(i as u64, len, ecn), &mut rng);
                }
                Op::Dequeue => if let Some(pkt) = q.dequeue(tt, &mut rng) {
                    out += 1;
                    if sent_ecn[pkt.id as usize] == Ecn::NotEct {
                        prop_assert_eq!((pkt.ecn, pkt.ce_calls), (Ecn::NotEct, 0));
                    }
                },
                Op::Advance(d) => now += d,
            }
            let pr = q.prob(Instant::from_nanos(now)).unwrap();
            prop_assert!((0.0..=1.0).contains(&pr), "p' = {}", pr);
        }
        let dropped_after = q.drain_dropped().count() as u64;
        let s = q.stats(Instant::from_nanos(now));
        prop_assert_eq!(arrivals, s.arrivals);
        prop_assert_eq!(s.enqueued, out + dropped_after + u64::from(q.len_pkts()));
        prop_assert_eq!(s.classes[0].dequeued + s.classes[1].dequeued, out);
        prop_assert_eq!(s.dequeue_drops, dropped_after);
        // A class's drops are the AQM's (at dequeue, or at arrival with drop_early), not tail drops.
        prop_assert_eq!(s.classes[0].drops + s.classes[1].drops, s.early_drops);
        prop_assert_eq!(s.classes[0].marks + s.classes[1].marks, s.marks);
        prop_assert!(s.marks <= s.enqueued);
        if let Some(m) = mem {
            prop_assert!(q.len_bytes() <= m);
        }
    }

    /// The coupling holds at every update: p_C = p'² and p_CL = min(k·p', 1),
    /// with p' in [0, 1], whatever the queue does.
    #[test]
    fn prop_dualpi2_coupling_at_every_update(
        sojourns in prop::collection::vec(0u64..200, 1..60),
        rfc_p in any::<bool>(),
        k in 0.5f64..4.0,
    ) {
        let personality = if rfc_p { AqmPersonality::Rfc } else { AqmPersonality::Linux };
        let mut h = H::new(&DualPi2Params { coupling: k, ..params(personality) });
        let mut now = 0u64;
        let mut none = ScriptRng::new(&[0.5; 4000]);
        for (i, s) in sojourns.into_iter().enumerate() {
            // A C packet enqueued `s` ms before the next update; drain the rest.
            while h.deq(t(now), &mut none).is_some() {}
            let next = (i as u64 + 1) * 16 * MS;
            now = next.saturating_sub(s * MS).max(now);
            h.enq(t(now), 1500, Ecn::Ect0);
            h.aqm.tick(t(next), &h.st);
            now = next;
            let p = h.aqm.p_base();
            prop_assert!((0.0..=1.0).contains(&p));
            prop_assert_eq!(h.aqm.p_c(), p * p);
            prop_assert_eq!(h.aqm.p_cl(), (k * p).min(1.0));
            // RFC 9332 eq. (1): p_C = (p_CL / k)² while p_CL is not saturated.
            if k * p < 1.0 {
                let back = (h.aqm.p_cl() / k).powi(2);
                prop_assert!((back - h.aqm.p_c()).abs() <= 1e-12 * h.aqm.p_c().max(1e-300));
            }
        }
    }
}

/// `dualpi2_enqueue_skb` with `drop_early`: `must_drop` runs on the arrival,
/// against the backlog without it (2-MTU rule), and nothing rolls at dequeue.
#[test]
fn test_dualpi2_drop_early_decides_on_the_arrival() {
    use crate::verdict::SignalKind;
    let mut h = H::new(&DualPi2Params { drop_early: true, ..linux() }).with_p(0.3);
    let mut rng = ScriptRng::new(&[0.1, 0.2, 0.1, 0.1, 0.5, 0.7]);
    let early = Verdict::Signal(SignalKind::Early);
    // ids 0..3: backlog 0, 1500, 3000 < 3028 before each: no roll.
    let v: Vec<Verdict> = (0..3).map(|_| h.arrive(t(0), 1500, Ecn::Ect0, &mut rng)).collect();
    assert_eq!(v, [Verdict::Pass; 3]);
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect0, &mut rng), early); // id 3: two rolls ≤ p' → mark
    assert_eq!(h.arrive(t(0), 1500, Ecn::NotEct, &mut rng), Verdict::Drop(DropReason::Early)); // id 4
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect1, &mut rng), early); // id 5: one roll ≤ k·p' = 0.6
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect1, &mut rng), Verdict::Pass); // id 6: 0.7 > 0.6
    assert_eq!(rng.remaining(), 0);
    // Dequeue at 5 ms (L first, WRR): no coupled roll (ScriptRng would panic);
    // the step still runs, but not on id 5, already marked at its enqueue.
    let mut none = ScriptRng::default();
    let out: Vec<(u64, Ecn)> = std::iter::from_fn(|| h.deq(t(5 * MS), &mut none)).map(|(_, p)| (p.id, p.ecn)).collect();
    assert_eq!(out, [(5, Ecn::Ce), (6, Ecn::Ce), (0, Ecn::Ect0), (1, Ecn::Ect0), (2, Ecn::Ect0), (3, Ecn::Ce)]);
    let s = h.st.stats.snapshot(t(5 * MS), 0, 0);
    assert_eq!((s.step_marks, s.dequeue_marks), (1, 1));
    // Marks at arrival count in their class: L ids 5 (arrival) and 6 (step), C id 3.
    assert_eq!((s.marks, s.classes[0].marks, s.classes[1].marks), (3, 2, 1));
}

/// `dualpi2_enqueue_skb`: the packet limit (both queues) and the memory limit
/// tail-drop the arrival before `must_drop` rolls; the default has no byte limit.
#[test]
fn test_dualpi2_limit_and_memory_limit_drop_before_any_roll() {
    let p = DualPi2Params { limit_pkts: 4, memory_limit_bytes: Some(4_000), drop_early: true, ..linux() };
    let mut h = H::new(&p).with_p(1.0);
    let mut none = ScriptRng::default();
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect1, &mut none), Verdict::Pass);
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect0, &mut none), Verdict::Pass);
    // 3000 + 1500 > 4000: overflow, no roll although p' = 1 and drop_early.
    assert_eq!(h.arrive(t(0), 1500, Ecn::Ect0, &mut none), Verdict::Drop(DropReason::Overflow));
    // 3000 + 1000 = 4000 is not above the limit: admitted (backlog 3000 < 2 MTU: no roll).
    assert_eq!(h.arrive(t(0), 1000, Ecn::Ect0, &mut none), Verdict::Pass);
    assert_eq!(h.arrive(t(0), 10, Ecn::Ect0, &mut none), Verdict::Drop(DropReason::Overflow));
    // limit_pkts: at 4 packets the AQM passes without a roll and the host tail-drops.
    let mut h = H::new(&DualPi2Params { limit_pkts: 4, drop_early: true, ..linux() }).with_p(1.0);
    for _ in 0..4 {
        h.enq(t(0), 100, Ecn::Ect0);
    }
    assert_eq!(h.arrive(t(0), 100, Ecn::Ect0, &mut none), Verdict::Pass);
    // Through the host: the 5th packet is an overflow drop; no byte limit by default.
    let mut q: AqmQueue<TestPkt> =
        AqmQueue::new(&QueueConfig::DualPi2(DualPi2Params { limit_pkts: 4, ..linux() })).unwrap();
    for id in 0..4 {
        q.enqueue(t(0), TestPkt::new(id, 60_000, Ecn::Ect0), &mut none).unwrap();
    }
    let err = q.enqueue(t(0), TestPkt::new(4, 100, Ecn::Ect0), &mut none).unwrap_err();
    assert_eq!(err.1, DropReason::Overflow);
}

/// `dualpi2_sojourn_time` / `do_step_aqm`: the sojourn runs from enqueue to
/// this packet's dequeue, which the link makes when it can start sending
/// (crates/sim `try_transmit`, `on_tx_done`). At 8 Mbit/s a 1500-byte
/// packet takes 1.5 ms: a packet alone on an idle link leaves at once
/// (sojourn 0, its own 1.5 ms on the wire are not counted); the one behind it
/// waits out that transmission (1.5 ms > 1 ms) and is step-marked.
#[test]
fn test_dualpi2_sojourn_is_enqueue_to_dequeue_and_counts_the_previous_transmission() {
    let tx = 1_500 * 8 * 1_000_000_000 / 8_000_000; // ns on the wire
    let mut h = H::new(&linux());
    let mut none = ScriptRng::default();
    h.enq(t(0), 1500, Ecn::Ect1);
    assert_eq!(h.deq(t(0), &mut none).unwrap().1.ecn, Ecn::Ect1); // the link was idle
    h.enq(t(100 * US), 1500, Ecn::Ect1); // arrives while the first is on the wire
    assert_eq!(h.deq(t(tx), &mut none).unwrap().1.ecn, Ecn::Ce); // 1.4 ms > 1 ms
    h.enq(t(tx + 600 * US), 1500, Ecn::Ect1);
    assert_eq!(h.deq(t(2 * tx), &mut none).unwrap().1.ecn, Ecn::Ect1); // 0.9 ms
                                                                       // The PI's qdelay is the same measure on the heads (get_queue_delays): an L
                                                                       // packet enqueued at 0 and still waiting at the first update (16 ms) counts 16 ms.
    let mut h = H::new(&linux());
    h.enq(t(0), 1500, Ecn::Ect1);
    h.aqm.tick(t(16 * MS), &h.st);
    let want = ((16 * MS - 15 * MS) * 44 + 16 * MS * 879) / 64;
    assert_eq!(h.aqm.prob_fx(), Some(want as u32));
}

/// `calculate_probability` caps p' at `MAX_PROB / coupling_factor` without
/// `drop_overload`, and `must_drop` computes `local_l_prob = prob · k` in 64
/// bits: for Linux's integer k (1..=255) ecnlab's cap and ⌊k·p'⌋ are the
/// kernel's integers, so overload (`local_l_prob > MAX_PROB`) never holds under the cap.
#[test]
fn test_dualpi2_integer_coupling_equals_linux_cap_and_local_l_prob() {
    for k in 1u32..=255 {
        let mut h = H::new(&DualPi2Params { coupling: f64::from(k), drop_on_overload: false, ..linux() });
        h.enq(t(0), 1500, Ecn::Ect0);
        h.aqm.tick(t(5_000 * MS), &h.st);
        let cap = u32::MAX / k;
        assert_eq!(h.aqm.prob_fx(), Some(cap), "k = {k}");
        let local = (f64::from(cap) * f64::from(k)) as u64;
        assert_eq!(local, u64::from(cap) * u64::from(k));
        assert!(local <= u64::from(u32::MAX));
    }
}

/// `dualpi2_qdisc_dequeue`: an L packet meets `must_drop`'s roll against k·p'
/// and then `do_step_aqm`; it is marked if either fires (RFC 9332 A.1's
/// max(p'_L, p_CL)), and a packet both would mark is counted once.
#[test]
fn test_dualpi2_linux_l_mark_is_coupled_or_step() {
    let mut h = H::new(&linux()).with_p(0.3); // k·p' = 0.6
    fill(&mut h, 5, Ecn::Ect1);
    // At 5 ms every head is above the 1 ms step. id 0: roll 0.5 marks (the step
    // finds it marked); id 1: roll 0.9 does not, the step marks.
    let mut rng = ScriptRng::new(&[0.5, 0.9]);
    let a = h.deq(t(5 * MS), &mut rng).unwrap().1;
    let b = h.deq(t(5 * MS), &mut rng).unwrap().1;
    assert_eq!((a.id, a.ecn, a.ce_calls, b.id, b.ecn), (0, Ecn::Ce, 1, 1, Ecn::Ce));
    let s = h.st.stats.snapshot(t(5 * MS), 0, 0);
    assert_eq!((s.marks, s.step_marks, s.dequeue_marks), (2, 1, 2));
    // Not above the step (sojourn 1 ms) only the roll decides: 0.7 > 0.6 leaves the head unmarked.
    let mut rng = ScriptRng::new(&[0.7]);
    let mut h2 = H::new(&linux()).with_p(0.3);
    fill(&mut h2, 5, Ecn::Ect1);
    assert_eq!(h2.deq(t(MS), &mut rng).unwrap().1.ecn, Ecn::Ect1);
}

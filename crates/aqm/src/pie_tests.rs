//! PIE tests: the update's table (auto-scaling bands, cap, decay, Linux's
//! 250 ms term), burst allowance, the arrival decision with scripted draws,
//! ns-3 `pie-queue-disc-test-suite.cc` expectations, validation, properties.

use ecnlab_wire::{Duration, Ecn, Instant};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::{Pie, Vars, MAX_PROB};
use crate::aqm::{Aqm, QueueView};
use crate::config::{AqmPersonality, PieParams, QueueConfig};
use crate::queue::AqmQueue;
use crate::testutil::{op, Op, ScriptRng, TestPkt};
use crate::verdict::{DropReason, SignalKind, Verdict};

const MS: u64 = 1_000_000;

fn params(personality: AqmPersonality) -> PieParams {
    PieParams {
        limit_pkts: Some(1000),
        limit_bytes: None,
        target_ns: 15 * MS,
        tupdate_ns: 15 * MS,
        alpha: 0.125,
        beta: 1.25,
        max_burst_ns: 150 * MS,
        ecn: true,
        mark_ecn_threshold: 0.1,
        bytemode: false,
        mean_pkt_bytes: 1000,
        derandomize: false,
        personality,
    }
}

fn rfc() -> PieParams {
    params(AqmPersonality::Rfc)
}

fn linux() -> PieParams {
    params(AqmPersonality::Linux)
}

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * MS)
}

/// A queue of `n` 1000-byte packets.
fn q(n: u32) -> QueueView {
    QueueView { len_pkts: n, len_bytes: u64::from(n) * 1000 }
}

/// Sets the RFC state directly.
fn set_rfc(pie: &mut Pie, p: f64, qdelay_ms: f64, old_ms: f64, burst_ns: u64) {
    let Vars::Rfc(v) = &mut pie.vars else { panic!("rfc") };
    v.p = p;
    v.qdelay = qdelay_ms * 1e-3;
    v.qdelay_old = old_ms * 1e-3;
    v.burst_ns = burst_ns;
}

/// Sets the Linux state directly (delays in ms, converted to psched ticks).
fn set_linux(pie: &mut Pie, prob: u64, qdelay_ms: u64, old_ms: u64, burst_ns: u64) {
    let Vars::Linux(v) = &mut pie.vars else { panic!("linux") };
    v.prob = prob;
    v.qdelay = (qdelay_ms * MS) >> 6;
    v.qdelay_old = (old_ms * MS) >> 6;
    v.burst_time = burst_ns >> 6;
}

#[test]
fn test_pie_rfc_update_table_autoscale_cap_decay() {
    // (p before, qdelay ms, qdelay_old ms, p after) — hand-computed from RFC 8033 §4.2:
    // α(qd − 15 ms) + β(qd − old) with α = 0.125, β = 1.25.
    let raw = 0.125 * 0.015; // qd = old = 30 ms: 0.001875
    let cases: [(f64, f64, f64, f64); 12] = [
        (5e-7, 30.0, 30.0, 5e-7 + raw / 2048.0),
        (1e-6, 30.0, 30.0, 1e-6 + raw / 512.0), // band edges: p < 1e-6 is the first band only
        (5e-6, 30.0, 30.0, 5e-6 + raw / 512.0),
        (5e-5, 30.0, 30.0, 5e-5 + raw / 128.0),
        (5e-4, 30.0, 30.0, 5e-4 + raw / 32.0),
        (5e-3, 30.0, 30.0, 5e-3 + raw / 8.0),
        (0.05, 30.0, 30.0, 0.05 + raw / 2.0),
        (0.5, 30.0, 30.0, 0.5 + raw),
        // Cap: p ≥ 0.1 and Δ = 0.001875 + 1.25·0.030 = 0.039375 > 0.02 → 0.02.
        (0.1, 30.0, 0.0, 0.12),
        // Just below 0.1: no cap, Δ/2 = 0.0196875.
        (0.09, 30.0, 0.0, 0.09 + 0.039375 / 2.0),
        // Decay: qd = old = 0: (0.5 − 0.001875)·0.98.
        (0.5, 0.0, 0.0, (0.5 - 0.001875) * 0.98),
        // Clamp at 1.
        (0.995, 30.0, 0.0, 1.0),
    ];
    for (p0, qd, old, want) in cases {
        let mut pie = Pie::new(&rfc());
        set_rfc(&mut pie, p0, qd, old, 0);
        Aqm::tick(&mut pie, at(15), &q(5));
        let got = pie.p_raw();
        assert!((got - want).abs() < 1e-15, "p0 {p0} qd {qd} old {old}: got {got}, want {want}");
    }
    // Decreasing p is clamped at 0.
    let mut pie = Pie::new(&rfc());
    set_rfc(&mut pie, 1e-7, 0.0, 30.0, 0);
    Aqm::tick(&mut pie, at(15), &q(0));
    assert_eq!(pie.p_raw(), 0.0);
}

#[test]
fn test_pie_rfc_trajectory_from_scripted_delays() {
    // qdelay held at 30 ms from t = 0 (one departure sets it); updates at 15, 30, 45 ms.
    let mut pie = Pie::new(&rfc());
    set_rfc(&mut pie, 0.0, 0.0, 0.0, 0);
    pie.on_dequeue(at(0), Duration::from_millis(30), 1000, &q(10));
    let mut want = Vec::new();
    let (mut p, mut old) = (0.0f64, 0.0f64);
    for _ in 0..3 {
        let mut d = 0.125 * (0.030 - 0.015) + 1.25 * (0.030 - old);
        d /= super::auto_scale(p);
        p += d;
        old = 0.030;
        want.push(p);
    }
    // Hand check of the first two: 0.039375/2048, then + 0.001875/128.
    assert!((want[0] - 0.039375 / 2048.0).abs() < 1e-18);
    assert!((want[1] - (0.039375 / 2048.0 + 0.001875 / 128.0)).abs() < 1e-18);
    for (k, w) in want.iter().enumerate() {
        Aqm::tick(&mut pie, at(15 * (k as u64 + 1)), &q(10));
        assert!((pie.p_raw() - w).abs() < 1e-18, "update {k}");
    }
}

#[test]
fn test_pie_linux_update_shifts_cap_decay_and_250ms_term() {
    // (p before, qdelay, qdelay_old, backlog pkts, expected Δp (real), decay?)
    let m = MAX_PROB as f64;
    let raw = 0.125 * 0.015;
    let cases: [(f64, u64, u64, u32, f64); 9] = [
        (5e-7, 30, 30, 5, raw / 2048.0),
        (5e-6, 30, 30, 5, raw / 512.0),
        (5e-5, 30, 30, 5, raw / 128.0),
        (5e-4, 30, 30, 5, raw / 32.0),
        (5e-3, 30, 30, 5, raw / 8.0),
        (0.05, 30, 30, 5, raw / 2.0),
        (0.5, 30, 30, 5, raw),
        (0.1, 30, 0, 5, 0.02),           // cap
        (0.5, 300, 300, 5, 0.02 + 0.02), // Δ = 0.035625 capped, then + 0.02 above 250 ms
    ];
    for (p0, qd, old, n, dp) in cases {
        let mut pie = Pie::new(&linux());
        set_linux(&mut pie, (p0 * m) as u64, qd, old, 0);
        Aqm::tick(&mut pie, at(500), &q(n));
        let got = pie.p_raw() - p0;
        assert!((got - dp).abs() < 1e-9 + dp * 1e-6, "p0 {p0}: Δ {got}, want {dp}");
    }
    // Decay: qdelay = old = 0 with an empty queue: (p − α·target) · 63/64.
    let mut pie = Pie::new(&linux());
    set_linux(&mut pie, MAX_PROB / 2, 0, 0, 0);
    Aqm::tick(&mut pie, at(500), &q(0));
    let want = (0.5 - raw) * 63.0 / 64.0;
    assert!((pie.p_raw() - want).abs() < 1e-9, "{} vs {want}", pie.p_raw());
    // No decay when qdelay = 0 but the backlog is not empty (update_prob = false).
    let mut pie = Pie::new(&linux());
    set_linux(&mut pie, MAX_PROB / 2, 0, 0, 0);
    Aqm::tick(&mut pie, at(500), &q(1));
    assert!((pie.p_raw() - (0.5 - raw)).abs() < 1e-9);
    // Linux has no clamp at 1: p keeps growing past it; prob() reports 1.
    let mut pie = Pie::new(&linux());
    set_linux(&mut pie, MAX_PROB, 300, 300, 0);
    Aqm::tick(&mut pie, at(500), &q(5));
    assert!(pie.prob_fx().unwrap() > MAX_PROB);
    assert_eq!(Aqm::prob(&pie), Some(1.0));
}

#[test]
fn test_pie_linux_first_update_at_500ms_then_every_tupdate() {
    let mut pie = Pie::new(&linux());
    pie.on_dequeue(at(100), Duration::from_millis(30), 1000, &q(10));
    Aqm::tick(&mut pie, at(499), &q(10));
    assert_eq!(pie.prob_fx(), Some(0));
    Aqm::tick(&mut pie, at(500), &q(10));
    let p1 = pie.prob_fx().unwrap();
    assert!(p1 > 0);
    Aqm::tick(&mut pie, at(514), &q(10));
    assert_eq!(pie.prob_fx(), Some(p1));
    Aqm::tick(&mut pie, at(515), &q(10));
    assert!(pie.prob_fx().unwrap() > p1);
}

#[test]
fn test_pie_rfc_burst_allowance_expires_after_max_burst() {
    // Delay 30 ms from t = 0: the allowance (150 ms) loses 15 ms per update and
    // reaches 0 at the 10th update (150 ms). No draw before that.
    let mut pie = Pie::new(&rfc());
    pie.on_dequeue(at(0), Duration::from_millis(30), 1000, &q(10));
    let mut none = ScriptRng::default();
    for t in [1, 60, 149] {
        assert_eq!(pie.on_enqueue(at(t), 1000, &q(10), &mut none), Verdict::Pass);
    }
    assert_eq!(pie.burst_left_ns(), 15 * MS);
    let mut one = ScriptRng::new(&[0.999]);
    assert_eq!(pie.on_enqueue(at(150), 1000, &q(10), &mut one), Verdict::Pass);
    assert_eq!((pie.burst_left_ns(), one.remaining()), (0, 0));
    // Reset: p = 0, qdelay and qdelay_old < target/2 → allowance back to 150 ms,
    // then this update's 15 ms are taken (RFC 8033 §4.4's order).
    set_rfc(&mut pie, 0.0, 1.0, 1.0, 0);
    Aqm::tick(&mut pie, at(165), &q(10));
    assert_eq!(pie.burst_left_ns(), 135 * MS);
    // Not reset while p > 0.
    set_rfc(&mut pie, 0.01, 1.0, 1.0, 0);
    Aqm::tick(&mut pie, at(180), &q(10));
    assert_eq!(pie.burst_left_ns(), 0);
}

#[test]
fn test_pie_linux_burst_allowance_counts_time_between_dequeues() {
    let mut pie = Pie::new(&linux());
    let full = pie.burst_left_ns();
    pie.on_dequeue(at(0), Duration::from_millis(30), 1000, &q(10)); // first stamp: no decrement
    assert_eq!(pie.burst_left_ns(), full);
    pie.on_dequeue(at(100), Duration::from_millis(30), 1000, &q(10));
    assert_eq!(pie.burst_left_ns(), full - ((100 * MS) >> 6 << 6));
    pie.on_dequeue(at(200), Duration::from_millis(30), 1000, &q(10));
    assert_eq!(pie.burst_left_ns(), 0);
}

#[test]
fn test_pie_verdict_mark_vs_drop_at_p_boundary() {
    for personality in [AqmPersonality::Rfc, AqmPersonality::Linux] {
        // (p, expected verdict on a signal): ≤ 0.1 → Signal (mark), above → Drop(Early).
        let ps: [(f64, u64, Verdict); 2] = [
            (0.1, MAX_PROB / 10, Verdict::Signal(SignalKind::Early)),
            (0.100_001, MAX_PROB / 10 + 1, Verdict::Drop(DropReason::Early)),
        ];
        for (p, fx, want) in ps {
            let mut pie = Pie::new(&params(personality));
            match personality {
                AqmPersonality::Rfc | AqmPersonality::Ns3 => set_rfc(&mut pie, p, 30.0, 30.0, 0),
                AqmPersonality::Linux => set_linux(&mut pie, fx, 30, 30, 0),
            }
            let mut rng = ScriptRng::new(&[0.0]);
            assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut rng), want, "{personality:?} p {p}");
            assert_eq!(rng.remaining(), 0);
            // A draw above p passes.
            let mut rng = ScriptRng::new(&[0.2]);
            assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut rng), Verdict::Pass);
        }
        // ECN off: a signal is a drop at any p.
        let mut pie = Pie::new(&PieParams { ecn: false, ..params(personality) });
        match personality {
            AqmPersonality::Rfc | AqmPersonality::Ns3 => set_rfc(&mut pie, 0.05, 30.0, 30.0, 0),
            AqmPersonality::Linux => set_linux(&mut pie, MAX_PROB / 20, 30, 30, 0),
        }
        let mut rng = ScriptRng::new(&[0.0]);
        assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut rng), Verdict::Drop(DropReason::Early));
    }
}

#[test]
fn test_pie_safeguards_take_no_draw() {
    // RFC: qdelay_old < target/2 and p < 0.2 → pass; queue ≤ 2 mean packets → pass.
    let mut pie = Pie::new(&rfc());
    set_rfc(&mut pie, 0.19, 30.0, 7.0, 0);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut ScriptRng::default()), Verdict::Pass);
    set_rfc(&mut pie, 0.2, 30.0, 7.0, 0); // p ≥ 0.2: the delay safeguard is off
    let mut one = ScriptRng::new(&[0.5]);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut one), Verdict::Pass);
    assert_eq!(one.remaining(), 0);
    set_rfc(&mut pie, 0.5, 30.0, 30.0, 0);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(2), &mut ScriptRng::default()), Verdict::Pass);
    let mut one = ScriptRng::new(&[0.0]);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(3), &mut one), Verdict::Drop(DropReason::Early));
    // Linux: the *current* qdelay, and backlog < 2·mtu (2 packets of 1000 → draw).
    let mut pie = Pie::new(&linux());
    set_linux(&mut pie, MAX_PROB / 2, 7, 30, 0);
    let mut one = ScriptRng::new(&[0.0]);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut one), Verdict::Drop(DropReason::Early));
    set_linux(&mut pie, MAX_PROB / 10, 7, 30, 0);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut ScriptRng::default()), Verdict::Pass);
    set_linux(&mut pie, MAX_PROB / 2, 30, 30, 0);
    let low = QueueView { len_pkts: 1, len_bytes: 1999 };
    assert_eq!(pie.on_enqueue(at(1), 1000, &low, &mut ScriptRng::default()), Verdict::Pass);
    let mut one = ScriptRng::new(&[0.0]);
    assert_eq!(pie.on_enqueue(at(1), 1000, &q(2), &mut one), Verdict::Drop(DropReason::Early));
}

#[test]
fn test_pie_derandomisation_accumulates_before_drawing() {
    for personality in [AqmPersonality::Rfc, AqmPersonality::Linux] {
        let mut pie = Pie::new(&PieParams { derandomize: true, ecn: false, ..params(personality) });
        match personality {
            AqmPersonality::Rfc | AqmPersonality::Ns3 => set_rfc(&mut pie, 0.3, 30.0, 30.0, 0),
            AqmPersonality::Linux => set_linux(&mut pie, (0.3 * MAX_PROB as f64) as u64, 30, 30, 0),
        }
        // accu 0.3, 0.6: no draw; 0.9: draw (0.5 ≥ 0.3 passes); 1.2: draw 0.1 < 0.3 → drop, accu 0.
        let mut rng = ScriptRng::new(&[0.5, 0.1]);
        let got: Vec<Verdict> = (0..4).map(|_| pie.on_enqueue(at(1), 1000, &q(10), &mut rng)).collect();
        let drop = Verdict::Drop(DropReason::Early);
        assert_eq!(got, [Verdict::Pass, Verdict::Pass, Verdict::Pass, drop], "{personality:?}");
        assert_eq!(rng.remaining(), 0);
        // After the drop the accumulator restarts: two more arrivals without a draw.
        assert_eq!(pie.on_enqueue(at(1), 1000, &q(10), &mut ScriptRng::default()), Verdict::Pass);
    }
}

#[test]
fn test_pie_full_queue_is_overflow_before_any_draw() {
    let mut pie = Pie::new(&PieParams { limit_pkts: Some(10), ..rfc() });
    set_rfc(&mut pie, 0.5, 30.0, 30.0, 0);
    let v = pie.on_enqueue(at(1), 1000, &q(10), &mut ScriptRng::default());
    assert_eq!(v, Verdict::Drop(DropReason::Overflow));
}

#[test]
fn test_pie_bytemode_scales_by_size() {
    let mut pie = Pie::new(&PieParams { bytemode: true, ecn: false, ..rfc() });
    set_rfc(&mut pie, 0.4, 30.0, 30.0, 0);
    // p_local = 0.4·500/1000 = 0.2: u = 0.25 passes, u = 0.15 drops.
    let mut rng = ScriptRng::new(&[0.25, 0.15]);
    assert_eq!(pie.on_enqueue(at(1), 500, &q(10), &mut rng), Verdict::Pass);
    assert_eq!(pie.on_enqueue(at(1), 500, &q(10), &mut rng), Verdict::Drop(DropReason::Early));
}

#[test]
fn test_pie_long_idle_equals_stepwise_updates() {
    for personality in [AqmPersonality::Rfc, AqmPersonality::Linux] {
        let mut a = Pie::new(&params(personality));
        match personality {
            AqmPersonality::Rfc | AqmPersonality::Ns3 => set_rfc(&mut a, 0.6, 0.0, 0.0, 0),
            AqmPersonality::Linux => set_linux(&mut a, MAX_PROB / 10 * 6, 0, 0, 0),
        }
        let mut b = a.clone();
        for k in 1..=40_000u64 {
            Aqm::tick(&mut a, Instant::from_nanos(k * 15 * MS), &q(0));
        }
        Aqm::tick(&mut b, Instant::from_nanos(40_000 * 15 * MS), &q(0));
        assert_eq!(a.vars, b.vars, "{personality:?}");
        assert_eq!(a.next_update, b.next_update);
        assert_eq!(a.p_raw(), 0.0);
        // Idle resets the allowance (RFC: and takes one Tupdate off it at once).
        let full = if personality == AqmPersonality::Rfc { 135 * MS } else { (150 * MS) >> 6 << 6 };
        assert_eq!(a.burst_left_ns(), full);
    }
}

/// Drives an `AqmQueue` as ns-3's test does: `n` arrivals every 10 ms
/// (1000-byte Not-ECT packets), `n` dequeues every `deq_s` seconds; returns
/// (early drops, overflow drops, marks, largest increase of p between two
/// consecutive arrivals while p ≥ 0.1).
fn ns3_run(p: PieParams, deq_ms: f64, ecn: Ecn) -> (u64, u64, u64, f64) {
    let mut queue: AqmQueue<TestPkt> = AqmQueue::new(&QueueConfig::Pie(p)).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut ev: Vec<(u64, bool)> = (1..=400u64).map(|i| (i * 10 * MS, true)).collect();
    ev.extend((1..=400u64).map(|i| ((i as f64 * deq_ms * 1e6) as u64, false)));
    ev.sort_by_key(|&(t, arrive)| (t, !arrive));
    let (mut last_p, mut max_inc) = (0.0f64, 0.0f64);
    for (i, (t, arrive)) in ev.into_iter().enumerate() {
        let now = Instant::from_nanos(t);
        if arrive {
            let p = queue.prob(now).unwrap();
            if last_p >= 0.1 {
                max_inc = max_inc.max(p - last_p);
            }
            last_p = p;
            let _ = queue.enqueue(now, TestPkt::new(i as u64, 1000, ecn), &mut rng);
        } else {
            let _ = queue.dequeue(now, &mut rng);
        }
    }
    let s = queue.stats(Instant::from_nanos(8_000 * MS));
    (s.early_drops, s.overflow_drops, s.marks, max_inc)
}

/// ns-3 test 2's settings: MaxSize 300 packets, Tupdate 30 ms, QueueDelayReference 20 ms, MaxBurstAllowance 100 ms.
fn ns3_params(personality: AqmPersonality) -> PieParams {
    PieParams {
        limit_pkts: Some(300),
        target_ns: 20 * MS,
        tupdate_ns: 30 * MS,
        max_burst_ns: 100 * MS,
        ecn: false,
        ..params(personality)
    }
}

#[test]
fn test_pie_ns3_suite_expectations() {
    for personality in [AqmPersonality::Rfc, AqmPersonality::Linux] {
        let base = ns3_params(personality);
        // test 2: "There should be some unforced drops", "There should be zero forced drops".
        let (t2, of2, _, _) = ns3_run(base, 12.0, Ecn::NotEct);
        assert!(t2 > 0 && of2 == 0, "{personality:?} test 2: {t2} {of2}");
        // test 3: QueueDelayReference 80 ms: "Test 3 should have less unforced drops than test 2".
        let (t3, of3, _, _) = ns3_run(PieParams { target_ns: 80 * MS, ..base }, 12.0, Ecn::NotEct);
        assert!(t3 < t2 && of3 == 0, "{personality:?} test 3: {t3} vs {t2}");
        // test 4: dequeue every 15 ms: "Test 4 should have more unforced drops than test 2".
        let (t4, of4, _, _) = ns3_run(base, 15.0, Ecn::NotEct);
        assert!(t4 > t2 && of4 == 0, "{personality:?} test 4: {t4} vs {t2}");
        // test 5: as 4 with Tupdate 90 ms: "Test 5 should have less unforced drops than test 4".
        let (t5, of5, _, _) = ns3_run(PieParams { tupdate_ns: 90 * MS, ..base }, 15.0, Ecn::NotEct);
        assert!(t5 < t4 && of5 == 0, "{personality:?} test 5: {t5} vs {t4}");
        // test 8 (cap on): "Maximum increase in drop probability should be less than or equal to 0.02"
        // (defaults, dequeue every 14 ms). Linux adds its own +0.02 only above 250 ms of delay.
        let (_, _, _, inc) =
            ns3_run(PieParams { limit_pkts: Some(300), ecn: false, ..params(personality) }, 14.0, Ecn::NotEct);
        let bound = if personality == AqmPersonality::Linux { 0.04 } else { 0.02 };
        assert!(inc <= bound + 1e-12, "{personality:?} test 8: {inc}");
        // test 9: "ECN enabled, but packets are not ECN capable": drops, no marks.
        let ecn9 = PieParams { limit_pkts: Some(300), ecn: true, mark_ecn_threshold: 0.3, ..params(personality) };
        let (t9, _, m9, _) = ns3_run(ecn9, 14.0, Ecn::NotEct);
        assert!(t9 > 0 && m9 == 0, "{personality:?} test 9: {t9} {m9}");
        // test 10 (ECN-capable packets, threshold 0.3): marks, and drops only above the threshold.
        let (_, _, m10, _) = ns3_run(ecn9, 14.0, Ecn::Ect0);
        assert!(m10 > 0, "{personality:?} test 10: {m10}");
    }
}

#[test]
fn test_pie_validation_rejects_each_field() {
    let e = |p: PieParams| p.validate().unwrap_err().to_string();
    assert_eq!(rfc().validate(), Ok(()));
    assert_eq!(e(PieParams { target_ns: 0, ..rfc() }), "target_ns = 0: must be > 0 ns");
    assert_eq!(e(PieParams { tupdate_ns: 0, ..rfc() }), "tupdate_ns = 0: must be > 0 ns");
    assert_eq!(e(PieParams { max_burst_ns: 0, ..rfc() }), "max_burst_ns = 0: must be > 0 ns");
    assert_eq!(e(PieParams { alpha: -0.1, ..rfc() }), "alpha = -0.1: must be finite and >= 0");
    assert_eq!(e(PieParams { beta: f64::NAN, ..rfc() }), "beta = NaN: must be finite and >= 0");
    assert_eq!(e(PieParams { mark_ecn_threshold: 0.0, ..rfc() }), "mark_ecn_threshold = 0: must be in (0, 1]");
    assert_eq!(e(PieParams { mark_ecn_threshold: 1.5, ..rfc() }), "mark_ecn_threshold = 1.5: must be in (0, 1]");
    assert_eq!(e(PieParams { mean_pkt_bytes: 0, ..rfc() }), "mean_pkt_bytes = 0: must be >= 1");
    assert_eq!(e(PieParams { limit_pkts: Some(0), ..rfc() }), "limit_pkts = 0: must be > 0");
    assert!(e(PieParams { limit_bytes: Some(5), ..rfc() }).starts_with("limit_bytes = 5: exactly one"));
    assert!(QueueConfig::Pie(PieParams { alpha: f64::INFINITY, ..rfc() }).validate().is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Conservation, Not-ECT never marked, p in [0, 1], for both personalities.
    #[test]
    fn prop_pie_conservation_and_bounds(
        ops in prop::collection::vec(op(40_000_000), 1..400),
        linux_p in any::<bool>(),
        derandomize in any::<bool>(),
        bytemode in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let personality = if linux_p { AqmPersonality::Linux } else { AqmPersonality::Rfc };
        // Short target and no burst allowance so that p moves within a short run.
        let p = PieParams {
            limit_pkts: Some(30), target_ns: MS, tupdate_ns: 2 * MS, max_burst_ns: 1, alpha: 2.0, beta: 20.0,
            derandomize, bytemode, ..params(personality)
        };
        let mut q: AqmQueue<TestPkt> = AqmQueue::new(&QueueConfig::Pie(p)).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut now = 0u64;
        let (mut arrivals, mut out, mut dropped) = (0u64, 0u64, 0u64);
        let mut sent_ecn = Vec::new();
        for (i, o) in ops.into_iter().enumerate() {
            let t = Instant::from_nanos(now);
            match o {
                Op::Enqueue(len, ecn) => {
                    arrivals += 1;
                    sent_ecn.push(ecn);
                    if let Err((pkt, _)) = q.enqueue(t, TestPkt::new(i as u64, len, ecn), &mut rng) {
                        dropped += 1;
                        prop_assert_eq!(pkt.ecn, ecn);
                    }
                }
                Op::Dequeue => {
                    sent_ecn.push(Ecn::NotEct);
                    if let Some(pkt) = q.dequeue(t, &mut rng) {
                        out += 1;
                        // Not-ECT is never marked (nor is set_ce ever tried on it).
                        if sent_ecn[pkt.id as usize] == Ecn::NotEct {
                            prop_assert_eq!((pkt.ecn, pkt.ce_calls), (Ecn::NotEct, 0));
                        }
                    }
                }
                Op::Advance(d) => { now += d; sent_ecn.push(Ecn::NotEct); }
            }
            let pr = q.prob(Instant::from_nanos(now)).unwrap();
            prop_assert!((0.0..=1.0).contains(&pr), "p = {}", pr);
        }
        prop_assert_eq!(arrivals, out + dropped + u64::from(q.len_pkts()));
        let s = q.stats(Instant::from_nanos(now));
        prop_assert_eq!(s.early_drops + s.overflow_drops, dropped);
    }
}

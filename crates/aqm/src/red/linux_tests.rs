//! Linux personality tests: the fixed-point average against the floating-point
//! EWMA red.h documents, the Stab table against iproute2's formula (with
//! libm here), the qR/qcount marking rule against its floating-point reading,
//! hard marks, and the adaptive max_p steps.

use ecnlab_wire::{Duration, Instant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::config::{RedMode, RedPersonality};
use crate::testutil::ScriptRng;

fn params() -> RedParams {
    RedParams {
        limit_bytes: Some(1_000_000),
        limit_pkts: None,
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        wq: 1.0 / 512.0, // Wlog 9
        gentle: false,
        wait: false,
        mode: RedMode::Byte,
        mean_pkt_bytes: 1000,
        link_rate_bps: 10_000_000,
        ecn: true,
        personality: RedPersonality::Linux,
        mark_p: None,
        adaptive: false,
        ns2_rng_skip: None,
        quench: false,
    }
}

fn bytes(b: u64) -> QueueView {
    QueueView { len_pkts: 1, len_bytes: b }
}

#[test]
fn test_fixed_point_average_tracks_documented_ewma() {
    // red.h: "qavg = qavg*(1-W) + backlog*W", qavg with Wlog fraction bits.
    for wlog in [1u32, 4, 9, 13] {
        let w = 1.0 / f64::from(1u32 << wlog);
        let mut gen = Pcg64Mcg::seed_from_u64(u64::from(wlog));
        let (mut fixed, mut float) = (0u64, 0.0f64);
        for _ in 0..50_000 {
            let backlog = gen.random_range(0..200_000u64);
            fixed = qavg_no_idle(fixed, backlog, wlog);
            float = float * (1.0 - w) + backlog as f64 * w;
            let got = fixed as f64 / f64::from(1u32 << wlog);
            // `qavg >> Wlog` truncates the subtracted part: each step keeps < 1
            // unit (2^-Wlog bytes) too much; with the (1−W)^k decay the excess
            // stays below 2^Wlog units = 1 byte, never below the exact value.
            assert!(got >= float - 1e-6 && got - float <= 1.0 + 1e-6, "wlog {wlog}: {got} vs {float}");
        }
    }
}

#[test]
fn test_stab_table_matches_iproute2_formula() {
    for (wlog, avpkt, rate) in
        [(9u32, 1000u32, 10_000_000u64), (9, 1500, 1_000_000_000), (4, 500, 1_500_000), (13, 1040, 100_000_000)]
    {
        let (clog, stab) = idle_damping(wlog, avpkt, rate);
        let w = 1.0 / f64::from(1u32 << wlog);
        let xmit_us = f64::from(avpkt) * 8e6 / rate as f64;
        let lw = -(1.0 - w).ln() / xmit_us; // libm is fine in a test
        let maxtime = 31.0 / lw;
        let want_clog = (0..32).find(|&c| maxtime / f64::from(1u32 << c) < 512.0).unwrap();
        assert_eq!(clog, want_clog);
        assert_eq!((stab[0], stab[255]), (0, 31));
        for (i, &s) in stab.iter().enumerate().take(255).skip(1) {
            let want = ((i as f64) * f64::from(1u32 << clog) * lw).min(31.0).floor() as u8;
            assert_eq!(s, want, "wlog {wlog} avpkt {avpkt} rate {rate} i {i}");
        }
        assert!(stab.windows(2).all(|p| p[0] <= p[1]), "the shift grows with idle time");
    }
}

#[test]
fn test_idle_decay_uses_stab_shift_or_linear_start() {
    let mut red = LinuxRed::new(&params(), ForcedAction::Drop);
    red.qavg = 1 << 40;
    let p = red.p.clone();
    // A cell with a non-zero shift: qavg >> shift.
    let i = (1..255).find(|&i| p.stab[i] > 0).unwrap();
    let idle = Duration::from_micros((i as u64) << p.scell_log);
    red.on_idle(Instant::ZERO);
    red.on_enqueue(Instant::ZERO + idle, 1000, &bytes(0), &mut ScriptRng::default());
    assert_eq!(red.qavg, (1u64 << 40) >> p.stab[i]);
    // Cell 0 (shift 0): linear, qavg − qavg·t/2^Scell_log (or half).
    let t = (1u64 << p.scell_log) / 4;
    assert_eq!(qavg_from_idle(&p, 1 << 40, Duration::from_micros(t)), (1 << 40) - (1u64 << 40) / 4);
    assert_eq!(qavg_from_idle(&p, 1 << 40, Duration::from_secs(3600)), (1u64 << 40) >> 31);
}

/// The draw-free reading of red_mark_probability: mark iff
/// (avg − min)·qcount ≥ rand32 / (max_P/Δ).
#[test]
fn test_marking_matches_reference_qcount_rule() {
    let cfg = params();
    let mut red = LinuxRed::new(&cfg, ForcedAction::Drop);
    let (mut a, mut b) = (Pcg64Mcg::seed_from_u64(7), Pcg64Mcg::seed_from_u64(7));
    let mut gen = Pcg64Mcg::seed_from_u64(8);
    let (mut qcount, mut q_r, mut qavg) = (-1i64, 0u64, 0u64);
    let delta = 10_000u64; // (15 − 5)·1000 bytes
    let max_p = (0.1f64 * 4_294_967_296.0) as u64;
    let (mut marks, mut hard) = (0, 0);
    for step in 0..200_000u64 {
        let level = [2_000u64, 10_000, 18_000, 12_000][(step / 5_000 % 4) as usize];
        let backlog = level + gen.random_range(0..6_000u64) - 1_000;
        let v = red.on_enqueue(Instant::ZERO, 1000, &bytes(backlog), &mut a);
        qavg = qavg - (qavg >> 9) + backlog;
        let want = if qavg < 5000 << 9 {
            qcount = -1;
            0
        } else if qavg >= 15_000 << 9 {
            qcount = -1;
            2
        } else {
            qcount += 1;
            if qcount == 0 {
                q_r = u64::from(b.next_u32()) / (max_p / delta);
                0
            } else if ((qavg - (5000 << 9)) >> 9) * qcount as u64 >= q_r {
                qcount = 0;
                q_r = u64::from(b.next_u32()) / (max_p / delta);
                1
            } else {
                0
            }
        };
        let got = match v {
            Verdict::Pass => 0,
            Verdict::Signal(SignalKind::Early) => 1,
            _ => 2,
        };
        assert_eq!(got, want);
        marks += u32::from(got == 1);
        hard += u32::from(got == 2);
    }
    assert!(marks > 100 && hard > 100, "both regions visited: {marks} marks, {hard} hard");
}

#[test]
fn test_hard_region_drops_with_harddrop_marks_without() {
    for (forced, want) in [
        (ForcedAction::Drop, Verdict::Drop(DropReason::Forced)),
        (ForcedAction::Signal, Verdict::Signal(SignalKind::Forced)),
    ] {
        let mut red = LinuxRed::new(&params(), forced);
        red.qavg = 20_000 << 9;
        assert_eq!(red.on_enqueue(Instant::ZERO, 1000, &bytes(20_000), &mut ScriptRng::default()), want);
    }
}

#[test]
fn test_adaptive_max_p_steps_every_500ms() {
    let cfg = RedParams { adaptive: true, ..params() };
    let mut red = LinuxRed::new(&cfg, ForcedAction::Drop);
    let p0 = red.p.max_p;
    red.qavg = 14_000 << 9; // above target_max = 5000 + 3·2000
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    red.on_enqueue(Instant::from_nanos(499_999_999), 1000, &bytes(14_000), &mut rng);
    assert_eq!(red.p.max_p, p0, "no period has ended yet");
    red.qavg = 14_000 << 9;
    red.on_enqueue(Instant::from_nanos(1_000_000_000), 1000, &bytes(14_000), &mut rng);
    let alpha = (p0 / 4).min(ONE_PERCENT);
    assert_eq!(red.p.max_p, p0 + 2 * alpha, "two periods (0.5 s, 1 s), each + min(1 %, max_P/4)");
    assert_eq!(red.p.max_p_delta, (red.p.max_p + 5000) / 10_000);
    red.qavg = 0;
    let before = red.p.max_p;
    red.on_enqueue(Instant::from_nanos(1_500_000_000), 1000, &bytes(0), &mut rng);
    assert_eq!(red.p.max_p, (before / 10) * 9, "below target_min: ×0.9");
    // Without `adaptive` max_p never moves.
    let mut fixed = LinuxRed::new(&params(), ForcedAction::Drop);
    fixed.qavg = 14_000 << 9;
    fixed.on_enqueue(Instant::from_nanos(10_000_000_000), 1000, &bytes(14_000), &mut rng);
    assert_eq!(fixed.p.max_p, p0);
}

#[test]
fn test_wlog_and_max_p_conversions() {
    assert_eq!(wlog_of(0.5), Some(1));
    assert_eq!(wlog_of(1.0 / 512.0), Some(9));
    assert_eq!(wlog_of(0.002), None);
    assert_eq!(wlog_of(1.0), None);
    assert_eq!(max_p_fixed(1.0), u32::MAX);
    assert_eq!(max_p_fixed(0.5), 1 << 31);
    assert!((neg_ln_1m(0.5) - std::f64::consts::LN_2).abs() < 1e-15);
}

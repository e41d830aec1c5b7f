//! Table and trace tests of `cubic_linux.rs`: each quotes the `tcp_cubic.c` rule it pins.

use super::*;
use crate::cc::cubic::{Cubic, CubicKnobs};
use crate::cc::{Ack, CongestionControl};
use crate::config::{CubicArith, TcpConfig};
use ecnlab_wire::Duration;

const MSS: u32 = 1000;

fn window(cwnd: u32, ssthresh: u32) -> Window {
    let mut w = Window::new(3);
    w.init(MSS, cwnd);
    w.ssthresh = ssthresh * MSS;
    w
}

fn at_ms(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

fn feedback(now: Instant, rtt_ms: u64) -> Feedback {
    let rtt = Some(Duration::from_millis(rtt_ms));
    Feedback {
        acked: MSS as u64,
        ece: false,
        marked: 0,
        una: 0,
        snd_nxt: 0,
        in_flight: 0,
        now,
        rtt,
        srtt: rtt,
        ack_rtt: rtt,
    }
}

/// `cubictcp_recalc_ssthresh`: ssthresh = max(⌊cwnd·717/1024⌋, 2); W_max = cwnd, or
/// ⌊cwnd·1741/2048⌋ when cwnd < W_max. Whole segments, rounded down.
#[test]
fn test_ssthresh_and_fast_convergence_in_whole_segments() {
    let mut c = LinuxCubic::default();
    let w = window(100, 1);
    assert_eq!(c.ssthresh(&w, Congestion::Loss, 100 * MSS as u64, false), 70 * MSS);
    assert_eq!(c.w_max(), 100);
    let w = window(80, 1);
    assert_eq!(c.ssthresh(&w, Congestion::Ecn, 80 * MSS as u64, false), 56 * MSS);
    assert_eq!(c.w_max(), 68, "fast convergence: ⌊80·1741/2048⌋");
    // Small windows: ⌊7·717/1024⌋ = 4 (0.57·W), where RFC 9438's β·W is 4.9.
    let w = window(7, 1);
    assert_eq!(c.ssthresh(&w, Congestion::Ecn, 7 * MSS as u64, false), 4 * MSS);
    assert_eq!(c.ssthresh(&window(2, 1), Congestion::Loss, 2 * MSS as u64, false), 2 * MSS, "floor of 2");
}

/// Fast convergence compares whole segments: a cwnd equal to W_max is not below it.
#[test]
fn test_fast_convergence_needs_a_whole_segment_less() {
    let mut c = LinuxCubic::default();
    c.ssthresh(&window(40, 1), Congestion::Ecn, 40 * MSS as u64, false);
    // 40 segments and a few hundred bytes: still cwnd = 40 = W_max, no fast convergence.
    let mut w = window(40, 1);
    w.cwnd += 700;
    c.ssthresh(&w, Congestion::Ecn, u64::from(w.cwnd), false);
    assert_eq!(c.w_max(), 40);
    c.ssthresh(&window(39, 1), Congestion::Ecn, 39 * MSS as u64, false);
    assert_eq!(c.w_max(), 33, "⌊39·1741/2048⌋");
}

/// K = cubic_root(cube_factor·(W_max − cwnd)) in 2⁻¹⁰ s, cube_factor = ⌊2⁴⁰/410⌋:
/// ∛((W_max − cwnd)/C) with C = 410/1024.
#[test]
fn test_k_in_bictcp_hz_units() {
    let mut c = LinuxCubic { last_max_cwnd: 100, ..LinuxCubic::default() };
    c.start_epoch(70, 1, 0);
    let exact = (30.0 / (410.0 / 1024.0_f64)).cbrt() * 1024.0;
    assert!((c.k as f64 - exact).abs() <= 1.0, "K {} against {exact}", c.k);
    assert_eq!(c.origin, 100);
    let mut c = LinuxCubic { last_max_cwnd: 50, ..LinuxCubic::default() };
    c.start_epoch(60, 1, 0);
    assert_eq!((c.k, c.origin), (0, 60), "W_max ≤ cwnd: K = 0, origin = cwnd");
}

/// One window of ACKs per RTT for `rounds` RTTs; returns the first time (ms) cwnd ≥ `goal`.
fn grow_until(cc: &mut dyn CongestionControl, w: &mut Window, rtt_ms: u64, rounds: u64, goal: u32) -> Option<u64> {
    for round in 0..rounds {
        let n = u64::from(w.cwnd / MSS);
        for j in 0..n {
            let now = at_ms(round * rtt_ms + j * rtt_ms / n);
            let rtt = Duration::from_millis(rtt_ms);
            cc.on_feedback(&feedback(now, rtt_ms));
            cc.on_ack(w, &Ack { now, acked: MSS as u64, rtt: Some(rtt) });
            if w.cwnd >= goal * MSS {
                return Some(now.as_nanos() / 1_000_000);
            }
        }
    }
    None
}

fn cubic(arith: CubicArith) -> Cubic {
    Cubic::new(&TcpConfig::default(), &CubicKnobs { arith, ..CubicKnobs::default() })
}

/// bic_target = origin − ⌊410·(K − t)³/2⁴⁰⌋ is a whole number of segments, and t runs one
/// delay_min ahead: the target is W_max once C·(K − t − RTT)³ < 1, so Linux's window is back
/// at W_max about ∛(1/C) ≈ 1.36 s before RFC 9438's real-valued curve gets there at K.
#[test]
fn test_integer_target_regains_w_max_before_k() {
    let k_ms = ((100.0 - 70.0) / 0.4_f64).cbrt() * 1000.0;
    let mut times = Vec::new();
    for arith in [CubicArith::Linux, CubicArith::Rfc9438] {
        let mut cc = cubic(arith);
        let mut w = window(100, 1);
        w.ssthresh = cc.ssthresh(&w, Congestion::Loss, 100 * MSS as u64);
        w.cwnd = w.ssthresh;
        times.push(grow_until(&mut cc, &mut w, 100, 100, 100).expect("regained") as f64);
    }
    let (linux, rfc) = (times[0], times[1]);
    // RFC 9438's window is within a segment of W_max at K and a whole 100 segments a few RTTs on.
    assert!(rfc >= k_ms - 100.0 && rfc <= k_ms + 600.0, "RFC 9438 regains just after K = {k_ms:.0} ms: {rfc}");
    assert!(linux < k_ms - 900.0 && linux > k_ms - 1700.0, "Linux about 1.36 s before K = {k_ms:.0} ms: {linux}");
}

/// `if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20;` — before any reduction the
/// window grows by at least 5 % per RTT in congestion avoidance.
#[test]
fn test_five_percent_per_rtt_before_the_first_reduction() {
    let mut cc = cubic(CubicArith::Linux);
    let mut w = window(100, 50); // avoidance from the start, W_max = 0
    grow_until(&mut cc, &mut w, 100, 10, u32::MAX);
    let after = w.cwnd / MSS;
    assert!((158..=165).contains(&after), "100·1.05¹⁰ ≈ 163 (one +1 per 20 ACKs): {after}");
}

/// Reno-friendly: tcp_cwnd += 1 per ⌊15·cwnd/8⌋ segments acked (beta_scale = 15), and when
/// it is ahead cnt ≤ ⌊cwnd / (tcp_cwnd − cwnd)⌋.
#[test]
fn test_reno_estimate_grows_one_per_fifteen_eighths_window() {
    assert_eq!(FRIENDLY_SCALE, 15);
    let mut c = LinuxCubic { last_max_cwnd: 10, epoch_start: Some(0), tcp_cwnd: 8, cnt: 500, ..LinuxCubic::default() };
    c.ack_cnt = 16; // ⌊15·8/8⌋ = 15 per segment of the estimate
    c.reno_friendly(8);
    assert_eq!((c.tcp_cwnd, c.ack_cnt), (9, 1));
    assert_eq!(c.cnt, 8, "cnt ≤ 8 / (9 − 8)");
}

/// `tcp_slow_start`: cwnd = min(cwnd + acked, ssthresh), the rest of the ACK goes on to
/// congestion avoidance.
#[test]
fn test_slow_start_stops_at_ssthresh_and_hands_over_the_rest() {
    let mut w = window(10, 12);
    assert_eq!(LinuxCubic::slow_start(&mut w, 5), 3);
    assert_eq!(w.cwnd, 12 * MSS);
    let mut w = window(10, 20);
    assert_eq!(LinuxCubic::slow_start(&mut w, 2), 0);
    assert_eq!(w.cwnd, 12 * MSS);
}

/// `tcp_cong_avoid_ai`: +1 segment per cnt ACKed segments; credits gathered under a larger cnt
/// give +1 and are dropped.
#[test]
fn test_additive_increase_credits() {
    let mut c = LinuxCubic { cnt: 4, cwnd_cnt: 6, last_cwnd: 20, last_time_us: 0, ..LinuxCubic::default() };
    let mut w = window(20, 1);
    c.epoch_start = Some(0);
    c.congestion_avoidance(&mut w, at_ms(1), 1); // the same cwnd within 1/32 s: cnt stays 4
    assert_eq!(w.cwnd, 21 * MSS, "6 ≥ 4: +1, credits cleared, then 1 < 4");
    assert_eq!(c.cwnd_cnt, 1);
}

/// `bictcp_acked`: delay_min is the least RTT sample, but none is taken within HZ jiffies
/// (1 s) of an epoch's start ("discard delay samples right after fast recovery").
#[test]
fn test_delay_min_skips_the_second_after_an_epoch_starts() {
    let mut c = LinuxCubic::default();
    c.on_feedback(&feedback(at_ms(10), 50));
    assert_eq!(c.delay_min_us, 50_000);
    c.epoch_start = Some(jiffies(at_ms(1000)));
    c.on_feedback(&feedback(at_ms(1500), 30));
    assert_eq!(c.delay_min_us, 50_000, "within a second of the epoch");
    c.on_feedback(&feedback(at_ms(2004), 30));
    assert_eq!(c.delay_min_us, 30_000);
}

/// A timeout: ssthresh as for any reduction, then `bictcp_reset` clears W_max and delay_min.
#[test]
fn test_timeout_resets_everything() {
    let mut c = LinuxCubic { delay_min_us: 20_000, last_max_cwnd: 90, ..LinuxCubic::default() };
    assert_eq!(c.ssthresh(&window(50, 1), Congestion::Timeout, 50 * MSS as u64, false), 35 * MSS);
    assert_eq!((c.w_max(), c.delay_min_us), (0, 0));
}

/// RFC 8511 β_ecn (not in Linux's CUBIC) as 870/1024 for ECN-Echo only.
#[test]
fn test_abe_in_the_same_scale() {
    let mut c = LinuxCubic::default();
    assert_eq!(c.ssthresh(&window(100, 1), Congestion::Ecn, 100 * MSS as u64, true), 84 * MSS);
    assert_eq!(c.ssthresh(&window(100, 1), Congestion::Loss, 100 * MSS as u64, true), 70 * MSS);
}

#[test]
fn test_icbrt_floors() {
    for a in [0u64, 1, 7, 8, 26, 27, 1_000_000, 999_999, u64::from(u32::MAX) * 1000] {
        let x = icbrt(a);
        assert!(u128::from(x).pow(3) <= u128::from(a) && u128::from(x + 1).pow(3) > u128::from(a), "{a}: {x}");
    }
}

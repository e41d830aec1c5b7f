//! Prague's rules, each against the sentence or formula it implements (`prague.rs`).

use super::*;
use crate::config::{CcKind, PragueVersion};

const MSS: u32 = 1000;

fn prague() -> Prague {
    prague_version(PragueVersion::V07)
}

fn window(cwnd_segments: u32, ssthresh_segments: u32) -> Window {
    let mut w = Window::new(3);
    w.init(MSS, cwnd_segments);
    w.ssthresh = ssthresh_segments * MSS;
    w
}

fn fb(una: u64, snd_nxt: u64, acked: u64, marked: u64, now_ms: u64, srtt_ms: u64) -> Feedback {
    let srtt = Some(Duration::from_millis(srtt_ms));
    let now = Instant::ZERO + Duration::from_millis(now_ms);
    Feedback {
        acked,
        ece: marked > 0,
        marked,
        una,
        snd_nxt,
        in_flight: snd_nxt - una,
        now,
        rtt: srtt,
        srtt,
        ack_rtt: None,
    }
}

fn ack(acked: u64) -> Ack {
    Ack { now: Instant::ZERO, acked, rtt: None }
}

#[test]
fn test_sends_ect1_and_reports_alpha_from_zero() {
    let cc = prague();
    assert_eq!(cc.codepoint(), Ecn::Ect1, "RFC 9331 §4.1: ECT(1)");
    assert_eq!(cc.alpha(), 0.0, "v0.7, reference alpha mode 0: α starts at 0");
    assert!(cc.needs_accecn() && cc.grows_on_marked_acks());
}

/// Reference: "Do not update alpha before we have proof that there's an AQM on the
/// path", and the first mark halves the window (alpha mode 0); after that α is the
/// EWMA with g = 1/16 of the marked fraction per round.
#[test]
fn test_alpha_waits_for_the_first_mark_then_is_the_ewma_per_round() {
    let mut cc = prague();
    let w = window(100, 50);
    // Rounds of 10 ACKs of one segment; SND.NXT 10 segments ahead closes each round.
    let mut una = 0;
    let mut round = |cc: &mut Prague, marks: u64, t: u64| {
        for i in 0..10 {
            una += u64::from(MSS);
            let m = if i < marks { u64::from(MSS) } else { 0 };
            cc.on_feedback(&fb(una, una + 10 * u64::from(MSS), u64::from(MSS), m, t, 50));
        }
    };
    for t in 0..5 {
        round(&mut cc, 0, t * 50);
    }
    assert_eq!(cc.alpha(), 0.0, "no mark yet: α stays 0");
    round(&mut cc, 4, 300); // the first marks: the round that saw them updates α
                            // A round closes at the first ACK at or past its next_seq: here the first ACK of
                            // each batch of 10, which closes the round of the 9 ACKs before it and itself.
                            // Of the 4 marks only the first fell in the round that closed: F = 1/10.
    let a = cc.alpha();
    assert!((a - 0.1 / 16.0).abs() < 1e-6, "α after F = 0.1: {a}");
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 50_000, "the first mark halves");
    let w = window(50, 50);
    let cut = cc.ssthresh(&w, Congestion::Ecn, 50_000);
    assert_eq!(cut, 50_000 - (50_000.0 * a / 2.0).round() as u32, "then W·(1 − α/2)");
}

/// The EWMA exactly: one ACK per round (SND.NXT = SND.UNA), F = marked/acked of that ACK.
#[test]
fn test_alpha_is_the_ewma_of_the_marked_fraction() {
    let mut cc = prague();
    let mut una = 0;
    let mut expect = 0.0f64;
    let mut seen = false;
    for (k, (acked, marked)) in
        [(4000u64, 0u64), (4000, 1000), (4000, 4000), (8000, 2000), (4000, 0), (2000, 1000)].into_iter().enumerate()
    {
        una += acked;
        cc.on_feedback(&fb(una, una, acked, marked, 10 * k as u64, 10));
        seen |= marked > 0;
        if seen {
            expect = expect * 15.0 / 16.0 + marked as f64 / acked as f64 / 16.0;
        }
        let got = cc.alpha();
        assert!((got - expect).abs() < 1e-5, "round {k}: α {got} vs {expect}");
    }
}

/// RFC 9331 §4.3 / reference `prague_enter_cwr`: W ← W·(1 − α/2); the window never
/// falls below 2 segments; a loss halves as Reno.
#[test]
fn test_ce_reduction_is_w_times_one_minus_alpha_over_two() {
    let mut cc = prague();
    cc.saw_ce = true;
    let w = window(100, 50);
    cc.alpha_up = (ALPHA_ONE / 4) << G_SHIFT;
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 87_500, "α = 1/4: W·7/8");
    let w = window(100, 50);
    cc.alpha_up = 0;
    cc.frac = 0;
    cc.last_cwnd = 0;
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 100_000, "α = 0: no cut");
    let w = window(3, 2);
    cc.alpha_up = ALPHA_ONE << G_SHIFT;
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 3_000), 2 * MSS, "minimum window of 2");
    let w = window(60, 50);
    assert_eq!(cc.ssthresh(&w, Congestion::Loss, 60_000), 30_000, "loss halves");
}

/// Reference §4 of its header: "Prague will increase every RTT, but proportional to
/// the non-marked packets" (`prague_update_cwnd`: acked − ece_delta, in 0.6 and 0.7
/// alike): an ACK of 3 segments with 2 marked grows as 1 unmarked.
#[test]
fn test_growth_counts_only_unmarked_bytes() {
    let (mut a, mut b) = (prague(), prague());
    let (mut wa, mut wb) = (window(20, 10), window(20, 10));
    a.on_feedback(&fb(3000, 10_000, 3000, 2000, 0, 50));
    a.on_ack(&mut wa, &ack(3000));
    b.on_feedback(&fb(1000, 10_000, 1000, 0, 0, 50));
    b.on_ack(&mut wb, &ack(1000));
    assert_eq!(wa.cwnd, wb.cwnd);
    assert_eq!(wa.cwnd, 20_050, "SMSS²/cwnd = 50 bytes");
    let mut c = prague();
    let mut wc = window(20, 10);
    c.on_feedback(&fb(2000, 10_000, 2000, 2000, 0, 50));
    c.on_ack(&mut wc, &ack(2000));
    assert_eq!(wc.cwnd, 20_000, "all marked: no growth");
}

/// RFC 9331 §4.3 "reduce RTT dependence" (reference RTT_CONTROL_RATE): once
/// RTT-independent, a flow with srtt below the 25 ms target grows per ACK by
/// (srtt/target)², i.e. one segment per target RTT instead of per own RTT.
#[test]
fn test_rtt_scaling_grows_a_short_rtt_flow_as_one_at_the_target() {
    let grow_per_round = |srtt_ms: u64, rounds_done: u32| {
        let mut cc = prague();
        cc.in_slow_start = false;
        cc.round = rounds_done;
        let mut w = window(100, 50);
        cc.on_feedback(&fb(1000, 1_000_000, 1000, 0, 0, srtt_ms));
        cc.round = rounds_done;
        let before = w.cwnd;
        cc.on_ack(&mut w, &ack(1000));
        // 100 ACKs per round of a 100-segment window.
        (w.cwnd - before) as f64 * 100.0
    };
    let full = grow_per_round(5, 0);
    assert!((full - 1000.0).abs() < 1.0, "before the transition: one SMSS per round ({full})");
    let scaled = grow_per_round(5, 4);
    let expect = 1000.0 * (5.0f64 / 25.0).powi(2);
    assert!((scaled - expect).abs() < 100.0 * 1.0, "5 ms: (5/25)² SMSS per round ({scaled} vs {expect})");
    assert!((grow_per_round(25, 4) - 1000.0).abs() < 1.0, "at the target: unscaled");
    assert!((grow_per_round(80, 4) - 1000.0).abs() < 1.0, "above the target: unscaled");
}

/// Reference `prague_enter_cwr`: when RTT-independent, at most one CE reduction per
/// target RTT (25 ms), however short the flow's own RTT.
#[test]
fn test_rtt_independent_flow_reduces_at_most_once_per_target_rtt() {
    let mut cc = prague();
    cc.saw_ce = true;
    cc.in_slow_start = false;
    cc.round = 10;
    cc.alpha_up = (ALPHA_ONE / 2) << G_SHIFT;
    let w = window(100, 50);
    cc.now = Instant::ZERO + Duration::from_millis(100);
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 75_000);
    let w = window(75, 50);
    cc.in_slow_start = false;
    cc.now = Instant::ZERO + Duration::from_millis(110);
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 75_000), 75_000, "10 ms later: none");
    cc.now = Instant::ZERO + Duration::from_millis(126);
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 75_000), 56_250, "26 ms later: W·3/4 again");
}

#[test]
fn test_without_accecn_it_is_reno_without_ecn() {
    let mut cc = prague();
    cc.fall_back();
    assert_eq!(cc.name(), "prague-reno");
    assert!(!cc.grows_on_marked_acks());
    let w = window(40, 20);
    assert_eq!(cc.ssthresh(&w, Congestion::Loss, 30_000), 15_000, "Reno: FlightSize/2");
}

fn prague_version(version: PragueVersion) -> Prague {
    let cfg = TcpConfig { cc: CcKind::Prague, ..TcpConfig::default() };
    Prague::new(&cfg, &PragueKnobs { version, ..cfg.prague })
}

/// A flow past slow start and the 4-round transition, α = 1/2, after its first mark,
/// with a 3-segment window at srtt 10 ms.
fn small_rtt_independent(version: PragueVersion) -> (Prague, Window) {
    let mut cc = prague_version(version);
    cc.saw_ce = true;
    cc.in_slow_start = false;
    cc.round = 10;
    cc.alpha_up = (ALPHA_ONE / 2) << G_SHIFT;
    let mut w = window(3, 2);
    cc.on_feedback(&fb(1000, 3000, 1000, 0, 100, 10));
    cc.round = 10;
    cc.on_ack(&mut w, &ack(1000));
    (cc, w)
}

/// v0.7 is the default; `prague_init` of both versions sets the RTT target to
/// 25 ms (`prague_rtt_target`).
#[test]
fn test_v07_is_the_default_with_a_25_ms_target() {
    let knobs = TcpConfig::default().prague;
    assert_eq!(knobs.version, PragueVersion::V07);
    assert_eq!(knobs.rtt_target_ns, 25_000_000);
    assert!(!knobs.fallback_fix);
}

/// `static int prague_rtt_transition __read_mostly = DEFAULT_RTT_TRANSITION;`, with
/// `#define DEFAULT_RTT_TRANSITION 4` in the 0.7 module and `500` in the 0.6 module;
/// `prague_is_rtt_indep` is `!tcp_in_slow_start(tp) && ca->round >= ...` that many
/// rounds. A transition set explicitly holds for either version.
#[test]
fn test_rtt_transition_is_4_rounds_in_v07_and_500_in_v06_unless_set() {
    let knobs = |version, rtt_transition| PragueKnobs { version, rtt_transition, ..PragueKnobs::default() };
    assert_eq!(knobs(PragueVersion::V07, None).transition(), 4);
    assert_eq!(knobs(PragueVersion::V06, None).transition(), 500);
    assert_eq!(knobs(PragueVersion::V06, Some(4)).transition(), 4);
    assert_eq!(knobs(PragueVersion::V07, Some(500)).transition(), 500);
    for (version, rounds) in [(PragueVersion::V07, 4), (PragueVersion::V06, 500)] {
        let mut cc = prague_version(version);
        cc.in_slow_start = false;
        cc.round = rounds - 1;
        assert!(!cc.rtt_independent(), "{version:?}: {} rounds", rounds - 1);
        cc.round = rounds;
        assert!(cc.rtt_independent(), "{version:?}: {rounds} rounds");
    }
}

/// v0.7's `prague_init` with `prague_alpha_mode` 0 (`ca->upscaled_alpha = 0`) and its
/// `prague_update_cwnd` (`if (unlikely(!ca->saw_ce) && !ca->alpha_mode) ca->frac_cwnd =
/// (ca->frac_cwnd + 1U) >> 1;`): α starts at 0, the first mark halves the window, and α
/// is then the EWMA from 0.
#[test]
fn test_v07_starts_alpha_at_zero_and_halves_at_the_first_mark() {
    let mut cc = prague_version(PragueVersion::V07);
    assert_eq!(cc.alpha(), 0.0);
    cc.on_feedback(&fb(1000, 1000, 1000, 1000, 10, 20));
    let w = window(40, 20);
    assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 40_000), 20_000, "the first mark halves");
    let a = cc.alpha();
    assert!((a - 1.0 / 16.0).abs() < 1e-6, "α from 0 after F = 1: {a}");
}

/// v0.6's `prague_init` (`ca->upscaled_alpha = PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G;`),
/// `prague_update_alpha` (`if (unlikely(!ca->saw_ce)) goto skip;`) and `prague_enter_cwr`
/// (`reduction = (alpha * frac_cwnd + PRAGUE_MAX_ALPHA) >> (PRAGUE_ALPHA_BITS + 1)`):
/// α is 1 from the start and stays 1 through unmarked rounds, so the first mark
/// halves the window by the ordinary reduction; α then decays from 1 by the EWMA
/// (α ← α − α/16 + F/16), and the second reduction is W·(1 − α/2) with that α.
#[test]
fn test_v06_starts_alpha_at_one_and_decays_from_it_after_the_first_mark() {
    let mut cc = prague_version(PragueVersion::V06);
    assert_eq!(cc.alpha(), 1.0);
    for k in 1..=5u64 {
        cc.on_feedback(&fb(k * 1000, k * 1000, 1000, 0, 20 * k, 20));
    }
    assert_eq!(cc.alpha(), 1.0, "no mark: α is not updated");
    cc.on_feedback(&fb(6000, 6000, 1000, 500, 120, 20));
    assert_eq!(cc.alpha(), 1.0 - 1.0 / 16.0 + 0.5 / 16.0, "the first marked round: F = 1/2");
    let w = window(40, 20);
    let first = cc.ssthresh(&w, Congestion::Ecn, 40_000);
    let a = cc.alpha();
    assert_eq!(first, 40_000 - (40_000.0 * a / 2.0).round() as u32, "W·(1 − α/2), α = {a}");
    assert!(first < 21_000, "about half: {first}");
    cc.on_feedback(&fb(7000, 7000, 1000, 0, 140, 20));
    let b = cc.alpha();
    assert!((b - a * 15.0 / 16.0).abs() < 1e-6, "an unmarked round: α·15/16 = {b}");
    let w = window(40, 20);
    let second = cc.ssthresh(&w, Congestion::Ecn, 40_000);
    assert_eq!(second, 40_000 - (40_000.0 * b / 2.0).round() as u32, "then W·(1 − α/2), α = {b}");
}

/// `prague_cong_control` (`prague_cwnd_mode` 2): v0.7 switches to the rate-based
/// mode at a window of at most 4 × 1500 B once it has seen a mark, and the pacing
/// rate (`prague_update_pacing_rate`) becomes its own; v0.6 has no such mode.
#[test]
fn test_v07_switches_to_the_rate_below_four_segments_and_v06_does_not() {
    let (v7, w7) = small_rtt_independent(PragueVersion::V07);
    assert!(v7.rate.on);
    let now = Instant::ZERO + Duration::from_millis(100);
    let paced = v7.pacing_rate(now).expect("v0.7 paces at its rate");
    assert_eq!(paced, v7.pacing(&w7).unwrap());
    assert!(paced >= super::super::prague_rate::MIN_RATE);
    assert!(w7.cwnd >= 2 * MSS);
    let (v6, _) = small_rtt_independent(PragueVersion::V06);
    assert!(!v6.rate.on);
    assert_eq!(v6.pacing_rate(now), None, "v0.6: pacing.rs's cwnd/srtt");
    let mut big = prague_version(PragueVersion::V07);
    big.saw_ce = true;
    let mut w = window(20, 10);
    big.on_feedback(&fb(1000, 20_000, 1000, 0, 100, 10));
    big.on_ack(&mut w, &ack(1000));
    assert!(!big.rate.on, "20 segments: the window governs");
    assert_eq!(big.pacing_rate(now), None);
}

/// `prague_enter_cwr` and `MINIMUM_RATE`: in the rate-based mode repeated CE
/// reductions (α = 1, one per 25 ms target) take the rate down to 100 kbit/s and
/// no further, while cwnd stays at its minimum of 2 segments; the pacing rate is
/// that ±3 % (`RATE_OFFSET`).
#[test]
fn test_v07_ce_takes_the_rate_down_to_100_kbit_and_the_window_stays_two() {
    let (mut cc, mut w) = small_rtt_independent(PragueVersion::V07);
    cc.alpha_up = ALPHA_ONE << G_SHIFT;
    for k in 0..40u64 {
        cc.now = Instant::ZERO + Duration::from_millis(200 + 30 * k);
        let s = cc.ssthresh(&w, Congestion::Ecn, 2000);
        w.cwnd = s;
        w.ssthresh = s;
    }
    assert_eq!(cc.rate.rate(), super::super::prague_rate::MIN_RATE);
    assert_eq!(w.cwnd, 2 * MSS);
    cc.alpha_stamp = cc.now;
    let first_half = cc.pacing(&w).unwrap();
    cc.now += Duration::from_millis(13);
    let second_half = cc.pacing(&w).unwrap();
    assert_eq!((first_half, second_half), (12_890, 12_110), "12 500 ± 4/128");
}

/// `prague_update_cwnd`, rate branch: in the rate-based mode unmarked ACKs grow the
/// rate (one 1500-B packet per virtual RTT per virtual RTT), marked bytes not at all.
#[test]
fn test_v07_rate_grows_on_unmarked_acks_only() {
    let (mut cc, mut w) = small_rtt_independent(PragueVersion::V07);
    let before = cc.rate.rate();
    cc.on_feedback(&fb(2000, 3000, 1000, 1000, 101, 10));
    cc.on_ack(&mut w, &ack(1000));
    assert_eq!(cc.rate.rate(), before, "a marked segment: no growth");
    cc.on_feedback(&fb(3000, 4000, 1000, 0, 102, 10));
    cc.on_ack(&mut w, &ack(1000));
    assert!(cc.rate.rate() > before, "an unmarked one grows the rate");
}

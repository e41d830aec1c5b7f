//! Prague's rules, each against the sentence or formula it implements (`prague.rs`).

use super::*;
use crate::config::CcKind;

const MSS: u32 = 1000;

fn prague() -> Prague {
    Prague::new(&TcpConfig { cc: CcKind::Prague, ..TcpConfig::default() })
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
    Feedback { acked, ece: marked > 0, marked, una, snd_nxt, now, rtt: srtt, srtt, ack_rtt: None }
}

fn ack(acked: u64) -> Ack {
    Ack { now: Instant::ZERO, acked, rtt: None }
}

#[test]
fn test_sends_ect1_and_reports_alpha_from_zero() {
    let cc = prague();
    assert_eq!(cc.codepoint(), Ecn::Ect1, "RFC 9331 §4.1: ECT(1)");
    assert_eq!(cc.alpha(), Some(0.0), "reference alpha mode 0: α starts at 0");
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
    assert_eq!(cc.alpha(), Some(0.0), "no mark yet: α stays 0");
    round(&mut cc, 4, 300); // the first marks: the round that saw them updates α
                            // A round closes at the first ACK at or past its next_seq: here the first ACK of
                            // each batch of 10, which closes the round of the 9 ACKs before it and itself.
                            // Of the 4 marks only the first fell in the round that closed: F = 1/10.
    let a = cc.alpha().unwrap();
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
        let got = cc.alpha().unwrap();
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
/// the non-marked packets": an ACK of 3 segments with 2 marked grows as 1 unmarked.
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

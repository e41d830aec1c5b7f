//! HyStart's and HyStart++'s rules on scripted ACK streams (`hystart.rs`).

use super::*;

const MS: u64 = 1_000_000;

/// One ACK per `gap_us` of one segment each; rounds of `per_round` ACKs, each with
/// the RTT `rtt_of(round)`; the verdict after every ACK, by (round, ACK in round).
fn verdicts(
    h: &mut HyStart,
    rounds: u64,
    per_round: u64,
    gap_us: u64,
    cwnd: u64,
    rtt_of: impl Fn(u64) -> u64,
) -> Vec<((u64, u64), Verdict)> {
    let (mut una, mut t, mut out) = (0, 0, Vec::new());
    for r in 0..rounds {
        let snd_nxt = una + per_round * 1000;
        for i in 0..per_round {
            una += 1000;
            t += gap_us * 1000;
            let rtt = Some(Duration(rtt_of(r)));
            let fb = Feedback {
                acked: 1000,
                ece: false,
                marked: 0,
                una,
                snd_nxt,
                in_flight: snd_nxt - una,
                now: Instant(t),
                rtt,
                srtt: rtt,
                ack_rtt: rtt,
            };
            out.push(((r, i), h.on_feedback(&fb, cwnd)));
        }
    }
    out
}

/// Where the verdict first became `want`.
fn first(v: Vec<((u64, u64), Verdict)>, want: Verdict) -> Option<(u64, u64)> {
    v.into_iter().find(|&(_, v)| v == want).map(|(at, _)| at)
}

/// Linux `hystart_update`, delay: once the round's minimum of 8 samples exceeds
/// delay_min + clamp(delay_min/8, 4 ms, 16 ms), slow start ends; a queue growing
/// by less does not end it.
#[test]
fn test_linux_delay_detector_fires_at_the_threshold() {
    // 40 ms base: threshold 5 ms. ACKs 5 ms apart (no ACK train).
    let mut h = HyStart::new(HyStartMode::Linux, false);
    let hit =
        first(verdicts(&mut h, 10, 20, 5000, 20, |r| if r < 3 { 40 * MS } else { 40 * MS + 4 * MS }), Verdict::Exit);
    assert_eq!(hit, None, "4 ms of queue < 5 ms threshold");
    let mut h = HyStart::new(HyStartMode::Linux, false);
    let hit =
        first(verdicts(&mut h, 10, 20, 5000, 20, |r| if r < 3 { 40 * MS } else { 40 * MS + 6 * MS }), Verdict::Exit);
    assert_eq!(hit, Some((3, 8)), "the 9th sample of the first deeper round");
    // Below hystart_low_window (16 segments) nothing is detected.
    let mut h = HyStart::new(HyStartMode::Linux, false);
    assert_eq!(first(verdicts(&mut h, 10, 20, 5000, 15, |r| 40 * MS + r * 10 * MS), Verdict::Exit), None);
}

/// Linux `hystart_update`, ACK train: ACKs closer than 2 ms that keep coming for more
/// than (delay_min + ack_delay)/2 after the round started end slow start.
#[test]
fn test_linux_ack_train_fires_after_half_the_min_rtt() {
    // 20 ms RTT, ACKs every 0.5 ms, 100 per round (a 50 ms train; a round starts at
    // its first ACK): fires once the train passes (20 ms + ack_delay)/2 = 10.5 ms,
    // ack_delay = min(1 ms, 4·64 KiB / (2·100·1500 B per 20 ms)) = 1 ms.
    let mut h = HyStart::new(HyStartMode::Linux, false);
    let (r, i) = first(verdicts(&mut h, 3, 100, 500, 100, |_| 20 * MS), Verdict::Exit).unwrap();
    assert_eq!(r, 0);
    assert_eq!(i * 500, 11_000, "the first ACK more than 10.5 ms into the round");
    // Paced (Linux: sk_pacing_status set) the threshold is not halved: 21 ms.
    let mut h = HyStart::new(HyStartMode::Linux, true);
    let (r, i) = first(verdicts(&mut h, 3, 100, 500, 100, |_| 20 * MS), Verdict::Exit).unwrap();
    assert_eq!((r, i * 500), (0, 21_500));
    // ACKs 3 ms apart never form a train, and the delay does not grow: no exit.
    let mut h = HyStart::new(HyStartMode::Linux, false);
    assert_eq!(first(verdicts(&mut h, 5, 30, 3000, 100, |_| 20 * MS), Verdict::Exit), None);
}

/// RFC 9406 §4.2: after N_RTT_SAMPLE samples of a round whose minimum RTT rose by
/// RttThresh over the last round's, Conservative Slow Start; CSS_ROUNDS rounds of it
/// end slow start; a round below the CSS baseline returns to slow start.
#[test]
fn test_hystart_plus_plus_css_then_exit_or_back() {
    let rtt = |r: u64| if r < 2 { 40 * MS } else { 46 * MS }; // +6 ms ≥ clamp(5 ms, 4, 16)
    let mut h = HyStart::new(HyStartMode::HyStartPlusPlus, false);
    assert_eq!(first(verdicts(&mut h, 3, 20, 5000, 20, rtt), Verdict::Conservative), Some((2, 7)), "8th sample");
    // CSS_ROUNDS = 5 further round starts end it.
    let mut h = HyStart::new(HyStartMode::HyStartPlusPlus, false);
    let exit = first(verdicts(&mut h, 12, 20, 5000, 20, rtt), Verdict::Exit).unwrap();
    assert_eq!(exit, (7, 0), "CSS from round 2; the 5th new round after it is round 7");
    // The RTT falls back below the baseline in CSS: slow start again.
    let dip = |r: u64| match r {
        0 | 1 => 40 * MS,
        2 => 46 * MS,
        _ => 41 * MS,
    };
    let mut h = HyStart::new(HyStartMode::HyStartPlusPlus, false);
    let v = verdicts(&mut h, 5, 20, 5000, 20, dip);
    let in_css: Vec<_> = v.iter().filter(|(_, v)| *v == Verdict::Conservative).map(|(at, _)| *at).collect();
    assert_eq!(in_css.first(), Some(&(2, 7)));
    assert_eq!(v.iter().find(|((r, _), _)| *r == 3).map(|(_, v)| *v), Some(Verdict::Conservative));
    assert_eq!(v.last().unwrap().1, Verdict::SlowStart, "41 ms < the 46 ms baseline: back to slow start");
    assert!(v.iter().all(|(_, v)| *v != Verdict::Exit));
}

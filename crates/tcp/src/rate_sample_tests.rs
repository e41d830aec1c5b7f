//! `tcp_rate.c`'s rules, each test named after the function it checks.

use super::*;

const MSS: u64 = 1000;

fn ms(n: u64) -> Instant {
    Instant(n * 1_000_000)
}

fn seq(k: u64) -> u64 {
    1 + (k - 1) * MSS
}

/// Segments 1..=10 sent 1 ms apart from t = 0; the first acked at 40 ms, the rest at 42 ms.
fn first_flight() -> (RateSampler, RateSample, RateSample) {
    let mut r = RateSampler::default();
    for k in 1..=10u64 {
        r.on_sent(ms(k - 1), seq(k), seq(k) + MSS, false, false, k * MSS);
    }
    r.on_ack(seq(2), &[]);
    let a = r.generate(ms(40), 10 * MSS, false);
    r.on_ack(seq(11), &[]);
    let b = r.generate(ms(42), 9 * MSS, false);
    (r, a, b)
}

#[test]
fn tcp_rate_gen_takes_the_longer_of_the_send_and_ack_phases() {
    let (_, a, b) = first_flight();
    // Segment 1: sent at 0 with nothing delivered yet; delivered over the 40 ms ACK phase.
    assert_eq!((a.delivered, a.interval, a.rtt), (Some(MSS), Duration(40_000_000), Some(Duration(40_000_000))));
    // Segments 2–10: the newest (segment 10, sent at 9 ms) gives prior_delivered 0; the ACK
    // phase (42 ms since the first send) is longer than its send phase (9 ms).
    assert_eq!((b.delivered, b.prior_delivered, b.interval), (Some(10 * MSS), 0, Duration(42_000_000)));
}

#[test]
fn tcp_rate_gen_takes_the_send_phase_when_acks_come_compressed() {
    let mut r = RateSampler::default();
    for k in 1..=10u64 {
        r.on_sent(ms(k - 1), seq(k), seq(k) + MSS, false, false, k * MSS);
    }
    r.on_ack(seq(10), &[]); // 1–9 at 42 ms; segment 10 still out
    r.generate(ms(42), 10 * MSS, false);
    for k in 11..=20u64 {
        r.on_sent(ms(43 + (k - 11)), seq(k), seq(k) + MSS, false, false, (k - 9) * MSS);
    }
    r.on_ack(seq(21), &[]); // all at once at 70 ms
    let c = r.generate(ms(70), 11 * MSS, false);
    // Segment 20 left at 52 ms with first_tx 8 ms (segment 9's send time, the newest delivered
    // then) and 9 000 B delivered: send phase 44 ms, ACK phase 70 − 42 = 28 ms.
    assert_eq!((c.delivered, c.prior_delivered, c.interval), (Some(11 * MSS), 9 * MSS, Duration(44_000_000)));
}

#[test]
fn tcp_rate_skb_delivered_counts_a_sacked_segment_once() {
    let mut r = RateSampler::default();
    for k in 1..=4u64 {
        r.on_sent(ms(0), seq(k), seq(k) + MSS, false, false, k * MSS);
    }
    r.on_ack(seq(1), &[(seq(3), seq(5))]);
    assert_eq!(r.generate(ms(30), 4 * MSS, false).acked_sacked, 2 * MSS, "segments 3 and 4 by SACK");
    r.on_ack(seq(5), &[]);
    assert_eq!(r.generate(ms(31), 2 * MSS, false).acked_sacked, 2 * MSS, "then 1 and 2, not 3 and 4 again");
    assert_eq!(r.delivered, 4 * MSS);
}

#[test]
fn tcp_rate_gen_refuses_an_interval_shorter_than_min_rtt() {
    let mut r = RateSampler::default();
    r.on_sent(ms(0), seq(1), seq(2), false, false, MSS);
    r.on_ack(seq(2), &[]);
    assert!(r.generate(ms(40), MSS, false).delivered.is_some());
    // Segment 2 sent at 41 ms and again at 45 ms (no RTT sample: Karn); acked at 50 ms:
    // 9 ms is shorter than the 40 ms min_rtt.
    r.on_sent(ms(41), seq(2), seq(3), false, false, MSS);
    r.on_sent(ms(45), seq(2), seq(3), true, false, MSS);
    r.on_ack(seq(3), &[]);
    let rs = r.generate(ms(50), MSS, false);
    assert_eq!((rs.delivered, rs.rtt, rs.acked_sacked), (None, None, MSS));
}

#[test]
fn tcp_rate_check_app_limited_marks_samples_until_the_bubble_is_delivered() {
    let mut r = RateSampler::default();
    r.on_sent(ms(0), seq(1), seq(2), false, false, MSS);
    // Nothing more to send, window not full: app-limited until 1 000 B more are delivered.
    r.check_app_limited(0, MSS, MSS, 10 * MSS, false);
    assert_eq!(r.app_limited, MSS);
    r.on_sent(ms(1), seq(2), seq(3), false, false, 2 * MSS);
    r.on_ack(seq(2), &[]);
    assert!(!r.generate(ms(40), 2 * MSS, false).is_app_limited, "sent before the mark");
    r.on_ack(seq(3), &[]);
    assert!(r.generate(ms(41), MSS, false).is_app_limited, "sent in the bubble");
    assert_eq!(r.app_limited, 0, "the bubble is delivered");
    // A full window, or data waiting, is not app-limited.
    r.check_app_limited(0, MSS, 10 * MSS, 10 * MSS, false);
    r.check_app_limited(5 * MSS, MSS, 0, 10 * MSS, false);
    r.check_app_limited(0, MSS, 0, 10 * MSS, true);
    assert_eq!(r.app_limited, 0);
}

#[test]
fn a_retransmission_counts_its_segment_lost_once_and_a_probe_none() {
    let mut r = RateSampler::default();
    r.on_sent(ms(0), seq(1), seq(2), false, false, MSS);
    r.on_sent(ms(0), seq(2), seq(3), false, false, 2 * MSS);
    r.on_sent(ms(30), seq(1), seq(2), true, false, 2 * MSS);
    r.on_sent(ms(31), seq(2), seq(3), true, true, 2 * MSS);
    assert_eq!(r.lost, MSS, "the probe is not counted");
    r.on_ack(seq(1), &[]);
    let rs = r.generate(ms(35), 2 * MSS, false);
    assert_eq!(rs.losses, MSS);
    r.on_ack(seq(1), &[]);
    assert_eq!(r.generate(ms(36), 2 * MSS, false).losses, 0, "reported once");
}

#[test]
fn delivered_ce_counts_the_bytes_of_ece_acks() {
    let (mut r, _, _) = first_flight();
    r.on_sent(ms(50), seq(11), seq(12), false, false, MSS);
    r.on_ack(seq(12), &[]);
    let rs = r.generate(ms(90), MSS, true);
    assert_eq!((rs.delivered_ce, r.delivered_ce), (MSS, MSS));
}

#[test]
fn tcp_timeout_mark_lost_counts_the_flight_once_not_each_retransmission() {
    // Linux tcp_enter_loss → tcp_timeout_mark_lost → tcp_mark_skb_lost: every segment
    // outstanding and not SACKed is marked lost at the timeout (tp->lost grows by all of
    // them); going back N afterwards retransmits them without marking them lost again.
    let mut r = RateSampler::default();
    for k in 1..=10u64 {
        r.on_sent(ms(k - 1), seq(k), seq(k) + MSS, false, false, k * MSS);
    }
    r.on_ack(seq(1), &[(seq(9), seq(11))]);
    r.generate(ms(40), 10 * MSS, false);
    assert_eq!(r.on_timeout(), 8 * MSS, "segments 1–8; 9 and 10 were SACKed");
    assert_eq!(r.lost, 8 * MSS);
    for k in 1..=4u64 {
        r.on_sent(ms(300 + k), seq(k), seq(k) + MSS, true, false, k * MSS);
    }
    assert_eq!(r.lost, 8 * MSS, "resending a segment the timeout marked adds nothing");
    r.on_ack(seq(5), &[(seq(9), seq(11))]);
    let rs = r.generate(ms(350), 4 * MSS, false);
    assert_eq!((rs.losses, rs.lost), (0, 0), "no ACK reports the timeout's marks");
    // A second timeout marks again only what was sent since the first (a lost
    // retransmission); segments 6–8, not resent, stay counted once.
    r.on_sent(ms(351), seq(5), seq(6), true, false, MSS);
    assert_eq!(r.on_timeout(), MSS, "segment 5, resent and lost again");
    assert_eq!(r.lost, 9 * MSS);
}

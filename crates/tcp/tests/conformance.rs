//! The RFCs' loss recovery and ECN rules, each pinned by a packet trace and the
//! sentence it implements, for every recovery where it applies, with and
//! without delayed ACKs. Setting as in `trace.rs` (harness::config): MSS
//! 1000 B, IW 2, ECN on, 10 ms one way, 10 Mbit/s, min/initial RTO 1 s, 1 ms
//! clock; segment k starts at seq 1 + (k−1)·1000.

mod harness;

use ecnlab_tcp::{CaState, LimitedTransmit, NewRenoTimer, Recovery};
use ecnlab_wire::Duration;
use harness::*;

/// Eight tests of `scenario`, one per recovery with and without delayed ACKs,
/// in a module of the same name (`abc_slow_start::newreno_delack`).
macro_rules! every_recovery {
    ($scenario:ident) => {
        mod $scenario {
            use super::*;
            #[test]
            fn reno() {
                super::$scenario(Recovery::Reno, false)
            }
            #[test]
            fn reno_delack() {
                super::$scenario(Recovery::Reno, true)
            }
            #[test]
            fn newreno() {
                super::$scenario(Recovery::NewReno, false)
            }
            #[test]
            fn newreno_delack() {
                super::$scenario(Recovery::NewReno, true)
            }
            #[test]
            fn sack() {
                super::$scenario(Recovery::Sack, false)
            }
            #[test]
            fn sack_delack() {
                super::$scenario(Recovery::Sack, true)
            }
            #[test]
            fn tahoe() {
                super::$scenario(Recovery::Tahoe, false)
            }
            #[test]
            fn tahoe_delack() {
                super::$scenario(Recovery::Tahoe, true)
            }
        }
    };
}

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

// ------------------------------------------------------------ (a) RFC 3168 §6.1.2
/// "The sending TCP SHOULD NOT increase the congestion window in response to
/// the receipt of an ECN-Echo ACK packet." Data packets 1 and 3 are CE-marked
/// at cwnd 2. The ACK of 1 halves cwnd to one segment; the ACK of 2 still
/// carries ECE (the receiver echoes until it sees CWR) and must not grow cwnd
/// back, so only segment 3 leaves (with CWR). Its mark arrives with cwnd at
/// one segment: "the TCP sender should reset the retransmit timer on receiving
/// the ECN-Echo packet when the congestion window is one", so segment 4 waits
/// for the timer (RTO 1 s) instead of leaving at once.
fn ece_ack_does_not_grow(v: Recovery, delack: bool) {
    let faults = vec![mark(Target::Seq(seg(1))), mark(Target::Seq(seg(3)))];
    let net = Net::transfer(config(v, delack), 10_000, faults);
    let d: Vec<_> = net.data().take(4).collect();
    check(&net, d.iter().map(|l| l.seg.seq).eq([seg(1), seg(2), seg(3), seg(4)]), "segments 1-4 in order, once");
    check(&net, d[2].seg.flags.cwr() && d[2].cwnd == MSS, "segment 3 alone, with CWR, at cwnd 1");
    let ack3 = net.acks().find(|l| l.seg.ack == seg(4)).expect("ACK of segment 3").t;
    check(&net, d[3].t >= ack3 + Duration::from_millis(990), "segment 4 waits for the retransmit timer");
    check(&net, net.c.stats().ecn_reductions == 2 && net.c.stats().timeouts == 0, "two reductions, no timeout");
    check(&net, net.c.stats().retransmits == 0, "nothing retransmitted");
    let ece_acks = net.cc_log.iter().filter(|p| p.ca == CaState::Cwr).count();
    check(&net, ece_acks >= 1, "in Cwr");
}
every_recovery!(ece_ack_does_not_grow);

// ------------------------------------------------------------ (c) RFC 6582 §3.2 step 1, §4
/// After a retransmission timeout, "recover" is the highest sequence number
/// transmitted, and duplicate ACKs that do not cover more than it must not
/// start a fast retransmit (RFC 6582 §3.2 step 1; §4: "the TCP sender ...
/// after a retransmit timeout ... records the highest sequence number
/// transmitted in the variable recover"). The go-back-N retransmissions after
/// a timeout resend segments the receiver already holds above its holes; their
/// duplicate ACKs are no news of loss. For every recovery, Tahoe and Reno
/// included. Faults: first transmissions of segments 20, 22, 24, 26 and 28 are
/// dropped, and so is the first retransmission of segment 20, which forces the
/// timeout.
fn no_fast_retransmit_after_timeout(v: Recovery, delack: bool) {
    let holes = [20, 22, 24, 26, 28];
    let mut faults: Vec<_> = holes.iter().map(|&k| drop(Target::Seq(seg(k)))).collect();
    let probe = Net::transfer(config(v, delack), 60_000, faults.clone());
    let first_rtx = probe.data().position(|l| l.seg.retransmit).expect("a retransmission") as u32 + 1;
    faults.push(drop(Target::DataTx(first_rtx)));
    let net = Net::transfer(config(v, delack), 60_000, faults);
    let rto = net.cc_log.iter().position(|p| p.ca == CaState::Loss).expect("a timeout");
    let recover = net.cc_log[rto].high_sent;
    let after = &net.cc_log[rto..];
    let early = after.iter().find(|p| p.ca == CaState::Recovery && p.una <= recover);
    check(&net, early.is_none(), "no fast retransmit before snd_una covers recover");
    check(&net, net.c.stats().timeouts == 1, "one timeout");
    check(&net, net.c.stats().fast_retransmits <= 1, "only the fast retransmit before the timeout");
    check(&net, net.s.bytes_received() == 60_000, "everything delivered");
}
every_recovery!(no_fast_retransmit_after_timeout);

// ------------------------------------------------------------ (d) RFC 6582 §4, Impatient
/// RFC 6582 §3.2 step 5: "For the first partial ACK that arrives during Fast
/// Recovery, also reset the retransmit timer", and §4 recommends the
/// Impatient variant, which resets it on the first partial ACK only: with many
/// losses in one window the timer then expires one RTO after the first
/// partial ACK and go-back-N repairs the rest, where Slow-but-Steady repairs
/// one hole per round trip. Min RTO 100 ms; every other segment of a stretch
/// of the first window is dropped (19 holes without delayed ACKs, 8 with),
/// more round trips (21 ms each) than one RTO.
fn newreno_impatient(delack: bool) {
    let holes: Vec<u64> = if delack { (30..=44).step_by(2).collect() } else { (40..=76).step_by(2).collect() };
    let faults: Vec<_> = holes.iter().map(|&k| drop(Target::Seq(seg(k)))).collect();
    let mut cfg = config(Recovery::NewReno, delack);
    cfg.min_rto_ns = Duration::from_millis(100).as_nanos();

    cfg.newreno_timer = NewRenoTimer::SlowButSteady;
    let steady = Net::transfer(cfg.clone(), 300_000, faults.clone());
    check(&steady, steady.c.stats().timeouts == 0, "slow-but-steady: no timeout");
    check(&steady, steady.c.stats().retransmits == holes.len() as u64, "one retransmission per hole");

    cfg.newreno_timer = NewRenoTimer::Impatient;
    let net = Net::transfer(cfg, 300_000, faults);
    check(&net, net.c.stats().timeouts == 1, "impatient: one timeout");
    let entry = net.cc_log.iter().position(|p| p.ca == CaState::Recovery).unwrap();
    let recover = net.cc_log[entry].high_sent;
    let at_entry = net.cc_log[entry].ack.unwrap();
    let partial = |a: u64| a > at_entry && a < recover;
    let first_partial = net.cc_log[entry + 1..].iter().find(|p| p.ack.is_some_and(partial)).unwrap();
    let rto = net.cc_log.iter().find(|p| p.ca == CaState::Loss).unwrap();
    let waited = rto.t - first_partial.t;
    let (lo, hi) = (Duration::from_millis(100), Duration::from_millis(102));
    check(&net, waited >= lo && waited <= hi, "RTO (min_rto) after the first partial ACK");
}
#[test]
fn test_newreno_impatient() {
    newreno_impatient(false)
}
#[test]
fn test_newreno_impatient_delack() {
    newreno_impatient(true)
}

// ------------------------------------------------------------ (e) RFC 3042
/// RFC 3042 §2: "a TCP sender SHOULD send a new data segment in response to
/// each of the first two duplicate acknowledgments that arrive at the
/// sender", if "the amount of outstanding data would remain less than or
/// equal to the congestion window plus 2 segments"; "the congestion window
/// MUST NOT be changed". With IW 2 and segment 2 lost only two duplicate ACKs
/// come back: without Limited Transmit the loss waits for the timer, with it
/// the two new segments bring the third duplicate ACK and a fast retransmit.
fn limited_transmit_small_window(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    let faults = vec![drop(Target::Seq(seg(2)))];
    let off = Net::transfer(cfg.clone(), 20_000, faults.clone());
    check(&off, off.c.stats().timeouts == 1 && off.c.stats().fast_retransmits == 0, "without: a timeout");
    cfg.limited_transmit = LimitedTransmit::Rfc3042;
    let net = Net::transfer(cfg, 20_000, faults);
    check(&net, net.c.stats().timeouts == 0 && net.c.stats().fast_retransmits == 1, "with: a fast retransmit");
    let d: Vec<_> = net.data().take(6).collect();
    check(&net, d[4].seg.seq == seg(5) && d[5].seg.seq == seg(6), "segments 5 and 6 on the dupACKs");
    check(&net, d[4].cwnd == d[3].cwnd && d[5].cwnd == d[3].cwnd, "cwnd unchanged");
}
every_recovery!(limited_transmit_small_window);

/// RFC 5681 §3.2 step 2: "When [RFC3042] is in use, additional data sent in
/// limited transmit MUST NOT be included in this calculation" of ssthresh.
/// Segment 10 is dropped; at the third duplicate ACK ssthresh is half of the
/// flight without the two Limited Transmit segments.
fn limited_transmit_not_in_flightsize(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.limited_transmit = LimitedTransmit::Rfc3042;
    let net = Net::transfer(cfg, 40_000, vec![drop(Target::Seq(seg(10)))]);
    let p = first(&net, CaState::Recovery);
    let flight = (p.high_sent - p.ack.unwrap()) as u32;
    // Segments sent while in Disorder: one per duplicate ACK before the third
    // (SACK may enter recovery earlier, when IsLost() holds, RFC 6675 §5).
    let lt = net.data().filter(|l| l.ca == CaState::Disorder && l.t <= p.t).count() as u32;
    check(&net, (1..=2).contains(&lt), "one or two Limited Transmit segments");
    check(&net, p.ssthresh == ((flight - lt * MSS) / 2).max(2 * MSS), "ssthresh without the LT segments");
    check(&net, net.c.stats().timeouts == 0, "no timeout");
}
every_recovery!(limited_transmit_not_in_flightsize);

#[track_caller]
fn first(net: &Net, ca: CaState) -> CcPoint {
    *net.cc_log.iter().find(|p| p.ca == ca).unwrap_or_else(|| panic!("never in {ca:?}\n{}", net.dump()))
}

// ------------------------------------------------------------ (f) RFC 3465
/// RFC 3465 §2.2: in slow start "cwnd MUST be increased by min(N, L*SMSS)"
/// (N bytes newly acknowledged, L = 2 here), so a delayed ACK covering two
/// segments opens cwnd by two segments, where per-ACK growth opens it by one.
/// 60 segments, no loss: per ACK the window ends at IW + one segment per ACK
/// of new data (the FIN's ACK included); by bytes at IW + 60 segments.
fn abc_slow_start(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.abc = 2;
    let net = Net::transfer(cfg, 60_000, vec![]);
    check(&net, net.c.cwnd() == 2 * MSS + 60_000, "IW + every byte acknowledged");
    let acks = net.acks().filter(|l| l.seg.payload_len == 0 && !l.seg.flags.syn()).count();
    check(&net, !delack || acks <= 35, "delayed ACKs cover two segments each");
}
every_recovery!(abc_slow_start);

/// RFC 3465 §2.1: in congestion avoidance "when bytes_acked becomes greater
/// than or equal to the value of the congestion window, bytes_acked is
/// reduced by the value of cwnd. Next, cwnd is incremented by a full-sized
/// segment (SMSS)." After an ECN reduction (segment 20 marked) every increase
/// of cwnd is one SMSS, and the k-th comes once the bytes acknowledged since
/// the reduction reach the sum of the k windows, with or without delayed ACKs.
fn abc_congestion_avoidance(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.abc = 2;
    let net = Net::transfer(cfg, 200_000, vec![mark(Target::Seq(seg(20)))]);
    let cwr = net.cc_log.iter().position(|p| p.ca == CaState::Cwr).expect("reduced");
    let after = &net.cc_log[cwr..];
    let mut grew = 0;
    for w in after.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b.cwnd > a.cwnd {
            grew += 1;
            check(&net, b.cwnd - a.cwnd == MSS, "one SMSS at a time");
        }
    }
    // bytes_acked restarts at the reduction and keeps its remainder: the k-th
    // increase needs the sum of the k windows it grew from.
    let (start, mut needed) = (after[0].una, 0u64);
    for w in after.windows(2).filter(|w| w[1].cwnd > w[0].cwnd) {
        needed += w[0].cwnd as u64;
        check(&net, w[1].una - start >= needed, "a window of bytes per increase");
    }
    check(&net, grew >= 5, "it grew in congestion avoidance");
}
every_recovery!(abc_congestion_avoidance);

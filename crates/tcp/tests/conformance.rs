//! Conformance fixes of issue 15, each pinned by a packet trace and the
//! sentence it implements, for every recovery where it applies, with and
//! without delayed ACKs. Setting as in `trace.rs` (harness::config): MSS
//! 1000 B, IW 2, ECN on, 10 ms one way, 10 Mbit/s, min/initial RTO 1 s, 1 ms
//! clock; segment k starts at seq 1 + (k−1)·1000.

mod harness;

use ecnlab_tcp::{CaState, Recovery};
use ecnlab_wire::Duration;
use harness::*;

macro_rules! every_recovery {
    ($scenario:ident: $($name:ident => $v:ident, $delack:expr;)*) => {
        $( #[test] fn $name() { $scenario(Recovery::$v, $delack) } )*
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
every_recovery! { ece_ack_does_not_grow:
    test_reno_ece_ack_does_not_grow => Reno, false; test_reno_ece_ack_does_not_grow_delack => Reno, true;
    test_newreno_ece_ack_does_not_grow => NewReno, false; test_newreno_ece_ack_does_not_grow_delack => NewReno, true;
    test_sack_ece_ack_does_not_grow => Sack, false; test_sack_ece_ack_does_not_grow_delack => Sack, true;
    test_tahoe_ece_ack_does_not_grow => Tahoe, false; test_tahoe_ece_ack_does_not_grow_delack => Tahoe, true;
}

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
every_recovery! { no_fast_retransmit_after_timeout:
    test_reno_no_fast_retransmit_after_timeout => Reno, false;
    test_reno_no_fast_retransmit_after_timeout_delack => Reno, true;
    test_newreno_no_fast_retransmit_after_timeout => NewReno, false;
    test_newreno_no_fast_retransmit_after_timeout_delack => NewReno, true;
    test_sack_no_fast_retransmit_after_timeout => Sack, false;
    test_sack_no_fast_retransmit_after_timeout_delack => Sack, true;
    test_tahoe_no_fast_retransmit_after_timeout => Tahoe, false;
    test_tahoe_no_fast_retransmit_after_timeout_delack => Tahoe, true;
}

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

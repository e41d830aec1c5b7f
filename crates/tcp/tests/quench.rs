//! Deterministic packet-trace tests of the response to ICMP Source Quench
//! (Floyd 1994 §4, §5; `quench.rs`), in the shape of `trace.rs`: the harness's
//! gateway forwards the chosen data segment unchanged and sends the Client a
//! quench that arrives one reverse one-way delay (10 ms) later.
//!
//! Setting as in `trace.rs` (MSS 1000 B, IW 2, 10 ms each way, 10 Mbit/s) but
//! ECN off, as on a path whose gateway quenches instead of marking (one case
//! turns ECN on to check the CWR rule). The reduction is checked against the
//! trace itself: ssthresh = max(FlightSize/2, 2·MSS) with FlightSize =
//! highest byte sent − snd_una when the quench arrives, cwnd = ssthresh.

mod harness;

use ecnlab_tcp::{CaState, EcnMode, Recovery, TcpConfig};
use ecnlab_wire::Instant;
use harness::*;

macro_rules! cases {
    ($scenario:ident: $($name:ident => $v:ident, $delack:expr;)*) => {
        $( #[test] fn $name() { $scenario(Recovery::$v, $delack) } )*
    };
}

fn no_ecn(v: Recovery, delack: bool) -> TcpConfig {
    TcpConfig { ecn: EcnMode::Off, ..config(v, delack) }
}

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

/// The congestion-state points made by quench arrivals (inputs without an ACK
/// that are not timer expiries: the harness logs a quench with `ack: None`).
fn quench_points(net: &Net) -> Vec<CcPoint> {
    net.cc_log.iter().filter(|p| p.ack.is_none() && p.ca == CaState::Cwr).copied().collect()
}

#[track_caller]
fn check_halved(net: &Net, p: &CcPoint) {
    let flight = p.high_sent - p.una;
    let want = ((flight / 2) as u32).max(2 * MSS);
    check(net, flight >= 4 * MSS as u64, "the test needs four or more segments in flight");
    check(net, p.ssthresh == want && p.cwnd == want, "cwnd = ssthresh = FlightSize/2 at the quench");
}

#[track_caller]
fn check_clean(net: &Net, bytes: u64) {
    check(net, net.s.bytes_received() == bytes, "all bytes delivered");
    check(net, net.c.is_closed() && net.s.is_closed(), "both ends Done");
    let st = net.c.stats();
    check(net, st.retransmits == 0 && st.timeouts == 0 && st.fast_retransmits == 0, "no loss response");
    check(net, st.ecn_reductions == 0, "a quench is not counted as an ECN reduction");
}

// ---------------------------------------------------------------- one quench
/// Segment 20 causes a quench: one halving when it arrives, no retransmission,
/// nothing sent at that instant, no slow start afterwards (the next ACK grows
/// cwnd by congestion avoidance, MSS²/cwnd).
fn one_quench(v: Recovery, delack: bool) {
    let net = Net::transfer(no_ecn(v, delack), 60_000, vec![quench(Target::Seq(seg(20)))]);
    check_clean(&net, 60_000);
    let q = quench_points(&net);
    check(&net, q.len() == 1, "one reduction");
    let p = q[0];
    check_halved(&net, &p);
    let sent = net.log.iter().find(|l| l.fate == Fate::Quenched).unwrap();
    check(&net, sent.seg.seq == seg(20), "the quenched segment was forwarded");
    check(&net, p.t == Instant(sent.t.as_nanos() + 10_000_000), "the quench arrives 10 ms after");
    check(&net, !net.data().any(|l| l.t == p.t), "the quench itself sends nothing");
    let next = net.cc_log.iter().find(|n| n.t > p.t).unwrap();
    check(&net, next.cwnd == p.cwnd + MSS * MSS / p.cwnd, "congestion avoidance, no slow start");
    let st = net.c.stats();
    check(&net, (st.quenches_received, st.quench_reductions) == (1, 1), "counters");
}
cases! { one_quench:
    test_reno_one_quench => Reno, false; test_reno_one_quench_delack => Reno, true;
    test_newreno_one_quench => NewReno, false; test_newreno_one_quench_delack => NewReno, true;
    test_sack_one_quench => Sack, false; test_sack_one_quench_delack => Sack, true;
    test_tahoe_one_quench => Tahoe, false; test_tahoe_one_quench_delack => Tahoe, true;
}

// ---------------------------------------------------------------- two quenches, one window
/// Segments 20 and 22 both cause quenches: the second arrives while the data
/// outstanding at the first is not yet acknowledged, so it is ignored (Floyd
/// 1994 §5: "doesn't respond to succeeding ECNs until all packets outstanding
/// at time t have been acked"); the state is that of one quench.
fn two_quenches_one_window(v: Recovery, delack: bool) {
    let one = Net::transfer(no_ecn(v, delack), 60_000, vec![quench(Target::Seq(seg(20)))]);
    let faults = vec![quench(Target::Seq(seg(20))), quench(Target::Seq(seg(22)))];
    let net = Net::transfer(no_ecn(v, delack), 60_000, faults);
    check_clean(&net, 60_000);
    let st = net.c.stats();
    check(&net, (st.quenches_received, st.quench_reductions) == (2, 1), "second quench ignored");
    let cc = |n: &Net| n.cc_log.iter().map(|p| (p.t, p.cwnd, p.ssthresh)).collect::<Vec<_>>();
    check(&net, cc(&net) == cc(&one), "same window history as one quench");
}
cases! { two_quenches_one_window:
    test_reno_two_quenches => Reno, false; test_reno_two_quenches_delack => Reno, true;
    test_newreno_two_quenches => NewReno, false; test_newreno_two_quenches_delack => NewReno, true;
    test_sack_two_quenches => Sack, false; test_sack_two_quenches_delack => Sack, true;
    test_tahoe_two_quenches => Tahoe, false; test_tahoe_two_quenches_delack => Tahoe, true;
}

// ---------------------------------------------------------------- a later window
/// Quenches from segments 20 and 150: the second comes after snd_una has passed
/// the first reduction's snd_max, so it halves again.
fn quench_next_window(v: Recovery, delack: bool) {
    let faults = vec![quench(Target::Seq(seg(20))), quench(Target::Seq(seg(150)))];
    let net = Net::transfer(no_ecn(v, delack), 200_000, faults);
    check_clean(&net, 200_000);
    let q: Vec<CcPoint> = net.cc_log.iter().filter(|p| p.ack.is_none()).copied().collect();
    check(&net, q.len() == 2, "two reductions");
    check(&net, q[1].una > q[0].high_sent, "the second after the first window was acknowledged");
    for p in &q {
        check_halved(&net, p);
    }
    let st = net.c.stats();
    check(&net, (st.quenches_received, st.quench_reductions) == (2, 2), "counters");
}
cases! { quench_next_window:
    test_reno_quench_next_window => Reno, false; test_reno_quench_next_window_delack => Reno, true;
    test_sack_quench_next_window => Sack, false; test_tahoe_quench_next_window => Tahoe, false;
}

// ---------------------------------------------------------------- with ECN negotiated
/// A quench reduces the window "for any reason" (RFC 3168 §6.1.2): with ECN
/// negotiated the next new data segment carries CWR, and no ECN reduction is counted.
#[test]
fn test_quench_with_ecn_sets_cwr() {
    let net = Net::transfer(config(Recovery::Reno, false), 60_000, vec![quench(Target::Seq(seg(20)))]);
    let p = quench_points(&net)[0];
    let cwr: Vec<_> = net.data().filter(|l| l.seg.flags.cwr()).collect();
    check(&net, cwr.len() == 1 && cwr[0].t > p.t && !cwr[0].seg.retransmit, "CWR on the next new segment");
    check(&net, net.c.stats().ecn_reductions == 0 && net.c.stats().quench_reductions == 1, "counters");
}

/// A quench before the handshake completes is counted and ignored.
#[test]
fn test_quench_before_established_is_ignored() {
    let mut c = ecnlab_tcp::Connection::new(no_ecn(Recovery::Reno, false), ecnlab_tcp::Role::Client);
    let before = (c.cwnd(), c.ssthresh());
    c.on_source_quench(Instant::ZERO);
    assert_eq!((c.cwnd(), c.ssthresh()), before);
    assert_eq!((c.stats().quenches_received, c.stats().quench_reductions), (1, 0));
}

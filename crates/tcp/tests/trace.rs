//! Deterministic packet-trace tests: the ns-2 ECN validation suite shape (no
//! mark, one mark, two marks in a window, mark then drop, drops, mark with a
//! one-segment window, mark then timeout, marked SYN-ACK with and without
//! ECN+), for every variant, with and without delayed ACKs.
//!
//! Common setting (harness::config): MSS 1000 B, IW 2 segments, ECN on,
//! rwnd 1 MB, min/initial RTO 1 s, 1 ms clock, 10 ms one-way delay, 10 Mbit/s
//! both ways, unlimited queue. Segment k starts at seq 1 + (k−1)·1000.
//!
//! Slow-start arithmetic used below (no losses before the event):
//! - without delayed ACKs every segment is ACKed and each ACK opens cwnd by one
//!   segment and releases two segments, so when the ACK of segment k arrives
//!   2k segments have been sent and FlightSize after it is k segments;
//! - with delayed ACKs (every second segment) cwnd is 2 + j segments after the
//!   ACK of segment 2j, so 3j + 2 segments have been sent by then; when the ACK
//!   of segment 2j arrives 3(j−1) + 2 = 3j − 1 are out and FlightSize after it
//!   is j − 1 segments.
//!
//! Reductions set ssthresh = max(FlightSize/2, 2·MSS) (RFC 5681 eq. 4), where
//! FlightSize is taken after the triggering ACK. Every test also checks that
//! formula against the trace itself (`high_sent − ack` at the reduction).

mod harness;

use ecnlab_tcp::{AppEvent, CaState, EcnMode, Recovery, State};
use ecnlab_wire::{Duration, Ecn, Instant};
use harness::*;

const INF: u32 = u32::MAX / 2;

/// Counters of the data sender that every test pins down.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    data: u64,
    retransmits: u64,
    fast_retransmits: u64,
    timeouts: u64,
    ecn_reductions: u64,
}

fn counts(c: &ecnlab_tcp::Connection) -> Counts {
    let s = c.stats();
    Counts {
        data: s.data_packets_sent,
        retransmits: s.retransmits,
        fast_retransmits: s.fast_retransmits,
        timeouts: s.timeouts,
        ecn_reductions: s.ecn_reductions,
    }
}

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

/// Properties every trace must have: complete in-order delivery, both ends
/// Done, Not-ECT on retransmissions / pure ACKs / SYNs, ECT(0) on new data.
#[track_caller]
fn check_common(net: &Net, bytes: u64) {
    let (sender, receiver) = if net.s.stats().data_packets_sent > 0 { (&net.s, &net.c) } else { (&net.c, &net.s) };
    check(net, receiver.bytes_received() == bytes, "all bytes delivered");
    check(net, sender.bytes_acked() == bytes, "all bytes acknowledged");
    check(net, net.c.state() == State::Done && net.s.state() == State::Done, "both Done");
    check(net, net.c_events.contains(&AppEvent::Closed) && net.s_events.contains(&AppEvent::Closed), "Closed events");
    for l in &net.log {
        let s = &l.seg;
        let sent_ecn = if l.fate == Fate::Marked { Ecn::Ect0 } else { s.ecn };
        let pure = s.payload_len == 0;
        if s.retransmit || (pure && !s.flags.syn()) {
            check(net, sent_ecn == Ecn::NotEct, &format!("Not-ECT retransmission / pure ACK: {l}"));
        }
        if !s.retransmit && s.payload_len > 0 {
            check(net, sent_ecn == Ecn::Ect0, &format!("new data is ECT(0): {l}"));
        }
    }
}

/// The first congestion-state point in state `ca`.
#[track_caller]
fn first(net: &Net, ca: CaState) -> CcPoint {
    match net.cc_log.iter().find(|p| p.ca == ca) {
        Some(p) => *p,
        None => panic!("never in {ca:?}\n{}", net.dump()),
    }
}

/// RFC 5681 eq. (4) from the trace: FlightSize after the triggering ACK.
fn half_flight(p: &CcPoint) -> u32 {
    let flight = p.high_sent - p.ack.expect("reduction on an ACK");
    ((flight / 2) as u32).max(2 * MSS)
}

/// cwnd on entering Recovery with ssthresh `ss` (RFC 5681 §3.2 / RFC 6675 §5 / Tahoe).
fn recovery_cwnd(v: Recovery, ss: u32) -> u32 {
    match v {
        Recovery::Reno | Recovery::NewReno => ss + 3 * MSS,
        Recovery::Sack => ss,
        Recovery::Tahoe => MSS,
    }
}

macro_rules! cases {
    ($scenario:ident: $($name:ident => $v:ident, $delack:expr;)*) => {
        $( #[test] fn $name() { $scenario(Recovery::$v, $delack) } )*
    };
}

// ---------------------------------------------------------------- no mark
/// 60 segments, nothing lost or marked: slow start all the way (ssthresh stays
/// "infinite"). cwnd grows one MSS per ACK of new data: 60 data ACKs plus the
/// ACK of the FIN without delayed ACKs, 30 pair ACKs plus the FIN's with them.
fn no_mark(v: Recovery, delack: bool) {
    let net = Net::transfer(config(v, delack), 60_000, vec![]);
    check_common(&net, 60_000);
    let acks = if delack { 31 } else { 61 };
    check(&net, net.c.cwnd() == 2 * MSS + acks * MSS, "final cwnd");
    check(&net, net.c.ssthresh() == INF, "ssthresh untouched");
    check(&net, net.cc_log.iter().all(|p| p.ca == CaState::Open), "always Open");
    let want = Counts { data: 60, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 0 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
    assert_eq!(net.s.stats().ece_sent + net.s.stats().ce_received, 0);
}
cases! { no_mark:
    test_reno_no_mark => Reno, false; test_reno_no_mark_delack => Reno, true;
    test_newreno_no_mark => NewReno, false; test_newreno_no_mark_delack => NewReno, true;
    test_sack_no_mark => Sack, false; test_sack_no_mark_delack => Sack, true;
    test_tahoe_no_mark => Tahoe, false; test_tahoe_no_mark_delack => Tahoe, true;
}

// ---------------------------------------------------------------- one mark
/// Segment 20 is CE-marked. Its ACK carries ECE (sent at once: the CE starts
/// the echo). Without delayed ACKs FlightSize is 20 segments → ssthresh = cwnd
/// = 10000; 40 segments are out, so the CWR rides on segment 41 and ACKs of
/// segments 20..=40 carry ECE (21). With delayed ACKs (j = 10) FlightSize is 9
/// → 4500; 29 are out, CWR on segment 30, ECE on the ACKs of 20, 22, 24, 26,
/// 28 (5); the ACK covering segment 30 has none. No retransmission.
fn marks(v: Recovery, delack: bool, extra: &[u64]) {
    let mut faults = vec![mark(Target::Seq(seg(20)))];
    faults.extend(extra.iter().map(|&k| mark(Target::Seq(seg(k)))));
    let net = Net::transfer(config(v, delack), 60_000, faults);
    check_common(&net, 60_000);
    let p = first(&net, CaState::Cwr);
    let ss = if delack { 4500 } else { 10_000 };
    check(&net, p.ssthresh == ss && p.cwnd == ss, "cwnd = ssthresh = FlightSize/2");
    check(&net, p.ssthresh == half_flight(&p), "RFC 5681 eq. 4 from the trace");
    // The next ACK grows cwnd by congestion avoidance (cwnd = ssthresh): MSS²/cwnd.
    let next = net.cc_log.iter().find(|q| q.t > p.t).unwrap();
    check(&net, next.cwnd == ss + MSS * MSS / ss, "congestion avoidance after the reduction");
    let want = Counts { data: 60, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
    let cwr: Vec<_> = net.data().filter(|l| l.seg.flags.cwr()).collect();
    let cwr_seg = if delack { 30 } else { 41 };
    check(&net, cwr.len() == 1 && cwr[0].seg.seq == seg(cwr_seg), "CWR on the first new segment");
    check(&net, net.c.stats().cwr_sent == 1, "cwr_sent");
    let ece = if delack { 5 } else { 21 };
    check(&net, net.s.stats().ece_sent == ece, "ECE until CWR");
    check(&net, net.s.stats().ce_received == 1 + extra.len() as u64, "CE count");
    for a in net.acks() {
        let covered = a.seg.ack > seg(cwr_seg);
        check(&net, !(covered && a.seg.flags.ece()), &format!("no ECE after CWR: {a}"));
    }
}
fn one_mark(v: Recovery, delack: bool) {
    marks(v, delack, &[]);
}
cases! { one_mark:
    test_reno_one_mark => Reno, false; test_reno_one_mark_delack => Reno, true;
    test_newreno_one_mark => NewReno, false; test_newreno_one_mark_delack => NewReno, true;
    test_sack_one_mark => Sack, false; test_sack_one_mark_delack => Sack, true;
    test_tahoe_one_mark => Tahoe, false; test_tahoe_one_mark_delack => Tahoe, true;
}

// ---------------------------------------------------------------- two marks
/// Segments 20 and 22 marked: both in the window outstanding at the first
/// reduction, so one reduction (RFC 3168 §6.1.2), same numbers as one mark;
/// the second CE arrives while ECE is already echoed (no extra ACK).
fn two_marks(v: Recovery, delack: bool) {
    marks(v, delack, &[22]);
}
cases! { two_marks:
    test_reno_two_marks => Reno, false; test_reno_two_marks_delack => Reno, true;
    test_newreno_two_marks => NewReno, false; test_newreno_two_marks_delack => NewReno, true;
    test_sack_two_marks => Sack, false; test_sack_two_marks_delack => Sack, true;
    test_tahoe_two_marks => Tahoe, false; test_tahoe_two_marks_delack => Tahoe, true;
}

// ---------------------------------------------------------------- mark then drop
/// Segment 20 marked, segment 22 (same window) dropped. The ECN reduction is
/// as in one mark; three dupACKs then trigger a fast retransmit of 22 that
/// does not reduce again (RFC 3168 §6.1.2): ssthresh stays, cwnd becomes
/// ssthresh + 3 MSS (Reno/NewReno), ssthresh (SACK) or 1 MSS (Tahoe). All
/// segments after 22 were received, so one retransmission repairs it (for
/// Tahoe too: the cumulative ACK jumps over the go-back-N range).
fn mark_then_drop(v: Recovery, delack: bool) {
    let faults = vec![mark(Target::Seq(seg(20))), drop(Target::Seq(seg(22)))];
    let net = Net::transfer(config(v, delack), 60_000, faults);
    check_common(&net, 60_000);
    let ss = if delack { 4500 } else { 10_000 };
    let c = first(&net, CaState::Cwr);
    check(&net, c.ssthresh == ss && c.cwnd == ss, "ECN reduction");
    let r = first(&net, CaState::Recovery);
    check(&net, r.ssthresh == ss, "no second reduction");
    check(&net, r.cwnd == recovery_cwnd(v, ss), "recovery cwnd");
    let want = Counts { data: 61, retransmits: 1, fast_retransmits: 1, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
    let rtx: Vec<_> = net.data().filter(|l| l.seg.retransmit).collect();
    check(&net, rtx[0].seg.seq == seg(22) && !rtx[0].seg.flags.cwr(), "retransmit 22, Not-ECT, no CWR");
}
cases! { mark_then_drop:
    test_reno_mark_then_drop => Reno, false; test_reno_mark_then_drop_delack => Reno, true;
    test_newreno_mark_then_drop => NewReno, false; test_newreno_mark_then_drop_delack => NewReno, true;
    test_sack_mark_then_drop => Sack, false; test_sack_mark_then_drop_delack => Sack, true;
    test_tahoe_mark_then_drop => Tahoe, false; test_tahoe_mark_then_drop_delack => Tahoe, true;
}

// ---------------------------------------------------------------- one drop
/// Segment 20 dropped. Without delayed ACKs the 3rd dupACK (from segment 23)
/// arrives with 40 segments out and snd_una at 20: FlightSize 21 → ssthresh
/// 10500. With delayed ACKs the formula is checked against the trace. One
/// fast retransmit repairs it for every variant.
fn one_drop(v: Recovery, delack: bool) {
    let net = Net::transfer(config(v, delack), 60_000, vec![drop(Target::Seq(seg(20)))]);
    check_common(&net, 60_000);
    let r = first(&net, CaState::Recovery);
    check(&net, r.ssthresh == half_flight(&r), "RFC 5681 eq. 4 from the trace");
    if !delack {
        check(&net, r.ssthresh == 10_500, "ssthresh = 21 segments / 2");
    }
    check(&net, r.cwnd == recovery_cwnd(v, r.ssthresh), "recovery cwnd");
    let want = Counts { data: 61, retransmits: 1, fast_retransmits: 1, timeouts: 0, ecn_reductions: 0 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
    check(&net, net.c.stats().cwr_sent == 1, "CWR after a loss reduction (RFC 3168 §6.1.2)");
}
cases! { one_drop:
    test_reno_one_drop => Reno, false; test_reno_one_drop_delack => Reno, true;
    test_newreno_one_drop => NewReno, false; test_newreno_one_drop_delack => NewReno, true;
    test_sack_one_drop => Sack, false; test_sack_one_drop_delack => Sack, true;
    test_tahoe_one_drop => Tahoe, false; test_tahoe_one_drop_delack => Tahoe, true;
}

// ---------------------------------------------------------------- two drops
/// Segments 20 and 22 dropped (one window). Entry as in one drop (the 3rd
/// dupACK now comes from segment 24; still 40 out without delayed ACKs →
/// 10500; with delayed ACKs 31 out, snd_una 20 → 12 segments → 6000).
/// - Reno leaves recovery on the partial ACK and needs a second fast
///   retransmit with a second reduction: during the first recovery cwnd
///   inflated to 10500 + d·1000 for dupACK d and released segments 41..48
///   (d = 12..19; no delack), so FlightSize is 48 − 21 = 27 → 13500.
/// - NewReno retransmits 22 on the partial ACK and stays in recovery until
///   the full ACK: one fast retransmit, cwnd = ssthresh at exit.
/// - SACK retransmits 22 as soon as IsLost(22) holds, before the partial ACK
///   arrives: one fast retransmit.
/// - Tahoe: slow start from one segment, go-back-N retransmits 20, 22 and 23.
fn two_drops(v: Recovery, delack: bool) {
    let faults = vec![drop(Target::Seq(seg(20))), drop(Target::Seq(seg(22)))];
    let net = Net::transfer(config(v, delack), 60_000, faults);
    check_common(&net, 60_000);
    let ss = if delack { 6000 } else { 10_500 };
    let r = first(&net, CaState::Recovery);
    check(&net, r.ssthresh == ss && r.ssthresh == half_flight(&r), "first reduction");
    check(&net, r.cwnd == recovery_cwnd(v, ss), "recovery cwnd");
    let (rtx, fr) = match v {
        Recovery::Reno => (2, 2),
        Recovery::NewReno | Recovery::Sack => (2, 1),
        Recovery::Tahoe => (3, 1),
    };
    let want = Counts { data: 60 + rtx, retransmits: rtx, fast_retransmits: fr, timeouts: 0, ecn_reductions: 0 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
    let rtx_seqs: Vec<u64> = net.data().filter(|l| l.seg.retransmit).map(|l| l.seg.seq).collect();
    match v {
        Recovery::Tahoe => check(&net, rtx_seqs == [seg(20), seg(22), seg(23)], "go-back-N"),
        _ => check(&net, rtx_seqs == [seg(20), seg(22)], "holes retransmitted"),
    }
    match v {
        Recovery::Reno => {
            // Second episode: a fresh reduction from the trace's FlightSize.
            let second = net.cc_log.iter().filter(|p| p.ca == CaState::Recovery).find(|p| p.ssthresh != ss);
            let second = second.copied().unwrap_or_else(|| panic!("no second episode\n{}", net.dump()));
            check(&net, second.ssthresh == half_flight(&second), "second reduction");
            check(&net, delack || second.ssthresh == 13_500, "27 segments / 2");
        }
        Recovery::NewReno | Recovery::Sack => {
            // One episode: Recovery until the full ACK, then cwnd = ssthresh.
            let idx = net.cc_log.iter().position(|p| p.ca == CaState::Recovery).unwrap();
            let exit = net.cc_log[idx..].iter().find(|p| p.ca != CaState::Recovery).unwrap();
            check(&net, exit.cwnd == ss && exit.ssthresh == ss && exit.ca == CaState::Open, "exit");
        }
        Recovery::Tahoe => {}
    }
    if v == Recovery::Sack {
        // The hole at 22 is retransmitted before the ACK of the first retransmission arrives.
        let rtx22 = net.data().find(|l| l.seg.retransmit && l.seg.seq == seg(22)).unwrap().t;
        let partial = net.acks().find(|a| a.seg.ack > seg(20)).unwrap().t;
        check(&net, rtx22 < partial + Duration::from_millis(10), "SACK repairs without waiting");
    }
}
cases! { two_drops:
    test_reno_two_drops => Reno, false; test_reno_two_drops_delack => Reno, true;
    test_newreno_two_drops => NewReno, false; test_newreno_two_drops_delack => NewReno, true;
    test_sack_two_drops => Sack, false; test_sack_two_drops_delack => Sack, true;
    test_tahoe_two_drops => Tahoe, false; test_tahoe_two_drops_delack => Tahoe, true;
}

// ---------------------------------------------------------------- mark with cwnd of one
/// IW = 1 segment; segment 1 is marked. The ECE arrives with cwnd = 1 MSS:
/// RFC 3168 §6.1.2 — ssthresh = max(0/2, 2·MSS) = 2000, cwnd stays 1 MSS,
/// the retransmission timer is reset (RTO = 1 s: the handshake sample of
/// ~20 ms gives far less than min_rto) and no new segment leaves until it
/// expires on the next 1 ms tick. That expiry is not a timeout.
fn mark_cwnd_one(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.init_cwnd_segments = 1;
    let net = Net::transfer(cfg, 10_000, vec![mark(Target::Seq(seg(1)))]);
    check_common(&net, 10_000);
    let p = first(&net, CaState::Cwr);
    check(&net, p.cwnd == MSS && p.ssthresh == 2 * MSS, "cwnd 1, ssthresh 2");
    let second = net.data().nth(1).unwrap();
    let expiry = Instant((p.t.as_nanos() + 1_000_000_000).div_ceil(1_000_000) * 1_000_000);
    check(&net, second.t == expiry, "second segment waits for the timer");
    check(&net, second.seg.seq == seg(2) && second.seg.flags.cwr(), "then one new segment with CWR");
    let want = Counts { data: 10, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
}
cases! { mark_cwnd_one:
    test_reno_mark_cwnd_one => Reno, false; test_reno_mark_cwnd_one_delack => Reno, true;
    test_newreno_mark_cwnd_one => NewReno, false; test_newreno_mark_cwnd_one_delack => NewReno, true;
    test_sack_mark_cwnd_one => Sack, false; test_sack_mark_cwnd_one_delack => Sack, true;
    test_tahoe_mark_cwnd_one => Tahoe, false; test_tahoe_mark_cwnd_one_delack => Tahoe, true;
}

// ---------------------------------------------------------------- mark with a tiny window
/// The receiver window caps the flight at 3 segments. Segment 10 is marked:
/// halving a flight of fewer than four segments leaves cwnd at one segment
/// (RFC 3168 §6.1.2 / Floyd 1994 halve cwnd; ns-2 does the same), while ssthresh
/// keeps RFC 5681's floor of two. No retransmission, no timeout; the flow then
/// slow-starts back to ssthresh.
fn mark_small_window(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.rwnd_bytes = 3 * MSS;
    let net = Net::transfer(cfg, 30_000, vec![mark(Target::Seq(seg(10)))]);
    check_common(&net, 30_000);
    let p = first(&net, CaState::Cwr);
    check(&net, p.high_sent - p.ack.unwrap() < 4 * MSS as u64, "fewer than four segments in flight");
    check(&net, p.cwnd == MSS && p.ssthresh == 2 * MSS, "cwnd 1 segment, ssthresh 2");
    let next = net.cc_log.iter().find(|q| q.t > p.t).unwrap();
    check(&net, next.cwnd == 2 * MSS, "slow start back to ssthresh");
    let want = Counts { data: 30, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
}
cases! { mark_small_window:
    test_reno_mark_small_window => Reno, false; test_reno_mark_small_window_delack => Reno, true;
    test_newreno_mark_small_window => NewReno, false; test_newreno_mark_small_window_delack => NewReno, true;
    test_sack_mark_small_window => Sack, false; test_sack_mark_small_window_delack => Sack, true;
    test_tahoe_mark_small_window => Tahoe, false; test_tahoe_mark_small_window_delack => Tahoe, true;
}

// ---------------------------------------------------------------- ns-3 / Linux ECN window
/// `ecn_min_cwnd_segments = 2` (ns-3, Linux): the mark of `mark_small_window`
/// leaves cwnd = ssthresh = 2 segments instead of one, and the mark of
/// `mark_cwnd_one` (IW 1) does not hold the sender: cwnd = ssthresh = 2
/// segments, the second and third segments leave at once, the second with CWR.
fn mark_min_two(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.ecn_min_cwnd_segments = 2;
    cfg.rwnd_bytes = 3 * MSS;
    let net = Net::transfer(cfg.clone(), 30_000, vec![mark(Target::Seq(seg(10)))]);
    check_common(&net, 30_000);
    let p = first(&net, CaState::Cwr);
    check(&net, p.high_sent - p.ack.unwrap() < 4 * MSS as u64, "fewer than four segments in flight");
    check(&net, p.cwnd == 2 * MSS && p.ssthresh == 2 * MSS, "cwnd = ssthresh = 2 segments");
    let want = Counts { data: 30, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());

    cfg.rwnd_bytes = 1 << 20;
    cfg.init_cwnd_segments = 1;
    let net = Net::transfer(cfg, 10_000, vec![mark(Target::Seq(seg(1)))]);
    check_common(&net, 10_000);
    let p = first(&net, CaState::Cwr);
    check(&net, p.cwnd == 2 * MSS && p.ssthresh == 2 * MSS, "cwnd 2, ssthresh 2");
    let d: Vec<_> = net.data().take(3).collect();
    check(&net, d[1].seg.seq == seg(2) && d[1].seg.flags.cwr() && d[1].t == p.t, "segment 2 at once, with CWR");
    check(&net, d[2].seg.seq == seg(3) && d[2].t == p.t, "and segment 3 beside it");
    let want = Counts { data: 10, retransmits: 0, fast_retransmits: 0, timeouts: 0, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
}
cases! { mark_min_two:
    test_reno_mark_min_two => Reno, false; test_reno_mark_min_two_delack => Reno, true;
    test_newreno_mark_min_two => NewReno, false; test_newreno_mark_min_two_delack => NewReno, true;
    test_sack_mark_min_two => Sack, false; test_sack_mark_min_two_delack => Sack, true;
    test_tahoe_mark_min_two => Tahoe, false; test_tahoe_mark_min_two_delack => Tahoe, true;
}

// ---------------------------------------------------------------- mark then timeout
/// Segment 20 marked; the last two data segments are dropped, so only the FIN
/// produces a dupACK and the RTO fires. Without delayed ACKs: N = 40, all 40
/// out at the reduction (ssthresh 10000), drops 39 and 40. With delayed ACKs:
/// N = 29, 29 out at the reduction (ssthresh 4500), drops 28 and 29. The
/// timeout falls in the window already reduced by ECN: cwnd = 1 MSS, ssthresh
/// kept (RFC 3168 §6.1.2; FlightSize/2 would give 2000). Go-back-N resends the
/// two segments and the FIN. The timer expires on a 1 ms tick. The ECE that
/// continues (no new data carries a CWR) triggers no second reduction.
fn mark_then_timeout(v: Recovery, delack: bool) {
    let (n, ss) = if delack { (29, 4500) } else { (40, 10_000) };
    let faults = vec![mark(Target::Seq(seg(20))), drop(Target::Seq(seg(n - 1))), drop(Target::Seq(seg(n)))];
    let net = Net::transfer(config(v, delack), n * 1000, faults);
    check_common(&net, n * 1000);
    let c = first(&net, CaState::Cwr);
    check(&net, c.ssthresh == ss && c.cwnd == ss, "ECN reduction");
    let l = first(&net, CaState::Loss);
    check(&net, l.cwnd == MSS && l.ssthresh == ss && l.ack.is_none(), "timeout keeps ssthresh");
    check(
        &net,
        Duration(l.t.as_nanos()).round_up_to(Duration::from_millis(1)).as_nanos() == l.t.as_nanos(),
        "expiry on a tick",
    );
    let want = Counts { data: n + 2, retransmits: 3, fast_retransmits: 0, timeouts: 1, ecn_reductions: 1 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
}
cases! { mark_then_timeout:
    test_reno_mark_then_timeout => Reno, false; test_reno_mark_then_timeout_delack => Reno, true;
    test_newreno_mark_then_timeout => NewReno, false; test_newreno_mark_then_timeout_delack => NewReno, true;
    test_sack_mark_then_timeout => Sack, false; test_sack_mark_then_timeout_delack => Sack, true;
    test_tahoe_mark_then_timeout => Tahoe, false; test_tahoe_mark_then_timeout_delack => Tahoe, true;
}

// ---------------------------------------------------------------- marked SYN-ACK, ECN+
/// RFC 5562: the Server (data sender here) sends an ECT(0) SYN-ACK, which is
/// marked. The Client's handshake ACK (a pure ACK: it has no data) carries
/// ECE; the Server starts with cwnd = 1 MSS instead of 2 and sends CWR on its
/// first data segment, then waits for the ACK before the second.
fn synack_mark_ecn_plus(v: Recovery, delack: bool) {
    let mut cfg = config(v, delack);
    cfg.ecn = EcnMode::EcnPlus;
    let net = Net::response(cfg, 10_000, vec![mark(Target::SynAck(1))]);
    check_common(&net, 10_000);
    let synack = net.acks().next().unwrap();
    check(&net, synack.fate == Fate::Marked, "ECT SYN-ACK marked");
    let hs_ack = net.log.iter().find(|l| l.dir == Dir::C2S && !l.seg.flags.syn()).unwrap();
    check(&net, hs_ack.seg.payload_len == 0 && hs_ack.seg.flags.ece(), "ECE on the handshake ACK");
    check(&net, net.c.stats().ece_sent == 1 && net.c.stats().ce_received == 1, "client echo");
    let data: Vec<_> = net.acks().filter(|l| l.seg.payload_len > 0).collect();
    check(&net, data[0].cwnd == MSS && data[0].seg.flags.cwr(), "cwnd 1 MSS, CWR");
    let first_ack = net.log.iter().position(|l| l.dir == Dir::C2S && l.seg.ack > 1).unwrap();
    let second_data = net.log.iter().position(|l| l.dir == Dir::S2C && l.seg.seq == seg(2)).unwrap();
    check(&net, second_data > first_ack, "one segment before the first ACK");
    let s = net.s.stats();
    check(&net, s.ecn_reductions == 1 && s.syn_retransmits == 0 && s.timeouts == 0, "server counters");
    check(&net, s.data_packets_sent == 10 && s.retransmits == 0, "no loss");
}
cases! { synack_mark_ecn_plus:
    test_reno_synack_mark_ecn_plus => Reno, false; test_reno_synack_mark_ecn_plus_delack => Reno, true;
    test_newreno_synack_mark_ecn_plus => NewReno, false; test_newreno_synack_mark_ecn_plus_delack => NewReno, true;
    test_sack_synack_mark_ecn_plus => Sack, false; test_sack_synack_mark_ecn_plus_delack => Sack, true;
    test_tahoe_synack_mark_ecn_plus => Tahoe, false; test_tahoe_synack_mark_ecn_plus_delack => Tahoe, true;
}

// ---------------------------------------------------------------- marked SYN-ACK, no ECN+
/// Without ECN+ the SYN-ACK is Not-ECT, so the "mark" drops it. The Client's
/// SYN timer fires at 1.000 s (SYN resent; it reaches the Server in
/// SYN-RECEIVED and is ignored); the Server's fires at 0.010035 + 1 s rounded
/// up to the 1 ms tick = 1.011 s and resends the SYN-ACK (Not-ECT). The
/// connection then completes normally; ECN is still negotiated.
fn synack_mark_no_ecn_plus(v: Recovery, delack: bool) {
    let net = Net::transfer(config(v, delack), 10_000, vec![mark(Target::SynAck(1))]);
    check_common(&net, 10_000);
    let synacks: Vec<_> = net.acks().filter(|l| l.seg.flags.syn()).collect();
    check(&net, synacks.len() == 2 && synacks[0].fate == Fate::Dropped, "first SYN-ACK dropped");
    check(&net, synacks[1].t == Instant(1_011_000_000) && synacks[1].seg.retransmit, "resent at 1.011 s");
    check(&net, synacks.iter().all(|l| l.seg.ecn == Ecn::NotEct), "Not-ECT SYN-ACKs");
    for c in [&net.c, &net.s] {
        let s = c.stats();
        check(&net, s.timeouts == 1 && s.syn_retransmits == 1 && s.ecn_reductions == 0, "handshake counters");
    }
    check(&net, net.c.ecn_negotiated() && net.s.ecn_negotiated(), "ECN negotiated");
    let want = Counts { data: 10, retransmits: 0, fast_retransmits: 0, timeouts: 1, ecn_reductions: 0 };
    assert_eq!(counts(&net.c), want, "{}", net.dump());
}
cases! { synack_mark_no_ecn_plus:
    test_reno_synack_mark_no_ecn_plus => Reno, false; test_reno_synack_mark_no_ecn_plus_delack => Reno, true;
    test_newreno_synack_mark_no_ecn_plus => NewReno, false; test_newreno_synack_mark_no_ecn_plus_delack => NewReno, true;
    test_sack_synack_mark_no_ecn_plus => Sack, false; test_sack_synack_mark_no_ecn_plus_delack => Sack, true;
    test_tahoe_synack_mark_no_ecn_plus => Tahoe, false; test_tahoe_synack_mark_no_ecn_plus_delack => Tahoe, true;
}

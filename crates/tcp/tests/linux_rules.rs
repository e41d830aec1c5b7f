//! Linux's rules where it departs from the RFCs (the linux personality's
//! `ssthresh_basis = cwnd`, `sack_after_rto`, `rto_keeps_recovery_ssthresh`, `prr`, `rack`,
//! `dupacks_as_sacks`, `fin_with_data`, `ecn_quickack`), each pinned by a packet trace against the RFC
//! behaviour it replaces, with and without delayed ACKs. Setting as in `trace.rs`
//! (harness::config).

mod harness;

use ecnlab_tcp::{
    CaState, CcKind, DupAckAccounting, EcnQuickAck, FinPlacement, GrowthArith, IdleRestart, LossMarking, Recovery,
    RtoArith, RtoInRecovery, RtoScoreboard, SackGuard, SsthreshBasis, TcpConfig, WindowReduction,
};
use ecnlab_wire::{Duration, Instant};
use harness::*;

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

fn linux(mut cfg: TcpConfig) -> TcpConfig {
    cfg.ssthresh_basis = SsthreshBasis::Cwnd;
    cfg.sack_after_rto = RtoScoreboard::Kept;
    cfg.rto_keeps_recovery_ssthresh = RtoInRecovery::Keep;
    cfg.prr = WindowReduction::Prr;
    cfg.rack = LossMarking::Rack;
    cfg.dupacks_as_sacks = DupAckAccounting::RenoSacks;
    cfg.fin_with_data = FinPlacement::WithLastData;
    cfg
}

/// The first point in Recovery and the point just before it.
fn recovery_entry(net: &Net) -> (CcPoint, CcPoint) {
    let i = net.cc_log.iter().position(|p| p.ca == CaState::Recovery).expect("a fast retransmit");
    (net.cc_log[i - 1], net.cc_log[i])
}

// ---------------------------------------------------------------- ssthresh basis
/// RFC 5681 eq. (4): "ssthresh = max (FlightSize / 2, 2*SMSS)"; Linux's
/// `tcp_reno_ssthresh` returns `max(tcp_snd_cwnd(tp) >> 1U, 2U)`. The two part
/// when the receiver's window, not cwnd, limits what is in flight: rwnd of 8
/// segments, cwnd grown well beyond it, segment 40 dropped.
fn ssthresh_basis(delack: bool) {
    let mut cfg = config(Recovery::Sack, delack);
    cfg.rwnd_bytes = 8 * MSS;
    let faults = vec![drop(Target::Seq(seg(40)))];
    let rfc = Net::transfer(cfg.clone(), 80_000, faults.clone());
    let (_, at) = recovery_entry(&rfc);
    check(&rfc, at.ssthresh == 4 * MSS, "RFC 5681: half of FlightSize (8 segments)");
    let lx = Net::transfer(linux(cfg), 80_000, faults);
    let (before, at) = recovery_entry(&lx);
    check(&lx, before.cwnd > 8 * MSS, "cwnd grew beyond the receiver's window");
    check(&lx, at.ssthresh == before.cwnd / 2, "Linux: half of cwnd");
    check(&lx, lx.s.bytes_received() == 80_000, "everything delivered");
}

#[test]
fn test_ssthresh_basis() {
    ssthresh_basis(false)
}

#[test]
fn test_ssthresh_basis_delack() {
    ssthresh_basis(true)
}

// ---------------------------------------------------------------- timeout in SACK recovery
/// Holes at segments 20, 22, ..., 28 start a SACK recovery; every
/// retransmission of that recovery is dropped too, so the timer expires
/// during it with segments 21, 23, ..., 27 SACKed.
fn timeout_in_recovery(cfg: TcpConfig) -> Net {
    let holes = [20, 22, 24, 26, 28];
    let mut faults: Vec<_> = holes.iter().map(|&k| drop(Target::Seq(seg(k)))).collect();
    let probe = Net::transfer(cfg.clone(), 60_000, faults.clone());
    let resends = probe.data().enumerate().filter(|(_, l)| l.seg.retransmit).map(|(i, _)| i as u32 + 1);
    faults.extend(resends.map(|n| drop(Target::DataTx(n))));
    Net::transfer(cfg, 60_000, faults)
}

/// Data segments (by sequence number) retransmitted after the timeout.
fn resent_after_timeout(net: &Net) -> Vec<u64> {
    let rto = net.cc_log.iter().find(|p| p.ca == CaState::Loss).expect("a timeout").t;
    net.data().filter(|l| l.t >= rto && l.seg.retransmit).map(|l| l.seg.seq).collect()
}

/// RFC 2018 §8: "after a retransmit timeout the data sender SHOULD turn off
/// all of the SACKed bits": the sender goes back N and resends segments the
/// receiver holds. RFC 6675 §5.1: Update() "SHOULD continue to be used
/// appropriately upon receipt of ACKs. This will allow the recovery period
/// after an RTO to benefit from all available information provided by the
/// receiver, even if SACK information was expunged due to the RTO"; Linux
/// (`tcp_timeout_mark_lost`) keeps the SACKed marks and resends only the
/// holes. After the timeout here, the RFC 2018 sender resends SACKed
/// segments; the Linux one resends exactly the holes still open.
fn sack_after_rto(delack: bool) {
    let cfg = config(Recovery::Sack, delack);
    let rfc = timeout_in_recovery(cfg.clone());
    let resent = resent_after_timeout(&rfc);
    check(&rfc, resent.contains(&seg(23)), "RFC 2018 §8: SACKed segment 23 is sent again");
    let mut cfg = linux(cfg);
    cfg.rack = LossMarking::Rfc6675; // RACK would resend the lost retransmissions before the timer
    let lx = timeout_in_recovery(cfg);
    check(&lx, lx.c.stats().timeouts == 1, "one timeout");
    let resent = resent_after_timeout(&lx);
    let holes: Vec<u64> = [20, 22, 24, 26, 28].iter().map(|&k| seg(k)).collect();
    check(&lx, !resent.is_empty() && resent.iter().all(|s| holes.contains(s)), "only holes are resent");
    check(&lx, lx.c.stats().retransmits < rfc.c.stats().retransmits, "fewer retransmissions than go-back-N");
    check(&lx, lx.s.bytes_received() == 60_000, "everything delivered");
}

#[test]
fn test_sack_after_rto() {
    sack_after_rto(false)
}

#[test]
fn test_sack_after_rto_delack() {
    sack_after_rto(true)
}

/// RFC 5681 §3.1 sets ssthresh by eq. (4) "when a TCP sender detects segment
/// loss using the retransmission timer and the given segment has not yet been
/// resent"; Linux's `tcp_enter_loss` recomputes it only from the Open or
/// Disorder state ("icsk_ca_state <= TCP_CA_Disorder"), so a timeout inside
/// a fast recovery keeps the recovery's ssthresh.
fn rto_keeps_recovery_ssthresh(delack: bool) {
    let mut cfg = config(Recovery::Sack, delack);
    cfg.rto_keeps_recovery_ssthresh = RtoInRecovery::Keep;
    let net = timeout_in_recovery(cfg);
    let (_, fr) = recovery_entry(&net);
    let rto = net.cc_log.iter().find(|p| p.ca == CaState::Loss).expect("a timeout");
    check(&net, rto.ssthresh == fr.ssthresh && rto.cwnd == MSS, "ssthresh kept, cwnd one segment");
    let rfc = timeout_in_recovery(config(Recovery::Sack, delack));
    let rto = rfc.cc_log.iter().find(|p| p.ca == CaState::Loss).expect("a timeout");
    let (_, fr) = recovery_entry(&rfc);
    check(&rfc, rto.ssthresh != fr.ssthresh, "RFC 5681: ssthresh set again from FlightSize");
}

#[test]
fn test_rto_keeps_recovery_ssthresh() {
    rto_keeps_recovery_ssthresh(false)
}

#[test]
fn test_rto_keeps_recovery_ssthresh_delack() {
    rto_keeps_recovery_ssthresh(true)
}

// ---------------------------------------------------------------- PRR (RFC 6937)
/// Data segments sent in `[from, to)` by the Client.
fn sent_between(net: &Net, from: ecnlab_wire::Instant, to: ecnlab_wire::Instant) -> usize {
    net.data().filter(|l| l.t >= from && l.t < to).count()
}

/// RFC 6937 §3: "PRR ... spreads out the window reduction over the
/// recovery period": while pipe exceeds ssthresh, sndcnt =
/// CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out, about one segment per
/// two delivered; at the end "cwnd = ssthresh". Segment 40 is dropped in a
/// long transfer. Without PRR (RFC 6675 §5) cwnd drops to ssthresh at once and
/// the sender goes silent until pipe falls below it; with PRR it keeps sending
/// through the recovery, and leaves it with cwnd = ssthresh, which Linux grows
/// on that same ACK: `tcp_fastretrans_alert` leaves Recovery
/// (`tcp_try_undo_recovery`: CA_Open) and calls `tcp_end_cwnd_reduction`
/// (cwnd = ssthresh) before `tcp_cong_control` runs `tcp_cong_avoid` on the
/// segments the ACK delivered: in congestion avoidance, by less than a segment.
fn prr_in_sack_recovery(delack: bool) {
    let mut cfg = config(Recovery::Sack, delack);
    cfg.prr = WindowReduction::Prr;
    let faults = vec![drop(Target::Seq(seg(40)))];
    let net = Net::transfer(cfg.clone(), 200_000, faults.clone());
    let (before, at) = recovery_entry(&net);
    let exit = net.cc_log.iter().find(|p| p.t > at.t && p.ca == CaState::Open).expect("recovery ends");
    let grown = exit.cwnd > at.ssthresh && exit.cwnd < at.ssthresh + MSS;
    check(&net, grown, "the ACK ending recovery: cwnd = ssthresh, then avoidance's growth on that ACK");
    let during = sent_between(&net, at.t, exit.t);
    let window = (before.cwnd / MSS) as usize;
    let half = (at.ssthresh / MSS) as usize;
    // About one segment per two delivered over the RTT of recovery: ~half a window, the retransmission included.
    check(&net, during.abs_diff(half) <= 2, &format!("{during} sent during recovery, ~{half} expected"));
    let reductions = net.cc_log.iter().filter(|p| p.t > at.t && p.t < exit.t && p.cwnd < at.ssthresh).count();
    check(&net, reductions == 0 || window > 2 * half, "pipe stays near ssthresh");
    let plain = Net::transfer(config(Recovery::Sack, delack), 200_000, faults);
    let (_, pat) = recovery_entry(&plain);
    check(&plain, pat.cwnd == pat.ssthresh, "RFC 6675: cwnd = ssthresh at once");
    let pexit = plain.cc_log.iter().find(|p| p.t > pat.t && p.ca == CaState::Open).expect("recovery ends");
    check(&plain, pexit.cwnd == pat.ssthresh, "RFC 6675: cwnd = ssthresh when recovery ends, no growth");
    check(&net, net.s.bytes_received() == 200_000, "everything delivered");
}

#[test]
fn test_prr_in_sack_recovery() {
    prr_in_sack_recovery(false)
}

#[test]
fn test_prr_in_sack_recovery_delack() {
    prr_in_sack_recovery(true)
}

/// Linux's ECN response (`tcp_enter_cwr`, `tcp_cwnd_reduction`): ECN-Echo sets
/// ssthresh and PRR brings cwnd down to it over the CWR phase; cwnd never grows
/// meanwhile. The ACK that ends CWR sets cwnd = ssthresh (`tcp_fastretrans_alert`
/// → `tcp_end_cwnd_reduction`, CA_Open) and then, in `tcp_cong_control`, grows it
/// as any ACK of new data in congestion avoidance: by less than one segment.
fn prr_in_cwr(delack: bool) {
    let mut cfg = linux(config(Recovery::Sack, delack));
    cfg.ecn_min_cwnd_segments = 2;
    let faults = vec![mark(Target::Seq(seg(40)))];
    let net = Net::transfer(cfg, 200_000, faults);
    let i = net.cc_log.iter().position(|p| p.ca == CaState::Cwr).expect("an ECN reduction");
    let (before, at) = (net.cc_log[i - 1], net.cc_log[i]);
    check(&net, at.cwnd > at.ssthresh, "cwnd is not cut to ssthresh at once");
    let cwr: Vec<_> = net.cc_log[i..].iter().take_while(|p| p.ca == CaState::Cwr).collect();
    check(&net, cwr.windows(2).all(|w| w[1].cwnd <= w[0].cwnd.max(at.ssthresh)), "no growth in CWR");
    let end = net.cc_log[i + cwr.len()];
    check(&net, at.ssthresh == before.cwnd / 2, "ssthresh = cwnd/2");
    let grown = end.cwnd > at.ssthresh && end.cwnd < at.ssthresh + MSS;
    check(&net, grown, "the ACK ending CWR: cwnd = ssthresh, then avoidance's growth on that ACK");
    check(&net, net.c.stats().retransmits == 0, "nothing retransmitted");
}

#[test]
fn test_prr_in_cwr() {
    prr_in_cwr(false)
}

#[test]
fn test_prr_in_cwr_delack() {
    prr_in_cwr(true)
}

// ---------------------------------------------------------------- NewReno without SACK
/// The linux rules with NewReno (no SACK), Linux's SACK emulation on or off.
fn newreno(delack: bool, dupacks_as_sacks: bool) -> TcpConfig {
    let mut cfg = linux(config(Recovery::NewReno, delack));
    cfg.dupacks_as_sacks = dupacks_as_sacks.into();
    cfg
}

/// Data segments the Client sent on each ACK it received from `from` on, while
/// the ACKs acknowledge nothing new (the duplicate ACKs of a recovery).
fn sent_per_dupack(net: &Net, from: Instant) -> Vec<usize> {
    let arrivals: Vec<_> = net.c_arrivals.iter().filter(|a| a.0 >= from).collect();
    let una = arrivals.first().expect("an ACK at recovery entry").1;
    arrivals.iter().take_while(|a| a.1 == una).map(|a| net.data().filter(|l| l.t == a.0).count()).collect()
}

/// Without SACK Linux counts each duplicate ACK as one segment SACKed
/// (`tcp_add_reno_sack`) and runs PRR (`tcp_cwnd_reduction`) on every ACK of
/// a NewReno recovery. RFC 6937 §3 estimates DeliveredData without SACK in
/// the same way (one SMSS per duplicate ACK; on the next partial or full ACK
/// the advance of snd.una less what the duplicate ACKs counted), and its
/// proportional part sends sndcnt = CEIL(prr_delivered · ssthresh /
/// RecoverFS) − prr_out while pipe exceeds ssthresh — in bytes, where Linux
/// counts packets (`sndcnt = div_u64(snd_ssthresh · prr_delivered + prior_cwnd − 1,
/// prior_cwnd) − prr_out`). Segment 40 dropped: after k duplicate ACKs of the
/// recovery, max(⌈k·ssthresh/prior_cwnd⌉, 1) segments have been sent (the first
/// is the fast retransmit; RFC 6937's bytes would allow ⌊⌈k·SMSS·ssthresh/prior_cwnd⌉/SMSS⌋,
/// half a segment fewer on average); once pipe is
/// down to ssthresh no duplicate ACK releases more than the one segment it
/// delivered (Linux adds PRR-SSRB's extra segment only on an ACK that advanced
/// snd_una); cwnd never exceeds its value before the loss, and the recovery
/// ends with cwnd = ssthresh. RFC 6582 (the rule off) instead sets cwnd = ssthresh + 3·SMSS
/// and inflates it by one SMSS per duplicate ACK, beyond the window before
/// the loss.
fn prr_in_newreno_recovery(delack: bool) {
    let faults = vec![drop(Target::Seq(seg(40)))];
    let rfc = Net::transfer(newreno(delack, false), 200_000, faults.clone());
    let (_, at) = recovery_entry(&rfc);
    check(&rfc, at.cwnd == at.ssthresh + 3 * MSS, "RFC 6582: cwnd = ssthresh + 3·SMSS");
    let (before, _) = recovery_entry(&rfc);
    let peak = rfc.cc_log.iter().filter(|p| p.ca == CaState::Recovery).map(|p| p.cwnd).max().unwrap();
    check(&rfc, peak > before.cwnd, "RFC 6582: inflated beyond the window before the loss");

    let net = Net::transfer(newreno(delack, true), 200_000, faults);
    let (before, at) = recovery_entry(&net);
    let (prior, ssthresh, mss) = (u64::from(before.cwnd), u64::from(at.ssthresh), u64::from(MSS));
    check(&net, prior >= 16 * mss && ssthresh == prior / 2, "a grown window, halved");
    let (prior_segs, ssthresh_segs) = (prior / mss, ssthresh / mss);
    let per_ack = sent_per_dupack(&net, at.t);
    check(&net, per_ack.len() >= 8, "duplicate ACKs through the recovery");
    let mut sent = 0;
    for (i, n) in per_ack.iter().take(8).enumerate() {
        sent += *n as u64;
        let k = i as u64 + 1;
        let allowed = (k * ssthresh_segs).div_ceil(prior_segs).max(1);
        check(&net, sent == allowed, &format!("after {k} duplicate ACKs {sent} segments sent"));
    }
    check(&net, per_ack.iter().all(|&n| n <= 1), "at most one segment per duplicate ACK");
    let recovery: Vec<_> = net.cc_log.iter().filter(|p| p.ca == CaState::Recovery).collect();
    check(&net, recovery.iter().all(|p| p.cwnd <= before.cwnd), "no inflation");
    let exit = net.cc_log.iter().find(|p| p.t > at.t && p.ca == CaState::Open).expect("recovery ends");
    check(&net, exit.cwnd == at.ssthresh, "cwnd = ssthresh when recovery ends (tcp_end_cwnd_reduction)");
    let st = net.c.stats();
    check(&net, (st.fast_retransmits, st.retransmits, st.timeouts) == (1, 1, 0), "one fast retransmit, nothing else");
    check(&net, net.s.bytes_received() == 200_000, "everything delivered");
}

#[test]
fn test_prr_in_newreno_recovery() {
    prr_in_newreno_recovery(false)
}

#[test]
fn test_prr_in_newreno_recovery_delack() {
    prr_in_newreno_recovery(true)
}

/// NewReno's partial ACK (RFC 6582 §3.2 step 5: "retransmit the first
/// unacknowledged segment") with Linux's SACK emulation: the partial ACK
/// marks the new first segment lost (`tcp_newreno_mark_lost`) and delivers
/// one segment plus whatever it covers beyond the duplicate ACKs counted
/// (`tcp_remove_reno_sacks`); PRR leaves room for the retransmission, which
/// leaves on that ACK. Segments 40 and 47 dropped: one recovery, each
/// retransmitted once, no timeout, no inflation, cwnd = ssthresh at the end.
fn newreno_partial_ack(delack: bool) {
    let faults = vec![drop(Target::Seq(seg(40))), drop(Target::Seq(seg(47)))];
    let net = Net::transfer(newreno(delack, true), 200_000, faults.clone());
    let (before, at) = recovery_entry(&net);
    let partial = net.c_arrivals.iter().find(|a| a.1 == seg(47)).expect("a partial ACK").0;
    let resend = net.data().find(|l| l.seg.retransmit && l.seg.seq == seg(47)).expect("47 resent");
    check(&net, resend.t == partial, "the next hole goes on the partial ACK");
    let recovery: Vec<_> = net.cc_log.iter().filter(|p| p.ca == CaState::Recovery).collect();
    check(&net, recovery.iter().all(|p| p.cwnd <= before.cwnd), "no inflation");
    let exit = net.cc_log.iter().find(|p| p.t > at.t && p.ca == CaState::Open).expect("recovery ends");
    check(&net, exit.cwnd == at.ssthresh, "cwnd = ssthresh when recovery ends (no SACK: no growth on the full ACK)");
    let st = net.c.stats();
    check(&net, (st.fast_retransmits, st.retransmits, st.timeouts) == (1, 2, 0), "one recovery, two retransmissions");
    check(&net, net.s.bytes_received() == 200_000, "everything delivered");
    let rfc = Net::transfer(newreno(delack, false), 200_000, faults);
    let (before, _) = recovery_entry(&rfc);
    let peak = rfc.cc_log.iter().filter(|p| p.ca == CaState::Recovery).map(|p| p.cwnd).max().unwrap();
    check(&rfc, peak > before.cwnd, "RFC 6582: inflated beyond the window before the loss");
}

#[test]
fn test_newreno_partial_ack() {
    newreno_partial_ack(false)
}

#[test]
fn test_newreno_partial_ack_delack() {
    newreno_partial_ack(true)
}

// ---------------------------------------------------------------- FIN on the last data segment
/// Linux's `tcp_send_fin` sets FIN on the last segment still queued instead
/// of sending a FIN of its own, so with ECN the FIN is ECT like any data; RFC
/// 3168 §6.1.4 has packets without data Not-ECT, so a FIN of its own is one a
/// marking router drops. A 5 500-byte transfer (the last segment 500 bytes)
/// and the router "marking" the Client's FIN: on the last data segment it is
/// CE-marked and delivered; on its own it is dropped and waits for the
/// retransmission timer.
fn fin_with_data(delack: bool) {
    let mut cfg = config(Recovery::Sack, delack);
    cfg.fin_with_data = FinPlacement::WithLastData;
    let faults = vec![mark(Target::Fin(1))];
    let net = Net::transfer(cfg.clone(), 5_500, faults.clone());
    let fins: Vec<_> = net.log.iter().filter(|l| l.dir == Dir::C2S && l.seg.flags.fin()).collect();
    check(&net, fins.len() == 1, "one FIN");
    let f = fins[0];
    check(&net, f.seg.payload_len == 500 && f.seg.seq == seg(6) && f.fate == Fate::Marked, "on the last data, CE");
    let st = net.c.stats();
    check(&net, (st.retransmits, st.timeouts) == (0, 0), "nothing resent");
    check(&net, net.s.bytes_received() == 5_500 && net.c.is_closed() && net.s.is_closed(), "done");
    cfg.fin_with_data = FinPlacement::OwnSegment;
    let rfc = Net::transfer(cfg, 5_500, faults);
    let fin = rfc.log.iter().find(|l| l.dir == Dir::C2S && l.seg.flags.fin()).unwrap();
    check(&rfc, fin.seg.payload_len == 0 && !fin.seg.ecn.is_ect() && fin.fate == Fate::Dropped, "a FIN of its own");
    check(&rfc, rfc.c.stats().timeouts == 1, "the FIN waits for the timer");
    check(&rfc, rfc.c.is_closed() && rfc.s.is_closed(), "done after the timeout");
}

#[test]
fn test_fin_with_data() {
    fin_with_data(false)
}

#[test]
fn test_fin_with_data_delack() {
    fin_with_data(true)
}

// ---------------------------------------------------------------- RACK (RFC 8985)
/// RFC 8985 §2: RACK "can detect lost retransmissions": "a segment is
/// marked lost if a segment sent sufficiently later has been delivered"
/// (§6.2, with RACK.reo_wnd = 0 in recovery when no reordering has been
/// seen, as Linux's `tcp_rack_reo_wnd`). Holes at 20, 22, ..., 28 and the
/// first retransmission dropped: RFC 6675 alone waits for the retransmission
/// timer; with RACK the new data sent after that retransmission is SACKed,
/// proves it lost, and it goes again without a timeout.
fn rack_lost_retransmission(delack: bool) {
    let holes = [20, 22, 24, 26, 28];
    let mut faults: Vec<_> = holes.iter().map(|&k| drop(Target::Seq(seg(k)))).collect();
    let cfg = config(Recovery::Sack, delack);
    let probe = Net::transfer(cfg.clone(), 60_000, faults.clone());
    let first_rtx = probe.data().position(|l| l.seg.retransmit).expect("a retransmission") as u32 + 1;
    faults.push(drop(Target::DataTx(first_rtx)));
    let rfc = Net::transfer(cfg.clone(), 60_000, faults.clone());
    check(&rfc, rfc.c.stats().timeouts == 1, "RFC 6675: the lost retransmission waits for the timer");
    let mut cfg = cfg;
    cfg.rack = LossMarking::Rack;
    let net = Net::transfer(cfg, 60_000, faults);
    check(&net, net.c.stats().timeouts == 0, "RACK: no timeout");
    let resends = net.data().filter(|l| l.seg.retransmit && l.seg.seq == seg(20)).count();
    check(&net, resends == 2, "segment 20 retransmitted twice");
    check(&net, net.c.stats().fast_retransmits == 1, "one recovery");
    check(&net, net.s.bytes_received() == 60_000, "everything delivered");
    check(&net, net.log.last().unwrap().t < rfc.log.last().unwrap().t, "done sooner than with the timer");
}

#[test]
fn test_rack_lost_retransmission() {
    rack_lost_retransmission(false)
}

#[test]
fn test_rack_lost_retransmission_delack() {
    rack_lost_retransmission(true)
}

// ------------------------------------------------------------- idle_restart

/// 40 segments, then `idle` without data, then 100 more: (cwnd before the idle
/// period, RTO then, ssthresh before, the segments of the first flight after it, cwnd and ssthresh after).
fn after_idle(rule: IdleRestart, delayed_ack: bool, idle: Duration) -> (u32, Duration, u32, usize, u32, u32) {
    let cfg = TcpConfig { idle_restart: rule, ..config(Recovery::Sack, delayed_ack) };
    let mut net = Net::new(cfg.clone(), cfg, vec![]);
    net.c.send(40 * MSS as u64);
    net.run(Instant(Duration::from_secs(30).as_nanos()));
    assert_eq!(net.c.bytes_in_flight(), 0, "all acknowledged\n{}", net.dump());
    let last = net.data().filter(|l| l.dir == Dir::C2S).map(|l| l.t).max().unwrap();
    let (cwnd, ssthresh, rto) = (net.c.cwnd(), net.c.ssthresh(), net.c.rto());
    net.now = last + idle;
    let resume = net.now;
    net.c.send(100 * MSS as u64); // more than any window here: the first flight is cwnd
    net.run(Instant(Duration::from_secs(90).as_nanos()));
    let burst = net.data().filter(|l| l.dir == Dir::C2S && l.t == resume).count();
    let after = net.log.iter().find(|l| l.dir == Dir::C2S && l.t == resume).unwrap();
    (cwnd, rto, ssthresh, burst, after.cwnd, after.ssthresh)
}

/// RFC 5681 §4.1: "TCP SHOULD set cwnd to no more than RW before beginning
/// transmission if the TCP has not sent data in an interval exceeding the
/// retransmission timeout" (RW = min(IW, cwnd)); Linux instead halves cwnd
/// once per RTO of idle time, never below RW, and raises ssthresh to ¾ of
/// the old cwnd (`tcp_cwnd_restart`: "while ((delta -= icsk_rto) > 0 && cwnd
/// > restart_cwnd) cwnd >>= 1", `tcp_current_ssthresh`). Off: the old window.
#[test]
fn test_window_after_idle_rfc5681_linux_and_off() {
    for delayed_ack in [false, true] {
        let idle = Duration::from_millis(2500);
        let (cwnd, rto, ssthresh, burst, after, _) = after_idle(IdleRestart::Off, delayed_ack, idle);
        let mss = MSS;
        assert!(cwnd >= 8 * mss && rto.0 < idle.0, "a grown window and an idle period over one RTO");
        assert_eq!((burst as u32, after), (cwnd / mss, cwnd), "off: the whole old window at once");
        let (_, _, _, burst, after, sst) = after_idle(IdleRestart::Rfc5681, delayed_ack, idle);
        assert_eq!((burst, after, sst), (2, 2 * mss, ssthresh), "RFC 5681: IW (2 segments), ssthresh kept");
        let (_, _, _, burst, after, sst) = after_idle(IdleRestart::Linux, delayed_ack, idle);
        let mut want = cwnd / mss;
        let mut delta = idle.0 as i64;
        while {
            delta -= rto.0 as i64;
            delta > 0
        } && want > 2
        {
            want >>= 1;
        }
        let want = want.max(2);
        let c = cwnd / mss;
        assert_eq!((burst as u32, after), (want, want * mss), "Linux: halved per RTO idle (RTO {rto:?})");
        assert_eq!(sst, ssthresh.max(((c >> 1) + (c >> 2)) * mss), "Linux: ssthresh = max(ssthresh, 3/4 cwnd)");
        // Within one RTO nothing changes, whatever the rule.
        let short = Duration(rto.0 / 2);
        for rule in [IdleRestart::Rfc5681, IdleRestart::Linux] {
            let (cwnd, _, _, burst, after, _) = after_idle(rule, delayed_ack, short);
            assert_eq!((burst as u32, after), (cwnd / mss, cwnd), "{rule:?} within one RTO");
        }
    }
}

// ------------------------------------------------------------- sack_recover_guard
/// RFC 6675 §5 with RFC 6582 §3.2 step 1: a new SACK recovery only once the
/// cumulative ACK covers more than `recover` (snd_max when the last one
/// started). Linux's `tcp_fastretrans_alert` has no such guard for SACK: it
/// enters Recovery whenever `tcp_time_to_recover` holds. Segment 20 is lost,
/// and then the first segment sent after that recovery began (at `recover`):
/// once the first episode ends, the second hole sits at `recover` itself, so
/// the RFC rule waits for the timer where Linux starts a second episode.
fn sack_recover_guard(delack: bool) {
    let cfg = config(Recovery::Sack, delack);
    let first = Net::transfer(cfg.clone(), 60_000, vec![drop(Target::Seq(seg(20)))]);
    let (_, at) = recovery_entry(&first);
    let recover = at.high_sent;
    let faults = vec![drop(Target::Seq(seg(20))), drop(Target::Seq(recover))];
    let rfc = Net::transfer(cfg.clone(), 60_000, faults.clone());
    check(&rfc, rfc.c.stats().timeouts == 1, "RFC 6675: the loss at `recover` waits for the timer");
    let lx = Net::transfer(TcpConfig { sack_recover_guard: SackGuard::Unguarded, ..cfg }, 60_000, faults);
    check(&lx, lx.c.stats().timeouts == 0, "Linux: no timeout");
    check(&lx, lx.c.stats().fast_retransmits == 2, "two episodes");
    check(&lx, lx.s.bytes_received() == 60_000, "everything delivered");
}

#[test]
fn test_sack_recover_guard() {
    sack_recover_guard(false)
}

#[test]
fn test_sack_recover_guard_delack() {
    sack_recover_guard(true)
}

// ---------------------------------------------------------------- the retransmission timeout
/// The time from the last ACK of new data to the retransmission of a lost last
/// segment (no SACK information, no probe: the timer), and the smoothed RTT then.
fn tail_rto(arith: RtoArith) -> (Net, Duration) {
    let mut cfg = config(Recovery::Sack, false);
    cfg.min_rto_ns = Duration::from_millis(200).0;
    cfg.rto_arith = arith;
    let net = Net::transfer(cfg, 20_000, vec![drop(Target::Seq(seg(19)))]);
    let resend = net.data().find(|l| l.seg.retransmit).expect("the last segment resent").t;
    let last_ack = net.c_arrivals.iter().filter(|a| a.0 < resend && a.1 == seg(19)).map(|a| a.0).max();
    let gap = resend - last_ack.expect("the ACK that restarted the timer");
    (net, gap)
}

/// Linux `tcp_set_rto`: "icsk_rto = (srtt_us >> 3) + rttvar_us", with rttvar never
/// below `tcp_rto_min_us` (200 ms): after a 20 ms path's steady samples the timer
/// waits srtt + 200 ms. RFC 6298 (2.4): "RTO = SRTT + max (G, K*RTTVAR)", "rounded up
/// to 1 second" there and to min_rto here: 200 ms, the floor, once RTTVAR has decayed.
#[test]
fn test_rto_is_srtt_plus_rto_min_in_linux() {
    let (lx, gap) = tail_rto(RtoArith::Linux);
    check(&lx, lx.c.stats().timeouts == 1, "one timeout");
    let srtt = Duration::from_millis(20);
    check(&lx, gap >= srtt + Duration::from_millis(200), &format!("Linux: {gap:?} ≥ srtt + 200 ms"));
    check(&lx, gap <= srtt + Duration::from_millis(210), &format!("Linux: {gap:?} ≈ srtt + 200 ms"));
    let (rfc, gap) = tail_rto(RtoArith::Rfc6298);
    check(&rfc, rfc.c.stats().timeouts == 1, "one timeout");
    let floor = gap >= Duration::from_millis(200) && gap <= Duration::from_millis(201);
    check(&rfc, floor, &format!("RFC 6298: {gap:?} = min_rto (expiry on the next 1 ms tick)"));
}

// ---------------------------------------------------------------- growth by delivered data
/// The largest growth of cwnd from one logged point to the next after the timeout.
fn largest_step_after_timeout(net: &Net) -> u32 {
    let rto = net.cc_log.iter().position(|p| p.ca == CaState::Loss).expect("a timeout");
    net.cc_log[rto..].windows(2).map(|w| w[1].cwnd.saturating_sub(w[0].cwnd)).max().unwrap_or(0)
}

/// Linux `tcp_cong_control` grows cwnd by `acked_sacked`, the data an ACK newly
/// delivered, and `tcp_slow_start` stops at ssthresh. After the timeout in a SACK
/// recovery (segments 21, 23, …, 27 SACKed, the holes resent one at a time), each
/// cumulative ACK covers a hole and the SACKed segment above it: RFC 3465 (L = 100)
/// counts both and grows cwnd by two segments, Linux by the one it delivered.
fn growth_by_delivered_data(delack: bool) {
    let mut cfg = linux(config(Recovery::Sack, delack));
    cfg.rack = LossMarking::Rfc6675; // RACK would resend the lost retransmissions before the timer
    cfg.abc = 100;
    let rfc = timeout_in_recovery(cfg.clone());
    check(&rfc, largest_step_after_timeout(&rfc) >= 2 * MSS, "RFC 3465: the cumulative bytes, two segments");
    cfg.growth_arith = GrowthArith::Linux;
    let lx = timeout_in_recovery(cfg);
    check(&lx, lx.c.stats().timeouts == 1, "one timeout");
    // (The last ACK also covers the FIN, one sequence number.)
    check(&lx, largest_step_after_timeout(&lx) <= MSS + 1, "Linux: one segment per segment delivered");
    check(&lx, lx.s.bytes_received() == 60_000, "everything delivered");
}

#[test]
fn test_growth_by_delivered_data() {
    growth_by_delivered_data(false)
}

#[test]
fn test_growth_by_delivered_data_delack() {
    growth_by_delivered_data(true)
}

// ---------------------------------------------------------------- ECN quick ACKs
/// Whether the Server ACKed the data segment starting at `seq` on its arrival: an ACK of
/// exactly its end within 20 ms of its sending (10 ms one way and the queue; the delayed
/// ACK would take 100 ms), not one that waited for the next segment or the timer.
fn acked_on_arrival(net: &Net, seq: u64) -> bool {
    let data = net.data().find(|l| l.seg.seq == seq).expect("sent");
    let end = seq + data.seg.payload_len as u64;
    let ack = net.acks().find(|l| l.t >= data.t && l.seg.ack >= end).expect("acknowledged");
    ack.seg.ack == end && ack.t - data.t < Duration::from_millis(20)
}

fn quickack(mut cfg: TcpConfig, rule: EcnQuickAck) -> TcpConfig {
    cfg.ecn_quickack = rule;
    cfg
}

/// Linux `tcp_ecn_accept_cwr` (include/net/tcp_ecn.h): "If the sender is telling us it
/// has entered CWR, then its cwnd may be very low (even just 1 packet), so we should ACK
/// immediately" (`ICSK_ACK_NOW` on a data segment with CWR). With delayed ACKs segment
/// `marked` is CE-marked; the first new segment after the reduction carries CWR, the first of
/// a pair. Under `echo` it waits for the next one; under `linux` it is ACKed on arrival. The
/// same for a DCTCP receiver, whose own rule ACKs at once only a change of CE (RFC 8257 §3.2).
fn cwr_acked_on_arrival(cfg: TcpConfig, marked: u64) {
    for (rule, at_once) in [(EcnQuickAck::Echo, false), (EcnQuickAck::Linux, true)] {
        let net = Net::transfer(quickack(cfg.clone(), rule), 60_000, vec![mark(Target::Seq(seg(marked)))]);
        let cwr = net.data().find(|l| l.seg.flags.cwr()).expect("a CWR segment").seg.seq;
        check(&net, acked_on_arrival(&net, cwr) == at_once, &format!("{rule:?}: CWR segment ACKed at once {at_once}"));
    }
}

#[test]
fn test_cwr_segment_acked_on_arrival() {
    cwr_acked_on_arrival(linux(config(Recovery::Sack, true)), 19)
}

#[test]
fn test_cwr_segment_acked_on_arrival_dctcp() {
    let cfg = TcpConfig { cc: CcKind::Dctcp, ecn_min_cwnd_segments: 2, ..config(Recovery::Sack, true) };
    cwr_acked_on_arrival(linux(cfg), 20)
}

/// Linux `tcp_data_ecn_check` (net/ipv4/tcp_input.c): a CE data segment while no CWR is
/// awaited (`TCP_ECN_DEMAND_CWR` clear) calls `tcp_enter_quickack_mode(sk, 2)`: it and the
/// segment after it are ACKed on arrival. RFC 3168 §6.1.3's receiver (`ack_ce_at_once`)
/// ACKs the CE segment at once and the next waits for its pair. Segment 20 is CE.
#[test]
fn test_ce_starts_two_quick_acks() {
    for (rule, next_at_once) in [(EcnQuickAck::Echo, false), (EcnQuickAck::Linux, true)] {
        let cfg = quickack(linux(config(Recovery::Sack, true)), rule);
        let net = Net::transfer(cfg, 60_000, vec![mark(Target::Seq(seg(20)))]);
        check(&net, acked_on_arrival(&net, seg(20)), &format!("{rule:?}: the CE segment ACKed at once"));
        let next = acked_on_arrival(&net, seg(21));
        check(&net, next == next_at_once, &format!("{rule:?}: the segment after it ACKed at once {next_at_once}"));
    }
}

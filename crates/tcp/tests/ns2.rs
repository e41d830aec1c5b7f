//! The `ns2` personality's own rules (docs/model.md, "TCP personalities"),
//! each pinned by a packet trace with the ns-2.35 rule it follows, quoted in
//! paraphrase from docs/ns2-tcp-semantics.md (the spec read from ns-2.35's
//! tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc). Setting as in
//! `trace.rs` (harness::config): MSS 1000 B, IW 2, ECN on, 10 ms one way.

mod harness;

use ecnlab_tcp::{
    CaState, GuardedRecoveries, LimitedTransmit, Recovery, RetransmitEct, RtoArith, TcpConfig, WindowArith,
};
use ecnlab_wire::Ecn;
use harness::*;

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

fn with(v: Recovery, delack: bool, f: impl FnOnce(&mut TcpConfig)) -> TcpConfig {
    let mut cfg = config(v, delack);
    f(&mut cfg);
    cfg
}

// ------------------------------------------------------------ ecn_on_retransmit
/// ns2-tcp-semantics.md §4: "output() sets the CWR flag on the packet when
/// cong_action_ && (!is_retransmit || SetCWRonRetransmit_), then clears
/// cong_action_. SetCWRonRetransmit_ default true, so CWR may go on the fast
/// retransmission"; "if ecn_, every data packet including retransmissions is
/// ECT". Segment 10 is dropped once: its fast retransmission is the first
/// packet after the reduction. With `ecn_on_retransmit` it is ECT and carries
/// CWR; without (RFC 3168 §6.1.5, §6.1.2) it is Not-ECT and CWR waits for the
/// next new segment.
fn cwr_on_fast_retransmission(v: Recovery, delack: bool) {
    let faults = vec![drop(Target::Seq(seg(10)))];
    let ns2 =
        Net::transfer(with(v, delack, |c| c.ecn_on_retransmit = RetransmitEct::AsNewData), 40_000, faults.clone());
    let rtx = ns2.data().find(|l| l.seg.retransmit).expect("a retransmission");
    check(&ns2, rtx.seg.seq == seg(10) && rtx.seg.flags.cwr(), "ns2: CWR on the retransmission of segment 10");
    check(&ns2, rtx.seg.ecn == Ecn::Ect0, "ns2: the retransmission is ECT");
    check(&ns2, ns2.data().filter(|l| l.seg.flags.cwr()).count() == 1, "ns2: one CWR");

    let rfc = Net::transfer(config(v, delack), 40_000, faults);
    let rtx = rfc.data().find(|l| l.seg.retransmit).expect("a retransmission");
    check(&rfc, !rtx.seg.flags.cwr() && rtx.seg.ecn == Ecn::NotEct, "rfc: Not-ECT, no CWR on the retransmission");
    let cwr = rfc.data().find(|l| l.seg.flags.cwr()).expect("a CWR");
    check(&rfc, !cwr.seg.retransmit && cwr.seg.seq > seg(10), "rfc: CWR on a later new segment");
}

#[test]
fn test_cwr_on_fast_retransmission() {
    for v in [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
        for delack in [false, true] {
            cwr_on_fast_retransmission(v, delack);
        }
    }
}

// ------------------------------------------------------------ recover_guard_all
/// ns2-tcp-semantics.md §5: "bugFix_ guard (default bugFix_ = true):
/// recovered = (highest_ack_ > recover_) in TcpAgent::dupack_action,
/// RenoTcpAgent::dupack_action ... Fast retransmit happens if recovered ...
/// Otherwise ... if bugFix_, do nothing", and a fast retransmit sets
/// recover_ = maxseq_. Tahoe's go-back-N resends segments the receiver already
/// holds above the holes of a burst of losses; their duplicate ACKs must not
/// start another fast retransmit before the ACK passes what was sent at the
/// first one. Fifteen consecutive segments of a large window are dropped
/// (the suite's bursty tests). Without the guard (`recover_guard_all` off, as
/// ns-2 with bugFix_ false) Tahoe fast-retransmits again on those duplicates.
#[test]
fn test_tahoe_waits_for_recover_after_fast_retransmit() {
    let faults: Vec<_> = (40..55).map(|k| drop(Target::Seq(seg(k)))).collect();
    let guarded = Net::transfer(
        with(Recovery::Tahoe, false, |c| c.recover_guard_all = GuardedRecoveries::EveryRecovery),
        150_000,
        faults.clone(),
    );
    let fr = guarded.c.stats().fast_retransmits;
    check(&guarded, fr == 1, "guarded Tahoe: one fast retransmit");
    check(&guarded, guarded.s.bytes_received() == 150_000, "everything delivered");
    let plain = Net::transfer(config(Recovery::Tahoe, false), 150_000, faults);
    check(&plain, plain.c.stats().fast_retransmits > 1, "unguarded Tahoe: spurious fast retransmits");
}

// ------------------------------------------------------------ window_arith = ns2
/// ns2-tcp-semantics.md §3 (tcp.cc slowdown): "W = windowd() (min(cwnd_
/// [+dupwnd_], wnd_)); halfwin = W/2 (double, not truncated)";
/// CLOSE_SSTHRESH_HALF: "ssthresh_ = (int)halfwin", CLOSE_CWND_HALF:
/// "cwnd_ = halfwin ... cwnd_ keeps the fraction (21 → 10.5)"; "if ssthresh_
/// < 2 then ssthresh_ = 2". §2: in congestion avoidance "cwnd_ += 1/cwnd_"
/// per new ACK, on a double. Slow start without delayed ACKs grows cwnd by one
/// segment per ACK from IW 2, so the ECE on the ACK of segment 12 meets cwnd
/// 13 segments: ns-2 leaves cwnd 6.5 and ssthresh 6 segments (RFC 5681 would
/// halve FlightSize and set cwnd = ssthresh). Each later ACK adds SMSS²/cwnd
/// with the fraction kept.
#[test]
fn test_ns2_ecn_halving_keeps_the_fraction() {
    let cfg = with(Recovery::Reno, false, |c| c.window_arith = WindowArith::Ns2);
    let net = Net::transfer(cfg, 60_000, vec![mark(Target::Seq(seg(12)))]);
    let i = net.cc_log.iter().position(|p| p.ca == CaState::Cwr).expect("an ECN reduction");
    let (before, after) = (net.cc_log[i - 1], net.cc_log[i]);
    check(&net, before.cwnd == 13 * MSS, "cwnd 13 segments at the ECE");
    check(&net, after.cwnd == 6500 && after.ssthresh == 6 * MSS, "cwnd 6.5, ssthresh 6 segments");
    let mut exact = f64::from(after.cwnd);
    for p in net.cc_log[i + 1..].iter().take_while(|p| p.ca != CaState::Recovery).take(20) {
        if p.cwnd as f64 > exact + 0.5 {
            exact += f64::from(MSS * MSS) / exact;
        }
        check(&net, p.cwnd == exact.floor() as u32, "congestion avoidance adds SMSS²/cwnd, fraction kept");
    }
}

/// ns2-tcp-semantics.md §5 (timeout): "else: ++nrexmit_; last_cwnd_action_ =
/// TIMEOUT; slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) → ssthresh =
/// max(2, int(windowd()/2)), cwnd = 1", and windowd() uses the current cwnd:
/// a second timeout in a row (cwnd 1) leaves ssthresh 2 (RFC 5681 §3.1 keeps
/// ssthresh on a repeated timeout), and the first halves the window, not
/// FlightSize (one segment here). Segment 10, the last, is lost and so is its
/// first retransmission: the first timeout meets cwnd 11 segments (ssthresh 5),
/// the second cwnd 1 (ssthresh 2).
#[test]
fn test_ns2_repeated_timeout_halves_again() {
    let faults = vec![drop(Target::Seq(seg(10))), drop(Target::DataTx(11))];
    let ns2 = Net::transfer(with(Recovery::Reno, false, |c| c.window_arith = WindowArith::Ns2), 10_000, faults);
    let loss: Vec<_> = ns2.cc_log.iter().filter(|p| p.ca == CaState::Loss && p.ack.is_none()).collect();
    check(&ns2, ns2.c.stats().timeouts == 2 && loss.len() >= 2, "two timeouts");
    check(&ns2, loss[0].ssthresh == 5 * MSS && loss[1].ssthresh == 2 * MSS, "ssthresh 5, then 2 segments");
}

// ------------------------------------------------------------ syn_immediate_ack
/// ns2-tcp-semantics.md §9 (DelAckSink::recv): an in-order packet with no
/// timer pending is ACKed only when the 100 ms timer fires, "except if ...
/// (SYN_immediate_ack_ [default true] && seqno == 0)"; "The ECN test suite sets
/// SYN_immediate_ack_ false: its DelAck sinks delay the SYN's ACK by 100 ms".
/// ns-2's packet 0 is its SYN, so with `syn_immediate_ack` off a delaying
/// responder sends its SYN-ACK one `delack_timeout` after the SYN arrives;
/// without delayed ACKs, or with the option on, at once.
#[test]
fn test_syn_ack_waits_for_the_delayed_ack_timer() {
    for (delack, immediate, wait_ms) in [(true, false, 100), (true, true, 0), (false, false, 0)] {
        let cfg = with(Recovery::Reno, delack, |c| c.syn_immediate_ack = immediate.into());
        let net = Net::transfer(cfg, 5_000, vec![]);
        let syn = net.log.iter().find(|l| l.dir == Dir::C2S && l.seg.flags.syn()).expect("SYN");
        let syn_ack = net.log.iter().find(|l| l.dir == Dir::S2C && l.seg.flags.syn()).expect("SYN-ACK");
        // The SYN takes the harness's 10 ms one way plus its transmission (tens of µs).
        let held = (syn_ack.t - syn.t).as_nanos() as i64 - 10_000_000;
        let want = wait_ms as i64 * 1_000_000;
        check(&net, (0..100_000).contains(&(held - want)), &format!("SYN-ACK held {held} ns"));
        check(&net, net.s.bytes_received() == 5_000 && net.c.stats().timeouts == 0, "transfer completes");
    }
}

// ------------------------------------------------------------ rto_arith = ns2
/// ns2-tcp-semantics.md §5: "rtt_timeout() (rfc2988_ true): base = (t_rtxcur_
/// < minrto_) ? minrto_ : t_rtxcur_; RTO = base · t_backoff_ ... The value is
/// not rounded to ticks", and set_rtx_timer() "(re)schedule[s] the timer at
/// now + rtt_timeout()". With a 10 ms clock and a 200 ms minimum, segment 5
/// (the last) is lost: ns-2 retransmits it exactly 200 ms after the ACK of
/// segment 4 restarted the timer; RFC 6298 with a coarse clock waits for the
/// next tick boundary.
#[test]
fn test_ns2_timer_expires_exactly_one_rto_later() {
    let coarse = |c: &mut TcpConfig| {
        c.clock_granularity_ns = 10_000_000;
        c.min_rto_ns = 200_000_000;
    };
    for (arith, exact) in [(RtoArith::Ns2, true), (RtoArith::Rfc6298, false)] {
        let cfg = with(Recovery::Reno, false, |c| {
            coarse(c);
            c.rto_arith = arith;
        });
        let net = Net::transfer(cfg, 5_000, vec![drop(Target::Seq(seg(5)))]);
        let ack4 = net.acks().find(|l| l.seg.ack == seg(5)).expect("ACK of segment 4");
        let arrival = ack4.t + ecnlab_wire::Duration::from_millis(10) + ecnlab_wire::Duration(32_000);
        let rtx = net.data().find(|l| l.seg.retransmit).expect("the retransmission");
        let waited = (rtx.t - arrival).as_nanos();
        check(&net, (waited == 200_000_000) == exact, &format!("{arith:?}: waited {waited} ns"));
        check(&net, net.c.stats().timeouts == 1, "one timeout");
    }
}

// ------------------------------------------------------------ ecn_backoff
/// ns2-tcp-semantics.md §4 (tcp.cc ecn()): on a reaction, "if cwnd_ ≤ 1.0: {
/// if ecn_backoff_ then rtt_backoff() else ecn_backoff_ = 1 } else
/// ecn_backoff_ = 0", and §5 (newack): the backoff is reset on an RTT sample
/// "unless (ect_ && ecn_backoff_ && ACK has ECE)"; "A non-ECE ACK clears
/// ecn_backoff_". Every segment from 3 on is CE-marked: once the window is one
/// segment each ECE holds the next segment for the retransmission timer. With
/// `ecn_backoff` the second hold in a row and every later one doubles the
/// timer; without, each lasts one RTO.
#[test]
fn test_ecn_backoff_doubles_repeated_holds() {
    let faults: Vec<_> = (3..=11).map(|k| mark(Target::Seq(seg(k)))).collect();
    let gaps = |backoff: bool| {
        let net =
            Net::transfer(with(Recovery::Reno, false, |c| c.ecn_backoff = backoff.into()), 11_000, faults.clone());
        let t: Vec<_> = (7..=11).map(|k| net.data().find(|l| l.seg.seq == seg(k)).expect("sent").t).collect();
        let g: Vec<u64> = t.windows(2).map(|w| (w[1] - w[0]).as_nanos() / 1_000_000).collect();
        (net, g)
    };
    let (net, plain) = gaps(false);
    check(&net, plain.iter().all(|&g| (1_000..1_100).contains(&g)), &format!("one RTO per hold: {plain:?} ms"));
    let (net, doubled) = gaps(true);
    let ratios: Vec<f64> = doubled.windows(2).map(|w| w[1] as f64 / w[0] as f64).collect();
    check(&net, ratios.iter().all(|r| (1.8..2.2).contains(r)), &format!("each hold doubles: {doubled:?} ms"));
}

// ------------------------------------------------------------ ack_ce_at_once
/// ns2-tcp-semantics.md §9 (DelAckSink::recv): "if no timer is pending and
/// seqno == new cumulative ACK (in-order packet ...), then the ACK is delayed
/// ... Otherwise (timer pending = 2nd packet, out-of-order, gap-filling,
/// duplicate): cancel the timer and ACK now" — the CE mark plays no part; the
/// ECE rides on whichever ACK comes next. ecnlab by default ACKs the CE
/// segment that starts the echo at once (RFC 3168 §6.1.3's prompt echo).
/// Segment 3 is CE-marked with delayed ACKs: with `ack_ce_at_once` off the
/// first ECE ACK acknowledges segments 3 and 4 together.
#[test]
fn test_ce_segment_waits_for_the_delayed_ack() {
    for (at_once, acked) in [(true, seg(4)), (false, seg(5))] {
        let cfg = with(Recovery::Reno, true, |c| c.ack_ce_at_once = at_once.into());
        let net = Net::transfer(cfg, 20_000, vec![mark(Target::Seq(seg(3)))]);
        let first_ece = net.acks().find(|l| l.seg.flags.ece() && !l.seg.flags.syn()).expect("an ECE ACK");
        check(&net, first_ece.seg.ack == acked, &format!("at_once {at_once}: first ECE ACK acknowledges {acked}"));
    }
}

// ------------------------------------------------------------ sack_is_lost
/// ns2-tcp-semantics.md §8 (Sack1): a duplicate ACK counts "only if the SACK
/// information changed ... Then ++dupacks_ == numdupacks(cwnd) (3) →
/// dupack_action", and "There is no SACK-based loss detection in Sack1" (the
/// same section). RFC 6675 §5 also enters recovery when IsLost
/// (DupThresh segments SACKed above the hole). Segment 10 is lost and so are
/// the first two duplicate ACKs: the third one SACKs three segments, so RFC
/// 6675 retransmits at once, while with `sack_is_lost` off the sender waits
/// for two more duplicate ACKs.
#[test]
fn test_sack1_counts_duplicate_acks_only() {
    let cfg = |is_lost: bool| with(Recovery::Sack, false, |c| c.sack_is_lost = is_lost.into());
    let probe = Net::transfer(cfg(true), 40_000, vec![drop(Target::Seq(seg(10)))]);
    let acks: Vec<_> = probe.acks().filter(|l| !l.seg.flags.syn()).collect();
    let first_dup = acks.iter().position(|l| l.seg.ack == seg(10) && !l.seg.sack.as_slice().is_empty());
    let first_dup = first_dup.expect("duplicate ACKs") + 1;
    let dups_before_rtx = |is_lost: bool| {
        let faults = vec![
            drop(Target::Seq(seg(10))),
            drop(Target::AckTx(first_dup as u32)),
            drop(Target::AckTx(first_dup as u32 + 1)),
        ];
        let net = Net::transfer(cfg(is_lost), 40_000, faults);
        let rtx = net.data().find(|l| l.seg.retransmit).expect("a retransmission").t;
        // Duplicate ACKs that reached the sender (10 ms one way) by the retransmission.
        let arrived = |l: &&Line| l.t + ecnlab_wire::Duration::from_millis(10) <= rtx;
        let dup = |l: &&Line| l.seg.ack == seg(10) && !l.seg.sack.as_slice().is_empty() && l.fate == Fate::Sent;
        let n = net.acks().filter(dup).filter(arrived).count();
        (net, n)
    };
    let (net, n) = dups_before_rtx(true);
    check(&net, n == 1, &format!("IsLost: retransmit on the first duplicate ACK that arrives ({n})"));
    let (net, n) = dups_before_rtx(false);
    check(&net, n == 3, &format!("Sack1: three duplicate ACKs arrive first ({n})"));
}

// ------------------------------------------------------------ rtx_restart_on_fr
/// ns2-tcp-semantics.md §6: Tahoe's fast retransmit calls "reset_rtx_timer(0,0)
/// → ... timer restarted without backoff", Reno and Newreno "reset_rtx_timer(1,0)
/// (timer restarted, no backoff ...)", Sack1 likewise (§8). RFC 6298 (5.1)
/// restarts it only when it is not running. Segment 10 and its fast
/// retransmission are lost, so the timer must repair it: with
/// `rtx_restart_on_fr` the timeout comes one RTO (1 s here) after the fast
/// retransmission, otherwise one RTO after the last ACK of new data before it.
#[test]
fn test_fast_retransmit_restarts_the_timer() {
    for v in [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
        for (restart, after_fr) in [(true, true), (false, false)] {
            let cfg = with(v, false, |c| c.rtx_restart_on_fr = restart.into());
            let probe = Net::transfer(cfg.clone(), 30_000, vec![drop(Target::Seq(seg(10)))]);
            let fr = probe.data().position(|l| l.seg.retransmit).expect("a fast retransmit") as u32 + 1;
            let net = Net::transfer(cfg, 30_000, vec![drop(Target::Seq(seg(10))), drop(Target::DataTx(fr))]);
            let mut rtx = net.data().filter(|l| l.seg.seq == seg(10) && l.seg.retransmit);
            let (first, second) = (rtx.next().expect("fast retransmit").t, rtx.next().expect("timeout").t);
            let waited = (second - first).as_nanos();
            let ok = (waited >= 1_000_000_000) == after_fr;
            check(&net, ok, &format!("{v:?} restart {restart}: timeout {waited} ns after the fast retransmit"));
        }
    }
}

// ------------------------------------------------------------ limited_transmit_all
/// ns2-tcp-semantics.md §7: "singledup_ = 1 (on). On dupack 1 and 2 (dupacks_
/// < 3), send_one(): output(t_seqno_++) iff ... t_seqno_ ≤ highest_ack_ +
/// cwnd_ + dupacks_" — the test looks at dupacks_ only, so it also runs after
/// an ECN reduction (and after a timeout). Segment 8 is CE-marked and segment
/// 12 lost in the window the reduction halved to 4 segments, with 12..16
/// outstanding: with `limited_transmit_all` the first duplicate ACK releases
/// nothing (17 > 11 + 4 + 1) and the second segment 17 (17 ≤ 11 + 4 + 2),
/// while the sender is in Cwr; without, Limited Transmit needs the Open state
/// (RFC 3042).
#[test]
fn test_limited_transmit_after_an_ecn_reduction() {
    let faults = vec![mark(Target::Seq(seg(8))), drop(Target::Seq(seg(12)))];
    let sent_on_first_dupacks = |all: bool| {
        let cfg = with(Recovery::Reno, false, |c| {
            c.limited_transmit = LimitedTransmit::Rfc3042; // the harness turns it off
            c.limited_transmit_all = all.into();
        });
        let net = Net::transfer(cfg, 40_000, faults.clone());
        let dup1 = net.acks().filter(|l| l.seg.ack == seg(12)).nth(1).expect("a first duplicate ACK").t;
        let arrive = dup1 + ecnlab_wire::Duration::from_millis(10) + ecnlab_wire::Duration(32_000);
        let fr = net.data().find(|l| l.seg.retransmit).expect("a fast retransmit").t;
        let lt = net.data().filter(|l| !l.seg.retransmit && l.t >= arrive && l.t < fr).count();
        (net, lt)
    };
    let (net, lt) = sent_on_first_dupacks(true);
    check(&net, lt == 1, &format!("one Limited Transmit segment in Cwr ({lt})"));
    let (net, lt) = sent_on_first_dupacks(false);
    check(&net, lt == 0, &format!("none outside Open ({lt})"));
}

// ------------------------------------------------------------ guard_after_timeout
/// ns2-tcp-semantics.md §5: TcpAgent and RenoTcpAgent `dupack_action` fast
/// retransmit "if recovered || (!bugFix_ && !ecn_) ...; Otherwise: if ecn_ &&
/// last_cwnd_action_ == ECN, do the ECN-already-reduced retransmit; else, if
/// bugFix_, do nothing" — so with `bugFix_` false nothing stops a fast
/// retransmit, not even a timeout in the same window (RFC 6582 §4's guard).
/// The scenario of conformance.rs's no_fast_retransmit_after_timeout: with
/// `guard_after_timeout` and `recover_guard_all` off, Tahoe fast-retransmits on
/// the duplicate ACKs of its go-back-N resends before snd_una passes recover.
#[test]
fn test_no_guard_after_timeout_as_ns2_without_bugfix() {
    let holes = [20, 22, 24, 26, 28];
    for guard in [true, false] {
        let cfg = with(Recovery::Tahoe, false, |c| c.guard_after_timeout = guard.into());
        let mut faults: Vec<_> = holes.iter().map(|&k| drop(Target::Seq(seg(k)))).collect();
        let probe = Net::transfer(cfg.clone(), 60_000, faults.clone());
        let first_rtx = probe.data().position(|l| l.seg.retransmit).expect("a retransmission") as u32 + 1;
        faults.push(drop(Target::DataTx(first_rtx)));
        let net = Net::transfer(cfg, 60_000, faults);
        let rto = net.cc_log.iter().position(|p| p.ca == CaState::Loss).expect("a timeout");
        let recover = net.cc_log[rto].high_sent;
        let early = net.cc_log[rto..].iter().any(|p| p.ca == CaState::Recovery && p.una <= recover);
        check(&net, early != guard, &format!("guard {guard}: fast retransmit before recover is passed: {early}"));
    }
}

// ------------------------------------------------------------ timer_before_sample
/// ns2-tcp-semantics.md §5: "With timerfix_ true newtimer runs after the RTT
/// update and backoff reset; with false it runs before them" (the suite's
/// smallwin Tahoe tests set `timerfix_ false`). Segment 3 and its fast
/// retransmission are lost: a timeout backs the RTO off to 2 s. The ACK of the
/// first segment sent new after it carries the first RTT sample since: it
/// restarts the timer with the backed-off 2 s under `timer_before_sample`, and
/// with the fresh 1 s (the minimum) after the sample cleared the backoff
/// otherwise.
#[test]
fn test_timer_restarted_before_the_sample() {
    let faults = vec![drop(Target::Seq(seg(3))), drop(Target::DataTx(7))];
    for (before, secs) in [(true, 2), (false, 1)] {
        let cfg = with(Recovery::Reno, false, |c| {
            c.timer_before_sample = before.into();
            c.rwnd_bytes = 8_000; // keeps new data for after the timeout
        });
        let full = Net::transfer(cfg.clone(), 40_000, faults.clone());
        let rto = full.data().position(|l| l.seg.retransmit && l.ca == CaState::Loss);
        check(&full, rto.is_some(), "a timeout");
        let rto = rto.unwrap_or(0);
        let fresh = full.data().skip(rto).find(|l| !l.seg.retransmit);
        check(&full, fresh.is_some(), "new data after it");
        let fresh = fresh.expect("checked");
        let end = fresh.seg.seq + u64::from(fresh.seg.payload_len);
        let ack = full.acks().find(|l| l.seg.ack >= end).expect("its ACK");
        let arrival = ack.t + ecnlab_wire::Duration::from_millis(10) + ecnlab_wire::Duration(32_000);
        let mut net = Net::new(cfg.clone(), cfg, faults.clone());
        net.c.send(40_000);
        net.c.close();
        net.run(arrival);
        let deadline = net.c.poll_at().expect("the retransmission timer runs");
        let waits = (deadline - arrival).as_nanos() / 1_000_000;
        check(&net, waits.abs_diff(secs * 1000) < 20, &format!("before {before}: timer set {waits} ms ahead"));
    }
}

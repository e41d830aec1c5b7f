//! DCTCP packet traces (RFC 8257): the receiver's ECE follows CE runs exactly
//! under delayed ACKs (§3.2), the sender's α is the EWMA of the marked fraction
//! per observation window and its reduction is W·(1 − α/2) at most once per
//! window (§3.3). Setting as `trace.rs` (harness::config: MSS 1000 B, IW 2,
//! 10 ms one-way, 10 Mbit/s), with cc = dctcp on both ends.

mod harness;

use ecnlab_tcp::{CaState, CcKind, EctPackets, Recovery, TcpConfig};
use ecnlab_wire::Ecn;
use harness::*;

fn dctcp(delayed_ack: bool) -> TcpConfig {
    TcpConfig { cc: CcKind::Dctcp, ecn_min_cwnd_segments: 2, ..config(Recovery::Sack, delayed_ack) }
}

/// Per data segment in sequence order (no drops here): was it CE at the receiver?
fn ce_of_segments(net: &Net) -> Vec<(u64, bool)> {
    let mut v: Vec<(u64, bool)> = net
        .data()
        .filter(|l| l.dir == Dir::C2S && !l.seg.retransmit)
        .map(|l| (l.seg.seq + l.seg.payload_len as u64, l.fate == Fate::Marked))
        .collect();
    v.sort();
    v
}

/// RFC 8257 §3.2: "If the CE codepoint is set and DCTCP.CE is false, set DCTCP.CE to
/// true and send an immediate ACK" (and the same for the change back); ECE is set iff
/// DCTCP.CE. So with delayed ACKs every ACK newly covers segments of one CE state
/// only, and carries ECE iff that state is CE: ECE runs are CE runs, byte for byte.
#[test]
fn test_ece_tracks_ce_runs_exactly_under_delayed_acks() {
    let marks = [5, 6, 7, 12, 20, 21, 30, 31, 32, 33, 34, 41];
    let faults = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
    let net = Net::transfer(dctcp(true), 60 * MSS as u64, faults);
    let segs = ce_of_segments(&net);
    assert_eq!(segs.iter().filter(|s| s.1).count(), marks.len(), "{}", net.dump());
    let mut acked = 1u64;
    let (mut ece_bytes, mut ce_bytes) = (0u64, 0u64);
    for a in net.acks().filter(|l| l.dir == Dir::S2C && !l.seg.flags.syn()) {
        let ack = a.seg.ack.min(segs.last().unwrap().0);
        let covered: Vec<bool> = segs.iter().filter(|&&(end, _)| end > acked && end <= ack).map(|s| s.1).collect();
        acked = acked.max(ack);
        if covered.is_empty() {
            continue;
        }
        let state = covered[0];
        assert!(covered.iter().all(|&c| c == state), "ACK {ack} mixes CE states {covered:?}\n{}", net.dump());
        assert_eq!(a.seg.flags.ece(), state, "ACK {ack}: ECE must equal CE of what it covers\n{}", net.dump());
        ece_bytes += if a.seg.flags.ece() { covered.len() as u64 } else { 0 };
        ce_bytes += covered.iter().filter(|&&c| c).count() as u64;
    }
    assert_eq!(ece_bytes, ce_bytes);
    assert_eq!(ce_bytes, marks.len() as u64);
    // Delayed ACKs still apply inside a run: fewer ACKs than segments.
    let acks = net.s.stats().acks_sent;
    assert!(acks < 50, "{acks} ACKs for 60 segments");
}

/// The same pattern under RFC 3168 (cc = reno): ECE latches until CWR, so ECE runs
/// are longer than CE runs; the DCTCP receiver does not latch.
#[test]
fn test_classic_receiver_latches_ece_where_dctcp_does_not() {
    let faults = vec![mark(Target::DataTx(12))];
    let classic = Net::transfer(config(Recovery::Sack, true), 40 * MSS as u64, faults.clone());
    let dctcp = Net::transfer(dctcp(true), 40 * MSS as u64, faults);
    let ece = |n: &Net| n.acks().filter(|l| l.dir == Dir::S2C && !l.seg.flags.syn() && l.seg.flags.ece()).count();
    assert_eq!(ece(&dctcp), 1, "one CE segment, one ECE ACK\n{}", dctcp.dump());
    assert!(ece(&classic) > 1, "RFC 3168 echoes until CWR\n{}", classic.dump());
    assert_eq!(dctcp.c.stats().ecn_reductions, 1);
}

/// The changing segment is ACKed at once: a lone CE segment in the middle of a
/// delayed-ACK pair gets an ACK with old ECE for the data before it (if one was
/// owed), then its own ACK with ECE, then the next segment's ACK without ECE.
#[test]
fn test_ce_change_acks_the_earlier_data_with_the_old_state_first() {
    let net = Net::transfer(dctcp(true), 30 * MSS as u64, vec![mark(Target::DataTx(9))]);
    let ce_end = ce_of_segments(&net).into_iter().find(|s| s.1).unwrap().0;
    let acks: Vec<_> = net.acks().filter(|l| l.dir == Dir::S2C && !l.seg.flags.syn()).collect();
    let i = acks.iter().position(|a| a.seg.ack == ce_end).expect("the CE segment is ACKed on its own");
    assert!(acks[i].seg.flags.ece(), "{}", net.dump());
    assert!(!acks[i - 1].seg.flags.ece() && acks[i - 1].seg.ack == ce_end - MSS as u64, "{}", net.dump());
    assert!(!acks[i + 1].seg.flags.ece(), "{}", net.dump());
}

/// RFC 8257 §3.3 "cwnd = cwnd * (1 - DCTCP.Alpha / 2)" with α as updated by the ACK
/// that carried the ECE, at most once per window of data: two marks in one window,
/// one reduction; the marked SYN-less data is ECT(0).
#[test]
fn test_reduction_is_w_times_one_minus_half_alpha_once_per_window() {
    let faults = vec![mark(Target::DataTx(60)), mark(Target::DataTx(62)), mark(Target::DataTx(250))];
    let net = Net::transfer(dctcp(false), 300 * MSS as u64, faults);
    assert!(net.data().all(|l| l.dir != Dir::C2S || l.seg.retransmit || matches!(l.seg.ecn, Ecn::Ect0 | Ecn::Ce)));
    let cuts: Vec<usize> = (1..net.cc_log.len())
        .filter(|&i| net.cc_log[i].ca == CaState::Cwr && net.cc_log[i - 1].ca != CaState::Cwr)
        .collect();
    assert_eq!(cuts.len(), 2, "marks 60 and 62 share a window\n{}", net.dump());
    assert_eq!(net.c.stats().ecn_reductions, 2);
    for &i in &cuts {
        let (before, at) = (&net.cc_log[i - 1], &net.cc_log[i]);
        let alpha = at.alpha.unwrap();
        assert!(alpha > 0.0 && alpha < 1.0, "α decayed from 1 by the time of the mark: {alpha}");
        let want = (before.cwnd as f64 * (1.0 - alpha / 2.0)).max(2.0 * MSS as f64);
        assert!((at.cwnd as f64 - want).abs() <= 1.0, "cwnd {} → {} with α {alpha}: want {want}", before.cwnd, at.cwnd);
        assert_eq!(at.ssthresh, at.cwnd);
    }
    assert!(net.c.dctcp_alpha().unwrap() < net.cc_log[cuts[1]].alpha.unwrap(), "α decays after the last mark");
}

/// ECT(1) when asked for (`dctcp_ect = 1`).
#[test]
fn test_ect1_option_stamps_new_data_ect1() {
    let mut cfg = dctcp(true);
    cfg.dctcp.ect = 1;
    let net = Net::transfer(cfg, 20 * MSS as u64, vec![]);
    assert!(net.data().filter(|l| l.dir == Dir::C2S && !l.seg.retransmit).all(|l| l.seg.ecn == Ecn::Ect1));
}

/// Linux sends every packet of a DCTCP connection ECT — the SYN
/// (`tcp_ecn_send_syn` when the congestion control needs ECN), pure ACKs and
/// retransmissions (`tcp_ecn_send` clears ECT on them only for the others) —
/// and ns-3's `DctcpEcn` mode does the same, because a DCTCP switch drops a
/// Not-ECT packet that arrives above K. `ect_all_packets` is that rule; without
/// it RFC 3168 §6.1.4 and §6.1.5 hold ("pure acknowledgement packets ... MUST
/// NOT" be ECT; retransmitted data packets "SHOULD NOT").
#[test]
fn test_ect_on_every_packet_with_ect_all_packets() {
    let faults = vec![drop(Target::DataTx(5))];
    for delayed_ack in [false, true] {
        let all = Net::transfer(
            TcpConfig { ect_all_packets: EctPackets::All, ..dctcp(delayed_ack) },
            20 * MSS as u64,
            faults.clone(),
        );
        assert!(all.log.iter().any(|l| l.seg.retransmit && l.seg.payload_len > 0), "{}", all.dump());
        for l in &all.log {
            assert_eq!(l.seg.ecn, Ecn::Ect0, "every packet ECT(0): {:?}\n{}", l.seg, all.dump());
        }
        let rfc = Net::transfer(dctcp(delayed_ack), 20 * MSS as u64, faults.clone());
        for l in &rfc.log {
            let new_data = l.seg.payload_len > 0 && !l.seg.retransmit;
            let want = if new_data { Ecn::Ect0 } else { Ecn::NotEct };
            assert_eq!(l.seg.ecn, want, "RFC 3168: only new data ECT: {:?}\n{}", l.seg, rfc.dump());
        }
        let kinds = |net: &Net| {
            let syn = net.log.iter().filter(|l| l.seg.flags.syn()).count();
            let fin = net.log.iter().filter(|l| l.seg.flags.fin()).count();
            let acks = net.log.iter().filter(|l| l.seg.payload_len == 0 && !l.seg.flags.syn()).count();
            (syn, fin, acks)
        };
        let (syn, fin, acks) = kinds(&rfc);
        assert!(syn == 2 && fin == 2 && acks > 5, "the trace has SYNs, FINs and pure ACKs to check");
    }
}

//! The endpoints' reactions to path impairments, as packet traces: a box on the path
//! (`Net::path`) bleaches the IP-ECN field (RFC 3168 §18), CE-marks every ECT packet,
//! remarks ECT(1) as ECT(0) (RFC 9331 §5.1) or zeroes AccECN's feedback (RFC 9768
//! §3.2.2.3, §3.2.3.2.4). Classic ECN cannot tell a bleached path; AccECN's tests of the
//! path (`rules/accecn_checks.rs`, `tcp.accecn_checks`) can, as RFC 9768 advises and as
//! Linux 7.0 implements them. Setting as `trace.rs` (harness::config: MSS 1000 B, IW 2,
//! 10 ms one-way, 10 Mbit/s); the boxes rewrite every segment of their direction before
//! the fault script acts on it.

mod harness;

use ecnlab_tcp::{AccEcnChecks, AccEcnFailure, CcKind, EcnMode, Recovery, TcpConfig};
use ecnlab_wire::{AccEcnOption, Ecn, Segment};
use harness::*;

fn bleach(s: &mut Segment) {
    s.ecn = Ecn::NotEct;
}
fn ce_all(s: &mut Segment) {
    if s.ecn.is_ect() {
        s.ecn = Ecn::Ce;
    }
}
fn ect1_to_ect0(s: &mut Segment) {
    if s.ecn == Ecn::Ect1 {
        s.ecn = Ecn::Ect0;
    }
}
/// The ACE field of every segment but the SYN and SYN-ACK set to 0b000.
fn zero_ace(s: &mut Segment) {
    if !s.flags.syn() {
        s.flags = s.flags.with_ace(0);
    }
}
/// Every AccECN option's counters set to 0, kind and length kept.
fn zero_option(s: &mut Segment) {
    if let Some(o) = s.accecn.as_mut() {
        *o = AccEcnOption { order1: o.order1, fields: o.fields, ..AccEcnOption::default() };
    }
}
fn strip_option(s: &mut Segment) {
    s.accecn = None;
}

fn classic() -> TcpConfig {
    config(Recovery::Sack, false)
}

fn prague(checks: AccEcnChecks) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Prague,
        ecn: EcnMode::AccEcn,
        ecn_min_cwnd_segments: 2,
        ect_all_packets: true.into(),
        abc: 2,
        accecn_checks: checks,
        ..config(Recovery::Sack, true)
    }
}

fn dctcp() -> TcpConfig {
    TcpConfig {
        cc: CcKind::Dctcp,
        ecn_min_cwnd_segments: 2,
        ect_all_packets: true.into(),
        ..config(Recovery::Sack, true)
    }
}

/// The Client's data segments as it sent them: (IP-ECN set by the Client, IP-ECN on arrival).
fn client_data(net: &Net) -> Vec<(Ecn, Ecn)> {
    net.data().filter(|l| l.dir == Dir::C2S).map(|l| (l.sent_ecn, l.seg.ecn)).collect()
}

/// The Client's window after each change: (cwnd, ssthresh) in segments.
fn windows(net: &Net) -> Vec<u32> {
    net.cc_log.iter().map(|p| p.cwnd / MSS).collect()
}

/// RFC 3168 gives a classic ECN endpoint no way to see its ECT packets arrive Not-ECT: the
/// handshake negotiates ECN (its flags are TCP's, which a bleaching box leaves alone), the
/// sender goes on sending ECT(0), and the receiver sees Not-ECT packets only. An AQM that
/// would have marked one drops it instead (RFC 3168 §5: "the router ... drops a packet
/// that is not ECN-capable"): the sender retransmits where it would have reduced on ECE.
/// Both ends believe ECN is on to the end.
#[test]
fn test_classic_ecn_cannot_tell_a_bleached_path() {
    let clean = Net::transfer(classic(), 40 * MSS as u64, vec![mark(Target::DataTx(12))]);
    assert_eq!((clean.c.stats().ecn_reductions, clean.c.stats().retransmits), (1, 0), "{}", clean.dump());

    let mut net = Net::new(classic(), classic(), vec![mark(Target::DataTx(12))]);
    net.path = [Some(bleach), None];
    net.c.send(40 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert!(net.c.ecn_negotiated() && net.s.ecn_negotiated(), "nothing in the handshake shows it");
    let data = client_data(&net);
    assert!(data.iter().filter(|d| d.0 == Ecn::Ect0).count() >= 40, "the sender keeps sending ECT(0)");
    assert!(data.iter().all(|d| d.1 == Ecn::NotEct), "every one arrives Not-ECT\n{}", net.dump());
    let dropped = net.log.iter().filter(|l| l.fate == Fate::Dropped).count();
    assert_eq!((dropped, net.s.stats().ce_received), (1, 0), "the mark became a drop");
    assert_eq!((net.c.stats().ecn_reductions, net.c.stats().retransmits), (0, 1), "{}", net.dump());
    assert!(net.s.bytes_received() == 40 * MSS as u64 && net.c.is_closed());
}

/// RFC 9768 §3.2.2.4: the SYN-ACK's ACE field tells the Client which IP-ECN field its SYN
/// arrived with (Table 4: Not-ECT 010). Prague's SYN leaves ECT(1) (the reference's ECN++,
/// Linux `tcp_ecn_send_syn` with a congestion control that needs ECN); bleached, it comes
/// back as Not-ECT, an invalid transition (`tcp_ect_transition_valid`). With Linux's check
/// (`tcp_accecn_validate_syn_feedback` → `TCP_ACCECN_ACE_FAIL_RECV`) the Client sends
/// Not-ECT from the handshake on, so the box has nothing left to bleach; without a check
/// every packet leaves ECT(1) and arrives Not-ECT.
#[test]
fn test_accecn_client_detects_its_bleached_syn_in_the_handshake() {
    let run = |checks| Net::through(prague(checks), prague(checks), 30 * MSS as u64, [Some(bleach), None]);
    let linux = run(AccEcnChecks::Linux);
    let syn_ack = linux.acks().next().unwrap();
    assert_eq!(syn_ack.seg.flags.ace(), 0b010, "the SYN arrived Not-ECT\n{}", linux.dump());
    assert_eq!(linux.c.accecn_failure(), Some(AccEcnFailure::HandshakeEcn));
    let data = client_data(&linux);
    assert!(data.len() >= 30 && data.iter().all(|d| d.0 == Ecn::NotEct), "{}", linux.dump());
    assert_eq!(linux.s.accecn_failure(), None, "the SYN-ACK's way back was clean");
    assert!(linux.s.bytes_received() == 30 * MSS as u64);

    let off = run(AccEcnChecks::Off);
    assert_eq!(off.c.accecn_failure(), None);
    assert!(client_data(&off).iter().all(|d| *d == (Ecn::Ect1, Ecn::NotEct)), "{}", off.dump());
}

/// The same test at the Server (RFC 9768 §3.2.2.4; Linux `tcp_accecn_third_ack`): the
/// Client's handshake ACK says its SYN-ACK arrived Not-ECT, so the Server's packets go
/// Not-ECT; a Not-ECT SYN (a Client that does not set ECT on it) shows nothing at all.
#[test]
fn test_accecn_server_detects_its_bleached_syn_ack() {
    let net =
        Net::through(prague(AccEcnChecks::Linux), prague(AccEcnChecks::Linux), 5 * MSS as u64, [None, Some(bleach)]);
    assert_eq!(net.s.handshake_feedback(), Some(Ecn::NotEct));
    assert_eq!(net.s.accecn_failure(), Some(AccEcnFailure::HandshakeEcn), "{}", net.dump());
    assert_eq!(net.c.accecn_failure(), None);
    let after: Vec<Ecn> = net.acks().skip(1).map(|l| l.sent_ecn).collect();
    assert!(!after.is_empty() && after.iter().all(|&e| e == Ecn::NotEct), "{}", net.dump());

    let reno = TcpConfig { ecn: EcnMode::AccEcn, accecn_checks: AccEcnChecks::Linux, ..classic() };
    let plain = Net::through(reno.clone(), reno, 5 * MSS as u64, [Some(bleach), Some(bleach)]);
    assert_eq!((plain.c.accecn_failure(), plain.s.accecn_failure()), (None, None), "Not-ECT SYNs: nothing to see");
}

/// RFC 9768 §3.2.2.3: a box that zeroes the ACE field. The Data Receiver's counter starts at
/// 5, so the first ACK after the handshake with ACE 0b000 shows it. With the RFC's check
/// the Client (the Data Sender) sends Not-ECT from then on and ignores CE feedback. Linux
/// checks only the Server's handshake ACK: its Client reads 0b000 as 3 CE marks
/// ((0 − 5) mod 8) and reduces once for marks that never happened.
#[test]
fn test_zeroed_ace_is_detected_by_the_rfc_check_and_misread_without_it() {
    let reno = |checks| TcpConfig { ecn: EcnMode::AccEcn, accecn_checks: checks, ..classic() };
    let rfc =
        Net::through(reno(AccEcnChecks::Rfc9768), reno(AccEcnChecks::Rfc9768), 30 * MSS as u64, [None, Some(zero_ace)]);
    assert_eq!(rfc.c.accecn_failure(), Some(AccEcnFailure::AceZeroed), "{}", rfc.dump());
    assert_eq!(rfc.c.stats().ecn_reductions, 0);
    let data = client_data(&rfc);
    assert!(data[0].0 == Ecn::Ect0 && data.last().unwrap().0 == Ecn::NotEct, "{}", rfc.dump());

    let linux =
        Net::through(reno(AccEcnChecks::Linux), reno(AccEcnChecks::Linux), 30 * MSS as u64, [None, Some(zero_ace)]);
    assert_eq!(linux.c.accecn_failure(), None);
    assert_eq!(linux.c.stats().ecn_reductions, 1, "a phantom CE count\n{}", linux.dump());
}

/// Linux's Server checks the ACE field of the segment that completes its handshake
/// (`tcp_accecn_third_ack`: 0b000 is no Table 4 code) and stops sending ECT.
#[test]
fn test_linux_server_detects_a_zeroed_handshake_ack() {
    let cfg = TcpConfig { ecn: EcnMode::AccEcn, accecn_checks: AccEcnChecks::Linux, ..classic() };
    let mut net = Net::new(cfg.clone(), cfg, vec![]);
    net.path = [Some(zero_ace), None];
    net.s.send(10 * MSS as u64);
    net.s.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert_eq!(net.s.accecn_failure(), Some(AccEcnFailure::AceZeroed), "{}", net.dump());
    assert!(net.acks().filter(|l| l.seg.payload_len > 0).all(|l| l.sent_ecn == Ecn::NotEct), "{}", net.dump());
    assert_eq!(net.c.bytes_received(), 10 * MSS as u64);
}

/// RFC 9768 §3.2.3.2.4: the first AccECN option has EE0B and EE1B at 1 (§3.2.1); zeroed, the
/// Client ignores the options and counts CE from ACE alone. Without the check a zeroed ECEB
/// (never moving) takes back every CE byte ACE estimated (Appendix A.1): Prague's α, fed
/// the marked bytes, stays 0 after two marked packets, where with the check it rises.
#[test]
fn test_zeroed_option_is_ignored_with_the_check_and_hides_marks_without_it() {
    let run = |checks| {
        let marks = vec![mark(Target::DataTx(20)), mark(Target::DataTx(21))];
        let mut net = Net::new(prague(checks), prague(checks), marks);
        net.path = [None, Some(zero_option)];
        net.c.send(60 * MSS as u64);
        net.c.close();
        net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
        net
    };
    let linux = run(AccEcnChecks::Linux);
    assert!(linux.c.accecn_options_ignored() && linux.c.accecn_failure().is_none());
    let off = run(AccEcnChecks::Off);
    assert!(!off.c.accecn_options_ignored());
    assert_eq!(off.c.dctcp_alpha(), Some(0.0), "the marked bytes were taken back\n{}", off.dump());
    assert!(linux.c.dctcp_alpha().unwrap() > 0.0);
}

/// RFC 9768 §3.2.3.2.2: a SYN-ACK whose option a box stripped leaves the Client on ACE
/// alone, and it sends no option either (Linux `saw_accecn_opt`); CE still gets through.
#[test]
fn test_stripped_option_leaves_ace_alone() {
    let mut net = Net::new(prague(AccEcnChecks::Linux), prague(AccEcnChecks::Linux), vec![mark(Target::DataTx(20))]);
    net.path = [None, Some(strip_option)];
    net.c.send(40 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert!(net.log.iter().filter(|l| l.dir == Dir::C2S).all(|l| l.seg.accecn.is_none()), "{}", net.dump());
    assert_eq!(net.c.stats().ecn_reductions, 1);
    assert_eq!(net.c.accecn_failure(), None);
}

/// CE on every ECT packet (an ISP that marked all of them): each congestion control reduces
/// once per round trip down to its floor and stays there. An RFC 3168 Reno sender halves to
/// 1 segment and there, on every ECE, waits for its retransmission timer before the next
/// new segment (RFC 3168 §6.1.2: "the TCP source ... should reset the retransmit timer on
/// receiving the ECN-Echo packet when the congestion window is one"): one segment per
/// second (RTO_min 1 s), so 200 kB do not get through in 200 s. DCTCP's α climbs towards 1
/// (RFC 8257 §3.3) and it sits at its 2-segment floor, as Prague does with AccECN's counts:
/// 2 segments per 20 ms round trip.
#[test]
fn test_ce_on_everything_pins_every_ecn_sender_at_its_floor() {
    let reno = Net::through(classic(), classic(), 200 * MSS as u64, [Some(ce_all), None]);
    let d = Net::through(dctcp(), dctcp(), 200 * MSS as u64, [Some(ce_all), None]);
    let p =
        Net::through(prague(AccEcnChecks::Linux), prague(AccEcnChecks::Linux), 200 * MSS as u64, [Some(ce_all), None]);
    for (name, net, floor) in [("reno", &reno, 1), ("dctcp", &d, 2), ("prague", &p, 2)] {
        assert!(client_data(net).iter().all(|x| x.1 == Ecn::Ce || x.1 == Ecn::NotEct), "{name} {:?}", client_data(net));
        let w = windows(net);
        let tail = &w[w.len() / 2..];
        assert!(tail.iter().all(|&c| c <= floor + 1), "{name}: cwnd {w:?}");
        assert!(net.c.stats().ecn_reductions >= 10, "{name}: {}", net.c.stats().ecn_reductions);
    }
    assert!(d.c.dctcp_alpha().unwrap() > 0.9 && p.c.dctcp_alpha().unwrap() > 0.9);
    let clean = Net::through(classic(), classic(), 200 * MSS as u64, [None, None]);
    assert!(clean.c.is_closed() && clean.now.as_secs_f64() < 1.0);
    for net in [&d, &p] {
        assert!(net.c.is_closed() && net.now.as_secs_f64() < 3.0, "{}", net.now.as_secs_f64());
    }
    let got = reno.s.bytes_received() / MSS as u64;
    assert!(!reno.c.is_closed() && (150..200).contains(&got), "{got} segments in 200 s\n{}", reno.dump());
}

/// ECT(1) remarked ECT(0) in front of the bottleneck (RFC 9331 §5.1: the packets of an L4S
/// flow land in DualPI2's classic queue). Neither end can object: ECT(1) → ECT(0) is a valid
/// transition (`tcp_ect_transition_valid`), and the receiver's AccECN option reports the
/// bytes as ECT(0) (EE0B grows, EE1B stays at its initial 1), which Prague does not read.
/// It goes on sending ECT(1); an AQM's CE marks reach it as before.
#[test]
fn test_remarked_prague_packets_arrive_ect0_and_nobody_objects() {
    let mut net = Net::new(prague(AccEcnChecks::Linux), prague(AccEcnChecks::Linux), vec![mark(Target::DataTx(20))]);
    net.path = [Some(ect1_to_ect0), None];
    net.c.send(40 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert!(client_data(&net).iter().all(|d| d.0 == Ecn::Ect1 && d.1 != Ecn::Ect1), "{}", net.dump());
    assert_eq!((net.c.accecn_failure(), net.s.accecn_failure()), (None, None));
    let last = net.acks().filter_map(|l| l.seg.accecn.filter(|o| o.fields == 3)).last().unwrap();
    assert!(last.ee0b > 39 * MSS && last.ee1b == 1, "{last:?}");
    assert_eq!(net.c.stats().ecn_reductions, 1);
}

/// The same box in front of a DCTCP sender that marks its packets ECT(1) (`dctcp_ect = 1`, as
/// an L4S DCTCP does): the packets arrive ECT(0), and classic ECN feedback has no field that
/// could show it. DCTCP's reaction to the CE marks it does get is unchanged: α rises with the
/// marked fraction (RFC 8257 §3.3), ECE on the ACKs as before.
#[test]
fn test_remarked_dctcp_packets_arrive_ect0_unseen() {
    let mut cfg = dctcp();
    cfg.dctcp.ect = 1;
    let marks = (20..26).map(|n| mark(Target::DataTx(n))).collect();
    let mut net = Net::new(cfg.clone(), cfg, marks);
    net.path = [Some(ect1_to_ect0), None];
    net.c.send(60 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    let data = client_data(&net);
    assert!(data.iter().all(|d| d.0 == Ecn::Ect1 && d.1 != Ecn::Ect1), "{}", net.dump());
    assert_eq!(net.s.stats().ce_received, 6);
    assert!(net.c.stats().ecn_reductions >= 1 && net.c.dctcp_alpha().unwrap() > 0.0, "{}", net.dump());
}

//! Tail Loss Probe (RFC 8985 §7; Linux `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`; `tcp.tlp`, on in the linux
//! personality), pinned by packet traces against the same runs without it,
//! with and without delayed ACKs. Setting as in `trace.rs` (harness::config)
//! with SACK and RACK's marking in recovery, as the linux personality has them.

mod harness;

use ecnlab_tcp::{LossMarking, Recovery, TailLoss, TcpConfig};
use ecnlab_wire::{Duration, Instant};
use harness::*;

#[track_caller]
fn check(net: &Net, ok: bool, what: &str) {
    assert!(ok, "{what}\n{}", net.dump());
}

fn cfg(delack: bool, tlp: bool) -> TcpConfig {
    TcpConfig { rack: LossMarking::Rack, tlp: tlp.into(), ..config(Recovery::Sack, delack) }
}

/// The Client sends `segments` segments (no FIN) and the run goes on to 60 s.
fn send(cfg: TcpConfig, segments: u64, faults: Vec<Fault>) -> Net {
    let mut net = Net::new(cfg.clone(), cfg, faults);
    net.c.send(segments * MSS as u64);
    net.run(Instant(Duration::from_secs(60).as_nanos()));
    net
}

/// When the last data segment reached the Server.
fn done_at(net: &Net) -> Instant {
    net.data().filter(|l| l.fate == Fate::Sent).map(|l| l.t).max().unwrap()
}

// ------------------------------------------------------------ tail loss
/// RFC 8985 §7.3: "If a previously unsent segment exists AND the receive
/// window allows, send that segment ... Otherwise, retransmit the last
/// segment". The last two segments of a 30-segment transfer are lost: no
/// later segment makes a duplicate ACK, so without TLP only the
/// retransmission timer finds them. With TLP the probe (segment 30 again,
/// nothing new being left to send) is SACKed, RACK marks segment 29 lost and
/// one fast recovery repairs it, without a timeout.
fn tail_loss(delack: bool) {
    let faults = vec![drop(Target::Seq(seg(29))), drop(Target::Seq(seg(30)))];
    let off = send(cfg(delack, false), 30, faults.clone());
    check(&off, off.c.stats().timeouts == 1, "without TLP: the retransmission timer");
    check(&off, off.c.stats().loss_probes == 0, "no probe");
    let on = send(cfg(delack, true), 30, faults);
    let st = on.c.stats();
    check(&on, st.timeouts == 0, "TLP: no timeout");
    check(&on, st.loss_probes == 1, "one probe");
    let first_rtx = on.data().find(|l| l.seg.retransmit).expect("a retransmission");
    check(&on, first_rtx.seg.seq == seg(30), "the probe resends the last segment");
    check(&on, st.fast_retransmits == 1, "its SACK starts one fast recovery");
    check(&on, on.s.bytes_received() == 30 * MSS as u64, "everything delivered");
    check(&on, done_at(&on) < done_at(&off), "done sooner than with the timer");
}

#[test]
fn test_tlp_tail_loss() {
    tail_loss(false)
}

#[test]
fn test_tlp_tail_loss_delack() {
    tail_loss(true)
}

// ------------------------------------------------------------ new data
/// RFC 8985 §7.3, the first branch: the whole initial window (segments 1
/// and 2) is lost, so nothing comes back; the probe is segment 3, new data
/// sent beyond cwnd ("transmit a new segment if one is available"), whose
/// SACK shows the holes.
fn new_data_probe(delack: bool) {
    let faults = vec![drop(Target::Seq(seg(1))), drop(Target::Seq(seg(2)))];
    let off = send(cfg(delack, false), 20, faults.clone());
    check(&off, off.c.stats().timeouts == 1, "without TLP: the retransmission timer");
    let on = send(cfg(delack, true), 20, faults);
    let st = on.c.stats();
    check(&on, st.loss_probes == 1 && st.timeouts == 0, "one probe, no timeout");
    let third = on.data().nth(2).expect("a third data segment");
    check(&on, third.seg.seq == seg(3) && !third.seg.retransmit, "the probe is new data, segment 3");
    check(&on, third.cwnd == 2 * MSS, "sent beyond cwnd (two segments out, cwnd 2)");
    check(&on, on.s.bytes_received() == 20 * MSS as u64, "everything delivered");
}

#[test]
fn test_tlp_new_data_probe() {
    new_data_probe(false)
}

#[test]
fn test_tlp_new_data_probe_delack() {
    new_data_probe(true)
}

// ------------------------------------------------------------ the probe's ACK
/// RFC 8985 §7.4: if the probe's ACK shows that it repaired a loss, "invoke a
/// congestion control response equivalent to fast recovery" (Linux
/// `tcp_process_tlp_ack`: snd_una passes `tlp_high_seq` → reduce the window
/// once). An application-limited flight of 10 segments loses its last one; the
/// probe resends it; once new data sent later is acknowledged the window is
/// reduced: ssthresh from Reno, cwnd = ssthresh (and that ACK's growth), no
/// fast retransmit, no timeout.
fn probe_repairs_loss(delack: bool) {
    let c = cfg(delack, true);
    let mut net = Net::new(c.clone(), c, vec![drop(Target::Seq(seg(10)))]);
    net.c.send(10 * MSS as u64);
    net.run(Instant(Duration::from_secs(5).as_nanos()));
    check(&net, net.s.bytes_received() == 10 * MSS as u64, "the probe delivered segment 10");
    let before = *net.data().last().unwrap();
    check(&net, before.seg.retransmit && before.seg.seq == seg(10), "the last segment sent is the probe");
    net.c.send(10 * MSS as u64);
    net.run(Instant(Duration::from_secs(10).as_nanos()));
    let st = net.c.stats();
    check(&net, st.loss_probes == 1 && st.tlp_recoveries == 1, "one probe, one reduction");
    check(&net, st.timeouts == 0 && st.fast_retransmits == 0, "no timeout, no fast recovery");
    let first = net.cc_log[0].ssthresh;
    let i = net.cc_log.iter().position(|p| p.ssthresh != first).expect("ssthresh set");
    let (before, cut) = (net.cc_log[i - 1], net.cc_log[i]);
    check(&net, cut.ssthresh < before.cwnd && cut.ssthresh >= 2 * MSS, "ssthresh from the congestion control");
    // cwnd = ssthresh (tcp_end_cwnd_reduction), then the same ACK's growth, as in tcp_cong_control.
    check(&net, cut.cwnd >= cut.ssthresh && cut.cwnd <= cut.ssthresh + MSS, "cwnd from ssthresh");
    check(&net, net.s.bytes_received() == 20 * MSS as u64, "everything delivered");
}

#[test]
fn test_tlp_probe_repairs_loss() {
    probe_repairs_loss(false)
}

#[test]
fn test_tlp_probe_repairs_loss_delack() {
    probe_repairs_loss(true)
}

/// TLP needs SACK (`tcp_schedule_loss_probe`: `tcp_is_sack`): without it the
/// tail loss waits for the timer as before.
#[test]
fn test_tlp_needs_sack() {
    let c = TcpConfig { rack: LossMarking::Rack, tlp: TailLoss::Probe, ..config(Recovery::NewReno, false) };
    let net = send(c, 30, vec![drop(Target::Seq(seg(30)))]);
    check(&net, net.c.stats().loss_probes == 0 && net.c.stats().timeouts == 1, "no probe, one timeout");
}

//! The receive window a Linux receiver offers (`rcv_autotune = Linux`,
//! `rcvbuf.rs`): 65 536 bytes' worth at the handshake, then about twice what
//! arrived in order in the last receiver round trip (`tcp_rcv_space_adjust`,
//! `tcp_rcvbuf_grow`), never a right edge further left than one offered before.
//! The Client sends, the Server receives (and autotunes); setting as `trace.rs`
//! (harness::config: 1000-byte segments, 10 ms each way).

mod harness;

use ecnlab_tcp::{RcvAutotune, Recovery, TcpConfig};
use harness::*;

fn receiver(rcv_autotune: RcvAutotune) -> TcpConfig {
    TcpConfig { rcv_autotune, rwnd_bytes: 16 << 20, ..config(Recovery::NewReno, true) }
}

fn run(rcv_autotune: RcvAutotune, bps: u64, bytes: u64, faults: Vec<Fault>) -> Net {
    let sender = TcpConfig { init_cwnd_segments: 10, rwnd_bytes: 16 << 20, ..config(Recovery::NewReno, true) };
    let mut net = Net::new(sender, receiver(rcv_autotune), faults);
    net.rate_bps = [bps; 2];
    net.c.send(bytes);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
    net
}

/// (ack, window) of every segment the Server sent after its SYN-ACK.
fn offers(net: &Net) -> Vec<(u64, u64)> {
    net.acks().filter(|l| !l.seg.flags.syn()).map(|l| (l.seg.ack, u64::from(l.seg.window))).collect()
}

/// "tcp_select_initial_window": 131 072 bytes of buffer at the default scaling
/// ratio ½, rounded down to the MSS: 65 000 with 1000-byte segments. Without
/// autotuning the SYN-ACK offers `rwnd`.
#[test]
fn test_the_syn_ack_offers_tcp_rmem1s_share() {
    let syn_ack = |n: &Net| n.acks().find(|l| l.seg.flags.syn()).expect("a SYN-ACK").seg.window;
    assert_eq!(syn_ack(&run(RcvAutotune::Linux, 10_000_000, 100_000, vec![])), 65_000);
    assert_eq!(syn_ack(&run(RcvAutotune::Off, 10_000_000, 100_000, vec![])), 16 << 20);
}

/// "tcp_rcvbuf_grow: allow the sender to double its rate": at 100 Mbit/s and
/// 20 ms the data in order per receiver round trip (the handshake's, 20.1 ms) is
/// at most the link's 251 KB, so no window exceeds twice that plus the slack of a
/// measurement interval that ends at the first arrival after the round trip; at
/// 10 Mbit/s twice the link's 25 KB stays under the first clamp (65 536 − one
/// segment), so the window never grows. Without autotuning every ACK offers `rwnd`.
#[test]
fn test_the_window_follows_twice_the_data_of_a_round_trip() {
    let bytes = 20_000_000;
    let fast = offers(&run(RcvAutotune::Linux, 100_000_000, bytes, vec![]));
    let max = fast.iter().map(|o| o.1).max().unwrap();
    let link_rtt = 100_000_000 / 8 * 201 / 10_000; // bytes in 20.1 ms at 100 Mbit/s
    assert!(max > 3 * link_rtt / 2 && max <= 2 * link_rtt + 4 * MSS as u64, "max {max}, link per RTT {link_rtt}");
    let slow = offers(&run(RcvAutotune::Linux, 10_000_000, 2_000_000, vec![]));
    assert!(slow.iter().all(|o| o.1 <= 65_000), "{:?}", slow.iter().max_by_key(|o| o.1));
    let off = offers(&run(RcvAutotune::Off, 10_000_000, 2_000_000, vec![]));
    assert!(off.iter().all(|o| o.1 == 16 << 20));
}

/// "tcp_select_window": a window is never shrunk, so the right edge (ack +
/// window) of each ACK is at least every earlier one's.
#[test]
fn test_the_right_edge_never_moves_left() {
    let net = run(RcvAutotune::Linux, 100_000_000, 5_000_000, vec![drop(Target::Seq(seg(900)))]);
    let edges: Vec<u64> = offers(&net).iter().map(|(a, w)| a + w).collect();
    assert!(edges.windows(2).all(|p| p[1] >= p[0]));
}

/// Behind a hole, without SACK: out-of-order data grows the buffer by its span
/// (`tcp_data_queue_ofo` → `tcp_rcvbuf_grow`) but fills it as much, and the
/// target (`rcv_ssthresh`) grows on out-of-order data only for SACK flows, so the
/// right edge stays where it was when the hole opened until the retransmission
/// fills it: the NewReno sender's new data during the recovery stops there
/// (Linux: `unacked` = the window, `rwnd_limited`, docs/emulation.md). Without
/// autotuning the sender goes on to a further edge.
#[test]
fn test_behind_a_hole_the_right_edge_holds() {
    let hole = seg(1500);
    let faults = || vec![drop(Target::Seq(hole))];
    let beyond = |n: &Net| {
        // Data the Client sent before an ACK beyond the hole reached it.
        let repaired = n.c_arrivals.iter().find(|a| a.1 > hole).expect("the hole filled").0;
        n.data().filter(|l| l.t < repaired).map(|l| l.seg.seq + u64::from(l.seg.payload_len)).max().unwrap() - hole
    };
    let linux = run(RcvAutotune::Linux, 100_000_000, 5_000_000, faults());
    let at_hole: Vec<u64> = offers(&linux).iter().filter(|o| o.0 == hole).map(|(a, w)| a + w).collect();
    assert!(at_hole.len() > 10, "duplicate ACKs at the hole: {}", at_hole.len());
    assert!(at_hole.iter().all(|&e| e == at_hole[0]), "{at_hole:?}");
    assert!(beyond(&linux) <= at_hole[0] - hole);
    let off = run(RcvAutotune::Off, 100_000_000, 5_000_000, faults());
    assert!(beyond(&off) > beyond(&linux), "off {} linux {}", beyond(&off), beyond(&linux));
}

//! The source's response to an ICMP Source Quench (RFC 792, type 4 code 0).
//!
//! Source: Floyd 1994, "TCP and Explicit Congestion Notification", §4
//! (guidelines) and §5: "upon receiving an ECN message (e.g., a Source Quench
//! message, or an ACK packet with the ECN bit set) at time t when no responses
//! to congestion have been made in roughly the last roundtrip time, the TCP
//! source halves both the congestion window cwnd and the slow-start threshold
//! ssthresh ... the TCP source doesn't slow-start. The TCP source doesn't
//! respond to succeeding ECNs until all packets outstanding at time t have
//! been acked." This replaces the BSD / RFC 1009 response (cwnd = 1, slow
//! start) that §2 criticises.
//!
//! So a quench is treated exactly as an ECE: the same halving (`halve_window`,
//! including the one-segment rule of RFC 3168 §6.1.2), at most once per window
//! (not while a reduction of any kind is younger than snd_una, not in loss
//! recovery), no retransmission and no new data sent because of it. With ECN
//! negotiated the reduction also sets CWR on the next new segment (RFC 3168
//! §6.1.2: a reduction "for any reason"). Counters: `quenches_received`
//! (every quench delivered to the endpoint) and `quench_reductions`.

use crate::cc::Congestion;
use crate::send::Sender;
use crate::stats::TcpStats;
use crate::window::Phase;
use ecnlab_wire::Instant;

impl Sender {
    /// A Source Quench about this connection reached the sender.
    pub(crate) fn on_source_quench(&mut self, now: Instant, st: &mut TcpStats) {
        st.quenches_received += 1;
        if !self.quench_allowed() {
            return;
        }
        st.quench_reductions += 1;
        self.halve_window(now, Congestion::Quench);
        self.signal_cwr();
    }

    /// Floyd 1994 §4: "react to an ECN at most once per roundtrip time ... ignore
    /// succeeding ECNs if the source has reacted to a previous ECN or to a
    /// dropped packet in the last roundtrip time".
    fn quench_allowed(&self) -> bool {
        self.una > self.reduced_at && matches!(self.win.phase, Phase::Open | Phase::Disorder)
    }
}

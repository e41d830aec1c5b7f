//! Per-connection counters (their names are a contract for users' scripts).

use serde::Serialize;

/// Counters of one endpoint. Every counter counts segments this endpoint sent,
/// except `ce_received` (data segments received with CE), the quench counters
/// and the congestion events (`fast_retransmits`, `timeouts`, `ecn_reductions`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TcpStats {
    /// Every segment sent (SYN, SYN-ACK, data, FIN, pure ACK), retransmissions included.
    pub packets_sent: u64,
    /// Segments with a payload, retransmissions included.
    pub data_packets_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub data_bytes_sent: u64,
    /// Retransmitted data or FIN segments (SYN/SYN-ACK retransmissions are in `syn_retransmits`).
    pub retransmits: u64,
    /// Loss-recovery episodes entered on duplicate ACKs (one per episode).
    pub fast_retransmits: u64,
    /// Retransmission-timer expiries with something to retransmit (handshake included).
    /// The RFC 3168 §6.1.2 "cwnd of one segment" hold timer is not counted when it
    /// expires with nothing outstanding.
    pub timeouts: u64,
    /// ECN-triggered window reductions (RFC 3168 §6.1.2, and the RFC 5562 §3.2 SYN-ACK case).
    pub ecn_reductions: u64,
    /// Data segments received carrying CE.
    pub ce_received: u64,
    /// AccECN data sender (RFC 9768, `accecn.rs`): CE-marked packets learnt
    /// from the ACE field, the wrap safety rule included.
    pub ace_delta_ce: u64,
    /// AccECN data sender: CE-marked payload bytes learnt from the AccECN
    /// option's ECEB counter (RFC 9768 §3.2.3).
    pub accecn_ceb: u64,
    /// Segments sent with ECE set (the SYN / SYN-ACK negotiation flags are not
    /// counted, nor ACE bits under AccECN).
    pub ece_sent: u64,
    /// Segments sent with CWR set (the SYN negotiation flag is not counted, nor ACE bits under AccECN).
    pub cwr_sent: u64,
    /// Pure ACKs: no payload, no SYN, no FIN.
    pub acks_sent: u64,
    /// SYN or SYN-ACK retransmissions.
    pub syn_retransmits: u64,
    /// Segments with a payload that reached this endpoint, duplicates included.
    pub data_packets_received: u64,
    /// ICMP Source Quenches about this connection that reached this endpoint.
    pub quenches_received: u64,
    /// Of those, the ones that reduced the window (at most one per window, `quench.rs`).
    pub quench_reductions: u64,
    /// Tail Loss Probes sent (RFC 8985 §7, `tlp.rs`), and probes that repaired
    /// a loss and so reduced the window. Not in the simulator's flow records.
    #[serde(skip)]
    pub loss_probes: u64,
    #[serde(skip)]
    pub tlp_recoveries: u64,
}

impl TcpStats {
    /// Adds another endpoint's counters (a flow's totals over its connections).
    pub fn accumulate(&mut self, o: &TcpStats) {
        let TcpStats {
            packets_sent,
            data_packets_sent,
            data_bytes_sent,
            retransmits,
            fast_retransmits,
            timeouts,
            ecn_reductions,
            ce_received,
            ace_delta_ce,
            accecn_ceb,
            ece_sent,
            cwr_sent,
            acks_sent,
            syn_retransmits,
            data_packets_received,
            quenches_received,
            quench_reductions,
            loss_probes,
            tlp_recoveries,
        } = o;
        self.packets_sent += packets_sent;
        self.data_packets_sent += data_packets_sent;
        self.data_bytes_sent += data_bytes_sent;
        self.retransmits += retransmits;
        self.fast_retransmits += fast_retransmits;
        self.timeouts += timeouts;
        self.ecn_reductions += ecn_reductions;
        self.ce_received += ce_received;
        self.ace_delta_ce += ace_delta_ce;
        self.accecn_ceb += accecn_ceb;
        self.ece_sent += ece_sent;
        self.cwr_sent += cwr_sent;
        self.acks_sent += acks_sent;
        self.syn_retransmits += syn_retransmits;
        self.data_packets_received += data_packets_received;
        self.quenches_received += quenches_received;
        self.quench_reductions += quench_reductions;
        self.loss_probes += loss_probes;
        self.tlp_recoveries += tlp_recoveries;
    }
}

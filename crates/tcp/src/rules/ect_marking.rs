//! Which packets of an ECN connection are ECN-capable
//! (`TcpConfig::ecn_on_retransmit`, `ect_all_packets`).
//!
//! RFC 3168 §6.1.4 and §6.1.5 make new data ECT and everything else Not-ECT:
//! the SYN, the SYN-ACK, pure ACKs, a FIN without data and retransmissions.
//! CWR goes on the next new data segment (§6.1.2).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `ecn_on_retransmit`: `not_ect` (false) | retransmissions Not-ECT; CWR waits for the next new segment | RFC 3168 §6.1.5, §6.1.2; the `rfc` and `linux` personalities |
//! | `ecn_on_retransmit`: `as_new_data` (true) | retransmissions are sent as new data is: ECT, and carrying the CWR of a pending reduction | ns-2.35 `output()`, which makes every data packet ECT when `ecn_` is set and puts CWR on the next packet sent (`SetCWRonRetransmit_` true); the `ns2` personality |
//! | `ect_all_packets`: `new_data` (false) | only data is ECT | RFC 3168 §6.1.4, §6.1.5 |
//! | `ect_all_packets`: `all` (true) | every packet carries the congestion control's ECT codepoint: the SYN, the SYN-ACK, pure ACKs, FINs and retransmissions as well as new data, because a DCTCP switch drops Not-ECT packets above its marking threshold | Linux for a congestion control that needs ECN (`tcp_ecn_send_syn`, `tcp_ecn_send` with `tcp_ca_needs_ecn`), ns-3 `DctcpEcn`, TCP Prague's ECN++ (draft-ietf-tcpm-generalized-ecn) |
//!
//! `ect_all_packets` follows the congestion control, not the stack: the
//! scenario front sets it with `cc = "dctcp"` and `cc = "prague"`, so no
//! personality sets it. A CE on a packet without data is not echoed either way.

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::ecn_on_retransmit` (the module's table).
    pub enum RetransmitEct {
        /// RFC 3168 §6.1.5: Not-ECT.
        NotEct,
        /// ns-2.35 `output()`: as new data, CWR included.
        AsNewData,
    }
}

two_way_rule! {
    /// `TcpConfig::ect_all_packets` (the module's table).
    pub enum EctPackets {
        /// RFC 3168 §6.1.4: new data only.
        NewData,
        /// Linux with `tcp_ca_needs_ecn`, ns-3 `DctcpEcn`: every packet.
        All,
    }
}

impl RetransmitEct {
    /// Whether a segment of `len` data bytes goes as new data does: ECT, and
    /// carrying a pending CWR.
    pub fn as_new_data(self, len: u32, retransmit: bool) -> bool {
        len > 0 && (!retransmit || self == RetransmitEct::AsNewData)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_rfc3168_sends_only_new_data_as_new_data() {
        let rfc = RetransmitEct::NotEct;
        assert!(rfc.as_new_data(1000, false) && !rfc.as_new_data(1000, true) && !rfc.as_new_data(0, false));
        let ns2 = RetransmitEct::AsNewData;
        assert!(ns2.as_new_data(1000, true) && !ns2.as_new_data(0, true), "a FIN without data stays Not-ECT");
    }
}

//! ECN setup on a retransmitted SYN (`TcpConfig::syn_ecn_fallback`).
//!
//! A path that drops ECN-setup SYNs (a middlebox that discards TCP SYNs with
//! ECE and CWR set) leaves an ECN client without a connection unless its
//! retransmitted SYN stops asking for ECN. RFC 3168 §6.1.1.1: "a host that
//! receives no reply to an ECN-setup SYN within the normal SYN retransmission
//! timeout interval MAY resend the SYN and any subsequent SYN retransmissions
//! with CWR and ECE cleared"; it may also first "retransmit one or more
//! ECN-setup SYN packets before giving up".
//!
//! | variant | a retransmitted SYN | source |
//! |---|---|---|
//! | `off` | asks for ECN again (ECE and CWR; with AccECN AE, CWR and ECE) | RFC 3168 §6.1.1.1 leaves the fallback optional ("MAY"); Linux with `net.ipv4.tcp_ecn_fallback = 0`; the `rfc` and `ns2` personalities |
//! | `retransmissions` | carries no ECN setup: ECE, CWR (and AE) cleared on every retransmission of the SYN, the first included | Linux `__tcp_retransmit_skb` → `tcp_ecn_clear_syn` with `tcp_ecn_fallback = 1` (the default); the `linux` personality |
//!
//! A SYN without ECN setup is answered by a SYN-ACK without it, so the
//! connection runs without ECN (RFC 3168 §6.1.1). Only the client's SYN is
//! concerned: a server's SYN-ACK is retransmitted as RFC 3168 and RFC 5562
//! say (`conn.rs`). The IP-ECN field of the SYN (ECT with a congestion
//! control that needs ECN) is not touched, as Linux leaves it.

use serde::{Deserialize, Serialize};

/// `TcpConfig::syn_ecn_fallback` (the module's table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SynEcnFallback {
    /// Every SYN asks for ECN.
    #[default]
    Off,
    /// Retransmitted SYNs ask for nothing (Linux `tcp_ecn_clear_syn`).
    Retransmissions,
}

impl SynEcnFallback {
    /// Whether a SYN, retransmitted or not, asks for ECN when the endpoint wants it.
    pub fn asks_for_ecn(self, retransmit: bool) -> bool {
        match self {
            SynEcnFallback::Off => true,
            SynEcnFallback::Retransmissions => !retransmit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_only_the_fallback_clears_a_retransmitted_syn() {
        assert!(SynEcnFallback::Off.asks_for_ecn(false) && SynEcnFallback::Off.asks_for_ecn(true));
        let linux = SynEcnFallback::Retransmissions;
        assert!(linux.asks_for_ecn(false) && !linux.asks_for_ecn(true));
    }
}

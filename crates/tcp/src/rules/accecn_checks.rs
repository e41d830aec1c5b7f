//! AccECN's tests of the path (`TcpConfig::accecn_checks`): what an AccECN endpoint checks
//! of the feedback it gets to find a path that bleaches, mangles or zeroes ECN, and what it
//! does when a check fails. RFC 9768 makes each test a "MAY"; Linux 7.0 implements a subset.
//!
//! The tests (RFC 9768, More Accurate ECN Feedback in TCP):
//! - **IP-ECN field of the handshake** (§3.2.2.4, "Testing for Mangling of the IP/ECN
//!   Field"): the SYN-ACK's ACE field says which IP-ECN field the SYN arrived with, the
//!   Client's first ACK which one the SYN-ACK arrived with (Table 4, `accecn.rs`). The
//!   endpoint compares it with the codepoint it sent; an invalid transition makes it send
//!   Not-ECT packets for the rest of the half-connection while it still responds to CE
//!   feedback. Invalid, as Linux `tcp_ect_transition_valid` has it: Not-ECT to anything
//!   else, anything to Not-ECT (bleaching), and CE to ECT; ECT(0) ↔ ECT(1) and ECT to CE
//!   are valid. A SYN that left Not-ECT cannot show bleaching: only an endpoint that sends
//!   its SYN or SYN-ACK ECT (`ect_all_packets`, Linux with a congestion control that needs
//!   ECN, `tcp_ecn_send_syn` / `tcp_ecn_send_synack`) can see it in the handshake.
//! - **ACE zeroed** (§3.2.2.3, "Testing for Zeroing of the ACE Field"): the Data Sender
//!   checks the ACE field of the first feedback packet after the handshake; the Data
//!   Receiver's counter starts at 5, so 0b000 there means a box zeroed it. The endpoint then
//!   sends Not-ECT packets for the rest of the half-connection and does not respond to CE
//!   feedback.
//! - **AccECN option zeroed** (§3.2.3.2.4, "Testing for Zeroing of the AccECN Option"): the
//!   first AccECN option received has EE0B and EE1B at their non-zero initial values
//!   (§3.2.1); a zero there means a box zeroed the option, and the endpoint ignores the
//!   options of the rest of the connection (ACE alone then carries the feedback).
//! - **AccECN option stripped** (§3.2.3.2.2): a SYN-ACK without the option leaves both
//!   ends on ACE alone (`accecn.rs`, every variant: it is how the option is negotiated).
//!
//! | variant | handshake IP-ECN | ACE zeroed | option zeroed | source |
//! |---|---|---|---|---|
//! | `off` | not checked | not checked | not checked | RFC 9768's tests are "MAY"; the `rfc` and `ns2` personalities |
//! | `rfc9768` | both ends: Not-ECT from then on, CE still answered | the first ACE counter after the handshake, at either end: Not-ECT, CE ignored | the first option received, EE0B or EE1B zero: options ignored | RFC 9768 §3.2.2.3, §3.2.2.4, §3.2.3.2.4 |
//! | `linux` | the Client on the SYN-ACK (`tcp_accecn_validate_syn_feedback`), the Server on its handshake-completing ACK (`tcp_accecn_third_ack`): Not-ECT from then on (`TCP_ACCECN_ACE_FAIL_RECV`, `tcp_ecn_send`), CE still answered | the Server only, on the handshake-completing ACK (ACE 0b000 is no Table 4 code, `tcp_accecn_third_ack`): Not-ECT, CE still answered | the first option received, its first field zero (`tcp_accecn_option_init`, `TCP_ACCECN_OPT_FAIL_RECV`): options ignored | Linux 7.0 `include/net/tcp_ecn.h`, `net/ipv4/tcp_input.c`; the `linux` personality |
//!
//! Not modelled: Linux's later option fall-backs (no option seen by 2^23 bytes sent,
//! `TCP_ACCECN_OPTION_PERSIST`), its Server's SYN-ACK retransmission without ACE
//! (`TCP_ACCECN_ACE_FAIL_SEND`), QUIC's ECN validation.

use ecnlab_wire::{AccEcnOption, Ecn};
use serde::{Deserialize, Serialize};

/// `TcpConfig::accecn_checks` (the module's table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccEcnChecks {
    /// No test: the endpoint trusts the path.
    #[default]
    Off,
    /// Every test of RFC 9768 with the reactions it advises.
    Rfc9768,
    /// Linux 7.0's tests and reactions.
    Linux,
}

/// Why an endpoint stopped sending ECT (a failed test of the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccEcnFailure {
    /// The handshake's feedback shows an invalid transition of the IP-ECN field.
    HandshakeEcn,
    /// The first ACE field checked was 0b000.
    AceZeroed,
}

/// Which end checks, for the tests one end makes and the other not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Client,
    Server,
}

/// RFC 9768 §3.2.2.4 with Linux `tcp_ect_transition_valid`: a packet sent `sent` may
/// arrive `received`.
pub fn transition_valid(sent: Ecn, received: Ecn) -> bool {
    sent == received || (sent != Ecn::NotEct && received != Ecn::NotEct && sent != Ecn::Ce)
}

impl AccEcnChecks {
    /// The handshake test: the endpoint sent its SYN (SYN-ACK) `sent`, and the peer fed
    /// back `fed_back` (`None`: a code outside Table 4, which this test does not judge).
    pub fn handshake_fails(self, sent: Ecn, fed_back: Option<Ecn>) -> bool {
        self != AccEcnChecks::Off && fed_back.is_some_and(|r| !transition_valid(sent, r))
    }

    /// The ACE test at `end` on the segment it checks (`handshake_ack`: the Server's
    /// handshake-completing segment, whose ACE is a Table 4 code; else the first segment
    /// after the handshake carrying the counter).
    pub fn ace_fails(self, end: End, handshake_ack: bool, ace: u8) -> bool {
        let checks = match self {
            AccEcnChecks::Off => false,
            AccEcnChecks::Rfc9768 => !handshake_ack,
            AccEcnChecks::Linux => end == End::Server && handshake_ack,
        };
        checks && ace == 0
    }

    /// Whether the endpoint still answers CE feedback after the ACE test failed.
    pub fn answers_ce_after_ace_failure(self) -> bool {
        self == AccEcnChecks::Linux
    }

    /// The option test on the first AccECN option received.
    pub fn option_fails(self, first: &AccEcnOption) -> bool {
        // Field order on the wire: AccECN0 EE0B, ECEB, EE1B; AccECN1 EE1B, ECEB, EE0B.
        let (lead, last) = if first.order1 { (first.ee1b, first.ee0b) } else { (first.ee0b, first.ee1b) };
        match self {
            AccEcnChecks::Off => false,
            AccEcnChecks::Rfc9768 => (first.fields >= 1 && lead == 0) || (first.fields >= 3 && last == 0),
            AccEcnChecks::Linux => first.fields >= 1 && lead == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ecn::*;

    #[test]
    fn test_transitions_bleaching_and_ce_to_ect_are_invalid() {
        for (sent, rcv, valid) in [
            (Ect0, Ect0, true),
            (Ect1, Ect0, true),
            (Ect0, Ect1, true),
            (Ect1, Ce, true),
            (NotEct, NotEct, true),
            (Ect0, NotEct, false),
            (Ect1, NotEct, false),
            (NotEct, Ect0, false),
            (NotEct, Ce, false),
            (Ce, Ect1, false),
        ] {
            assert_eq!(transition_valid(sent, rcv), valid, "{sent:?} -> {rcv:?}");
        }
    }

    #[test]
    fn test_only_the_checking_variants_fail_a_bleached_handshake() {
        assert!(!AccEcnChecks::Off.handshake_fails(Ect1, Some(NotEct)));
        assert!(AccEcnChecks::Rfc9768.handshake_fails(Ect1, Some(NotEct)));
        assert!(AccEcnChecks::Linux.handshake_fails(Ect1, Some(NotEct)));
        assert!(!AccEcnChecks::Linux.handshake_fails(NotEct, Some(NotEct)), "a Not-ECT SYN shows nothing");
        assert!(!AccEcnChecks::Linux.handshake_fails(Ect1, None));
    }

    #[test]
    fn test_ace_zero_is_checked_where_each_variant_looks() {
        let rfc = AccEcnChecks::Rfc9768;
        assert!(rfc.ace_fails(End::Client, false, 0) && rfc.ace_fails(End::Server, false, 0));
        assert!(!rfc.ace_fails(End::Server, false, 5) && !rfc.ace_fails(End::Server, true, 0));
        let linux = AccEcnChecks::Linux;
        assert!(linux.ace_fails(End::Server, true, 0) && !linux.ace_fails(End::Client, false, 0));
        assert!(!AccEcnChecks::Off.ace_fails(End::Server, true, 0));
    }

    #[test]
    fn test_a_zeroed_option_fails_and_the_initial_one_passes() {
        let initial = AccEcnOption { order1: true, fields: 3, ee0b: 1, eceb: 0, ee1b: 1 };
        let zeroed = AccEcnOption { ee0b: 0, ee1b: 0, ..initial };
        for v in [AccEcnChecks::Rfc9768, AccEcnChecks::Linux] {
            assert!(!v.option_fails(&initial) && v.option_fails(&zeroed), "{v:?}");
        }
        assert!(!AccEcnChecks::Off.option_fails(&zeroed));
        let last_only = AccEcnOption { ee0b: 0, ..initial };
        assert!(AccEcnChecks::Rfc9768.option_fails(&last_only) && !AccEcnChecks::Linux.option_fails(&last_only));
    }
}

//! What a retransmission timeout keeps (`TcpConfig::sack_after_rto`,
//! `rto_keeps_recovery_ssthresh`).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `sack_after_rto`: `cleared` (false) | the SACKed bits are turned off and the sender goes back N | RFC 2018 §8; the `rfc` and `ns2` personalities |
//! | `sack_after_rto`: `kept` (true) | the scoreboard is kept: every segment not SACKed below snd_max is lost, and only those are retransmitted, paced by RFC 6675's pipe while cwnd slow-starts | RFC 6675 §5.1 (Update() "SHOULD continue to be used ... after an RTO"), Linux `tcp_enter_loss` / `tcp_timeout_mark_lost`; the `linux` personality |
//! | `rto_keeps_recovery_ssthresh`: `recompute` (false) | every first timeout sets ssthresh by eq. (4) | RFC 5681 §3.1; the `rfc` and `ns2` personalities |
//! | `rto_keeps_recovery_ssthresh`: `keep` (true) | a timeout during a fast recovery keeps the recovery's ssthresh | Linux `tcp_enter_loss` (recomputed only from Open or Disorder, or once high_seq is acknowledged); the `linux` personality |

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::sack_after_rto` (the module's table).
    pub enum RtoScoreboard {
        /// RFC 2018 §8: cleared, go back N.
        Cleared,
        /// RFC 6675 §5.1, Linux `tcp_timeout_mark_lost`: kept, the holes marked lost.
        Kept,
    }
}

two_way_rule! {
    /// `TcpConfig::rto_keeps_recovery_ssthresh` (the module's table).
    pub enum RtoInRecovery {
        /// RFC 5681 §3.1 eq. (4).
        Recompute,
        /// Linux `tcp_enter_loss`: the recovery's ssthresh stays.
        Keep,
    }
}

/// The two rules together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutRules {
    pub scoreboard: RtoScoreboard,
    pub recovery_ssthresh: RtoInRecovery,
}

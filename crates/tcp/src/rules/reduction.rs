//! How cwnd comes down to ssthresh in a reduction, and what duplicate ACKs
//! count for without SACK (`TcpConfig::prr`, `dupacks_as_sacks`).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `prr`: `at_once` (false) | cwnd = ssthresh at once | RFC 6675 §5, RFC 3168 §6.1.2; the `rfc` and `ns2` personalities |
//! | `prr`: `prr` (true) | Proportional Rate Reduction during a SACK fast recovery and the CWR phase after ECN-Echo: cwnd falls to ssthresh over about one RTT, one segment sent per two delivered while pipe exceeds ssthresh (`prr.rs`) | RFC 6937, Linux `tcp_cwnd_reduction`; the `linux` personality |
//! | `dupacks_as_sacks`: `inflation` (false) | NewReno's recovery inflates cwnd by one SMSS per duplicate ACK and deflates it on a partial ACK | RFC 6582; the `rfc` and `ns2` personalities |
//! | `dupacks_as_sacks`: `reno_sacks` (true) | every duplicate ACK counts as one segment SACKed: it leaves the pipe and counts as delivered; a fast retransmit marks the first unacknowledged segment lost, and recovery sends by pipe = FlightSize − dupACKed − lost + retransmitted against cwnd (with `prr` PRR sets cwnd, each duplicate ACK delivering one segment); in Disorder and CWR the dupACKed segments leave the pipe too | Linux `tcp_add_reno_sack`, `tcp_remove_reno_sacks`, `tcp_newreno_mark_lost`; the `linux` personality |
//!
//! `dupacks_as_sacks` applies to `newreno` (and `sack` without SACK); `reno`
//! and `tahoe` keep their own recovery (`recovery.rs`).

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::prr` (the module's table).
    pub enum WindowReduction {
        /// cwnd = ssthresh at once.
        AtOnce,
        /// RFC 6937 PRR (`prr.rs`).
        Prr,
    }
}

two_way_rule! {
    /// `TcpConfig::dupacks_as_sacks` (the module's table).
    pub enum DupAckAccounting {
        /// RFC 6582: cwnd inflated per duplicate ACK.
        Inflation,
        /// Linux `tcp_add_reno_sack`: each duplicate ACK one segment SACKed.
        RenoSacks,
    }
}

/// The two rules together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReductionRules {
    pub pace: WindowReduction,
    pub dupacks: DupAckAccounting,
}

impl ReductionRules {
    pub fn prr(self) -> bool {
        self.pace == WindowReduction::Prr
    }

    pub fn reno_sacks(self) -> bool {
        self.dupacks == DupAckAccounting::RenoSacks
    }
}

//! Limited Transmit (`TcpConfig::limited_transmit`, `limited_transmit_all`):
//! new data on the first duplicate ACKs, beyond cwnd.
//!
//! RFC 3042 §2: "a TCP sender SHOULD send a segment of previously unsent data
//! in response to each of the first two duplicate acknowledgments ... the
//! amount of outstanding data would remain less than or equal to the
//! congestion window plus 2 segments"; cwnd itself does not change. The stacks
//! differ on the states in which it applies:
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `limited_transmit`: `off` (false) | no segment beyond cwnd | RFC 5681 without RFC 3042 |
//! | `limited_transmit`: `rfc3042` (true) | up to two segments beyond cwnd on the first two duplicate ACKs | RFC 3042 §2, ns-2.35 `singledup_`, Linux (its `sacked_out` leaves the pipe); every personality |
//! | `limited_transmit_all`: `open` (false) | only in an episode's first duplicate ACKs (Disorder) | RFC 3042 §2; the `rfc` and `linux` personalities |
//! | `limited_transmit_all`: `any_phase` (true) | also after an ECN reduction and after a timeout, on any of the first DupThresh − 1 duplicate ACKs | ns-2.35 `send_one()`, which looks at `dupacks_` only; the `ns2` personality |

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::limited_transmit` (the module's table).
    pub enum LimitedTransmit {
        /// No segment beyond cwnd.
        Off,
        /// RFC 3042.
        Rfc3042,
    }
}

two_way_rule! {
    /// `TcpConfig::limited_transmit_all` (the module's table).
    pub enum LimitedTransmitPhases {
        /// RFC 3042 §2: in Disorder only.
        Open,
        /// ns-2.35 `send_one()`: also in CWR and Loss, below DupThresh duplicate ACKs.
        AnyPhase,
    }
}

/// Limited Transmit's two rules together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitedTransmitRules {
    pub on: LimitedTransmit,
    pub phases: LimitedTransmitPhases,
}

impl LimitedTransmitRules {
    pub fn enabled(self) -> bool {
        self.on == LimitedTransmit::Rfc3042
    }

    /// Whether Limited Transmit may send now: `disorder` in an episode's first
    /// duplicate ACKs, `reduced` after an ECN reduction or a timeout, with
    /// `dupacks` duplicate ACKs of `dupthresh`.
    pub fn applies(self, disorder: bool, reduced: bool, dupacks: u32, dupthresh: u32) -> bool {
        let phase = disorder || (reduced && self.phases == LimitedTransmitPhases::AnyPhase && dupacks < dupthresh);
        self.enabled() && phase
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_only_ns2_sends_beyond_cwnd_after_a_reduction() {
        let rfc = LimitedTransmitRules { on: LimitedTransmit::Rfc3042, phases: LimitedTransmitPhases::Open };
        let ns2 = LimitedTransmitRules { phases: LimitedTransmitPhases::AnyPhase, ..rfc };
        assert!(rfc.applies(true, false, 1, 3) && ns2.applies(true, false, 1, 3));
        assert!(!rfc.applies(false, true, 1, 3) && ns2.applies(false, true, 1, 3));
        assert!(!ns2.applies(false, true, 3, 3), "at DupThresh: a fast retransmit, not Limited Transmit");
        let off = LimitedTransmitRules { on: LimitedTransmit::Off, ..ns2 };
        assert!(!off.applies(true, false, 1, 3));
    }
}

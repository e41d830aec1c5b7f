//! What tells a SACK sender a segment is lost (`TcpConfig::sack_is_lost`,
//! `rack`, `tlp`): the trigger of a SACK recovery, the marking of lost
//! segments within it, and a loss at the tail of a flight.
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `sack_is_lost`: `dup_acks` (false) | SACK recovery starts on the DupThresh-th duplicate ACK only | ns-2.35 Sack1 `dupack_action` at `numdupacks_`; the `ns2` personality |
//! | `sack_is_lost`: `dup_acks_or_is_lost` (true) | also when IsLost says the first hole is lost (DupThresh segments SACKed above it) | RFC 6675 §5 step 4; the `rfc` and `linux` personalities |
//! | `rack`: `rfc6675` (false) | a hole is lost by IsLost; a lost retransmission waits for the retransmission timer | RFC 6675 §4; the `rfc` and `ns2` personalities |
//! | `rack`: `rack` (true) | a hole below any SACKed segment is lost, and a retransmission is lost once data sent after it is SACKed, and goes again at once (`rack.rs`) | RFC 8985 §6.2 without reordering, Linux `tcp_rack_detect_loss`; the `linux` personality |
//! | `tlp`: `rto` (false) | a tail loss waits for the retransmission timer | RFC 6298; the `rfc` and `ns2` personalities |
//! | `tlp`: `probe` (true) | with SACK, after about two round trips without an ACK in Open or CWR, one probe segment (`tlp.rs`) | RFC 8985 §7, Linux `tcp_schedule_loss_probe` (`tcp_early_retrans` = 3); the `linux` personality |

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::sack_is_lost` (the module's table).
    pub enum SackRecoveryTrigger {
        /// ns-2.35 Sack1: the DupThresh-th duplicate ACK only.
        DupAcks,
        /// RFC 6675 §5 step 4: that, or IsLost of the first hole.
        DupAcksOrIsLost,
    }
}

two_way_rule! {
    /// `TcpConfig::rack` (the module's table).
    pub enum LossMarking {
        /// RFC 6675 IsLost.
        Rfc6675,
        /// RFC 8985 RACK (`rack.rs`).
        Rack,
    }
}

two_way_rule! {
    /// `TcpConfig::tlp` (the module's table).
    pub enum TailLoss {
        /// The retransmission timer.
        Rto,
        /// RFC 8985 §7 Tail Loss Probe (`tlp.rs`).
        Probe,
    }
}

/// The three rules together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossDetection {
    pub trigger: SackRecoveryTrigger,
    pub marking: LossMarking,
    pub tail: TailLoss,
}

impl LossDetection {
    /// Whether RFC 6675 IsLost of the first hole may start a SACK recovery.
    pub fn is_lost_starts_recovery(self) -> bool {
        self.trigger == SackRecoveryTrigger::DupAcksOrIsLost
    }

    /// Whether a Tail Loss Probe replaces the retransmission timer at the tail.
    pub fn probes_tail(self) -> bool {
        self.tail == TailLoss::Probe
    }
}

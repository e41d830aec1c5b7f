//! When the retransmission timer restarts and backs off outside a timeout
//! (`TcpConfig::rtx_restart_on_fr`, `timer_before_sample`, `ecn_backoff`).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `rtx_restart_on_fr`: `keep` (false) | a fast retransmit leaves the running timer; only ACKs of new data restart it | RFC 6298 (5.1), (5.3); the `rfc` and `linux` personalities |
//! | `rtx_restart_on_fr`: `restart` (true) | a fast retransmit restarts the timer (no backoff) | ns-2.35: every `dupack_action` calls `reset_rtx_timer`; the `ns2` personality |
//! | `timer_before_sample`: `after_sample` (false) | an ACK of new data restarts the timer after its RTT sample updated the RTO and cleared the backoff | RFC 6298 (5.3) with (5.7); ns-2.35's default `timerfix_` true; every personality |
//! | `timer_before_sample`: `before_sample` (true) | the timer restarts first, with the old (backed-off) RTO | ns-2.35 with `timerfix_` false |
//! | `ecn_backoff`: `reset` (false) | every ECN-Echo at a window of one segment holds sending for one RTO | RFC 3168 §6.1.2 ("reset the retransmit timer"); the `rfc` and `linux` personalities |
//! | `ecn_backoff`: `doubling` (true) | a second ECN-Echo in a row at one segment doubles the hold, until an ACK without ECE | ns-2.35 `ecn()` with `ecn_backoff_`; the `ns2` personality |

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::rtx_restart_on_fr` (the module's table).
    pub enum FastRetransmitTimer {
        /// RFC 6298 (5.1): the running timer is kept.
        Keep,
        /// ns-2.35 `reset_rtx_timer` in `dupack_action`.
        Restart,
    }
}

two_way_rule! {
    /// `TcpConfig::timer_before_sample` (the module's table).
    pub enum NewAckTimer {
        /// RFC 6298 (5.3) after (5.7): the sample first.
        AfterSample,
        /// ns-2.35 `timerfix_` false: the restart first.
        BeforeSample,
    }
}

two_way_rule! {
    /// `TcpConfig::ecn_backoff` (the module's table).
    pub enum EcnHold {
        /// RFC 3168 §6.1.2: each hold lasts one RTO.
        Reset,
        /// ns-2.35 `ecn_backoff_`: a second hold in a row backs the timer off.
        Doubling,
    }
}

/// The three timer rules together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRules {
    pub fast_retransmit: FastRetransmitTimer,
    pub new_ack: NewAckTimer,
    pub ecn_hold: EcnHold,
}

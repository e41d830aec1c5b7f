//! TCP rules where the stacks differ, one file per mechanism, each an enum
//! whose variants are the stacks' behaviours, its header the rule's spec with
//! its sources. The personalities (`personality.rs`) choose a variant each.
//!
//! A rule of two behaviours keeps the scenario key and engine JSON field it
//! always had, a boolean: `false` is its first variant, `true` its second
//! (`two_way_rule!`). The sender keeps the rules it asks as one `Copy` value,
//! [`SenderRules`], built once from the `TcpConfig`, so that the per-packet path
//! reads them beside the send state and not through the shared configuration.

pub mod accecn_checks;
pub mod ect_marking;
pub mod fin;
pub mod limited_transmit;
pub mod loss_detection;
pub mod receiver_ack;
pub mod recover_guard;
pub mod reduction;
pub mod rtx_timer;
pub mod syn_fallback;
pub mod timeout;

use crate::config::{GrowthArith, NewRenoTimer, SsthreshBasis, TcpConfig, WindowArith};
use crate::idle::IdleRestart;

/// Declares a rule of two behaviours: the enum, written in JSON as the boolean
/// of its field (`false`: the first variant, `true`: the second).
macro_rules! two_way_rule {
    ($(#[$meta:meta])* pub enum $name:ident {
        $(#[$off_meta:meta])* $off:ident,
        $(#[$on_meta:meta])* $on:ident $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(from = "bool", into = "bool")]
        pub enum $name {
            $(#[$off_meta])* $off,
            $(#[$on_meta])* $on,
        }

        impl From<bool> for $name {
            fn from(on: bool) -> Self {
                if on { $name::$on } else { $name::$off }
            }
        }

        impl From<$name> for bool {
            fn from(rule: $name) -> bool {
                rule == $name::$on
            }
        }
    };
}
pub(crate) use two_way_rule;

/// The rules the sender asks (`send.rs`, `recovery.rs`), copied once from the
/// `TcpConfig`: one small value in place of a flag per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SenderRules {
    pub(crate) guards: recover_guard::RecoverGuards,
    pub(crate) loss: loss_detection::LossDetection,
    pub(crate) limited_transmit: limited_transmit::LimitedTransmitRules,
    pub(crate) timer: rtx_timer::TimerRules,
    pub(crate) timeout: timeout::TimeoutRules,
    pub(crate) reduction: reduction::ReductionRules,
    pub(crate) fin: fin::FinPlacement,
    pub(crate) retransmit_ect: ect_marking::RetransmitEct,
    pub(crate) ect_packets: ect_marking::EctPackets,
    pub(crate) newreno_timer: NewRenoTimer,
    pub(crate) window_arith: WindowArith,
    pub(crate) ssthresh_basis: SsthreshBasis,
    pub(crate) growth_arith: GrowthArith,
    pub(crate) idle_restart: IdleRestart,
}

impl SenderRules {
    pub(crate) fn of(cfg: &TcpConfig) -> Self {
        SenderRules {
            guards: recover_guard::RecoverGuards {
                recoveries: cfg.recover_guard_all,
                sack: cfg.sack_recover_guard,
                after_timeout: cfg.guard_after_timeout,
            },
            loss: loss_detection::LossDetection { trigger: cfg.sack_is_lost, marking: cfg.rack, tail: cfg.tlp },
            limited_transmit: limited_transmit::LimitedTransmitRules {
                on: cfg.limited_transmit,
                phases: cfg.limited_transmit_all,
            },
            timer: rtx_timer::TimerRules {
                fast_retransmit: cfg.rtx_restart_on_fr,
                new_ack: cfg.timer_before_sample,
                ecn_hold: cfg.ecn_backoff,
            },
            timeout: timeout::TimeoutRules {
                scoreboard: cfg.sack_after_rto,
                recovery_ssthresh: cfg.rto_keeps_recovery_ssthresh,
            },
            reduction: reduction::ReductionRules { pace: cfg.prr, dupacks: cfg.dupacks_as_sacks },
            fin: cfg.fin_with_data,
            retransmit_ect: cfg.ecn_on_retransmit,
            ect_packets: cfg.ect_all_packets,
            newreno_timer: cfg.newreno_timer,
            window_arith: cfg.window_arith,
            ssthresh_basis: cfg.ssthresh_basis,
            growth_arith: cfg.growth_arith,
            idle_restart: cfg.idle_restart,
        }
    }

    /// ns-2.35's `slowdown()` arithmetic (`WindowArith::Ns2`).
    pub(crate) fn ns2_window(&self) -> bool {
        self.window_arith == WindowArith::Ns2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::reduction::WindowReduction;

    #[test]
    fn test_a_two_way_rule_reads_and_writes_the_boolean_of_its_field() {
        assert_eq!(serde_json::from_str::<WindowReduction>("true").unwrap(), WindowReduction::Prr);
        assert_eq!(serde_json::from_str::<WindowReduction>("false").unwrap(), WindowReduction::AtOnce);
        assert_eq!(serde_json::to_string(&WindowReduction::Prr).unwrap(), "true");
        assert!(serde_json::from_str::<WindowReduction>("\"prr\"").is_err());
    }

    #[test]
    fn test_sender_rules_are_small() {
        assert!(std::mem::size_of::<SenderRules>() <= 24, "{} bytes", std::mem::size_of::<SenderRules>());
    }
}

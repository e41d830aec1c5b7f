//! When a new fast retransmit may start: the guards on `recover`
//! (`TcpConfig::recover_guard_all`, `sack_recover_guard`, `guard_after_timeout`).
//!
//! RFC 6582 §3.2 step 1 starts a new NewReno episode only "if the Cumulative
//! Acknowledgment field covers more than recover" (snd_max at the last fast
//! retransmit or timeout): the duplicate ACKs that follow a recovery or a
//! timeout's go-back-N retransmissions are no news of a new loss. RFC 6675 §5
//! keeps the rule for SACK recovery; RFC 6582 §4 applies it after a timeout
//! whatever the recovery. The stacks differ on which recoveries it guards:
//!
//! | field: variant | which recoveries wait for the ACK to pass `recover` | source |
//! |---|---|---|
//! | `recover_guard_all`: `new_reno_and_sack` (false) | NewReno and SACK only | RFC 6582 §3.2 step 1, RFC 6675 §5; the `rfc` and `linux` personalities |
//! | `recover_guard_all`: `every_recovery` (true) | Tahoe and Reno as well | ns-2.35 `bugFix_` (default true) in every agent's `dupack_action`; the `ns2` personality |
//! | `sack_recover_guard`: `unguarded` (false) | SACK recovery does not wait: a loss just above the last episode's recovery point needs no timeout | Linux `tcp_fastretrans_alert` enters Recovery from Open or Disorder whenever `tcp_time_to_recover` says so (its `high_seq` check is Reno's, `tcp_try_undo_recovery`); the `linux` personality |
//! | `sack_recover_guard`: `rfc6675` (true) | SACK recovery waits | RFC 6675 §5 with RFC 6582's rule; the `rfc` and `ns2` personalities |
//! | `guard_after_timeout`: `unguarded` (false) | after a timeout, only the guards above | ns-2.35 Tahoe and Reno with `bugFix_` false |
//! | `guard_after_timeout`: `rfc6582` (true) | after a timeout, every recovery until the ACK passes snd_max at the timeout | RFC 6582 §4; every personality |

use crate::config::Recovery;
use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::recover_guard_all` (the module's table).
    pub enum GuardedRecoveries {
        /// RFC 6582 §3.2, RFC 6675 §5: NewReno and SACK wait for `recover`.
        NewRenoAndSack,
        /// ns-2.35 `bugFix_`: Tahoe and Reno wait as well.
        EveryRecovery,
    }
}

two_way_rule! {
    /// `TcpConfig::sack_recover_guard` (the module's table).
    pub enum SackGuard {
        /// Linux `tcp_fastretrans_alert`: SACK recovery starts whenever loss is detected.
        Unguarded,
        /// RFC 6675 §5: SACK recovery waits for the ACK to pass `recover`.
        Rfc6675,
    }
}

two_way_rule! {
    /// `TcpConfig::guard_after_timeout` (the module's table).
    pub enum TimeoutGuard {
        /// ns-2.35 Tahoe and Reno with `bugFix_` false: no guard of its own after a timeout.
        Unguarded,
        /// RFC 6582 §4: no fast retransmit until the ACK passes snd_max at the timeout.
        Rfc6582,
    }
}

/// The three guards together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoverGuards {
    pub recoveries: GuardedRecoveries,
    pub sack: SackGuard,
    pub after_timeout: TimeoutGuard,
}

impl RecoverGuards {
    /// Whether a fast retransmit must wait: `una` is the cumulative ACK,
    /// `recover` snd_max at the last fast retransmit or timeout, `rto_recover`
    /// snd_max at the last timeout; `use_sack`: SACK recovery is in use.
    pub fn blocks(self, recovery: Recovery, use_sack: bool, una: u64, recover: u64, rto_recover: u64) -> bool {
        let guarded = self.recoveries == GuardedRecoveries::EveryRecovery
            || match recovery {
                Recovery::Tahoe | Recovery::Reno => false,
                Recovery::NewReno => true,
                // SACK not negotiated: NewReno's recovery, and its guard.
                Recovery::Sack => !use_sack || self.sack == SackGuard::Rfc6675,
            };
        let after_timeout = self.after_timeout == TimeoutGuard::Rfc6582 && una <= rto_recover;
        after_timeout || (guarded && una <= recover)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC: RecoverGuards = RecoverGuards {
        recoveries: GuardedRecoveries::NewRenoAndSack,
        sack: SackGuard::Rfc6675,
        after_timeout: TimeoutGuard::Rfc6582,
    };

    #[test]
    fn test_rfc_guards_newreno_and_sack_but_not_reno() {
        assert!(RFC.blocks(Recovery::NewReno, false, 10, 10, 0));
        assert!(RFC.blocks(Recovery::Sack, true, 10, 10, 0));
        assert!(!RFC.blocks(Recovery::Reno, false, 10, 10, 0));
        assert!(!RFC.blocks(Recovery::NewReno, false, 11, 10, 0), "past recover");
    }

    #[test]
    fn test_ns2_bugfix_guards_tahoe_and_reno() {
        let ns2 = RecoverGuards { recoveries: GuardedRecoveries::EveryRecovery, ..RFC };
        assert!(ns2.blocks(Recovery::Tahoe, false, 10, 10, 0) && ns2.blocks(Recovery::Reno, false, 10, 10, 0));
    }

    #[test]
    fn test_linux_leaves_sack_recovery_unguarded_but_not_sackless_recovery() {
        let linux = RecoverGuards { sack: SackGuard::Unguarded, ..RFC };
        assert!(!linux.blocks(Recovery::Sack, true, 10, 10, 0));
        assert!(linux.blocks(Recovery::Sack, false, 10, 10, 0), "SACK not negotiated: NewReno's guard");
    }

    #[test]
    fn test_the_timeout_guard_holds_every_recovery_until_snd_max_at_the_timeout() {
        assert!(RFC.blocks(Recovery::Reno, false, 10, 0, 10));
        let off = RecoverGuards { after_timeout: TimeoutGuard::Unguarded, ..RFC };
        assert!(!off.blocks(Recovery::Reno, false, 10, 0, 10));
    }
}

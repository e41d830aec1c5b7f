//! Congestion-window state: the phase (CaState with its data) and RFC 5681 growth.
//!
//! Window arithmetic is in bytes and per ACK (no RFC 3465 byte counting):
//! - slow start while cwnd < ssthresh: cwnd += SMSS per ACK of new data (RFC 5681 eq. 2);
//! - congestion avoidance otherwise: cwnd += max(1, SMSS·SMSS / cwnd) per ACK
//!   of new data (RFC 5681 eq. 3), integer division.
//!
//! A reduction (ECN, fast retransmit, timeout) sets ssthresh = max(FlightSize/2,
//! 2·SMSS) (RFC 5681 eq. 4) with FlightSize = snd_max − snd_una *after* the ACK
//! that triggered it was applied.

use crate::config::Variant;
use core::fmt;

/// Congestion-control state as Linux and ns-3 name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs seen, fewer than the threshold.
    Disorder,
    /// The window was reduced for ECN; further ECE is ignored for this window.
    Cwr,
    /// Fast retransmit / fast recovery.
    Recovery,
    /// After a retransmission timeout, until everything sent before it is acknowledged.
    Loss,
}

impl fmt::Display for CaState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        };
        f.write_str(s)
    }
}

/// [`CaState`] with the sequence number that ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Open,
    Disorder,
    /// Ends when snd_una passes `until` (snd_max at the ECN reduction).
    Cwr {
        until: u64,
    },
    /// Ends when snd_una reaches `recover` (snd_max at entry); Reno ends on any new ACK.
    Recovery {
        recover: u64,
    },
    /// Ends when snd_una reaches `recover` (snd_max at the timeout).
    Loss {
        recover: u64,
    },
}

impl Phase {
    pub(crate) fn ca_state(self) -> CaState {
        match self {
            Phase::Open => CaState::Open,
            Phase::Disorder => CaState::Disorder,
            Phase::Cwr { .. } => CaState::Cwr,
            Phase::Recovery { .. } => CaState::Recovery,
            Phase::Loss { .. } => CaState::Loss,
        }
    }
}

/// Upper bound on cwnd, to keep the byte arithmetic far from overflow.
const CWND_MAX: u32 = u32::MAX / 4;

#[derive(Clone, Debug)]
pub(crate) struct Cc {
    pub(crate) variant: Variant,
    pub(crate) mss: u32,
    pub(crate) cwnd: u32,
    pub(crate) ssthresh: u32,
    pub(crate) phase: Phase,
    pub(crate) dupacks: u32,
    pub(crate) dupthresh: u32,
    /// RFC 6582 `recover`: snd_max at the last recovery entry or timeout.
    pub(crate) recover: u64,
}

impl Cc {
    pub(crate) fn new(variant: Variant, dupthresh: u32) -> Self {
        Cc {
            variant,
            mss: 536,
            cwnd: 536,
            // RFC 5681 §3.1: ssthresh starts arbitrarily high.
            ssthresh: u32::MAX / 2,
            phase: Phase::Open,
            dupacks: 0,
            dupthresh: dupthresh.max(1),
            recover: 0,
        }
    }

    /// RFC 5681 §3.1: IW in bytes once the MSS is known.
    pub(crate) fn init(&mut self, mss: u32, init_cwnd_segments: u32) {
        self.mss = mss;
        self.cwnd = mss.saturating_mul(init_cwnd_segments.max(1));
    }

    /// RFC 5681 eq. (2) and (3), per ACK of new data.
    pub(crate) fn grow(&mut self) {
        let inc = if self.cwnd < self.ssthresh {
            self.mss
        } else {
            (self.mss as u64 * self.mss as u64 / self.cwnd as u64).max(1) as u32
        };
        self.cwnd = self.cwnd.saturating_add(inc).min(CWND_MAX);
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS).
    pub(crate) fn halve(&mut self, flight: u64) {
        let half = (flight / 2).min(CWND_MAX as u64) as u32;
        self.ssthresh = half.max(2 * self.mss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_slow_start_then_congestion_avoidance() {
        let mut cc = Cc::new(Variant::Reno, 3);
        cc.init(1000, 2);
        cc.ssthresh = 3000;
        cc.grow();
        assert_eq!(cc.cwnd, 3000);
        cc.grow(); // CA: 1000·1000/3000 = 333
        assert_eq!(cc.cwnd, 3333);
    }

    #[test]
    fn test_halve_has_two_segment_floor() {
        let mut cc = Cc::new(Variant::Reno, 3);
        cc.init(1000, 2);
        cc.halve(3000);
        assert_eq!(cc.ssthresh, 2000);
        cc.halve(9000);
        assert_eq!(cc.ssthresh, 4500);
    }
}

//! The sender's window state: cwnd and ssthresh (bytes), the phase (CaState
//! with the sequence number that ends it), duplicate-ACK count and RFC 6582
//! `recover`. How cwnd grows and what ssthresh a congestion event leaves is
//! the congestion control's (`cc/`); what the phases do is loss recovery's
//! (`recovery.rs`).

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
pub(crate) const CWND_MAX: u32 = u32::MAX / 4;

#[derive(Clone, Debug)]
pub(crate) struct Window {
    pub(crate) mss: u32,
    pub(crate) cwnd: u32,
    pub(crate) ssthresh: u32,
    pub(crate) phase: Phase,
    pub(crate) dupacks: u32,
    pub(crate) dupthresh: u32,
    /// RFC 6582 `recover`: snd_max at the last recovery entry or timeout.
    pub(crate) recover: u64,
    /// snd_max at the last retransmission timeout (RFC 6582 §4, every recovery).
    pub(crate) rto_recover: u64,
}

impl Window {
    pub(crate) fn new(dupthresh: u32) -> Self {
        Window {
            mss: 536,
            cwnd: 536,
            // RFC 5681 §3.1: ssthresh starts arbitrarily high.
            ssthresh: u32::MAX / 2,
            phase: Phase::Open,
            dupacks: 0,
            dupthresh: dupthresh.max(1),
            recover: 0,
            rto_recover: 0,
        }
    }

    /// RFC 5681 §3.1: IW in bytes once the MSS is known.
    pub(crate) fn init(&mut self, mss: u32, init_cwnd_segments: u32) {
        self.mss = mss;
        self.cwnd = mss.saturating_mul(init_cwnd_segments.max(1));
    }
}

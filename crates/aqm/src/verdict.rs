//! What an AQM tells its host queue about one packet.
//!
//! Source: Linux `include/net/red.h` `red_action` returns a severity
//! (`RED_DONT_MARK | RED_PROB_MARK | RED_HARD_MARK`) and `sch_red.c` chooses
//! mark or drop, once per packet. The AQM says
//! *how congested*; the host (`queue.rs`) alone turns a signal into a CE mark
//! (ECN on, packet ECN-capable) or a drop.

use serde::Serialize;

/// Why a packet was not enqueued (ns-3 QueueDisc drop reasons, flattened).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// RED's probabilistic region (Floyd & Jacobson 1993 §4, "early" drop).
    Early,
    /// RED's forced region (average above `max_th`, or `2·max_th` when gentle).
    Forced,
    /// The physical limit (`limit_pkts` / `limit_bytes`) was reached.
    Overflow,
}

/// Which region of the AQM produced a congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SignalKind {
    Early,
    Forced,
    /// A threshold rule (step marker): counted in `step_marks` too; drops as early.
    Step,
}

impl SignalKind {
    /// The drop reason used when the signal cannot be a CE mark.
    pub(crate) fn drop_reason(self) -> DropReason {
        match self {
            SignalKind::Early | SignalKind::Step => DropReason::Early,
            SignalKind::Forced => DropReason::Forced,
        }
    }
}

/// The AQM's decision for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No congestion signal: enqueue if the physical limit allows.
    Pass,
    /// Congestion signal: mark CE if ECN is on and the packet is ECN-capable, else drop.
    Signal(SignalKind),
    /// Drop regardless of ECN.
    Drop(DropReason),
}

/// How an admitted packet was enqueued: what [`crate::AqmQueue::enqueue_signalled`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Enqueued {
    /// No congestion signal.
    Plain,
    /// CE-marked by this queue (RFC 3168 §5).
    Marked,
    /// Forwarded unchanged; the caller must send an ICMP Source Quench to the
    /// packet's source (RFC 792; Floyd 1994 §9.1 "backward ECN").
    Quench,
}

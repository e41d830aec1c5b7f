//! Queue counters and time-weighted queue-length averages.
//!
//! Source: ns-3 `QueueDisc::Stats` (`nTotalReceivedPackets`,
//! `nTotalDroppedPacketsBeforeEnqueue`, `nTotalMarkedPackets`, ...) and its
//! identities, which every operation checks with `debug_assert!`:
//!
//! ```text
//! arrivals = enqueued + early_drops + forced_drops + overflow_drops
//! queued   = enqueued - dequeued
//! marks + quenches <= enqueued
//! ```
//!
//! The average queue is the time average ∫ qlen dt / t over [0, now]; the
//! integral (in packet·ns and byte·ns, exact `u128`) is advanced before every
//! change of the queue length. Time that runs backwards is ignored (no negative
//! intervals).

use ecnlab_wire::Instant;
use serde::Serialize;

use crate::verdict::{DropReason, Enqueued};

/// A snapshot of one queue's counters (see [`crate::AqmQueue::stats`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueStats {
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    /// Packets enqueued with a CE mark set by this queue.
    pub marks: u64,
    /// Packets enqueued unchanged for which the queue asked for an ICMP Source
    /// Quench to their source (RED with `quench`).
    pub quenches: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub arrival_bytes: u64,
    pub dequeued_bytes: u64,
    /// ∫ qlen_pkts dt / now over [0, now].
    pub avg_qlen_pkts: f64,
    /// ∫ qlen_bytes dt / now over [0, now].
    pub avg_qlen_bytes: f64,
    pub max_qlen_pkts: u32,
    pub max_qlen_bytes: u64,
}

impl QueueStats {
    /// All packets refused at arrival.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.overflow_drops
    }
    /// Packets in the queue: enqueued − dequeued.
    pub fn queued(&self) -> u64 {
        self.enqueued.saturating_sub(self.dequeued)
    }
}

/// The running accumulator behind [`QueueStats`].
#[derive(Clone, Debug, Default)]
pub(crate) struct StatsAcc {
    c: QueueStats,
    area_pkts_ns: u128,
    area_bytes_ns: u128,
    last: Instant,
}

impl StatsAcc {
    /// Integrates the current lengths up to `now` (call before changing them).
    pub(crate) fn advance(&mut self, now: Instant, len_pkts: u32, len_bytes: u64) {
        if now <= self.last {
            return;
        }
        let dt = u128::from((now - self.last).as_nanos());
        self.area_pkts_ns += u128::from(len_pkts) * dt;
        self.area_bytes_ns += u128::from(len_bytes) * dt;
        self.last = now;
    }

    pub(crate) fn on_arrival(&mut self, len: u32) {
        self.c.arrivals += 1;
        self.c.arrival_bytes += u64::from(len);
    }

    /// Counts an enqueue; `len_*` are the lengths after it.
    pub(crate) fn on_enqueue(&mut self, signal: Enqueued, len_pkts: u32, len_bytes: u64) {
        self.c.enqueued += 1;
        self.c.marks += u64::from(signal == Enqueued::Marked);
        self.c.quenches += u64::from(signal == Enqueued::Quench);
        self.c.max_qlen_pkts = self.c.max_qlen_pkts.max(len_pkts);
        self.c.max_qlen_bytes = self.c.max_qlen_bytes.max(len_bytes);
    }

    pub(crate) fn on_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Early => self.c.early_drops += 1,
            DropReason::Forced => self.c.forced_drops += 1,
            DropReason::Overflow => self.c.overflow_drops += 1,
        }
    }

    pub(crate) fn on_dequeue(&mut self, len: u32) {
        self.c.dequeued += 1;
        self.c.dequeued_bytes += u64::from(len);
    }

    /// The counters with averages integrated up to `now` (or the last change, if later).
    pub(crate) fn snapshot(&self, now: Instant, len_pkts: u32, len_bytes: u64) -> QueueStats {
        let end = now.max(self.last);
        let tail = u128::from((end - self.last).as_nanos());
        let area_p = self.area_pkts_ns + u128::from(len_pkts) * tail;
        let area_b = self.area_bytes_ns + u128::from(len_bytes) * tail;
        let t = end.as_nanos();
        // Clamped to the maximum: u128 -> f64 rounding must not push the mean past it.
        let avg = |area: u128, max: f64| if t == 0 { 0.0 } else { (area as f64 / t as f64).min(max) };
        QueueStats {
            avg_qlen_pkts: avg(area_p, f64::from(self.c.max_qlen_pkts)),
            avg_qlen_bytes: avg(area_b, self.c.max_qlen_bytes as f64),
            ..self.c.clone()
        }
    }

    /// The ns-3 identities, given the current queue length in packets.
    pub(crate) fn check(&self, len_pkts: u32) {
        let c = &self.c;
        debug_assert_eq!(c.arrivals, c.enqueued + c.drops(), "arrivals identity");
        debug_assert_eq!(c.enqueued.checked_sub(c.dequeued), Some(u64::from(len_pkts)), "queued");
        debug_assert!(c.marks + c.quenches <= c.enqueued, "marks + quenches <= enqueued");
    }
}

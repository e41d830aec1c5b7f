//! The packets a host queue holds, in one or more sub-queues, and the
//! operations an AQM may perform on them.
//!
//! Source: Linux's qdisc split between the algorithm (`codel_impl.h`,
//! `pie.h`, `sch_dualpi2.c`'s `must_drop`) and the qdisc that owns the
//! packets (`qdisc_dequeue_head`, `qdisc_drop`, `INET_ECN_set_ce`); ns-3's
//! `QueueDisc::DropAfterDequeue` / `Mark`. The AQM never owns a packet: it
//! reads a sub-queue's head ([`Head`]) and asks the host to drop or mark it
//! ([`Backlog`]), so the host alone turns a congestion signal into a CE mark
//! or a drop, once per packet, and keeps the counters:
//!
//! ```text
//! arrivals = enqueued + drops before enqueue
//! enqueued = dequeued + drops after enqueue + queued
//! ```
//!
//! A single-queue AQM (DropTail, RED, PI, PIE, CoDel, step) sees one
//! sub-queue, number 0. FQ-CoDel has one per flow bucket, DualPI2 two
//! (L = 0, C = 1). Every packet keeps its enqueue time, so its sojourn at
//! dequeue is `now − since`.

use ecnlab_wire::{Duration, Ecn, Instant};

use crate::queue::QueuedPacket;
use crate::stats::StatsAcc;
use crate::subqueues::SubQueues;
use crate::verdict::{DropReason, SignalKind};

/// A queued packet with its arrival time and the length it was counted with.
#[derive(Clone, Debug)]
pub(crate) struct Entry<P> {
    pub pkt: P,
    pub since: Instant,
    pub len: u32,
}

/// What an AQM may read of a sub-queue's head packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// When the packet was enqueued.
    pub since: Instant,
    /// Length on the wire in bytes.
    pub len: u32,
    pub ecn: Ecn,
}

impl Head {
    /// Time spent in the queue as of `now` (0 if `now` is earlier).
    pub fn sojourn(&self, now: Instant) -> Duration {
        now.saturating_since(self.since)
    }
}

/// How a congestion signal on a queued packet was carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Signalled {
    /// CE set; the packet stays at the head.
    Marked,
    /// Not-ECT, or ECN off: the packet was dropped (the next one is the head).
    Dropped,
}

/// Which rule made a mark at dequeue (counted apart: `step_marks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MarkRule {
    /// The AQM's probability or control law (CoDel, DualPI2's p_L / p_C).
    Aqm,
    /// A threshold on the instantaneous queue or sojourn time (DualPI2's L
    /// step, CoDel's `ce_threshold`, the `step` queue).
    Step,
}

/// The operations an AQM may perform on the packets of its host queue.
pub(crate) trait Backlog {
    /// Number of sub-queues.
    fn subqueues(&self) -> usize;
    /// The head of sub-queue `sub`, if it holds a packet.
    fn head(&self, sub: usize) -> Option<Head>;
    fn sub_len_pkts(&self, sub: usize) -> u32;
    fn sub_len_bytes(&self, sub: usize) -> u64;
    /// Packets in all sub-queues.
    fn len_pkts(&self) -> u32;
    /// Bytes in all sub-queues.
    fn len_bytes(&self) -> u64;
    /// Drops the head of `sub` (it must exist) with reason `r`.
    fn drop_head(&mut self, sub: usize, r: DropReason);
    /// A congestion signal on the head of `sub` (it must exist): CE-mark it if
    /// the queue's ECN is on and the packet is ECN-capable, else drop it with
    /// the signal's drop reason.
    fn signal_head(&mut self, sub: usize, kind: SignalKind, rule: MarkRule) -> Signalled;
    /// Sets CE on the head of `sub` (it must exist) if it is ECT or already
    /// CE, whatever the queue's ECN switch, and never drops it (Linux
    /// `INET_ECN_set_ce` as CoDel's `ce_threshold` uses it); whether it marked.
    fn mark_head(&mut self, sub: usize, rule: MarkRule) -> bool;
}

/// The host's sub-queues, their lengths, the counters, and the packets
/// dropped after enqueue (handed to the caller by `AqmQueue::drain_dropped`).
#[derive(Clone, Debug)]
pub(crate) struct Store<P> {
    subs: SubQueues<Entry<P>>,
    /// Bytes per sub-queue; empty with one sub-queue (it is `len_bytes`).
    sub_bytes: Vec<u64>,
    len_pkts: u32,
    len_bytes: u64,
    /// Mark ECT packets instead of dropping them.
    ecn: bool,
    now: Instant,
    pub stats: StatsAcc,
    pub dropped: Vec<(P, DropReason)>,
}

impl<P: QueuedPacket> Store<P> {
    #[inline]
    pub fn new(subqueues: usize, ecn: bool, stats: StatsAcc) -> Self {
        Store {
            subs: SubQueues::new(subqueues),
            sub_bytes: if subqueues > 1 { vec![0; subqueues] } else { Vec::new() },
            len_pkts: 0,
            len_bytes: 0,
            ecn,
            now: Instant::ZERO,
            stats,
            dropped: Vec::new(),
        }
    }

    #[inline]
    pub fn ecn(&self) -> bool {
        self.ecn
    }

    /// Sets the time of the operations that follow and integrates the
    /// lengths up to it (call before changing them).
    #[inline]
    pub fn at(&mut self, now: Instant) {
        self.now = now;
        self.stats.advance(now, self.len_pkts, self.len_bytes);
    }

    #[inline(always)]
    pub fn push(&mut self, sub: usize, pkt: P, len: u32, how: crate::verdict::Enqueued) {
        self.subs.push_back(sub, Entry { pkt, since: self.now, len });
        if let Some(b) = self.sub_bytes.get_mut(sub) {
            *b += u64::from(len);
        }
        self.len_pkts += 1;
        self.len_bytes += u64::from(len);
        self.stats.on_enqueue(sub, how, self.len_pkts, self.len_bytes);
    }

    /// Removes the head of `sub` for transmission and counts it dequeued.
    #[inline(always)]
    pub fn pop(&mut self, sub: usize) -> Option<P> {
        let e = self.take(sub)?;
        self.stats.on_dequeue(sub, e.len, self.now.saturating_since(e.since));
        Some(e.pkt)
    }

    /// [`Self::pop`] of a single FIFO, with the packet's length and sojourn.
    #[inline(always)]
    pub fn pop_head(&mut self) -> Option<(P, u32, Duration)> {
        let e = self.take(0)?;
        let sojourn = self.now.saturating_since(e.since);
        self.stats.on_dequeue(0, e.len, sojourn);
        Some((e.pkt, e.len, sojourn))
    }

    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.subs.iter().map(|e| &e.pkt)
    }

    #[inline(always)]
    fn take(&mut self, sub: usize) -> Option<Entry<P>> {
        let e = self.subs.pop_front(sub)?;
        if let Some(b) = self.sub_bytes.get_mut(sub) {
            *b -= u64::from(e.len);
        }
        self.len_pkts -= 1;
        self.len_bytes -= u64::from(e.len);
        Some(e)
    }
}

impl<P: QueuedPacket> Backlog for Store<P> {
    #[inline]
    fn subqueues(&self) -> usize {
        self.subs.count()
    }

    #[inline]
    fn head(&self, sub: usize) -> Option<Head> {
        self.subs.front(sub).map(|e| Head { since: e.since, len: e.len, ecn: e.pkt.ecn() })
    }

    #[inline]
    fn sub_len_pkts(&self, sub: usize) -> u32 {
        // The host's limit keeps a queue far below u32::MAX packets.
        u32::try_from(self.subs.len(sub)).unwrap_or(u32::MAX)
    }

    #[inline]
    fn sub_len_bytes(&self, sub: usize) -> u64 {
        self.sub_bytes.get(sub).copied().unwrap_or(self.len_bytes)
    }

    #[inline]
    fn len_pkts(&self) -> u32 {
        self.len_pkts
    }

    #[inline]
    fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    #[inline]
    fn drop_head(&mut self, sub: usize, r: DropReason) {
        let e = self.take(sub).expect("drop_head on an empty sub-queue");
        self.stats.on_dequeue_drop(sub, r);
        self.dropped.push((e.pkt, r));
    }

    #[inline]
    fn signal_head(&mut self, sub: usize, kind: SignalKind, rule: MarkRule) -> Signalled {
        let ecn = self.ecn;
        let head = self.subs.front_mut(sub).expect("signal_head on an empty sub-queue");
        if ecn && head.pkt.ecn() != Ecn::NotEct && head.pkt.set_ce() {
            self.stats.on_dequeue_mark(sub, rule);
            Signalled::Marked
        } else {
            self.drop_head(sub, kind.drop_reason());
            Signalled::Dropped
        }
    }

    #[inline]
    fn mark_head(&mut self, sub: usize, rule: MarkRule) -> bool {
        let head = self.subs.front_mut(sub).expect("mark_head on an empty sub-queue");
        let marked = head.pkt.ecn() != Ecn::NotEct && head.pkt.set_ce();
        if marked {
            self.stats.on_dequeue_mark(sub, rule);
        }
        marked
    }
}

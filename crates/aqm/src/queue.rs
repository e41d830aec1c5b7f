//! `AqmQueue`: the FIFO host that runs an AQM and applies its verdicts.
//!
//! Sources: Linux `sch_red.c` `red_enqueue` (the qdisc, not the algorithm,
//! turns a congestion signal into a CE mark or a drop: `INET_ECN_set_ce`
//! fails on Not-ECT, which makes the mark a drop); ns-3 `QueueDisc` statistics.
//! The queue decides mark or drop once per packet.
//!
//! Per arrival, in this order:
//! 1. the AQM sees the packet and the queue *without* it and returns a verdict;
//! 2. `Drop(r)` drops with reason `r`;
//! 3. `Signal(k)` with ECN off, or on a Not-ECT packet, drops with reason `k`
//!    (early or forced) without calling `set_ce`;
//! 4. a packet that would exceed the physical limit (`limit_pkts` or
//!    `limit_bytes`) is dropped as `Overflow`, including a packet the AQM chose
//!    to mark (it is then left unmarked);
//! 5. otherwise a `Signal` calls `set_ce`: success counts a mark (a packet
//!    arriving already CE stays CE and *is* counted as marked, as Linux
//!    `INET_ECN_set_ce` reports success on CE); failure drops with reason `k`.
//!
//! Quench mode (RED with `quench`, Floyd 1994 §9.1 "backward ECN"): step 3 is
//! replaced. An early `Signal` enqueues the packet unchanged (step 4 still
//! applies) and [`AqmQueue::enqueue_signalled`] returns [`Enqueued::Quench`]:
//! the caller sends an ICMP Source Quench (RFC 792) to the packet's source. A
//! packet that may not be quenched (an ICMP error itself, RFC 1812 §4.3.2.7)
//! is enqueued plainly. A forced `Signal` drops (Floyd 1994 §6.1: RED drops
//! everything above max_th), so the AQM's count/probability machinery alone
//! decides which packets cause a quench: the same packets it would mark.
//!
//! The host tells the AQM when the queue becomes empty (`on_idle`): after the
//! dequeue that empties it, and after an arrival dropped while it was empty.

use ecnlab_wire::{Ecn, Instant};
use rand::RngCore;

use crate::aqm::{each, AnyAqm, QueueView, SchedAqm};
use crate::ared::Ared;
use crate::backlog::{Backlog, Store};
use crate::codel::Codel;
use crate::config::QueueConfig;
use crate::droptail::DropTail;
use crate::dualpi2::DualPi2;
use crate::error::ConfigError;
use crate::fq_codel::FqCodel;
use crate::pi::Pi;
use crate::pie::Pie;
use crate::red::ForcedAction;
use crate::stats::{QueueStats, StatsAcc};
use crate::step::Step;
use crate::verdict::{DropReason, Enqueued, SignalKind, Verdict};

/// What a queue needs to know about the packets it holds.
pub trait QueuedPacket {
    /// Length on the wire in bytes (what `limit_bytes` and byte mode count).
    fn wire_len(&self) -> u32;
    fn ecn(&self) -> Ecn;
    /// Sets CE; `false` if the packet is Not-ECT (the caller must then drop it).
    /// A packet already CE stays CE and returns `true`.
    fn set_ce(&mut self) -> bool;
    /// Whether a Source Quench may be sent about this packet: not about an
    /// ICMP error message (RFC 1812 §4.3.2.7, RFC 792).
    fn may_quench(&self) -> bool {
        true
    }
    /// A key equal for every packet of one transport flow and direction (the
    /// 5-tuple's role in Linux's `skb_get_hash`): what flow queueing hashes.
    fn flow_key(&self) -> u64 {
        0
    }
}

/// The physical capacity of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    Pkts(u32),
    Bytes(u64),
    /// The AQM enforces its own limit after enqueue (FQ-CoDel).
    ByAqm,
}

impl Limit {
    fn from_fields(pkts: Option<u32>, bytes: Option<u64>) -> Result<Self, ConfigError> {
        match (pkts, bytes) {
            (Some(p), None) => Ok(Limit::Pkts(p)),
            (None, Some(b)) => Ok(Limit::Bytes(b)),
            _ => Err(ConfigError {
                field: "limit_pkts",
                value: format!("{pkts:?}"),
                allowed: "exactly one of limit_pkts and limit_bytes must be set".into(),
            }),
        }
    }

    /// Whether a packet of `len` bytes fits on top of `q`.
    fn admits(self, q: &QueueView, len: u32) -> bool {
        match self {
            Limit::Pkts(p) => q.len_pkts < p,
            Limit::Bytes(b) => q.len_pkts < u32::MAX && q.len_bytes.saturating_add(u64::from(len)) <= b,
            Limit::ByAqm => q.len_pkts < u32::MAX,
        }
    }
}

/// The host's resolution of a verdict for one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Enqueue,
    Mark(SignalKind),
    Quench,
    Drop(DropReason),
}

/// Packets of type `P` in one or more sub-queues guarded by an AQM (sans-IO:
/// time and randomness come in).
#[derive(Clone, Debug)]
pub struct AqmQueue<P: QueuedPacket> {
    host: Host<P>,
    aqm: AnyAqm,
}

/// The host's half of a queue: the packets, the physical limit and the rules
/// that turn a verdict into a mark or a drop. Its enqueue and dequeue are
/// generic over the AQM, so one `match` on [`AnyAqm`] per operation picks the
/// algorithm and every hook inside is a static call.
#[derive(Clone, Debug)]
struct Host<P: QueuedPacket> {
    store: Store<P>,
    limit: Limit,
    /// RED's early signal is a Source Quench (module doc, quench mode).
    quench: bool,
}

impl<P: QueuedPacket> AqmQueue<P> {
    /// Validates `cfg` and builds an empty queue.
    pub fn new(cfg: &QueueConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let (limit, ecn, aqm) = match cfg {
            QueueConfig::DropTail(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, false, AnyAqm::DropTail(DropTail))
            }
            QueueConfig::Red(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::red(p, ForcedAction::Drop))
            }
            QueueConfig::RedStar(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::red(p, ForcedAction::Signal))
            }
            QueueConfig::Pi(p) => (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::Pi(Pi::new(p))),
            QueueConfig::Ared(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::Ared(Ared::new(p)))
            }
            QueueConfig::Pie(p) => (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::Pie(Pie::new(p))),
            QueueConfig::Step(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::Step(Step::new(p)))
            }
            QueueConfig::Codel(p) => {
                (Limit::from_fields(p.limit_pkts, p.limit_bytes)?, p.ecn, AnyAqm::Codel(Codel::new(p)))
            }
            QueueConfig::FqCodel(p) => (Limit::ByAqm, p.ecn, AnyAqm::FqCodel(FqCodel::new(p))),
            // DualPI2 always marks ECT packets (RFC 9332 §2.5.1); it has no ECN switch.
            QueueConfig::DualPi2(p) => (Limit::Pkts(p.limit_pkts), true, AnyAqm::DualPi2(DualPi2::new(p))),
        };
        let quench = matches!(cfg, QueueConfig::Red(p) if p.quench);
        let names = aqm.class_names();
        let stats = if names.is_empty() {
            StatsAcc::new()
        } else {
            StatsAcc::with_classes((0..names.len() as u8).collect(), names)
        };
        let store = Store::new(aqm.subqueues(), ecn, stats);
        Ok(AqmQueue { host: Host { store, limit, quench }, aqm })
    }

    /// Records the sojourn time of every packet that leaves from now on
    /// (`QueueStats::sojourn`: percentiles from an HDR histogram); called
    /// again, starts the histograms afresh (the simulator does at the warm-up's end).
    pub fn record_sojourn(&mut self) {
        self.host.store.stats.record_sojourn();
    }

    /// The sojourn histograms recorded since [`Self::record_sojourn`], as buckets:
    /// the whole queue's, then each class's (empty when not recorded).
    pub fn sojourn_histograms(&self) -> Vec<crate::stats::SojournBuckets> {
        self.host.store.stats.sojourn_histograms()
    }

    /// The sojourn time of the packet [`Self::dequeue`] returned last, once the sojourn
    /// histograms record ([`Self::record_sojourn`]; zero before).
    pub fn last_sojourn(&self) -> ecnlab_wire::Duration {
        self.host.store.stats.last_sojourn()
    }

    /// Whether the queue's sub-queues are per transport flow (FQ-CoDel).
    pub fn is_per_flow(&self) -> bool {
        matches!(self.aqm, AnyAqm::FqCodel(_))
    }

    /// `Ok(())`: enqueued (possibly CE-marked in place). `Err`: the packet and why it was dropped.
    /// A caller that runs quench-mode queues uses [`Self::enqueue_signalled`] instead.
    /// Packets already queued that the AQM dropped are in [`Self::drain_dropped`].
    pub fn enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, pkt: P, rng: &mut R) -> Result<(), (P, DropReason)> {
        self.enqueue_signalled(now, pkt, rng).map(|_| ())
    }

    /// As [`Self::enqueue`], telling how the packet was admitted; on
    /// [`Enqueued::Quench`] the caller must send the Source Quench.
    #[inline(always)]
    pub fn enqueue_signalled<R: RngCore + ?Sized>(
        &mut self,
        now: Instant,
        pkt: P,
        rng: &mut R,
    ) -> Result<Enqueued, (P, DropReason)> {
        let host = &mut self.host;
        each!(&mut self.aqm, a => host.enqueue(a, now, pkt, rng))
    }

    /// The queued packets, sub-queue by sub-queue, head first.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.host.store.iter()
    }

    /// The next packet to transmit, if any. Packets the AQM dropped on the way
    /// (at dequeue) are in [`Self::drain_dropped`].
    pub fn dequeue<R: RngCore + ?Sized>(&mut self, now: Instant, rng: &mut R) -> Option<P> {
        let host = &mut self.host;
        each!(&mut self.aqm, a => host.dequeue(a, now, rng))
    }

    /// Packets that were in the queue and were dropped by the AQM since the
    /// last call (at dequeue, or FQ-CoDel's overflow at enqueue), with the reason.
    pub fn drain_dropped(&mut self) -> std::vec::Drain<'_, (P, DropReason)> {
        self.host.store.dropped.drain(..)
    }

    /// Whether packets wait in [`Self::drain_dropped`].
    pub fn has_dropped(&self) -> bool {
        !self.host.store.dropped.is_empty()
    }

    pub fn len_pkts(&self) -> u32 {
        self.host.store.len_pkts()
    }

    pub fn len_bytes(&self) -> u64 {
        self.host.store.len_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.host.store.len_pkts() == 0
    }

    /// Counters, with time-weighted averages integrated up to `now`.
    pub fn stats(&self, now: Instant) -> QueueStats {
        self.host.store.stats.snapshot(now, self.len_pkts(), self.len_bytes())
    }

    /// The time averages of [`Self::stats`] cover [`now`, then] from here on
    /// instead of [0, then] (the live router: from the traffic's start, as the
    /// simulator's run starts with its traffic). Counters and maxima are kept.
    pub fn restart_averages(&mut self, now: Instant) {
        let (len_pkts, len_bytes) = (self.len_pkts(), self.len_bytes());
        self.host.store.stats.restart_averages(now, len_pkts, len_bytes);
    }

    /// CE marks and drops (every reason) so far; cheaper than [`Self::stats`].
    pub fn marks_drops(&self) -> (u64, u64) {
        self.host.store.stats.marks_drops()
    }

    /// RED's EWMA average queue in packets (byte mode: mean packets); `None` for DropTail.
    pub fn avg_estimate(&self) -> Option<f64> {
        self.aqm.avg_estimate()
    }

    /// The AQM's signal probability as of `now` (PI, PIE; DualPI2's base
    /// probability p'), after taking the periodic updates due; `None` for
    /// AQMs without one.
    pub fn prob(&mut self, now: Instant) -> Option<f64> {
        self.host.store.at(now);
        self.aqm.tick(now, &self.host.store);
        self.aqm.prob()
    }

    /// Sojourn time of the oldest packet as of `now` (0 when empty).
    pub fn head_sojourn(&self, now: Instant) -> ecnlab_wire::Duration {
        (0..self.host.store.subqueues())
            .filter_map(|s| self.host.store.head(s))
            .map(|h| h.sojourn(now))
            .max()
            .unwrap_or(ecnlab_wire::Duration::ZERO)
    }
}

impl<P: QueuedPacket> Host<P> {
    /// [`AqmQueue::enqueue_signalled`] with the AQM resolved.
    #[inline]
    fn enqueue<A: SchedAqm, R: RngCore + ?Sized>(
        &mut self,
        aqm: &mut A,
        now: Instant,
        pkt: P,
        rng: &mut R,
    ) -> Result<Enqueued, (P, DropReason)> {
        let len = pkt.wire_len();
        self.store.at(now);
        aqm.tick(now, &self.store);
        self.store.stats.on_arrival(len);
        aqm.prepare(rng);
        let sub = aqm.classify(pkt.flow_key(), pkt.ecn());
        let view = QueueView::of(&self.store);
        let verdict = aqm.on_enqueue(now, len, sub, &self.store, rng);
        let result = match self.resolve(verdict, &pkt, &view) {
            Action::Enqueue => Ok(self.push(aqm, now, sub, pkt, len, Enqueued::Plain)),
            Action::Quench => Ok(self.push(aqm, now, sub, pkt, len, Enqueued::Quench)),
            Action::Mark(kind) => self.mark_and_push(aqm, now, sub, pkt, len, kind),
            Action::Drop(reason) => Err((pkt, reason)),
        };
        if let Err((_, reason)) = &result {
            self.store.stats.on_drop(*reason);
            if *reason != DropReason::Overflow {
                self.store.stats.on_arrival_drop_in(sub);
            }
        }
        if self.store.len_pkts() == 0 {
            aqm.on_idle(now);
        }
        self.store.stats.check(self.store.len_pkts());
        result
    }

    /// [`AqmQueue::dequeue`] with the AQM resolved.
    #[inline]
    fn dequeue<A: SchedAqm, R: RngCore + ?Sized>(&mut self, aqm: &mut A, now: Instant, rng: &mut R) -> Option<P> {
        self.store.at(now);
        aqm.tick(now, &self.store);
        let before = self.store.len_pkts();
        let pkt = if A::FIFO {
            // One FIFO, decided at arrival: pop, then tell the AQM (no head lookup first).
            self.store.pop_head().map(|(pkt, len, sojourn)| {
                aqm.on_popped(now, sojourn, len, &QueueView::of(&self.store));
                pkt
            })
        } else {
            match aqm.dequeue(now, &mut self.store, rng) {
                Some(sub) => self.store.pop(sub),
                None => None,
            }
        };
        if self.store.len_pkts() == 0 && before > 0 {
            aqm.on_idle(now);
        }
        self.store.stats.check(self.store.len_pkts());
        pkt
    }

    /// Steps 2–4 of the module doc: verdict → action, before touching the packet.
    fn resolve(&self, verdict: Verdict, pkt: &P, view: &QueueView) -> Action {
        let fits = self.limit.admits(view, pkt.wire_len());
        let ecn = self.store.ecn();
        match verdict {
            Verdict::Drop(reason) => Action::Drop(reason),
            Verdict::Signal(SignalKind::Forced) if self.quench => Action::Drop(DropReason::Forced),
            Verdict::Signal(kind) if !self.quench && (!ecn || pkt.ecn() == Ecn::NotEct) => {
                Action::Drop(kind.drop_reason())
            }
            _ if !fits => Action::Drop(DropReason::Overflow),
            Verdict::Signal(SignalKind::Early) if self.quench && pkt.may_quench() => Action::Quench,
            Verdict::Signal(SignalKind::Early) if self.quench => Action::Enqueue,
            Verdict::Signal(kind) => Action::Mark(kind),
            Verdict::Pass => Action::Enqueue,
        }
    }

    /// Step 5: CE-mark, then enqueue; a failed `set_ce` (Not-ECT) is a drop.
    fn mark_and_push<A: SchedAqm>(
        &mut self,
        aqm: &mut A,
        now: Instant,
        sub: usize,
        mut pkt: P,
        len: u32,
        kind: SignalKind,
    ) -> Result<Enqueued, (P, DropReason)> {
        if pkt.set_ce() {
            if kind == SignalKind::Step {
                self.store.stats.on_step_mark();
            }
            Ok(self.push(aqm, now, sub, pkt, len, Enqueued::Marked))
        } else {
            Err((pkt, kind.drop_reason()))
        }
    }

    #[inline(always)]
    fn push<A: SchedAqm>(
        &mut self,
        aqm: &mut A,
        now: Instant,
        sub: usize,
        pkt: P,
        len: u32,
        how: Enqueued,
    ) -> Enqueued {
        self.store.push(sub, pkt, len, how);
        aqm.on_enqueued(now, sub, &mut self.store);
        how
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DropTailParams, RedMode, RedParams};
    use crate::testutil::{ScriptRng, TestPkt};

    /// wq = 1: the average is the instantaneous queue, so regions are scripted by length.
    fn red(limit_pkts: u32, ecn: bool) -> RedParams {
        RedParams {
            limit_pkts: Some(limit_pkts),
            limit_bytes: None,
            min_th: 2.0,
            max_th: 4.0,
            max_p: 0.5,
            wq: 1.0,
            gentle: false,
            wait: false,
            mode: RedMode::Packet,
            mean_pkt_bytes: 1000,
            link_rate_bps: 8_000_000,
            ecn,
            personality: Default::default(),
            mark_p: None,
            adaptive: false,
            ns2_rng_skip: None,
            quench: false,
        }
    }

    fn fill(q: &mut AqmQueue<TestPkt>, n: u64, rng: &mut ScriptRng) {
        for id in 0..n {
            q.enqueue(Instant::ZERO, TestPkt::new(100 + id, 1000, Ecn::Ect0), rng).unwrap();
        }
    }

    #[test]
    fn test_new_rejects_invalid_config() {
        let bad = QueueConfig::DropTail(DropTailParams { limit_pkts: None, limit_bytes: None });
        let e = AqmQueue::<TestPkt>::new(&bad).unwrap_err();
        assert_eq!(e.field, "limit_pkts");
        let bad = QueueConfig::Red(RedParams { max_p: 1.5, ..red(10, true) });
        let e = AqmQueue::<TestPkt>::new(&bad).unwrap_err();
        assert_eq!(e.to_string(), "max_p = 1.5: must be in (0, 1]");
    }

    #[test]
    fn test_red_star_forced_signal_on_ce_packet_counts_mark() {
        let mut q = AqmQueue::new(&QueueConfig::RedStar(red(10, true))).unwrap();
        let mut rng = ScriptRng::new(&[0.99, 0.99]); // two early-region arrivals pass
        fill(&mut q, 4, &mut rng);
        let ce = TestPkt::new(1, 1000, Ecn::Ce);
        assert_eq!(q.enqueue(Instant::ZERO, ce, &mut rng), Ok(()));
        let s = q.stats(Instant::ZERO);
        assert_eq!((s.marks, s.enqueued, s.forced_drops), (1, 5, 0));
        let last = std::iter::from_fn(|| q.dequeue(Instant::ZERO, &mut ScriptRng::default())).last().unwrap();
        assert_eq!((last.id, last.ecn, last.ce_calls), (1, Ecn::Ce, 1));
    }

    #[test]
    fn test_signal_that_overflows_is_overflow_drop_not_mark() {
        let mut q = AqmQueue::new(&QueueConfig::RedStar(red(4, true))).unwrap();
        let mut rng = ScriptRng::new(&[0.99, 0.99]);
        fill(&mut q, 4, &mut rng);
        let (p, why) = q.enqueue(Instant::ZERO, TestPkt::new(9, 1000, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!((why, p.ecn, p.ce_calls), (DropReason::Overflow, Ecn::Ect0, 0));
        // Not-ECT with a forced signal is a forced drop even when it would overflow.
        let (_, why) = q.enqueue(Instant::ZERO, TestPkt::new(10, 40, Ecn::NotEct), &mut rng).unwrap_err();
        assert_eq!(why, DropReason::Forced);
        let s = q.stats(Instant::ZERO);
        assert_eq!((s.marks, s.overflow_drops, s.forced_drops, s.arrivals), (0, 1, 1, 6));
    }

    #[test]
    fn test_time_weighted_average_integrates_lengths() {
        let cfg = QueueConfig::DropTail(DropTailParams { limit_pkts: Some(10), limit_bytes: None });
        let mut q = AqmQueue::new(&cfg).unwrap();
        let mut rng = ScriptRng::default();
        let ns = Instant::from_nanos;
        q.enqueue(ns(0), TestPkt::new(0, 100, Ecn::NotEct), &mut rng).unwrap();
        q.enqueue(ns(10), TestPkt::new(1, 300, Ecn::NotEct), &mut rng).unwrap();
        assert_eq!(q.dequeue(ns(20), &mut ScriptRng::default()).unwrap().id, 0);
        assert_eq!(q.dequeue(ns(30), &mut ScriptRng::default()).unwrap().id, 1);
        // ∫pkts = 1·10 + 2·10 + 1·10 = 40; ∫bytes = 100·10 + 400·10 + 300·10 = 8000.
        let s = q.stats(ns(40));
        assert_eq!((s.avg_qlen_pkts, s.avg_qlen_bytes), (1.0, 200.0));
        assert_eq!((s.max_qlen_pkts, s.max_qlen_bytes), (2, 400));
        // A snapshot is pure, and a non-empty tail is integrated up to `now`.
        q.enqueue(ns(40), TestPkt::new(2, 50, Ecn::NotEct), &mut rng).unwrap();
        let s = q.stats(ns(80));
        assert_eq!((s.avg_qlen_pkts, s.avg_qlen_bytes), (1.0, (8000.0 + 50.0 * 40.0) / 80.0));
        assert_eq!(q.stats(ns(80)), s);
        assert_eq!(q.stats(ns(0)).avg_qlen_pkts, 40.0 / 40.0, "a stale `now` uses the last change");
    }

    #[test]
    fn test_restarted_averages_cover_only_the_time_after_the_restart() {
        let cfg = QueueConfig::DropTail(DropTailParams { limit_pkts: Some(10), limit_bytes: None });
        let mut q = AqmQueue::new(&cfg).unwrap();
        let mut rng = ScriptRng::default();
        let ns = Instant::from_nanos;
        // Idle 0..100 (a router waiting for its traffic), then restart at 100.
        q.restart_averages(ns(100));
        assert_eq!(q.stats(ns(100)).avg_qlen_pkts, 0.0, "an empty window averages to 0");
        q.enqueue(ns(100), TestPkt::new(0, 100, Ecn::NotEct), &mut rng).unwrap();
        q.enqueue(ns(110), TestPkt::new(1, 300, Ecn::NotEct), &mut rng).unwrap();
        assert_eq!(q.dequeue(ns(120), &mut ScriptRng::default()).unwrap().id, 0);
        assert_eq!(q.dequeue(ns(130), &mut ScriptRng::default()).unwrap().id, 1);
        // The same 40 ns as above, shifted by 100: the same averages (over 100..140, not 0..140).
        let s = q.stats(ns(140));
        assert_eq!((s.avg_qlen_pkts, s.avg_qlen_bytes), (1.0, 200.0));
        assert_eq!((s.max_qlen_pkts, s.arrivals, s.dequeued), (2, 2, 2), "counters are kept");
        // Restarting with packets queued: the integral starts from the current lengths.
        q.enqueue(ns(140), TestPkt::new(2, 50, Ecn::NotEct), &mut rng).unwrap();
        q.restart_averages(ns(150));
        let s = q.stats(ns(170));
        assert_eq!((s.avg_qlen_pkts, s.avg_qlen_bytes), (1.0, 50.0));
        // A stale restart time starts at the last change instead (no negative interval).
        q.restart_averages(ns(160));
        q.restart_averages(ns(0));
        assert_eq!(q.stats(ns(180)).avg_qlen_pkts, 1.0);
    }

    #[test]
    fn test_sojourn_order_and_bytes_after_mixed_ops() {
        let mut q = AqmQueue::new(&QueueConfig::Red(red(10, false))).unwrap();
        let mut rng = ScriptRng::new(&[0.99, 0.99]);
        fill(&mut q, 3, &mut rng);
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(q.dequeue(Instant::from_nanos(5), &mut ScriptRng::default()).unwrap().id, 100);
        assert_eq!((q.len_pkts(), q.len_bytes()), (2, 2000));
        assert_eq!(rng.remaining(), 1, "one draw for the single early-region arrival");
    }

    /// Quench mode (module doc): early signal → enqueued unchanged + `Quench`;
    /// forced region → drop; an ICMP packet selected early passes plainly.
    #[test]
    fn test_quench_mode_forwards_selected_packet_and_drops_in_forced_region() {
        let cfg = RedParams { quench: true, max_th: 6.0, ..red(10, false) };
        let mut q = AqmQueue::new(&QueueConfig::Red(cfg)).unwrap();
        let mut rng = ScriptRng::new(&[0.0, 0.0, 0.0, 0.99]);
        let t = Instant::ZERO;
        let mut put = |q: &mut AqmQueue<TestPkt>, p: TestPkt| q.enqueue_signalled(t, p, &mut rng);
        // q = 0, 1: below min_th; q = 2 = min_th: pb = 0, never selected.
        for id in 0..3 {
            assert_eq!(put(&mut q, TestPkt::new(id, 1000, Ecn::Ect0)).unwrap(), Enqueued::Plain);
        }
        // q = 3: early region, draw 0 < pa → selected: forwarded unchanged, quench.
        assert_eq!(put(&mut q, TestPkt::new(3, 1000, Ecn::NotEct)).unwrap(), Enqueued::Quench);
        // q = 4: selected again, but an ICMP error is never quenched.
        let icmp = TestPkt { icmp: true, ..TestPkt::new(4, 56, Ecn::NotEct) };
        assert_eq!(put(&mut q, icmp).unwrap(), Enqueued::Plain);
        assert_eq!(put(&mut q, TestPkt::new(5, 1000, Ecn::Ect0)).unwrap(), Enqueued::Plain);
        // q = 6 = max_th: the forced region drops, as the paper's RED does.
        let (p, why) = put(&mut q, TestPkt::new(6, 1000, Ecn::Ect0)).unwrap_err();
        assert_eq!((p.id, why), (6, DropReason::Forced));
        assert_eq!(rng.remaining(), 0);
        let s = q.stats(t);
        assert_eq!((s.quenches, s.marks, s.early_drops, s.forced_drops), (1, 0, 0, 1));
        let out: Vec<TestPkt> = std::iter::from_fn(|| q.dequeue(t, &mut ScriptRng::default())).collect();
        assert!(out.iter().all(|p| p.ce_calls == 0), "nothing is marked in quench mode");
        assert_eq!((out[3].id, out[3].ecn), (3, Ecn::NotEct));
    }

    #[test]
    fn test_quench_mode_full_queue_overflows_without_quench() {
        // The average lags the queue (wq = 0.5): the third arrival finds the queue full with the
        // average at 1.25, in the early region, and overflows rather than being quenched.
        let cfg = RedParams { quench: true, min_th: 1.0, max_th: 2.0, wq: 0.5, ..red(2, false) };
        let mut q = AqmQueue::new(&QueueConfig::Red(cfg)).unwrap();
        let mut rng = ScriptRng::new(&[0.0]);
        fill(&mut q, 2, &mut rng);
        let (_, why) = q.enqueue_signalled(Instant::ZERO, TestPkt::new(9, 1000, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!(why, DropReason::Overflow);
        assert_eq!(q.stats(Instant::ZERO).quenches, 0);
    }

    #[test]
    fn test_quench_config_rules() {
        let both = QueueConfig::Red(RedParams { quench: true, ..red(10, true) });
        let e = AqmQueue::<TestPkt>::new(&both).unwrap_err().to_string();
        assert!(e.starts_with("quench = true: cannot be combined with ecn = true"), "{e}");
        let star = QueueConfig::RedStar(RedParams { quench: true, ..red(10, false) });
        let e = AqmQueue::<TestPkt>::new(&star).unwrap_err().to_string();
        assert!(e.starts_with("quench = true: only applies to kind red"), "{e}");
    }
}

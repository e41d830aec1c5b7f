//! Queue counters and time-weighted queue-length averages.
//!
//! Source: ns-3 `QueueDisc::Stats` (`nTotalReceivedPackets`,
//! `nTotalDroppedPacketsBeforeEnqueue`, `nTotalMarkedPackets`, ...) and its
//! identities, which every operation checks with `debug_assert!`:
//!
//! ```text
//! arrivals = enqueued + early_drops + forced_drops + overflow_drops - dequeue_drops
//! queued   = enqueued - dequeued - dequeue_drops
//! marks + quenches <= enqueued
//! ```
//!
//! Drops and marks are counted by reason wherever they happen; the ones made
//! after enqueue (CoDel, FQ-CoDel, DualPI2 decide at dequeue; FQ-CoDel's
//! overflow drops the fattest flow's head) are also counted in
//! `dequeue_drops` and `dequeue_marks`, and marks by a threshold rule in
//! `step_marks`. With [`StatsAcc::record_sojourn`], every dequeued packet's
//! sojourn time goes into an HDR histogram (2 significant digits, 1 ns to
//! about 18 min), whole queue and per class (DualPI2's L and C): counted in
//! the histogram's slots per packet, the histogram itself built per snapshot.
//!
//! The average queue is the time average ∫ qlen dt / t over [0, now]; the
//! integral (in packet·ns and byte·ns, exact `u128`) is advanced before every
//! change of the queue length. Time that runs backwards is ignored (no negative
//! intervals). [`StatsAcc::restart_averages`] moves the window's start from 0
//! to a later time (the live router: the traffic's start, not its own); the
//! simulator never calls it, so its window is [0, now].

use ecnlab_wire::{Duration, Instant};
use hdrhistogram::Histogram;
use serde::Serialize;

use crate::backlog::MarkRule;
use crate::verdict::{DropReason, Enqueued};

/// Sojourn-time percentiles in milliseconds (from the HDR histogram: within 1 %).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Sojourn {
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

/// Counters of one class of sub-queues (DualPI2: `L`, `C`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassStats {
    pub name: &'static str,
    pub dequeued: u64,
    /// CE marks made by the queue, at arrival or at dequeue.
    pub marks: u64,
    pub step_marks: u64,
    /// The AQM's drops (at dequeue, or at arrival with DualPI2's `drop_early`); not tail drops.
    pub drops: u64,
    /// `None` unless sojourn times are recorded (and a packet left).
    pub sojourn: Option<Sojourn>,
}

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
    /// ∫ qlen_pkts dt / now over [0, now] (the live router: from the traffic's start).
    pub avg_qlen_pkts: f64,
    /// ∫ qlen_bytes dt / now over [0, now] (the live router: from the traffic's start).
    pub avg_qlen_bytes: f64,
    pub max_qlen_pkts: u32,
    pub max_qlen_bytes: u64,
    /// Drops of packets already enqueued (AQMs that decide at dequeue,
    /// FQ-CoDel's overflow); also counted in the drops by reason.
    pub dequeue_drops: u64,
    /// Marks made at dequeue; also counted in `marks`.
    pub dequeue_marks: u64,
    /// Marks by a threshold rule (step queue, CoDel `ce_threshold`, DualPI2's
    /// L step); also counted in `marks`.
    pub step_marks: u64,
    /// Sojourn-time percentiles of dequeued packets, when recorded.
    pub sojourn: Option<Sojourn>,
    /// Per class of sub-queue (DualPI2: L then C); empty for one class.
    pub classes: Vec<ClassStats>,
}

impl QueueStats {
    /// All packets dropped, at arrival or after.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.overflow_drops
    }
    /// Packets refused at arrival.
    pub fn arrival_drops(&self) -> u64 {
        self.drops() - self.dequeue_drops
    }
    /// Packets in the queue: enqueued − dequeued − dropped after enqueue.
    pub fn queued(&self) -> u64 {
        self.enqueued.saturating_sub(self.dequeued + self.dequeue_drops)
    }
}

/// Highest sojourn the histograms resolve (2^40 ns ≈ 18 min); longer ones saturate.
const SOJOURN_MAX_NS: u64 = 1 << 40;

/// An HDR histogram of 1 ns to `high` with 2 significant digits; its slots
/// are the first slots of every such histogram, whatever `high`.
fn hist_up_to(high: u64) -> Histogram<u32> {
    Histogram::new_with_bounds(1, high.max(2), 2).expect("valid HDR bounds")
}

/// log2 of the HDR layout's half sub-bucket count: 2 significant digits need
/// 256 sub-buckets (`hdrhistogram`'s `sub_bucket_count`), half of them 128.
const HALF_MAGNITUDE: u32 = 7;
/// Count slots of `hist_up_to(SOJOURN_MAX_NS)`: (buckets + 1) · 128, with
/// 34 buckets to cover 2^40 from 256 (`buckets_to_cover`).
const SLOTS: usize = 35 << HALF_MAGNITUDE;

/// The sojourn counts of one histogram, in the slots of `hist_up_to(SOJOURN_MAX_NS)`, recorded
/// with a shift and an add (`Histogram::saturating_record` is about 60
/// instructions, per dequeued packet). The slots grow on demand, so only those
/// up to the longest sojourn are ever zeroed or read. [`Self::histogram`]
/// gives the HDR histogram that recording every value would have made: its
/// percentiles, maximum and mean read only the slot counts and the total.
#[derive(Clone, Debug, Default)]
struct SojournCounts {
    counts: Vec<u32>,
    total: u64,
}

/// One sojourn histogram as buckets: `value_ns[i]` is the highest sojourn the
/// bucket holds (what the percentiles report), `count[i]` its packets; only
/// buckets with packets, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SojournBuckets {
    /// The class of sub-queue (DualPI2: `L`, `C`); `None` for the whole queue.
    pub class: Option<&'static str>,
    pub value_ns: Vec<u64>,
    pub count: Vec<u64>,
}

/// A sojourn-time histogram kept by the caller (same buckets as the queue's own).
#[derive(Clone, Debug, Default)]
pub struct SojournHist(SojournCounts);

impl SojournHist {
    #[inline]
    pub fn record(&mut self, sojourn: Duration) {
        self.0.record(sojourn.as_nanos());
    }

    /// The buckets with packets (`class` is `None`).
    pub fn buckets(&self) -> SojournBuckets {
        self.0.buckets(None)
    }
}

impl SojournCounts {
    /// The buckets with packets, each as (highest value, count).
    fn buckets(&self, class: Option<&'static str>) -> SojournBuckets {
        let used = self.counts.iter().enumerate().filter(|(_, &c)| c > 0);
        let (value_ns, count) = used.map(|(i, &c)| (Self::slot_value(i + 1) - 1, u64::from(c))).unzip();
        SojournBuckets { class, value_ns, count }
    }

    /// `hdrhistogram`'s `index_for` for lowest value 1 (unit magnitude 0).
    #[inline(always)]
    fn slot(v: u64) -> usize {
        // `leading_zero_count_base` is 64 − 8 (256 sub-buckets); values below 256 are bucket 0.
        let bucket = 56 - (v | 0xff).leading_zeros();
        let sub = (v >> bucket) as usize;
        ((bucket as usize + 1) << HALF_MAGNITUDE) + sub - (1 << HALF_MAGNITUDE)
    }

    /// The lowest value of slot `i` (`hdrhistogram`'s `value_for`).
    fn slot_value(i: usize) -> u64 {
        let bucket = (i >> HALF_MAGNITUDE) as i64 - 1;
        let sub = (i & ((1 << HALF_MAGNITUDE) - 1)) as u64 + (1 << HALF_MAGNITUDE);
        if bucket < 0 {
            sub - (1 << HALF_MAGNITUDE)
        } else {
            sub << bucket
        }
    }

    /// As `saturating_record`: a value past the last slot counts as the highest trackable one.
    #[inline(always)]
    fn record(&mut self, v: u64) {
        let i = Self::slot(v);
        match self.counts.get_mut(i) {
            Some(c) => *c = c.saturating_add(1),
            None => self.record_new_slot(i),
        }
        self.total += 1;
    }

    #[cold]
    #[inline(never)]
    fn record_new_slot(&mut self, i: usize) {
        let i = if i < SLOTS { i } else { Self::slot(SOJOURN_MAX_NS) };
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] = self.counts[i].saturating_add(1);
    }

    /// The HDR histogram of the recorded values, with only the slots used.
    fn histogram(&self) -> Histogram<u32> {
        let mut h = hist_up_to(Self::slot_value(self.counts.len().saturating_sub(1)));
        for (i, &c) in self.counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            h.record_n(Self::slot_value(i), c).expect("a slot's value is in range");
        }
        h
    }
}

fn percentiles(counts: &SojournCounts) -> Option<Sojourn> {
    if counts.total == 0 {
        return None;
    }
    Some(sojourn_of(&counts.histogram()))
}

/// The reported percentiles of a histogram of sojourns in ns.
fn sojourn_of(h: &Histogram<u32>) -> Sojourn {
    let ms = |v: u64| v as f64 / 1e6;
    Sojourn {
        p50_ms: ms(h.value_at_quantile(0.5)),
        p90_ms: ms(h.value_at_quantile(0.9)),
        p99_ms: ms(h.value_at_quantile(0.99)),
        p999_ms: ms(h.value_at_quantile(0.999)),
        max_ms: ms(h.max()),
        mean_ms: h.mean() / 1e6,
    }
}

/// One class's running counters.
#[derive(Clone, Debug)]
struct ClassAcc {
    c: ClassStats,
    hist: Option<SojournCounts>,
}

/// The running accumulator behind [`QueueStats`].
#[derive(Clone, Debug, Default)]
pub(crate) struct StatsAcc {
    c: QueueStats,
    area_pkts_ns: u128,
    area_bytes_ns: u128,
    last: Instant,
    /// Start of the averaging window (0 unless restarted).
    avg_from: Instant,
    /// The counts are boxed: the queue's hot counters stay in a few cache lines.
    hist: Option<SojournCounts>,
    /// Class of each sub-queue (empty: a single class, no per-class counters).
    class_of: Vec<u8>,
    classes: Vec<ClassAcc>,
    /// The sojourn of the latest packet dequeued while the histograms record.
    last_sojourn: Duration,
}

impl StatsAcc {
    /// Counters for a queue with one class of sub-queues.
    pub(crate) fn new() -> Self {
        StatsAcc::default()
    }

    /// Per-class counters: sub-queue `i` belongs to class `class_of[i]`, named `names[..]`.
    pub(crate) fn with_classes(class_of: Vec<u8>, names: &[&'static str]) -> Self {
        let classes =
            names.iter().map(|&name| ClassAcc { c: ClassStats { name, ..Default::default() }, hist: None }).collect();
        StatsAcc { class_of, classes, ..Default::default() }
    }

    /// Records every dequeued packet's sojourn time from now on.
    pub(crate) fn record_sojourn(&mut self) {
        self.hist = Some(SojournCounts::default());
        for k in &mut self.classes {
            k.hist = Some(SojournCounts::default());
        }
    }

    /// Averages from `now` on (or from the last change, if later): the
    /// integrals restart at zero; counters and maxima are kept.
    pub(crate) fn restart_averages(&mut self, now: Instant, len_pkts: u32, len_bytes: u64) {
        self.advance(now, len_pkts, len_bytes);
        self.area_pkts_ns = 0;
        self.area_bytes_ns = 0;
        self.avg_from = self.last;
    }

    #[inline]
    fn class(&mut self, sub: usize) -> Option<&mut ClassAcc> {
        let k = *self.class_of.get(sub)?;
        self.classes.get_mut(usize::from(k))
    }

    /// Integrates the current lengths up to `now` (call before changing them).
    #[inline]
    pub(crate) fn advance(&mut self, now: Instant, len_pkts: u32, len_bytes: u64) {
        if now <= self.last {
            return;
        }
        let dt = u128::from((now - self.last).as_nanos());
        self.area_pkts_ns += u128::from(len_pkts) * dt;
        self.area_bytes_ns += u128::from(len_bytes) * dt;
        self.last = now;
    }

    #[inline]
    pub(crate) fn on_arrival(&mut self, len: u32) {
        self.c.arrivals += 1;
        self.c.arrival_bytes += u64::from(len);
    }

    /// Counts an enqueue into `sub`; `len_*` are the lengths after it.
    #[inline]
    pub(crate) fn on_enqueue(&mut self, sub: usize, signal: Enqueued, len_pkts: u32, len_bytes: u64) {
        self.c.enqueued += 1;
        self.c.marks += u64::from(signal == Enqueued::Marked);
        if signal == Enqueued::Marked {
            if let Some(k) = self.class(sub) {
                k.c.marks += 1; // DualPI2's drop_early marks at arrival
            }
        }
        self.c.quenches += u64::from(signal == Enqueued::Quench);
        self.c.max_qlen_pkts = self.c.max_qlen_pkts.max(len_pkts);
        self.c.max_qlen_bytes = self.c.max_qlen_bytes.max(len_bytes);
    }

    /// A packet already enqueued in `sub` was dropped.
    pub(crate) fn on_dequeue_drop(&mut self, sub: usize, reason: DropReason) {
        self.on_drop(reason);
        self.c.dequeue_drops += 1;
        if let Some(k) = self.class(sub) {
            k.c.drops += 1;
        }
    }

    /// A packet in `sub` was CE-marked at dequeue by `rule`.
    pub(crate) fn on_dequeue_mark(&mut self, sub: usize, rule: MarkRule) {
        let step = u64::from(rule == MarkRule::Step);
        self.c.marks += 1;
        self.c.dequeue_marks += 1;
        self.c.step_marks += step;
        if let Some(k) = self.class(sub) {
            k.c.marks += 1;
            k.c.step_marks += step;
        }
    }

    /// The AQM dropped an arrival for `sub` (not a tail drop): counted in its class.
    pub(crate) fn on_arrival_drop_in(&mut self, sub: usize) {
        if let Some(k) = self.class(sub) {
            k.c.drops += 1;
        }
    }

    /// A packet marked at enqueue was marked by a threshold rule.
    pub(crate) fn on_step_mark(&mut self) {
        self.c.step_marks += 1;
    }

    pub(crate) fn on_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Early => self.c.early_drops += 1,
            DropReason::Forced => self.c.forced_drops += 1,
            DropReason::Overflow => self.c.overflow_drops += 1,
        }
    }

    /// A packet of `len` bytes left `sub` for transmission after `sojourn`.
    #[inline(always)]
    pub(crate) fn on_dequeue(&mut self, sub: usize, len: u32, sojourn: Duration) {
        self.c.dequeued += 1;
        self.c.dequeued_bytes += u64::from(len);
        if let Some(h) = self.hist.as_mut() {
            h.record(sojourn.as_nanos());
            self.last_sojourn = sojourn; // only then: a sojourn nothing reads costs nothing
        }
        if let Some(k) = self.class(sub) {
            k.c.dequeued += 1;
            if let Some(h) = k.hist.as_mut() {
                h.record(sojourn.as_nanos());
            }
        }
    }

    /// The counters with averages integrated up to `now` (or the last change, if later).
    pub(crate) fn snapshot(&self, now: Instant, len_pkts: u32, len_bytes: u64) -> QueueStats {
        let end = now.max(self.last);
        let tail = u128::from((end - self.last).as_nanos());
        let area_p = self.area_pkts_ns + u128::from(len_pkts) * tail;
        let area_b = self.area_bytes_ns + u128::from(len_bytes) * tail;
        let t = (end - self.avg_from).as_nanos();
        // Clamped to the maximum: u128 -> f64 rounding must not push the mean past it.
        let avg = |area: u128, max: f64| if t == 0 { 0.0 } else { (area as f64 / t as f64).min(max) };
        let class = |k: &ClassAcc| ClassStats { sojourn: k.hist.as_ref().and_then(percentiles), ..k.c.clone() };
        QueueStats {
            avg_qlen_pkts: avg(area_p, f64::from(self.c.max_qlen_pkts)),
            avg_qlen_bytes: avg(area_b, self.c.max_qlen_bytes as f64),
            sojourn: self.hist.as_ref().and_then(percentiles),
            classes: self.classes.iter().map(class).collect(),
            ..self.c.clone()
        }
    }

    /// The sojourn of the latest packet dequeued since [`Self::record_sojourn`] (zero before the first).
    pub(crate) fn last_sojourn(&self) -> Duration {
        self.last_sojourn
    }

    /// The histograms as buckets: the whole queue's, then each class's (none unless recorded).
    pub(crate) fn sojourn_histograms(&self) -> Vec<SojournBuckets> {
        let whole = self.hist.as_ref().map(|h| h.buckets(None));
        let classes = self.classes.iter().filter_map(|k| k.hist.as_ref().map(|h| h.buckets(Some(k.c.name))));
        whole.into_iter().chain(classes).collect()
    }

    /// (marks, drops) so far, without building a snapshot (time series).
    pub(crate) fn marks_drops(&self) -> (u64, u64) {
        (self.c.marks, self.c.drops())
    }

    /// The ns-3 identities, given the current queue length in packets.
    #[inline]
    pub(crate) fn check(&self, len_pkts: u32) {
        let c = &self.c;
        debug_assert_eq!(c.arrivals, c.enqueued + c.arrival_drops(), "arrivals identity");
        debug_assert_eq!(c.enqueued.checked_sub(c.dequeued + c.dequeue_drops), Some(u64::from(len_pkts)), "queued");
        debug_assert!(c.marks + c.quenches <= c.enqueued, "marks + quenches <= enqueued");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_hist() -> Histogram<u32> {
        hist_up_to(SOJOURN_MAX_NS)
    }

    /// Counting in slots gives the histogram that recording each value makes:
    /// same slots, totals, percentiles, maximum and mean, including values
    /// below 256 (bucket 0), at bucket edges, and past the trackable range;
    /// and the histogram built with only the slots used reads the same.
    #[test]
    fn test_sojourn_counts_equal_recording_each_value() {
        assert_eq!(SLOTS, new_hist().distinct_values());
        let edges = [0, 1, 127, 128, 255, 256, 257, 511, 512, 1 << 40, (1 << 41) - 1, 1 << 41, u64::MAX];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut random = std::iter::repeat_with(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (x % 64) // every magnitude
        });
        let short: Vec<u64> = random.by_ref().filter(|&v| v < 1 << 27).take(20_000).collect(); // < 0.14 s
        let all: Vec<u64> = edges.iter().copied().chain(random.take(20_000)).collect();
        for values in [short, all] {
            let mut direct = new_hist();
            let mut counts = SojournCounts::default();
            for (n, &v) in values.iter().enumerate() {
                direct.saturating_record(v);
                counts.record(v);
                if n % 5_000 == 0 || n < 13 {
                    assert_eq!(counts.histogram(), direct, "after {} values (last {v})", n + 1);
                    assert_eq!(percentiles(&counts), hist_percentiles(&direct));
                }
            }
            assert_eq!(counts.histogram(), direct);
            assert_eq!(percentiles(&counts), hist_percentiles(&direct));
        }
        assert_eq!(percentiles(&SojournCounts::default()), None);
    }

    /// Each bucket's value is the highest value HDR counts as equivalent to its
    /// members (what `value_at_quantile` reports), and the counts sum to the total.
    #[test]
    fn test_buckets_are_hdr_highest_equivalent_values_with_their_counts() {
        let mut counts = SojournCounts::default();
        let values = [0u64, 1, 255, 256, 257, 1_000, 99_999, 5_000_000, 5_000_001, 1 << 40, u64::MAX];
        for v in values {
            counts.record(v);
        }
        let h = counts.histogram();
        let b = counts.buckets(None);
        assert_eq!(b.count.iter().sum::<u64>(), values.len() as u64);
        assert!(b.value_ns.windows(2).all(|w| w[0] < w[1]), "increasing");
        for &v in &values {
            let hi = h.highest_equivalent(v.min(1 << 40));
            assert!(b.value_ns.contains(&hi), "{v}: bucket ending at {hi} missing from {:?}", b.value_ns);
        }
        assert_eq!(*b.value_ns.last().unwrap(), h.max());
    }

    fn hist_percentiles(h: &Histogram<u32>) -> Option<Sojourn> {
        Some(sojourn_of(h))
    }
}

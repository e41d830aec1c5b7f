//! The internal AQM interface and its enum dispatch.
//!
//! Source: Linux `red.h`'s separation of algorithm from qdisc, kept sans-IO so
//! that the simulator and the emulator's router run the same AQM (`now` and
//! the RNG are always passed in; the AQM never stores packets). Dispatch is
//! a closed enum ([`AnyAqm`], smoltcp's `AnyController` pattern), not
//! `Box<dyn>`, so the per-packet path has no indirect call.
//!
//! Two layers. [`Aqm`] is the single-FIFO AQM that decides at arrival and is
//! only told of departures (DropTail, the RED family, PI, PIE, Adaptive RED).
//! [`SchedAqm`] is the full contract the host runs: it may classify packets
//! into sub-queues, decide at dequeue through [`Backlog`] (drop or signal heads
//! before one leaves, as CoDel and DualPI2 do), drop queued packets after an
//! enqueue (FQ-CoDel's overflow), and catch up periodic updates (`tick`). Every
//! [`Aqm`] is a [`SchedAqm`] with one sub-queue by the blanket impl below.
//!
//! Periodic updates (PIE's and DualPI2's `Tupdate`, PI's sampling) are taken
//! lazily: the host calls `tick(now)` before anything else it does at `now`,
//! and the AQM takes every update instant `t ≤ now` not yet taken, against the
//! queue as it is — which is the queue at `t`, because the queue changes only
//! at the host's calls. An update instant equal to a packet event's time is
//! therefore taken before that event. The simulator pays no event for an idle
//! queue, and the live router runs the same code on its real clock.

use ecnlab_wire::{Duration, Ecn, Instant};
use rand::RngCore;

use crate::backlog::Backlog;

use crate::ared::Ared;
use crate::codel::Codel;
use crate::config::{RedParams, RedPersonality};
use crate::droptail::DropTail;
use crate::dualpi2::DualPi2;
use crate::fq_codel::FqCodel;
use crate::pi::Pi;
use crate::pie::Pie;
use crate::red::linux::LinuxRed;
use crate::red::ns::{Flavour, NsRed, NS2_DEFAULT_MARK_P};
use crate::red::{ForcedAction, Red};
use crate::step::Step;
use crate::verdict::Verdict;

/// What the AQM may see of the queue it guards (before the arriving packet is added).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct QueueView {
    pub len_pkts: u32,
    pub len_bytes: u64,
}

impl QueueView {
    pub(crate) fn of<B: Backlog + ?Sized>(b: &B) -> Self {
        QueueView { len_pkts: b.len_pkts(), len_bytes: b.len_bytes() }
    }
}

/// One active queue management algorithm.
pub(crate) trait Aqm {
    /// Decides for a packet of `len` bytes arriving at `now`; `q` excludes it.
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict;
    /// A packet of `len` bytes left after `sojourn` in the queue; `q` excludes it.
    fn on_dequeue(&mut self, _now: Instant, _sojourn: Duration, _len: u32, _q: &QueueView) {}
    /// The queue is empty as of `now` (start of an idle period).
    fn on_idle(&mut self, _now: Instant) {}
    /// The AQM's congestion estimate, if it keeps one (RED: average queue).
    fn avg_estimate(&self) -> Option<f64> {
        None
    }
    /// The AQM's current signal probability, if it keeps one (PI, PIE).
    fn prob(&self) -> Option<f64> {
        None
    }
    /// Takes the periodic updates due at or before `now` (module doc).
    fn tick(&mut self, _now: Instant, _q: &QueueView) {}
}

/// The full AQM contract the host runs (module doc).
pub(crate) trait SchedAqm {
    /// Sub-queues this AQM uses (fixed at construction).
    fn subqueues(&self) -> usize {
        1
    }
    /// Names of the classes of sub-queue `i` = class `i` that get counters of
    /// their own (DualPI2: `["L", "C"]`); empty for none.
    fn class_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Called at each arrival after `tick` and before `classify`: draws the
    /// state an AQM takes lazily from the queue's random stream (FQ-CoDel's
    /// hash perturbation, at the first packet).
    fn prepare<R: RngCore + ?Sized>(&mut self, _rng: &mut R) {}
    /// The sub-queue of a packet of flow `key` with codepoint `ecn`.
    fn classify(&mut self, _key: u64, _ecn: Ecn) -> usize {
        0
    }
    /// Takes the periodic updates due at or before `now`; called first at every `now`
    /// (none by default).
    fn tick<B: Backlog>(&mut self, _now: Instant, _b: &B) {}
    /// Decides for a packet of `len` bytes arriving at `now` for sub-queue
    /// `sub`; `b` excludes it. By default every arrival passes (an AQM that
    /// decides at dequeue; the host's limit still applies).
    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        _now: Instant,
        _len: u32,
        _sub: usize,
        _b: &B,
        _rng: &mut R,
    ) -> Verdict {
        Verdict::Pass
    }
    /// The packet was added at the tail of `sub`; may drop queued packets.
    fn on_enqueued<B: Backlog>(&mut self, _now: Instant, _sub: usize, _b: &mut B) {}
    /// The sub-queue whose head leaves at `now`, after signalling or dropping
    /// heads as the AQM decides; `None` when every sub-queue is empty.
    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, rng: &mut R) -> Option<usize>;
    /// True for a single-FIFO [`Aqm`]: the host pops the head itself and
    /// tells the AQM with [`Self::on_popped`] instead of calling `dequeue`.
    const FIFO: bool = false;
    /// A single-FIFO AQM's departure: a packet of `len` bytes left after
    /// `sojourn`; `after` excludes it ([`Aqm::on_dequeue`]).
    fn on_popped(&mut self, _now: Instant, _sojourn: Duration, _len: u32, _after: &QueueView) {}
    /// Every sub-queue is empty as of `now`.
    fn on_idle(&mut self, _now: Instant) {}
    /// RED's average queue, if this AQM keeps one.
    fn avg_estimate(&self) -> Option<f64> {
        None
    }
    /// The current signal probability (PI, PIE; DualPI2's base p').
    fn prob(&self) -> Option<f64> {
        None
    }
}

/// A single-FIFO [`Aqm`] as a [`SchedAqm`]: sub-queue 0, decisions at arrival.
impl<A: Aqm> SchedAqm for A {
    fn tick<B: Backlog>(&mut self, now: Instant, b: &B) {
        Aqm::tick(self, now, &QueueView::of(b));
    }
    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        now: Instant,
        len: u32,
        _sub: usize,
        b: &B,
        rng: &mut R,
    ) -> Verdict {
        Aqm::on_enqueue(self, now, len, &QueueView::of(b), rng)
    }
    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, _rng: &mut R) -> Option<usize> {
        let h = b.head(0)?;
        let after = QueueView { len_pkts: b.len_pkts() - 1, len_bytes: b.len_bytes() - u64::from(h.len) };
        Aqm::on_dequeue(self, now, h.sojourn(now), h.len, &after);
        Some(0)
    }
    const FIFO: bool = true;
    #[inline(always)]
    fn on_popped(&mut self, now: Instant, sojourn: Duration, len: u32, after: &QueueView) {
        Aqm::on_dequeue(self, now, sojourn, len, after);
    }
    fn on_idle(&mut self, now: Instant) {
        Aqm::on_idle(self, now);
    }
    fn avg_estimate(&self) -> Option<f64> {
        Aqm::avg_estimate(self)
    }
    fn prob(&self) -> Option<f64> {
        Aqm::prob(self)
    }
}

/// Every AQM the host can run.
#[derive(Clone, Debug)]
pub(crate) enum AnyAqm {
    DropTail(DropTail),
    Red(Red),
    NsRed(NsRed),
    LinuxRed(LinuxRed),
    Pi(Pi),
    Ared(Ared),
    Pie(Pie),
    Step(Step),
    Codel(Codel),
    FqCodel(FqCodel),
    DualPi2(DualPi2),
}

impl AnyAqm {
    /// RED of the configured personality; `forced` is what kind `red` (drop)
    /// or `red_star` (signal) asks of the forced region.
    pub(crate) fn red(p: &RedParams, forced: ForcedAction) -> Self {
        match p.personality {
            RedPersonality::Floyd93 => AnyAqm::Red(Red::new(p, forced)),
            RedPersonality::Ns2 => {
                let mark_p = p.mark_p.unwrap_or(NS2_DEFAULT_MARK_P);
                AnyAqm::NsRed(NsRed::new(p, Flavour::Ns2 { mark_p }))
            }
            RedPersonality::Ns3 => {
                let hard_drop = forced == ForcedAction::Drop;
                AnyAqm::NsRed(NsRed::new(p, Flavour::Ns3 { hard_drop }))
            }
            RedPersonality::Linux => AnyAqm::LinuxRed(LinuxRed::new(p, forced)),
        }
    }
}

/// Calls `$body` with `$a` bound to the variant's AQM.
macro_rules! each {
    ($self:expr, $a:ident => $body:expr) => {
        match $self {
            AnyAqm::DropTail($a) => $body,
            AnyAqm::Red($a) => $body,
            AnyAqm::NsRed($a) => $body,
            AnyAqm::LinuxRed($a) => $body,
            AnyAqm::Pi($a) => $body,
            AnyAqm::Ared($a) => $body,
            AnyAqm::Pie($a) => $body,
            AnyAqm::Step($a) => $body,
            AnyAqm::Codel($a) => $body,
            AnyAqm::FqCodel($a) => $body,
            AnyAqm::DualPi2($a) => $body,
        }
    };
}
pub(crate) use each;

// The hooks most AQMs leave empty are inlined so their no-op arms cost nothing
// on the hot path.
impl SchedAqm for AnyAqm {
    fn subqueues(&self) -> usize {
        each!(self, a => a.subqueues())
    }
    fn class_names(&self) -> &'static [&'static str] {
        each!(self, a => a.class_names())
    }
    #[inline(always)]
    fn prepare<R: RngCore + ?Sized>(&mut self, rng: &mut R) {
        each!(self, a => a.prepare(rng))
    }
    #[inline(always)]
    fn classify(&mut self, key: u64, ecn: Ecn) -> usize {
        each!(self, a => a.classify(key, ecn))
    }
    #[inline(always)]
    fn tick<B: Backlog>(&mut self, now: Instant, b: &B) {
        each!(self, a => SchedAqm::tick(a, now, b))
    }
    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        now: Instant,
        len: u32,
        sub: usize,
        b: &B,
        rng: &mut R,
    ) -> Verdict {
        each!(self, a => SchedAqm::on_enqueue(a, now, len, sub, b, rng))
    }
    #[inline(always)]
    fn on_enqueued<B: Backlog>(&mut self, now: Instant, sub: usize, b: &mut B) {
        each!(self, a => a.on_enqueued(now, sub, b))
    }
    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, rng: &mut R) -> Option<usize> {
        each!(self, a => a.dequeue(now, b, rng))
    }
    #[inline(always)]
    fn on_idle(&mut self, now: Instant) {
        each!(self, a => SchedAqm::on_idle(a, now))
    }
    fn avg_estimate(&self) -> Option<f64> {
        each!(self, a => SchedAqm::avg_estimate(a))
    }
    fn prob(&self) -> Option<f64> {
        each!(self, a => SchedAqm::prob(a))
    }
}

//! The internal AQM interface and its enum dispatch.
//!
//! Source: STYLE.md Part B "The AQM that the simulator and the emulator share"
//! (sans-IO: `now` and the RNG are always passed in; the AQM never stores
//! packets) and Linux `red.h`'s separation of algorithm from qdisc. Dispatch is
//! a closed enum ([`AnyAqm`], smoltcp's `AnyController` pattern), not
//! `Box<dyn>`, so the per-packet path has no indirect call.
//!
//! Dequeue is a notification only: neither DropTail nor RED drops at the head.
//! A head-dropping AQM (CoDel, PIE) will need `on_dequeue` to return a
//! [`Verdict`] and the host's `dequeue` to report those drops.

use ecnlab_wire::{Duration, Instant};
use rand::RngCore;

use crate::config::{RedParams, RedPersonality};
use crate::droptail::DropTail;
use crate::pi::Pi;
use crate::red::linux::LinuxRed;
use crate::red::ns::{Flavour, NsRed, NS2_DEFAULT_MARK_P};
use crate::red::{ForcedAction, Red};
use crate::verdict::Verdict;

/// What the AQM may see of the queue it guards (before the arriving packet is added).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct QueueView {
    pub len_pkts: u32,
    pub len_bytes: u64,
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
}

/// Every AQM the host can run.
#[derive(Clone, Debug)]
pub(crate) enum AnyAqm {
    DropTail(DropTail),
    Red(Red),
    NsRed(NsRed),
    LinuxRed(LinuxRed),
    Pi(Pi),
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

impl Aqm for AnyAqm {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        match self {
            AnyAqm::DropTail(a) => a.on_enqueue(now, len, q, rng),
            AnyAqm::Red(a) => a.on_enqueue(now, len, q, rng),
            AnyAqm::NsRed(a) => a.on_enqueue(now, len, q, rng),
            AnyAqm::LinuxRed(a) => a.on_enqueue(now, len, q, rng),
            AnyAqm::Pi(a) => a.on_enqueue(now, len, q, rng),
        }
    }
    fn on_dequeue(&mut self, now: Instant, sojourn: Duration, len: u32, q: &QueueView) {
        match self {
            AnyAqm::DropTail(a) => a.on_dequeue(now, sojourn, len, q),
            AnyAqm::Red(a) => a.on_dequeue(now, sojourn, len, q),
            AnyAqm::NsRed(a) => a.on_dequeue(now, sojourn, len, q),
            AnyAqm::LinuxRed(a) => a.on_dequeue(now, sojourn, len, q),
            AnyAqm::Pi(a) => a.on_dequeue(now, sojourn, len, q),
        }
    }
    fn on_idle(&mut self, now: Instant) {
        match self {
            AnyAqm::DropTail(a) => a.on_idle(now),
            AnyAqm::Red(a) => a.on_idle(now),
            AnyAqm::NsRed(a) => a.on_idle(now),
            AnyAqm::LinuxRed(a) => a.on_idle(now),
            AnyAqm::Pi(a) => a.on_idle(now),
        }
    }
    fn avg_estimate(&self) -> Option<f64> {
        match self {
            AnyAqm::DropTail(a) => a.avg_estimate(),
            AnyAqm::Red(a) => a.avg_estimate(),
            AnyAqm::NsRed(a) => a.avg_estimate(),
            AnyAqm::LinuxRed(a) => a.avg_estimate(),
            AnyAqm::Pi(a) => a.avg_estimate(),
        }
    }
}

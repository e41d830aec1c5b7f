//! A unidirectional link: an AQM queue at its input, a transmitter that
//! serialises one packet at a time at `rate_bps`, a propagation delay, and an
//! optional Bernoulli loss applied as a packet leaves.
//!
//! Events per packet: one `Arrive`, and one `TxDone` only if a packet is
//! waiting when the transmission ends. The packets in propagation form a
//! FIFO `pipe` (they leave in order, and the delay is fixed, so they arrive in
//! order): only the pipe's head has its `Arrive` in the event queue. A
//! transmission's `TxDone` gets its sequence number when the transmission
//! starts but is pushed only once a packet queues behind it; one that nothing
//! waited for would only have freed the transmitter, which `sim.rs` does
//! when it next finds the end past (`Scheduler::is_past`). Both keep the
//! order of every event as if each had been pushed when decided.

use crate::packet::QueuedRef;
use crate::rng::SimRng;
use ecnlab_aqm::{AqmQueue, QueueStats, SojournHist};
use ecnlab_wire::{Duration, Instant};
use std::collections::{BTreeMap, VecDeque};

pub struct Link {
    pub rate_bps: u64,
    pub delay: Duration,
    pub loss: f64,
    /// Probability a packet arrives damaged and is discarded by the next node.
    pub corrupt: f64,
    pub queue: AqmQueue<QueuedRef>,
    pub queue_rng: SimRng,
    pub loss_rng: SimRng,
    /// End of the transmission in progress: (time, sequence number of its `TxDone`).
    pub tx_end: Option<(Instant, u64)>,
    /// Whether that `TxDone` is in the event queue (a packet waits for it).
    pub tx_end_pushed: bool,
    /// Packets in propagation, first to arrive first.
    pub pipe: VecDeque<InFlight>,
    pub counters: LinkCounters,
    /// Time above a queue threshold (`tail.rs`), when the spec asks for it.
    pub tail: Option<crate::tail::QueueTail>,
    /// Record the sojourn-time histogram from the end of the warm-up (router queues).
    pub sojourn: bool,
    /// Per-flow queues (FQ-CoDel) with sojourns recorded: each flow's sojourn histogram, by flow index.
    pub flow_sojourn: Option<BTreeMap<u32, SojournHist>>,
    /// Each departure is recorded beyond the counters (`Simulation::record_departure`): the
    /// link has a pcap tap, or per-flow sojourn histograms. One flag for the dequeue path.
    pub watched: bool,
    /// The queue's counters and the link's when the warm-up ended (zero without a warm-up).
    pub at_warmup: Option<Box<(QueueStats, LinkCounters)>>,
    /// Path impairments of packets entering the link (`impair_link.rs`), when the spec has any.
    pub impair: Option<Box<crate::impair_link::LinkImpairments>>,
}

/// `Duration::transmission(len, rate_bps)`, computed in 64 bits when
/// len·8·10⁹ fits (any real packet): the same value without a 128-bit
/// division per packet.
#[inline]
fn serialisation(len: u32, rate_bps: u64) -> Duration {
    match u64::from(len).checked_mul(8 * 1_000_000_000) {
        Some(bits) => Duration(bits.div_ceil(rate_bps)),
        None => Duration::transmission(u64::from(len), rate_bps),
    }
}

/// A packet (slab index) in propagation and the (time, sequence number) of its `Arrive`.
pub struct InFlight {
    pub at: Instant,
    pub seq: u64,
    pub idx: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    /// Packets and bytes whose transmission started on the link.
    pub packets: u64,
    pub bytes: u64,
    /// Bytes transmitted before the warm-up ended.
    pub bytes_at_warmup: u64,
    pub random_losses: u64,
    pub corrupted: u64,
    pub fault_drops: u64,
    pub fault_marks: u64,
    /// ECN-capable packets dropped by an early (probabilistic) AQM decision.
    pub early_drops_ect: u64,
    /// Packets the queue refused (early, forced and overflow drops), by
    /// `PacketKind` (indexed by its discriminant).
    pub drops_by_kind: [u64; crate::packet::PacketKind::COUNT],
}

impl Link {
    /// Serialisation time of a packet of `len` bytes.
    #[inline]
    pub fn tx_time(&self, len: u32) -> Duration {
        serialisation(len, self.rate_bps)
    }

    /// Takes the next packet to transmit (the caller knows the transmitter is free).
    /// Inlined into the engine's dequeue path.
    #[inline]
    pub fn start_next(&mut self, now: Instant) -> Option<QueuedRef> {
        let p = self.queue.dequeue(now, &mut self.queue_rng)?;
        if let Some(t) = self.tail.as_mut() {
            t.observe(now, self.queue.len_bytes());
        }
        self.counters.packets += 1;
        self.counters.bytes += u64::from(p.len);
        Some(p)
    }

    /// With per-flow sojourn histograms (`flow_sojourn`): the sojourn of the packet
    /// [`Self::start_next`] took last into the histogram of its `flow`.
    pub fn record_flow_sojourn(&mut self, flow: u32) {
        let sojourn = self.queue.last_sojourn();
        if let Some(per_flow) = self.flow_sojourn.as_mut() {
            per_flow.entry(flow).or_default().record(sojourn);
        }
    }

    /// Starts the sojourn histograms (the queue's, and per flow where the queue is per flow).
    pub fn record_sojourn(&mut self) {
        self.queue.record_sojourn();
        if self.queue.is_per_flow() {
            self.flow_sojourn = Some(BTreeMap::new());
            self.watched = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The 64-bit path gives `Duration::transmission`'s value for every length and rate.
        #[test]
        fn prop_serialisation_is_transmission(len in prop_oneof![0u32..70_000, any::<u32>()], rate in 1u64..u64::MAX) {
            prop_assert_eq!(serialisation(len, rate), Duration::transmission(u64::from(len), rate));
        }
    }
}

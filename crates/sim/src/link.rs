//! A unidirectional link: an AQM queue at its input, a transmitter that
//! serialises one packet at a time at `rate_bps`, a propagation delay, and an
//! optional Bernoulli loss applied as a packet leaves. A link in transmission
//! costs one `TxDone` event per packet and one `Arrive` per packet delivered.

use crate::packet::Packet;
use crate::rng::SimRng;
use ecnlab_aqm::AqmQueue;
use ecnlab_wire::{Duration, Instant};

pub struct Link {
    pub rate_bps: u64,
    pub delay: Duration,
    pub loss: f64,
    /// Probability a packet arrives damaged and is discarded by the next node.
    pub corrupt: f64,
    pub queue: AqmQueue<Packet>,
    pub queue_rng: SimRng,
    pub loss_rng: SimRng,
    /// A packet is being serialised until the pending `TxDone`.
    pub busy: bool,
    pub counters: LinkCounters,
    /// Time above a queue threshold (`tail.rs`), when the spec asks for it.
    pub tail: Option<crate::tail::QueueTail>,
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
}

impl Link {
    /// Serialisation time of a packet of `len` bytes.
    #[inline]
    pub fn tx_time(&self, len: u32) -> Duration {
        Duration::transmission(len as u64, self.rate_bps)
    }

    /// Takes the next packet to transmit, if the transmitter is free.
    pub fn start_next(&mut self, now: Instant) -> Option<Packet> {
        if self.busy {
            return None;
        }
        let p = self.queue.dequeue(now)?;
        if let Some(t) = self.tail.as_mut() {
            t.observe(now, self.queue.len_bytes());
        }
        self.busy = true;
        self.counters.packets += 1;
        self.counters.bytes += u64::from(ecnlab_aqm::QueuedPacket::wire_len(&p));
        Some(p)
    }
}

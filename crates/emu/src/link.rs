//! One emulated unidirectional link, sans-IO: the simulator's `AqmQueue` at its
//! input, a transmitter that serialises one packet at a time at `rate_bps`, a
//! propagation delay line, and Bernoulli loss as a packet leaves — the model of
//! `crates/sim/src/link.rs`, driven by times the caller passes in.
//!
//! Departures are scheduled in virtual time (Mahimahi `rationalize`): a packet
//! that starts transmission at `t` finishes at `t + bits/rate` and arrives at
//! `t + bits/rate + delay`, whatever the time the caller happens to look; the
//! next packet starts exactly when the previous one finished. A late caller
//! only delays the hand-over, never the schedule, so the rate is exact.

use std::collections::VecDeque;

use ecnlab_aqm::{AqmQueue, DropReason, QueueConfig, QueueStats, QueuedPacket};
use ecnlab_sim::rng::{stream, SimRng, Stream};
use ecnlab_wire::{Duration, Instant};
use rand::Rng;
use serde::Serialize;

use crate::config::LinkConfig;

/// Counters of the link itself (the queue keeps its own), named as the simulator's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkCounters {
    /// Packets and IP bytes whose transmission started.
    pub packets: u64,
    pub bytes: u64,
    pub random_losses: u64,
    /// `bytes` at the end of the warm-up (utilisation counts the bytes after it, as the simulator's).
    pub bytes_at_warmup: u64,
    /// The queue's CE marks and drops (every kind) at the end of the warm-up.
    pub marks_at_warmup: u64,
    pub drops_at_warmup: u64,
    /// ECN-capable packets dropped by an early (probabilistic) AQM decision.
    pub early_drops_ect: u64,
}

/// What the link did at its next event time.
#[derive(Debug, PartialEq, Eq)]
pub enum Fired<P> {
    /// A transmission ended (and the next one, if any, started).
    TxDone,
    /// A packet reached the far end of the link.
    Arrived(P),
    /// A packet reached the far end and was lost (counted).
    Lost,
}

pub struct Link<P: QueuedPacket> {
    rate_bps: u64,
    delay: Duration,
    loss: f64,
    queue: AqmQueue<P>,
    queue_rng: SimRng,
    loss_rng: SimRng,
    /// The packet being serialised and when it is done.
    tx: Option<(Instant, P)>,
    /// Packets propagating, with their arrival times (non-decreasing).
    line: VecDeque<(Instant, P)>,
    counters: LinkCounters,
}

impl<P: QueuedPacket> Link<P> {
    /// `seed` and `cfg.index` select the same RNG streams the simulator gives this link.
    pub fn new(seed: u64, cfg: &LinkConfig) -> Result<Self, ecnlab_aqm::ConfigError> {
        Ok(Link {
            rate_bps: cfg.rate_bps,
            delay: Duration::from_nanos(cfg.delay_ns),
            loss: cfg.loss,
            queue: {
                let mut q = AqmQueue::new(&cfg.queue)?;
                q.record_sojourn();
                q
            },
            queue_rng: stream(seed, Stream::Queue, cfg.index),
            loss_rng: stream(seed, Stream::LinkLoss, cfg.index),
            tx: None,
            line: VecDeque::new(),
            counters: LinkCounters::default(),
        })
    }

    /// A simple link for tests: the given queue, no loss, stream index 0.
    pub fn with_queue(rate_bps: u64, delay: Duration, queue: &QueueConfig) -> Result<Self, ecnlab_aqm::ConfigError> {
        let cfg = LinkConfig {
            name: String::new(),
            index: 0,
            rate_bps,
            delay_ns: delay.as_nanos(),
            loss: 0.0,
            queue: *queue,
            pcap: None,
            impairments: Vec::new(),
        };
        Self::new(0, &cfg)
    }

    /// A packet enters the link at `t`: the queue decides, then an idle
    /// transmitter starts at once (`on_start` sees each packet whose
    /// transmission starts, for captures). `Err` gives the drop reason.
    pub fn enter(&mut self, t: Instant, pkt: P, on_start: &mut dyn FnMut(Instant, &P)) -> Result<(), DropReason> {
        let verdict = self.queue.enqueue(t, pkt, &mut self.queue_rng);
        self.count_queue_drops();
        if let Err((p, reason)) = verdict {
            self.count_drop(&p, reason);
            return Err(reason);
        }
        if self.tx.is_none() {
            self.start_next(t, on_start);
        }
        Ok(())
    }

    /// Time of the next event: a delivery first, on a tie with a transmission end.
    pub fn next_event(&self) -> Option<Instant> {
        let line = self.line.front().map(|(t, _)| *t);
        let tx = self.tx.as_ref().map(|(t, _)| *t);
        match (line, tx) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the event at `next_event()`; the caller must not skip one.
    pub fn fire(&mut self, on_start: &mut dyn FnMut(Instant, &P)) -> Option<(Instant, Fired<P>)> {
        let t = self.next_event()?;
        if self.line.front().is_some_and(|(at, _)| *at == t) {
            let (_, p) = self.line.pop_front()?;
            // crates/sim on_arrive: loss is drawn as the packet leaves the link.
            if self.loss > 0.0 && self.loss_rng.random::<f64>() < self.loss {
                self.counters.random_losses += 1;
                return Some((t, Fired::Lost));
            }
            return Some((t, Fired::Arrived(p)));
        }
        let (end, p) = self.tx.take()?;
        self.line.push_back((end + self.delay, p));
        self.start_next(end, on_start);
        Some((t, Fired::TxDone))
    }

    fn start_next(&mut self, t: Instant, on_start: &mut dyn FnMut(Instant, &P)) {
        let next = self.queue.dequeue(t, &mut self.queue_rng);
        self.count_queue_drops();
        let Some(p) = next else { return };
        let len = p.wire_len();
        self.counters.packets += 1;
        self.counters.bytes += u64::from(len);
        on_start(t, &p);
        let done = t + Duration::transmission(u64::from(len), self.rate_bps);
        self.tx = Some((done, p));
    }

    /// The link's own count of a packet its queue dropped (the queue counts it too).
    fn count_drop(&mut self, p: &P, reason: DropReason) {
        if reason == DropReason::Early && p.ecn().is_ect() {
            self.counters.early_drops_ect += 1;
        }
    }

    /// Packets the AQM dropped after enqueueing them (at dequeue, or
    /// FQ-CoDel's overflow) are freed here.
    fn count_queue_drops(&mut self) {
        let ect_early = self.queue.drain_dropped().filter(|(p, r)| *r == DropReason::Early && p.ecn().is_ect()).count();
        self.counters.early_drops_ect += ect_early as u64;
    }

    /// The traffic starts at `t`: the queue's time averages cover the time from here on.
    pub fn start_averages(&mut self, t: Instant) {
        self.queue.restart_averages(t);
    }

    /// The warm-up ends: sojourn times are recorded afresh and `bytes_at_warmup` is taken
    /// (the simulator's `on_warmup_end`).
    pub fn end_warmup(&mut self) {
        self.queue.record_sojourn();
        self.counters.bytes_at_warmup = self.counters.bytes;
        (self.counters.marks_at_warmup, self.counters.drops_at_warmup) = self.queue.marks_drops();
    }

    pub fn counters(&self) -> LinkCounters {
        self.counters
    }

    pub fn queue_stats(&self, now: Instant) -> QueueStats {
        self.queue.stats(now)
    }
}

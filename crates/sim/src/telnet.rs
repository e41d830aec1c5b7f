//! Telnet traffic (Floyd 1994 §6.1): one long-lived connection on which the
//! source application writes a small packet at random intervals, and the
//! per-packet one-way delay the user would feel.
//!
//! Packet size: Floyd's packets are 40 bytes on the wire. A TCP segment that
//! carries data has at least one payload byte, so a write is `write_bytes`
//! (default 1) payload bytes: 41 bytes on the wire with the 40 bytes of IPv4
//! and TCP headers.
//!
//! Delay: measured per write, from the moment the application wrote it (the
//! earliest its first transmission can happen) until the last of its bytes is
//! delivered in order to the receiving application. A write that is dropped
//! and retransmitted therefore carries its whole wait, including the
//! retransmission timeout, as in Floyd 1994 §6.1 ("from the first time that
//! the packet is transmitted by the source, until the packet is received").
//! Writes are remembered by stream offset, so TCP coalescing several writes
//! into one segment (or re-cutting them on retransmission) changes nothing.

use crate::rng::SimRng;
use crate::tcplib::telnet_interarrival_s;
use ecnlab_wire::{Duration, Instant};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How the time between two writes is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interarrival {
    /// The tcplib telnet distribution (see `tcplib.rs`).
    Tcplib,
    /// Exponential with the flow's `mean_interarrival_ns`.
    Exponential,
}

/// The threshold of Floyd's fifth row: delays the user notices.
pub const NOTICEABLE: Duration = Duration(100_000_000);

/// Upper bin edges of the delay histogram, in milliseconds (the last bin is
/// everything above the last edge).
pub const HIST_EDGES_MS: [u64; 10] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/// Delays of delivered writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DelayStats {
    pub count: u64,
    pub sum_ns: u128,
    pub max_ns: u64,
    pub over_100ms: u64,
    pub hist: [u64; HIST_EDGES_MS.len() + 1],
}

impl DelayStats {
    pub fn add(&mut self, d: Duration) {
        let ns = d.as_nanos();
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
        self.over_100ms += u64::from(d > NOTICEABLE);
        let bin = HIST_EDGES_MS.iter().position(|&e| ns <= e * 1_000_000).unwrap_or(HIST_EDGES_MS.len());
        self.hist[bin] += 1;
    }

    pub fn mean_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64 / 1e9)
    }

    pub fn max_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.max_ns as f64 / 1e9)
    }

    pub fn frac_over_100ms(&self) -> Option<f64> {
        (self.count > 0).then(|| self.over_100ms as f64 / self.count as f64)
    }
}

/// A telnet flow's source schedule and delay bookkeeping.
#[derive(Clone, Debug)]
pub struct Telnet {
    pub interarrival: Interarrival,
    pub mean_ns: u64,
    pub write_bytes: u32,
    /// Stream bytes written so far.
    pub written: u64,
    pub writes: u64,
    /// (stream offset one past the write's last byte, write time), oldest first.
    pending: VecDeque<(u64, Instant)>,
    pub delays: DelayStats,
}

impl Telnet {
    pub fn new(interarrival: Interarrival, mean_ns: u64, write_bytes: u32) -> Self {
        Telnet {
            interarrival,
            mean_ns,
            write_bytes,
            written: 0,
            writes: 0,
            pending: VecDeque::new(),
            delays: DelayStats::default(),
        }
    }

    /// Time from one write to the next.
    pub fn next_gap(&self, rng: &mut SimRng) -> Duration {
        let u: f64 = rng.random();
        let secs = match self.interarrival {
            Interarrival::Tcplib => telnet_interarrival_s(u),
            // Inverse CDF; 1 − u is in (0, 1], so the logarithm is finite.
            Interarrival::Exponential => -(1.0 - u).ln() * self.mean_ns as f64 / 1e9,
        };
        Duration((secs * 1e9).round().max(1.0) as u64)
    }

    /// Records a write of `write_bytes` at `now`; returns the bytes to hand to TCP.
    pub fn write(&mut self, now: Instant) -> u64 {
        let n = u64::from(self.write_bytes);
        self.written += n;
        self.writes += 1;
        self.pending.push_back((self.written, now));
        n
    }

    /// The receiving application now holds the first `delivered` stream bytes.
    pub fn on_delivered(&mut self, delivered: u64, now: Instant) {
        while let Some(&(end, at)) = self.pending.front() {
            if end > delivered {
                break;
            }
            self.delays.add(now - at);
            self.pending.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn test_delay_counts_from_write_to_in_order_delivery() {
        let mut t = Telnet::new(Interarrival::Tcplib, 0, 1);
        t.write(Instant(0));
        t.write(Instant(10_000_000));
        t.write(Instant(20_000_000));
        t.on_delivered(1, Instant(5_000_000)); // first write: 5 ms
        t.on_delivered(3, Instant(320_000_000)); // second and third together
        assert_eq!(t.delays.count, 3);
        assert_eq!(t.delays.max_ns, 310_000_000);
        assert_eq!(t.delays.over_100ms, 2);
        assert_eq!(t.delays.sum_ns, 5_000_000 + 310_000_000 + 300_000_000);
        assert_eq!(t.delays.hist[2], 1); // 5 ms is in (2, 5]
        assert_eq!(t.delays.hist[8], 2); // 300/310 ms are in (200, 500]
    }

    #[test]
    fn test_exponential_gaps_have_the_configured_mean() {
        let t = Telnet::new(Interarrival::Exponential, 200_000_000, 1);
        let mut rng = stream(1, Stream::App, 0);
        let n = 20_000;
        let mean = (0..n).map(|_| t.next_gap(&mut rng).as_nanos() as f64).sum::<f64>() / n as f64;
        assert!((mean / 2e8 - 1.0).abs() < 0.03, "mean {mean}");
    }

    #[test]
    fn test_tcplib_gaps_follow_the_table() {
        let t = Telnet::new(Interarrival::Tcplib, 0, 1);
        let mut rng = stream(1, Stream::App, 0);
        let mut gaps: Vec<u64> = (0..20_000).map(|_| t.next_gap(&mut rng).as_nanos()).collect();
        gaps.sort_unstable();
        let median = gaps[gaps.len() / 2] as f64 / 1e9;
        assert!((median - 0.236).abs() < 0.03, "median {median}");
    }
}

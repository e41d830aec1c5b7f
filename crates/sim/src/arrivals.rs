//! Short FTP transfers arriving at random (Floyd 1994 §7.1: "occasional FTP
//! connections with a limited amount of data to transfer (100-300 packets)").
//!
//! Arrival process: Poisson, i.e. exponential gaps with mean `mean_gap_ns`
//! between transfer starts, the first at the flow's start. Each
//! transfer opens its own connection (so transfers may overlap) and sends a
//! size drawn uniformly from `min_bytes..=max_bytes`, then closes. All draws
//! come from the flow's own RNG stream.

use crate::rng::SimRng;
use ecnlab_wire::{Duration, Instant};
use rand::Rng;

/// One transfer of an `ftp_arrivals` flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub start: Instant,
    pub bytes: u64,
    pub done: Option<Instant>,
}

/// The transfers of one flow, indexed by connection number.
#[derive(Clone, Debug, Default)]
pub struct Transfers {
    pub list: Vec<Transfer>,
}

impl Transfers {
    /// Exponential gap with mean `mean_ns` (inverse CDF; at least 1 ns).
    pub fn gap(rng: &mut SimRng, mean_ns: u64) -> Duration {
        let u: f64 = rng.random();
        Duration((-(1.0 - u).ln() * mean_ns as f64).round().max(1.0) as u64)
    }

    /// Draws the size of connection `conn_no` starting at `now` and records it.
    pub fn begin(&mut self, rng: &mut SimRng, now: Instant, min_bytes: u64, max_bytes: u64) -> u64 {
        let bytes = rng.random_range(min_bytes..=max_bytes);
        self.list.push(Transfer { start: now, bytes, done: None });
        bytes
    }

    /// Connection `conn_no`'s receiver now holds `received` bytes; true when that completes it.
    pub fn on_received(&mut self, conn_no: u32, received: u64, now: Instant) -> bool {
        match self.list.get_mut(conn_no as usize) {
            Some(t) if t.done.is_none() && received >= t.bytes => {
                t.done = Some(now);
                true
            }
            _ => false,
        }
    }

    pub fn completed(&self) -> u64 {
        self.list.iter().filter(|t| t.done.is_some()).count() as u64
    }

    /// Mean over completed transfers of bytes·8 / (done − start), bit/s.
    pub fn mean_goodput_bps(&self) -> Option<f64> {
        let rates: Vec<f64> = self
            .list
            .iter()
            .filter_map(|t| {
                let secs = (t.done? - t.start).as_secs_f64();
                (secs > 0.0).then(|| t.bytes as f64 * 8.0 / secs)
            })
            .collect();
        (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn test_sizes_stay_in_range_and_gaps_have_the_mean() {
        let mut rng = stream(3, Stream::App, 1);
        let mut t = Transfers::default();
        for _ in 0..1000 {
            let b = t.begin(&mut rng, Instant(0), 96_000, 288_000);
            assert!((96_000..=288_000).contains(&b));
        }
        let mean = (0..20_000).map(|_| Transfers::gap(&mut rng, 1_000_000).as_nanos() as f64).sum::<f64>() / 20_000.0;
        assert!((mean / 1e6 - 1.0).abs() < 0.03, "mean {mean}");
    }

    #[test]
    fn test_completion_and_goodput() {
        let mut rng = stream(3, Stream::App, 1);
        let mut t = Transfers::default();
        let b = t.begin(&mut rng, Instant(1_000_000_000), 1000, 1000);
        assert_eq!(b, 1000);
        assert!(!t.on_received(0, 999, Instant(1_500_000_000)));
        assert!(t.on_received(0, 1000, Instant(2_000_000_000)));
        assert!(!t.on_received(0, 1000, Instant(3_000_000_000)), "completes once");
        assert_eq!(t.completed(), 1);
        assert_eq!(t.mean_goodput_bps(), Some(8000.0));
    }
}

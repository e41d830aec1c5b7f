//! Delivery lateness: how long after its scheduled (virtual) delivery time a
//! packet was really written to its TUN device. A late wake-up does not change
//! the rate (departures are scheduled in virtual time, Mahimahi-style lazy
//! catch-up); it shows up here as lateness and as small bursts.

use serde::Serialize;

/// At most this many samples are kept (4 bytes each); later ones only count.
const MAX_SAMPLES: usize = 1 << 24;

#[derive(Clone, Debug, Default)]
pub struct Lateness {
    /// Lateness in nanoseconds, saturated at u32::MAX (≈ 4.3 s).
    samples: Vec<u32>,
    dropped_samples: u64,
}

/// Percentiles in microseconds (nearest-rank).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LatenessReport {
    pub samples: u64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        if self.samples.len() < MAX_SAMPLES {
            self.samples.push(u32::try_from(late_ns).unwrap_or(u32::MAX));
        } else {
            self.dropped_samples += 1;
        }
    }

    pub fn report(&self) -> LatenessReport {
        let mut s = self.samples.clone();
        s.sort_unstable();
        let rank = |q: f64| -> f64 {
            if s.is_empty() {
                return 0.0;
            }
            // Nearest rank: the smallest sample with at least q of the samples at or below it.
            let i = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1;
            f64::from(s[i]) / 1000.0
        };
        LatenessReport {
            samples: s.len() as u64 + self.dropped_samples,
            p50_us: rank(0.5),
            p90_us: rank(0.9),
            p99_us: rank(0.99),
            max_us: rank(1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_nearest_rank_percentiles() {
        let mut l = Lateness::default();
        assert_eq!(l.report(), LatenessReport::default());
        for us in 1..=100u64 {
            l.record(us * 1000);
        }
        let r = l.report();
        assert_eq!((r.samples, r.p50_us, r.p90_us, r.p99_us, r.max_us), (100, 50.0, 90.0, 99.0, 100.0));
    }
}

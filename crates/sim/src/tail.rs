//! Queue tail: the fraction of time a link's queue holds more than a byte threshold.
//!
//! Kuzmanovic 2005 §5.2.2 (Fig. 8, 9) measures P(Q > 5 ms·C): the probability
//! that the queue exceeds the backlog a link of capacity C drains in 5 ms.
//! Sampled queue lengths would need a sampling interval far below a packet
//! time at 622 Mbit/s; instead the exact time-weighted fraction is integrated
//! from every enqueue and dequeue (the queue only changes there), clipped to
//! the measurement window [warm-up, end].

use ecnlab_wire::Instant;

#[derive(Clone, Copy, Debug)]
pub struct QueueTail {
    pub threshold_bytes: u64,
    warmup: Instant,
    /// Since when the queue has been above the threshold, if it is.
    above_since: Option<Instant>,
    above_ns: u64,
}

impl QueueTail {
    pub fn new(threshold_bytes: u64, warmup: Instant) -> Self {
        QueueTail { threshold_bytes, warmup, above_since: None, above_ns: 0 }
    }

    /// The queue holds `len_bytes` from `now` on.
    pub fn observe(&mut self, now: Instant, len_bytes: u64) {
        let above = len_bytes > self.threshold_bytes;
        match (self.above_since, above) {
            (None, true) => self.above_since = Some(now),
            (Some(since), false) => {
                self.above_ns += self.clipped(since, now);
                self.above_since = None;
            }
            _ => {}
        }
    }

    /// Time above the threshold within [warm-up, `end`] divided by that window.
    pub fn fraction(&self, end: Instant) -> f64 {
        let window = end.as_nanos().saturating_sub(self.warmup.as_nanos());
        if window == 0 {
            return 0.0;
        }
        let open = self.above_since.map_or(0, |s| self.clipped(s, end));
        (self.above_ns + open) as f64 / window as f64
    }

    fn clipped(&self, from: Instant, to: Instant) -> u64 {
        to.as_nanos().saturating_sub(from.as_nanos().max(self.warmup.as_nanos()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_fraction_integrates_time_above_within_the_window() {
        let ms = |m: u64| Instant::from_nanos(m * 1_000_000);
        let mut t = QueueTail::new(1000, ms(10));
        t.observe(ms(0), 1500); // above from 0, but the window starts at 10
        t.observe(ms(15), 1000); // exactly the threshold is not above: 5 ms counted
        t.observe(ms(20), 1001);
        t.observe(ms(30), 3000); // still above
        t.observe(ms(40), 0); // 20 ms more
        t.observe(ms(100), 5000); // open until the end: 10 ms
        assert_eq!(t.fraction(ms(110)), 35.0 / 100.0);
        assert_eq!(QueueTail::new(1, ms(5)).fraction(ms(5)), 0.0);
    }
}

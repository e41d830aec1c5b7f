//! PI: the proportional-integral AQM controller.
//!
//! Source: C. V. Hollot, V. Misra, D. Towsley, W. Gong, "On Designing Improved
//! Controllers for AQM Routers Supporting TCP Flows", IEEE INFOCOM 2001, §V
//! ("PI controller") and its digital implementation (the ns-2 `PI` queue,
//! `pi.cc`). Sampled at frequency `f = sample_hz`, the controller is the
//! difference equation (Hollot et al. 2001, §V, the discretised eq. for p):
//!
//! ```text
//! p(k) = a·(q(k) − q_ref) − b·(q(k−1) − q_ref) + p(k−1),   clamped to [0, 1]
//! ```
//!
//! where `q(k)` is the instantaneous queue in packets at the k-th sampling
//! instant `k/f` (k ≥ 1), `p(0) = 0`, `q(0) = 0`. Every arriving packet
//! receives a congestion signal with probability `p` (one uniform draw per
//! arrival while `p > 0`, none while `p = 0`); the host queue marks or drops
//! it (`queue.rs`). The design rule for `a`, `b` lives with the scenario
//! front (`python/ecnlab/pi_design.py`, docs/scenario.md).
//!
//! Sampling without a timer (sans-IO): the host calls the AQM on every arrival
//! and departure. Before handling an event at `now`, every sampling instant
//! `t_k ≤ now` not yet taken is taken with the queue as it was *before* the
//! event — which is exactly the queue at `t_k`, because the queue only changes
//! at events. So the trajectory depends on the arrival and departure times
//! alone, never on when the host happens to look. Between two events the
//! queue is constant: the first pending sample uses `q(k−1)` as stored, the
//! remaining `n − 1` add the constant `(a − b)·(q − q_ref)` each; with the
//! clamp that is `clamp(p + (n − 1)·(a − b)·(q − q_ref))` (adding a constant
//! with a clamp after each step equals one clamped sum), so a long idle period
//! costs O(1).

use ecnlab_wire::{Duration, Instant};
use rand::{Rng, RngCore};

use crate::aqm::{Aqm, QueueView};
use crate::config::PiParams;
use crate::verdict::{SignalKind, Verdict};

/// The discrete PI controller and its sampling clock.
#[derive(Clone, Debug)]
pub(crate) struct Pi {
    q_ref: f64,
    a: f64,
    b: f64,
    period: Duration,
    /// The next sampling instant not yet taken.
    next_sample: Instant,
    /// p(k−1) and q(k−1).
    p: f64,
    q_old: f64,
}

/// The sampling period 1/f, rounded to the nanosecond, at least 1 ns.
pub(crate) fn sample_period(sample_hz: f64) -> Duration {
    Duration::from_nanos(((1e9 / sample_hz).round() as u64).max(1))
}

/// One step of the difference equation (module doc), clamped to [0, 1].
pub(crate) fn pi_step(p_old: f64, q: f64, q_old: f64, q_ref: f64, a: f64, b: f64) -> f64 {
    (a * (q - q_ref) - b * (q_old - q_ref) + p_old).clamp(0.0, 1.0)
}

impl Pi {
    pub(crate) fn new(cfg: &PiParams) -> Self {
        let period = sample_period(cfg.sample_hz);
        Pi {
            q_ref: cfg.q_ref,
            a: cfg.a,
            b: cfg.b,
            period,
            next_sample: Instant::from_nanos(period.as_nanos()),
            p: 0.0,
            q_old: 0.0,
        }
    }

    /// The current probability p(k).
    #[cfg(test)]
    pub(crate) fn prob(&self) -> f64 {
        self.p
    }

    /// Takes every sampling instant ≤ `now` with the queue `q_pkts` (module doc).
    fn catch_up(&mut self, now: Instant, q_pkts: u32) {
        if self.next_sample > now {
            return;
        }
        let period = self.period.as_nanos();
        let n = (now.as_nanos() - self.next_sample.as_nanos()) / period + 1;
        let q = f64::from(q_pkts);
        self.p = pi_step(self.p, q, self.q_old, self.q_ref, self.a, self.b);
        if n > 1 {
            let rest = (n - 1) as f64 * (self.a - self.b) * (q - self.q_ref);
            self.p = (self.p + rest).clamp(0.0, 1.0);
        }
        self.q_old = q;
        let next = self.next_sample.as_nanos().saturating_add(n.saturating_mul(period));
        self.next_sample = Instant::from_nanos(next);
    }
}

impl Aqm for Pi {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, _len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        self.catch_up(now, q.len_pkts);
        if self.p > 0.0 {
            let u: f64 = rng.random();
            if u < self.p {
                return Verdict::Signal(SignalKind::Early);
            }
        }
        Verdict::Pass
    }

    fn on_dequeue(&mut self, now: Instant, _sojourn: Duration, _len: u32, q: &QueueView) {
        // `q` excludes the departing packet: before this event the queue held one more.
        self.catch_up(now, q.len_pkts + 1);
    }
}

#[cfg(test)]
#[path = "pi_tests.rs"]
mod tests;

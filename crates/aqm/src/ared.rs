//! Adaptive RED: RED whose `max_p` adapts so that the average queue stays
//! near a target delay, with thresholds and weight set from the link rate.
//!
//! Source: S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management", ICSI 2001,
//! §4 (Fig. 3, the adaptation) and §5 (automatic parameters); the RED it
//! adapts is gentle RED as ns-3 `red-queue-disc.cc` runs it (`red/ns.rs`,
//! personality `ns3`, `UseHardDrop`: drops above 2·max_th).
//!
//! ```text
//! C      = link_rate_bps / (8 · mean_pkt_bytes)          link capacity, packets/s
//! min_th = max(5, target_delay · C / 2)                   packets   (unless given)
//! max_th = 3 · min_th                                     packets   (unless given; given, ≤ limit_pkts)
//! wq     = 1 − exp(−1/C)                                  (unless given)
//! every interval (at t = k·interval, k ≥ 1), with avg the average queue at t:
//!     part = 0.4 · (max_th − min_th)
//!     avg > max_th − part and max_p < top:     max_p ← max_p + min(alpha, max_p / 4)
//!     avg < min_th + part and max_p > bottom:  max_p ← max_p · beta
//! ```
//!
//! | parameter         | default | source                                  |
//! |-------------------|---------|-----------------------------------------|
//! | `target_delay_ns` | 5 ms    | paper §5; ns-3 `TargetDelay`            |
//! | `interval_ns`     | 0.5 s   | paper Fig. 3; ns-3 `Interval`           |
//! | `alpha`           | 0.01    | paper Fig. 3; ns-3 `Alpha`              |
//! | `beta`            | 0.9     | paper Fig. 3; ns-3 `Beta`               |
//! | `bottom`, `top`   | 0.01, 0.5 | paper Fig. 3 (max_p kept in [0.01, 0.5]) |
//! | `max_p` (initial) | 0.02    | ns-3 `LInterm` 50 = 1/max_p             |
//!
//! Differences from ns-3's ARED, kept on purpose (paper as written): ns-3
//! adapts at the first arrival after `interval` has passed since max_p last
//! *changed*, with the average just computed; here the adaptation runs on
//! the interval's clock (`tick`, taken lazily, module doc of `aqm.rs`) with
//! the average as of that instant (decayed over an idle period exactly as the
//! next arrival would decay it). ns-3's gentle region keeps the slope of the
//! initial max_p (`m_vC`, `m_vD` are set once); here it uses the current one.
//!
//! `exp` is evaluated by its alternating series in plain IEEE arithmetic, so
//! the weight is bit-identical on every machine.

use ecnlab_wire::{Duration, Instant};
use rand::RngCore;

use crate::aqm::{Aqm, QueueView};
use crate::config::{AredParams, RedMode, RedParams};
use crate::error::{check_limits, check_unit_interval, ConfigError};
use crate::red::ns::{Flavour, NsRed};
use crate::verdict::Verdict;

#[derive(Clone, Debug)]
pub(crate) struct Ared {
    red: NsRed,
    min_th: f64,
    max_th: f64,
    alpha: f64,
    beta: f64,
    bottom: f64,
    top: f64,
    interval: Duration,
    next_update: Instant,
}

/// Link capacity in mean-size packets per second.
fn capacity_pps(p: &AredParams) -> f64 {
    p.link_rate_bps as f64 / (8.0 * f64::from(p.mean_pkt_bytes))
}

/// 1 − e^(−x) for 0 < x ≤ 1 by the alternating series (error < 1e-17).
pub(crate) fn one_minus_exp_neg(x: f64) -> f64 {
    let (mut term, mut sum) = (x, 0.0);
    for n in 1..40 {
        sum += term;
        term *= -x / f64::from(n + 1);
    }
    sum
}

/// (min_th, max_th, wq): given, or set automatically (module doc).
pub(crate) fn auto_params(p: &AredParams) -> (f64, f64, f64) {
    let c = capacity_pps(p);
    let target_s = p.target_delay_ns as f64 / 1e9;
    let min_th = p.min_th.unwrap_or_else(|| (target_s * c / 2.0).max(5.0));
    let max_th = p.max_th.unwrap_or(3.0 * min_th);
    let wq = p.wq.unwrap_or_else(|| one_minus_exp_neg(1.0 / c));
    (min_th, max_th, wq)
}

impl Ared {
    pub(crate) fn new(p: &AredParams) -> Self {
        let (min_th, max_th, wq) = auto_params(p);
        let red = RedParams {
            limit_pkts: p.limit_pkts,
            limit_bytes: p.limit_bytes,
            min_th,
            max_th,
            max_p: p.max_p,
            wq,
            gentle: true,
            wait: true,
            mode: RedMode::Packet,
            mean_pkt_bytes: p.mean_pkt_bytes,
            link_rate_bps: p.link_rate_bps,
            ecn: p.ecn,
            personality: crate::config::RedPersonality::Ns3,
            mark_p: None,
            adaptive: false,
            ns2_rng_skip: None,
            quench: false,
        };
        let interval = Duration::from_nanos(p.interval_ns);
        Ared {
            red: NsRed::new(&red, Flavour::Ns3 { hard_drop: true }),
            min_th,
            max_th,
            alpha: p.alpha,
            beta: p.beta,
            bottom: p.bottom,
            top: p.top,
            interval,
            next_update: Instant::ZERO + interval,
        }
    }

    /// Fig. 3 of the paper, with the average queue `avg`.
    fn adapt(&mut self, avg: f64) {
        let part = 0.4 * (self.max_th - self.min_th);
        let max_p = self.red.max_p();
        if avg > self.max_th - part && max_p < self.top {
            self.red.set_max_p(max_p + self.alpha.min(max_p / 4.0));
        } else if avg < self.min_th + part && max_p > self.bottom {
            self.red.set_max_p(max_p * self.beta);
        }
    }
}

impl Aqm for Ared {
    fn tick(&mut self, now: Instant, _q: &QueueView) {
        while self.next_update <= now {
            let avg = self.red.avg_at(self.next_update);
            self.adapt(avg);
            self.next_update += self.interval;
        }
    }
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        self.red.on_enqueue(now, len, q, rng)
    }
    fn on_idle(&mut self, now: Instant) {
        self.red.on_idle(now);
    }
    fn avg_estimate(&self) -> Option<f64> {
        self.red.avg_estimate()
    }
    /// The current max_p.
    fn prob(&self) -> Option<f64> {
        Some(self.red.max_p())
    }
}

impl AredParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        for (field, v) in [("target_delay_ns", self.target_delay_ns), ("interval_ns", self.interval_ns)] {
            if v == 0 {
                return Err(ConfigError::new(field, v, "must be > 0"));
            }
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(ConfigError::new("alpha", self.alpha, "must be in (0, 1]"));
        }
        check_unit_interval("beta", self.beta)?;
        check_unit_interval("top", self.top)?;
        if !(self.bottom > 0.0 && self.bottom < self.top) {
            return Err(ConfigError::new("bottom", self.bottom, format!("must be in (0, top = {})", self.top)));
        }
        check_unit_interval("max_p", self.max_p)?;
        if self.mean_pkt_bytes < 1 {
            return Err(ConfigError::new("mean_pkt_bytes", self.mean_pkt_bytes, "must be >= 1"));
        }
        if capacity_pps(self) < 1.0 && self.wq.is_none() {
            let rule = "must carry at least one mean-size packet per second (or give wq)";
            return Err(ConfigError::new("link_rate_bps", self.link_rate_bps, rule));
        }
        if let Some(wq) = self.wq {
            check_unit_interval("wq", wq)?;
        }
        let (min_th, max_th, _) = auto_params(self);
        if !(min_th.is_finite() && min_th >= 0.0) {
            return Err(ConfigError::new("min_th", min_th, "must be finite and >= 0"));
        }
        if !(max_th.is_finite() && max_th > min_th) {
            return Err(ConfigError::new("max_th", max_th, format!("must be finite and > min_th ({min_th})")));
        }
        if let (Some(given), Some(pkts)) = (self.max_th, self.limit_pkts) {
            if given > f64::from(pkts) {
                let rule = format!("must be <= limit_pkts ({pkts}): the average queue never exceeds the limit");
                return Err(ConfigError::new("max_th", given, rule));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QueueConfig;
    use crate::queue::AqmQueue;
    use crate::testutil::{ScriptRng, TestPkt};
    use ecnlab_wire::Ecn;

    fn params() -> AredParams {
        AredParams {
            limit_pkts: Some(1000),
            limit_bytes: None,
            target_delay_ns: 5_000_000,
            interval_ns: 500_000_000,
            alpha: 0.01,
            beta: 0.9,
            bottom: 0.01,
            top: 0.5,
            max_p: 0.02,
            min_th: None,
            max_th: None,
            wq: None,
            mean_pkt_bytes: 1500,
            link_rate_bps: 100_000_000,
            ecn: true,
        }
    }

    /// Paper §5: min_th = max(5, target·C/2), max_th = 3·min_th, wq = 1 − e^(−1/C).
    #[test]
    fn test_automatic_parameters() {
        // 100 Mbit/s, 1500 B: C = 8333.3 pkt/s; target·C/2 = 20.83 packets.
        let (min_th, max_th, wq) = auto_params(&params());
        let c = 100e6 / 12000.0;
        assert!((min_th - 0.005 * c / 2.0).abs() < 1e-12, "{min_th}");
        assert!((max_th - 3.0 * min_th).abs() < 1e-12);
        assert!((wq - (1.0 - (-1.0 / c).exp())).abs() < 1e-15, "{wq}");
        // 10 Mbit/s: target·C/2 = 2.08 < 5, so min_th = 5 and max_th = 15.
        let (min_th, max_th, _) = auto_params(&AredParams { link_rate_bps: 10_000_000, ..params() });
        assert_eq!((min_th, max_th), (5.0, 15.0));
        // Given values win.
        let given = AredParams { min_th: Some(7.0), max_th: Some(30.0), wq: Some(0.002), ..params() };
        assert_eq!(auto_params(&given), (7.0, 30.0, 0.002));
    }

    #[test]
    fn test_series_matches_exp() {
        for x in [1e-6, 1e-3, 0.01, 0.3, 1.0] {
            let want = -f64::exp_m1(-x);
            assert!((one_minus_exp_neg(x) - want).abs() <= 1e-15 * want, "{x}");
        }
    }

    /// Fig. 3: above the target band max_p grows by min(alpha, max_p/4) per
    /// interval; below it shrinks by beta; it stays within [bottom, top].
    #[test]
    fn test_adaptation_steps() {
        let p = AredParams { min_th: Some(10.0), max_th: Some(30.0), ..params() };
        let mut a = Ared::new(&p);
        // part = 8: band is (18, 22).
        a.adapt(25.0);
        assert!((a.red.max_p() - 0.025).abs() < 1e-15, "0.02 + min(0.01, 0.005)");
        for _ in 0..100 {
            a.adapt(25.0);
        }
        assert!(a.red.max_p() >= 0.5 && a.red.max_p() < 0.5 + 0.01, "stops once at top: {}", a.red.max_p());
        let top = a.red.max_p();
        a.adapt(20.0);
        assert_eq!(a.red.max_p(), top, "inside the band nothing changes");
        a.adapt(12.0);
        assert!((a.red.max_p() - top * 0.9).abs() < 1e-15);
        for _ in 0..200 {
            a.adapt(0.0);
        }
        assert!(a.red.max_p() <= 0.01 && a.red.max_p() > 0.009, "stops once at bottom: {}", a.red.max_p());
    }

    /// The adaptation runs at k·interval, taken lazily: one arrival after 1.6 s
    /// of a standing queue applies three updates.
    #[test]
    fn test_updates_on_interval_clock() {
        let p = AredParams { min_th: Some(1.0), max_th: Some(3.0), wq: Some(1.0), ..params() };
        let mut q = AqmQueue::new(&QueueConfig::Ared(p)).unwrap();
        let mut rng = ScriptRng::new(&[0.99; 8]);
        let t = |ms: u64| Instant::from_nanos(ms * 1_000_000);
        for id in 0..4 {
            q.enqueue(t(0), TestPkt::new(id, 1000, Ecn::Ect0), &mut rng).unwrap();
        }
        assert_eq!(q.prob(t(499)), Some(0.02));
        // avg = 3 (wq = 1, queue of 3 before the 4th arrival) > max_th − part = 2.2.
        assert_eq!(q.prob(t(500)), Some(0.025));
        let want = [0.025_f64, 0.025 * 1.25, 0.025 * 1.25 * 1.25];
        assert!((q.prob(t(1600)).unwrap() - want[2]).abs() < 1e-15, "three updates by 1.5 s");
    }

    #[test]
    fn test_validation_names_field() {
        let e = |p: AredParams| p.validate().unwrap_err().to_string();
        assert_eq!(e(AredParams { interval_ns: 0, ..params() }), "interval_ns = 0: must be > 0");
        assert_eq!(e(AredParams { beta: 1.5, ..params() }), "beta = 1.5: must be in (0, 1]");
        assert_eq!(e(AredParams { bottom: 0.6, ..params() }), "bottom = 0.6: must be in (0, top = 0.5)");
        assert!(e(AredParams { link_rate_bps: 100, ..params() }).starts_with("link_rate_bps = 100: must carry"));
        assert_eq!(
            e(AredParams { min_th: Some(10.0), max_th: Some(5.0), ..params() }),
            "max_th = 5: must be finite and > min_th (10)"
        );
        assert_eq!(params().validate(), Ok(()));
    }

    #[test]
    fn test_given_max_th_above_limit_rejected() {
        let p = AredParams { limit_pkts: Some(100), min_th: Some(20.0), max_th: Some(101.0), ..params() };
        let e = p.validate().unwrap_err().to_string();
        assert_eq!(e, "max_th = 101: must be <= limit_pkts (100): the average queue never exceeds the limit");
        assert_eq!(AredParams { max_th: Some(100.0), ..p }.validate(), Ok(()));
    }
}

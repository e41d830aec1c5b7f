//! RFC 6298 retransmission-timeout estimator with a coarse TCP clock.
//!
//! | quantity | rule |
//! |---|---|
//! | first sample R | SRTT = R, RTTVAR = R/2 (2.2) |
//! | later sample R' | RTTVAR = 3/4·RTTVAR + 1/4·\|SRTT − R'\|, then SRTT = 7/8·SRTT + 1/8·R' (2.3) |
//! | RTO | max(min_rto, SRTT + max(G, K·RTTVAR)), K = 4, rounded up to whole ticks, ≤ max_rto (2.4, 2.5) |
//! | before any sample | initial_rto (2.1) |
//! | expiry | RTO doubles (5.5), capped at max_rto; a new valid sample clears the backoff |
//!
//! G is the clock granularity (`clock_granularity_ns`). RTT samples are measured in
//! whole ticks, floored, as a tick counter would (a 250 ms RTT on a 100 ms clock
//! reads 200 ms).

use crate::config::TcpConfig;
use ecnlab_wire::Duration;

/// RFC 6298 (2.3): K = 4.
const RTTE_K: u64 = 4;
/// Backoff exponent cap: 2^16 × any sane RTO already exceeds max_rto.
const RTTE_MAX_BACKOFF: u32 = 16;

#[derive(Clone, Debug)]
pub(crate) struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    /// RTO before backoff.
    base_rto: Duration,
    backoff: u32,
    tick: Duration,
    min_rto: Duration,
    max_rto: Duration,
}

impl RttEstimator {
    pub(crate) fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            // RFC 6298 (2.1): until a sample is made, RTO = initial RTO.
            base_rto: Duration(cfg.initial_rto_ns),
            backoff: 0,
            tick: Duration(cfg.clock_granularity_ns),
            min_rto: Duration(cfg.min_rto_ns),
            max_rto: Duration(cfg.max_rto_ns),
        }
    }

    /// Records one RTT measurement (already Karn-filtered by the caller).
    pub(crate) fn sample(&mut self, rtt: Duration) {
        let r = self.floor_to_tick(rtt);
        match self.srtt {
            // RFC 6298 (2.2): first measurement.
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            // RFC 6298 (2.3): RTTVAR uses the SRTT from before this sample.
            Some(srtt) => {
                let delta = srtt.0.abs_diff(r.0);
                self.rttvar = Duration((3 * self.rttvar.0 + delta) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let var = Duration(self.rttvar.0.saturating_mul(RTTE_K)).max(self.tick);
        let rto = (srtt + var).round_up_to(self.tick);
        // RFC 6298 (2.4) lower bound, (2.5) upper bound.
        self.base_rto = rto.max(self.min_rto).min(self.max_rto);
        // Karn's algorithm / RFC 6298 (5.7): a valid sample ends the backoff.
        self.backoff = 0;
    }

    /// RFC 6298 (5.5): back off the timer after an expiry.
    pub(crate) fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(RTTE_MAX_BACKOFF);
    }

    /// The current (backed-off) retransmission timeout.
    pub(crate) fn rto(&self) -> Duration {
        self.base_rto.saturating_mul(1u64 << self.backoff).min(self.max_rto)
    }

    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    pub(crate) fn tick(&self) -> Duration {
        self.tick
    }

    fn floor_to_tick(&self, d: Duration) -> Duration {
        match d.0.checked_div(self.tick.0) {
            Some(ticks) => Duration(ticks * self.tick.0),
            None => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(tick_ms: u64, min_ms: u64) -> RttEstimator {
        let cfg = TcpConfig {
            clock_granularity_ns: Duration::from_millis(tick_ms).0,
            min_rto_ns: Duration::from_millis(min_ms).0,
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    #[test]
    fn test_initial_rto_before_samples() {
        assert_eq!(est(1, 200).rto(), Duration::from_secs(1));
    }

    #[test]
    fn test_first_sample_rfc6298_2_2() {
        let mut e = est(1, 200);
        e.sample(Duration::from_millis(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn test_second_sample_rfc6298_2_3() {
        let mut e = est(1, 200);
        e.sample(Duration::from_millis(100));
        e.sample(Duration::from_millis(180));
        // RTTVAR = 3/4·50 + 1/4·80 = 57.5; SRTT = 7/8·100 + 1/8·180 = 110;
        // RTO = 110 + 230 = 340 ms.
        assert_eq!(e.srtt(), Some(Duration::from_millis(110)));
        assert_eq!(e.rto(), Duration::from_millis(340));
    }

    #[test]
    fn test_min_rto_and_granularity_floor() {
        let mut e = est(100, 1000);
        // 250 ms measured on a 100 ms clock reads 200 ms; SRTT + 4·RTTVAR = 600 ms < 1 s.
        e.sample(Duration::from_millis(250));
        assert_eq!(e.srtt(), Some(Duration::from_millis(200)));
        assert_eq!(e.rto(), Duration::from_secs(1));
    }

    #[test]
    fn test_zero_sample_uses_granularity_term() {
        let mut e = est(100, 0);
        // A sub-tick RTT reads 0: RTO = 0 + max(G, 0) = one tick.
        e.sample(Duration::from_millis(30));
        assert_eq!(e.rto(), Duration::from_millis(100));
    }

    #[test]
    fn test_rto_rounds_up_to_ticks() {
        let mut e = est(100, 0);
        e.sample(Duration::from_millis(310)); // reads 300: 300 + 4·150 = 900
        assert_eq!(e.rto(), Duration::from_millis(900));
        e.sample(Duration::from_millis(200)); // var = (3·150+100)/4 = 137.5, srtt = 287.5 → 837.5 → 900
        assert_eq!(e.rto(), Duration::from_millis(900));
    }

    #[test]
    fn test_backoff_doubles_caps_and_resets() {
        let mut e = est(1, 200);
        e.back_off();
        assert_eq!(e.rto(), Duration::from_secs(2));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        e.sample(Duration::from_millis(100));
        assert_eq!(e.rto(), Duration::from_millis(300));
    }
}

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
//! `rto_arith = "linux"`: Linux's SRTT and RTO instead (`rtt_linux.rs`: RTO = SRTT +
//! rttvar with rttvar ≥ min_rto), rounded up to ticks and backed off as here;
//! `rto_arith = "ns2"`: ns-2.35's integer-tick estimator (`Ns2Clock` below).
//!
//! G is the clock granularity (`clock_granularity_ns`). RTT samples are measured in
//! whole ticks, floored, as a tick counter would (a 250 ms RTT on a 100 ms clock
//! reads 200 ms).

use crate::config::{RtoArith, TcpConfig};
use crate::rtt_linux::LinuxRtt;
use crate::timer::tick_deadline;
use ecnlab_wire::{Duration, Instant};

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
    /// `rto_arith = ns2`: ns-2.35's integer-tick estimator instead (`Ns2Clock`).
    ns2: Option<Ns2Clock>,
    /// `rto_arith = linux`: Linux's estimator for SRTT and the RTO (`rtt_linux.rs`).
    linux: Option<LinuxRtt>,
}

/// ns-2.35's retransmission-timer arithmetic (ns2-tcp-semantics.md §5; tcp.cc
/// `rtt_init`, `rtt_update`, `rtt_timeout`, `rtt_backoff`), in ticks:
///
/// | step | rule |
/// |---|---|
/// | sample | ticks = ⌊(send + phase + R)/tick⌋ − ⌊(send + phase)/tick⌋, at least 1 (`boot_time_` is the phase) |
/// | first | t_srtt = 8·r, t_rttvar = 2·r (srtt = r, rttvar = r/2) |
/// | later | δ = r − t_srtt/8; t_srtt += δ (≥ 1); t_rttvar += \|δ\| − t_rttvar/4 (≥ 1) |
/// | RTO | rtxcur = ⌊(8·t_rttvar + t_srtt)/8⌋ ticks = ⌊srtt + 4·rttvar⌋; max(min_rto, rtxcur)·backoff, ≤ max_rto, ≥ 2 ticks |
/// | backoff | doubles while < 64 or the RTO is below max_rto; above 8 the next sample counts as the first |
/// | expiry | now + RTO, not aligned to ticks |
#[derive(Clone, Debug)]
struct Ns2Clock {
    t_srtt: i64,
    t_rttvar: i64,
    /// ⌊srtt + 4·rttvar⌋ ticks as a duration; the initial RTO before any sample.
    rtxcur: Duration,
    backoff: u64,
    phase: u64,
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
            ns2: (cfg.rto_arith == RtoArith::Ns2).then_some(Ns2Clock {
                t_srtt: 0,
                t_rttvar: 0,
                rtxcur: Duration(cfg.initial_rto_ns),
                backoff: 1,
                phase: cfg.clock_phase_ns,
            }),
            linux: (cfg.rto_arith == RtoArith::Linux).then(LinuxRtt::new),
        }
    }

    /// Records one RTT measurement of a segment sent at `sent` and acknowledged
    /// at `now` (already Karn-filtered by the caller).
    pub(crate) fn sample(&mut self, sent: Instant, now: Instant) {
        let tick = self.tick.0.max(1);
        if let Some(c) = self.ns2.as_mut() {
            let (s, r) = (sent.as_nanos() + c.phase, now.as_nanos() + c.phase);
            c.update((r / tick - s / tick).max(1) as i64, self.tick);
            return;
        }
        if let Some(l) = self.linux.as_mut() {
            l.sample(now - sent, self.min_rto);
            self.srtt = Some(l.srtt());
            let rto = l.rto().round_up_to(self.tick);
            self.base_rto = rto.min(self.max_rto);
            self.backoff = 0; // Karn: a valid sample ends the backoff, as below
            return;
        }
        let r = self.floor_to_tick(now - sent);
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

    /// The backoff multiplier's state, to keep it across a sample.
    pub(crate) fn backoff_state(&self) -> u64 {
        self.ns2.as_ref().map_or(u64::from(self.backoff), |c| c.backoff)
    }

    pub(crate) fn set_backoff_state(&mut self, b: u64) {
        match self.ns2.as_mut() {
            Some(c) => c.backoff = b,
            None => self.backoff = b as u32,
        }
    }

    /// RFC 6298 (5.5): back off the timer after an expiry.
    pub(crate) fn back_off(&mut self) {
        let rto = self.rto();
        if let Some(c) = self.ns2.as_mut() {
            if c.backoff < 64 || rto < self.max_rto {
                c.backoff <<= 1;
            }
            if c.backoff > 8 {
                c.t_rttvar += c.t_srtt >> 3;
                c.t_srtt = 0;
            }
            return;
        }
        self.backoff = (self.backoff + 1).min(RTTE_MAX_BACKOFF);
    }

    /// The current (backed-off) retransmission timeout.
    pub(crate) fn rto(&self) -> Duration {
        if let Some(c) = &self.ns2 {
            let rto = c.rtxcur.max(self.min_rto).saturating_mul(c.backoff).min(self.max_rto);
            return rto.max(Duration(2 * self.tick.0));
        }
        self.base_rto.saturating_mul(1u64 << self.backoff).min(self.max_rto)
    }

    /// When a timer started at `now` expires: on the next tick boundary
    /// (RFC 6298 with a coarse clock) or, `rto_arith = ns2`, exactly.
    pub(crate) fn deadline(&self, now: Instant) -> Instant {
        match self.ns2 {
            Some(_) => now + self.rto(),
            None => tick_deadline(now, self.rto(), self.tick),
        }
    }

    pub(crate) fn srtt(&self) -> Option<Duration> {
        if let Some(c) = &self.ns2 {
            return (c.t_srtt > 0).then(|| Duration((c.t_srtt as u64 * self.tick.0) >> 3));
        }
        self.srtt
    }

    fn floor_to_tick(&self, d: Duration) -> Duration {
        match d.0.checked_div(self.tick.0) {
            Some(ticks) => Duration(ticks * self.tick.0),
            None => d,
        }
    }
}

impl Ns2Clock {
    /// ns-2 `rtt_update` with a sample of `r` ticks; a valid sample resets the backoff.
    fn update(&mut self, r: i64, tick: Duration) {
        if self.t_srtt != 0 {
            let mut delta = r - (self.t_srtt >> 3);
            self.t_srtt = (self.t_srtt + delta).max(1);
            delta = delta.abs() - (self.t_rttvar >> 2);
            self.t_rttvar = (self.t_rttvar + delta).max(1);
        } else {
            self.t_srtt = r << 3;
            self.t_rttvar = r << 1;
        }
        let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        self.rtxcur = Duration(ticks as u64 * tick.0);
        self.backoff = 1;
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
        e.sample(Instant::ZERO, Instant(Duration::from_millis(100).0));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn test_second_sample_rfc6298_2_3() {
        let mut e = est(1, 200);
        e.sample(Instant::ZERO, Instant(Duration::from_millis(100).0));
        e.sample(Instant::ZERO, Instant(Duration::from_millis(180).0));
        // RTTVAR = 3/4·50 + 1/4·80 = 57.5; SRTT = 7/8·100 + 1/8·180 = 110;
        // RTO = 110 + 230 = 340 ms.
        assert_eq!(e.srtt(), Some(Duration::from_millis(110)));
        assert_eq!(e.rto(), Duration::from_millis(340));
    }

    #[test]
    fn test_min_rto_and_granularity_floor() {
        let mut e = est(100, 1000);
        // 250 ms measured on a 100 ms clock reads 200 ms; SRTT + 4·RTTVAR = 600 ms < 1 s.
        e.sample(Instant::ZERO, Instant(Duration::from_millis(250).0));
        assert_eq!(e.srtt(), Some(Duration::from_millis(200)));
        assert_eq!(e.rto(), Duration::from_secs(1));
    }

    #[test]
    fn test_zero_sample_uses_granularity_term() {
        let mut e = est(100, 0);
        // A sub-tick RTT reads 0: RTO = 0 + max(G, 0) = one tick.
        e.sample(Instant::ZERO, Instant(Duration::from_millis(30).0));
        assert_eq!(e.rto(), Duration::from_millis(100));
    }

    #[test]
    fn test_rto_rounds_up_to_ticks() {
        let mut e = est(100, 0);
        e.sample(Instant::ZERO, Instant(Duration::from_millis(310).0)); // reads 300: 300 + 4·150 = 900
        assert_eq!(e.rto(), Duration::from_millis(900));
        e.sample(Instant::ZERO, Instant(Duration::from_millis(200).0)); // var = (3·150+100)/4 = 137.5, srtt = 287.5 → 837.5 → 900
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
        e.sample(Instant::ZERO, Instant(Duration::from_millis(100).0));
        assert_eq!(e.rto(), Duration::from_millis(300));
    }
}

#[cfg(test)]
mod ns2_tests {
    use super::*;

    fn ns2(phase_ns: u64) -> RttEstimator {
        let cfg = TcpConfig {
            rto_arith: RtoArith::Ns2,
            clock_phase_ns: phase_ns,
            clock_granularity_ns: Duration::from_millis(10).0,
            min_rto_ns: Duration::from_millis(200).0,
            initial_rto_ns: Duration::from_secs(3).0,
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    fn at_us(us: u64) -> Instant {
        Instant(us * 1000)
    }

    /// ns2-tcp-semantics.md §5 and §10: "t_rtt_ = int((tao + tickoff)/tick)"
    /// with the send time shifted by boot_time_ (for a lone TCP 5.558807 ms):
    /// "a 41.7 ms RTT sent at t=0.16432 was measured as 5 ticks". First sample:
    /// t_srtt_ = rtt<<3, t_rttvar_ = rtt<<1, "t_rtxcur_ = ((t_rttvar_ << 3) +
    /// t_srtt_) >> 3" ticks = 15 ticks; "base = (t_rtxcur_ < minrto_) ? minrto_
    /// : t_rtxcur_" = 200 ms, "not rounded to ticks": the timer expires exactly
    /// 200 ms after it starts. A later 3-tick sample: δ = −2, t_srtt_ 38,
    /// t_rttvar_ += |δ| − t_rttvar_/4 = 10, RTO ⌊118/8⌋ = 14 ticks, still the
    /// minimum. Backoff: "if t_backoff_ > 8: t_rttvar_ += t_srtt_>>3; t_srtt_ = 0".
    #[test]
    fn test_ns2_tick_arithmetic() {
        let mut e = ns2(5_558_807);
        assert_eq!(e.rto(), Duration::from_secs(3), "rtxcur_init_ before a sample");
        e.sample(at_us(164_320), at_us(164_320 + 41_700));
        let c = e.ns2.clone().unwrap();
        assert_eq!((c.t_srtt, c.t_rttvar, c.rtxcur), (40, 10, Duration::from_millis(150)));
        assert_eq!(e.rto(), Duration::from_millis(200));
        assert_eq!(e.deadline(at_us(1_234_567)), at_us(1_434_567), "no tick alignment");
        // Without the phase the same RTT spans 4 tick boundaries.
        let mut z = ns2(0);
        z.sample(at_us(164_320), at_us(164_320 + 41_700));
        assert_eq!(z.ns2.unwrap().t_srtt, 32);
        e.sample(at_us(500_000), at_us(530_000));
        let c = e.ns2.clone().unwrap();
        assert_eq!((c.t_srtt, c.t_rttvar, c.rtxcur), (38, 10, Duration::from_millis(140)));
        for _ in 0..4 {
            e.back_off();
        }
        let c = e.ns2.clone().unwrap();
        assert_eq!((c.backoff, c.t_srtt, c.t_rttvar), (16, 0, 14));
        assert_eq!(e.rto(), Duration::from_millis(3200));
    }
}

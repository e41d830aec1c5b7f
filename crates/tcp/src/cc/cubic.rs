//! CUBIC congestion control (RFC 9438).
//!
//! Windows in segments (f64), time in seconds, from the byte counts of the seam.
//!
//! | symbol | meaning | value | source |
//! |---|---|---|---|
//! | C | window growth constant | 0.4 segments/s³ | RFC 9438 §5.1 (Linux `bic_scale` 41 → 0.4) |
//! | β_cubic | multiplicative decrease | 0.7 | RFC 9438 §4.6 (Linux `beta` 717/1024) |
//! | α_cubic | Reno-friendly additive increase | 3(1 − β)/(1 + β) ≈ 0.529, 1 once W_est ≥ cwnd_prior | RFC 9438 §4.3 |
//! | fast convergence | W_max = cwnd·(1 + β)/2 when cwnd < the previous W_max | on | RFC 9438 §4.7 (Linux `fast_convergence` 1) |
//! | β_ecn (ABE, `abe`) | ECN-Echo reductions multiply by 0.85 instead of β | off | RFC 8511 §3.1 ("CUBIC connections benefit from beta_{ecn} of 0.85") |
//!
//! Congestion avoidance (cwnd ≥ ssthresh), per ACK of new data (RFC 9438 §4.2–4.5):
//! - at the first ACK of an epoch: t_epoch = now, cwnd_epoch = cwnd, W_est = cwnd_epoch,
//!   K = ∛((W_max − cwnd_epoch) / C) (eq. 2), or K = 0 and W_max = cwnd when cwnd ≥ W_max;
//! - W_cubic(t) = C·(t − K)³ + W_max (eq. 1), t = now − t_epoch;
//! - target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd] (§4.2), RTT the smoothed RTT
//!   (RFC 6298's EWMA of the samples; Linux uses the minimum RTT here);
//! - W_est += α_cubic · segments_acked / cwnd (eq. 4);
//! - Reno-friendly region (W_cubic(t) < W_est): cwnd = W_est (§4.3);
//!   otherwise cwnd += (target − cwnd) / cwnd per segment acknowledged (§4.4, §4.5).
//!
//! Slow start (cwnd < ssthresh) is Reno's (RFC 5681, with RFC 3465 byte counting when
//! `abc` ≥ 1), left early by HyStart as Linux does it or by HyStart++ (RFC 9406)
//! with `hystart` (`hystart.rs`): an exit sets ssthresh = cwnd (the ACK that found
//! it already grows in congestion avoidance), Conservative Slow Start grows by a
//! quarter.
//!
//! A congestion event (loss, ECN, Source Quench; RFC 9438 §4.6, §4.7): the epoch ends;
//! W_max = cwnd, or cwnd·(1 + β)/2 with fast convergence when cwnd < the previous W_max;
//! cwnd_prior = cwnd; ssthresh = max(FlightSize·β, 2·SMSS) (Linux: cwnd·β). A timeout
//! (§4.8): the same ssthresh, and CUBIC's state restarts (W_max = 0), as Linux's
//! `bictcp_reset` on entering loss.
//!
//! ∛ is Newton's method in basic IEEE arithmetic, so results do not depend on the
//! platform's libm (determinism across machines).
//!
//! `cubic_arith = "linux"` (the `linux` personality) replaces this real-valued arithmetic
//! by Linux's integer `tcp_cubic.c` (`cubic_linux.rs`); HyStart is the same either way.

use super::cubic_linux::LinuxCubic;
use super::hystart::{HyStart, Verdict, CSS_GROWTH_DIVISOR};
use super::{Ack, Congestion, CongestionControl, Feedback, ProbeReport};
use crate::config::{check, CcKind, ConfigError, CubicArith, HyStartMode, TcpConfig};
use crate::window::{Window, CWND_MAX};
use ecnlab_wire::key;
use ecnlab_wire::keys::{Allowed::*, Key};
use ecnlab_wire::Instant;
use serde::{Deserialize, Serialize};

/// CUBIC's knobs (`TcpConfig::cubic`; in JSON the flat keys `cubic_arith` and `hystart`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CubicKnobs {
    /// CUBIC's arithmetic: RFC 9438 in real numbers (this file) or Linux's
    /// integer `tcp_cubic.c` (`cubic_linux.rs`); a personality sets it.
    #[serde(rename = "cubic_arith")]
    pub arith: CubicArith,
    /// How CUBIC leaves slow start before a loss (`hystart.rs`); off by default.
    pub hystart: HyStartMode,
}

/// CUBIC's scenario keys (`[tcp]`, flat among `TcpConfig`'s).
pub const KEYS: &[Key] = &[
    key!("hystart", Choice, Variants(ecnlab_wire::keys::variants::<crate::config::HyStartMode>), "cc cubic: how slow start ends early: never (RFC 5681), Linux's HyStart, HyStart++ (RFC 9406); linux with personality linux"),
    key!("cubic_arith", Choice, Variants(ecnlab_wire::keys::variants::<CubicArith>), "cc cubic: RFC 9438 in real numbers, or tcp_cubic.c's integer arithmetic (cubic_linux.rs)"),
];

impl CubicKnobs {
    /// HyStart is CUBIC's: any other congestion control leaves it off.
    pub(crate) fn validate(&self, cc: CcKind) -> Result<(), ConfigError> {
        if self.hystart == HyStartMode::Off || cc == CcKind::Cubic {
            return Ok(());
        }
        let h = match self.hystart {
            HyStartMode::Linux => "linux",
            _ => "hystart++",
        };
        check(false, "hystart", h, "off unless cc = cubic (HyStart is CUBIC's here)")
    }
}

/// The time-series probes (`CongestionControl::probes`): W_max in segments and
/// the epoch's start in seconds.
pub(crate) const W_MAX: &str = "cubic_w_max_segments";
pub(crate) const EPOCH: &str = "cubic_epoch_s";

/// RFC 9438 §5.1.
pub(crate) const C: f64 = 0.4;
/// RFC 9438 §4.6.
pub(crate) const BETA: f64 = 0.7;
/// RFC 8511 §3.1, for CUBIC.
pub(crate) const BETA_ECN: f64 = 0.85;

#[derive(Clone, Debug)]
pub(crate) struct Cubic {
    /// RFC 3465 L for slow start; 0: one SMSS per ACK.
    abc: u32,
    /// Window before the last reduction, segments (0: none yet).
    w_max: f64,
    /// cwnd at the last reduction, segments.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<Epoch>,
    /// Smoothed RTT, seconds (RFC 6298 α = 1/8).
    srtt: Option<f64>,
    /// ABE (RFC 8511): β_ecn for ECN-Echo reductions.
    abe: bool,
    /// HyStart or HyStart++, and its verdict on the ACK being processed.
    hystart: Option<Box<HyStart>>,
    verdict: Verdict,
    /// cwnd in segments and slow start, as the last ACK left them.
    cwnd_segments: u64,
    in_slow_start: bool,
    /// Linux's integer arithmetic instead of the fields above (`cubic_arith = "linux"`).
    linux: Option<Box<LinuxCubic>>,
}

#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: Instant,
    k: f64,
    w_est: f64,
}

impl Cubic {
    pub(crate) fn new(cfg: &TcpConfig, knobs: &CubicKnobs) -> Self {
        let hystart = (knobs.hystart != HyStartMode::Off).then(|| Box::new(HyStart::new(knobs.hystart, cfg.pacing)));
        Cubic {
            abc: cfg.abc,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            srtt: None,
            abe: cfg.abe,
            hystart,
            verdict: Verdict::SlowStart,
            cwnd_segments: 0,
            in_slow_start: true,
            linux: (knobs.arith == CubicArith::Linux).then(Box::default),
        }
    }

    /// W_cubic(t), segments (RFC 9438 eq. 1).
    pub(crate) fn w_cubic(&self, t: f64, k: f64) -> f64 {
        let d = t - k;
        C * d * d * d + self.w_max
    }

    fn start_epoch(&mut self, now: Instant, cwnd: f64) -> Epoch {
        let k = if self.w_max <= cwnd {
            self.w_max = cwnd;
            0.0
        } else {
            cbrt((self.w_max - cwnd) / C)
        };
        Epoch { start: now, k, w_est: cwnd }
    }

    fn slow_start(&self, w: &mut Window, ack: &Ack) {
        let mut inc = if self.abc == 0 { w.mss as u64 } else { ack.acked.min(self.abc as u64 * w.mss as u64) };
        if self.verdict == Verdict::Conservative {
            inc /= u64::from(CSS_GROWTH_DIVISOR); // RFC 9406 §4.2
        }
        w.cwnd = (w.cwnd as u64 + inc).min(CWND_MAX as u64) as u32;
    }

    fn congestion_avoidance(&mut self, w: &mut Window, ack: &Ack) {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(ack.now, cwnd),
        };
        let t = ack.now.saturating_since(e.start).as_secs_f64();
        let rtt = self.srtt.unwrap_or(0.0);
        let target = self.w_cubic(t + rtt, e.k).clamp(cwnd, 1.5 * cwnd);
        let segments = ack.acked as f64 / mss;
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - BETA) / (1.0 + BETA) };
        e.w_est += alpha * segments / cwnd;
        let next = if self.w_cubic(t, e.k) < e.w_est {
            e.w_est.max(cwnd) // Reno-friendly region
        } else {
            cwnd + (target - cwnd) / cwnd * segments
        };
        self.epoch = Some(e);
        w.cwnd = (next * mss).min(CWND_MAX as f64) as u32;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if let Some(r) = ack.rtt {
            let r = r.as_secs_f64();
            self.srtt = Some(self.srtt.map_or(r, |s| s + (r - s) / 8.0));
        }
        if self.verdict == Verdict::Exit {
            self.verdict = Verdict::SlowStart;
            if w.cwnd < w.ssthresh {
                w.ssthresh = w.cwnd; // HyStart found the exit: ssthresh = cwnd
            }
        }
        if let Some(l) = self.linux.as_mut() {
            let mut acked = ack.acked.div_ceil(u64::from(w.mss.max(1))).min(u64::from(u32::MAX)) as u32;
            if w.cwnd < w.ssthresh {
                acked = LinuxCubic::slow_start(w, acked);
            }
            if acked > 0 {
                l.congestion_avoidance(w, ack.now, acked);
            }
        } else if w.cwnd < w.ssthresh {
            self.slow_start(w, ack);
        } else {
            self.congestion_avoidance(w, ack);
        }
        self.cwnd_segments = u64::from(w.cwnd / w.mss.max(1));
        self.in_slow_start = w.cwnd < w.ssthresh;
    }

    /// W_max in segments (0 before the first reduction and after a timeout) and
    /// the start of the epoch in seconds (null between a reduction and the first
    /// growth after it; RFC 9438 §4.2's t_epoch).
    fn probes(&self, report: ProbeReport) {
        let (w_max, epoch) = match self.linux.as_deref() {
            Some(l) => l.state(),
            None => (self.w_max, self.epoch.map(|e| e.start)),
        };
        report(W_MAX, Some(w_max));
        report(EPOCH, epoch.map(Instant::as_secs_f64));
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        if let Some(l) = self.linux.as_mut() {
            l.on_feedback(fb);
        }
        if let Some(h) = self.hystart.as_mut().filter(|_| self.in_slow_start) {
            self.verdict = h.on_feedback(fb, self.cwnd_segments);
        }
    }

    fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32 {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        self.epoch = None;
        self.verdict = Verdict::SlowStart;
        if let Some(h) = self.hystart.as_mut() {
            if kind == Congestion::Timeout {
                h.reset(); // Linux bictcp_reset: HyStart again in the next slow start
            } else {
                h.leave();
            }
        }
        if let Some(l) = self.linux.as_mut() {
            return l.ssthresh(w, kind, flight, self.abe);
        }
        if kind == Congestion::Timeout {
            self.w_max = 0.0; // Linux bictcp_reset on TCP_CA_Loss
        } else {
            self.w_max = if cwnd < self.w_max { cwnd * (1.0 + BETA) / 2.0 } else { cwnd };
        }
        self.cwnd_prior = cwnd;
        let beta = if self.abe && kind == Congestion::Ecn { BETA_ECN } else { BETA };
        let reduced = (flight as f64 * beta) as u64;
        reduced.clamp(2 * w.mss as u64, CWND_MAX as u64) as u32
    }
}

/// ∛x for x ≥ 0 by Newton's method (basic arithmetic only: the same bits on every machine).
pub(crate) fn cbrt(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let mut y = if x > 1.0 { x / 3.0 } else { 1.0 };
    for _ in 0..200 {
        let next = (2.0 * y + x / (y * y)) / 3.0;
        if (next - y).abs() <= 1e-12 * next {
            return next;
        }
        y = next;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::Duration;

    const MSS: u32 = 1000;

    fn window(cwnd_segments: u32, ssthresh_segments: u32) -> Window {
        let mut w = Window::new(3);
        w.init(MSS, cwnd_segments);
        w.ssthresh = ssthresh_segments * MSS;
        w
    }

    fn cubic() -> Cubic {
        let cfg = TcpConfig { abc: 2, ..TcpConfig::default() };
        Cubic::new(&cfg, &cfg.cubic)
    }

    fn ack_at(ms: u64, acked: u64) -> Ack {
        Ack { now: Instant::ZERO + Duration::from_millis(ms), acked, rtt: None }
    }

    #[test]
    fn test_cbrt_is_exact_enough() {
        for x in [1e-9, 0.5, 1.0, 8.0, 27.0, 1234.5, 1e9] {
            let y = cbrt(x);
            assert!((y * y * y - x).abs() <= 1e-9 * x.max(1.0), "{x}: {y}");
        }
        assert_eq!(cbrt(0.0), 0.0);
    }

    /// RFC 9438 §4.6: ssthresh = FlightSize·β; W_max = cwnd; §4.7 fast convergence.
    #[test]
    fn test_reduction_and_fast_convergence() {
        let mut cc = cubic();
        let w = window(100, 50);
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 100 * MSS as u64), 70 * MSS);
        assert_eq!(cc.w_max, 100.0);
        let w = window(80, 50); // a second loss below the previous W_max
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 80 * MSS as u64), 56 * MSS);
        assert!((cc.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9, "fast convergence: {}", cc.w_max);
        assert_eq!(cc.ssthresh(&window(2, 2), Congestion::Loss, 2 * MSS as u64), 2 * MSS, "floor of 2 segments");
    }

    /// RFC 9438 eq. 2: K = ∛((W_max − cwnd_epoch)/C), and §4.2: each RTT cwnd reaches the
    /// curve's value one RTT ahead, so cwnd(t) follows W_cubic(t) = C·(t − K)³ + W_max from
    /// cwnd_epoch = β·W_max through W_max at t = K into the convex region.
    #[test]
    fn test_window_follows_the_cubic_curve_after_a_loss() {
        let mut cc = cubic();
        let mut w = window(100, 1);
        w.ssthresh = cc.ssthresh(&w, Congestion::Loss, 100 * MSS as u64);
        w.cwnd = w.ssthresh; // recovery sets cwnd = ssthresh = 70 segments
        let k = cbrt((100.0 - 70.0) / C);
        assert!((k - 4.217).abs() < 1e-3, "K = {k}");
        // RTT 100 ms: every RTT one ACK per segment in flight, spread over the RTT.
        let rtt_ms = 100u64;
        let mut start = 0;
        let mut worst: f64 = 0.0;
        for round in 0..60u64 {
            let n = (w.cwnd / MSS) as u64;
            for j in 0..n {
                let now = round * rtt_ms + j * rtt_ms / n;
                let rtt = Some(Duration::from_millis(rtt_ms));
                cc.on_ack(&mut w, &Ack { now: Instant::ZERO + Duration::from_millis(now), acked: MSS as u64, rtt });
                if round == 0 && j == 0 {
                    start = now;
                }
            }
            let t = ((round + 1) * rtt_ms - start) as f64 / 1000.0;
            let cwnd = w.cwnd as f64 / MSS as f64;
            let curve = cc.w_cubic(t, k);
            worst = worst.max((cwnd - curve).abs());
            if (t - k).abs() <= 0.05 {
                assert!((cwnd - 100.0).abs() < 1.0, "cwnd at K: {cwnd}");
            }
        }
        assert!(worst < 1.0, "cwnd within one segment of W_cubic at every RTT: {worst}");
        assert!(w.cwnd > 101 * MSS, "convex region beyond W_max after K");
    }

    /// RFC 9438 §4.3: when the cubic curve is below the Reno estimate, cwnd follows W_est,
    /// which grows by α_cubic = 3(1−β)/(1+β) segments per window acknowledged.
    #[test]
    fn test_reno_friendly_region() {
        let mut cc = cubic();
        let mut w = window(10, 1);
        w.ssthresh = cc.ssthresh(&w, Congestion::Loss, 10 * MSS as u64);
        w.cwnd = w.ssthresh; // 7 segments; K = ∛(3/0.4) ≈ 1.96 s

        // 100 RTTs of 10 ms, each acknowledging one window: W_cubic stays near W_max = 10
        // for 2 s while Reno's estimate climbs by ~0.53 segments per RTT.
        let mut t = 0;
        for _ in 0..100 {
            t += 10;
            let n = (w.cwnd / MSS) as u64;
            for _ in 0..n {
                cc.on_ack(&mut w, &ack_at(t, MSS as u64));
            }
        }
        let e = cc.epoch.unwrap();
        // ≈5.7 RTTs at α ≈ 0.529 to reach cwnd_prior = 10, then α = 1: about 10 + 94.
        assert!((95.0..=110.0).contains(&e.w_est), "W_est {}", e.w_est);
        assert!((w.cwnd as f64 / MSS as f64 - e.w_est).abs() < 0.01, "cwnd follows W_est");
        assert!(cc.w_cubic(1.0, e.k) < e.w_est, "the Reno estimate leads while the curve is flat");
    }

    #[test]
    fn test_slow_start_is_renos_and_a_timeout_restarts_cubic() {
        let mut cc = cubic();
        let mut w = window(2, 100);
        cc.on_ack(&mut w, &ack_at(1, 2 * MSS as u64));
        assert_eq!(w.cwnd, 4 * MSS);
        cc.ssthresh(&w, Congestion::Loss, 4 * MSS as u64);
        assert_eq!(cc.w_max, 4.0);
        assert_eq!(cc.ssthresh(&w, Congestion::Timeout, 4 * MSS as u64), 2800);
        assert_eq!(cc.w_max, 0.0);
        assert!(cc.epoch.is_none());
    }

    /// RFC 8511 §3.1: with ABE an ECN-Echo leaves FlightSize·0.85, a loss FlightSize·0.7.
    #[test]
    fn test_abe_uses_beta_ecn_for_ecn_only() {
        let mut cc = Cubic { abe: true, ..cubic() };
        let w = window(100, 50);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100 * MSS as u64), 85 * MSS);
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 100 * MSS as u64), 70 * MSS);
    }
}

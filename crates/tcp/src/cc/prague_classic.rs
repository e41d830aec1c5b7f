//! TCP Prague's classic-ECN-AQM detection and fallback (`prague_classic_fallback`,
//! off by default): after the L4S team's `prague_classic_ecn_detection`
//! (`tcp_prague.c` before version 0.7, module parameter `prague_ecn_fallback`,
//! default 0) and RFC 9331 §4.3 "fall back to Reno-friendly congestion
//! control on detection of a classic ECN AQM" (a SHOULD, whose method is left open).
//!
//! A classic AQM (RED, PIE, CoDel with one queue) lets a queue of several
//! milliseconds build and vary; an L4S AQM keeps it below about one. Once per
//! round after the first CE mark, a score s (in units of α, 0 … 17) moves by
//!
//! ```text
//! s += ½·log2(mdev / V0) + ½·max(log2(depth / D0), 0)      V0 = 750 µs, D0 = 2 ms
//! ```
//!
//! where `depth` = srtt − min RTT and `mdev` the mean deviation of the RTT,
//! both from an EWMA of the RTT samples with the slow gain 2^-k,
//! k = min(⌊log2 W⌋ + ⌊log2 W⌋/2 + 1, 18), W the ssthresh in segments at the last
//! reduction (the reference's `g_srtt_shift`, so that it sees past a round's
//! variation). Below s = 8 the flow is pure L4S; above 9 it is classic; between,
//! a CE reduction uses max(α, 0.625·(min(s, 9) − 8)) for α, so that a flow that
//! is sure of a classic AQM halves nearly as Reno does (α ≥ 0.625: W·0.69).
//!
//! **The levels, unfixed and fixed** (`prague_fallback_fix`, off). The 0.6 module
//! keeps the score in units of its α, 2^-24 (`PRAGUE_ALPHA_BITS` 24; the L4S team's
//! tree at 15b3b6c8, whose constants the study below traces): the measured terms
//! are log2 shifted by 24 − V, but the levels `V0_LG` (10014683 >> V) and `D0_LG`
//! (11498458 >> V) are log2(750) and log2(2000) written for 20 fractional bits, 1/16
//! of what the score's units need. Unfixed, as that module runs, the levels
//! subtracted are therefore ½·log2(V0)/16 and ½·log2(D0)/16: any mean deviation
//! above about 1.5 µs, or queue above about 1.6 µs, pushes the score up, and the flow
//! turns classic in an L4S queue too. "Reproducing and Solving a Fallback Issue in
//! TCP Prague" (2025; its patch `linux.diff` in `Greenscreen23/prague-fallback-experiments`)
//! multiplies both constants by 16; with the fix (`prague_fallback_fix`) the levels
//! are ½·log2(V0) and ½·log2(D0), as the formula above says.
//!
//! Differences from the reference: log2 is the integer log2 plus the linear
//! fraction of the mantissa (the reference carries ilog2's remainders from one
//! round to the next), and samples are taken per ACK with an RTT sample.

use ecnlab_wire::Duration;

/// Fractional bits of the score (the units of α).
const BITS: u32 = 20;
const ONE: i64 = 1 << BITS;
/// log2 of the reference queue variation and depth, in µs.
const V0_US: u64 = 750;
const D0_US: u64 = 2000;
/// Score limits: pure L4S below L_STICKY, classic from CLASSIC, capped at C_STICKY.
const L_STICKY: i64 = 8 * ONE;
const CLASSIC: i64 = L_STICKY + ONE;
const C_STICKY: i64 = CLASSIC + L_STICKY;
const MAX_SHIFT: u32 = 18;
/// How many times too small the 0.6 module's levels are for its score's units:
/// 2^(24 − 20), its α's fractional bits against those its levels were written for.
const UNFIXED_DIVISOR: i64 = 16;

#[derive(Clone, Debug)]
pub(crate) struct ClassicDetector {
    /// srtt and mdev, ns, with the gain 2^-shift.
    srtt: Option<u64>,
    mdev: u64,
    shift: u32,
    min_rtt: Option<u64>,
    score: i64,
    /// log2(V0) and log2(D0), units 2^-BITS (1/16 of them unfixed).
    v0_lg: i64,
    d0_lg: i64,
}

impl ClassicDetector {
    /// `fix`: the study's ×16 levels; without it, the 0.6 module's (module doc).
    pub(crate) fn new(fix: bool) -> Self {
        let divisor = if fix { 1 } else { UNFIXED_DIVISOR };
        let (v0_lg, d0_lg) = (log2_fixed(V0_US) / divisor, log2_fixed(D0_US) / divisor);
        // Before the first reduction: W = IW 10 → k = 3 + 1 + 1.
        ClassicDetector { srtt: None, mdev: 0, shift: 5, min_rtt: None, score: 0, v0_lg, d0_lg }
    }

    pub(crate) fn on_rtt_sample(&mut self, rtt: Duration) {
        let m = rtt.0;
        self.min_rtt = Some(self.min_rtt.map_or(m, |x| x.min(m)));
        let Some(s) = self.srtt else {
            self.srtt = Some(m);
            self.mdev = 0;
            return;
        };
        let err = m.abs_diff(s);
        let k = self.shift;
        self.srtt = Some(if m >= s { s + (err >> k) } else { s - (err >> k) });
        self.mdev = if err >= self.mdev {
            self.mdev + ((err - self.mdev) >> (k + 1))
        } else {
            self.mdev - ((self.mdev - err) >> (k + 1))
        };
    }

    /// The gain follows the window (the reference's `prague_update_rtt_scaling`).
    pub(crate) fn set_window(&mut self, ssthresh_segments: u32) {
        let lg = ssthresh_segments.max(1).ilog2();
        self.shift = (lg + lg / 2 + 1).min(MAX_SHIFT);
    }

    /// Once per round after the first CE mark.
    pub(crate) fn on_round(&mut self) {
        let (Some(srtt), Some(min)) = (self.srtt, self.min_rtt) else { return };
        let mut s = self.score + (log2_fixed(self.mdev / 1000) - self.v0_lg) / 2;
        if srtt > min {
            s += ((log2_fixed((srtt - min) / 1000) - self.d0_lg) / 2).max(0);
        }
        self.score = s.clamp(0, C_STICKY);
    }

    /// The α (units 2^-20) a CE reduction uses given the flow's own `alpha`.
    pub(crate) fn alpha_floor(&self, alpha: u64) -> u64 {
        if self.score <= L_STICKY {
            return alpha;
        }
        let c = (self.score.min(CLASSIC) - L_STICKY) as u64;
        alpha.max((c >> 1) + (c >> 3))
    }

    /// The score in [0, 17] (tests and traces).
    #[cfg(test)]
    pub(crate) fn score(&self) -> f64 {
        self.score as f64 / ONE as f64
    }
}

/// log2(x) in units of 2^-20: the integer part plus the mantissa's linear fraction; log2(0) = 0.
fn log2_fixed(x: u64) -> i64 {
    if x == 0 {
        return 0;
    }
    let k = x.ilog2();
    let frac = ((u128::from(x - (1u64 << k))) << BITS) >> k;
    i64::from(k) * ONE + frac as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_is_exact_at_powers_of_two_and_monotone_between() {
        assert_eq!(log2_fixed(1), 0);
        assert_eq!(log2_fixed(1024), 10 * ONE);
        let mut last = 0;
        for x in 1..5000 {
            let v = log2_fixed(x);
            assert!(v >= last);
            assert!((v as f64 / ONE as f64 - (x as f64).log2()).abs() < 0.09);
            last = v;
        }
    }

    /// Samples of one round: a base RTT of 20 ms plus a queue of `queue_us` µs
    /// and a wobble of 0 … 19 × `wobble_us` µs.
    fn rounds(d: &mut ClassicDetector, queue_us: u64, wobble_us: u64) {
        for round in 0..200u64 {
            for i in 0..20u64 {
                let wobble = (round * 7 + i * 13) % 20;
                d.on_rtt_sample(Duration((20_000 + queue_us + wobble * wobble_us) * 1000));
            }
            d.on_round();
        }
    }

    /// With the levels the formula means (the fix), a standing, varying queue of tens
    /// of ms (classic AQM) drives the score up to classic; a sub-ms jitter around the
    /// base RTT (L4S AQM) leaves it at 0.
    #[test]
    fn fixed_a_deep_varying_queue_scores_classic_and_a_shallow_one_does_not() {
        let (mut classic, mut l4s) = (ClassicDetector::new(true), ClassicDetector::new(true));
        rounds(&mut classic, 10_000, 1000);
        rounds(&mut l4s, 0, 25);
        assert_eq!(l4s.score(), 0.0);
        assert!(classic.score() > 9.0, "score {}", classic.score());
        assert_eq!(l4s.alpha_floor(1000), 1000);
        let floor = classic.alpha_floor(0) as f64 / ONE as f64;
        assert!((floor - 0.625).abs() < 1e-6, "{floor}");
    }

    /// The 0.6 module's levels are 1/16 of the fix's ("Reproducing and Solving a
    /// Fallback Issue in TCP Prague": `V0_LG`, `D0_LG` × 16), so unfixed the same
    /// sub-ms jitter of an L4S queue scores classic and the flow halves nearly as Reno.
    #[test]
    fn unfixed_levels_are_a_sixteenth_and_an_l4s_queue_scores_classic() {
        let (plain, fixed) = (ClassicDetector::new(false), ClassicDetector::new(true));
        assert_eq!((fixed.v0_lg, fixed.d0_lg), (log2_fixed(750), log2_fixed(2000)));
        assert_eq!((plain.v0_lg, plain.d0_lg), (log2_fixed(750) / 16, log2_fixed(2000) / 16));
        let mut l4s = ClassicDetector::new(false);
        rounds(&mut l4s, 0, 25);
        assert!(l4s.score() > 9.0, "score {}", l4s.score());
        let floor = l4s.alpha_floor(0) as f64 / ONE as f64;
        assert!((floor - 0.625).abs() < 1e-6, "{floor}");
    }
}

//! DualPI2: the DualQ Coupled AQM with a PI2 base controller. Two FIFOs, L
//! (sub-queue 0) and C (sub-queue 1), one base probability p' coupling them;
//! decisions are taken at dequeue (the coupled one at enqueue with `drop_early`).
//!
//! Sources: RFC 9332 (§2.4, §4, Appendix A pseudo-code: `dualpi2_update`,
//! `dualpi2_dequeue`, the L4S ramp `laqm`); Linux `net/sched/sch_dualpi2.c`
//! (merged for 6.17: `calculate_probability`, `must_drop`,
//! `dualpi2_classic_marking`, `dualpi2_scalable_marking`, `dequeue_packet`,
//! `do_step_aqm`, `dualpi2_enqueue_skb`, `dualpi2_reset_default`). The
//! comparison with Linux rule by rule, with the test that pins each rule, is
//! the "DualPI2 against Linux" table of docs/queues.md.
//!
//! ## Classification (`dualpi2_skb_classify`)
//!
//! L iff the ECN field shares a bit with the mask: `l4s_ect` (0b01, Linux
//! default, RFC 9331 §5.1): ECT(1) or CE; `cla_ect` (0b10): ECT(0) or CE;
//! `any_ect` (0b11): ECT(0), ECT(1) or CE. Else C. (Linux's tc filters and
//! `skb->priority` classes, LLLL included, are not modelled.)
//!
//! ## Enqueue (`dualpi2_enqueue_skb`)
//!
//! An arrival is tail-dropped (overflow) when both queues hold `limit_pkts`
//! packets, or when `memory_limit_bytes` is set and the queued bytes plus
//! its own would exceed it (Linux counts `skb->truesize` against a default of
//! `limit · 2 · psched_mtu`; ecnlab counts wire lengths and has no byte limit
//! unless one is given). With `drop_early` the coupled decision of step 2 below
//! is taken here instead, on the arrival, with the backlog without it; the
//! packet is then stamped with its enqueue time.
//!
//! ## Base probability, every `Tupdate` (at `t_k`, see "Timing")
//!
//! ```text
//! qdelay = max(sojourn of the L head, sojourn of the C head) at t_k   (Linux; RFC A.1: C head only)
//! p'    += α·(qdelay − target) + β·(qdelay − qdelay_prev)           (s, Hz)
//! p'     = clamp(p', 0, 1);  if not drop_on_overload: p' = min(p', 1/k)
//! p_C    = p'²          p_CL = min(k·p', 1)
//! ```
//!
//! Linux's fixed point: p' is a `u32` (1 = `u32::MAX`); α and β are given to
//! tc in 1/256 Hz (`round(α·256)`, saturated to 2^31 − 1) and scaled to
//! `(a256 · u32::MAX >> 2) / 1e9` per 64 ns; `Δ = (qdelay − target)·α +
//! (qdelay − prev)·β` in ns as `i64`, added as Δ/64 with the u32 result
//! truncated, then clamped by the overflow checks (`calculate_probability`).
//!
//! ## Dequeue (`dualpi2_qdisc_dequeue`)
//!
//! 1. Scheduler, WRR credit (signed; init `mtu·(wc − wl)`, wc =
//!    `classic_protection_pct`, wl = 100 − wc; reset when both queues are
//!    empty): L if L is non-empty and (C empty or credit ≤ 0), with credit
//!    change `+wc·len` if C is non-empty; else C with `−wl·len` if L is
//!    non-empty. The change is applied only when the packet is sent.
//! 2. `must_drop` (at enqueue instead with `drop_early`), skipped while the
//!    backlog without the chosen head (the arrival) is below 2·`mtu_bytes`.
//!    overload = k·p' > 1 (RFC: table).
//!    - C: signal with p'² — Linux: two rolls, each `next_u32() <= p'`;
//!      RFC: one uniform `< p'²`. A Not-ECT packet, or any in overload, is
//!      dropped; an ECT packet is CE-marked.
//!    - L, overload: with `drop_on_overload`, drop with p'² (as C), else mark;
//!      without it, mark.
//!    - L, no overload: signal with p_L = min(k·p', 1) — Linux one roll
//!      `next_u32() <= ⌊k·p'⌋`; RFC: p_L = max(ramp, p_CL), one uniform.
//!
//!    A dropped head is gone; the scheduler chooses again (credit unchanged).
//! 3. The L native AQM on the surviving L head, only if its `apply_step`
//!    flag is set (the L queue held ≥ `min_qlen_step` packets at its enqueue):
//!    - Linux step: mark (Not-ECT: drop) when the sojourn > `step_thresh_ns`
//!      (default 1 ms) or the L queue without it > `step_thresh_pkts`;
//!    - RFC ramp: p'_L = clamp((sojourn − ramp_min)/ramp_range, 0, 1), folded
//!      into p_L above (applied also below 2 MTU, like Linux's step), and
//!      only while the L queue holds more than `Th_len` = 1 packet (A.2).
//!
//! RNG draws per dequeued head (Linux, above 2 MTU): C 1 or 2 (`next_u32`),
//! L 1, L in overload 1 or 2 (0 without `drop_on_overload`). Linux rolls even
//! at p' = 0 (a roll of exactly 0 succeeds, as `get_random_u32() <= 0`). RFC:
//! one `random::<f64>()` per decision, none while its probability is 0.
//!
//! ## Personalities
//!
//! | | `linux` (default) | `rfc` |
//! |---|---|---|
//! | qdelay | max(L head, C head) | C head (`cq.time()`) |
//! | arithmetic | u32 fixed point (above) | f64 |
//! | C / L draws | two rolls ≤ p' / one roll ≤ ⌊k·p'⌋ | one uniform < p'² / < p_L |
//! | L native AQM | step (1 ms default; or packets) | ramp (800 µs + 400 µs default), not on a lone packet |
//! | overload | k·p' > 1 (`local_l_prob > MAX_PROB`) | p_CL ≥ 1 (L), p_C ≥ min(1/k², 1) (C) |
//!
//! Both use Linux's WRR scheduler (the RFC leaves the scheduler open; its
//! examples use a time-shifted FIFO), the 2-MTU rule of `must_drop`, drop (not
//! mark) of any C packet signalled in overload, and `drop_on_overload` (the
//! RFC always drops L with p_C in overload: `drop_on_overload: true`).
//!
//! ## Parameters (`DualPi2Params`)
//!
//! | field | default | source |
//! |---|---|---|
//! | `limit_pkts` | 10000 (host tail drop) | Linux |
//! | `target_ns` | 15 ms | RFC 9332 A.1; Linux |
//! | `tupdate_ns` | 16 ms | RFC (min(target, RTT_max/3)); Linux |
//! | `alpha`, `beta` | 0.16 Hz, 3.2 Hz | RFC; Linux 41/256, 819/256 |
//! | `coupling` | 2 | RFC k; Linux |
//! | `step_thresh_ns` | 1 ms | Linux |
//! | `min_qlen_step` | 0 | Linux |
//! | `ramp_min_ns`, `ramp_range_ns` | 800 µs, 400 µs (rfc) | RFC 9332 A.1 minTh, range |
//! | `classic_protection_pct` | 10 | Linux |
//! | `drop_on_overload` | true | Linux |
//! | `mtu_bytes` | 1514 | Linux `psched_mtu` |
//! | `drop_early` | false | Linux (`TCA_DUALPI2_DROP_EARLY`) |
//! | `memory_limit_bytes` | none | Linux: `limit · 2 · psched_mtu` of truesize |
//!
//! ## Timing
//!
//! Updates are lazy (crate::aqm module doc): due updates are taken one by one
//! with the head sojourns at each `t_k` (the heads do not change between host
//! calls); with both queues empty the input is constant and the run stops at
//! the first fixed point. The first update is at `Tupdate` (Linux's hrtimer
//! starts at init).
//!
//! ## Sojourn
//!
//! A packet's sojourn is its dequeue time minus its enqueue time, as Linux's
//! `cb->ts` (`dualpi2_sojourn_time`, and `get_queue_delays` for the heads).
//! The host dequeues when the link can start sending, so a sojourn includes
//! the rest of the previous packet's transmission and not the packet's own:
//! Linux's too when the qdisc is dequeued as the link frees (a shaper above
//! it, or a driver queue of one packet).
//!
//! Deviations from Linux: no GSO (every packet is one segment, as Linux's
//! default `split_gso`), no tc filters / priority classes (LLLL); the memory
//! limit counts wire lengths, not truesize, and is off unless given; durations
//! in ns without Linux's µs granularity or its 4.29 s cap (u32 ns) on
//! `tupdate` and the step; α, β of 0 or above 2^31 − 1 tc units taken (Linux
//! refuses them); k may be any real > 0 (Linux: an integer 1–255; the
//! arithmetic above is Linux's for an integer k); a head already CE-marked by
//! the coupled AQM is not step-marked again (Linux counts it twice in
//! `ecn_mark`, which the host's "marks ≤ enqueued" identity forbids).

use std::collections::VecDeque;

use ecnlab_wire::{Ecn, Instant};
use rand::{Rng, RngCore};

use crate::aqm::SchedAqm;
use crate::backlog::{Backlog, Head, MarkRule, Signalled};
use crate::config::{AqmPersonality, DualPi2Params};
use crate::error::ConfigError;
use crate::verdict::{DropReason, SignalKind, Verdict};

/// Sub-queue of the L4S queue.
pub(crate) const L: usize = 0;
/// Sub-queue of the Classic queue.
pub(crate) const C: usize = 1;
/// Linux's `MAX_PROB`.
const MAX_PROB: u32 = u32::MAX;
/// Linux's `ALPHA_BETA_MAX` (tc units, 1/256 Hz).
const ALPHA_BETA_MAX: u64 = (1 << 31) - 1;
/// RFC 9332 A.1 ramp defaults.
const RAMP_MIN_NS: u64 = 800_000;
const RAMP_RANGE_NS: u64 = 400_000;
/// RFC 9332's `Th_len`: the ramp leaves a lone L packet unmarked.
const TH_LEN_PKTS: u32 = 1;
/// Linux's default step threshold.
const STEP_NS: u64 = 1_000_000;

/// The L queue's native AQM.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Native {
    StepNs(u64),
    StepPkts(u32),
    Ramp { min_ns: u64, range_ns: u64 },
}

/// The base controller's state.
#[derive(Clone, Debug, PartialEq)]
enum Base {
    Linux { prob: u32, last_qdelay: u64 },
    Rfc { p: f64, prevq: f64 },
}

/// Linux `dualpi2_scale_alpha_beta` of a gain in Hz (tc's 1/256 Hz, rounded).
pub(crate) fn scale_gain(hz: f64) -> u32 {
    let tc = ((hz * 256.0).round() as u64).min(ALPHA_BETA_MAX);
    (((tc * u64::from(MAX_PROB)) >> 2) / 1_000_000_000) as u32
}

/// DualPI2 (module doc).
#[derive(Clone, Debug)]
pub(crate) struct DualPi2 {
    cfg: DualPi2Params,
    native: Native,
    alpha_fx: u32,
    beta_fx: u32,
    next_update: Instant,
    base: Base,
    credit: i64,
    credit_init: i64,
    /// `apply_step` of each packet in the L queue, head first.
    apply: VecDeque<bool>,
    /// The ECN field of the packet being classified (Linux `cb->ect`).
    arriving: Ecn,
    /// The arrival was CE-marked by the coupled AQM at enqueue (`drop_early`).
    marked_at_enqueue: bool,
}

/// What `must_drop` decided for a head.
enum Decision {
    Pass,
    Signal,
    Drop,
}

impl DualPi2 {
    pub(crate) fn new(p: &DualPi2Params) -> Self {
        let native = match (p.personality, p.step_thresh_ns, p.step_thresh_pkts, p.ramp_min_ns, p.ramp_range_ns) {
            (_, _, _, Some(min_ns), Some(range_ns)) => Native::Ramp { min_ns, range_ns },
            (AqmPersonality::Rfc, None, None, _, _) => Native::Ramp { min_ns: RAMP_MIN_NS, range_ns: RAMP_RANGE_NS },
            (_, _, Some(n), _, _) => Native::StepPkts(n),
            (_, t, _, _, _) => Native::StepNs(t.unwrap_or(STEP_NS)),
        };
        let base = match p.personality {
            // `ns3` is refused by `validate` (ns-3 has no DualPI2).
            AqmPersonality::Linux | AqmPersonality::Ns3 => Base::Linux { prob: 0, last_qdelay: 0 },
            AqmPersonality::Rfc => Base::Rfc { p: 0.0, prevq: 0.0 },
        };
        let wc = i64::from(p.classic_protection_pct);
        let credit_init = i64::from(p.mtu_bytes) * (wc - (100 - wc));
        DualPi2 {
            cfg: *p,
            native,
            alpha_fx: scale_gain(p.alpha),
            beta_fx: scale_gain(p.beta),
            next_update: Instant::from_nanos(p.tupdate_ns),
            base,
            credit: credit_init,
            credit_init,
            apply: VecDeque::new(),
            arriving: Ecn::NotEct,
            marked_at_enqueue: false,
        }
    }

    /// p' in [0, 1].
    pub(crate) fn p_base(&self) -> f64 {
        match self.base {
            Base::Linux { prob, .. } => f64::from(prob) / f64::from(MAX_PROB),
            Base::Rfc { p, .. } => p,
        }
    }

    /// The Classic probability p_C = p'².
    #[cfg(test)]
    pub(crate) fn p_c(&self) -> f64 {
        self.p_base() * self.p_base()
    }

    /// The coupled L probability p_CL = min(k·p', 1).
    #[cfg(test)]
    pub(crate) fn p_cl(&self) -> f64 {
        (self.cfg.coupling * self.p_base()).min(1.0)
    }

    /// Linux's fixed-point p'.
    #[cfg(test)]
    pub(crate) fn prob_fx(&self) -> Option<u32> {
        match self.base {
            Base::Linux { prob, .. } => Some(prob),
            Base::Rfc { .. } => None,
        }
    }

    #[cfg(test)]
    pub(crate) fn credit(&self) -> i64 {
        self.credit
    }

    /// One update with the queue delay `qdelay_ns` (L/C max or C, per personality).
    fn update(&mut self, l_ns: u64, c_ns: u64) {
        let c = &self.cfg;
        match &mut self.base {
            Base::Linux { prob, last_qdelay } => {
                let qdelay = l_ns.max(c_ns);
                let delta = (qdelay as i64)
                    .wrapping_sub(c.target_ns as i64)
                    .wrapping_mul(i64::from(self.alpha_fx))
                    .wrapping_add(
                        (qdelay as i64).wrapping_sub(*last_qdelay as i64).wrapping_mul(i64::from(self.beta_fx)),
                    );
                *last_qdelay = qdelay;
                let mut new = if delta > 0 {
                    let n = ((delta as u64 / 64) as i64).wrapping_add(i64::from(*prob)) as u32;
                    if n < *prob {
                        MAX_PROB
                    } else {
                        n
                    }
                } else {
                    let n = i64::from(*prob).wrapping_sub((delta.wrapping_neg() as u64 / 64) as i64) as u32;
                    if n > *prob {
                        0
                    } else {
                        n
                    }
                };
                if !c.drop_on_overload {
                    new = new.min((f64::from(MAX_PROB) / c.coupling) as u32);
                }
                *prob = new;
            }
            Base::Rfc { p, prevq } => {
                let curq = c_ns as f64 * 1e-9;
                let target = c.target_ns as f64 * 1e-9;
                let mut next = (*p + c.alpha * (curq - target) + c.beta * (curq - *prevq)).clamp(0.0, 1.0);
                if !c.drop_on_overload {
                    next = next.min(1.0 / c.coupling);
                }
                *p = next;
                *prevq = curq;
            }
        }
    }

    fn catch_up<B: Backlog>(&mut self, now: Instant, b: &B) {
        if self.next_update > now {
            return;
        }
        let period = self.cfg.tupdate_ns;
        let n = (now.as_nanos() - self.next_update.as_nanos()) / period + 1;
        let (lh, ch) = (b.head(L), b.head(C));
        let empty = lh.is_none() && ch.is_none();
        for k in 0..n {
            let t = Instant::from_nanos(self.next_update.as_nanos() + k * period);
            let soj = |h: Option<Head>| h.map_or(0, |h| h.sojourn(t).as_nanos());
            let before = self.base.clone();
            self.update(soj(lh), soj(ch));
            if empty && self.base == before {
                break; // constant input and a fixed point: the rest change nothing
            }
        }
        self.next_update = Instant::from_nanos(self.next_update.as_nanos().saturating_add(n.saturating_mul(period)));
    }

    /// Linux `dualpi2_roll`: `get_random_u32() <= prob`.
    fn roll<R: RngCore + ?Sized>(rng: &mut R, prob: u32) -> bool {
        rng.next_u32() <= prob
    }

    /// The RFC ramp's p'_L at `sojourn_ns`.
    fn ramp(min_ns: u64, range_ns: u64, sojourn_ns: u64) -> f64 {
        if sojourn_ns <= min_ns {
            0.0
        } else {
            ((sojourn_ns - min_ns) as f64 / range_ns as f64).min(1.0)
        }
    }

    /// `must_drop` (and, for RFC, the ramp folded into p_L) for the head of `sub`.
    /// Returns the decision and whether the ramp drove an L signal.
    fn decide<R: RngCore + ?Sized>(
        &self,
        sub: usize,
        h: Head,
        coupled: bool,
        apply: bool,
        now: Instant,
        rng: &mut R,
    ) -> (Decision, bool) {
        let k = self.cfg.coupling;
        match self.base {
            Base::Linux { prob, .. } => {
                if !coupled {
                    return (Decision::Pass, false);
                }
                let local_l = (f64::from(prob) * k) as u64;
                let overload = local_l > u64::from(MAX_PROB);
                let classic = |rng: &mut R| Self::roll(rng, prob) && Self::roll(rng, prob);
                let d = if sub == C {
                    match classic(rng) {
                        true if overload || h.ecn == Ecn::NotEct => Decision::Drop,
                        true => Decision::Signal,
                        false => Decision::Pass,
                    }
                } else if overload {
                    if self.cfg.drop_on_overload && classic(rng) {
                        Decision::Drop
                    } else {
                        Decision::Signal
                    }
                } else if Self::roll(rng, local_l as u32) {
                    Decision::Signal
                } else {
                    Decision::Pass
                };
                (d, false)
            }
            Base::Rfc { p, .. } => {
                let p_c = if coupled { p * p } else { 0.0 };
                // RFC 9332 A.2: saturation when p_CL ≥ p_Lmax = 1 (L) or p_C ≥ p_Cmax = min(1/k², 1) (C).
                let overload_l = coupled && k * p >= 1.0;
                let overload_c = coupled && p_c >= (1.0 / (k * k)).min(1.0);
                let draw = |rng: &mut R, prob: f64| prob > 0.0 && rng.random::<f64>() < prob;
                if sub == C {
                    let d = match draw(rng, p_c) {
                        true if overload_c || h.ecn == Ecn::NotEct => Decision::Drop,
                        true => Decision::Signal,
                        false => Decision::Pass,
                    };
                    return (d, false);
                }
                if overload_l {
                    let d = if self.cfg.drop_on_overload && draw(rng, p_c) { Decision::Drop } else { Decision::Signal };
                    return (d, false);
                }
                let p_cl = if coupled { (k * p).min(1.0) } else { 0.0 };
                let ramp = match self.native {
                    Native::Ramp { min_ns, range_ns } if apply => {
                        Self::ramp(min_ns, range_ns, h.sojourn(now).as_nanos())
                    }
                    _ => 0.0,
                };
                let p_l = ramp.max(p_cl);
                if draw(rng, p_l) {
                    (Decision::Signal, ramp > p_cl)
                } else {
                    (Decision::Pass, false)
                }
            }
        }
    }

    /// Linux `do_step_aqm`'s condition for the L head `h` (sent next unless dropped).
    fn step_due<B: Backlog>(&self, h: Head, now: Instant, b: &B) -> bool {
        match self.native {
            Native::StepNs(t) => h.sojourn(now).as_nanos() > t,
            Native::StepPkts(n) => b.sub_len_pkts(L) - 1 > n,
            Native::Ramp { .. } => false,
        }
    }

    fn pop_flag(&mut self, sub: usize) {
        if sub == L {
            self.apply.pop_front();
        }
    }
}

impl DualPi2Params {
    /// Limit, mtu, memory limit ≥ 1; durations > 0; α, β finite ≥ 0; k finite > 0;
    /// `classic_protection_pct` ≤ 100; at most one step threshold, a packet one below
    /// `limit_pkts`; the ramp's
    /// two fields together (range > 0); the step for `linux`, the ramp for `rfc`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.limit_pkts < 1 {
            return Err(ConfigError::new("limit_pkts", self.limit_pkts, "must be >= 1"));
        }
        for (field, v) in [("target_ns", self.target_ns), ("tupdate_ns", self.tupdate_ns)] {
            if v == 0 {
                return Err(ConfigError::new(field, v, "must be > 0 ns"));
            }
        }
        for (field, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::new(field, v, "must be finite and >= 0"));
            }
        }
        if self.personality == AqmPersonality::Ns3 {
            return Err(ConfigError::new("personality", "ns3", "must be linux or rfc (ns-3 has no DualPI2)"));
        }
        if !(self.coupling.is_finite() && self.coupling > 0.0) {
            return Err(ConfigError::new("coupling", self.coupling, "must be finite and > 0"));
        }
        if self.classic_protection_pct > 100 {
            return Err(ConfigError::new("classic_protection_pct", self.classic_protection_pct, "must be <= 100"));
        }
        if let (Some(_), Some(n)) = (self.step_thresh_ns, self.step_thresh_pkts) {
            return Err(ConfigError::new("step_thresh_pkts", n, "must not be set together with step_thresh_ns"));
        }
        if let Some(n) = self.step_thresh_pkts.filter(|&n| n >= self.limit_pkts) {
            let rule = format!("must be < limit_pkts ({}): a full queue drops the arrival first", self.limit_pkts);
            return Err(ConfigError::new("step_thresh_pkts", n, rule));
        }
        match (self.ramp_min_ns, self.ramp_range_ns) {
            (None, None) => {}
            (Some(_), Some(0)) => return Err(ConfigError::new("ramp_range_ns", 0, "must be > 0 ns")),
            (Some(_), Some(_)) => {
                if self.personality == AqmPersonality::Linux {
                    let rule = "only applies to personality rfc (Linux has the step)";
                    return Err(ConfigError::new("ramp_min_ns", self.ramp_min_ns.unwrap_or(0), rule));
                }
            }
            (Some(m), None) => {
                return Err(ConfigError::new("ramp_range_ns", "null", format!("must be set with ramp_min_ns ({m})")))
            }
            (None, Some(r)) => {
                return Err(ConfigError::new("ramp_min_ns", "null", format!("must be set with ramp_range_ns ({r})")))
            }
        }
        if self.personality == AqmPersonality::Rfc {
            let rule = "only applies to personality linux (rfc uses the ramp)";
            if let Some(t) = self.step_thresh_ns {
                return Err(ConfigError::new("step_thresh_ns", t, rule));
            }
            if let Some(n) = self.step_thresh_pkts {
                return Err(ConfigError::new("step_thresh_pkts", n, rule));
            }
        }
        if self.mtu_bytes < 1 {
            return Err(ConfigError::new("mtu_bytes", self.mtu_bytes, "must be >= 1"));
        }
        if let Some(0) = self.memory_limit_bytes {
            return Err(ConfigError::new("memory_limit_bytes", 0, "must be >= 1 byte"));
        }
        Ok(())
    }
}

impl SchedAqm for DualPi2 {
    fn subqueues(&self) -> usize {
        2
    }

    fn class_names(&self) -> &'static [&'static str] {
        &["L", "C"]
    }

    fn classify(&mut self, _key: u64, ecn: Ecn) -> usize {
        self.arriving = ecn;
        if ecn.bits() & self.cfg.ecn_mask.bits() != 0 {
            L
        } else {
            C
        }
    }

    fn tick<B: Backlog>(&mut self, now: Instant, b: &B) {
        self.catch_up(now, b);
    }

    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        now: Instant,
        len: u32,
        sub: usize,
        b: &B,
        rng: &mut R,
    ) -> Verdict {
        self.catch_up(now, b);
        self.marked_at_enqueue = false;
        if b.len_pkts() >= self.cfg.limit_pkts {
            return Verdict::Pass; // the host tail-drops at limit_pkts, before any roll
        }
        if self.cfg.memory_limit_bytes.is_some_and(|m| b.len_bytes() + u64::from(len) > m) {
            return Verdict::Drop(DropReason::Overflow);
        }
        if !self.cfg.drop_early {
            return Verdict::Pass; // decided at dequeue (Linux's default, drop_dequeue)
        }
        let coupled = b.len_bytes() >= 2 * u64::from(self.cfg.mtu_bytes);
        let h = Head { since: now, len, ecn: self.arriving };
        match self.decide(sub, h, coupled, false, now, rng).0 {
            Decision::Pass => Verdict::Pass,
            Decision::Signal => {
                self.marked_at_enqueue = true;
                Verdict::Signal(SignalKind::Early)
            }
            Decision::Drop => Verdict::Drop(DropReason::Early),
        }
    }

    fn on_enqueued<B: Backlog>(&mut self, _now: Instant, sub: usize, b: &mut B) {
        if sub == L {
            let before = b.sub_len_pkts(L) - 1;
            self.apply.push_back(before >= self.cfg.min_qlen_step && !self.marked_at_enqueue);
        }
        debug_assert_eq!(self.apply.len(), b.sub_len_pkts(L) as usize);
    }

    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, rng: &mut R) -> Option<usize> {
        self.catch_up(now, b);
        let wc = i64::from(self.cfg.classic_protection_pct);
        let wl = 100 - wc;
        loop {
            debug_assert_eq!(self.apply.len(), b.sub_len_pkts(L) as usize);
            let (l_len, c_len) = (b.sub_len_pkts(L), b.sub_len_pkts(C));
            let (sub, weight) = if l_len > 0 && (c_len == 0 || self.credit <= 0) {
                (L, if c_len > 0 { wc } else { 0 })
            } else if c_len > 0 {
                (C, if l_len > 0 { -wl } else { 0 })
            } else {
                self.credit = self.credit_init;
                return None;
            };
            let h = b.head(sub).expect("non-empty sub-queue has a head");
            let coupled = !self.cfg.drop_early && b.len_bytes() - u64::from(h.len) >= 2 * u64::from(self.cfg.mtu_bytes);
            let flag = sub == L && self.apply.front().copied().unwrap_or(false);
            // RFC 9332 A.2: no native L4S marking of a lone packet (Th_len = 1 packet).
            let apply = flag && (self.cfg.personality == AqmPersonality::Linux || b.sub_len_pkts(L) > TH_LEN_PKTS);
            let (decision, by_ramp) = self.decide(sub, h, coupled, apply, now, rng);
            let mut marked = false;
            match decision {
                Decision::Drop => {
                    b.drop_head(sub, DropReason::Early);
                    self.pop_flag(sub);
                    continue;
                }
                Decision::Signal => {
                    let rule = if by_ramp { MarkRule::Step } else { MarkRule::Aqm };
                    if b.signal_head(sub, SignalKind::Early, rule) == Signalled::Dropped {
                        self.pop_flag(sub);
                        continue;
                    }
                    marked = true;
                }
                Decision::Pass => {}
            }
            if sub == L
                && apply
                && !marked
                && self.step_due(h, now, b)
                && b.signal_head(L, SignalKind::Early, MarkRule::Step) == Signalled::Dropped
            {
                self.pop_flag(L);
                continue;
            }
            self.credit += weight * i64::from(h.len);
            self.pop_flag(sub);
            return Some(sub);
        }
    }

    fn on_idle(&mut self, _now: Instant) {
        // Linux resets the credit at the dequeue that finds both queues empty,
        // which its qdisc_run loop performs right after the last packet leaves.
        self.credit = self.credit_init;
    }

    fn prob(&self) -> Option<f64> {
        Some(self.p_base())
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;

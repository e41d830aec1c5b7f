//! PIE: Proportional Integral controller Enhanced, a single FIFO that decides
//! at arrival with a probability updated every `Tupdate` from the queue delay.
//!
//! Sources: RFC 8033 (§4.1 random drop and its safeguards, §4.2 the update and
//! its auto-scaling, §4.3 delay by timestamps, §4.4 burst tolerance, §5.1 ECN,
//! §5.4 derandomisation, §5.5 cap on the increase); Linux `include/net/pie.h`
//! and `net/sched/sch_pie.c` (`pie_drop_early`, `pie_process_dequeue`,
//! `pie_calculate_probability`, without `dq_rate_estimator`, its default);
//! ns-3 `pie-queue-disc.cc` (the same delay measurement).
//!
//! ## Update, every `Tupdate` (at `t_k`, see "Timing")
//!
//! ```text
//! Δ = α·(qdelay − target) + β·(qdelay − qdelay_old)        (delays in s, α β in Hz)
//! Δ /= 2048, 512, 128, 32, 8, 2   when p < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1 (auto-scaling)
//! if p ≥ 0.1 and Δ > 0.02: Δ = 0.02                        (cap, RFC §5.5)
//! p += Δ
//! if qdelay = 0 and qdelay_old = 0: p ×= decay             (non-linear decay)
//! burst allowance: reset to max_burst when p = 0, qdelay < target/2, qdelay_old < target/2
//!                  (RFC §4.4: then reduced by Tupdate; Linux: reduced at dequeues, table)
//! qdelay_old = qdelay
//! ```
//!
//! `qdelay` (both personalities, Linux's rule without `dq_rate_estimator`, as
//! in ns-3): at every dequeue, the sojourn of the departing packet, or 0 when
//! the queue is empty after it; the update uses the value as of `t_k`.
//!
//! ## Decision at arrival (packet of `len` bytes, queue `q` without it)
//!
//! ```text
//! q full (limit_pkts / limit_bytes)         → Drop(Overflow), accu_prob = 0  (checked first, as Linux)
//! burst allowance > 0                       → Pass
//! delay safeguard                           → Pass   (qd < target/2 and p < 0.2; qd per table)
//! size safeguard                            → Pass   (per table)
//! p_local = p·len/mean_pkt_bytes (bytemode) else p
//! derandomize: accu = 0 if p_local = 0; accu += p_local;
//!              accu < 0.85 → Pass; accu ≥ 8.5 → signal; else draw
//! draw: one uniform u; u < p_local → signal, accu = 0    (no draw while p_local = 0)
//! signal: ecn and p ≤ mark_ecn_threshold → Signal(Early) (host: CE on ECT, drop Not-ECT)
//!         otherwise                      → Drop(Early), accu = 0
//! ```
//!
//! ## Personalities (`AqmPersonality`)
//!
//! | | `linux` (default) | `rfc` |
//! |---|---|---|
//! | arithmetic | `u64` p with MAX = 2^56 − 1, delays in psched ticks (ns >> 6), α·16 and β·16 rounded to integers (tc's units) | `f64` |
//! | decay | p −= p/64 (×0.984), skipped when qdelay = 0 with backlog ≠ 0 or after an overflow | p ×= 0.98 |
//! | high delay | Δ += 0.02 when qdelay > 250 ms (after the cap) | — |
//! | upper bound | none below 256 (u64 wrap → p = 1); `prob()` reports min(p, 1) | clamp [0, 1] |
//! | burst allowance | reduced at each dequeue by the time since the previous one; reset also clears accu_prob and the dequeue stamp | reset, then reduced by `Tupdate`, at each update (§4.4's order) |
//! | delay safeguard | current qdelay < target/2 | qdelay_old < target/2 |
//! | size safeguard | backlog < 2·`mean_pkt_bytes` (Linux: 2·MTU) | backlog ≤ 2·`mean_pkt_bytes` |
//! | bytemode | p·len/mtu when len ≤ mtu (integer) | p·len/mean_pkt_bytes |
//! | random draw | `next_u64() >> 8 < p_local` (56 bits) | `random::<f64>() < p_local` |
//! | first update | 500 ms (`pie_init`'s `HZ/2`), then every `Tupdate` | at `Tupdate` |
//!
//! Linux always derandomises (it has no switch): `derandomize: true` is Linux.
//!
//! ## Parameters (`PieParams`)
//!
//! | field | default | source |
//! |---|---|---|
//! | `target_ns` | 15 ms | RFC 8033 QDELAY_REF; Linux `pie_params_init` |
//! | `tupdate_ns` | 15 ms | RFC T_UPDATE; Linux (jiffies: 16 ms at HZ = 250) |
//! | `alpha`, `beta` | 0.125 Hz, 1.25 Hz | RFC; Linux 2/16, 20/16 |
//! | `max_burst_ns` | 150 ms | RFC MAX_BURST; Linux `pie_vars_init` |
//! | `mark_ecn_threshold` | 0.1 | RFC §5.1; Linux `MAX_PROB / 10` |
//! | `mean_pkt_bytes` | 1514 for Linux (its MTU), else the mean | Linux `psched_mtu`; RFC MEAN_PKTSIZE |
//! | `limit_pkts` | 1000 | Linux (ns-3: 25) |
//!
//! ## Timing
//!
//! Updates are taken lazily in `tick` (crate::aqm module doc), against the
//! queue as it is: PIE's inputs (`qdelay` as last set at a dequeue, the
//! backlog) are constant between host calls, so a run of due updates is
//! iterated until the state stops changing and the rest are skipped (a long
//! idle period costs the few hundred updates p needs to decay to its fixed point).
//!
//! Deviations: Linux's `tupdate` is in jiffies (taken here as exact ns); the
//! AQM is not told when the host drops a Not-ECT packet it signalled, so
//! accu_prob is not reset then (Linux resets it on every drop at enqueue).

use ecnlab_wire::{Duration, Instant};
use rand::{Rng, RngCore};

use crate::aqm::{Aqm, QueueView};
use crate::config::{AqmPersonality, PieParams};
use crate::error::{check_limits, check_unit_interval, ConfigError};
use crate::verdict::{DropReason, SignalKind, Verdict};

/// Linux `MAX_PROB`: probability 1 in the 56-bit fixed point.
pub(crate) const MAX_PROB: u64 = u64::MAX >> 8;
/// psched ticks per second (1 tick = 64 ns).
const TICKS_PER_SEC: u64 = 1_000_000_000 >> 6;
/// Linux's first update, `HZ / 2` after `pie_init`.
const LINUX_FIRST_UPDATE_NS: u64 = 500_000_000;

fn ticks(ns: u64) -> u64 {
    ns >> 6
}

/// Linux's state (`struct pie_vars`, integer).
#[derive(Clone, Debug, PartialEq, Eq)]
struct LinuxVars {
    prob: u64,
    qdelay: u64,
    qdelay_old: u64,
    burst_time: u64,
    dq_tstamp: Option<u64>,
    accu_prob: u64,
}

/// The RFC's state (exact arithmetic).
#[derive(Clone, Debug, PartialEq)]
struct RfcVars {
    p: f64,
    qdelay: f64,
    qdelay_old: f64,
    burst_ns: u64,
    accu_prob: f64,
}

#[derive(Clone, Debug, PartialEq)]
enum Vars {
    Linux(LinuxVars),
    Rfc(RfcVars),
}

/// PIE (module doc).
#[derive(Clone, Debug)]
pub(crate) struct Pie {
    cfg: PieParams,
    /// Linux's scaled α, β (`(a16 · (MAX_PROB / TICKS_PER_SEC)) >> 4`).
    alpha_fx: u64,
    beta_fx: u64,
    tupdate: u64,
    next_update: Instant,
    vars: Vars,
}

impl Pie {
    pub(crate) fn new(p: &PieParams) -> Self {
        let per_tick = MAX_PROB / TICKS_PER_SEC;
        let fx = |x: f64| (((x * 16.0).round() as u64).saturating_mul(per_tick)) >> 4;
        let (vars, first) = match p.personality {
            AqmPersonality::Linux => (
                Vars::Linux(LinuxVars {
                    prob: 0,
                    qdelay: 0,
                    qdelay_old: 0,
                    burst_time: ticks(p.max_burst_ns),
                    dq_tstamp: None,
                    accu_prob: 0,
                }),
                LINUX_FIRST_UPDATE_NS,
            ),
            AqmPersonality::Rfc | AqmPersonality::Ns3 => (
                Vars::Rfc(RfcVars { p: 0.0, qdelay: 0.0, qdelay_old: 0.0, burst_ns: p.max_burst_ns, accu_prob: 0.0 }),
                p.tupdate_ns,
            ),
        };
        Pie {
            cfg: *p,
            alpha_fx: fx(p.alpha),
            beta_fx: fx(p.beta),
            tupdate: p.tupdate_ns,
            next_update: Instant::from_nanos(first),
            vars,
        }
    }

    /// The probability p (Linux: may exceed 1 internally; see the table).
    pub(crate) fn p_raw(&self) -> f64 {
        match &self.vars {
            Vars::Linux(v) => v.prob as f64 / MAX_PROB as f64,
            Vars::Rfc(v) => v.p,
        }
    }

    /// The burst allowance left, in ns (Linux: ticks × 64).
    #[cfg(test)]
    pub(crate) fn burst_left_ns(&self) -> u64 {
        match &self.vars {
            Vars::Linux(v) => v.burst_time << 6,
            Vars::Rfc(v) => v.burst_ns,
        }
    }

    /// Linux's fixed-point p.
    #[cfg(test)]
    pub(crate) fn prob_fx(&self) -> Option<u64> {
        match &self.vars {
            Vars::Linux(v) => Some(v.prob),
            Vars::Rfc(_) => None,
        }
    }

    fn fits(&self, q: &QueueView, len: u32) -> bool {
        match (self.cfg.limit_pkts, self.cfg.limit_bytes) {
            (Some(p), _) => q.len_pkts < p,
            (None, Some(b)) => q.len_bytes.saturating_add(u64::from(len)) <= b,
            (None, None) => true,
        }
    }

    /// One update with the backlog `backlog` bytes (module doc).
    fn update(&mut self, backlog: u64) {
        let c = self.cfg;
        match &mut self.vars {
            Vars::Linux(v) => linux_update(v, &c, self.alpha_fx, self.beta_fx, backlog),
            Vars::Rfc(v) => rfc_update(v, &c),
        }
    }

    fn catch_up(&mut self, now: Instant, backlog: u64) {
        if self.next_update > now {
            return;
        }
        let period = self.tupdate;
        let n = (now.as_nanos() - self.next_update.as_nanos()) / period + 1;
        for _ in 0..n {
            let before = self.vars.clone();
            self.update(backlog);
            if self.vars == before {
                break; // a fixed point: the remaining updates change nothing
            }
        }
        self.next_update = Instant::from_nanos(self.next_update.as_nanos().saturating_add(n.saturating_mul(period)));
    }
}

/// Linux `pie_calculate_probability` without the rate estimator.
fn linux_update(v: &mut LinuxVars, c: &PieParams, alpha_fx: u64, beta_fx: u64, backlog: u64) {
    let target = ticks(c.target_ns);
    let (qdelay, qdelay_old) = (v.qdelay, v.qdelay_old);
    let mut update_prob = !(qdelay == 0 && backlog != 0);
    let (mut alpha, mut beta) = (alpha_fx, beta_fx);
    if v.prob < MAX_PROB / 10 {
        alpha >>= 1;
        beta >>= 1;
        let mut power: u64 = 100;
        while v.prob < MAX_PROB / power && power <= 1_000_000 {
            alpha >>= 2;
            beta >>= 2;
            power *= 10;
        }
    }
    // s64 arithmetic on u64 differences, as the C code (two's complement).
    let mut delta = (alpha.wrapping_mul(qdelay.wrapping_sub(target)) as i64)
        .wrapping_add(beta.wrapping_mul(qdelay.wrapping_sub(qdelay_old)) as i64);
    let old = v.prob;
    if delta > (MAX_PROB / 50) as i64 && v.prob >= MAX_PROB / 10 {
        delta = ((MAX_PROB / 100) * 2) as i64;
    }
    if qdelay > ticks(250_000_000) {
        delta = delta.wrapping_add((MAX_PROB / 50) as i64);
    }
    v.prob = v.prob.wrapping_add(delta as u64);
    if delta > 0 {
        if v.prob < old {
            v.prob = MAX_PROB;
            update_prob = false;
        }
    } else if v.prob > old {
        v.prob = 0;
    }
    if qdelay == 0 && qdelay_old == 0 && update_prob {
        v.prob -= v.prob / 64;
    }
    if qdelay < target / 2 && qdelay_old < target / 2 && v.prob == 0 {
        v.burst_time = ticks(c.max_burst_ns);
        v.dq_tstamp = None;
        v.accu_prob = 0;
    }
    v.qdelay_old = qdelay;
}

/// RFC 8033 §4.2 with §5.5's cap and §4.4's burst allowance.
fn rfc_update(v: &mut RfcVars, c: &PieParams) {
    let target = c.target_ns as f64 * 1e-9;
    let mut d = c.alpha * (v.qdelay - target) + c.beta * (v.qdelay - v.qdelay_old);
    d /= auto_scale(v.p);
    if v.p >= 0.1 && d > 0.02 {
        d = 0.02;
    }
    let mut p = v.p + d;
    if v.qdelay == 0.0 && v.qdelay_old == 0.0 {
        p *= 0.98;
    }
    v.p = p.clamp(0.0, 1.0);
    // §4.4's order: the reset first, then the decrement.
    if v.p == 0.0 && v.qdelay < target / 2.0 && v.qdelay_old < target / 2.0 {
        v.burst_ns = c.max_burst_ns;
    }
    v.burst_ns = v.burst_ns.saturating_sub(c.tupdate_ns);
    v.qdelay_old = v.qdelay;
}

/// RFC 8033 §4.2's divisor of the increment for the current p.
pub(crate) fn auto_scale(p: f64) -> f64 {
    match p {
        p if p < 1e-6 => 2048.0,
        p if p < 1e-5 => 512.0,
        p if p < 1e-4 => 128.0,
        p if p < 1e-3 => 32.0,
        p if p < 1e-2 => 8.0,
        p if p < 1e-1 => 2.0,
        _ => 1.0,
    }
}

impl PieParams {
    /// Durations > 0; α, β finite ≥ 0; `mark_ecn_threshold` in (0, 1];
    /// `mean_pkt_bytes` ≥ 1; exactly one limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        for (field, v) in
            [("target_ns", self.target_ns), ("tupdate_ns", self.tupdate_ns), ("max_burst_ns", self.max_burst_ns)]
        {
            if v == 0 {
                return Err(ConfigError::new(field, v, "must be > 0 ns"));
            }
        }
        for (field, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::new(field, v, "must be finite and >= 0"));
            }
        }
        check_unit_interval("mark_ecn_threshold", self.mark_ecn_threshold)?;
        if self.mean_pkt_bytes < 1 {
            return Err(ConfigError::new("mean_pkt_bytes", self.mean_pkt_bytes, "must be >= 1"));
        }
        Ok(())
    }
}

impl Aqm for Pie {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        self.catch_up(now, q.len_bytes);
        if !self.fits(q, len) {
            match &mut self.vars {
                Vars::Linux(v) => v.accu_prob = 0,
                Vars::Rfc(v) => v.accu_prob = 0.0,
            }
            return Verdict::Drop(DropReason::Overflow);
        }
        let c = self.cfg;
        let (signal, may_mark) = match &mut self.vars {
            Vars::Linux(v) => {
                // Fixed point, as `prob <= MAX_PROB / 10` (threshold to 1e-9).
                let nano = (c.mark_ecn_threshold * 1e9).round() as u128;
                let thr = (u128::from(MAX_PROB) * nano / 1_000_000_000) as u64;
                (linux_drop_early(v, &c, q.len_bytes, len, rng), v.prob <= thr)
            }
            Vars::Rfc(v) => (rfc_drop_early(v, &c, q.len_bytes, len, rng), v.p <= c.mark_ecn_threshold),
        };
        if !signal {
            return Verdict::Pass;
        }
        if c.ecn && may_mark {
            return Verdict::Signal(SignalKind::Early);
        }
        match &mut self.vars {
            Vars::Linux(v) => v.accu_prob = 0,
            Vars::Rfc(v) => v.accu_prob = 0.0,
        }
        Verdict::Drop(DropReason::Early)
    }

    fn on_dequeue(&mut self, now: Instant, sojourn: Duration, len: u32, q: &QueueView) {
        // The host ticked already; the queue before this departure held `len` more.
        self.catch_up(now, q.len_bytes + u64::from(len));
        match &mut self.vars {
            Vars::Linux(v) => {
                // pie_process_dequeue: stamps in ticks, as psched_get_time().
                let now_t = ticks(now.as_nanos());
                let enq_t = ticks(now.as_nanos().saturating_sub(sojourn.as_nanos()));
                v.qdelay = now_t - enq_t;
                let dtime = v.dq_tstamp.map_or(0, |t| now_t.wrapping_sub(t));
                v.dq_tstamp = Some(now_t);
                if q.len_bytes == 0 {
                    v.qdelay = 0;
                }
                if dtime != 0 {
                    v.burst_time = v.burst_time.saturating_sub(dtime);
                }
            }
            Vars::Rfc(v) => {
                v.qdelay = if q.len_bytes == 0 { 0.0 } else { sojourn.as_secs_f64() };
            }
        }
    }

    fn prob(&self) -> Option<f64> {
        Some(self.p_raw().min(1.0))
    }

    fn tick(&mut self, now: Instant, q: &QueueView) {
        self.catch_up(now, q.len_bytes);
    }
}

/// Linux `pie_drop_early` (the qdisc's limit check done by the caller).
fn linux_drop_early<R: RngCore + ?Sized>(
    v: &mut LinuxVars,
    c: &PieParams,
    backlog: u64,
    len: u32,
    rng: &mut R,
) -> bool {
    let mtu = u64::from(c.mean_pkt_bytes);
    if v.burst_time > 0 {
        return false;
    }
    if v.qdelay < ticks(c.target_ns) / 2 && v.prob < MAX_PROB / 5 {
        return false;
    }
    if backlog < 2 * mtu {
        return false;
    }
    let local = if c.bytemode && u64::from(len) <= mtu { u64::from(len) * (v.prob / mtu) } else { v.prob };
    if c.derandomize {
        v.accu_prob = if local == 0 { 0 } else { v.accu_prob.wrapping_add(local) };
        if v.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if v.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
    } else if local == 0 {
        return false;
    }
    if (rng.next_u64() >> 8) < local {
        v.accu_prob = 0;
        return true;
    }
    false
}

/// RFC 8033 §4.1 / §5.4 `drop_early` with §4.4's burst allowance.
fn rfc_drop_early<R: RngCore + ?Sized>(v: &mut RfcVars, c: &PieParams, backlog: u64, len: u32, rng: &mut R) -> bool {
    if v.burst_ns > 0 {
        return false;
    }
    let target = c.target_ns as f64 * 1e-9;
    if (v.qdelay_old < target / 2.0 && v.p < 0.2) || backlog <= 2 * u64::from(c.mean_pkt_bytes) {
        return false;
    }
    let local = if c.bytemode { v.p * f64::from(len) / f64::from(c.mean_pkt_bytes) } else { v.p };
    if c.derandomize {
        if v.p == 0.0 {
            v.accu_prob = 0.0;
        }
        v.accu_prob += local;
        if v.accu_prob < 0.85 {
            return false;
        }
        if v.accu_prob >= 8.5 {
            return true;
        }
    } else if local <= 0.0 {
        return false;
    }
    let u: f64 = rng.random();
    if u < local {
        v.accu_prob = 0.0;
        return true;
    }
    false
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;

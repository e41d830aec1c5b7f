//! RED as Linux defines it (personality `linux`, `tc qdisc ... red`).
//!
//! Sources (read, not copied): Linux `include/net/red.h` (`red_set_parms`,
//! `red_calc_qavg_no_idle_time`, `red_calc_qavg_from_idle_time`, `red_action`,
//! `red_mark_probability`, `red_adaptative_algo`), `net/sched/sch_red.c`
//! (`red_enqueue`: average of the child's byte backlog, prob/hard mark vs
//! drop, `harddrop`, the 500 ms adaptive timer) and iproute2 `tc/tc_red.c`
//! (`tc_red_eval_idle_damping`: the Stab table).
//!
//! ```text
//! parameters: W = 2^-Wlog (wq must be a power of two), qth_min/max = min_th/max_th · mean_pkt_bytes
//!             bytes (tc's avpkt), stored << Wlog; max_P = max_p·2^32; Δ = max − min bytes
//! average (fixed point, Wlog fraction bits, of the *byte* backlog before the arrival):
//!   busy:   qavg ← qavg + backlog − (qavg >> Wlog)
//!   idle:   t = min(idle µs, 255 << Scell_log); shift = Stab[t >> Scell_log]
//!           shift > 0: qavg ← qavg >> shift
//!           shift = 0: x = (qavg·t) >> Scell_log;  qavg ← x < qavg/2 ? qavg − x : qavg/2
//! Stab[i] = min(31, ⌊(i << Scell_log)·lW⌋), lW = −ln(1−W)/xmit_µs(mean_pkt_bytes),
//!           Scell_log the least with 31/lW / 2^Scell_log < 512; Stab[0] = 0, Stab[255] = 31
//! action:  qavg < qth_min: qcount = −1, pass;  qavg ≥ qth_max: qcount = −1, hard mark
//!          else qcount += 1; qcount = 0 → draw qR = rand32 / max(max_P/Δ, 1), pass
//!               else ((qavg − qth_min) >> Wlog)·qcount ≥ qR → prob mark, qcount = 0, draw qR
//! hard mark: kind `red` = `tc red ecn harddrop` (drop); kind `red_star` = `tc red ecn` (mark ECT)
//! adaptive (every 500 ms of simulated time, from t = 0): a = qavg >> Wlog (idle-decayed if idle)
//!          a > target_max and max_P ≤ 50 %: max_P += min(1 %, max_P/4)
//!          a < target_min and max_P ≥ 1 %:  max_P = (max_P/10)·9
//!          target = min + [2, 3]·⌊Δ/5⌋ bytes; max_P/Δ rounded to nearest
//! ```
//!
//! No gentle region, no `wait`, no probability scaling by size (Linux has
//! none). The table uses µs for both its construction and its look-up (the
//! unit of the kernel's `ktime_us_delta`); −ln(1−W) is a fixed 64-term series,
//! so the table is identical on every machine. `rand32` is `next_u32` of the
//! queue's RNG stream (the kernel: `get_random_u32`); reciprocal division is
//! exact integer division.

use ecnlab_wire::{Duration, Instant};
use rand::RngCore;

use crate::aqm::{Aqm, QueueView};
use crate::config::RedParams;
use crate::red::ForcedAction;
use crate::verdict::{DropReason, SignalKind, Verdict};

pub(crate) const STAB_SIZE: usize = 256;
/// `RED_ONE_PERCENT`: DIV_ROUND_CLOSEST(2^32, 100).
pub(crate) const ONE_PERCENT: u32 = 42_949_673;
const MAX_P_MIN: u32 = ONE_PERCENT;
const MAX_P_MAX: u32 = 50 * ONE_PERCENT;
const ADAPT_PERIOD: Duration = Duration::from_millis(500);

/// `red_parms`.
#[derive(Clone, Debug)]
pub(crate) struct LinuxParms {
    pub qth_min: u64,
    pub qth_max: u64,
    pub qth_delta: u32,
    pub max_p: u32,
    pub max_p_delta: u32,
    pub target_min: u64,
    pub target_max: u64,
    pub wlog: u32,
    pub scell_log: u32,
    /// Boxed: the table is read only when the queue was idle, and inline it would
    /// make every queue (`AnyAqm` is as large as its largest variant) 256 bytes larger.
    pub stab: Box<[u8; STAB_SIZE]>,
}

#[derive(Clone, Debug)]
pub(crate) struct LinuxRed {
    pub p: LinuxParms,
    hard: ForcedAction,
    adaptive: bool,
    mean_pkt: f64,
    /// `red_vars`.
    qcount: i64,
    q_r: u32,
    pub qavg: u64,
    idle_since: Option<Instant>,
    next_adapt: Instant,
}

impl LinuxRed {
    /// `cfg` must have passed validation (wq = 2^-Wlog, no gentle).
    pub(crate) fn new(cfg: &RedParams, hard: ForcedAction) -> Self {
        let wlog = wlog_of(cfg.wq).unwrap_or(0);
        let mean = f64::from(cfg.mean_pkt_bytes);
        let min_b = (cfg.min_th * mean).round() as u64;
        let max_b = (cfg.max_th * mean).round() as u64;
        let max_p = max_p_fixed(cfg.max_p);
        let (scell_log, stab) = idle_damping(wlog, cfg.mean_pkt_bytes, cfg.link_rate_bps);
        let p = set_parms(min_b, max_b, wlog, max_p, scell_log, stab);
        LinuxRed {
            p,
            hard,
            adaptive: cfg.adaptive,
            mean_pkt: mean,
            qcount: -1,
            q_r: 0,
            qavg: 0,
            idle_since: None,
            next_adapt: Instant::ZERO + ADAPT_PERIOD,
        }
    }

    fn random<R: RngCore + ?Sized>(&self, rng: &mut R) -> u32 {
        rng.next_u32() / self.p.max_p_delta
    }

    /// `red_action` for the updated average.
    fn action<R: RngCore + ?Sized>(&mut self, rng: &mut R) -> Verdict {
        if self.qavg < self.p.qth_min {
            self.qcount = -1;
            return Verdict::Pass;
        }
        if self.qavg >= self.p.qth_max {
            self.qcount = -1;
            return match self.hard {
                ForcedAction::Drop => Verdict::Drop(DropReason::Forced),
                ForcedAction::Signal => Verdict::Signal(SignalKind::Forced),
            };
        }
        self.qcount += 1;
        if self.qcount == 0 {
            self.q_r = self.random(rng);
            return Verdict::Pass;
        }
        let above = (self.qavg - self.p.qth_min) >> self.p.wlog;
        if above.saturating_mul(self.qcount as u64) >= u64::from(self.q_r) {
            self.qcount = 0;
            self.q_r = self.random(rng);
            return Verdict::Signal(SignalKind::Early);
        }
        Verdict::Pass
    }

    /// Runs the 500 ms adaptive timer for every period that ended by `now`.
    fn adapt_until(&mut self, now: Instant) {
        while self.adaptive && self.next_adapt <= now {
            let at = self.next_adapt;
            let qavg = match self.idle_since {
                Some(t) => qavg_from_idle(&self.p, self.qavg, at.saturating_since(t)),
                None => self.qavg,
            };
            adaptative_algo(&mut self.p, qavg);
            self.next_adapt = at + ADAPT_PERIOD;
        }
    }
}

impl Aqm for LinuxRed {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, _len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        self.adapt_until(now);
        self.qavg = match self.idle_since.take() {
            Some(t) => qavg_from_idle(&self.p, self.qavg, now.saturating_since(t)),
            None => qavg_no_idle(self.qavg, q.len_bytes, self.p.wlog),
        };
        self.action(rng)
    }

    fn on_idle(&mut self, now: Instant) {
        self.adapt_until(now);
        self.idle_since = Some(now);
    }

    fn avg_estimate(&self) -> Option<f64> {
        Some(self.qavg as f64 / (1u64 << self.p.wlog) as f64 / self.mean_pkt)
    }
}

/// Wlog with 2^-Wlog = wq exactly, 1 ≤ Wlog ≤ 31 (tc's range); `None` otherwise.
pub(crate) fn wlog_of(wq: f64) -> Option<u32> {
    (1..32).find(|&k| wq == 1.0 / (1u64 << k) as f64)
}

/// max_p as a 2^32-scaled u32 (tc: `probability * pow(2, 32)`), 1.0 saturating.
pub(crate) fn max_p_fixed(max_p: f64) -> u32 {
    (max_p * 4_294_967_296.0).min(f64::from(u32::MAX)) as u32
}

/// `red_set_parms` (thresholds in bytes).
pub(crate) fn set_parms(
    min_b: u64,
    max_b: u64,
    wlog: u32,
    max_p: u32,
    scell_log: u32,
    stab: [u8; STAB_SIZE],
) -> LinuxParms {
    let delta = u32::try_from(max_b.saturating_sub(min_b)).unwrap_or(u32::MAX).max(1);
    let fifth = u64::from(delta / 5);
    LinuxParms {
        qth_min: min_b << wlog,
        qth_max: max_b << wlog,
        qth_delta: delta,
        max_p,
        max_p_delta: (max_p / delta).max(1),
        target_min: min_b + 2 * fifth,
        target_max: min_b + 3 * fifth,
        wlog,
        scell_log,
        stab: Box::new(stab),
    }
}

/// `red_calc_qavg_no_idle_time`: qavg·(1−W) + backlog·W in Wlog fixed point.
pub(crate) fn qavg_no_idle(qavg: u64, backlog: u64, wlog: u32) -> u64 {
    qavg - (qavg >> wlog) + backlog
}

/// `red_calc_qavg_from_idle_time`: Stab shift, or the linear start of the decay.
pub(crate) fn qavg_from_idle(p: &LinuxParms, qavg: u64, idle: Duration) -> u64 {
    let scell_max = 255u64 << p.scell_log;
    let us = (idle.as_nanos() / 1000).min(scell_max);
    let shift = p.stab[((us >> p.scell_log) as usize) & (STAB_SIZE - 1)];
    if shift > 0 {
        return qavg >> shift;
    }
    let x = ((u128::from(qavg) * u128::from(us)) >> p.scell_log) as u64;
    if x < qavg >> 1 {
        qavg - x
    } else {
        qavg >> 1
    }
}

/// −ln(1 − w) = Σ w^k / k for w ≤ 1/2, 64 terms (error < 2^-64): no libm.
pub(crate) fn neg_ln_1m(w: f64) -> f64 {
    let (mut sum, mut pow) = (0.0, 1.0);
    for k in 1..=64 {
        pow *= w;
        sum += pow / f64::from(k);
    }
    sum
}

/// iproute2 `tc_red_eval_idle_damping`, in µs: (Scell_log, Stab).
pub(crate) fn idle_damping(wlog: u32, avpkt: u32, rate_bps: u64) -> (u32, [u8; STAB_SIZE]) {
    let mut stab = [0u8; STAB_SIZE];
    let w = 1.0 / (1u64 << wlog) as f64;
    let xmit_us = f64::from(avpkt) * 8.0 * 1e6 / rate_bps as f64;
    let lw = neg_ln_1m(w) / xmit_us;
    let maxtime = 31.0 / lw;
    let clog = (0..32).find(|&c| maxtime / ((1u64 << c) as f64) < 512.0).unwrap_or(31);
    for (i, s) in stab.iter_mut().enumerate().take(255).skip(1) {
        *s = (((i as u64) << clog) as f64 * lw).min(31.0) as u8;
    }
    stab[255] = 31;
    (clog, stab)
}

/// `red_adaptative_algo` (sch_red's 500 ms timer).
pub(crate) fn adaptative_algo(p: &mut LinuxParms, qavg_fixed: u64) {
    let qavg = qavg_fixed >> p.wlog;
    if qavg > p.target_max && p.max_p <= MAX_P_MAX {
        p.max_p += (p.max_p / 4).min(MAX_P_MIN);
    } else if qavg < p.target_min && p.max_p >= MAX_P_MIN {
        p.max_p = (p.max_p / 10) * 9;
    }
    let d = u64::from(p.qth_delta);
    p.max_p_delta = u32::try_from((u64::from(p.max_p) + d / 2) / d).unwrap_or(u32::MAX).max(1);
}

#[cfg(test)]
#[path = "linux_tests.rs"]
mod tests;

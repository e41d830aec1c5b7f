//! CoDel, Controlled Delay: decisions at dequeue on the head's sojourn time.
//!
//! Sources: RFC 8289 (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar,
//! "Controlled Delay Active Queue Management", 2018) §3–§5 and its
//! pseudo-code (Appendix / §5); Linux `include/net/codel.h` and
//! `include/net/codel_impl.h` (`codel_should_drop`, `codel_dequeue`,
//! `codel_Newton_step`, `codel_control_law`), `net/sched/sch_codel.c`; ns-3
//! `codel-queue-disc.cc`, which ports Linux's arithmetic, and its test suite.
//!
//! Per dequeue, on the head packet (sojourn `d = now − enqueue time`,
//! `backlog` = bytes queued *without* the head):
//!
//! ```text
//! should_drop:  d < target or backlog ≤ mtu_bytes   → first_above = 0, no
//!               first_above = 0                      → first_above = now + interval, no
//!               now > first_above (RFC: ≥)           → yes
//! dropping:     not should_drop                      → leave dropping state
//!               while dropping and now ≥ drop_next:
//!                   count += 1
//!                   signal the head: CE-marked → drop_next = law(drop_next), send it (stop)
//!                   dropped → next head: should_drop? drop_next = law(drop_next) : leave dropping
//! not dropping, should_drop:
//!               signal the head (dropped → evaluate the next head, which is sent)
//!               dropping = true
//!               delta = count − lastcount
//!               count = delta if delta > 1 and now − drop_next < 16·interval, else 1
//!               lastcount = count; drop_next = law(now)
//! law(t) = t + interval / √count
//! ce_threshold: the packet that leaves with d > ce_threshold is CE-marked if
//!               it is ECT (or already CE), whatever `ecn` (Linux); counted
//!               as a `MarkRule::Step` mark; a packet already marked by the
//!               control law in the same dequeue is not counted again (ns-3).
//! ```
//!
//! A signal is a CE mark when `ecn` is on and the packet is ECT, else a drop
//! (the host's `signal_head`, Linux's `params->ecn && INET_ECN_set_ce(skb)`);
//! its drop reason is `Early`. An empty queue at dequeue leaves the dropping
//! state. Arrivals always pass: the host's `limit_pkts`/`limit_bytes` drop on
//! overflow (Linux `codel_qdisc_enqueue`).
//!
//! | parameter        | default  | source                                   |
//! |------------------|----------|------------------------------------------|
//! | `target_ns`      | 5 ms     | RFC 8289 §4.4; Linux `codel_params_init` |
//! | `interval_ns`    | 100 ms   | RFC 8289 §4.3; Linux `codel_params_init` |
//! | `mtu_bytes`      | 1514     | RFC 8289 MAXPACKET; Linux `psched_mtu`   |
//! | `ecn`            | off      | Linux `sch_codel.c` (ns-3 `UseEcn` false) |
//! | `ce_threshold_ns`| disabled | Linux `CODEL_DISABLED_THRESHOLD`         |
//! | `limit_pkts`     | 1000     | Linux `sch_codel.c` `sch->limit`         |
//!
//! | where                 | `linux` (default; ns-3 the same)                    | `rfc` (RFC 8289 pseudo-code)       |
//! |-----------------------|-----------------------------------------------------|------------------------------------|
//! | clock                 | u32 count of 1024 ns (`ns >> 10`), wrap-safe signed compares | u64 ns                    |
//! | sojourn               | `(now >> 10) − (enqueue >> 10)`                     | `now − enqueue`                    |
//! | parameters            | `ns >> 10` (tc gives µs; `µs·1000 >> 10`)           | ns                                 |
//! | first drop            | `now > first_above` (`codel_time_after`)            | `now ≥ first_above`                |
//! | 1/√count              | `rec_inv_sqrt`: Q0.16, one Newton step per count change; 0xFFFF at count 1 | exact, f64         |
//! | law(t)                | `t + ((interval · (rec_inv_sqrt << 16)) >> 32)`     | `t + ⌊interval / √count⌋` ns       |
//! | empty queue           | dropping = false                                    | also first_above = 0 (`dodequeue`) |
//! | FQ-CoDel's `backlog`  | whole queue (`sch->qstats.backlog`)                 | the flow's sub-queue (RFC 8290 §4.2: CoDel per queue) |
//!
//! Personality `ns3` (ns-3 `codel-queue-disc.cc`, read at ns-3.37–3.4x) is
//! `linux` except where the differential replay against ns-3
//! (`python/ecnlab/bench/aqmdiff.py`, `tests/test_aqm_ns3.py`) showed it
//! differs: after a CE mark in the dropping state the next time is
//! `law(now)`, not `law(drop_next)`; the sojourn is `(now − enqueue) >> 10`
//! rather than a difference of two tick counts; no drop while the backlog is
//! *below* `mtu_bytes` (`MinBytes`; Linux: at most); `ce_threshold` applies only
//! with `ecn` on (`m_useEcn`); FQ-CoDel's `backlog` is the flow's own (each
//! flow is a child CoDel queue disc). With ECN off the two agree exactly.
//!
//! The per-queue state ([`CodelVars`]) and the per-dequeue decision
//! ([`codel_dequeue`]) are shared with FQ-CoDel (`fq_codel.rs`), which runs
//! them on each flow's sub-queue.

use ecnlab_wire::{Ecn, Instant};
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::{Backlog, MarkRule, Signalled};
use crate::config::{AqmPersonality, CodelParams};
use crate::error::{check_limits, ConfigError};
use crate::verdict::SignalKind;

/// Linux's codel clock: 1024 ns per tick (`CODEL_SHIFT`).
pub(crate) const CODEL_SHIFT: u32 = 10;
/// Bits of Linux's `rec_inv_sqrt` (`REC_INV_SQRT_BITS`) and the shift to Q0.32.
const REC_INV_SQRT_SHIFT: u32 = 32 - 16;
/// Largest time parameter the Linux clock compares correctly: 2^31 ticks.
const LINUX_MAX_NS: u64 = 1 << (31 + CODEL_SHIFT);

/// Which backlog the `backlog ≤ mtu` rule reads (module doc table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BacklogScope {
    /// Every sub-queue (Linux: the qdisc's backlog).
    Queue,
    /// The sub-queue CoDel runs on.
    Sub,
}

/// CoDel's parameters in the personality's time unit (Linux ticks or ns).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodelCfg {
    pub personality: AqmPersonality,
    pub target: u64,
    pub interval: u64,
    pub ce_threshold: Option<u64>,
    /// Linux `ce_threshold_selector`/`mask` as (value, mask) on the TOS byte.
    pub ce_selector: Option<(u8, u8)>,
    pub mtu: u64,
    pub scope: BacklogScope,
    /// The queue's ECN switch (ns-3 applies `ce_threshold` only with it); set by the caller.
    pub ecn: bool,
}

/// One CoDel instance's state (Linux `struct codel_vars`). Times are in the
/// personality's unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CodelVars {
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    /// 1/√count in Q0.16 (Linux only).
    pub rec_inv_sqrt: u16,
    /// 0: sojourn not above target.
    pub first_above_time: u64,
    pub drop_next: u64,
    /// Sojourn of the last head evaluated.
    pub ldelay: u64,
}

/// One Newton step of 1/√count in Linux's fixed point (Q0.16 stored, Q0.32 computed).
pub(crate) fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = u32::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = ((u64::from(invsqrt) * u64::from(invsqrt)) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(u64::from(count) * u64::from(invsqrt2));
    val >>= 2;
    val = val.wrapping_mul(u64::from(invsqrt)) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// Linux `reciprocal_scale`: `val · ep_ro / 2^32`.
pub(crate) fn reciprocal_scale(val: u32, ep_ro: u32) -> u32 {
    ((u64::from(val) * u64::from(ep_ro)) >> 32) as u32
}

/// Linux's control law in ticks: `t + interval · rec_inv_sqrt`, wrapping.
pub(crate) fn linux_control_law(t: u32, interval: u32, rec_inv_sqrt: u16) -> u32 {
    t.wrapping_add(reciprocal_scale(interval, u32::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT))
}

impl CodelCfg {
    /// From nanosecond parameters; Linux converts to ticks as tc's µs are (`ns >> 10`).
    pub(crate) fn new(
        personality: AqmPersonality,
        target_ns: u64,
        interval_ns: u64,
        ce_threshold_ns: Option<u64>,
        ce_selector: Option<(u8, u8)>,
        mtu_bytes: u32,
        scope: BacklogScope,
    ) -> Self {
        let unit = |ns: u64| match personality {
            AqmPersonality::Linux | AqmPersonality::Ns3 => u64::from((ns >> CODEL_SHIFT) as u32),
            AqmPersonality::Rfc => ns,
        };
        CodelCfg {
            personality,
            target: unit(target_ns),
            interval: unit(interval_ns),
            ce_threshold: ce_threshold_ns.map(unit),
            ce_selector: ce_selector.filter(|&(_, mask)| mask != 0),
            mtu: u64::from(mtu_bytes),
            scope,
            ecn: false,
        }
    }

    /// Linux's fixed point (ns-3 ports it).
    fn linux(&self) -> bool {
        matches!(self.personality, AqmPersonality::Linux | AqmPersonality::Ns3)
    }

    fn ns3(&self) -> bool {
        self.personality == AqmPersonality::Ns3
    }

    /// The head's sojourn in the clock's unit: Linux subtracts two tick
    /// counts, ns-3 converts the difference (`Time2CoDel(now − timestamp)`).
    fn sojourn(&self, now: Instant, since: Instant) -> u64 {
        if self.ns3() {
            u64::from((now.saturating_since(since).as_nanos() >> CODEL_SHIFT) as u32)
        } else {
            self.sub(self.clock(now), self.clock(since))
        }
    }

    /// The clock at `t`.
    pub(crate) fn clock(&self, t: Instant) -> u64 {
        if self.linux() {
            u64::from((t.as_nanos() >> CODEL_SHIFT) as u32)
        } else {
            t.as_nanos()
        }
    }

    fn add(&self, a: u64, b: u64) -> u64 {
        if self.linux() {
            u64::from((a as u32).wrapping_add(b as u32))
        } else {
            a.saturating_add(b)
        }
    }

    fn sub(&self, a: u64, b: u64) -> u64 {
        if self.linux() {
            u64::from((a as u32).wrapping_sub(b as u32))
        } else {
            a.wrapping_sub(b)
        }
    }

    /// `a − b` as a signed serial-number difference (Linux: s32).
    fn diff(&self, a: u64, b: u64) -> i64 {
        if self.linux() {
            i64::from((a as u32).wrapping_sub(b as u32) as i32)
        } else {
            a.wrapping_sub(b) as i64
        }
    }

    fn after(&self, a: u64, b: u64) -> bool {
        self.diff(a, b) > 0
    }

    fn after_eq(&self, a: u64, b: u64) -> bool {
        self.diff(a, b) >= 0
    }

    fn before(&self, a: u64, b: u64) -> bool {
        self.diff(b, a) > 0
    }

    /// `t + interval / √count`.
    pub(crate) fn control_law(&self, t: u64, v: &CodelVars) -> u64 {
        if self.linux() {
            u64::from(linux_control_law(t as u32, self.interval as u32, v.rec_inv_sqrt))
        } else {
            let step = self.interval as f64 / f64::from(v.count).sqrt();
            t.saturating_add(step as u64)
        }
    }

    /// `16 · interval`, wrapping as Linux's u32.
    fn sixteen_intervals(&self) -> u64 {
        if self.linux() {
            u64::from((self.interval as u32).wrapping_mul(16))
        } else {
            self.interval.saturating_mul(16)
        }
    }

    fn newton(&self, v: &mut CodelVars) {
        if self.linux() {
            v.rec_inv_sqrt = newton_step(v.rec_inv_sqrt, v.count);
        }
    }

    /// Whether `ce_threshold` applies to a packet with codepoint `ecn`: only
    /// the ECN bits of the TOS byte are known here (DSCP reads as 0).
    fn selected(&self, ecn: Ecn) -> bool {
        match self.ce_selector {
            Some((value, mask)) => ecn.bits() & mask == value,
            None => true,
        }
    }

    /// Bytes queued without the head of `sub`.
    fn backlog<B: Backlog>(&self, b: &B, sub: usize, head_len: u32) -> u64 {
        let all = match self.scope {
            BacklogScope::Queue => b.len_bytes(),
            BacklogScope::Sub => b.sub_len_bytes(sub),
        };
        all - u64::from(head_len)
    }

    /// Linux `codel_should_drop` / RFC `dodequeue`'s `ok_to_drop` for the head of `sub`.
    fn should_drop<B: Backlog>(&self, v: &mut CodelVars, now: Instant, b: &B, sub: usize) -> bool {
        let Some(h) = b.head(sub) else {
            v.first_above_time = 0;
            return false;
        };
        let t = self.clock(now);
        v.ldelay = self.sojourn(now, h.since);
        // Linux: no drop while backlog ≤ mtu; ns-3: while backlog < MinBytes.
        let backlog = self.backlog(b, sub, h.len);
        let small = if self.ns3() { backlog < self.mtu } else { backlog <= self.mtu };
        if self.before(v.ldelay, self.target) || small {
            v.first_above_time = 0;
            return false;
        }
        if v.first_above_time == 0 {
            v.first_above_time = self.add(t, self.interval);
            false
        } else if self.linux() {
            self.after(t, v.first_above_time)
        } else {
            self.after_eq(t, v.first_above_time)
        }
    }
}

/// CoDel's dequeue on sub-queue `sub` at `now` (module doc): drops or marks
/// heads through `b` and returns whether a head is left to send (`sub` is
/// then the sub-queue to pop).
pub(crate) fn codel_dequeue<B: Backlog>(
    cfg: &CodelCfg,
    v: &mut CodelVars,
    now: Instant,
    b: &mut B,
    sub: usize,
) -> bool {
    if b.sub_len_pkts(sub) == 0 {
        v.dropping = false;
        if !cfg.linux() {
            v.first_above_time = 0;
        }
        return false;
    }
    let t = cfg.clock(now);
    let drop = cfg.should_drop(v, now, b, sub);
    let mut marked = false;
    if v.dropping {
        if !drop {
            v.dropping = false;
        } else {
            while v.dropping && cfg.after_eq(t, v.drop_next) {
                v.count = v.count.wrapping_add(1);
                cfg.newton(v);
                if b.signal_head(sub, SignalKind::Early, MarkRule::Aqm) == Signalled::Marked {
                    // ns-3 restarts the law from now after a mark; Linux from drop_next.
                    v.drop_next = cfg.control_law(if cfg.ns3() { t } else { v.drop_next }, v);
                    marked = true;
                    break;
                }
                if cfg.should_drop(v, now, b, sub) {
                    v.drop_next = cfg.control_law(v.drop_next, v);
                } else {
                    v.dropping = false;
                }
            }
        }
    } else if drop {
        if b.signal_head(sub, SignalKind::Early, MarkRule::Aqm) == Signalled::Marked {
            marked = true;
        } else {
            // Evaluated for its side effects (first_above_time, ldelay); the
            // next head is sent whatever it says.
            cfg.should_drop(v, now, b, sub);
        }
        v.dropping = true;
        let delta = v.count.wrapping_sub(v.lastcount);
        if delta > 1 && cfg.before(cfg.sub(t, v.drop_next), cfg.sixteen_intervals()) {
            v.count = delta;
            cfg.newton(v);
        } else {
            v.count = 1;
            v.rec_inv_sqrt = u16::MAX;
        }
        v.lastcount = v.count;
        v.drop_next = cfg.control_law(t, v);
    }
    let Some(h) = b.head(sub) else { return false };
    if let Some(th) = cfg.ce_threshold {
        // ns-3 applies ce_threshold only with UseEcn; Linux whatever `ecn` is.
        if !marked && (cfg.ecn || !cfg.ns3()) && cfg.after(v.ldelay, th) && cfg.selected(h.ecn) {
            b.mark_head(sub, MarkRule::Step);
        }
    }
    true
}

/// CoDel on one FIFO (sub-queue 0).
#[derive(Clone, Debug)]
pub(crate) struct Codel {
    cfg: CodelCfg,
    vars: CodelVars,
}

impl Codel {
    pub(crate) fn new(p: &CodelParams) -> Self {
        let cfg = CodelCfg::new(
            p.personality,
            p.target_ns,
            p.interval_ns,
            p.ce_threshold_ns,
            None,
            p.mtu_bytes,
            BacklogScope::Queue,
        );
        let cfg = CodelCfg { ecn: p.ecn, ..cfg };
        Codel { cfg, vars: CodelVars::default() }
    }
}

/// The checks CoDel and FQ-CoDel share: times > 0 (and within Linux's clock), mtu ≥ 1.
pub(crate) fn validate_codel_times(
    personality: AqmPersonality,
    target_ns: u64,
    interval_ns: u64,
    ce_threshold_ns: Option<u64>,
    mtu_bytes: u32,
) -> Result<(), ConfigError> {
    let ce = ce_threshold_ns.map(|v| ("ce_threshold_ns", v));
    for (field, v) in [("target_ns", target_ns), ("interval_ns", interval_ns)].into_iter().chain(ce) {
        if v == 0 {
            return Err(ConfigError::new(field, v, "must be > 0"));
        }
        if personality != AqmPersonality::Rfc && v >= LINUX_MAX_NS {
            let rule = "must be < 2^41 ns for personality linux (a 32-bit signed count of 1024 ns)";
            return Err(ConfigError::new(field, v, rule));
        }
    }
    if target_ns > interval_ns {
        // RFC 8289 §4.3-4.4: the target is a small fraction (5-10 %) of the interval; above it a
        // standing queue would never be "persistent for an interval" before it exceeded the target.
        return Err(ConfigError::new("target_ns", target_ns, "must be <= interval_ns (RFC 8289 §4.3: 5-10 % of it)"));
    }
    if mtu_bytes < 1 {
        return Err(ConfigError::new("mtu_bytes", mtu_bytes, "must be >= 1"));
    }
    Ok(())
}

impl CodelParams {
    /// CoDel (`codel.rs`): limits as DropTail; `target_ns`, `interval_ns`,
    /// `ce_threshold_ns` > 0 (< 2^41 for personality linux), `target_ns` ≤ `interval_ns`;
    /// `mtu_bytes` ≥ 1.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        validate_codel_times(self.personality, self.target_ns, self.interval_ns, self.ce_threshold_ns, self.mtu_bytes)
    }
}

impl SchedAqm for Codel {
    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, _rng: &mut R) -> Option<usize> {
        codel_dequeue(&self.cfg, &mut self.vars, now, b, 0).then_some(0)
    }
}

#[cfg(test)]
#[path = "codel_tests.rs"]
pub(crate) mod tests;

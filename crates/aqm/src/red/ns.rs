//! RED as ns-2 and ns-3 define it (personalities `ns2` and `ns3`).
//!
//! Sources (read, not copied): ns-2.35 `queue/red.cc` (`REDQueue::enque`,
//! `estimator`, `calculate_p_new`, `modify_p`, `drop_early`) and ns-3
//! `src/traffic-control/model/red-queue-disc.cc` (`DoEnqueue`, `Estimator`,
//! `CalculatePNew`, `ModifyP`, `DropEarly`), a port of the ns-2 code. Both
//! differ from Floyd & Jacobson 1993 (`red.rs`) as follows:
//!
//! ```text
//! idle:        m = ⌊idle / s⌋ (s = time of a mean-size packet);  avg ← (1−wq)^(m+1)·avg + wq·q
//! every arrival: count += 1, count_bytes += len          (also below min_th)
//! if avg ≥ min_th and qlen > 1   (qlen before the arrival, in packets; bytes in byte mode):
//!     ns3 only: avg ≥ max_th (gentle: ≥ 2·max_th)  → forced: UseHardDrop (kind `red`) drops,
//!               otherwise (kind `red_star`) marks ECT; count is *not* reset (ns1_compat off)
//!     first arrival since crossing (old = 0)       → count = 1, old = 1, pass
//!     else p1 = max_p·(avg−min_th)/(max_th−min_th)        below max_th
//!               max_p + (1−max_p)·(avg−max_th)/max_th     gentle, above max_th (≤ 1)
//!               1                                         not gentle, above max_th
//!          c  = count   (byte mode: ⌊count_bytes / mean_pkt_bytes⌋)
//!          p  = F&J pa of (p1, c, wait);  byte mode and p < 1: p ← p·len/mean_pkt_bytes; p ≤ 1
//!          u ≤ p (one draw)                         → action, count = count_bytes = 0
//!             ns2: mark an ECT packet only if p1 < mark_p, else drop it (early)
//!             ns3: mark an ECT packet (drop Not-ECT)
//! else old = 0
//! ```
//!
//! ns-2's default `use_mark_p_ true` removes the forced region: an average
//! above max_th (2·max_th gentle) gives p1 = 1 and hence an early drop, since
//! 1 ≥ mark_p. This personality always applies the `mark_p` rule; `mark_p`
//! defaults to ns-2's 0.1. Drops are counted as ns-2 counts them: early.
//!
//! Known differences from the tools: the host drops on overflow *after* the AQM
//! (ns-2 also resets `count` on an overflow drop); for `ns3` the idle period
//! starts when the last packet leaves the queue (ns-3: when the link next asks
//! for a packet, one transmission time later; `ns2` follows ns-2 there); draws compare `u ≤ p` only when
//! p > 0, so p = 0 (the `wait` hold-off) never acts.

use ecnlab_wire::{Duration, Instant};
use rand::{Rng, RngCore};

use super::mrg::Mrg32k3a;
use super::{ewma, idle_decay, prob_act, Idle};
use crate::aqm::{Aqm, QueueView};
use crate::config::{RedMode, RedParams};
use crate::verdict::{DropReason, SignalKind, Verdict};

/// ns-2's default `mark_p_`.
pub(crate) const NS2_DEFAULT_MARK_P: f64 = 0.1;

/// Which of the two tools, with the option that differs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Flavour {
    /// ns-2: `mark_p` rule, no forced region.
    Ns2 { mark_p: f64 },
    /// ns-3: forced region drops (`UseHardDrop` true) or marks ECT.
    Ns3 { hard_drop: bool },
}

#[derive(Clone, Debug)]
pub(crate) struct NsRed {
    cfg: RedParams,
    flavour: Flavour,
    idle_tick: Duration,
    /// Average queue in packets (byte mode: mean packets, i.e. ns bytes / mean_pktsize).
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// ns `old`: the average was already above min_th at the previous arrival.
    old: bool,
    idle: Idle,
    /// `RedParams::ns2_rng_skip`: ns-2's own generator instead of the queue's stream.
    ns2_rng: Option<Mrg32k3a>,
    /// ns2: when the packet last dequeued left and its length; its
    /// transmission's end (idle starts then) is worked out at `on_idle` only.
    last_out: (Instant, u32),
}

impl NsRed {
    /// `cfg` must have passed validation.
    pub(crate) fn new(cfg: &RedParams, flavour: Flavour) -> Self {
        let idle_tick = Duration::transmission(u64::from(cfg.mean_pkt_bytes), cfg.link_rate_bps);
        NsRed {
            cfg: *cfg,
            flavour,
            idle_tick,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: Idle::Since(Instant::ZERO),
            ns2_rng: cfg.ns2_rng_skip.map(Mrg32k3a::ns2_default),
            last_out: (Instant::ZERO, 0),
        }
    }

    /// The current max_p (Adaptive RED changes it, `ared.rs`).
    pub(crate) fn max_p(&self) -> f64 {
        self.cfg.max_p
    }

    pub(crate) fn set_max_p(&mut self, max_p: f64) {
        self.cfg.max_p = max_p;
    }

    /// The average as the next arrival at `now` would see it before its own
    /// EWMA step: decayed over the idle time, if the queue is idle.
    pub(crate) fn avg_at(&self, now: Instant) -> f64 {
        match self.idle {
            Idle::Since(t) => idle_decay(self.avg, self.cfg.wq, now.saturating_since(t), self.idle_tick),
            Idle::Busy => self.avg,
        }
    }

    /// ns `estimator` with m idle "arrivals" (ns-2 `enque`, ns-3 `DoEnqueue`).
    fn update_avg(&mut self, now: Instant, q: &QueueView) {
        if let Idle::Since(t) = self.idle {
            self.avg = idle_decay(self.avg, self.cfg.wq, now.saturating_since(t), self.idle_tick);
            self.idle = Idle::Busy;
        }
        let qsize = match self.cfg.mode {
            RedMode::Packet => f64::from(q.len_pkts),
            RedMode::Byte => q.len_bytes as f64 / f64::from(self.cfg.mean_pkt_bytes),
        };
        self.avg = ewma(self.avg, qsize, self.cfg.wq);
    }

    /// `qlen > 1` in the queue's own unit (packets, or bytes in byte mode).
    fn more_than_one(&self, q: &QueueView) -> bool {
        match self.cfg.mode {
            RedMode::Packet => q.len_pkts > 1,
            RedMode::Byte => q.len_bytes > 1,
        }
    }

    fn forced_region(&self) -> bool {
        let top = if self.cfg.gentle { 2.0 * self.cfg.max_th } else { self.cfg.max_th };
        matches!(self.flavour, Flavour::Ns3 { .. }) && self.avg >= top
    }

    /// ns `drop_early` / `DropEarly`: one draw, action iff u ≤ p.
    fn early<R: RngCore + ?Sized>(&mut self, len: u32, rng: &mut R) -> Verdict {
        let p1 = ns_prob(&self.cfg, self.avg);
        let p = self.modify_p(p1, len);
        let u: f64 = match self.ns2_rng.as_mut() {
            Some(g) => g.u01(),
            None => rng.random(),
        };
        if !(p > 0.0 && u <= p) {
            return Verdict::Pass;
        }
        self.count = 0;
        self.count_bytes = 0;
        match self.flavour {
            Flavour::Ns2 { mark_p } if p1 >= mark_p => Verdict::Drop(DropReason::Early),
            _ => Verdict::Signal(SignalKind::Early),
        }
    }

    /// ns `modify_p`: F&J spacing by count (mean packets in byte mode), then size scaling.
    fn modify_p(&self, p1: f64, len: u32) -> f64 {
        let mean = u64::from(self.cfg.mean_pkt_bytes);
        let count = match self.cfg.mode {
            RedMode::Packet => self.count,
            RedMode::Byte => self.count_bytes / mean,
        };
        let p = prob_act(p1, count, self.cfg.wait);
        match self.cfg.mode {
            RedMode::Byte if p < 1.0 => (p * f64::from(len) / mean as f64).min(1.0),
            _ => p,
        }
    }

    fn forced(&mut self) -> Verdict {
        match self.flavour {
            Flavour::Ns3 { hard_drop: true } | Flavour::Ns2 { .. } => Verdict::Drop(DropReason::Forced),
            Flavour::Ns3 { hard_drop: false } => Verdict::Signal(SignalKind::Forced),
        }
    }
}

impl Aqm for NsRed {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        self.update_avg(now, q);
        self.count += 1;
        self.count_bytes += u64::from(len);
        if !(self.avg >= self.cfg.min_th && self.more_than_one(q)) {
            self.old = false;
            return Verdict::Pass;
        }
        if self.forced_region() {
            return self.forced();
        }
        if !self.old {
            self.old = true;
            self.count = 1;
            self.count_bytes = u64::from(len);
            return Verdict::Pass;
        }
        self.early(len, rng)
    }

    /// ns-2 `REDQueue::deque` marks the queue idle when the link asks for a
    /// packet and finds none: at the end of the last packet's transmission, not
    /// when it left the queue (ns-3 and F&J: when it left).
    fn on_dequeue(&mut self, now: Instant, _sojourn: Duration, len: u32, _q: &QueueView) {
        if matches!(self.flavour, Flavour::Ns2 { .. }) {
            self.last_out = (now, len);
        }
    }

    fn on_idle(&mut self, now: Instant) {
        // Only ns2 records a departure (len > 0); a zero-length one would end at `out` ≤ now.
        let since = match self.last_out {
            (out, len) if len > 0 => now.max(out + Duration::transmission(u64::from(len), self.cfg.link_rate_bps)),
            _ => now,
        };
        self.idle = Idle::Since(since);
    }

    fn avg_estimate(&self) -> Option<f64> {
        Some(self.avg)
    }
}

/// ns `calculate_p_new` (no adaptation: cur_max_p = max_p).
pub(crate) fn ns_prob(cfg: &RedParams, avg: f64) -> f64 {
    let p = if avg >= cfg.max_th {
        if cfg.gentle {
            cfg.max_p + (1.0 - cfg.max_p) * (avg - cfg.max_th) / cfg.max_th
        } else {
            1.0
        }
    } else {
        cfg.max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th)
    };
    p.min(1.0)
}

#[cfg(test)]
#[path = "ns_tests.rs"]
mod tests;

//! RED, Random Early Detection, with the gentle, wait and byte-mode variants
//! and RED* (forced region marks instead of drops).
//!
//! Sources:
//! - S. Floyd and V. Jacobson, "Random Early Detection Gateways for Congestion
//!   Avoidance", IEEE/ACM ToN 1(4), 1993: §4 and Fig. 2 (the algorithm), §4
//!   "byte mode", §6/§11 (queue-size estimate and idle time), §7 ("uniform"
//!   spacing of marks by `count`).
//! - S. Floyd, "Recommendation on using the gentle_ variant of RED", 2000
//!   (gentle region between `max_th` and `2·max_th`).
//! - ns-2 `queue/red.cc` behaviour: the `wait_` option, probability scaled by
//!   packet size in byte mode, idle decay by the transmission time of a
//!   mean-size packet.
//! - A. Kuzmanovic, "The Power of Explicit Congestion Notification",
//!   SIGCOMM 2005 (RED*: mark ECT packets in the forced region); Linux
//!   `tc red ecn` without `harddrop`.
//!
//! Formulas (q = instantaneous queue in packets, or bytes / `mean_pkt_bytes`
//! in byte mode; measured *before* the arriving packet is added):
//!
//! ```text
//! idle (queue empty since q_time):  m = floor((now - q_time) / s),
//!                                   s = transmission time of mean_pkt_bytes at link_rate_bps
//!                                   avg <- (1 - wq)^m * avg          (integer-exponent squaring)
//! every arrival:                    avg <- (1 - wq) * avg + wq * q
//! avg <  min_th:                    pass, count <- -1
//! min_th <= avg < max_th:           count += 1, pb = max_p (avg - min_th) / (max_th - min_th)
//! gentle, max_th <= avg < 2 max_th: count += 1, pb = max_p + (1 - max_p) (avg - max_th) / max_th
//!   byte mode:                      pb <- pb * len / mean_pkt_bytes
//!   no wait:                        pa = pb / (1 - count pb), or 1 if count pb >= 1
//!   wait (ns-2 wait_):              pa = 0 if count pb < 1; pb / (2 - count pb) if < 2; else 1
//!   with probability pa:            early signal, count <- 0
//! otherwise (forced region):        count <- 0; RED: drop; RED*: forced signal
//! ```
//!
//! `count` follows Fig. 2: it is incremented *before* `pa` is computed and
//! reset to 0 by an early or forced action, so it counts packets since the last
//! action including the arriving one; −1 (here `None`) means the average was
//! below `min_th`. With a fixed `pb` = 1/N this spaces early actions uniformly
//! over {1, …, N−1} packets (mean N/2) without `wait`, and over {N, …, 2N−1}
//! with `wait`.
//!
//! Exactly one uniform draw (`rng.random::<f64>()`, in [0, 1)) is taken per
//! arrival in the early or gentle region and none elsewhere, so the RNG stream
//! consumption depends only on the regions visited; signal iff draw < pa.
//!
//! Idle time: the host reports an empty queue through `on_idle` (after the
//! dequeue that empties it, and after an arrival that was dropped while it was
//! empty); the next arrival decays the average over the idle time and then
//! applies the ordinary EWMA step with q = 0 (so an idle period costs m + 1
//! factors of 1 − wq, as in ns-2).
//!
//! Parameters (see `config::RedParams`): `min_th`, `max_th` in packets (mean
//! packets in byte mode), `0 <= min_th < max_th`; `max_p`, `wq` in (0, 1];
//! `mean_pkt_bytes >= 1` bytes; `link_rate_bps >= 1` bit/s.
//!
//! No libm transcendental is used: results are bit-identical across machines.
//!
//! This file is the `floyd93` personality; `red/ns.rs` (`ns2`, `ns3`) and
//! `red/linux.rs` (`linux`) follow the tools. Differences from ns-2 `red.cc`
//! that the `ns2` personality has: ns-2 never drops early while the instantaneous queue is ≤ 1 packet,
//! never drops the first packet after the average crosses `min_th` (its `old`
//! flag), counts `count` in mean-size packets in byte mode, averages raw bytes
//! in byte mode, and signals on `u <= pa` rather than `u < pa`.

use ecnlab_wire::{Duration, Instant};
use rand::{Rng, RngCore};

use crate::aqm::{Aqm, QueueView};
use crate::config::{RedMode, RedParams};
use crate::verdict::{DropReason, SignalKind, Verdict};

/// What the forced region does: RED drops, RED* signals (mark ECT, drop Not-ECT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForcedAction {
    Drop,
    Signal,
}

/// Configuration plus values precomputed from it (Linux `red_parms`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RedParms {
    pub cfg: RedParams,
    pub forced: ForcedAction,
    /// `s`: transmission time of a `mean_pkt_bytes` packet (≥ 1 ns).
    pub idle_tick: Duration,
    pub mean_pkt: f64,
}

/// Whether the queue is idle, and since when (F&J `q_time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idle {
    Busy,
    Since(Instant),
}

/// Run-time state (Linux `red_vars`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RedVars {
    /// EWMA of the queue, in packets (mean packets in byte mode).
    pub avg: f64,
    /// F&J `count`; `None` is the paper's −1 (average below `min_th`).
    pub count: Option<u64>,
    pub idle: Idle,
}

/// Decisions taken (Linux `red_stats`); the host counts marks and drops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RedStats {
    pub early_signals: u64,
    pub forced_signals: u64,
    pub forced_drops: u64,
}

/// Where the average lies (F&J Fig. 2 plus the gentle region).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    Below,
    Early,
    Gentle,
    Forced,
}

#[derive(Clone, Debug)]
pub(crate) struct Red {
    pub p: RedParms,
    pub v: RedVars,
    pub s: RedStats,
}

impl Red {
    /// `cfg` must have passed `RedParams::validate`.
    pub(crate) fn new(cfg: &RedParams, forced: ForcedAction) -> Self {
        let idle_tick = Duration::transmission(u64::from(cfg.mean_pkt_bytes), cfg.link_rate_bps);
        let p = RedParms { cfg: *cfg, forced, idle_tick, mean_pkt: f64::from(cfg.mean_pkt_bytes) };
        let v = RedVars { avg: 0.0, count: None, idle: Idle::Since(Instant::ZERO) };
        Red { p, v, s: RedStats::default() }
    }

    /// q as RED measures it: packets, or bytes / mean packet size (F&J §4 byte mode).
    fn queue_size(&self, q: &QueueView) -> f64 {
        match self.p.cfg.mode {
            RedMode::Packet => f64::from(q.len_pkts),
            RedMode::Byte => q.len_bytes as f64 / self.p.mean_pkt,
        }
    }

    /// F&J Fig. 2 "calculate the average queue size", idle decay first.
    fn update_avg(&mut self, now: Instant, q: f64) {
        let wq = self.p.cfg.wq;
        if let Idle::Since(t) = self.v.idle {
            self.v.avg = idle_decay(self.v.avg, wq, now.saturating_since(t), self.p.idle_tick);
            self.v.idle = Idle::Busy;
        }
        self.v.avg = ewma(self.v.avg, q, wq);
    }

    fn region(&self) -> Region {
        region(&self.p.cfg, self.v.avg)
    }

    /// Early or gentle region: count, pb, pa and one draw (F&J Fig. 2, §7).
    fn probabilistic<R: RngCore + ?Sized>(&mut self, len: u32, rng: &mut R) -> Verdict {
        let count = self.v.count.map_or(0, |c| c.saturating_add(1));
        let pb = prob_base(&self.p.cfg, self.v.avg, len);
        let pa = prob_act(pb, count, self.p.cfg.wait);
        let u: f64 = rng.random();
        if u < pa {
            self.v.count = Some(0);
            self.s.early_signals += 1;
            Verdict::Signal(SignalKind::Early)
        } else {
            self.v.count = Some(count);
            Verdict::Pass
        }
    }

    fn forced(&mut self) -> Verdict {
        self.v.count = Some(0);
        match self.p.forced {
            ForcedAction::Drop => {
                self.s.forced_drops += 1;
                Verdict::Drop(DropReason::Forced)
            }
            ForcedAction::Signal => {
                self.s.forced_signals += 1;
                Verdict::Signal(SignalKind::Forced)
            }
        }
    }
}

impl Aqm for Red {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, now: Instant, len: u32, q: &QueueView, rng: &mut R) -> Verdict {
        let qsize = self.queue_size(q);
        self.update_avg(now, qsize);
        match self.region() {
            Region::Below => {
                self.v.count = None;
                Verdict::Pass
            }
            Region::Early | Region::Gentle => self.probabilistic(len, rng),
            Region::Forced => self.forced(),
        }
    }

    fn on_idle(&mut self, now: Instant) {
        self.v.idle = Idle::Since(now);
    }

    fn avg_estimate(&self) -> Option<f64> {
        Some(self.v.avg)
    }
}

/// F&J Fig. 2: avg ← (1 − wq)·avg + wq·q, written as in the paper.
pub(crate) fn ewma(avg: f64, q: f64, wq: f64) -> f64 {
    (1.0 - wq) * avg + wq * q
}

/// F&J Fig. 2 idle branch: m = ⌊idle / s⌋, avg ← (1 − wq)^m · avg.
pub(crate) fn idle_decay(avg: f64, wq: f64, idle: Duration, tick: Duration) -> f64 {
    let m = idle.as_nanos() / tick.as_nanos().max(1);
    avg * pow_int(1.0 - wq, m)
}

/// `base^m` by binary exponentiation: at most 64 squarings, no libm.
pub(crate) fn pow_int(mut base: f64, mut m: u64) -> f64 {
    let mut acc = 1.0;
    while m > 0 {
        if m & 1 == 1 {
            acc *= base;
        }
        base *= base;
        m >>= 1;
    }
    acc
}

pub(crate) fn region(cfg: &RedParams, avg: f64) -> Region {
    if avg < cfg.min_th {
        Region::Below
    } else if avg < cfg.max_th {
        Region::Early
    } else if cfg.gentle && avg < 2.0 * cfg.max_th {
        Region::Gentle
    } else {
        Region::Forced
    }
}

/// pb for an average in the early or gentle region, scaled by size in byte mode.
pub(crate) fn prob_base(cfg: &RedParams, avg: f64, len: u32) -> f64 {
    let pb = if avg < cfg.max_th {
        cfg.max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th)
    } else {
        cfg.max_p + (1.0 - cfg.max_p) * (avg - cfg.max_th) / cfg.max_th
    };
    match cfg.mode {
        RedMode::Packet => pb,
        RedMode::Byte => pb * f64::from(len) / f64::from(cfg.mean_pkt_bytes),
    }
}

/// pa from pb and `count` (F&J §7; ns-2 `wait_`), clamped to [0, 1].
pub(crate) fn prob_act(pb: f64, count: u64, wait: bool) -> f64 {
    let cp = count as f64 * pb;
    let pa = match (wait, cp) {
        (false, cp) if cp < 1.0 => pb / (1.0 - cp),
        (false, _) => 1.0,
        (true, cp) if cp < 1.0 => 0.0,
        (true, cp) if cp < 2.0 => pb / (2.0 - cp),
        (true, _) => 1.0,
    };
    pa.clamp(0.0, 1.0)
}

pub(crate) mod linux;
pub(crate) mod mrg;
pub(crate) mod ns;

#[cfg(test)]
mod tests;

//! CUBIC as Linux computes it (`net/ipv4/tcp_cubic.c`, kernel 6.18): `tcp.cubic_arith = "linux"`,
//! the `linux` personality's choice. `cubic.rs` is RFC 9438 in real numbers; this file is the
//! same curve in Linux's integer arithmetic, which moves the window by whole segments at
//! different moments. Windows and counts in whole segments (Linux's `snd_cwnd`), time in
//! jiffies and in 2⁻¹⁰ s.
//!
//! | quantity | Linux | here |
//! |---|---|---|
//! | epoch clock | `tcp_jiffies32`, HZ = 250 (Debian's `CONFIG_HZ`, this machine's kernel) | ⌊now / 4 ms⌋ |
//! | update clock | `tp->tcp_mstamp`, µs (`last_time` since Linux 6.11, "tcp_cubic: switch ca->last_time to usec resolution") | ⌊now / 1 µs⌋ |
//! | C | `bic_scale` 41: cube_rtt_scale = 410, cube_factor = ⌊2⁴⁰/410⌋ (C = 410/1024 ≈ 0.4004) | the same |
//! | β | `beta` 717 / 1024 | the same; ABE's β_ecn (RFC 8511, not in Linux) as 870/1024 |
//! | K | `cubic_root(cube_factor·(W_max − cwnd))`, 2⁻¹⁰ s (a table and one Newton step, avg. error 0.2 %) | ⌊∛·⌋ exactly |
//! | RTT in the curve | `delay_min`, the least ACK RTT sample (µs), none within 1 s after an epoch starts | the same, from the ACK's RTT sample |
//!
//! Per ACK of new data in congestion avoidance (`cubictcp_cong_avoid` → `bictcp_update`,
//! `tcp_cong_avoid_ai`), `acked` in segments:
//! - ack_cnt += acked; when cwnd is unchanged since the last update and at most 1/32 s has
//!   passed, cnt stays; less than 1 ms after the last update only the Reno estimate moves.
//! - A new epoch (the first update after a reduction): epoch_start = now, ack_cnt = acked,
//!   tcp_cwnd = cwnd; K = 0 and origin = cwnd when W_max ≤ cwnd, else K as above and
//!   origin = W_max.
//! - t = (jiffies since epoch_start + ⌈delay_min⌉ jiffies)·2¹⁰/HZ; offs = |t − K|;
//!   δ = ⌊410·offs³ / 2⁴⁰⌋ segments; target = origin ∓ δ (below K: minus). The target is a whole
//!   number of segments, so it reaches origin as soon as C·(K − t)³ < 1, up to ∛(1/C) ≈ 1.36 s
//!   before K: the window regains W_max earlier than RFC 9438's real-valued curve.
//! - cnt = ⌊cwnd / (target − cwnd)⌋ ACKed segments per +1, or 100·cwnd when target ≤ cwnd;
//!   at most 20 before the first reduction (W_max = 0).
//! - Reno-friendly: tcp_cwnd += 1 per ⌊15·cwnd/8⌋ segments acked (beta_scale = 15, α ≈ 0.53
//!   per RTT, never 1 as RFC 9438 §4.3 has it past cwnd_prior); when tcp_cwnd > cwnd,
//!   cnt ≤ ⌊cwnd / (tcp_cwnd − cwnd)⌋. Then cnt ≥ 2.
//! - `tcp_cong_avoid_ai(cnt, acked)`: credits of ACKed segments; +1 segment per cnt of them
//!   (credits left from a larger cnt first give +1 and are dropped).
//!
//! Slow start (`tcp_slow_start`): cwnd = min(cwnd + acked, ssthresh); segments acked beyond
//! ssthresh go on into congestion avoidance on the same ACK.
//!
//! A reduction (`cubictcp_recalc_ssthresh`): the epoch ends; W_max = ⌊cwnd·(1024 + 717)/2048⌋
//! when cwnd < W_max (fast convergence, whole segments: an equal cwnd does not trigger it),
//! else cwnd; ssthresh = max(⌊basis·717/1024⌋, 2) with basis the window the personality
//! halves (`ssthresh_basis`; Linux: cwnd); the segment credits are cleared
//! (`tcp_init_cwnd_reduction`). A timeout then clears everything, delay_min and W_max included
//! (`cubictcp_state` → `bictcp_reset` on TCP_CA_Loss).
//!
//! Not modelled: `cwnd_event(CA_EVENT_TX_START)`, which shifts the epoch over idle time (bulk
//! senders are never idle); `tcp_is_cwnd_limited` (the engine grows cwnd on every ACK of new
//! data, as elsewhere).

use super::{Congestion, Feedback};
use crate::window::{Window, CWND_MAX};
use ecnlab_wire::Instant;

/// `CONFIG_HZ` (Debian's kernels, and this machine's 6.18: `CONFIG_HZ_250`).
pub(crate) const HZ: u64 = 250;
const JIFFY_NS: u64 = 1_000_000_000 / HZ;
/// `BICTCP_HZ`: K and t in 2⁻¹⁰ s.
const BICTCP_HZ: u32 = 10;
/// `bic_scale * 10`.
const CUBE_RTT_SCALE: u64 = 41 * 10;
/// 2^(10 + 3·BICTCP_HZ) / (bic_scale·10).
const CUBE_FACTOR: u64 = (1 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
const BETA_SCALE: u64 = 1024;
const BETA: u64 = 717;
/// RFC 8511's β_ecn = 0.85 in the same scale (ABE is not in Linux's CUBIC).
const BETA_ECN: u64 = 870;
/// `beta_scale` = 8·(1024 + 717)/3/(1024 − 717), in integer steps as Linux computes it.
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);

/// Linux's `struct bictcp` (the CUBIC part) and `snd_cwnd_cnt`.
#[derive(Clone, Debug, Default)]
pub(crate) struct LinuxCubic {
    /// ACKed segments per +1 segment of cwnd.
    cnt: u32,
    /// W_max, segments (0: no reduction yet).
    last_max_cwnd: u32,
    last_cwnd: u32,
    /// When `cnt` was last updated, µs.
    last_time_us: u64,
    origin: u32,
    /// K, 2⁻¹⁰ s.
    k: u64,
    /// Least RTT sample, µs (0: none).
    delay_min_us: u64,
    epoch_start: Option<u64>,
    /// Segments acked in this epoch not yet turned into Reno-estimate segments.
    ack_cnt: u32,
    /// The Reno estimate, segments.
    tcp_cwnd: u32,
    /// `tp->snd_cwnd_cnt`: ACKed segments credited towards the next +1.
    cwnd_cnt: u32,
}

fn jiffies(now: Instant) -> u64 {
    now.as_nanos() / JIFFY_NS
}

fn micros(now: Instant) -> u64 {
    now.as_nanos() / 1000
}

/// ⌊∛a⌋ (Linux's `cubic_root` approximates it within about 0.2 %).
fn icbrt(a: u64) -> u64 {
    let mut x = super::cubic::cbrt(a as f64) as u64;
    let cube = |y: u64| u128::from(y).pow(3);
    while x > 0 && cube(x) > u128::from(a) {
        x -= 1;
    }
    while cube(x + 1) <= u128::from(a) {
        x += 1;
    }
    x
}

impl LinuxCubic {
    /// `bictcp_acked`: the least RTT, except within a second (HZ jiffies) of an epoch's start.
    pub(crate) fn on_feedback(&mut self, fb: &Feedback) {
        let Some(rtt) = fb.ack_rtt.or(fb.rtt) else { return };
        if self.epoch_start.is_some_and(|e| jiffies(fb.now).saturating_sub(e) < HZ) {
            return;
        }
        let us = (rtt.as_nanos() / 1000).max(1);
        if self.delay_min_us == 0 || us < self.delay_min_us {
            self.delay_min_us = us;
        }
    }

    /// `tcp_slow_start`: grow to at most ssthresh; returns the segments left for avoidance.
    pub(crate) fn slow_start(w: &mut Window, acked: u32) -> u32 {
        let (cwnd, ssthresh) = (w.cwnd / w.mss, (w.ssthresh / w.mss).max(1));
        let next = (cwnd.saturating_add(acked)).min(ssthresh).max(cwnd);
        set_cwnd(w, next);
        acked - (next - cwnd).min(acked)
    }

    /// `bictcp_update` then `tcp_cong_avoid_ai`, for `acked` segments.
    pub(crate) fn congestion_avoidance(&mut self, w: &mut Window, now: Instant, acked: u32) {
        let cwnd = w.cwnd / w.mss;
        self.update(cwnd, acked, now);
        let w_ai = self.cnt.max(1);
        let mut next = cwnd;
        if self.cwnd_cnt >= w_ai {
            self.cwnd_cnt = 0;
            next += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w_ai {
            let d = self.cwnd_cnt / w_ai;
            self.cwnd_cnt -= d * w_ai;
            next += d;
        }
        if next != cwnd {
            set_cwnd(w, next);
        }
    }

    fn update(&mut self, cwnd: u32, acked: u32, now: Instant) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let since = micros(now).saturating_sub(self.last_time_us);
        if self.last_cwnd == cwnd && since <= 1_000_000 / 32 {
            return;
        }
        if !(self.epoch_start.is_some() && since < 1000) {
            self.last_cwnd = cwnd;
            self.last_time_us = micros(now);
            let j = jiffies(now);
            let start = match self.epoch_start {
                Some(s) => s,
                None => self.start_epoch(cwnd, acked, j),
            };
            self.cnt = self.cubic_cnt(cwnd, j - start);
        }
        self.reno_friendly(cwnd);
        self.cnt = self.cnt.max(2);
    }

    fn start_epoch(&mut self, cwnd: u32, acked: u32, now: u64) -> u64 {
        self.epoch_start = Some(now);
        self.ack_cnt = acked;
        self.tcp_cwnd = cwnd;
        if self.last_max_cwnd <= cwnd {
            self.k = 0;
            self.origin = cwnd;
        } else {
            self.k = icbrt(CUBE_FACTOR * u64::from(self.last_max_cwnd - cwnd));
            self.origin = self.last_max_cwnd;
        }
        now
    }

    /// cnt from the cubic target one `delay_min` ahead, `elapsed` jiffies into the epoch.
    fn cubic_cnt(&self, cwnd: u32, elapsed: u64) -> u32 {
        let delay_jiffies = (self.delay_min_us * HZ).div_ceil(1_000_000); // usecs_to_jiffies
        let t = ((elapsed + delay_jiffies) << BICTCP_HZ) / HZ;
        let offs = u128::from(t.abs_diff(self.k));
        let delta = (u128::from(CUBE_RTT_SCALE) * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
        let delta = delta.min(u128::from(u32::MAX)) as u32;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
        let cnt = if target > cwnd { cwnd / (target - cwnd) } else { cwnd.saturating_mul(100) };
        if self.last_max_cwnd == 0 {
            cnt.min(20) // "increase cwnd 5% per RTT" before the first reduction
        } else {
            cnt
        }
    }

    /// The Reno estimate: +1 segment per ⌊15·cwnd/8⌋ acked; it caps cnt when ahead.
    fn reno_friendly(&mut self, cwnd: u32) {
        let per = ((u64::from(cwnd) * FRIENDLY_SCALE) >> 3).max(1) as u32;
        if self.ack_cnt > per {
            let n = (self.ack_cnt - 1) / per;
            self.ack_cnt -= n * per;
            self.tcp_cwnd = self.tcp_cwnd.saturating_add(n);
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
    }

    /// `cubictcp_recalc_ssthresh` (and `bictcp_reset` after a timeout): the new ssthresh, bytes.
    pub(crate) fn ssthresh(&mut self, w: &Window, kind: Congestion, basis: u64, abe: bool) -> u32 {
        let mss = w.mss;
        let cwnd = w.cwnd / mss;
        self.epoch_start = None;
        self.cwnd_cnt = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd {
            ((u64::from(cwnd) * (BETA_SCALE + BETA)) / (2 * BETA_SCALE)) as u32
        } else {
            cwnd
        };
        let beta = if abe && kind == Congestion::Ecn { BETA_ECN } else { BETA };
        let segments = ((basis / u64::from(mss)) * beta / BETA_SCALE).max(2);
        if kind == Congestion::Timeout {
            *self = LinuxCubic::default();
        }
        (segments * u64::from(mss)).min(u64::from(CWND_MAX)) as u32
    }

    /// W_max in segments (0: none yet).
    #[cfg(test)]
    pub(crate) fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }

    /// W_max and the epoch's start (its jiffy's beginning), for the time series.
    pub(crate) fn state(&self) -> (f64, Option<Instant>) {
        let epoch_start = self.epoch_start.map(|j| Instant::from_nanos(j * JIFFY_NS));
        (f64::from(self.last_max_cwnd), epoch_start)
    }
}

fn set_cwnd(w: &mut Window, segments: u32) {
    w.cwnd = (u64::from(segments) * u64::from(w.mss)).min(u64::from(CWND_MAX)) as u32;
}

#[cfg(test)]
#[path = "cubic_linux_tests.rs"]
mod tests;

//! Reno / AIMD congestion control (RFC 5681 §3.1).
//!
//! Growth on an ACK of new data that acknowledges N bytes, integer arithmetic,
//! by `TcpConfig::abc` (L):
//!
//! | | slow start (cwnd < ssthresh) | congestion avoidance |
//! |---|---|---|
//! | L = 0, per ACK (ns-2) | cwnd += SMSS | cwnd += max(1, SMSS·SMSS / cwnd) (RFC 5681 eq. 3) |
//! | L ≥ 1, byte counting (RFC 3465) | cwnd += min(N, L·SMSS) (§2.2) | bytes_acked += N; when bytes_acked ≥ cwnd: bytes_acked −= cwnd, cwnd += SMSS (§2.1) |
//!
//! bytes_acked restarts from 0 at every congestion event (RFC 3465 §2.1
//! resets it when cwnd is reduced).
//!
//! `growth_arith = "linux"` (the `linux` personality): `tcp_reno_cong_avoid`.
//! N is the data the ACK newly delivered (recovery.rs); slow start is
//! `tcp_slow_start`, cwnd = min(cwnd + N, ssthresh) with no L, and what is
//! left of N goes on into congestion avoidance on the same ACK
//! (`tcp_cong_avoid_ai`: bytes_acked += rest; while bytes_acked ≥ W, W the
//! window before this ACK: cwnd += SMSS, bytes_acked −= W).
//!
//! With `window_arith = ns2` and L = 0 the avoidance step is ns-2.35's
//! `opencwnd()` on a double: cwnd += SMSS²/cwnd with the fraction of a byte
//! carried to the next ACK (`frac`), so many small steps add up as ns-2's do.
//!
//! Reduction, for every kind of congestion event:
//! ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4), FlightSize taken
//! after the ACK that triggered it was applied. With ABE (`abe`, RFC 8511 §3.1:
//! "a value of beta_{ecn}=0.8" for standard TCP) an ECN-Echo leaves
//! max(FlightSize·4/5, 2·SMSS) instead.

use super::{Ack, Congestion, CongestionControl};
use crate::config::{GrowthArith, TcpConfig, WindowArith};
use crate::window::{Window, CWND_MAX};

#[derive(Clone, Debug, Default)]
pub(crate) struct Reno {
    /// RFC 3465 L, segments; 0: growth per ACK.
    abc: u32,
    /// RFC 3465 bytes_acked, congestion avoidance.
    bytes_acked: u64,
    /// RFC 8511: β_ecn = 0.8 for ECN-Echo reductions.
    abe: bool,
    /// `window_arith = ns2`: cwnd is real-valued; `frac` is the part below one
    /// byte, valid while cwnd is still `frac_of` (any other change resets it).
    exact: bool,
    frac: f64,
    frac_of: u32,
    /// `growth_arith = linux` (module doc).
    linux: bool,
}

impl Reno {
    pub(crate) fn new(cfg: &TcpConfig) -> Self {
        Reno {
            abc: cfg.abc,
            bytes_acked: 0,
            abe: cfg.abe,
            exact: cfg.window_arith == WindowArith::Ns2,
            frac: 0.0,
            frac_of: 0,
            linux: cfg.growth_arith == GrowthArith::Linux,
        }
    }
}

impl Reno {
    /// Linux `tcp_reno_cong_avoid` (module doc): slow start up to ssthresh, the rest
    /// of the ACK into avoidance by whole windows of bytes.
    fn open_linux(&mut self, w: &mut Window, acked: u64) {
        let mut rest = acked;
        if w.cwnd < w.ssthresh {
            let ss = rest.min(u64::from(w.ssthresh - w.cwnd));
            w.cwnd = (u64::from(w.cwnd) + ss).min(u64::from(CWND_MAX)) as u32;
            rest -= ss;
            if rest == 0 {
                return;
            }
        }
        let win = u64::from(w.cwnd).max(1);
        self.bytes_acked += rest;
        let steps = self.bytes_acked / win;
        self.bytes_acked -= steps * win;
        w.cwnd = (u64::from(w.cwnd) + steps * u64::from(w.mss)).min(u64::from(CWND_MAX)) as u32;
    }

    /// ns-2 `opencwnd()`, congestion avoidance: cwnd_ += 1/cwnd_ in packets.
    fn open_exact(&mut self, w: &mut Window) {
        let frac = if self.frac_of == w.cwnd { self.frac } else { 0.0 };
        let mss = f64::from(w.mss);
        let cwnd = f64::from(w.cwnd) + frac;
        let next = (cwnd + mss * mss / cwnd).min(f64::from(CWND_MAX));
        // next ∈ [0, CWND_MAX]: truncation is the floor, without a libm call per ACK.
        w.cwnd = next as u32;
        self.frac = next - f64::from(w.cwnd);
        self.frac_of = w.cwnd;
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if self.exact && self.abc == 0 && w.cwnd >= w.ssthresh {
            return self.open_exact(w);
        }
        if self.linux {
            return self.open_linux(w, ack.acked);
        }
        let inc = match (self.abc, w.cwnd < w.ssthresh) {
            (0, true) => w.mss,
            (0, false) => (w.mss as u64 * w.mss as u64 / w.cwnd as u64).max(1) as u32,
            (l, true) => ack.acked.min(l as u64 * w.mss as u64) as u32,
            (_, false) => {
                self.bytes_acked += ack.acked;
                if self.bytes_acked < w.cwnd as u64 {
                    return;
                }
                self.bytes_acked -= w.cwnd as u64;
                w.mss
            }
        };
        w.cwnd = w.cwnd.saturating_add(inc).min(CWND_MAX);
    }

    fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32 {
        self.frac = 0.0;
        self.bytes_acked = 0;
        let reduced = if self.abe && kind == Congestion::Ecn { flight * 4 / 5 } else { flight / 2 };
        (reduced.min(CWND_MAX as u64) as u32).max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::Instant;

    fn ack() -> Ack {
        acked(1000)
    }

    fn acked(bytes: u64) -> Ack {
        Ack { now: Instant::ZERO, acked: bytes, rtt: None }
    }

    /// RFC 3465 §2.2: slow start grows by min(N, L·SMSS); L = 2.
    #[test]
    fn test_abc_slow_start_limits_growth_to_l_segments() {
        let mut w = Window::new(3);
        w.init(1000, 2);
        let mut cc = Reno { abc: 2, ..Reno::default() };
        cc.on_ack(&mut w, &acked(2000)); // a delayed ACK of two segments
        assert_eq!(w.cwnd, 4000);
        cc.on_ack(&mut w, &acked(5000)); // a stretch ACK: at most 2·SMSS
        assert_eq!(w.cwnd, 6000);
        cc.on_ack(&mut w, &acked(500));
        assert_eq!(w.cwnd, 6500);
    }

    /// RFC 3465 §2.1: one SMSS per cwnd of bytes acknowledged in congestion avoidance.
    #[test]
    fn test_abc_congestion_avoidance_counts_bytes() {
        let mut w = Window::new(3);
        w.init(1000, 4);
        w.ssthresh = 4000;
        let mut cc = Reno { abc: 2, ..Reno::default() };
        for _ in 0..3 {
            cc.on_ack(&mut w, &acked(1000));
            assert_eq!(w.cwnd, 4000);
        }
        cc.on_ack(&mut w, &acked(1000)); // 4000 bytes = cwnd
        assert_eq!(w.cwnd, 5000);
        assert_eq!(cc.bytes_acked, 0);
        cc.on_ack(&mut w, &acked(3000));
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 5000), 2500);
        assert_eq!(cc.bytes_acked, 0, "a reduction restarts the count");
    }

    /// Linux `tcp_slow_start`: "u32 cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);
    /// acked -= cwnd - tcp_snd_cwnd(tp);" and `tcp_reno_cong_avoid` hands the rest to
    /// `tcp_cong_avoid_ai`, which adds a segment per window's worth. With 3 segments to
    /// ssthresh, an ACK delivering 25 leaves slow start at ssthresh and puts 22 (two whole
    /// windows of 10, and 2 over) into avoidance; RFC 3465 with L = 100 jumps 25 segments.
    #[test]
    fn test_linux_slow_start_stops_at_ssthresh() {
        let mut w = Window::new(3);
        w.init(1000, 7);
        w.ssthresh = 10_000;
        let mut cc = Reno { abc: 100, linux: true, ..Reno::default() };
        cc.on_ack(&mut w, &acked(25_000));
        assert_eq!((w.cwnd, cc.bytes_acked), (12_000, 2_000));
        let (mut rfc, mut w2) = (Reno { abc: 100, ..Reno::default() }, Window::new(3));
        w2.init(1000, 7);
        w2.ssthresh = 10_000;
        rfc.on_ack(&mut w2, &acked(25_000));
        assert_eq!(w2.cwnd, 32_000, "RFC 3465: cwnd += min(N, L·SMSS), past ssthresh");
        // In avoidance one segment per window of bytes, any ACK size (tcp_cong_avoid_ai).
        cc.on_ack(&mut w, &acked(10_000));
        assert_eq!((w.cwnd, cc.bytes_acked), (13_000, 0));
    }

    #[test]
    fn test_slow_start_then_congestion_avoidance() {
        let mut w = Window::new(3);
        w.init(1000, 2);
        w.ssthresh = 3000;
        let mut cc = Reno::default();
        cc.on_ack(&mut w, &ack());
        assert_eq!(w.cwnd, 3000);
        cc.on_ack(&mut w, &ack()); // CA: 1000·1000/3000 = 333
        assert_eq!(w.cwnd, 3333);
    }

    #[test]
    fn test_ssthresh_has_two_segment_floor() {
        let mut w = Window::new(3);
        w.init(1000, 2);
        let mut cc = Reno::default();
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 3000), 2000);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 9000), 4500);
    }

    /// RFC 8511 §3.1: with ABE an ECN-Echo leaves FlightSize·0.8; a loss still halves.
    #[test]
    fn test_abe_backs_off_less_for_ecn_than_for_loss() {
        let w = {
            let mut w = Window::new(3);
            w.init(1000, 10);
            w
        };
        let mut cc = Reno { abc: 2, abe: true, ..Reno::default() };
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 10_000), 8000);
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 10_000), 5000);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 2000), 2000, "floor of 2 segments");
        let mut off = Reno { abc: 2, ..Reno::default() };
        assert_eq!(off.ssthresh(&w, Congestion::Ecn, 10_000), 5000);
    }
}

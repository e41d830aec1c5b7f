//! DCTCP congestion control (RFC 8257; Alizadeh et al., SIGCOMM 2010).
//!
//! The sender estimates α, the fraction of its bytes that met congestion, once
//! per observation window (about one RTT) and cuts cwnd in proportion to it.
//! Per ACK of new data (RFC 8257 §3.3 steps 1–8; SACK ignored):
//! - BytesAcked += N (payload bytes newly acknowledged); with ECE, BytesMarked += N
//!   (with AccECN, BytesMarked += the CE bytes learnt from the ACE field, `accecn.rs`:
//!   Δ·SMSS as the cumulative ACK covers them, as Linux feeds `delivered_ce`);
//! - "If the acknowledgment number is less than or equal to DCTCP.WindowEnd,
//!   stop processing." Otherwise the window is over:
//!   M = BytesMarked / BytesAcked; α ← (1 − g)·α + g·M; WindowEnd = SND.NXT;
//!   both counters restart from 0.
//!
//! WindowEnd starts at 0 (the SYN), so the first data ACK closes the first
//! window (Linux sets `next_seq` to snd_nxt at init, the same point). Linux
//! closes a window when snd_una reaches next_seq (`!before`), one ACK earlier
//! than the RFC's "greater than"; ecnlab follows the RFC. Linux counts
//! delivered segments (`delivered_ce / delivered`), ecnlab bytes as the RFC.
//!
//! Reaction to ECE, at most once per window of data (recovery.rs: the Cwr
//! phase, as RFC 3168 §6.1.2; cwnd follows at once, or by PRR with `prr`):
//! ssthresh = max(cwnd·(1 − α/2), 2·SMSS)
//! (RFC 8257 §3.3 "cwnd = cwnd * (1 - DCTCP.Alpha / 2)"; the floor of two
//! segments is Linux's `dctcp_ssthresh`). α is updated before the reaction
//! (Linux `in_ack_event` runs before `tcp_enter_cwr`). Loss, timeout and Source
//! Quench: Reno's halving (RFC 8257 §3.5, loss as RFC 5681; Linux
//! `dctcp_react_to_loss`: cwnd/2). Growth: Reno's (`cc/reno.rs`, RFC 8257 §3.4).
//!
//! Fixed point: α is an integer in units of 2^-20 (Linux: 2^-10,
//! `DCTCP_MAX_ALPHA` 1024; ns-3: a double), g = 2^-shift:
//! α ← α − ⌊α / 2^shift⌋ + ⌊BytesMarked·2^(20−shift) / BytesAcked⌋, which stays
//! in [0, 2^20]. Below 2^shift units (1.5·10^-5 at shift 4) α no longer decays
//! (Linux's `min_not_zero` drops it to 0 there instead).
//!
//! | parameter | meaning | default | source |
//! |---|---|---|---|
//! | `dctcp_shift_g` | g = 2^-shift, the EWMA gain | 4 (g = 1/16) | RFC 8257 §3.3 leaves g to the implementation; Linux `dctcp_shift_g` 4; ns-3 `DctcpShiftG` 0.0625 |
//! | α at start | | 1 | RFC 8257 §3.3 ("initialized to 1"); Linux `dctcp_alpha_on_init` 1024/1024; ns-3 `DctcpAlphaOnInit` 1.0 |
//! | `dctcp_ect` | codepoint of new data: ECT(0) or ECT(1) | 0 | Linux sets ECT(0) (`INET_ECN_xmit`); ns-3 `UseEct0` true |
//!
//! `dctcp_arith = "linux"` (the `linux` personality) computes as Linux's
//! `tcp_dctcp.c` does, in whole segments and α in units of 2^-10:
//!
//! | | `rfc8257` (default; ns-3's `TcpDctcp` in bytes and doubles alike) | `linux` (`tcp_dctcp.c`, kernel 6.18) |
//! |---|---|---|
//! | reduction | ssthresh = cwnd − ⌊cwnd·α/2⌋ in bytes, ≥ 2·SMSS | ssthresh = cwnd − ⌊cwnd·α₁₀₂₄ / 2048⌋ in whole segments, ≥ 2 (`dctcp_ssthresh`): a cut of 1.9 segments is 1 |
//! | α | 2^-20 units, α −= ⌊α/2^g⌋ | 2^-10 units (`DCTCP_MAX_ALPHA` 1024), α −= min_not_zero(α, ⌊α/2^g⌋): below 2^g it drops to 0 |
//! | M | ⌊BytesMarked·2^(20−g) / BytesAcked⌋ | ⌊CE·2^(10−g) / delivered⌋ (segments; the same for full-sized ones; 0 when g > 10) |
//! | window end | ACK > WindowEnd (RFC 8257 step 4) | snd_una ≥ next_seq (`!before`, `dctcp_update_alpha`): one ACK earlier |
//!
//! With a window of a few dozen segments the whole-segment cut is about half a
//! segment smaller on average; Linux's window then sits higher and its queue
//! crosses K more often (docs/senders.md, the fidelity grid in docs/emulation.md).
//!
//! The receiver's feedback (ECE iff the last data segment was CE, an immediate
//! ACK at every change of the CE state) is `recv.rs`'s, selected by
//! `cc = dctcp` on the receiving endpoint as Linux and ns-3 do.

use super::{Congestion, CongestionControl, Feedback, ProbeReport, Reno};
use crate::config::{check, CcKind, ConfigError, DctcpArith, EcnMode, TcpConfig};
use crate::window::Window;
use ecnlab_wire::key;
use ecnlab_wire::keys::{Allowed::*, Key};
use ecnlab_wire::Ecn;
use serde::{Deserialize, Serialize};

/// DCTCP's knobs (`TcpConfig::dctcp`; in JSON the flat keys `dctcp_shift_g`, `dctcp_ect`
/// and `dctcp_arith`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DctcpKnobs {
    /// The EWMA gain g = 2^-shift_g (RFC 8257 §3.3; Linux `dctcp_shift_g` 4).
    #[serde(rename = "dctcp_shift_g")]
    pub shift_g: u32,
    /// The codepoint of new data: 0 = ECT(0) (Linux, ns-3 `UseEct0`), 1 = ECT(1).
    #[serde(rename = "dctcp_ect")]
    pub ect: u8,
    /// The arithmetic: RFC 8257 in bytes or Linux's `tcp_dctcp.c` in whole segments
    /// (module doc); a personality sets it.
    #[serde(rename = "dctcp_arith")]
    pub arith: DctcpArith,
}

/// DCTCP's scenario keys (`[tcp]`, flat among `TcpConfig`'s).
pub const KEYS: &[Key] = &[
    key!(
        "dctcp_shift_g",
        Integer,
        ecnlab_wire::keys::range(0., 16.),
        "cc dctcp: the EWMA gain g = 2^-shift (RFC 8257 §3.3, Linux dctcp_shift_g)"
    ),
    key!(
        "dctcp_ect",
        Integer,
        ecnlab_wire::keys::range(0., 1.),
        "cc dctcp: new data's codepoint, ECT(0) (Linux, ns-3) or ECT(1)"
    ),
    key!(
        "dctcp_arith",
        Choice,
        Variants(ecnlab_wire::keys::variants::<DctcpArith>),
        "cc dctcp: RFC 8257 in bytes (as ns-3), or tcp_dctcp.c's whole segments and 1/1024 alpha"
    ),
];

impl Default for DctcpKnobs {
    fn default() -> Self {
        DctcpKnobs { shift_g: 4, ect: 0, arith: DctcpArith::Rfc8257 }
    }
}

impl DctcpKnobs {
    /// The knobs' ranges, their defaults unless `cc = dctcp`, and what `cc = dctcp` needs of
    /// the connection's other fields.
    pub(crate) fn validate(&self, cfg: &TcpConfig) -> Result<(), ConfigError> {
        check(self.shift_g <= 16, "dctcp_shift_g", self.shift_g, "0..=16 (g = 2^-shift)")?;
        check(self.ect <= 1, "dctcp_ect", self.ect, "0 (ECT(0)) or 1 (ECT(1))")?;
        if cfg.cc != CcKind::Dctcp {
            check(self.ect == 0, "dctcp_ect", self.ect, "0 unless cc = dctcp")?;
            return check(self.shift_g == 4, "dctcp_shift_g", self.shift_g, "4 unless cc = dctcp");
        }
        let ecn = match cfg.ecn {
            EcnMode::Off => "off",
            EcnMode::Classic | EcnMode::EcnPlus | EcnMode::AccEcn => "on",
        };
        check(cfg.ecn.enabled(), "ecn", ecn, "classic, ecn+ or accecn with cc = dctcp (RFC 8257 needs ECN)")?;
        check(
            cfg.ecn_min_cwnd_segments == 2,
            "ecn_min_cwnd_segments",
            cfg.ecn_min_cwnd_segments,
            "2 with cc = dctcp (Linux dctcp_ssthresh)",
        )
    }
}

/// The time-series probe of α (`CongestionControl::probes`), also Prague's.
pub(crate) const ALPHA: &str = "dctcp_alpha";

/// Fractional bits of α.
pub(crate) const ALPHA_BITS: u32 = 20;
/// α = 1.
pub(crate) const ALPHA_ONE: u32 = 1 << ALPHA_BITS;

#[derive(Clone, Debug)]
pub(crate) struct Dctcp {
    /// Growth and loss response.
    reno: Reno,
    /// α, units of 2^-20.
    alpha: u32,
    /// g = 2^-shift_g.
    shift_g: u32,
    /// Bytes acknowledged in this observation window, and those with ECE.
    acked: u64,
    marked: u64,
    /// SND.NXT at the start of this observation window.
    window_end: u64,
    ect1: bool,
    /// `dctcp_arith = "linux"` (module doc).
    linux: bool,
}

impl Dctcp {
    pub(crate) fn new(cfg: &TcpConfig, knobs: &DctcpKnobs) -> Self {
        Dctcp {
            reno: Reno::new(cfg),
            alpha: ALPHA_ONE,
            shift_g: knobs.shift_g,
            acked: 0,
            marked: 0,
            window_end: 0,
            ect1: knobs.ect == 1,
            linux: knobs.arith == DctcpArith::Linux,
        }
    }

    /// Linux `dctcp_update_alpha` in units of 2^-10 (module doc), kept in 2^-20 units.
    fn update_alpha_linux(&mut self) {
        let s = self.shift_g;
        let mut a = u64::from(self.alpha >> (ALPHA_BITS - 10));
        let decay = a >> s;
        a -= if decay == 0 { a } else { decay }; // min_not_zero(alpha, alpha >> g)
        if self.marked > 0 && s <= 10 {
            a = (a + (self.marked << (10 - s)) / self.acked.max(1)).min(1024);
        }
        self.alpha = (a as u32) << (ALPHA_BITS - 10);
    }

    /// Linux `dctcp_ssthresh`: whole segments, α in 2^-10 units.
    fn ssthresh_linux(&self, w: &Window) -> u32 {
        let segs = u64::from(w.cwnd / w.mss);
        let cut = (segs * u64::from(self.alpha >> (ALPHA_BITS - 10))) >> 11;
        ((segs - cut).max(2) * u64::from(w.mss)).min(u64::from(u32::MAX)) as u32
    }

    /// RFC 8257 §3.3 steps 5–6 in fixed point (module doc).
    fn update_alpha(&mut self) {
        let s = self.shift_g;
        let f = (self.marked << (ALPHA_BITS - s)).checked_div(self.acked).unwrap_or(0);
        let next = u64::from(self.alpha) - u64::from(self.alpha >> s) + f;
        self.alpha = next.min(u64::from(ALPHA_ONE)) as u32;
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &super::Ack) {
        self.reno.on_ack(w, ack);
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        self.acked += fb.acked;
        self.marked += fb.marked;
        let open = if self.linux { fb.una < self.window_end } else { fb.una <= self.window_end };
        if open {
            return;
        }
        if self.linux {
            self.update_alpha_linux();
        } else {
            self.update_alpha();
        }
        self.window_end = fb.snd_nxt;
        self.acked = 0;
        self.marked = 0;
    }

    fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32 {
        let reno = self.reno.ssthresh(w, kind, flight); // also restarts Reno's byte count
        if kind != Congestion::Ecn {
            return reno;
        }
        if self.linux {
            return self.ssthresh_linux(w);
        }
        let cut = (u64::from(w.cwnd) * u64::from(self.alpha)) >> (ALPHA_BITS + 1);
        (w.cwnd - cut as u32).max(2 * w.mss)
    }

    fn codepoint(&self) -> Ecn {
        if self.ect1 {
            Ecn::Ect1
        } else {
            Ecn::Ect0
        }
    }

    fn probes(&self, report: ProbeReport) {
        report(ALPHA, Some(self.alpha()));
    }
}

impl Dctcp {
    /// α in [0, 1].
    pub(crate) fn alpha(&self) -> f64 {
        f64::from(self.alpha) / f64::from(ALPHA_ONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn dctcp(shift_g: u32) -> Dctcp {
        Dctcp::new(
            &TcpConfig { cc: CcKind::Dctcp, ..TcpConfig::default() },
            &DctcpKnobs { shift_g, ..DctcpKnobs::default() },
        )
    }

    /// ACKs of one segment each from `una`, `flight` segments beyond each (SND.NXT =
    /// SND.UNA + flight·SMSS), ECE as `ece` says; returns the last SND.UNA.
    fn acks(cc: &mut Dctcp, mut una: u64, flight: u64, ece: impl IntoIterator<Item = bool>) -> u64 {
        for e in ece {
            una += MSS as u64;
            let marked = if e { MSS as u64 } else { 0 };
            let snd_nxt = una + flight * MSS as u64;
            let (now, rtt, srtt, ack_rtt) = (ecnlab_wire::Instant::ZERO, None, None, None);
            cc.on_feedback(&Feedback {
                acked: MSS as u64,
                ece: e,
                marked,
                una,
                snd_nxt,
                in_flight: snd_nxt - una,
                now,
                rtt,
                srtt,
                ack_rtt,
            });
        }
        una
    }

    /// RFC 8257 §3.3: "DCTCP.Alpha = DCTCP.Alpha * (1 - g) + g * M", α "initialized to 1",
    /// and step 4: "If the acknowledgment number is less than or equal to DCTCP.WindowEnd,
    /// stop processing". With 9 segments beyond SND.UNA, the first ACK closes the window
    /// begun at the SYN and every later window holds 10 ACKs: the 9 up to WindowEnd and
    /// the one past it. α after a scripted mark pattern equals the EWMA of the M_j.
    #[test]
    fn test_alpha_after_a_known_mark_pattern_is_the_ewma() {
        let mut cc = dctcp(4);
        assert_eq!(cc.alpha(), 1.0);
        let mut una = acks(&mut cc, 0, 9, [false]); // window 0: one ACK, M = 0
        let g = 1.0 / 16.0;
        let mut expect = (1.0 - g) * 1.0;
        assert!((cc.alpha() - expect).abs() < 1e-6);
        let marks_per_window = [0u64, 10, 5, 2, 0, 0, 4, 3, 10, 1];
        for &m in &marks_per_window {
            una = acks(&mut cc, una, 9, (0..10).map(|i| i < m));
            expect = (1.0 - g) * expect + g * m as f64 / 10.0;
            let got = cc.alpha();
            assert!((got - expect).abs() < 1e-5, "after M = {m}/10: α {got} vs {expect}");
        }
        // One ACK short of the next boundary: α does not move.
        let before = cc.alpha();
        acks(&mut cc, una, 9, [true; 9]);
        assert_eq!(cc.alpha(), before, "no update until SND.UNA passes WindowEnd");
    }

    /// With no marks α decays as (1 − g)^k; with every byte marked it climbs back to 1.
    #[test]
    fn test_alpha_decays_geometrically_and_saturates_at_one() {
        let mut cc = dctcp(4);
        let mut una = acks(&mut cc, 0, 3, [false]);
        for _ in 0..20 {
            una = acks(&mut cc, una, 3, [false; 4]);
        }
        let expect = (15.0f64 / 16.0).powi(21); // 21 windows closed without marks
        assert!((cc.alpha() - expect).abs() < 1e-5, "{:?} vs {expect}", cc.alpha());
        for _ in 0..400 {
            una = acks(&mut cc, una, 3, [true; 4]);
        }
        assert!(cc.alpha() > 0.9999 && cc.alpha() <= 1.0);
    }

    /// RFC 8257 §3.3 "cwnd = cwnd * (1 - DCTCP.Alpha / 2)", never below two segments;
    /// a loss halves FlightSize as Reno does.
    #[test]
    fn test_ecn_reduction_is_proportional_to_alpha() {
        let mut cc = dctcp(4);
        let mut w = Window::new(3);
        w.init(MSS, 100);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 50_000, "α = 1 halves");
        cc.alpha = ALPHA_ONE / 4;
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 87_500, "α = 1/4: W·7/8");
        cc.alpha = 0;
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 100_000), 100_000, "α = 0: no cut");
        cc.alpha = ALPHA_ONE;
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 60_000), 30_000, "loss: FlightSize/2");
        w.cwnd = 3 * MSS;
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 3_000), 2 * MSS, "floor of two segments");
    }

    fn linux(shift_g: u32) -> Dctcp {
        Dctcp { linux: true, ..dctcp(shift_g) }
    }

    /// `tcp_dctcp.c` `dctcp_ssthresh`: "max(tcp_snd_cwnd(tp) - ((tcp_snd_cwnd(tp) *
    /// ca->dctcp_alpha) >> 11U), 2U)", cwnd in segments, α in 2^-10: 38 segments at
    /// α = 102/1024 lose ⌊3876/2048⌋ = 1 segment (the RFC's bytes: 1.89 segments).
    #[test]
    fn test_linux_reduction_in_whole_segments() {
        let (mut lx, mut rfc) = (linux(4), dctcp(4));
        let mut w = Window::new(3);
        w.init(MSS, 38);
        lx.alpha = 102 << (ALPHA_BITS - 10);
        rfc.alpha = lx.alpha;
        assert_eq!(lx.ssthresh(&w, Congestion::Ecn, 38_000), 37 * MSS);
        assert_eq!(rfc.ssthresh(&w, Congestion::Ecn, 38_000), 38_000 - 1892);
        lx.alpha = ALPHA_ONE;
        assert_eq!(lx.ssthresh(&w, Congestion::Ecn, 38_000), 19 * MSS, "α = 1 halves");
        w.cwnd = 37 * MSS + 999; // a part segment does not count
        assert_eq!(lx.ssthresh(&w, Congestion::Ecn, 38_000), 19 * MSS);
        w.cwnd = 3 * MSS;
        assert_eq!(lx.ssthresh(&w, Congestion::Ecn, 3_000), 2 * MSS, "floor of two segments");
        assert_eq!(lx.ssthresh(&w, Congestion::Loss, 60_000), 30_000, "loss: as Reno");
    }

    /// `dctcp_update_alpha`: "alpha -= min_not_zero(alpha, alpha >> dctcp_shift_g)",
    /// then "delivered_ce <<= (10 - dctcp_shift_g); delivered_ce /= max(1U, delivered);
    /// alpha = min(alpha + delivered_ce, DCTCP_MAX_ALPHA)", once snd_una is not before
    /// next_seq. With 9 segments beyond SND.UNA every window after the first holds 9
    /// ACKs, the last one reaching WindowEnd itself (the RFC's window holds 10, the
    /// test above); α steps as the integer EWMA and, without marks, falls to 0 once
    /// below 2^g = 16/1024.
    #[test]
    fn test_linux_alpha_integer_ewma() {
        let mut cc = linux(4);
        let mut una = acks(&mut cc, 0, 9, [false]); // the first ACK closes the SYN's window
        let mut a: u64 = 1024 - 64;
        assert_eq!(cc.alpha >> (ALPHA_BITS - 10), a as u32);
        for &m in &[0u64, 9, 5, 2, 0, 3] {
            una = acks(&mut cc, una, 9, (0..9).map(|i| i < m));
            let decay = if a >> 4 == 0 { a } else { a >> 4 };
            a = (a - decay + (m << 6) / 9).min(1024);
            assert_eq!(u64::from(cc.alpha >> (ALPHA_BITS - 10)), a, "after {m}/9 marked");
        }
        let before = cc.alpha;
        una = acks(&mut cc, una, 9, [true; 8]);
        assert_eq!(cc.alpha, before, "no update before SND.UNA reaches WindowEnd");
        una = acks(&mut cc, una, 9, [false]);
        assert_ne!(cc.alpha, before, "the ACK reaching WindowEnd closes the window");
        for _ in 0..80 {
            una = acks(&mut cc, una, 9, [false; 9]);
        }
        assert_eq!(cc.alpha, 0, "min_not_zero: α reaches 0 (the RFC's 2^-20 units stay above)");
    }

    #[test]
    fn test_codepoint_is_ect0_unless_ect1_is_asked_for() {
        assert_eq!(dctcp(4).codepoint(), Ecn::Ect0);
        let cfg = TcpConfig { cc: CcKind::Dctcp, ..TcpConfig::default() };
        assert_eq!(Dctcp::new(&cfg, &DctcpKnobs { ect: 1, ..DctcpKnobs::default() }).codepoint(), Ecn::Ect1);
    }
}

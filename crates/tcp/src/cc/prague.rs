//! TCP Prague congestion control: DCTCP adapted to the Internet by the Prague
//! L4S requirements (RFC 9331 §4, Appendix A), after the L4S team's reference
//! Linux implementation (`tcp_prague.c` of the L4STeam/linux tree,
//! `MODULE_VERSION` 0.7, `prague_version = "v0.7"`, the default; or 0.6,
//! `"v0.6"`) and draft-briscoe-iccrg-prague-congestion-control.
//!
//! **Feedback and codepoint.** Prague sends ECT(1) (RFC 9331 §4.1) on every
//! packet (ECN++, `ect_all_packets`), needs AccECN feedback (RFC 9331 §4.2,
//! `accecn.rs`; the front sets `ecn = "accecn"`), and paces (pacing.rs, 200 % of
//! cwnd/srtt in slow start, 100 % after). Without AccECN negotiated the
//! reference gives up ECN and runs as Reno (`prague-reno`): ecnlab does the
//! same ([`CongestionControl::needs_accecn`]).
//! `prague_feedback = "dctcp"` keeps the congestion response and takes RFC 3168
//! ECN instead (`ecn = "classic"`), with DCTCP's echo at the receiver (RFC 8257
//! §3.2, `recv.rs`: ECE on exactly the ACKs of CE segments, so an ECE ACK's bytes
//! are its marked bytes, as `delivered_ce` counts them in Linux) and no fallback:
//! without ECN negotiated the flow runs these rules on losses alone. That is
//! ecnlab's BPF Prague-like (`python/ecnlab/emu/bpf/ecnlab_prague_like.bpf.c`),
//! which a kernel without AccECN runs; the codepoint stays ECT(1).
//!
//! **The window** is kept as a fraction, `frac` (bytes · 2^16); cwnd is
//! max(⌈frac⌉, 2·SMSS) (RFC 9331 §4.3 "minimum window": the reference's
//! `MIN_CWND_RTT` 2). Anything else that sets cwnd (the recovery's timeout
//! window, slow start) restarts `frac` from it.
//!
//! **α**, the fraction of delivered bytes that were CE-marked, once per round
//! (SND.UNA reaching the SND.NXT of the round's start; when RTT-independent,
//! also at least one target RTT since the last update, as the reference's
//! `prague_should_update_ewma`): α ← α − α·g + g·F, g = 1/16, F = CE bytes /
//! acknowledged bytes of the round. α is not updated before the first CE mark
//! ("do not update alpha before we have proof that there's an AQM on the path",
//! `prague_update_alpha`), and the first mark halves the window: v0.7 starts α
//! at 0 and halves `frac` at that mark (`prague_init` and `prague_update_cwnd`
//! with the default `prague_alpha_mode` 0); v0.6 starts α at 1
//! (`PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G` in `prague_init`), so that its first
//! reduction is W·(1 − 1/2) and α then decays from 1. The reference counts
//! segments (`delivered_ce / delivered`), ecnlab bytes (RFC 8257 §3.3).
//!
//! **Reduction on CE** (`ssthresh` with `Congestion::Ecn`): frac ← frac −
//! ⌊(α·frac + ½)/2⌋, i.e. W·(1 − α/2), at most once per round trip (the Cwr
//! phase of `recovery.rs`, Linux's CWR state) and, when RTT-independent, at most
//! once per target RTT (the reference's `cwr_stamp` check). cwnd is the reduced
//! window at once, with or without `prr`: the reference's `.cong_control`
//! takes every ACK from Linux's `tcp_cong_control`, which returns before PRR's
//! `tcp_cwnd_reduction`, and `tcp_end_cwnd_reduction` returns at once for it
//! ([`CongestionControl::has_cong_control`]). A loss recovery keeps `prr`'s
//! PRR: the reference's walk of cwnd down one segment per ACK is not modelled.
//!
//! **Growth** (RFC 9331 §4.3 "scalable", reference §4 of its header): every
//! ACK grows the window by its *unmarked* bytes only, in the CWR phase too
//! ([`CongestionControl::grows_on_marked_acks`]): slow start by those bytes
//! (Reno's, `reno.rs`), then congestion avoidance frac += unmarked·ai·SMSS /
//! cwnd, where ai = 1 until the flow is RTT-independent and then
//! ai = (srtt / target)² if srtt < target (25 ms), so a flow with a shorter RTT
//! grows per second as one with the target RTT would (RFC 9331 §4.3 "reduce RTT
//! dependence"; the reference's `RTT_CONTROL_RATE`). A flow becomes
//! RTT-independent `prague_rtt_transition` rounds after leaving slow start: 4
//! in v0.7, 500 in v0.6 (each module's `DEFAULT_RTT_TRANSITION`).
//!
//! **Loss** (RFC 9331 §4.3 "a Reno-friendly response to loss"): Reno's halving
//! of the window (the reference halves `frac`, ecnlab halves cwnd); recovery
//! and timeouts are `recovery.rs`'s.
//!
//! | knob | meaning | default | source |
//! |---|---|---|---|
//! | `prague_rtt_target` | RTT below which growth is scaled | 25 ms | reference `RTT_TARGET`; RFC 9331 §4.3 |
//! | `prague_rtt_transition` | rounds after slow start before RTT independence | 4 (v0.7), 500 (v0.6) | reference `DEFAULT_RTT_TRANSITION` |
//! | `prague_version` | which reference: `"v0.7"` or `"v0.6"` (below) | v0.7 | `MODULE_VERSION` |
//! | `prague_classic_fallback` | detect a classic ECN AQM and respond as Reno there (`prague_classic.rs`) | off | v0.6's `prague_ecn_fallback` (off by default; gone in v0.7) |
//! | `prague_fallback_fix` | the fallback's levels ×16 in the score's units; off, the 0.6 module's 1/16 of them (`prague_classic.rs`) | off | "Reproducing and Solving a Fallback Issue in TCP Prague" (2025) |
//! | g | α's EWMA gain | 1/16 | reference `PRAGUE_SHIFT_G` 4 |
//!
//! **Versions.** Everything above is both versions' but α's start and the
//! transition's length. v0.7 adds the rate-based mode below a window of
//! 4 × 1500 B, once a CE mark has been seen (`prague_rate.rs`: pacing down to
//! 100 kbit/s, ±3 % per half virtual RTT); v0.6 has none and paces as
//! `pacing.rs` always. The classic-ECN-AQM fallback is
//! v0.6's (the reference v0.7 has none); ecnlab offers it with either version,
//! off by default.
//!
//! Not modelled (named differences from the reference): the smaller segments of
//! v0.7's rate-based mode (`prague_rate.rs` says why), v0.7's 24-bit α (ecnlab's
//! has 20 bits, as 0.6), v0.7's pacing outside the rate-based mode from
//! max(⌊frac⌋, packets in flight) with a 100 kbit/s floor (ecnlab: `pacing.rs`'s
//! cwnd/srtt), and the one-segment-per-ACK steps by
//! which the reference walks cwnd to ⌈frac⌉ (ecnlab sets it at once). α is
//! updated before the reaction on the ACK that closes a round (as ecnlab's
//! DCTCP); the reference updates it after, in `cong_control`.

use super::prague_classic::ClassicDetector;
use super::prague_rate::RateMode;
use super::{Ack, Congestion, CongestionControl, Feedback, ProbeReport, Reno};
use crate::config::{check, CcKind, ConfigError, EcnMode, PragueFeedback, PragueVersion, TcpConfig};
use crate::window::{Window, CWND_MAX};
use ecnlab_wire::key;
use ecnlab_wire::keys::{Allowed::*, Key};
use ecnlab_wire::{Duration, Ecn, Instant};
use serde::{Deserialize, Serialize};

/// Prague's knobs (`TcpConfig::prague`; in JSON the flat keys `prague_rtt_target_ns`,
/// `prague_rtt_transition`, `prague_classic_fallback`, `prague_version` and
/// `prague_fallback_fix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PragueKnobs {
    /// The RTT below which growth is scaled to that of a flow with this RTT (reference
    /// `RTT_TARGET` 25 ms); 0: no RTT scaling.
    #[serde(rename = "prague_rtt_target_ns")]
    pub rtt_target_ns: u64,
    /// Rounds after slow start before Prague becomes RTT-independent; `None`: the
    /// version's `DEFAULT_RTT_TRANSITION` ([`PragueKnobs::transition`]).
    #[serde(rename = "prague_rtt_transition")]
    pub rtt_transition: Option<u32>,
    /// Detect a classic ECN AQM and fall back to a Reno-like response there
    /// (`prague_classic.rs`; the reference's `prague_ecn_fallback`, off).
    #[serde(rename = "prague_classic_fallback")]
    pub classic_fallback: bool,
    /// Which reference Prague (`PragueVersion`; default v0.7).
    #[serde(rename = "prague_version")]
    pub version: PragueVersion,
    /// With `classic_fallback`: the reference levels of the classic-AQM score (V0 750 µs,
    /// D0 2 ms) ×16, in the score's units, as the patch of "Reproducing and Solving a
    /// Fallback Issue in TCP Prague" (2025) makes them; off, the 0.6 module's levels, 1/16
    /// of those (`prague_classic.rs`).
    #[serde(rename = "prague_fallback_fix")]
    pub fallback_fix: bool,
    /// How CE marks come back (`PragueFeedback`): AccECN, the reference's, or RFC 3168
    /// negotiation with DCTCP's echo (the module doc's "Feedback").
    #[serde(rename = "prague_feedback")]
    pub feedback: PragueFeedback,
}

/// TCP Prague's scenario keys (`[tcp]`, flat among `TcpConfig`'s).
pub const KEYS: &[Key] = &[
    key!("prague_rtt_target" => "prague_rtt_target_ns", Duration, ecnlab_wire::keys::range(0., 1e9), "cc prague: below this RTT a flow acts as one at this RTT would; 0: no scaling"),
    key!(
        "prague_rtt_transition",
        Integer,
        ecnlab_wire::keys::range(0., 1000.),
        "cc prague: rounds after slow start before the RTT scaling applies (the module's DEFAULT_RTT_TRANSITION)";
        Derived("4 (v0.7), 500 (v0.6)")
    ),
    key!(
        "prague_classic_fallback",
        Boolean,
        Any,
        "cc prague: detect a classic ECN AQM and respond there nearly as Reno (prague_classic.rs)"
    ),
    key!(
        "prague_version",
        Choice,
        Variants(ecnlab_wire::keys::variants::<PragueVersion>),
        "cc prague: the reference tcp_prague.c followed; v0.7 adds the rate-based mode (prague_rate.rs)"
    ),
    key!(
        "prague_fallback_fix",
        Boolean,
        Any,
        "with prague_classic_fallback: the 2025 fix's levels, ×16 the 0.6 module's"
    ),
    key!(
        "prague_feedback",
        Choice,
        Variants(ecnlab_wire::keys::variants::<PragueFeedback>),
        "cc prague: accecn (RFC 9331 §4.2, else Reno) or dctcp: classic ECN with DCTCP's echo (RFC 8257 §3.2), no fallback"
    ),
];

impl Default for PragueKnobs {
    fn default() -> Self {
        PragueKnobs {
            rtt_target_ns: Duration::from_millis(25).as_nanos(),
            rtt_transition: None,
            classic_fallback: false,
            version: PragueVersion::V07,
            fallback_fix: false,
            feedback: PragueFeedback::AccEcn,
        }
    }
}

impl PragueKnobs {
    /// The rounds of RTT transition: the knob, or the version's `DEFAULT_RTT_TRANSITION`
    /// (4 in the 0.7 module, 500 in the 0.6 module).
    pub fn transition(&self) -> u32 {
        self.rtt_transition.unwrap_or(match self.version {
            PragueVersion::V07 => 4,
            PragueVersion::V06 => 500,
        })
    }

    /// The knobs' ranges, and what `cc = prague` needs of the connection's other fields.
    pub(crate) fn validate(&self, cfg: &TcpConfig) -> Result<(), ConfigError> {
        let target = self.rtt_target_ns;
        check(target <= 1_000_000_000, "prague_rtt_target_ns", target, "0 ..= 1 s (0: no RTT scaling)")?;
        let rounds = self.transition();
        check(rounds <= 1000, "prague_rtt_transition", rounds, "0..=1000")?;
        let fix = self.fallback_fix;
        check(!fix || self.classic_fallback, "prague_fallback_fix", fix, "false unless prague_classic_fallback")?;
        if cfg.cc != CcKind::Prague {
            let fb = self.classic_fallback;
            check(!fb, "prague_classic_fallback", fb, "false unless cc = prague")?;
            let feedback = self.feedback.as_str();
            return check(
                self.feedback == PragueFeedback::AccEcn,
                "prague_feedback",
                feedback,
                "accecn unless cc = prague",
            );
        }
        let ecn = match cfg.ecn {
            EcnMode::Off => "off",
            EcnMode::Classic => "classic",
            EcnMode::EcnPlus => "ecn+",
            EcnMode::AccEcn => "accecn",
        };
        match self.feedback {
            PragueFeedback::AccEcn => {
                let why = "accecn with cc = prague (RFC 9331 §4.2: accurate feedback)";
                check(cfg.ecn == EcnMode::AccEcn, "ecn", ecn, why)?;
            }
            PragueFeedback::Dctcp => {
                let ok = matches!(cfg.ecn, EcnMode::Classic | EcnMode::EcnPlus);
                check(ok, "ecn", ecn, "classic or ecn+ with prague_feedback = dctcp (RFC 3168 negotiation)")?;
            }
        }
        check(
            cfg.ecn_min_cwnd_segments == 2,
            "ecn_min_cwnd_segments",
            cfg.ecn_min_cwnd_segments,
            "2 with cc = prague (RFC 9331 §4.3: a minimum window of 2)",
        )
    }
}

/// The receiving endpoint of a Prague flow with `prague_feedback = "dctcp"` echoes CE as
/// DCTCP's does (RFC 8257 §3.2, `recv.rs`), as Linux ties that echo to the receiver's
/// congestion control (`dctcp_ece_ack_update` from its `cwnd_event`).
pub(crate) fn echoes_as_dctcp(cfg: &TcpConfig) -> bool {
    cfg.cc == CcKind::Prague && cfg.prague.feedback == PragueFeedback::Dctcp
}

/// Fractional bits of α (as DCTCP's, `dctcp.rs`).
pub(crate) const ALPHA_BITS: u32 = 20;
pub(crate) const ALPHA_ONE: u64 = 1 << ALPHA_BITS;
/// g = 2^-G_SHIFT.
const G_SHIFT: u32 = 4;
/// Fractional bits of `frac` (bytes).
const FRAC_BITS: u32 = 16;
/// Fractional bits of the growth factor ai.
const AI_BITS: u32 = 20;

/// α·2^G_SHIFT at the start: 0 in v0.7 (`prague_alpha_mode` 0), 1 in v0.6
/// (`ca->upscaled_alpha = PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G` in its `prague_init`).
fn initial_alpha_up(version: PragueVersion) -> u64 {
    match version {
        PragueVersion::V07 => 0,
        PragueVersion::V06 => ALPHA_ONE << G_SHIFT,
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Prague {
    /// Slow start, and the whole algorithm after a fallback to Reno.
    reno: Reno,
    /// AccECN was not negotiated: Reno without ECN (`prague-reno`).
    fallback: bool,
    /// α·2^G_SHIFT in units of 2^-ALPHA_BITS (the reference keeps α upscaled
    /// so that its remainder carries from one update to the next).
    alpha_up: u64,
    saw_ce: bool,
    /// v0.7: the first CE mark halves the window instead of α (alpha mode 0).
    halve_next: bool,
    /// cwnd, bytes · 2^FRAC_BITS, and the cwnd it last produced.
    frac: u64,
    last_cwnd: u32,
    /// The current round: its end (SND.NXT at its start) and its counts.
    next_seq: u64,
    round_acked: u64,
    round_marked: u64,
    /// Rounds completed since slow start ended.
    round: u32,
    in_slow_start: bool,
    alpha_stamp: Instant,
    cwr_stamp: Option<Instant>,
    now: Instant,
    srtt: Option<Duration>,
    /// The bytes of the ACK being processed that were CE-marked.
    ack_marked: u64,
    target: Duration,
    transition: u32,
    classic: Option<ClassicDetector>,
    version: PragueVersion,
    /// v0.7's rate-based mode (`prague_rate.rs`).
    rate: RateMode,
    /// SND.NXT − SND.UNA at the last ACK.
    in_flight: u64,
    /// v0.7's own pacing rate, bytes/s, as the last ACK set it (`pacing_rate`).
    paced: Option<u64>,
    feedback: PragueFeedback,
}

impl Prague {
    pub(crate) fn new(cfg: &TcpConfig, knobs: &PragueKnobs) -> Self {
        Prague {
            reno: Reno::new(cfg),
            fallback: false,
            alpha_up: initial_alpha_up(knobs.version),
            saw_ce: false,
            halve_next: false,
            frac: 0,
            last_cwnd: 0,
            next_seq: 0,
            round_acked: 0,
            round_marked: 0,
            round: 0,
            in_slow_start: true,
            alpha_stamp: Instant::ZERO,
            cwr_stamp: None,
            now: Instant::ZERO,
            srtt: None,
            ack_marked: 0,
            target: Duration(knobs.rtt_target_ns),
            transition: knobs.transition(),
            classic: knobs.classic_fallback.then(|| ClassicDetector::new(knobs.fallback_fix)),
            version: knobs.version,
            rate: RateMode::default(),
            in_flight: 0,
            paced: None,
            feedback: knobs.feedback,
        }
    }

    /// α in units of 2^-ALPHA_BITS.
    fn alpha_units(&self) -> u64 {
        self.alpha_up >> G_SHIFT
    }

    /// α in [0, 1].
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha_units() as f64 / ALPHA_ONE as f64
    }

    /// RFC 9331 §4.3: growth scaled for RTT independence once the flow is past slow start.
    fn rtt_independent(&self) -> bool {
        !self.in_slow_start && self.round >= self.transition
    }

    /// The reference's `prague_rate_scaled_ai_ack_increase`: (srtt / target)², units 2^-AI_BITS.
    fn ai(&self) -> u64 {
        let one = 1u64 << AI_BITS;
        match self.srtt {
            Some(rtt) if self.round >= self.transition && rtt.0 > 0 && rtt < self.target => {
                let (r, t) = (u128::from(rtt.0), u128::from(self.target.0));
                (((r * r) << AI_BITS) + t * t / 2).checked_div(t * t).map_or(one, |v| v as u64)
            }
            _ => one,
        }
    }

    /// Restarts `frac` from cwnd when something else set cwnd since Prague last did.
    fn sync(&mut self, w: &Window) {
        if w.cwnd != self.last_cwnd {
            self.frac = u64::from(w.cwnd) << FRAC_BITS;
            self.last_cwnd = w.cwnd;
        }
    }

    /// max(⌈frac⌉, 2·SMSS) bytes.
    fn cwnd_of_frac(&self, mss: u32) -> u32 {
        let bytes = self.frac.div_ceil(1 << FRAC_BITS).min(u64::from(CWND_MAX)) as u32;
        bytes.max(2 * mss)
    }

    /// The round ended: α's EWMA (after the first mark), then a new round.
    fn end_round(&mut self, snd_nxt: u64) {
        if self.saw_ce {
            let f = (self.round_marked << ALPHA_BITS).checked_div(self.round_acked).unwrap_or(0);
            let next = self.alpha_up - (self.alpha_up >> G_SHIFT) + f.min(ALPHA_ONE);
            self.alpha_up = next.min(ALPHA_ONE << G_SHIFT);
            self.alpha_stamp = self.now;
            if let Some(d) = self.classic.as_mut() {
                d.on_round();
            }
        }
        if let (PragueVersion::V07, Some(srtt)) = (self.version, self.srtt) {
            self.rate.on_round(srtt);
        }
        self.next_seq = snd_nxt;
        self.round_acked = 0;
        self.round_marked = 0;
        if !self.in_slow_start {
            self.round = self.round.saturating_add(1);
        }
    }

    /// Slow start or congestion avoidance on the ACK's unmarked bytes (the window's,
    /// or v0.7's rate's in the rate-based mode).
    fn grow(&mut self, w: &mut Window, ack: &Ack) {
        self.sync(w);
        self.in_slow_start = w.cwnd < w.ssthresh;
        let unmarked = ack.acked.saturating_sub(std::mem::take(&mut self.ack_marked));
        if unmarked == 0 {
            // The reference walks cwnd to max(⌈frac⌉, 2) on every ACK: the one-segment
            // window a timeout left becomes two at the first ACK, marked or not.
            w.cwnd = w.cwnd.max(2 * w.mss);
            self.last_cwnd = w.cwnd;
            return;
        }
        if self.in_slow_start {
            self.reno.on_ack(w, &Ack { acked: unmarked, ..*ack });
            w.cwnd = w.cwnd.max(2 * w.mss);
            self.frac = u64::from(w.cwnd) << FRAC_BITS;
        } else if self.rate_based() {
            self.rate.grow(unmarked, w.mss, self.vrtt());
            self.frac = self.frac.max(self.rate_frac());
            w.cwnd = self.cwnd_of_frac(w.mss);
        } else {
            let cwnd = u128::from(w.cwnd.max(1));
            let grow = (u128::from(unmarked) * u128::from(self.ai()) * u128::from(w.mss)) << FRAC_BITS;
            self.frac += ((grow >> AI_BITS) / cwnd) as u64;
            w.cwnd = self.cwnd_of_frac(w.mss);
        }
        self.last_cwnd = w.cwnd;
    }

    /// v0.7, after every ACK: the rate follows the window outside the rate-based
    /// mode, and the switch (`prague_rate.rs`) derives the window from the rate in it.
    fn switch_mode(&mut self, w: &mut Window) {
        let Some(srtt) = self.srtt.filter(|d| d.0 > 0) else { return };
        if !self.rate_based() {
            let whole = (self.frac >> FRAC_BITS) / u64::from(w.mss.max(1)) * u64::from(w.mss);
            self.rate.set_from_window(whole.max(self.in_flight), srtt);
        }
        if self.rate.switch(self.saw_ce, w.cwnd, w.mss) {
            self.frac = self.rate_frac();
            w.cwnd = self.cwnd_of_frac(w.mss);
            self.last_cwnd = w.cwnd;
        }
    }

    /// v0.7's pacing rate as an ACK sets it (`prague_update_pacing_rate`): in the
    /// rate-based mode the rate ± 3 % by the half of the virtual RTT since the last α
    /// update, doubled while cwnd < ssthresh/2; `None` (pacing.rs) outside it.
    fn pacing(&self, w: &Window) -> Option<u64> {
        if !self.rate.on {
            return None;
        }
        let rate = if self.rate_based() {
            self.rate.pacing(self.now.saturating_since(self.alpha_stamp), self.vrtt())
        } else {
            self.rate.rate()
        };
        Some(if w.cwnd < w.ssthresh / 2 { rate.saturating_mul(2) } else { rate })
    }

    /// v0.7's rate-based mode governs (`prague_is_rtt_indep && cwnd_mode == 1`).
    fn rate_based(&self) -> bool {
        self.rate.on && self.rtt_independent()
    }

    /// The virtual RTT max(target, srtt).
    fn vrtt(&self) -> Duration {
        self.srtt.map_or(self.target, |s| s.max(self.target))
    }

    /// frac from the rate (`prague_rate.rs`).
    fn rate_frac(&self) -> u64 {
        self.rate.frac(self.srtt.unwrap_or(self.target), FRAC_BITS)
    }

    /// The ssthresh a reduction leaves: the window of frac.
    fn reduced(&mut self, w: &Window) -> u32 {
        let s = self.cwnd_of_frac(w.mss);
        if let Some(d) = self.classic.as_mut() {
            d.set_window(s / w.mss);
        }
        self.last_cwnd = s; // the recovery sets cwnd = ssthresh after ECN
        s
    }

    /// The α a CE reduction uses: α, or the classic fallback's floor under it.
    fn reduction_alpha(&self) -> u64 {
        let a = self.alpha_units();
        self.classic.as_ref().map_or(a, |d| d.alpha_floor(a))
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        if self.fallback {
            "prague-reno"
        } else {
            "prague"
        }
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        self.now = fb.now;
        self.srtt = fb.srtt;
        self.ack_marked = fb.marked;
        // Linux's packets in flight (not FlightSize: the data a loss episode has given up on
        // must not count, or the rate derived from it would undo the loss's reduction).
        self.in_flight = fb.in_flight;
        if let (PragueVersion::V07, Some(srtt)) = (self.version, fb.srtt) {
            self.rate.on_srtt(srtt);
        }
        if let (Some(d), Some(rtt)) = (self.classic.as_mut(), fb.rtt) {
            d.on_rtt_sample(rtt);
        }
        if self.fallback {
            return;
        }
        self.round_acked += fb.acked;
        self.round_marked += fb.marked;
        if fb.marked > 0 && !self.saw_ce {
            self.saw_ce = true;
            self.halve_next = self.version == PragueVersion::V07;
        }
        let waited = self.now.saturating_since(self.alpha_stamp) >= self.target;
        if fb.una >= self.next_seq && (!self.rtt_independent() || waited) {
            self.end_round(fb.snd_nxt);
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if self.fallback {
            return self.reno.on_ack(w, ack);
        }
        self.grow(w, ack);
        if self.version == PragueVersion::V07 {
            self.switch_mode(w);
            self.paced = self.pacing(w);
        }
    }

    fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32 {
        let reno = self.reno.ssthresh(w, kind, flight); // also restarts Reno's byte count
        if self.fallback {
            return reno;
        }
        self.sync(w);
        self.in_slow_start = false;
        if kind != Congestion::Ecn && self.rate_based() {
            self.rate.halve();
            self.frac = self.rate_frac();
        } else if kind != Congestion::Ecn {
            self.frac -= self.frac / 2;
        } else if std::mem::take(&mut self.halve_next) {
            self.frac -= self.frac / 2;
            self.cwr_stamp = Some(self.now);
        } else {
            let recent = self.cwr_stamp.is_some_and(|t| self.now.saturating_since(t) < self.target);
            if self.rtt_independent() && recent {
                return w.cwnd; // at most one reduction per target RTT
            }
            self.cwr_stamp = Some(self.now);
            if self.rate_based() {
                self.rate.reduce(self.reduction_alpha(), ALPHA_BITS);
                self.frac = self.rate_frac();
                return self.reduced(w);
            }
            let cut = (u128::from(self.reduction_alpha()) * u128::from(self.frac) + u128::from(ALPHA_ONE))
                >> (ALPHA_BITS + 1);
            self.frac -= (cut as u64).min(self.frac);
        }
        self.reduced(w)
    }

    fn codepoint(&self) -> Ecn {
        Ecn::Ect1
    }

    fn pacing_rate(&self, _now: Instant) -> Option<u64> {
        self.paced.filter(|_| !self.fallback)
    }

    /// Prague's α shows in DCTCP's column: the same estimate (RFC 9331 §4.3).
    fn probes(&self, report: ProbeReport) {
        report(super::dctcp::ALPHA, Some(self.alpha()));
    }

    fn grows_on_marked_acks(&self) -> bool {
        !self.fallback
    }

    /// The reference's `.cong_control = prague_cong_control` (`prague-reno` has none).
    fn has_cong_control(&self) -> bool {
        !self.fallback
    }

    fn needs_accecn(&self) -> bool {
        self.feedback == PragueFeedback::AccEcn
    }

    fn fall_back(&mut self) {
        self.fallback = true;
    }
}

#[cfg(test)]
#[path = "prague_tests.rs"]
mod tests;

//! The congestion-control seam, after Linux `tcp_congestion_ops`, ns-3
//! `TcpCongestionOps` and quinn's `Controller`.
//!
//! A congestion control decides two things and nothing else:
//! - how cwnd grows on an ACK of new data outside loss recovery and outside
//!   the ACK that carried a reduction ([`CongestionControl::on_ack`]);
//! - what ssthresh a congestion event leaves ([`CongestionControl::ssthresh`]),
//!   given its kind (loss, ECN, timeout, Source Quench) and FlightSize.
//!
//! Loss recovery (`recovery.rs`) owns the phases and sets cwnd from that
//! ssthresh (cwnd = ssthresh after ECN, ssthresh + 3·SMSS in NewReno's
//! recovery, one segment after a timeout); the connection stamps every new
//! data segment with [`CongestionControl::codepoint`]. Every ACK of new data is
//! also shown to [`CongestionControl::on_feedback`] with its ECE flag, before
//! any reaction (DCTCP's α; a no-op for the others).
//!
//! Adding a congestion control: one file in this folder implementing the
//! trait, one line in [`registry!`] below, one entry in the scenario schema
//! (`python/ecnlab/params.py`, `TCP_CCS`). Its knobs, if any, are a struct in its
//! file (defaults, `validate`), held by a flattened `TcpConfig` field.
//! `docs/architecture.md` lists the steps.

mod bbr;
mod bbr_v3;
mod cubic;
mod cubic_linux;
pub(crate) mod dctcp;
mod hystart;
mod minmax;
mod prague;
mod prague_classic;
mod prague_rate;
mod reno;

use crate::config::{CcKind, TcpConfig};
use crate::rate_sample::{RateSample, RateSampler};
use crate::window::{CaState, Window};
use ecnlab_wire::{Duration, Ecn, Instant};

pub(crate) use bbr::{echoes_ce_precisely as bbr_echoes_ce_precisely, Bbr};
pub use bbr::{BbrKnobs, BbrVersion};
pub(crate) use cubic::Cubic;
pub use cubic::CubicKnobs;
pub(crate) use dctcp::Dctcp;
pub use dctcp::DctcpKnobs;
pub use prague::PragueKnobs;
pub(crate) use prague::{echoes_as_dctcp as prague_echoes_as_dctcp, Prague};
pub(crate) use reno::Reno;

/// Each congestion control's knob keys, by its `tcp.cc` name (a control without knobs has no
/// entry): the rows in its file, beside its `<Name>Knobs` struct.
pub const KNOB_KEYS: &[(CcKind, &[ecnlab_wire::keys::Key])] = &[
    (CcKind::Dctcp, dctcp::KEYS),
    (CcKind::Prague, prague::KEYS),
    (CcKind::Bbr, bbr::KEYS),
    (CcKind::Cubic, cubic::KEYS),
];

/// What an ACK of new data tells the congestion control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ack {
    pub(crate) now: Instant,
    /// Bytes newly acknowledged by this ACK.
    pub(crate) acked: u64,
    /// An RTT sample taken from this ACK (Karn's rule applied).
    pub(crate) rtt: Option<Duration>,
}

/// The ECN feedback of an ACK of new data (RFC 8257 §3.3), after snd_una moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Feedback {
    /// Payload bytes newly acknowledged.
    pub(crate) acked: u64,
    /// The ACK carried ECE (RFC 3168), or told of new CE marks by ACE (RFC 9768).
    pub(crate) ece: bool,
    /// Of `acked`, the bytes deemed CE-marked: all of them with ECE (RFC 8257
    /// §3.3), the ACE count's estimate with AccECN (`accecn.rs`).
    pub(crate) marked: u64,
    /// SND.UNA after this ACK.
    pub(crate) una: u64,
    /// SND.NXT: one past the highest byte sent.
    pub(crate) snd_nxt: u64,
    /// The bytes still in the network after this ACK, Linux's `tcp_packets_in_flight`
    /// (`Sender::in_flight`: FlightSize less what is SACKed or deemed lost).
    pub(crate) in_flight: u64,
    pub(crate) now: Instant,
    /// This ACK's RTT sample (Karn's rule applied), and the smoothed RTT after it.
    pub(crate) rtt: Option<Duration>,
    pub(crate) srtt: Option<Duration>,
    /// The RTT of the newest segment this ACK covers, on every ACK (only with
    /// `hystart`: `Sender::ack_rtt_sample`); `rtt` is RFC 6298's one per round.
    pub(crate) ack_rtt: Option<Duration>,
}

/// What the connection tells a congestion control that sets cwnd from rate samples,
/// beside the sample itself (`CongestionControl::cong_control`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RateCtx {
    pub(crate) now: Instant,
    /// Bytes in flight after this ACK (`tcp_packets_in_flight`).
    pub(crate) in_flight: u64,
    /// The loss-recovery state after this ACK (Linux's `icsk_ca_state`).
    pub(crate) phase: CaState,
    /// ECN was negotiated.
    pub(crate) ecn: bool,
    pub(crate) srtt: Option<Duration>,
}

/// The names of the values congestion controls show the time series
/// (`CongestionControl::probes`), in the order of the series' columns: each
/// control's file names its own; a control with probes adds them here.
pub const PROBES: [&str; 3] = [dctcp::ALPHA, cubic::W_MAX, cubic::EPOCH];

/// Where a congestion control reports its probes: the name (one of
/// [`PROBES`]) and its value now, `None` for a null (a value not yet defined).
pub type ProbeReport<'a> = &'a mut dyn FnMut(&'static str, Option<f64>);

/// Why the window is being reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Congestion {
    /// Fast retransmit (duplicate ACKs, SACK loss detection).
    Loss,
    /// ECN-Echo (RFC 3168 §6.1.2).
    Ecn,
    /// An ICMP Source Quench (Floyd 1994 §4).
    Quench,
    /// The retransmission timer expired.
    Timeout,
}

/// One congestion-control algorithm (see the module documentation).
pub(crate) trait CongestionControl {
    /// The name reported in results (`cc` of a flow).
    fn name(&self) -> &'static str;
    /// Grow `w.cwnd` for an ACK of new data (outside recovery).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);
    /// The ssthresh a congestion event of `kind` leaves, FlightSize `flight` bytes.
    fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32;
    /// The ECN codepoint of new data when ECN is in use; fixed from construction (and
    /// after `fall_back`): the sender reads it once.
    fn codepoint(&self) -> Ecn {
        Ecn::Ect0
    }
    /// Every ACK of new data, with its ECE flag, before any reaction to it.
    fn on_feedback(&mut self, _fb: &Feedback) {}
    /// Reports each of this control's probes ([`PROBES`]) with its value now;
    /// a probe not reported is absent for this sender.
    fn probes(&self, _report: ProbeReport) {}
    /// Grow on the unmarked bytes of an ACK that reports CE marks, and on the
    /// ACK that made an ECN reduction (Prague); otherwise an ECN-Echo ACK never
    /// grows cwnd (RFC 3168 §6.1.2).
    fn grows_on_marked_acks(&self) -> bool {
        false
    }
    /// Has Linux's `cong_control` hook (Prague's reference): `tcp_cong_control`
    /// hands it every ACK and returns before `tcp_cwnd_reduction`, and
    /// `tcp_end_cwnd_reduction` returns at once: in CWR the window is the
    /// algorithm's own on every ACK, no PRR (`recovery.rs`). Otherwise Linux's PRR.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// Needs AccECN feedback (Prague): without it, [`Self::fall_back`].
    fn needs_accecn(&self) -> bool {
        false
    }
    /// AccECN was not negotiated: the connection gives up ECN and this runs as its fallback.
    fn fall_back(&mut self) {}
    /// A pacing rate of its own at `now`, bytes per second, in place of
    /// `pacing.rs`'s ratio · cwnd / srtt (Prague v0.7's rate-based mode); `None`: that one.
    fn pacing_rate(&self, _now: Instant) -> Option<u64> {
        None
    }
    /// Linux's `min_tso_segs`: the fewest segments of a burst paced at that rate
    /// (`tso.rs`); `tcp_min_tso_segs` unless the congestion control says.
    fn min_tso_segs(&self) -> u32 {
        crate::tso::MIN_TSO_SEGS
    }
    /// Asks the sender for delivery-rate samples (`rate_sample.rs`) and
    /// [`Self::cong_control`] on every ACK (BBR).
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Linux's `cong_control`: on every ACK, after loss recovery, set cwnd (and any
    /// pacing rate) from the sample; cwnd is as it was before the ACK.
    fn cong_control(&mut self, _w: &mut Window, _rs: &RateSample, _ctx: &RateCtx, _r: &mut RateSampler) {}
    /// A retransmission timeout (with rate samples): the flight is counted lost
    /// (`tcp_timeout_mark_lost`) and cwnd is one segment; Linux's `set_state(TCP_CA_Loss)`.
    fn on_timeout(&mut self, _w: &Window, _r: &RateSampler) {}
    /// The connection is established: its MSS, window and first RTT are known.
    fn on_established(&mut self, _w: &mut Window, _srtt: Option<Duration>) {}
    /// A seed for the algorithm's own random draws (BBR), from the simulator's seeded stream.
    fn seed(&mut self, _seed: u64) {}
}

/// The registry: one line per congestion control, `Kind => Type`, with `(knobs)` when it has
/// knobs of its own (a `TcpConfig` field of that name, the struct in its file):
/// `Type::new(cfg, &cfg.knobs)`, else `Type::new(cfg)`. `[boxed]` before the type keeps a
/// large state on the heap, so that every connection of the other controls does not carry
/// its room (the enum is as large as its largest inline variant; per-flow state).
macro_rules! registry {
    ($($kind:ident => $([$boxed:ident])? $ty:ident $(($knobs:ident))?),* $(,)?) => {
        /// Every congestion control, dispatched without a vtable.
        #[derive(Clone, Debug)]
        pub(crate) enum AnyCc { $($kind(held!($([$boxed])? $ty))),* }

        impl AnyCc {
            pub(crate) fn new(cfg: &TcpConfig) -> Self {
                match cfg.cc { $(CcKind::$kind => AnyCc::$kind(hold!($([$boxed])? $ty::new(cfg $(, &cfg.$knobs)?)))),* }
            }

            /// [`CongestionControl::on_feedback`] with the feedback built in each control's arm:
            /// a control that ignores it (Reno) costs its ACK path no stores.
            #[inline(always)]
            pub(crate) fn on_feedback_with(&mut self, fb: impl FnOnce() -> Feedback) {
                match self { $(AnyCc::$kind(c) => c.on_feedback(&fb())),* }
            }
        }

        impl CongestionControl for AnyCc {
            fn name(&self) -> &'static str {
                match self { $(AnyCc::$kind(c) => c.name()),* }
            }
            #[inline]
            fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
                match self { $(AnyCc::$kind(c) => c.on_ack(w, ack)),* }
            }
            #[inline]
            fn ssthresh(&mut self, w: &Window, kind: Congestion, flight: u64) -> u32 {
                match self { $(AnyCc::$kind(c) => c.ssthresh(w, kind, flight)),* }
            }
            #[inline]
            fn codepoint(&self) -> Ecn {
                match self { $(AnyCc::$kind(c) => c.codepoint()),* }
            }
            #[inline]
            fn on_feedback(&mut self, fb: &Feedback) {
                match self { $(AnyCc::$kind(c) => c.on_feedback(fb)),* }
            }
            fn probes(&self, report: ProbeReport) {
                match self { $(AnyCc::$kind(c) => c.probes(report)),* }
            }
            #[inline]
            fn grows_on_marked_acks(&self) -> bool {
                match self { $(AnyCc::$kind(c) => c.grows_on_marked_acks()),* }
            }
            #[inline]
            fn has_cong_control(&self) -> bool {
                match self { $(AnyCc::$kind(c) => c.has_cong_control()),* }
            }
            fn needs_accecn(&self) -> bool {
                match self { $(AnyCc::$kind(c) => c.needs_accecn()),* }
            }
            fn fall_back(&mut self) {
                match self { $(AnyCc::$kind(c) => c.fall_back()),* }
            }
            #[inline]
            fn pacing_rate(&self, now: Instant) -> Option<u64> {
                match self { $(AnyCc::$kind(c) => c.pacing_rate(now)),* }
            }
            fn min_tso_segs(&self) -> u32 {
                match self { $(AnyCc::$kind(c) => c.min_tso_segs()),* }
            }
            #[inline]
            fn wants_rate_samples(&self) -> bool {
                match self { $(AnyCc::$kind(c) => c.wants_rate_samples()),* }
            }
            fn cong_control(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
                match self { $(AnyCc::$kind(c) => c.cong_control(w, rs, ctx, r)),* }
            }
            fn on_timeout(&mut self, w: &Window, r: &RateSampler) {
                match self { $(AnyCc::$kind(c) => c.on_timeout(w, r)),* }
            }
            fn on_established(&mut self, w: &mut Window, srtt: Option<Duration>) {
                match self { $(AnyCc::$kind(c) => c.on_established(w, srtt)),* }
            }
            fn seed(&mut self, seed: u64) {
                match self { $(AnyCc::$kind(c) => c.seed(seed)),* }
            }
        }
    };
}

/// A registry line's variant type: the control, or with `[boxed]` a box of it.
macro_rules! held {
    ([boxed] $ty:ident) => { Box<$ty> };
    ($ty:ident) => { $ty };
}

/// A registry line's value: the control built, or with `[boxed]` boxed.
macro_rules! hold {
    ([boxed] $e:expr) => {
        Box::new($e)
    };
    ($e:expr) => {
        $e
    };
}

registry! {
    Reno => Reno,
    Cubic => Cubic(cubic),
    Dctcp => Dctcp(dctcp),
    Prague => [boxed] Prague(prague),
    Bbr => [boxed] Bbr(bbr),
}

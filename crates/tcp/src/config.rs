//! Per-connection TCP configuration (canonical units: bytes, nanoseconds).

use ecnlab_wire::key;
use ecnlab_wire::keys::{above, range, variants, Allowed, Allowed::*, Key};
use serde::{Deserialize, Serialize};

/// Loss detection and recovery (`recovery.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// RFC 5681 fast retransmit and fast recovery; a partial ACK ends recovery.
    Reno,
    /// RFC 6582: stays in recovery until `recover` is acknowledged.
    #[serde(rename = "newreno")]
    NewReno,
    /// RFC 2018 SACK with RFC 6675 loss recovery.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// Congestion control (`cc/`): one variant per file there, see `cc/mod.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// RFC 5681 AIMD (`cc/reno.rs`).
    Reno,
    /// RFC 9438 CUBIC (`cc/cubic.rs`).
    Cubic,
    /// RFC 8257 DCTCP (`cc/dctcp.rs`); its receiver feedback in `recv.rs`.
    Dctcp,
    /// TCP Prague, RFC 9331 §4 (`cc/prague.rs`), on AccECN feedback.
    Prague,
    /// BBR v1 or v3 (`cc/bbr.rs`), from delivery-rate samples (`rate_sample.rs`).
    Bbr,
}

impl CcKind {
    /// The name in scenarios and results (`tcp.cc`, a flow's `cc`).
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Reno => "reno",
            CcKind::Cubic => "cubic",
            CcKind::Dctcp => "dctcp",
            CcKind::Prague => "prague",
            CcKind::Bbr => "bbr",
        }
    }
}

/// When NewReno's recovery restarts the retransmission timer (RFC 6582 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoTimer {
    /// On the first partial ACK only (RFC 6582 §3.2 step 5, recommended in §4).
    Impatient,
    /// On every partial ACK (RFC 6582 §4's alternative; ns-2's NewReno).
    SlowButSteady,
}

/// How a window reduction sets ssthresh and cwnd (`recovery.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowArith {
    /// RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS); cwnd from ssthresh;
    /// ssthresh starts arbitrarily high (§3.1).
    Rfc5681,
    /// ns-2.35 `slowdown()`: W = min(cwnd, rwnd) (with Reno's inflation),
    /// ssthresh = max(2, ⌊W/2⌋) segments, a halved cwnd keeps the fraction
    /// (W/2, in bytes), a repeated timeout halves again; ssthresh starts at
    /// the window (`ssthresh_ = window_` in `reset()`).
    Ns2,
}

/// The retransmission timer's arithmetic (`rtt.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoArith {
    /// RFC 6298 with a coarse clock: samples floored to ticks, RTO rounded up
    /// to ticks, expiry on a tick boundary.
    Rfc6298,
    /// ns-2.35: integer-tick SRTT/RTTVAR with the clock phase `clock_phase_ns`,
    /// RTO = max(min_rto, ⌊srtt + 4·rttvar⌋ ticks)·backoff, expiry exactly one
    /// RTO after the timer starts.
    Ns2,
    /// Linux `tcp_rtt_estimator`/`tcp_set_rto` (`rtt_linux.rs`): RTO = srtt + rttvar,
    /// rttvar at least min_rto, so at least srtt + min_rto.
    Linux,
}

/// How an ACK of new data grows the window (`TcpConfig::growth_arith`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthArith {
    /// RFC 5681 and RFC 3465: the bytes the ACK acknowledges cumulatively; in
    /// slow start cwnd += min(N, L·SMSS), past ssthresh if N is large.
    #[default]
    Rfc5681,
    /// Linux `tcp_cong_control`: the data the ACK newly delivered (cumulatively or
    /// by SACK, not again what SACK had delivered: `acked_sacked`), and Reno's
    /// slow start as `tcp_slow_start`: cwnd = min(cwnd + delivered, ssthresh), the
    /// rest of the ACK into congestion avoidance (`tcp_reno_cong_avoid`).
    Linux,
}

/// How many segments leave together (`TcpConfig::tso`, `tso.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tso {
    /// Each segment as soon as the window has room for it (the RFC model).
    #[default]
    None,
    /// Linux's TSO/GSO buffers: bursts of `tcp_tso_autosize` segments (about 1 ms
    /// of the pacing rate, at least 2); a smaller room is held back by
    /// `tcp_tso_should_defer` until the next ACK (`tso.rs`). Not with `pacing`.
    Linux,
}

/// The receive window this endpoint offers (`TcpConfig::rcv_autotune`, `rcvbuf.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RcvAutotune {
    /// `rwnd_bytes` throughout.
    #[default]
    Off,
    /// Linux's receive-buffer autotuning (Dynamic Right-Sizing): about twice the
    /// data read in the last round trip, at most `rwnd_bytes` (`rcvbuf.rs`).
    Linux,
}

/// Which TCP Prague the congestion control is (`PragueKnobs::version`,
/// `cc/prague.rs`): the L4S team's reference module `tcp_prague.c` by its
/// `MODULE_VERSION`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PragueVersion {
    /// Version 0.7: the rate-based mode below 4 × 1500 B of window (`cc/prague_rate.rs`).
    #[default]
    #[serde(rename = "v0.7")]
    V07,
    /// Version 0.6: α from 1, 500 rounds of RTT transition, no rate-based mode (`cc/prague.rs`).
    #[serde(rename = "v0.6")]
    V06,
}

impl PragueVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            PragueVersion::V06 => "v0.6",
            PragueVersion::V07 => "v0.7",
        }
    }
}

/// How a TCP Prague sender learns of CE marks (`PragueKnobs::feedback`, `cc/prague.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PragueFeedback {
    /// AccECN (RFC 9331 §4.2, RFC 9768), as the reference; without it negotiated the
    /// flow runs as Reno without ECN (`prague-reno`).
    #[default]
    #[serde(rename = "accecn")]
    AccEcn,
    /// RFC 3168 negotiation with DCTCP's receiver echo (RFC 8257 §3.2: ECE on exactly the
    /// ACKs of CE segments), as ecnlab's BPF Prague-like on a kernel without AccECN; no
    /// fallback to Reno.
    #[serde(rename = "dctcp")]
    Dctcp,
}

impl PragueFeedback {
    pub fn as_str(self) -> &'static str {
        match self {
            PragueFeedback::AccEcn => "accecn",
            PragueFeedback::Dctcp => "dctcp",
        }
    }
}

/// ECN use (RFC 3168, RFC 5562).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EcnMode {
    /// No ECN: the SYN does not ask for it, a responder does not accept it.
    #[serde(rename = "off")]
    Off,
    /// RFC 3168: ask for (initiator) or accept (responder) ECN, §6.1.1.
    #[serde(rename = "classic")]
    Classic,
    /// RFC 3168 plus RFC 5562: the responder's SYN-ACK is ECT(0).
    #[serde(rename = "ecn+")]
    EcnPlus,
    /// RFC 9768 AccECN feedback, the ACE field and the AccECN option as
    /// `accecn_option` says (`accecn.rs`): the SYN asks
    /// for it (falling back to classic ECN or none by the SYN-ACK), a responder
    /// accepts AccECN or classic ECN.
    #[serde(rename = "accecn")]
    AccEcn,
}

impl EcnMode {
    /// ECN is asked for / accepted in the handshake.
    pub fn enabled(self) -> bool {
        self != EcnMode::Off
    }
}

/// A connection's TCP configuration. In JSON, a `"personality"` key names the
/// personality whose values fill every field not given (`personality.rs`; `rfc`
/// when absent), so the personality table is the one source of defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct TcpConfig {
    pub recovery: Recovery,
    pub cc: CcKind,
    /// Payload bytes in a full-sized segment.
    pub mss: u32,
    /// Initial congestion window, in segments (RFC 5681 §3.1 allows 2–4).
    pub init_cwnd_segments: u32,
    /// Receive window this endpoint advertises; also caps what it sends.
    pub rwnd_bytes: u32,
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK every second full segment.
    pub delayed_ack: bool,
    /// Longest an ACK is delayed.
    pub delack_timeout_ns: u64,
    /// ECN: off, RFC 3168, RFC 3168 with RFC 5562's ECT SYN-ACK (only when ECN is
    /// negotiated), or RFC 9768 AccECN (ACE field).
    pub ecn: EcnMode,
    /// The least congestion window, in segments, that an ECN-Echo (or Source
    /// Quench) reduction leaves: 1 = RFC 3168 §6.1.2 as written (and ns-2): the
    /// halving may leave one segment, and ECE at one segment holds sending until
    /// the retransmission timer; 2 = ns-3 (`EnterCwr` with classic recovery) and
    /// Linux (`tcp_enter_cwr`, PRR down to ssthresh): cwnd = ssthresh =
    /// max(FlightSize/2, 2·SMSS), no hold. `recovery.rs`, `halve_window`.
    pub ecn_min_cwnd_segments: u32,
    /// TCP clock tick: RTT samples, RTO values and timer expiries are whole ticks.
    pub clock_granularity_ns: u64,
    /// RFC 6298 (2.4) lower bound on the RTO.
    pub min_rto_ns: u64,
    /// RFC 6298 (2.1) RTO before the first RTT sample (also the SYN timer).
    pub initial_rto_ns: u64,
    /// Upper bound on the backed-off RTO.
    pub max_rto_ns: u64,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// Appropriate byte counting (RFC 3465): 0 = cwnd grows per ACK of new
    /// data whatever it covers (RFC 5681 eq. 2 and 3 per ACK, ns-2); L ≥ 1 =
    /// by bytes acknowledged, at most L·SMSS per ACK in slow start, one SMSS
    /// per cwnd of bytes in congestion avoidance (`cc/reno.rs`).
    pub abc: u32,
    /// Limited Transmit (RFC 3042): `rules/limited_transmit.rs`.
    pub limited_transmit: crate::rules::limited_transmit::LimitedTransmit,
    /// ABE (RFC 8511): an ECN-Echo reduction multiplies by β_ecn, larger than the loss β
    /// (0.8 for Reno, 0.85 for CUBIC, each congestion control's file), instead of the loss β.
    pub abe: bool,
    /// NewReno's retransmission timer during recovery (RFC 6582 §4).
    pub newreno_timer: NewRenoTimer,
    /// Window scaling (RFC 7323 §2): the SYN offers a shift when `rwnd_bytes`
    /// exceeds 65535 (4 option bytes on the SYN and SYN-ACK), and captures
    /// show windows scaled. Off: no option (ns-2 has no TCP options).
    pub window_scale: bool,
    /// Whether retransmissions are ECT and carry CWR as new data does (ns-2.35) or not (RFC 3168
    /// §6.1.5): `rules/ect_marking.rs`.
    pub ecn_on_retransmit: crate::rules::ect_marking::RetransmitEct,
    /// Every packet of an ECN connection ECT (Linux and ns-3 with DCTCP; the front sets it with `cc
    /// = dctcp` or `prague`), or new data only (RFC 3168 §6.1.4): `rules/ect_marking.rs`.
    pub ect_all_packets: crate::rules::ect_marking::EctPackets,
    /// Which recoveries wait for the cumulative ACK to pass `recover` (ns-2.35 `bugFix_`: all):
    /// `rules/recover_guard.rs`.
    pub recover_guard_all: crate::rules::recover_guard::GuardedRecoveries,
    /// Whether SACK recovery waits for `recover` (RFC 6675 §5) or not (Linux):
    /// `rules/recover_guard.rs`.
    pub sack_recover_guard: crate::rules::recover_guard::SackGuard,
    /// How window reductions set ssthresh and cwnd: RFC 5681 or ns-2.35.
    pub window_arith: WindowArith,
    /// What a retransmitted SYN carries of ECN setup: an ECN-setup SYN again, or
    /// nothing (RFC 3168 §6.1.1.1's fallback, Linux `tcp_ecn_clear_syn`);
    /// `rules/syn_fallback.rs`.
    pub syn_ecn_fallback: crate::rules::syn_fallback::SynEcnFallback,
    /// Which of RFC 9768's tests of the path an AccECN endpoint makes (the handshake's
    /// IP-ECN field, ACE zeroed, the option zeroed) and how it reacts; `rules/accecn_checks.rs`.
    pub accecn_checks: crate::rules::accecn_checks::AccEcnChecks,
    /// With delayed ACKs, the SYN answered at once (RFC 793) or delayed (ns-2 `SYN_immediate_ack_`
    /// false): `rules/receiver_ack.rs`.
    pub syn_immediate_ack: crate::rules::receiver_ack::SynAck,
    /// The retransmission timer's arithmetic: RFC 6298, ns-2.35 or Linux.
    pub rto_arith: RtoArith,
    /// How an ACK grows the window: RFC 5681/3465 or Linux's (`GrowthArith`).
    pub growth_arith: GrowthArith,
    /// Segments in bursts as Linux's TSO/GSO sends them, or one by one (`Tso`).
    pub tso: Tso,
    /// The receive window: `rwnd_bytes` throughout, or autotuned as Linux's (`RcvAutotune`).
    pub rcv_autotune: RcvAutotune,
    /// `rto_arith = ns2`: the phase of the TCP clock, < `clock_granularity_ns`
    /// (ns-2's `boot_time_`, one uniform draw of a tick per agent).
    pub clock_phase_ns: u64,
    /// A second ECN-Echo in a row at one segment doubles the hold (ns-2.35 `ecn_backoff_`), or
    /// every hold is one RTO (RFC 3168 §6.1.2): `rules/rtx_timer.rs`.
    pub ecn_backoff: crate::rules::rtx_timer::EcnHold,
    /// With delayed ACKs, the CE segment that starts the ECE echo ACKed at once (RFC 3168 §6.1.3,
    /// Linux) or delayed (ns-2.35): `rules/receiver_ack.rs`.
    pub ack_ce_at_once: crate::rules::receiver_ack::CeAck,
    /// With delayed ACKs, a data segment carrying CWR ACKed at once and a CE one starting two quick
    /// ACKs (Linux `tcp_ecn_accept_cwr`, `tcp_data_ecn_check`), or neither: `rules/receiver_ack.rs`.
    pub ecn_quickack: crate::rules::receiver_ack::EcnQuickAck,
    /// SACK recovery also on RFC 6675 IsLost, or on duplicate ACKs only (ns-2.35 Sack1):
    /// `rules/loss_detection.rs`.
    pub sack_is_lost: crate::rules::loss_detection::SackRecoveryTrigger,
    /// A fast retransmit restarts the retransmission timer (ns-2.35) or keeps it (RFC 6298 (5.1)):
    /// `rules/rtx_timer.rs`.
    pub rtx_restart_on_fr: crate::rules::rtx_timer::FastRetransmitTimer,
    /// Limited Transmit also after an ECN reduction or a timeout (ns-2.35 `send_one()`), or from
    /// Open only (RFC 3042 §2): `rules/limited_transmit.rs`.
    pub limited_transmit_all: crate::rules::limited_transmit::LimitedTransmitPhases,
    /// After a timeout no fast retransmit until the ACK passes snd_max at the timeout (RFC 6582
    /// §4), or no such guard (ns-2.35 `bugFix_` false): `rules/recover_guard.rs`.
    pub guard_after_timeout: crate::rules::recover_guard::TimeoutGuard,
    /// An ACK of new data restarts the timer before its RTT sample (ns-2.35 `timerfix_` false) or
    /// after (RFC 6298): `rules/rtx_timer.rs`.
    pub timer_before_sample: crate::rules::rtx_timer::NewAckTimer,
    /// What a window reduction halves: FlightSize (RFC 5681 eq. (4), RFC 3168
    /// §6.1.2, RFC 9438 §4.6) or cwnd (Linux: `tcp_reno_ssthresh` and CUBIC's
    /// `bictcp_recalc_ssthresh` read `snd_cwnd`, for loss, ECN and timeout alike).
    pub ssthresh_basis: SsthreshBasis,
    /// After a timeout the SACK scoreboard kept, its holes lost (RFC 6675 §5.1, Linux), or cleared
    /// (RFC 2018 §8): `rules/timeout.rs`.
    pub sack_after_rto: crate::rules::timeout::RtoScoreboard,
    /// A timeout during a fast recovery keeps its ssthresh (Linux `tcp_enter_loss`) or recomputes
    /// it (RFC 5681): `rules/timeout.rs`.
    pub rto_keeps_recovery_ssthresh: crate::rules::timeout::RtoInRecovery,
    /// Proportional Rate Reduction (RFC 6937, Linux) or cwnd = ssthresh at once:
    /// `rules/reduction.rs`.
    pub prr: crate::rules::reduction::WindowReduction,
    /// Without SACK, duplicate ACKs counted as SACKed segments (Linux `tcp_add_reno_sack`) or
    /// inflating cwnd (RFC 6582): `rules/reduction.rs`.
    pub dupacks_as_sacks: crate::rules::reduction::DupAckAccounting,
    /// The FIN on the last data segment (Linux `tcp_send_fin`) or a segment of its own (RFC 793):
    /// `rules/fin.rs`.
    pub fin_with_data: crate::rules::fin::FinPlacement,
    /// RACK's loss marking (RFC 8985, Linux) or RFC 6675 IsLost in SACK recovery:
    /// `rules/loss_detection.rs`.
    pub rack: crate::rules::loss_detection::LossMarking,
    /// Tail Loss Probe (RFC 8985 §7, Linux) or the retransmission timer for a tail loss:
    /// `rules/loss_detection.rs`.
    pub tlp: crate::rules::loss_detection::TailLoss,
    /// The window after an idle period longer than the RTO (`idle.rs`): off,
    /// RFC 5681 §4.1 (cwnd = min(cwnd, IW)) or Linux's `tcp_cwnd_restart`
    /// (halved per RTO idle, not below IW; ssthresh = max(ssthresh, ¾·cwnd)).
    pub idle_restart: crate::idle::IdleRestart,
    /// Pace data segments at ratio/100 · cwnd / srtt (`pacing.rs`), the ratio
    /// `pacing_ss_ratio` in slow start (cwnd < ssthresh/2) and
    /// `pacing_ca_ratio` otherwise, percent (Linux `tcp_pacing_ss_ratio` 200,
    /// `tcp_pacing_ca_ratio` 120). Off: segments leave as the window allows.
    pub pacing: bool,
    pub pacing_ss_ratio: u32,
    pub pacing_ca_ratio: u32,
    /// With AccECN negotiated, which segments carry the AccECN option
    /// (RFC 9768 §3.2.3; `accecn.rs`): Linux's `tcp_ecn_option`, 0, 1 or 2.
    pub accecn_option: AccEcnOptionPolicy,
    /// With `accecn_option` = minimum, the option also goes out once
    /// 1/beacon of the smoothed RTT has passed since the last one (Linux's
    /// `tcp_ecn_option_beacon`, 0 ..= 3, default 3; 0: no beacon).
    pub accecn_option_beacon: u8,
    /// Each congestion control's knobs, a struct in its file (`cc/cubic.rs`, `cc/dctcp.rs`,
    /// `cc/prague.rs`, `cc/bbr.rs`) with their defaults and checks; in JSON their keys are
    /// flat among the others (`cubic_arith`, `hystart`, `dctcp_shift_g`, …).
    #[serde(flatten)]
    pub cubic: crate::cc::CubicKnobs,
    #[serde(flatten)]
    pub dctcp: crate::cc::DctcpKnobs,
    #[serde(flatten)]
    pub prague: crate::cc::PragueKnobs,
    #[serde(flatten)]
    pub bbr: crate::cc::BbrKnobs,
}

/// `TcpConfig`'s scenario keys (`[tcp]`, a flow's `tcp`), in its field order after the
/// personality; each congestion control's knobs are its file's `KEYS`. The defaults are the
/// `rfc` personality's (`personality.rs`); `crates/sim/src/scenario_schema.rs` emits them.
pub const KEYS: &[Key] = &[
    key!("personality", Choice, Variants(variants::<crate::personality::Personality>), "the bundle of defaults applied first (personality.rs): the RFCs, ns-2.35's Agent/TCP or Linux; any key beside it wins"),
    key!("recovery", Choice, Variants(variants::<Recovery>), "loss recovery: Tahoe, Reno (RFC 5681), NewReno (RFC 6582), SACK (RFC 2018 + RFC 6675)"),
    key!("variant" => "recovery", Choice, Variants(variants::<Recovery>), "the older name of recovery; give one of the two"),
    key!("cc", Choice, Variants(variants::<CcKind>), "congestion control: Reno AIMD (RFC 5681), CUBIC (RFC 9438), DCTCP (RFC 8257), TCP Prague (RFC 9331 §4), BBR (tcp_bbr.c)"),
    key!("mss", Integer, range(64., 65495.), "payload bytes of a full segment (an IPv4 packet's 65535 bytes at most)"),
    key!("init_cwnd" => "init_cwnd_segments", Integer, range(1., 100.), "initial congestion window, segments (RFC 5681 §3.1)"),
    key!("rwnd" => "rwnd_bytes", Size, above(0., 4294967295.), "receive window each endpoint advertises (at least mss)"),
    key!("delayed_ack", Boolean, Any, "ACK every second full segment (RFC 1122 §4.2.3.2, RFC 5681 §4.2)"),
    key!("delack_timeout" => "delack_timeout_ns", Duration, POSITIVE, "longest an ACK is delayed"),
    key!("ecn", Choice, Variants(variants::<EcnMode>), "ECN: none, RFC 3168, with ECN+ (RFC 5562) or AccECN (RFC 9768); also true (= classic) or false"),
    key!("ecn_plus" => -, Boolean, Any, "ECN+ (RFC 5562): the responder's SYN-ACK is ECT (ecn = \"ecn+\"); may not contradict an ecn mode name"; Derived("false")),
    key!("ecn_min_cwnd" => "ecn_min_cwnd_segments", Integer, range(1., 2.), "least window an ECN-Echo or Source Quench cut leaves: 1 RFC 3168 §6.1.2 (ns-2), 2 ns-3 and Linux"),
    key!("clock_granularity" => "clock_granularity_ns", Duration, POSITIVE, "TCP clock tick: RTT samples, RTO values and timer expiries are whole ticks"),
    key!("min_rto" => "min_rto_ns", Duration, Any, "lower bound on the RTO (RFC 6298 (2.4)), at most max_rto"),
    key!("initial_rto" => "initial_rto_ns", Duration, POSITIVE, "RTO before the first RTT sample, also the SYN timer (RFC 6298 (2.1)), at most max_rto"),
    key!("max_rto" => "max_rto_ns", Duration, POSITIVE, "upper bound on the backed-off RTO"),
    key!("dupack_threshold", Integer, range(1., 1000.), "duplicate ACKs that trigger fast retransmit"),
    key!("abc", Integer, range(0., 100.), "growth per ACK: 0 per ACK (RFC 5681 eq. 2-3, ns-2), L ≥ 1 by bytes acknowledged (RFC 3465)"),
    key!("limited_transmit", Boolean, Any, "RFC 3042: a new segment on each of the first two duplicate ACKs"),
    key!("abe", Boolean, Any, "ABE (RFC 8511): an ECN-Echo multiplies by beta_ecn (Reno 0.8, CUBIC 0.85)"),
    key!("newreno_timer", Choice, Variants(variants::<NewRenoTimer>), "NewReno restarts the retransmission timer on the first partial ACK only, or on each (RFC 6582 §4)"),
    key!("window_scale", Boolean, Any, "RFC 7323 window scaling on the SYNs when rwnd exceeds 65535; false: no option (ns-2)"),
    key!("ecn_on_retransmit", Boolean, Any, "retransmissions ECT, able to carry CWR (ns-2); false: Not-ECT (RFC 3168 §6.1.5)"),
    key!("ect_all_packets", Boolean, Any, "every packet of an ECN connection ECT (Linux, ns-3 with DCTCP; on with cc dctcp or prague); false: RFC 3168 §6.1.4"),
    key!("recover_guard_all", Boolean, Any, "Tahoe and Reno too wait for the ACK to pass recover (ns-2 bugFix_)"),
    key!("sack_recover_guard", Boolean, Any, "no new SACK recovery until the ACK passes the last one's recover (RFC 6675 §5); false: Linux"),
    key!("window_arith", Choice, Variants(variants::<WindowArith>), "how a reduction sets ssthresh and cwnd: RFC 5681, or ns-2's slowdown() in fractional segments"),
    key!("syn_ecn_fallback", Choice, Variants(variants::<crate::rules::syn_fallback::SynEcnFallback>), "a retransmitted SYN asks for ECN again, or for nothing (RFC 3168 §6.1.1.1, Linux)"),
    key!("accecn_checks", Choice, Variants(variants::<crate::rules::accecn_checks::AccEcnChecks>), "AccECN's tests of the path: none, RFC 9768's, or Linux's (rules/accecn_checks.rs)"),
    key!("syn_immediate_ack", Boolean, Any, "with delayed_ack the SYN is answered at once (RFC 793); false: held as ns-2's suite does"),
    key!("rto_arith", Choice, Variants(variants::<RtoArith>), "the retransmission timer's arithmetic: RFC 6298, ns-2.35's integer ticks, or Linux's"),
    key!("growth_arith", Choice, Variants(variants::<GrowthArith>), "an ACK grows the window by bytes cumulatively acknowledged (RFC 5681) or data newly delivered (Linux)"),
    key!("tso", Choice, Variants(variants::<Tso>), "segments one by one, or in Linux's TSO/GSO bursts (tso.rs); paced whole with pacing"),
    key!("rcv_autotune", Choice, Variants(variants::<RcvAutotune>), "the receive window: rwnd throughout, or Linux's autotuning up to rwnd (rcvbuf.rs)"),
    key!("clock_phase" => "clock_phase_ns", Duration, Any, "with rto_arith ns2: the TCP clock's phase, below clock_granularity (ns-2 boot_time_)"),
    key!("ecn_backoff", Boolean, Any, "a second ECN-Echo at a one-segment window doubles the hold (ns-2 ecn_backoff_)"),
    key!("ack_ce_at_once", Boolean, Any, "with delayed_ack, the CE segment that starts the echo ACKed at once (RFC 3168 §6.1.3); false: ns-2"),
    key!("ecn_quickack", Boolean, Any, "with delayed_ack, a CWR data segment ACKed at once and a CE one while no CWR is awaited starting two quick ACKs (Linux)"),
    key!("sack_is_lost", Boolean, Any, "SACK recovery also on RFC 6675's IsLost; false: on duplicate ACKs only (ns-2 Sack1)"),
    key!("rtx_restart_on_fr", Boolean, Any, "a fast retransmit restarts the retransmission timer (ns-2); false: RFC 6298 (5.1)"),
    key!("limited_transmit_all", Boolean, Any, "limited transmit also after an ECN cut or a timeout (ns-2 send_one())"),
    key!("guard_after_timeout", Boolean, Any, "no fast retransmit after a timeout until the ACK passes snd_max (RFC 6582 §4); false: ns-2 bugFix_ false"),
    key!("timer_before_sample", Boolean, Any, "an ACK restarts the timer before its RTT sample clears the backoff (ns-2 timerfix_ false)"),
    key!("ssthresh_basis", Choice, Variants(variants::<SsthreshBasis>), "what a reduction halves: FlightSize (RFC 5681 eq. (4)) or cwnd (Linux)"),
    key!("sack_after_rto", Boolean, Any, "after a timeout keep the SACK scoreboard (RFC 6675 §5.1, Linux); false: clear it (RFC 2018 §8)"),
    key!("rto_keeps_recovery_ssthresh", Boolean, Any, "a timeout in fast recovery keeps its ssthresh (Linux tcp_enter_loss)"),
    key!("prr", Boolean, Any, "Proportional Rate Reduction (RFC 6937) as Linux runs it; false: cwnd = ssthresh at once"),
    key!("dupacks_as_sacks", Boolean, Any, "without SACK a duplicate ACK counts as one segment SACKed (Linux), not RFC 6582's inflation"),
    key!("fin_with_data", Boolean, Any, "the FIN on the last data segment (Linux tcp_send_fin); false: a segment of its own"),
    key!("rack", Boolean, Any, "RACK's loss marking in SACK recovery (RFC 8985 §6.2); false: RFC 6675 IsLost"),
    key!("tlp", Boolean, Any, "Tail Loss Probe (RFC 8985 §7) instead of waiting for the retransmission timer"),
    key!("idle_restart", Choice, Variants(variants::<crate::idle::IdleRestart>), "the window after an RTO of idleness: kept, min(cwnd, IW) (RFC 5681 §4.1), or Linux's halving"),
    key!("pacing", Boolean, Any, "pace data at ratio/100 · cwnd/srtt (pacing.rs); on with cc prague or bbr"),
    key!("pacing_ss_ratio", Integer, range(1., 1000.), "the pacing ratio in slow start, percent (Linux tcp_pacing_ss_ratio)"),
    key!("pacing_ca_ratio", Integer, range(1., 1000.), "the pacing ratio after slow start, percent (Linux tcp_pacing_ca_ratio; 100 with cc prague)"),
    key!("accecn_option", Choice, Names(&["0", "1", "2", "off", "minimum", "full"]), "with AccECN, the segments that carry its option (Linux tcp_ecn_option): none, handshake and changes, all"),
    key!("accecn_option_beacon", Integer, range(0., 3.), "with accecn_option 1: the option also this many times per RTT; 0: no beacon"),
];

/// A positive duration.
const POSITIVE: Allowed = above(0., f64::INFINITY);

/// `DctcpKnobs::arith` (`cc/dctcp.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DctcpArith {
    /// RFC 8257: the window cut in bytes, α in 2^-20 units.
    #[default]
    Rfc8257,
    /// Linux `tcp_dctcp.c`: whole segments, α in 2^-10 units.
    Linux,
}

/// `CubicKnobs::arith` (`cc/cubic.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CubicArith {
    /// RFC 9438: windows and the curve in real numbers, RTT the smoothed RTT.
    #[default]
    Rfc9438,
    /// Linux `tcp_cubic.c`: whole segments, jiffies, the target one minimum RTT ahead.
    Linux,
}

/// `CubicKnobs::hystart` (`cc/cubic.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HyStartMode {
    /// Slow start until ssthresh or a congestion event (RFC 5681).
    #[default]
    #[serde(rename = "off")]
    Off,
    /// Linux's HyStart, ACK train and delay (`tcp_cubic.c`).
    #[serde(rename = "linux")]
    Linux,
    /// RFC 9406 HyStart++.
    #[serde(rename = "hystart++")]
    HyStartPlusPlus,
}

/// `TcpConfig::accecn_option`: Linux's `net.ipv4.tcp_ecn_option` (`accecn.rs`
/// has the rules). Written as Linux's number; the names are read too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "PolicyValue", into = "u8")]
pub enum AccEcnOptionPolicy {
    /// 0, `off`: never, not even on the SYN-ACK; the ACE field alone.
    Off,
    /// 1, `minimum`: the SYN-ACK, and later segments only when Linux's demand
    /// rules or the beacon ask for it.
    Minimum,
    /// 2, `full` (Linux's default): the SYN-ACK and every later segment,
    /// data segments included (their payload shortened to make room).
    #[default]
    Full,
}

impl AccEcnOptionPolicy {
    /// Linux's `tcp_ecn_option` value.
    pub fn value(self) -> u8 {
        match self {
            AccEcnOptionPolicy::Off => 0,
            AccEcnOptionPolicy::Minimum => 1,
            AccEcnOptionPolicy::Full => 2,
        }
    }
}

impl From<AccEcnOptionPolicy> for u8 {
    fn from(p: AccEcnOptionPolicy) -> u8 {
        p.value()
    }
}

/// `accecn_option` as written: Linux's number or its name.
#[derive(Deserialize)]
#[serde(untagged)]
enum PolicyValue {
    Number(u64),
    Name(String),
}

impl TryFrom<PolicyValue> for AccEcnOptionPolicy {
    type Error = String;
    fn try_from(v: PolicyValue) -> Result<Self, String> {
        match v {
            PolicyValue::Number(0) => Ok(AccEcnOptionPolicy::Off),
            PolicyValue::Number(1) => Ok(AccEcnOptionPolicy::Minimum),
            PolicyValue::Number(2) => Ok(AccEcnOptionPolicy::Full),
            PolicyValue::Name(n) if n == "off" => Ok(AccEcnOptionPolicy::Off),
            PolicyValue::Name(n) if n == "minimum" => Ok(AccEcnOptionPolicy::Minimum),
            PolicyValue::Name(n) if n == "full" => Ok(AccEcnOptionPolicy::Full),
            PolicyValue::Number(n) => Err(format!("accecn_option = {n}: 0 (off), 1 (minimum) or 2 (full)")),
            PolicyValue::Name(n) => Err(format!("accecn_option = \"{n}\": 0 (off), 1 (minimum) or 2 (full)")),
        }
    }
}

/// `TcpConfig::ssthresh_basis`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBasis {
    Flight,
    Cwnd,
}

impl Default for TcpConfig {
    /// The `rfc` personality's rules (`personality.rs`), and the scenario-level defaults: Reno
    /// recovery and congestion control, 1460-byte segments, a 65535-byte window, delayed ACKs,
    /// no ECN.
    fn default() -> Self {
        let r = &crate::personality::RFC;
        TcpConfig {
            recovery: Recovery::Reno,
            cc: CcKind::Reno,
            mss: 1460,
            init_cwnd_segments: r.init_cwnd_segments,
            rwnd_bytes: 65535,
            delayed_ack: true,
            delack_timeout_ns: r.delack_timeout_ns,
            ecn: EcnMode::Off,
            ecn_min_cwnd_segments: r.ecn_min_cwnd_segments,
            clock_granularity_ns: r.clock_granularity_ns,
            min_rto_ns: r.min_rto_ns,
            initial_rto_ns: r.initial_rto_ns,
            max_rto_ns: r.max_rto_ns,
            dupack_threshold: 3,
            abc: r.abc,
            limited_transmit: r.limited_transmit,
            abe: false,
            newreno_timer: r.newreno_timer,
            window_scale: r.window_scale,
            ecn_on_retransmit: r.ecn_on_retransmit,
            ect_all_packets: crate::rules::ect_marking::EctPackets::NewData,
            recover_guard_all: r.recover_guard_all,
            sack_recover_guard: r.sack_recover_guard,
            window_arith: r.window_arith,
            syn_ecn_fallback: r.syn_ecn_fallback,
            accecn_checks: r.accecn_checks,
            syn_immediate_ack: r.syn_immediate_ack,
            rto_arith: r.rto_arith,
            growth_arith: r.growth_arith,
            tso: r.tso,
            rcv_autotune: r.rcv_autotune,
            clock_phase_ns: 0,
            ecn_backoff: r.ecn_backoff,
            ack_ce_at_once: r.ack_ce_at_once,
            ecn_quickack: r.ecn_quickack,
            sack_is_lost: r.sack_is_lost,
            rtx_restart_on_fr: r.rtx_restart_on_fr,
            limited_transmit_all: r.limited_transmit_all,
            guard_after_timeout: r.guard_after_timeout,
            timer_before_sample: r.timer_before_sample,
            ssthresh_basis: r.ssthresh_basis,
            sack_after_rto: r.sack_after_rto,
            rto_keeps_recovery_ssthresh: r.rto_keeps_recovery_ssthresh,
            prr: r.prr,
            dupacks_as_sacks: r.dupacks_as_sacks,
            fin_with_data: r.fin_with_data,
            rack: r.rack,
            tlp: r.tlp,
            idle_restart: r.idle_restart,
            pacing: false,
            pacing_ss_ratio: 200,
            pacing_ca_ratio: 120,
            accecn_option: AccEcnOptionPolicy::Full,
            accecn_option_beacon: 3,
            cubic: crate::cc::CubicKnobs { arith: r.cubic_arith, ..Default::default() },
            dctcp: crate::cc::DctcpKnobs { arith: r.dctcp_arith, ..Default::default() },
            prague: crate::cc::PragueKnobs::default(),
            bbr: crate::cc::BbrKnobs::default(),
        }
    }
}

impl Serialize for TcpConfig {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TcpConfig::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for TcpConfig {
    /// The fields given over those of the personality named (`"personality"`, else `rfc`).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        use serde_json::{Map, Value};
        let mut given = Map::deserialize(deserializer)?;
        let personality = match given.remove("personality") {
            None => crate::personality::Personality::default(),
            Some(name) => serde_json::from_value(name).map_err(|e| D::Error::custom(format!("personality: {e}")))?,
        };
        let Ok(Value::Object(mut fields)) = serde_json::to_value(personality.config()) else {
            return Err(D::Error::custom("a TcpConfig serializes to a JSON object"));
        };
        fields.extend(given);
        TcpConfig::deserialize(Value::Object(fields)).map_err(D::Error::custom)
    }
}

/// A parameter outside its allowed range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} = {value}: {allowed}")]
pub struct ConfigError {
    pub field: &'static str,
    pub value: String,
    pub allowed: &'static str,
}

pub(crate) fn check(
    ok: bool,
    field: &'static str,
    value: impl ToString,
    allowed: &'static str,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError { field, value: value.to_string(), allowed })
    }
}

/// The window-scale shift an endpoint announces for a receive window of
/// `rwnd` bytes (RFC 7323 §2.2): the least s with rwnd >> s ≤ 65535, at most
/// 14 (§2.3); `None` when the window fits the 16-bit field unscaled.
pub fn window_shift(rwnd: u32) -> Option<u8> {
    (rwnd > u32::from(u16::MAX)).then(|| (0..=14u8).find(|&s| rwnd >> s <= u32::from(u16::MAX)).unwrap_or(14))
}

impl TcpConfig {
    /// The shift this endpoint announces in its SYN or SYN-ACK, if any.
    pub fn wscale(&self) -> Option<u8> {
        if self.window_scale {
            window_shift(self.rwnd_bytes)
        } else {
            None
        }
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check((64..=65535).contains(&self.mss), "mss", self.mss, "64..=65535 bytes")?;
        check(
            (1..=100).contains(&self.init_cwnd_segments),
            "init_cwnd_segments",
            self.init_cwnd_segments,
            "1..=100 segments",
        )?;
        check(self.rwnd_bytes >= self.mss, "rwnd_bytes", self.rwnd_bytes, ">= mss")?;
        check(self.delack_timeout_ns > 0, "delack_timeout_ns", self.delack_timeout_ns, "> 0")?;
        check(
            self.clock_granularity_ns > 0,
            "clock_granularity_ns",
            self.clock_granularity_ns,
            "> 0 (use 1 for a fine-grained clock)",
        )?;
        check(self.initial_rto_ns > 0, "initial_rto_ns", self.initial_rto_ns, "> 0")?;
        check(self.max_rto_ns >= self.min_rto_ns, "max_rto_ns", self.max_rto_ns, ">= min_rto_ns")?;
        check(self.max_rto_ns >= self.initial_rto_ns, "max_rto_ns", self.max_rto_ns, ">= initial_rto_ns")?;
        check(
            (1..=2).contains(&self.ecn_min_cwnd_segments),
            "ecn_min_cwnd_segments",
            self.ecn_min_cwnd_segments,
            "1 (RFC 3168, ns-2) or 2 (ns-3, Linux)",
        )?;
        check((1..=1000).contains(&self.dupack_threshold), "dupack_threshold", self.dupack_threshold, "1..=1000")?;
        check(
            self.clock_phase_ns < self.clock_granularity_ns,
            "clock_phase_ns",
            self.clock_phase_ns,
            "< clock_granularity_ns",
        )?;
        check(self.abc <= 100, "abc", self.abc, "0 (per ACK) or 1..=100 segments (RFC 3465 L)")?;
        for (field, v) in [("pacing_ss_ratio", self.pacing_ss_ratio), ("pacing_ca_ratio", self.pacing_ca_ratio)] {
            check((1..=1000).contains(&v), field, v, "1..=1000 percent of cwnd/srtt")?;
        }
        let beacon = self.accecn_option_beacon;
        check(beacon <= 3, "accecn_option_beacon", beacon, "0..=3 per RTT (Linux tcp_ecn_option_beacon)")?;
        self.dctcp.validate(self)?;
        self.bbr.validate(self)?;
        self.cubic.validate(self.cc)?;
        self.prague.validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_default_is_valid() {
        assert_eq!(TcpConfig::default().validate(), Ok(()));
    }

    #[test]
    fn test_validate_names_field_value_and_range() {
        let cfg = TcpConfig { mss: 10, ..TcpConfig::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "mss = 10: 64..=65535 bytes");
        let cfg = TcpConfig { max_rto_ns: 1, ..TcpConfig::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "max_rto_ns = 1: >= min_rto_ns");
        let cfg = TcpConfig { ecn_min_cwnd_segments: 3, ..TcpConfig::default() };
        assert_eq!(
            cfg.validate().unwrap_err().to_string(),
            "ecn_min_cwnd_segments = 3: 1 (RFC 3168, ns-2) or 2 (ns-3, Linux)"
        );
    }

    /// `accecn_option` is Linux's `tcp_ecn_option` number (0, 1, 2), written so and read
    /// either so or by name ("off", "minimum", "full").
    #[test]
    fn test_accecn_option_reads_numbers_and_names_and_writes_numbers() {
        let read = |v: &str| serde_json::from_str::<AccEcnOptionPolicy>(v);
        for (num, name, p) in [
            ("0", "\"off\"", AccEcnOptionPolicy::Off),
            ("1", "\"minimum\"", AccEcnOptionPolicy::Minimum),
            ("2", "\"full\"", AccEcnOptionPolicy::Full),
        ] {
            assert_eq!(read(num).unwrap(), p);
            assert_eq!(read(name).unwrap(), p);
            assert_eq!(serde_json::to_string(&p).unwrap(), num);
        }
        assert!(read("3").unwrap_err().to_string().contains("0 (off), 1 (minimum) or 2 (full)"));
        assert!(read("\"some\"").is_err());
        let cfg = TcpConfig { accecn_option_beacon: 4, ..TcpConfig::default() };
        assert_eq!(cfg.validate().unwrap_err().field, "accecn_option_beacon");
    }

    /// Each congestion control's knobs are read and written under their flat JSON keys, and a
    /// key no struct knows is still refused.
    #[test]
    fn test_knobs_keep_flat_json_keys_and_unknown_keys_are_refused() {
        let json = r#"{"cc": "prague", "ecn": "accecn", "ecn_min_cwnd_segments": 2,
            "prague_version": "v0.6", "prague_rtt_target_ns": 15000000, "cubic_arith": "linux",
            "dctcp_arith": "linux", "bbr_ecn_low": false, "hystart": "off"}"#;
        let cfg: TcpConfig = serde_json::from_str(json).unwrap();
        assert_eq!((cfg.prague.version, cfg.prague.rtt_target_ns), (PragueVersion::V06, 15_000_000));
        assert_eq!((cfg.cubic.arith, cfg.dctcp.arith), (CubicArith::Linux, DctcpArith::Linux));
        let Ok(serde_json::Value::Object(keys)) = serde_json::to_value(&cfg) else { panic!("not an object") };
        for key in ["prague_version", "prague_fallback_fix", "dctcp_shift_g", "dctcp_ect", "bbr_version", "hystart"] {
            assert!(keys.contains_key(key), "{key}");
        }
        assert!(!keys.contains_key("prague") && !keys.contains_key("cubic"));
        assert_eq!(serde_json::from_value::<TcpConfig>(serde_json::Value::Object(keys)).unwrap(), cfg);
        let err = serde_json::from_str::<TcpConfig>(r#"{"prague_versio": "v0.6"}"#).unwrap_err();
        assert!(err.to_string().contains("prague_versio"), "{err}");
    }

    #[test]
    fn test_dctcp_needs_ecn_and_a_two_segment_floor() {
        let ok =
            TcpConfig { cc: CcKind::Dctcp, ecn: EcnMode::Classic, ecn_min_cwnd_segments: 2, ..TcpConfig::default() };
        assert_eq!(ok.validate(), Ok(()));
        let off = TcpConfig { ecn: EcnMode::Off, ..ok.clone() };
        assert_eq!(
            off.validate().unwrap_err().to_string(),
            "ecn = off: classic, ecn+ or accecn with cc = dctcp (RFC 8257 needs ECN)"
        );
        let one = TcpConfig { ecn_min_cwnd_segments: 1, ..ok.clone() };
        assert_eq!(one.validate().unwrap_err().field, "ecn_min_cwnd_segments");
        let g = TcpConfig { dctcp: crate::cc::DctcpKnobs { shift_g: 17, ..ok.dctcp }, ..ok.clone() };
        assert_eq!(g.validate().unwrap_err().to_string(), "dctcp_shift_g = 17: 0..=16 (g = 2^-shift)");
        let reno = TcpConfig { dctcp: crate::cc::DctcpKnobs { ect: 1, ..Default::default() }, ..TcpConfig::default() };
        assert_eq!(reno.validate().unwrap_err().to_string(), "dctcp_ect = 1: 0 unless cc = dctcp");
    }

    /// `prague_feedback = "dctcp"` is Prague's over RFC 3168 negotiation: refused with another
    /// cc, and with `cc = prague` unless ECN is classic (or ECN+); the default needs AccECN.
    #[test]
    fn test_prague_feedback_needs_cc_prague_and_classic_ecn() {
        let mut ok =
            TcpConfig { cc: CcKind::Prague, ecn: EcnMode::Classic, ecn_min_cwnd_segments: 2, ..TcpConfig::default() };
        ok.prague.feedback = PragueFeedback::Dctcp;
        assert_eq!(ok.validate(), Ok(()));
        let acc = TcpConfig { ecn: EcnMode::AccEcn, ..ok.clone() };
        assert_eq!(
            acc.validate().unwrap_err().to_string(),
            "ecn = accecn: classic or ecn+ with prague_feedback = dctcp (RFC 3168 negotiation)"
        );
        let reno = TcpConfig { cc: CcKind::Reno, ..ok.clone() };
        assert_eq!(reno.validate().unwrap_err().to_string(), "prague_feedback = dctcp: accecn unless cc = prague");
        let reference = TcpConfig { prague: Default::default(), ..ok };
        assert_eq!(reference.validate().unwrap_err().field, "ecn");
    }
}

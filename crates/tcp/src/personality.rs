//! TCP personalities: where the RFCs, ns-2.35 and Linux differ, each stack's
//! choice, by name (`tcp.personality`), as the RED personalities do for queues.
//!
//! A personality sets the rules and constants below and nothing else: the
//! recovery, the congestion control, the MSS, the receive window, ECN and the
//! knobs of one congestion control stay the scenario's. In engine JSON a
//! `TcpConfig` may name its `"personality"`; every field it does not give is
//! that personality's (the `rfc` personality's when none is named), so this
//! table is the one source of TCP defaults (`TcpConfig::default()` is the
//! `rfc` personality's). The front reads it through `_core.tcp_personalities`.
//!
//! | field | `rfc` | `ns2` | `linux` |
//! |---|---|---|---|
//! | `init_cwnd_segments` | 2, RFC 5681 §3.1 | 2, `windowInit_` | 10, `TCP_INIT_CWND` |
//! | `abc` | 2, RFC 3465 L | 0 (per ACK), `opencwnd` | 100 (segment counting, no per-ACK limit), `tcp_slow_start` |
//! | `limited_transmit` | on, RFC 3042 | on, `singledup_` | on |
//! | `newreno_timer` | impatient, RFC 6582 §4 | impatient, `newreno_changes1_` | slow but steady, `tcp_rearm_rto` |
//! | `window_scale` | on, RFC 7323 | off (ns-2 has no TCP options) | on, `tcp_window_scaling` |
//! | `ecn_min_cwnd_segments` | 1, RFC 3168 §6.1.2 | 1, `ecn()` | 2, `tcp_enter_cwr` |
//! | `min_rto_ns` | 1 s, RFC 6298 (2.4) | 200 ms, `minrto_` | 200 ms, `TCP_RTO_MIN` |
//! | `initial_rto_ns` | 1 s, RFC 6298 (2.1) | 3 s, `rtxcur_init_` | 1 s, `TCP_TIMEOUT_INIT` |
//! | `max_rto_ns` | 60 s, RFC 6298 (2.5) | 60 s, `maxrto_` | 120 s, `TCP_RTO_MAX` |
//! | `clock_granularity_ns` | 1 ms | 10 ms, `tcpTick_` | 1 ms (jiffies at HZ = 1000) |
//! | `delack_timeout_ns` | 100 ms (RFC 1122 §4.2.3.2: under 500 ms) | 100 ms, DelAckSink `interval_` | 40 ms, `TCP_DELACK_MIN` |
//! | `idle_restart` | rfc5681, RFC 5681 §4.1 | off (one-way agents) | linux, `tcp_cwnd_restart` |
//! | `ecn_on_retransmit` | off, RFC 3168 §6.1.5 | on, `output()` with `SetCWRonRetransmit_` | off |
//! | `recover_guard_all` | off, RFC 6582 §3.2 | on, `bugFix_` | off |
//! | `window_arith` | rfc5681 | ns2, `slowdown()` | rfc5681 |
//! | `rto_arith` | rfc6298 | ns2, `rtt_update`/`rtt_timeout` | linux, `tcp_set_rto` |
//! | `ecn_backoff` | off | on, `ecn()` with `ecn_backoff_` | off |
//! | `ack_ce_at_once` | on, RFC 3168 §6.1.3 | off, `DelAckSink::recv` | on, `tcp_enter_quickack_mode` |
//! | `ecn_quickack` | off, RFC 3168 §6.1.3, RFC 8257 §3.2 | off | on, `tcp_ecn_accept_cwr`, `tcp_data_ecn_check` |
//! | `sack_is_lost` | on, RFC 6675 §5 | off, Sack1 `dupack_action` | on |
//! | `rtx_restart_on_fr` | off, RFC 6298 (5.1) | on, `reset_rtx_timer` | off |
//! | `limited_transmit_all` | off, RFC 3042 §2 | on, `send_one()` | off |
//! | `ssthresh_basis` | flight, RFC 5681 eq. (4) | flight | cwnd, `tcp_reno_ssthresh` |
//! | `sack_after_rto` | off, RFC 2018 §8 | off | on, `tcp_timeout_mark_lost` |
//! | `rto_keeps_recovery_ssthresh` | off | off | on, `tcp_enter_loss` |
//! | `prr` | off | off | on, `tcp_cwnd_reduction` |
//! | `dupacks_as_sacks` | off | off | on, `tcp_add_reno_sack` |
//! | `fin_with_data` | off | off | on, `tcp_send_fin` |
//! | `rack` | off | off | on, `tcp_rack_detect_loss` |
//! | `tlp` | off | off | on, `tcp_schedule_loss_probe` |
//! | `sack_recover_guard` | on, RFC 6675 §5 | on | off, `tcp_fastretrans_alert` |
//! | `cubic_arith` | rfc9438 | rfc9438 | linux, `tcp_cubic.c` |
//! | `dctcp_arith` | rfc8257 | rfc8257 | linux, `tcp_dctcp.c` |
//! | `growth_arith` | rfc5681 | rfc5681 | linux, `tcp_cong_control` |
//! | `tso` | none | none | none (Linux's bursts are opt-in: `tso = "linux"`) |
//! | `rcv_autotune` | off | off | off (opt-in: `rcv_autotune = "linux"`) |
//! | `syn_ecn_fallback` | off (RFC 3168 §6.1.1.1: "MAY") | off | retransmissions, `tcp_ecn_clear_syn` (`rules/syn_fallback.rs`) |
//! | `accecn_checks` | off (RFC 9768's tests are "MAY") | off | linux, `tcp_accecn_validate_syn_feedback`, `tcp_accecn_third_ack` (`rules/accecn_checks.rs`) |
//! | `syn_immediate_ack` | on, RFC 793 | on, `SYN_immediate_ack_` | on |
//! | `guard_after_timeout` | on, RFC 6582 §4 | on, `bugFix_` | on |
//! | `timer_before_sample` | off, RFC 6298 (5.3) | off, `timerfix_` | off |
//!
//! A rule of two behaviours reads on/off here, as its key is written (its
//! JSON boolean); its file under `rules/` names the two variants and their
//! sources: `limited_transmit.rs`, `ect_marking.rs` (`ecn_on_retransmit`),
//! `recover_guard.rs` (`recover_guard_all`, `sack_recover_guard`,
//! `guard_after_timeout`), `rtx_timer.rs` (`ecn_backoff`,
//! `rtx_restart_on_fr`, `timer_before_sample`), `receiver_ack.rs`
//! (`ack_ce_at_once`, `ecn_quickack`, `syn_immediate_ack`), `loss_detection.rs`
//! (`sack_is_lost`, `rack`, `tlp`), `timeout.rs` (`sack_after_rto`,
//! `rto_keeps_recovery_ssthresh`), `reduction.rs` (`prr`, `dupacks_as_sacks`)
//! and `fin.rs` (`fin_with_data`).
//!
//! Each field's rule is documented where `TcpConfig` declares it; the ns-2
//! names are ns-2.35's TclObject variables and functions, the Linux names the
//! kernel's constants and functions (`net/ipv4/tcp_*.c`).

use crate::config::{
    CubicArith, DctcpArith, GrowthArith, NewRenoTimer, RcvAutotune, RtoArith, SsthreshBasis, TcpConfig, Tso,
    WindowArith,
};
use crate::idle::IdleRestart;
use crate::rules::accecn_checks::AccEcnChecks;
use crate::rules::ect_marking::RetransmitEct;
use crate::rules::fin::FinPlacement;
use crate::rules::limited_transmit::{LimitedTransmit, LimitedTransmitPhases};
use crate::rules::loss_detection::{LossMarking, SackRecoveryTrigger, TailLoss};
use crate::rules::receiver_ack::{CeAck, EcnQuickAck, SynAck};
use crate::rules::recover_guard::{GuardedRecoveries, SackGuard, TimeoutGuard};
use crate::rules::reduction::{DupAckAccounting, WindowReduction};
use crate::rules::rtx_timer::{EcnHold, FastRetransmitTimer, NewAckTimer};
use crate::rules::syn_fallback::SynEcnFallback;
use crate::rules::timeout::{RtoInRecovery, RtoScoreboard};
use serde::{Deserialize, Serialize};

/// A named bundle of TCP rules and constants (`tcp.personality`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Personality {
    /// The RFCs as written.
    #[default]
    Rfc,
    /// ns-2.35's one-way agents and DelAck sink, as its ECN validation suite runs them.
    Ns2,
    /// Linux (`net/ipv4`), as this kernel's sysctls default.
    Linux,
}

impl Personality {
    pub const ALL: [Personality; 3] = [Personality::Rfc, Personality::Ns2, Personality::Linux];

    /// The name in scenarios and engine JSON.
    pub fn name(self) -> &'static str {
        match self {
            Personality::Rfc => "rfc",
            Personality::Ns2 => "ns2",
            Personality::Linux => "linux",
        }
    }

    /// The values this personality sets.
    pub fn rules(self) -> &'static PersonalityRules {
        match self {
            Personality::Rfc => &RFC,
            Personality::Ns2 => &NS2,
            Personality::Linux => &LINUX,
        }
    }

    /// `TcpConfig::default()` with this personality's rules.
    pub fn config(self) -> TcpConfig {
        let mut cfg = TcpConfig::default();
        self.rules().apply(&mut cfg);
        cfg
    }
}

/// Declares `PersonalityRules` (the fields a personality sets, named as
/// `TcpConfig`'s JSON keys; `=> group.field` where that is a congestion control's
/// knob) and the one function that copies them onto a `TcpConfig`.
macro_rules! personality_rules {
    ($($field:ident: $ty:ty $(=> $($path:ident).+)?,)*) => {
        /// The `TcpConfig` fields a personality sets, with its values.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        pub struct PersonalityRules {
            $(pub $field: $ty,)*
        }

        impl PersonalityRules {
            /// Sets these fields of `cfg`; the others stay as they are.
            pub fn apply(&self, cfg: &mut TcpConfig) {
                $(personality_rules!(@field cfg, self, $field $(, $($path).+)?);)*
            }
        }
    };
    (@field $cfg:ident, $rules:ident, $field:ident) => { $cfg.$field = $rules.$field };
    (@field $cfg:ident, $rules:ident, $field:ident, $($path:ident).+) => { $cfg.$($path).+ = $rules.$field };
}

personality_rules! {
    init_cwnd_segments: u32,
    abc: u32,
    limited_transmit: LimitedTransmit,
    newreno_timer: NewRenoTimer,
    window_scale: bool,
    ecn_min_cwnd_segments: u32,
    min_rto_ns: u64,
    initial_rto_ns: u64,
    max_rto_ns: u64,
    clock_granularity_ns: u64,
    delack_timeout_ns: u64,
    idle_restart: IdleRestart,
    ecn_on_retransmit: RetransmitEct,
    recover_guard_all: GuardedRecoveries,
    window_arith: WindowArith,
    rto_arith: RtoArith,
    ecn_backoff: EcnHold,
    ack_ce_at_once: CeAck,
    ecn_quickack: EcnQuickAck,
    sack_is_lost: SackRecoveryTrigger,
    rtx_restart_on_fr: FastRetransmitTimer,
    limited_transmit_all: LimitedTransmitPhases,
    ssthresh_basis: SsthreshBasis,
    sack_after_rto: RtoScoreboard,
    rto_keeps_recovery_ssthresh: RtoInRecovery,
    prr: WindowReduction,
    dupacks_as_sacks: DupAckAccounting,
    fin_with_data: FinPlacement,
    rack: LossMarking,
    tlp: TailLoss,
    sack_recover_guard: SackGuard,
    cubic_arith: CubicArith => cubic.arith,
    dctcp_arith: DctcpArith => dctcp.arith,
    growth_arith: GrowthArith,
    tso: Tso,
    rcv_autotune: RcvAutotune,
    syn_ecn_fallback: SynEcnFallback,
    accecn_checks: AccEcnChecks,
    syn_immediate_ack: SynAck,
    guard_after_timeout: TimeoutGuard,
    timer_before_sample: NewAckTimer,
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// The RFCs.
pub const RFC: PersonalityRules = PersonalityRules {
    init_cwnd_segments: 2,
    abc: 2,
    limited_transmit: LimitedTransmit::Rfc3042,
    newreno_timer: NewRenoTimer::Impatient,
    window_scale: true,
    ecn_min_cwnd_segments: 1,
    min_rto_ns: S,
    initial_rto_ns: S,
    max_rto_ns: 60 * S,
    clock_granularity_ns: MS,
    delack_timeout_ns: 100 * MS,
    idle_restart: IdleRestart::Rfc5681,
    ecn_on_retransmit: RetransmitEct::NotEct,
    recover_guard_all: GuardedRecoveries::NewRenoAndSack,
    window_arith: WindowArith::Rfc5681,
    rto_arith: RtoArith::Rfc6298,
    ecn_backoff: EcnHold::Reset,
    ack_ce_at_once: CeAck::AtOnce,
    ecn_quickack: EcnQuickAck::Echo,
    sack_is_lost: SackRecoveryTrigger::DupAcksOrIsLost,
    rtx_restart_on_fr: FastRetransmitTimer::Keep,
    limited_transmit_all: LimitedTransmitPhases::Open,
    ssthresh_basis: SsthreshBasis::Flight,
    sack_after_rto: RtoScoreboard::Cleared,
    rto_keeps_recovery_ssthresh: RtoInRecovery::Recompute,
    prr: WindowReduction::AtOnce,
    dupacks_as_sacks: DupAckAccounting::Inflation,
    fin_with_data: FinPlacement::OwnSegment,
    rack: LossMarking::Rfc6675,
    tlp: TailLoss::Rto,
    sack_recover_guard: SackGuard::Rfc6675,
    cubic_arith: CubicArith::Rfc9438,
    dctcp_arith: DctcpArith::Rfc8257,
    growth_arith: GrowthArith::Rfc5681,
    tso: Tso::None,
    rcv_autotune: RcvAutotune::Off,
    syn_ecn_fallback: SynEcnFallback::Off,
    accecn_checks: AccEcnChecks::Off,
    syn_immediate_ack: SynAck::Immediate,
    guard_after_timeout: TimeoutGuard::Rfc6582,
    timer_before_sample: NewAckTimer::AfterSample,
};

/// ns-2.35 (its rules: docs/ns2-ecn-suite.md).
pub const NS2: PersonalityRules = PersonalityRules {
    abc: 0,
    window_scale: false,
    min_rto_ns: 200 * MS,
    initial_rto_ns: 3 * S,
    clock_granularity_ns: 10 * MS,
    idle_restart: IdleRestart::Off,
    ecn_on_retransmit: RetransmitEct::AsNewData,
    recover_guard_all: GuardedRecoveries::EveryRecovery,
    window_arith: WindowArith::Ns2,
    rto_arith: RtoArith::Ns2,
    ecn_backoff: EcnHold::Doubling,
    ack_ce_at_once: CeAck::Delayed,
    sack_is_lost: SackRecoveryTrigger::DupAcks,
    rtx_restart_on_fr: FastRetransmitTimer::Restart,
    limited_transmit_all: LimitedTransmitPhases::AnyPhase,
    ..RFC
};

/// Linux.
pub const LINUX: PersonalityRules = PersonalityRules {
    init_cwnd_segments: 10,
    abc: 100,
    newreno_timer: NewRenoTimer::SlowButSteady,
    ecn_min_cwnd_segments: 2,
    min_rto_ns: 200 * MS,
    max_rto_ns: 120 * S,
    delack_timeout_ns: 40 * MS,
    idle_restart: IdleRestart::Linux,
    rto_arith: RtoArith::Linux,
    ssthresh_basis: SsthreshBasis::Cwnd,
    sack_after_rto: RtoScoreboard::Kept,
    rto_keeps_recovery_ssthresh: RtoInRecovery::Keep,
    prr: WindowReduction::Prr,
    dupacks_as_sacks: DupAckAccounting::RenoSacks,
    fin_with_data: FinPlacement::WithLastData,
    rack: LossMarking::Rack,
    tlp: TailLoss::Probe,
    sack_recover_guard: SackGuard::Unguarded,
    cubic_arith: CubicArith::Linux,
    dctcp_arith: DctcpArith::Linux,
    growth_arith: GrowthArith::Linux,
    syn_ecn_fallback: SynEcnFallback::Retransmissions,
    accecn_checks: AccEcnChecks::Linux,
    ecn_quickack: EcnQuickAck::Linux,
    ..RFC
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_default_config_is_the_rfc_personality() {
        assert_eq!(TcpConfig::default(), Personality::Rfc.config());
    }

    #[test]
    fn test_every_personality_gives_a_valid_config() {
        for p in Personality::ALL {
            assert_eq!(p.config().validate(), Ok(()), "{}", p.name());
        }
    }

    /// In engine JSON the named personality fills every field not given; `rfc` when none is named.
    #[test]
    fn test_json_fields_not_given_are_the_named_personalitys() {
        let read = |json: &str| serde_json::from_str::<TcpConfig>(json);
        assert_eq!(read("{}").unwrap(), TcpConfig::default());
        assert_eq!(read(r#"{"personality": "linux"}"#).unwrap(), Personality::Linux.config());
        let ns2 = read(r#"{"personality": "ns2", "abc": 3, "mss": 1000}"#).unwrap();
        assert_eq!((ns2.abc, ns2.mss, ns2.rto_arith, ns2.window_scale), (3, 1000, RtoArith::Ns2, false));
        let round_trip = read(&serde_json::to_string(&ns2).unwrap()).unwrap();
        assert_eq!(round_trip, ns2);
    }

    #[test]
    fn test_json_refuses_unknown_fields_and_personalities() {
        let read = |json: &str| serde_json::from_str::<TcpConfig>(json).unwrap_err().to_string();
        assert!(read(r#"{"personality": "bsd"}"#).contains("personality: unknown variant `bsd`"));
        assert!(read(r#"{"personality": "linux", "abcd": 1}"#).contains("unknown field `abcd`"));
    }

    #[test]
    fn test_apply_sets_only_the_personality_fields() {
        let mut cfg = TcpConfig { mss: 9000, rwnd_bytes: 1 << 20, pacing: true, ..TcpConfig::default() };
        LINUX.apply(&mut cfg);
        assert_eq!((cfg.mss, cfg.rwnd_bytes, cfg.pacing), (9000, 1 << 20, true));
        assert_eq!((cfg.init_cwnd_segments, cfg.delack_timeout_ns, cfg.prr), (10, 40 * MS, WindowReduction::Prr));
    }
}

//! Queue configuration as the engine receives it (canonical units).

use serde::{Deserialize, Serialize};

/// How RED measures the queue and scales its probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Average of the queue in packets; every packet has the same probability.
    Packet,
    /// Queue in bytes / `mean_pkt_bytes`; probability scaled by size / `mean_pkt_bytes`
    /// (Floyd & Jacobson 1993 §4, "byte mode").
    Byte,
}

/// Which tool's definition of RED to follow (docs/performance.md has the table).
///
/// - `floyd93`: Floyd & Jacobson 1993 as written (`red.rs`).
/// - `ns2`: ns-2.35 `queue/red.cc` (`red/ns.rs`): `mark_p` rule for ECT packets.
/// - `ns3`: ns-3 `red-queue-disc.cc` (`red/ns.rs`): `UseHardDrop` = kind `red`.
/// - `linux`: Linux `include/net/red.h` + `sch_red.c` (`red/linux.rs`):
///   fixed-point byte average, Stab idle decay, no gentle, optional adaptive max_p.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedPersonality {
    #[default]
    Floyd93,
    Ns2,
    Ns3,
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
/// Capacity: exactly one of `limit_pkts` and `limit_bytes`.
pub struct DropTailParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
}

/// RED after Floyd & Jacobson 1993. Capacity: exactly one of
/// `limit_pkts` and `limit_bytes`. Thresholds are in packets (in byte mode:
/// in units of `mean_pkt_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    pub min_th: f64,
    pub max_th: f64,
    /// Probability at max_th, in (0, 1].
    pub max_p: f64,
    /// EWMA weight of the average queue, in (0, 1].
    pub wq: f64,
    /// Probability rises from max_p to 1 between max_th and 2·max_th.
    pub gentle: bool,
    /// Spread early actions out by the count since the last one (§7 "wait").
    pub wait: bool,
    pub mode: RedMode,
    /// Typical packet size: idle-time decay and byte mode.
    pub mean_pkt_bytes: u32,
    /// Rate of the link the queue feeds: idle-time decay.
    pub link_rate_bps: u64,
    /// Mark ECT packets instead of dropping them.
    pub ecn: bool,
    /// Whose RED this is; absent in JSON means `floyd93`.
    #[serde(default)]
    pub personality: RedPersonality,
    /// `ns2` only: an ECT packet chosen by RED is marked only while the
    /// unmodified probability is below `mark_p` (ns-2 `mark_p_`, `use_mark_p_`
    /// true), dropped otherwise. `None` means ns-2's default 0.1.
    #[serde(default)]
    pub mark_p: Option<f64>,
    /// `linux` only: adapt max_p every 500 ms (`tc red adaptive`).
    #[serde(default)]
    pub adaptive: bool,
    /// `ns2` only: draw the early-action random numbers from ns-2.35's own
    /// default generator (MRG32k3a seeded with 1, `red/mrg.rs`) after skipping
    /// this many draws (the draws other ns-2 objects make first), instead of
    /// the queue's ecnlab stream; `None`: the ecnlab stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_rng_skip: Option<u64>,
    /// Backward ECN (Floyd 1994 §9.1): a packet RED selects early is forwarded
    /// unchanged and its source is sent an ICMP Source Quench (RFC 792); the
    /// forced region still drops. Kind `red` only, not with `ecn`.
    #[serde(default)]
    pub quench: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueConfig {
    #[serde(rename = "droptail")]
    DropTail(DropTailParams),
    Red(RedParams),
    /// RED* (Kuzmanovic 2005): RED whose forced region marks every ECT packet
    /// while the average exceeds max_th (Linux `tc red ecn` without harddrop).
    RedStar(RedParams),
    /// PI (Hollot, Misra, Towsley, Gong, INFOCOM 2001), `pi.rs`.
    Pi(PiParams),
    /// CoDel (RFC 8289; Linux `codel_impl.h`), `codel.rs`.
    Codel(CodelParams),
    /// PIE (RFC 8033; Linux `pie.h`), `pie.rs`.
    Pie(PieParams),
    /// FQ-CoDel (RFC 8290; Linux `sch_fq_codel.c`), `fq_codel.rs`.
    FqCodel(FqCodelParams),
    /// DualQ Coupled AQM with PI2 (RFC 9332; Linux `sch_dualpi2.c`), `dualpi2.rs`.
    #[serde(rename = "dualpi2")]
    DualPi2(DualPi2Params),
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001; ns-3 `red-queue-disc.cc`), `ared.rs`.
    Ared(AredParams),
    /// A step marker: CE above a threshold on the instantaneous queue or the
    /// sojourn time (DCTCP's K, RFC 8257 §3.1), `step.rs`.
    Step(StepParams),
}

/// Whose definition of an algorithm to follow where the RFC and Linux differ
/// (each algorithm's file has the table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AqmPersonality {
    /// Linux's qdisc (and ns-3, which ports it): fixed-point arithmetic where Linux has it.
    #[default]
    Linux,
    /// The RFC's pseudo-code as written (exact arithmetic).
    Rfc,
    /// ns-3's queue disc where it differs from Linux's (CoDel, FQ-CoDel; PIE
    /// as `rfc`, which ns-3 follows; no DualPI2 in ns-3).
    Ns3,
}

/// CoDel. Capacity: exactly one of `limit_pkts` and `limit_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Acceptable standing sojourn time (RFC 8289 §4.3: 5 ms).
    pub target_ns: u64,
    /// Window over which the sojourn must stay above target (§4.4: 100 ms).
    pub interval_ns: u64,
    /// CE-mark ECT packets instead of dropping them (Linux `codel` default off).
    pub ecn: bool,
    /// Mark every ECT packet whose sojourn exceeds this (Linux `ce_threshold`).
    #[serde(default)]
    pub ce_threshold_ns: Option<u64>,
    /// No drop while the backlog is at most this many bytes (Linux: device MTU 1514).
    pub mtu_bytes: u32,
    #[serde(default)]
    pub personality: AqmPersonality,
}

/// PIE. Capacity: exactly one of `limit_pkts` and `limit_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// QDELAY_REF (RFC 8033 §4.2: 15 ms).
    pub target_ns: u64,
    /// T_UPDATE (15 ms).
    pub tupdate_ns: u64,
    /// α in Hz (0.125) and β in Hz (1.25).
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST (150 ms).
    pub max_burst_ns: u64,
    /// CE-mark ECT packets while p ≤ `mark_ecn_threshold` (RFC 8033 §5.1).
    pub ecn: bool,
    pub mark_ecn_threshold: f64,
    /// Scale p by packet size / `mean_pkt_bytes` (Linux `bytemode`).
    pub bytemode: bool,
    pub mean_pkt_bytes: u32,
    /// RFC 8033 §5.4 derandomisation (ns-3 `UseDerandomization`).
    pub derandomize: bool,
    #[serde(default)]
    pub personality: AqmPersonality,
}

/// FQ-CoDel (limits are its own: packets and memory).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelParams {
    /// Packets in all flows (Linux 10240).
    pub limit_pkts: u32,
    /// Bytes in all flows (Linux `memory_limit` 32 MiB; counted as wire bytes here).
    pub memory_limit_bytes: u64,
    /// Flow buckets (1024).
    pub flows: u32,
    /// DRR quantum in bytes (1514).
    pub quantum_bytes: u32,
    /// Packets dropped at most per overflow (64).
    pub drop_batch: u32,
    pub target_ns: u64,
    pub interval_ns: u64,
    /// Linux `fq_codel` default on.
    pub ecn: bool,
    #[serde(default)]
    pub ce_threshold_ns: Option<u64>,
    /// Apply `ce_threshold` only where `(tos & mask) == value` (Linux `ce_threshold_selector`).
    #[serde(default)]
    pub ce_threshold_selector: Option<(u8, u8)>,
    pub mtu_bytes: u32,
    /// Hash perturbation; `None`: drawn from the queue's random stream at the first packet.
    #[serde(default)]
    pub perturbation: Option<u32>,
    #[serde(default)]
    pub personality: AqmPersonality,
}

/// Which packets DualPI2 classifies into the L queue: those whose ECN field
/// shares a bit with the mask (Linux `TC_DUALPI2_ECN_MASK_*`, `dualpi2_skb_classify`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMask {
    /// Mask 0b01: ECT(1) and CE (RFC 9331 §5.1), Linux `l4s_ect`.
    #[default]
    L4sEct,
    /// Mask 0b10: ECT(0) and CE; ECT(1) goes to C (Linux `cla_ect`).
    ClaEct,
    /// Mask 0b11: ECT(0), ECT(1) and CE: DCTCP in a data centre (Linux `any_ect`).
    AnyEct,
}

impl EcnMask {
    /// The mask's bits, as Linux's `ecn_mask`.
    pub fn bits(self) -> u8 {
        match self {
            EcnMask::L4sEct => 0b01,
            EcnMask::ClaEct => 0b10,
            EcnMask::AnyEct => 0b11,
        }
    }
}

/// DualPI2. Capacity: `limit_pkts` (Linux 10000) over both queues.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Params {
    pub limit_pkts: u32,
    /// PI target queue delay (15 ms).
    pub target_ns: u64,
    /// PI update interval (16 ms).
    pub tupdate_ns: u64,
    /// α and β in Hz (0.16, 3.2).
    pub alpha: f64,
    pub beta: f64,
    /// Coupling factor k (2): p_L = min(k·p', 1), p_C = p'².
    pub coupling: f64,
    /// L4S step: mark an L packet whose sojourn exceeds this (1 ms) ...
    #[serde(default)]
    pub step_thresh_ns: Option<u64>,
    /// ... or, instead, while more than this many packets wait in the L queue behind it.
    #[serde(default)]
    pub step_thresh_pkts: Option<u32>,
    /// The step applies only when the L queue held at least this many packets at enqueue (0).
    pub min_qlen_step: u32,
    /// RFC 9332 ramp instead of the step: p_L rises linearly from 0 at
    /// `ramp_min_ns` to 1 at `ramp_min_ns + ramp_range_ns` of L sojourn.
    #[serde(default)]
    pub ramp_min_ns: Option<u64>,
    #[serde(default)]
    pub ramp_range_ns: Option<u64>,
    /// WRR weight of the C queue in percent (10).
    pub classic_protection_pct: u8,
    pub ecn_mask: EcnMask,
    /// In overload (k·p' > 1) drop L packets with p'² instead of marking (true).
    pub drop_on_overload: bool,
    /// No AQM decision while the total backlog is below 2 × this (1514).
    pub mtu_bytes: u32,
    #[serde(default)]
    pub personality: AqmPersonality,
    /// Take the coupled decision (`must_drop`) at enqueue instead of dequeue (false).
    #[serde(default)]
    pub drop_early: bool,
    /// Tail-drop an arrival that would take the queued bytes of both queues
    /// above this (absent: no byte limit).
    #[serde(default)]
    pub memory_limit_bytes: Option<u64>,
}

/// Adaptive RED. Thresholds and weight are set automatically from the link
/// rate unless given. Capacity: exactly one of `limit_pkts` and `limit_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AredParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Target queue delay (5 ms); sets the thresholds when they are not given.
    pub target_delay_ns: u64,
    /// max_p adaptation interval (0.5 s).
    pub interval_ns: u64,
    /// Additive increase bound (0.01) and multiplicative decrease (0.9).
    pub alpha: f64,
    pub beta: f64,
    /// max_p's range: [bottom, top] = [0.01, 0.5].
    pub bottom: f64,
    pub top: f64,
    /// Initial max_p (0.02 = 1/ns-3 LInterm 50).
    pub max_p: f64,
    #[serde(default)]
    pub min_th: Option<f64>,
    #[serde(default)]
    pub max_th: Option<f64>,
    #[serde(default)]
    pub wq: Option<f64>,
    pub mean_pkt_bytes: u32,
    pub link_rate_bps: u64,
    pub ecn: bool,
}

/// What a step marker compares with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepOn {
    /// Packets in the queue at arrival (DCTCP's K; decided at enqueue).
    Packets,
    /// Bytes in the queue at arrival (decided at enqueue).
    Bytes,
    /// The packet's sojourn time in ns (decided at dequeue).
    Sojourn,
}

/// A step marker. Capacity: exactly one of `limit_pkts` and `limit_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    pub on: StepOn,
    /// Packets or bytes (signal when the queue at arrival is ≥ threshold), or
    /// ns (signal when the sojourn is > threshold), as `on` says.
    pub threshold: u64,
    /// CE-mark ECT packets (else: drop them, a step dropper).
    pub ecn: bool,
}

/// The discrete PI controller (`pi.rs`). Capacity: exactly one of
/// `limit_pkts` and `limit_bytes`. The queue is measured in packets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiParams {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Reference (target) queue in packets.
    pub q_ref: f64,
    /// Gain on the current error q(k) − q_ref.
    pub a: f64,
    /// Gain on the previous error q(k−1) − q_ref.
    pub b: f64,
    /// Sampling frequency in Hz.
    pub sample_hz: f64,
    /// Mark ECT packets instead of dropping them.
    pub ecn: bool,
}

//! Queue configuration as the engine receives it (canonical units), each kind's
//! defaults (its `Params`' `Default`) and its scenario keys (`QUEUE_KINDS`).

use ecnlab_wire::key;
use ecnlab_wire::keys::{above, range, variants, Allowed, Allowed::*, Key};
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

/// The packet limit of a queue whose table gives neither `limit` nor `limit_bytes`.
pub const DEFAULT_LIMIT_PKTS: u32 = 1000;
const MS: u64 = 1_000_000;
const U32_MAX: f64 = u32::MAX as f64;
/// A positive duration.
const POSITIVE: Allowed = above(0., f64::INFINITY);
/// A number ≥ 0.
const NON_NEGATIVE: Allowed = range(0., f64::INFINITY);
/// A probability-like number in (0, 1].
const UNIT: Allowed = above(0., 1.);
/// An integer byte count of one packet.
const PACKET_BYTES: Allowed = range(1., 65535.);

/// One queue kind as a scenario names it (`kind = "…"`): its keys (after the limit keys) and
/// its engine defaults (`default`, serialized: the `Default` of its `Params`).
#[derive(Clone, Copy, Debug)]
pub struct QueueKind {
    pub name: &'static str,
    pub doc: &'static str,
    /// The capacity keys: `limit` and `limit_bytes`, or `limit` alone (a packet limit of its own).
    pub limits: &'static [Key],
    pub keys: &'static [Key],
    pub default: fn() -> QueueConfig,
}

/// The capacity keys of a single FIFO, and the link's tail statistic.
pub const LIMIT_KEYS: &[Key] = &[
    key!("limit" => "limit_pkts", Integer, range(1., U32_MAX), "capacity in packets"),
    key!("limit_bytes", Size, Any, "capacity in bytes, instead of limit (give one or neither)"),
    key!("tail_delay" => -, Duration, POSITIVE, "report the time fraction the queue holds more than tail_delay × link rate bytes (queue_frac_above)"),
];

/// The capacity keys of a queue whose limit is a packet count of its own.
pub const OWN_LIMIT_KEYS: &[Key] = &[
    key!("limit" => "limit_pkts", Integer, range(1., U32_MAX), "capacity in packets"),
    key!("tail_delay" => -, Duration, POSITIVE, "report the time fraction the queue holds more than tail_delay × link rate bytes (queue_frac_above)"),
];

/// Every queue kind, in the order scenarios list them.
pub const QUEUE_KINDS: &[QueueKind] = &[
    QueueKind {
        name: "droptail",
        doc: "a FIFO that drops arrivals when full",
        limits: LIMIT_KEYS,
        keys: &[],
        default: || QueueConfig::DropTail(DropTailParams::default()),
    },
    QueueKind {
        name: "red",
        doc: "RED, Floyd & Jacobson 1993 (red.rs; personalities red/)",
        limits: LIMIT_KEYS,
        keys: RED_KEYS,
        default: || QueueConfig::Red(RedParams::default()),
    },
    QueueKind {
        name: "red_star",
        doc: "RED* (Kuzmanovic 2005): RED marking every ECT packet above max_th too (tc red ecn)",
        limits: LIMIT_KEYS,
        keys: RED_KEYS,
        default: || QueueConfig::RedStar(RedParams::default()),
    },
    QueueKind {
        name: "pi",
        doc: "PI, Hollot, Misra, Towsley & Gong 2001 (pi.rs)",
        limits: LIMIT_KEYS,
        keys: PI_KEYS,
        default: || QueueConfig::Pi(PiParams::default()),
    },
    QueueKind {
        name: "codel",
        doc: "CoDel, RFC 8289 (codel.rs)",
        limits: LIMIT_KEYS,
        keys: CODEL_KEYS,
        default: || QueueConfig::Codel(CodelParams::default()),
    },
    QueueKind {
        name: "fq_codel",
        doc: "FQ-CoDel, RFC 8290 (fq_codel.rs)",
        limits: OWN_LIMIT_KEYS,
        keys: FQ_CODEL_KEYS,
        default: || QueueConfig::FqCodel(FqCodelParams::default()),
    },
    QueueKind {
        name: "pie",
        doc: "PIE, RFC 8033 (pie.rs)",
        limits: LIMIT_KEYS,
        keys: PIE_KEYS,
        default: || QueueConfig::Pie(PieParams::default()),
    },
    QueueKind {
        name: "dualpi2",
        doc: "DualQ Coupled AQM with PI2, RFC 9332 (dualpi2.rs)",
        limits: OWN_LIMIT_KEYS,
        keys: DUALPI2_KEYS,
        default: || QueueConfig::DualPi2(DualPi2Params::default()),
    },
    QueueKind {
        name: "ared",
        doc: "Adaptive RED, Floyd, Gummadi & Shenker 2001 (ared.rs)",
        limits: LIMIT_KEYS,
        keys: ARED_KEYS,
        default: || QueueConfig::Ared(AredParams::default()),
    },
    QueueKind {
        name: "step",
        doc: "a step marker on the queue or the sojourn (DCTCP's K, RFC 8257 §3.1; step.rs)",
        limits: LIMIT_KEYS,
        keys: STEP_KEYS,
        default: || QueueConfig::Step(StepParams::default()),
    },
];

const RED_PERSONALITY: Allowed = Variants(variants::<RedPersonality>);
const AQM_PERSONALITY: Allowed = Variants(variants::<AqmPersonality>);

pub const RED_KEYS: &[Key] = &[
    key!("min_th", Number, NON_NEGATIVE, "lower threshold of the average queue, packets (byte mode: mean_pkt_size units)"; Required),
    key!("max_th", Number, above(0., f64::INFINITY), "upper threshold, above min_th"; Required),
    key!("max_p", Number, UNIT, "probability at max_th"),
    key!("wq", Number, UNIT, "weight of the average's EWMA (linux: 2^-9, and 2^-k only)"),
    key!("ecn", Boolean, Any, "mark ECT packets instead of dropping them early (Not-ECT are still dropped)"),
    key!("signal" => -, Choice, Names(&["drop", "mark", "quench"]), "an early selection drops, CE-marks (= ecn), or (red) forwards and sends a Source Quench (quench)"; Derived("mark if ecn, else drop")),
    key!(
        "gentle",
        Boolean,
        Any,
        "probability rises from max_p to 1 between max_th and 2·max_th (ns2, ns3: true; linux: false)"
    ),
    key!("wait", Boolean, Any, "spread early actions out by the count since the last one (not linux)"),
    key!(
        "mode",
        Choice,
        Variants(variants::<RedMode>),
        "byte mode: the queue in mean_pkt_size units, the probability by size (linux: byte)"
    ),
    key!("mean_pkt_size" => "mean_pkt_bytes", Integer, PACKET_BYTES, "typical packet size (RED's idle-time decay, byte mode, ARED's thresholds)"; Derived("tcp.mss + 40")),
    key!(
        "personality",
        Choice,
        RED_PERSONALITY,
        "whose RED: F&J 1993, ns-2.35 red.cc, ns-3 RedQueueDisc, Linux tc red; ns2 not with red_star"
    ),
    key!("mark_p", Number, above(0., f64::INFINITY), "ns2: an ECT packet chosen is marked only while the probability is below this, else dropped"; Derived("0.1 with personality ns2")),
    key!("adaptive", Boolean, Any, "linux: adapt max_p every 500 ms (tc red adaptive)"),
    key!(
        "ns2_rng_skip",
        Integer,
        range(0., 1e9),
        "ns2: draw from ns-2.35's generator after skipping this many draws (ns2-ecn-suite.md)"
    ),
];

pub const PI_KEYS: &[Key] = &[
    key!("q_ref", Number, NON_NEGATIVE, "reference queue, packets"; Required),
    key!("a", Number, NON_NEGATIVE, "gain on the current error; a and b both or neither"; Derived("from n_flows and rtt")),
    key!("b", Number, NON_NEGATIVE, "gain on the previous error"; Derived("from n_flows and rtt")),
    key!("n_flows" => -, Integer, range(1., 1e9), "design without a, b: the least number of flows N (pi_design.py)"; Derived("required without a, b")),
    key!("rtt" => -, Duration, POSITIVE, "design without a, b: the largest round-trip time R"; Derived("required without a, b")),
    key!("sample_hz", Number, above(0., 1e9), "sampling frequency (Hollot et al. 2001 §V's 160 Hz)"),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
    key!("mean_pkt_size" => -, Integer, PACKET_BYTES, "design: converts the link rate to packets/s"; Derived("tcp.mss + 40")),
];

pub const CODEL_KEYS: &[Key] = &[
    key!("target" => "target_ns", Duration, POSITIVE, "the queueing delay aimed at (RFC 8289 §4.3, RFC 8290 §5.2, RFC 8033 §4.2, RFC 9332)"),
    key!("interval" => "interval_ns", Duration, POSITIVE, "how long the sojourn must stay above target (RFC 8289 §4.4)"),
    key!("ce_threshold" => "ce_threshold_ns", Duration, POSITIVE, "CE-mark every ECT packet whose sojourn exceeds this (Linux ce_threshold; counted in step_marks)"),
    key!("mtu" => "mtu_bytes", Integer, PACKET_BYTES, "no drop while the backlog is at most this many bytes"),
    key!(
        "personality",
        Choice,
        AQM_PERSONALITY,
        "follow the Linux qdisc, the RFC's pseudo-code or ns-3 where they differ"
    ),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
];

pub const FQ_CODEL_KEYS: &[Key] = &[
    key!("target" => "target_ns", Duration, POSITIVE, "the queueing delay aimed at (RFC 8289 §4.3, RFC 8290 §5.2, RFC 8033 §4.2, RFC 9332)"),
    key!("interval" => "interval_ns", Duration, POSITIVE, "how long the sojourn must stay above target (RFC 8289 §4.4)"),
    key!("ce_threshold" => "ce_threshold_ns", Duration, POSITIVE, "CE-mark every ECT packet whose sojourn exceeds this (Linux ce_threshold; counted in step_marks)"),
    key!("mtu" => "mtu_bytes", Integer, PACKET_BYTES, "no drop while the backlog is at most this many bytes"),
    key!(
        "personality",
        Choice,
        AQM_PERSONALITY,
        "follow the Linux qdisc, the RFC's pseudo-code or ns-3 where they differ"
    ),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
    key!("memory_limit" => "memory_limit_bytes", Size, Any, "tail-drop an arrival that would take the queued bytes above this"),
    key!("flows", Integer, range(1., 65536.), "hash buckets"),
    key!("quantum" => "quantum_bytes", Size, Any, "a flow's deficit per round"),
    key!("drop_batch", Integer, range(1., 65536.), "most packets dropped from the fattest flow on overflow"),
    key!(
        "ce_threshold_selector",
        Text,
        Any,
        "\"VALUE/MASK\" on the TOS byte: ce_threshold only where it matches (\"0x1/0x1\" = ECT(1))"
    ),
    key!("perturbation", Integer, range(0., U32_MAX), "the flow hash's seed"; Derived("drawn from the run's seed")),
];

pub const PIE_KEYS: &[Key] = &[
    key!("target" => "target_ns", Duration, POSITIVE, "the queueing delay aimed at (RFC 8289 §4.3, RFC 8290 §5.2, RFC 8033 §4.2, RFC 9332)"),
    key!("tupdate" => "tupdate_ns", Duration, POSITIVE, "how often the probability is updated (RFC 8033 T_UPDATE)"),
    key!("alpha", Number, NON_NEGATIVE, "PI gain on the delay error, Hz"),
    key!("beta", Number, NON_NEGATIVE, "PI gain on the delay's change, Hz"),
    key!("max_burst" => "max_burst_ns", Duration, POSITIVE, "burst allowance (RFC 8033 MAX_BURST)"),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
    key!("mark_ecn_threshold", Number, UNIT, "mark while p ≤ this, drop above (RFC 8033 §5.1)"),
    key!("bytemode", Boolean, Any, "scale the probability by packet size (Linux bytemode)"),
    key!("mean_pkt_size" => "mean_pkt_bytes", Integer, PACKET_BYTES, "typical packet size (RED's idle-time decay, byte mode, ARED's thresholds)"; Derived("tcp.mss + 40")),
    key!("derandomize", Boolean, Any, "RFC 8033 §5.4's derandomisation (ns-3 UseDerandomization)"),
    key!(
        "personality",
        Choice,
        AQM_PERSONALITY,
        "follow the Linux qdisc, the RFC's pseudo-code or ns-3 where they differ"
    ),
];

pub const DUALPI2_KEYS: &[Key] = &[
    key!("target" => "target_ns", Duration, POSITIVE, "the queueing delay aimed at (RFC 8289 §4.3, RFC 8290 §5.2, RFC 8033 §4.2, RFC 9332)"),
    key!("tupdate" => "tupdate_ns", Duration, POSITIVE, "how often the probability is updated (RFC 8033 T_UPDATE)"),
    key!("alpha", Number, NON_NEGATIVE, "PI gain on the delay error, Hz"),
    key!("beta", Number, NON_NEGATIVE, "PI gain on the delay's change, Hz"),
    key!("coupling", Number, above(0., f64::INFINITY), "k in p_L = min(k·p', 1), p_C = p'²"),
    key!("step_thresh" => "step_thresh_ns", Duration, POSITIVE, "the L queue's step on sojourn"; Derived("1 ms (linux) unless step_thresh_pkts or a ramp")),
    key!("step_thresh_pkts", Integer, range(1., U32_MAX), "the step on L-queue packets instead"),
    key!(
        "min_qlen_step",
        Integer,
        range(0., U32_MAX),
        "the step applies only with at least this many L packets queued"
    ),
    key!("ramp_min" => "ramp_min_ns", Duration, POSITIVE, "RFC 9332's ramp instead of the step: p_L from 0 here …"; Derived("none (rfc: 800 µs)")),
    key!("ramp_range" => "ramp_range_ns", Duration, POSITIVE, "… to 1 this much above"; Derived("none (rfc: 400 µs)")),
    key!("classic_protection" => "classic_protection_pct", Integer, range(0., 100.), "WRR weight of the C queue, %"),
    key!(
        "ecn_mask",
        Choice,
        Variants(variants::<EcnMask>),
        "what goes to L: ECT(1) and CE, ECT(0) and CE, or all three"
    ),
    key!("drop_on_overload", Boolean, Any, "in overload drop L packets with p'² instead of marking"),
    key!("drop_early", Boolean, Any, "the coupled decision at enqueue instead of dequeue"; Derived("false")),
    key!("mtu" => "mtu_bytes", Integer, PACKET_BYTES, "no decision while the backlog is below 2 × this"),
    key!("memory_limit" => "memory_limit_bytes", Size, Any, "tail-drop an arrival that would take the queued bytes above this"),
    key!("personality", Choice, Names(&["linux", "rfc"]), "follow sch_dualpi2.c or RFC 9332's pseudo-code"),
    key!("typical_rtt" => -, Duration, POSITIVE, "set target, tupdate, alpha, beta as tc dualpi2 does (q_dualpi2.c)"),
    key!("max_rtt" => -, Duration, POSITIVE, "likewise, with typical_rtt or alone"),
];

pub const ARED_KEYS: &[Key] = &[
    key!("target_delay" => "target_delay_ns", Duration, POSITIVE, "the delay the thresholds are set for"),
    key!("interval" => "interval_ns", Duration, POSITIVE, "how often max_p adapts"),
    key!("alpha", Number, above(0., f64::INFINITY), "max_p's additive step"),
    key!("beta", Number, UNIT, "max_p's decrease factor"),
    key!("bottom", Number, UNIT, "max_p's lower bound"),
    key!("top", Number, UNIT, "max_p's upper bound"),
    key!("max_p", Number, UNIT, "max_p at the start"),
    key!("min_th", Number, NON_NEGATIVE, "RED's lower threshold, packets"; Derived("from the link rate")),
    key!("max_th", Number, above(0., f64::INFINITY), "RED's upper threshold, packets"; Derived("from the link rate")),
    key!("wq", Number, UNIT, "RED's EWMA weight"; Derived("from the link rate")),
    key!("mean_pkt_size" => "mean_pkt_bytes", Integer, PACKET_BYTES, "typical packet size (RED's idle-time decay, byte mode, ARED's thresholds)"; Derived("tcp.mss + 40")),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
];

pub const STEP_KEYS: &[Key] = &[
    key!("threshold", Integer, NON_NEGATIVE, "mark an arrival when the queue holds at least this many packets"; Derived("one of the three required")),
    key!("threshold_bytes" => "threshold", Size, Any, "… at least this many bytes"; Derived("one of the three required")),
    key!("threshold_delay" => "threshold", Duration, POSITIVE, "mark at dequeue a packet whose sojourn exceeds this"; Derived("one of the three required")),
    key!("ecn", Boolean, Any, "CE-mark ECT packets instead of dropping them"),
];

impl Default for DropTailParams {
    fn default() -> Self {
        DropTailParams { limit_pkts: Some(DEFAULT_LIMIT_PKTS), limit_bytes: None }
    }
}

/// Floyd & Jacobson 1993's values (min_th 5, max_th 15 packets of their simulations).
impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.002,
            gentle: false,
            wait: true,
            mode: RedMode::Packet,
            mean_pkt_bytes: 1500,
            link_rate_bps: 0,
            ecn: false,
            personality: RedPersonality::Floyd93,
            mark_p: None,
            adaptive: false,
            ns2_rng_skip: None,
            quench: false,
        }
    }
}

/// Hollot et al. 2001 §V's sampling rate; the gains are a design's (`q_ref` and the gains given).
impl Default for PiParams {
    fn default() -> Self {
        PiParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            q_ref: 0.0,
            a: 0.0,
            b: 0.0,
            sample_hz: 160.0,
            ecn: false,
        }
    }
}

/// `tc-codel(8)`.
impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            target_ns: 5 * MS,
            interval_ns: 100 * MS,
            ecn: false,
            ce_threshold_ns: None,
            mtu_bytes: 1514,
            personality: AqmPersonality::Linux,
        }
    }
}

/// `tc-pie(8)`, RFC 8033.
impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            target_ns: 15 * MS,
            tupdate_ns: 15 * MS,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ns: 150 * MS,
            ecn: false,
            mark_ecn_threshold: 0.1,
            bytemode: false,
            mean_pkt_bytes: 1500,
            derandomize: false,
            personality: AqmPersonality::Linux,
        }
    }
}

/// `tc-fq_codel(8)`.
impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            limit_pkts: 10240,
            memory_limit_bytes: 32 * 1024 * 1024,
            flows: 1024,
            quantum_bytes: 1514,
            drop_batch: 64,
            target_ns: 5 * MS,
            interval_ns: 100 * MS,
            ecn: true,
            ce_threshold_ns: None,
            ce_threshold_selector: None,
            mtu_bytes: 1514,
            perturbation: None,
            personality: AqmPersonality::Linux,
        }
    }
}

/// `sch_dualpi2.c`'s `dualpi2_reset_default` (the step set by the front: 1 ms with `linux`).
impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params {
            limit_pkts: 10000,
            target_ns: 15 * MS,
            tupdate_ns: 16 * MS,
            alpha: 0.16,
            beta: 3.2,
            coupling: 2.0,
            step_thresh_ns: None,
            step_thresh_pkts: None,
            min_qlen_step: 0,
            ramp_min_ns: None,
            ramp_range_ns: None,
            classic_protection_pct: 10,
            ecn_mask: EcnMask::L4sEct,
            drop_on_overload: true,
            mtu_bytes: 1514,
            personality: AqmPersonality::Linux,
            drop_early: false,
            memory_limit_bytes: None,
        }
    }
}

/// Floyd, Gummadi & Shenker 2001 (ns-3 `red-queue-disc.cc`).
impl Default for AredParams {
    fn default() -> Self {
        AredParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            target_delay_ns: 5 * MS,
            interval_ns: 500 * MS,
            alpha: 0.01,
            beta: 0.9,
            bottom: 0.01,
            top: 0.5,
            max_p: 0.02,
            min_th: None,
            max_th: None,
            wq: None,
            mean_pkt_bytes: 1500,
            link_rate_bps: 0,
            ecn: false,
        }
    }
}

/// A marking step; its threshold is always the scenario's.
impl Default for StepParams {
    fn default() -> Self {
        StepParams {
            limit_pkts: Some(DEFAULT_LIMIT_PKTS),
            limit_bytes: None,
            on: StepOn::Packets,
            threshold: 0,
            ecn: true,
        }
    }
}

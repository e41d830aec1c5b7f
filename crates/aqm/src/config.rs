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

/// Which tool's definition of RED to follow (docs/peers.md has the table).
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

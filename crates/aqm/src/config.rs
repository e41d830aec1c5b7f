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
}

//! The engine's input: a fully lowered network, as JSON from the Python front.
//!
//! The Python side owns the user-facing scenario file (TOML, units as strings,
//! a `dumbbell` shorthand, defaults) and lowers it to this form: every node and
//! every *unidirectional* link listed, every flow concrete, every unit canonical
//! (nanoseconds, bits per second, bytes). Unknown fields are rejected here as
//! a second line of defence; the front validates first and names the
//! scenario-file field in its message.

use ecnlab_aqm::QueueConfig;
use ecnlab_tcp::TcpConfig;
use ecnlab_wire::key;
use ecnlab_wire::keys::{range, variants, Allowed::*, Key};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Run seed; every component's RNG stream is derived from (seed, component id).
    pub seed: u64,
    /// Simulated time at which the run stops.
    pub duration_ns: u64,
    /// Goodput and link utilisation are measured from this time on.
    #[serde(default)]
    pub warmup_ns: u64,
    /// Period of the time series; 0 = no time series (`series.rs`).
    #[serde(default)]
    pub sample_interval_ns: u64,
    /// Links whose queues are sampled; null = the links between routers (`series.rs`).
    #[serde(default)]
    pub timeseries_links: Option<Vec<String>>,
    /// Flows whose TCP state is sampled; null = every flow.
    #[serde(default)]
    pub timeseries_flows: Option<Vec<String>>,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Each distinct `tcp` table is read once (`spec_flows.rs`).
    #[serde(deserialize_with = "crate::spec_flows::read")]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// Path impairments of the ECN fields (`impair.rs`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub impairments: Vec<ImpairSpec>,
    /// End the run when every flow has finished its work (all flows must be
    /// finite); `duration_ns` is then a limit, and reaching it is an error.
    #[serde(default)]
    pub stop_when_complete: bool,
    /// Directory for pcap files of links with `pcap = true` (`<dir>/<link name>.pcap`).
    #[serde(default)]
    pub pcap_dir: Option<String>,
    /// Equal-cost multipath: where several next hops lie on shortest paths, each flow
    /// picks one by a hash of (seed, flow, node) (`net.rs`); false: the lowest link index.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecmp: bool,
}

impl SimSpec {
    /// Every concrete flow as (entry index, index within the entry), in flow-index order.
    pub fn each_flow(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.flows.iter().enumerate().flat_map(|(e, f)| (0..f.len()).map(move |k| (e, k)))
    }

    /// How many flows the entries make.
    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(FlowSpec::len).sum()
    }

    /// The id of every flow, in flow-index order.
    pub fn flow_ids(&self) -> Vec<String> {
        self.each_flow().map(|(e, k)| self.flows[e].flow_id(k)).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// Ends connections; never forwards.
    Host,
    /// Forwards along static shortest paths.
    Router,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A unidirectional link with its own output queue at `from`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Unique; conventionally "FROM->TO".
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueConfig,
    /// Bernoulli loss probability applied to each packet as it leaves the link.
    #[serde(default)]
    pub loss: f64,
    /// Probability that a packet arrives damaged: the next node discards it
    /// (an error model in the style of ns-2's ErrorModel; counted as corrupted,
    /// not lost, so receiver overhead can include it).
    #[serde(default)]
    pub corrupt: f64,
    /// Write every packet the link transmits (as it starts transmission, after the
    /// queue: its marks are seen, its drops are not) to `<pcap_dir>/<name>.pcap`.
    #[serde(default)]
    pub pcap: bool,
    /// With `pcap`: the capture's file name without `.pcap` instead of the link's
    /// name. Links naming the same file share it, in time order (both
    /// directions of a path in one capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap_file: Option<String>,
    /// Report the fraction of time the queue holds more than this many bytes
    /// (`queue_frac_above` in the link's output; `tail.rs`).
    #[serde(default)]
    pub tail_threshold_bytes: Option<u64>,
}

/// Which end opens the connection(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Initiator {
    /// The data source connects (iperf-style upload, ns-2 FTP).
    Src,
    /// The data sink connects (a client downloading, a TCP_CRR client).
    Dst,
}

/// What the application on a flow does. Data always flows `src → dst`
/// (request bytes of a transaction flow `dst → src`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// One connection; `bytes = None` sends for ever.
    Bulk { bytes: Option<u64> },
    /// `files` transfers of `file_bytes`, one after another, a new connection each.
    Serial {
        files: u32,
        file_bytes: u64,
        #[serde(default)]
        gap_ns: u64,
    },
    /// netperf TCP_CRR: connect, request, response, close; repeat after `think_ns`.
    /// `count = None` repeats until the run ends.
    RequestResponse {
        request_bytes: u64,
        response_bytes: u64,
        #[serde(default)]
        think_ns: u64,
        #[serde(default)]
        count: Option<u32>,
    },
    /// Telnet (Floyd 1994 §6.1): one connection; the source writes `write_bytes`
    /// at random intervals (tcplib or exponential with `mean_interarrival_ns`).
    Telnet {
        interarrival: crate::telnet::Interarrival,
        #[serde(default)]
        mean_interarrival_ns: u64,
        #[serde(default = "one_byte")]
        write_bytes: u32,
    },
    /// Short transfers arriving as a Poisson process with mean gap `mean_gap_ns`,
    /// each of a size uniform in `min_bytes..=max_bytes`, each on its own connection.
    FtpArrivals { min_bytes: u64, max_bytes: u64, mean_gap_ns: u64 },
    /// Web sessions of pages of objects, one connection per object (`web.rs`).
    Web(crate::web::WebParams),
    /// Partition/aggregate queries: the entry's flows answer each query together (`incast.rs`).
    Incast(crate::incast::IncastParams),
}

/// One application kind as a `[[flows]]` entry names it (`kind = "…"`), and its keys.
#[derive(Clone, Copy, Debug)]
pub struct AppKind {
    pub name: &'static str,
    pub keys: &'static [Key],
}

/// Every application kind's scenario keys (beside the entry's own: `from`, `to`, `count`, …).
pub const APP_KINDS: &[AppKind] = &[
    AppKind { name: "bulk", keys: &[key!("bytes", Size, Any, "send this much and stop"; Derived("unlimited"))] },
    AppKind {
        name: "serial",
        keys: &[
            key!("files", Integer, range(1., U32_MAX), "transfers, one after another, a new connection each"; Required),
            key!("file_size" => "file_bytes", Size, Any, "bytes per transfer"; Required),
            key!("gap" => "gap_ns", Duration, Any, "pause between a transfer's end and the next connection"; Derived("0")),
        ],
    },
    AppKind {
        name: "request_response",
        keys: &[
            key!("request_size" => "request_bytes", Size, Any, "request bytes (to -> from)"; Required),
            key!("response_size" => "response_bytes", Size, Any, "response bytes (from -> to)"; Required),
            key!("think" => "think_ns", Duration, Any, "pause between transactions"; Derived("0")),
            key!("transactions" => "count", Integer, range(1., U32_MAX), "transactions (netperf TCP_CRR)"; Derived("until the end of the run")),
        ],
    },
    AppKind {
        name: "telnet",
        keys: &[
            key!("interarrival", Choice, Variants(variants::<crate::telnet::Interarrival>), "time between writes: tcplib's telnet distribution or exponential"; Derived("tcplib")),
            key!("mean_interarrival" => "mean_interarrival_ns", Duration, POSITIVE, "mean time between writes"; Derived("required with exponential")),
            key!("write_size" => "write_bytes", Integer, range(1., 65535.), "payload bytes per write"; Derived("1")),
        ],
    },
    AppKind {
        name: "ftp_arrivals",
        keys: &[
            key!("min_size" => "min_bytes", Size, Any, "each transfer's least size"; Required),
            key!("max_size" => "max_bytes", Size, Any, "each transfer's greatest size"; Required),
            key!("mean_gap" => "mean_gap_ns", Duration, POSITIVE, "mean time between transfer arrivals (Poisson)"; Required),
        ],
    },
    AppKind {
        name: "web",
        keys: &[
            key!("size", Text, Any, "object size distribution (web.rs)"; Required),
            key!("request_size" => "request_bytes", Size, Any, "each object's request (HTTP/1.0)"; Derived("300")),
            key!("offered_load" => -, Rate, Any, "response payload per second: sets mean_session_gap"; Derived("give this or mean_session_gap")),
            key!("mean_session_gap" => "mean_session_gap_ns", Duration, POSITIVE, "mean time between session arrivals (Poisson)"; Derived("give this or offered_load")),
            key!("pages_per_session", Number, range(1., f64::INFINITY), "mean of the geometric count"; Derived("1")),
            key!("objects_per_page", Number, range(1., f64::INFINITY), "mean of the geometric count"; Derived("1")),
            key!("think" => "mean_think_ns", Duration, Any, "mean think time between pages"; Derived("0")),
        ],
    },
    AppKind {
        name: "incast",
        keys: &[
            key!("request_size" => "request_bytes", Size, Any, "the query to each responder"; Derived("100")),
            key!("response_size" => "response_bytes", Size, Any, "each responder's answer"; Required),
            key!("interval" => "interval_ns", Duration, POSITIVE, "time between queries (their mean with poisson)"; Required),
            key!("arrivals", Choice, Variants(variants::<crate::incast::QueryArrivals>), "how queries are spaced"; Derived("poisson")),
            key!("queries", Integer, range(1., 100000.), "number of queries"; Derived("until the end of the run")),
        ],
    },
];

const U32_MAX: f64 = u32::MAX as f64;
const POSITIVE: ecnlab_wire::keys::Allowed = ecnlab_wire::keys::above(0., f64::INFINITY);

fn one_byte() -> u32 {
    1
}

impl AppSpec {
    /// False for work without end (unlimited bulk, endless transactions).
    pub fn is_finite(&self) -> bool {
        match self {
            AppSpec::Bulk { bytes } => bytes.is_some(),
            AppSpec::Serial { .. } => true,
            AppSpec::RequestResponse { count, .. } => count.is_some(),
            AppSpec::Incast(p) => p.queries.is_some(),
            AppSpec::Telnet { .. } | AppSpec::FtpArrivals { .. } | AppSpec::Web(_) => false,
        }
    }
}

/// One `[[flows]]` entry: a single flow, or a group of `count` flows per (src, dst)
/// pair, expanded here in the engine (never in the front) into flows numbered pair
/// by pair: `id` when the entry makes one flow, else `id_1` … `id_n`. Each flow
/// draws from its own stream (`rng::stream(seed, App, flow index)`), so a group
/// gives exactly the flows its entries written one by one would. `T` is the TCP
/// configuration: `TcpConfig`, or its JSON text while the spec is read (`spec_flows.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry<T> {
    /// Flow id (used by faults and in results), or the group's name.
    pub id: String,
    /// Data source host(s).
    pub src: Hosts,
    /// Data sink host(s): paired with `src` in order; one host on either side
    /// pairs with every host on the other.
    pub dst: Hosts,
    /// Flows per (src, dst) pair.
    #[serde(default = "one_flow", skip_serializing_if = "is_one_flow")]
    pub count: u32,
    pub start_ns: u64,
    /// The start is drawn uniformly from `start_ns..=start_ns + start_spread_ns`
    /// with the flow's own RNG stream (0 = exactly `start_ns`).
    #[serde(default)]
    pub start_spread_ns: u64,
    pub initiator: Initiator,
    pub app: AppSpec,
    /// Both endpoints use this configuration (ECN is negotiated only when it says so).
    pub tcp: T,
}

/// A `[[flows]]` entry with its TCP configuration read.
pub type FlowSpec = FlowEntry<TcpConfig>;

fn one_flow() -> u32 {
    1
}

fn is_one_flow(n: &u32) -> bool {
    *n == 1
}

/// One host name, or a list of them (`FlowSpec::src`, `dst`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Hosts {
    One(String),
    Many(Vec<String>),
}

impl Hosts {
    /// The names, in order.
    pub fn names(&self) -> &[String] {
        match self {
            Hosts::One(name) => std::slice::from_ref(name),
            Hosts::Many(names) => names,
        }
    }

    /// The host of pair `k` (a single host serves every pair).
    pub fn of_pair(&self, k: usize) -> &str {
        let names = self.names();
        &names[if names.len() == 1 { 0 } else { k }]
    }
}

impl From<&str> for Hosts {
    fn from(name: &str) -> Self {
        Hosts::One(name.to_string())
    }
}

impl From<String> for Hosts {
    fn from(name: String) -> Self {
        Hosts::One(name)
    }
}

impl<T> FlowEntry<T> {
    /// (src, dst) pairs: the longer list's length (the check refuses unequal lists).
    pub fn pairs(&self) -> usize {
        self.src.names().len().max(self.dst.names().len())
    }

    /// Flows this entry makes.
    pub fn len(&self) -> usize {
        self.pairs() * self.count as usize
    }

    /// Whether the entry makes no flow (an empty host list or `count = 0`, refused by the check).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of the entry's `k`-th flow (from 0): `id` alone, else `id_{k+1}`.
    pub fn flow_id(&self, k: usize) -> String {
        if self.len() == 1 {
            self.id.clone()
        } else {
            format!("{}_{}", self.id, k + 1)
        }
    }

    /// (src, dst) host names of the entry's `k`-th flow: `count` flows per pair, pair by pair.
    pub fn flow_hosts(&self, k: usize) -> (&str, &str) {
        let pair = k / self.count.max(1) as usize;
        (self.src.of_pair(pair), self.dst.of_pair(pair))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultAction {
    Drop,
    /// Set CE if the packet is ECN-capable; a Not-ECT packet is dropped instead
    /// (what an ECN router does), counted as a drop.
    Mark,
}

/// A scripted fault: at `link`, act on one packet of `flow`.
/// Exactly one of `nth` and `seq` is given.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    pub link: String,
    pub flow: String,
    pub action: FaultAction,
    /// 1-based: the n-th packet of this flow to enter the link (SYN, data, ACK,
    /// retransmission: every transmission counts).
    #[serde(default)]
    pub nth: Option<u64>,
    /// The first packet of the flow's first connection whose payload covers this
    /// sequence number (data byte 1 is the first payload byte).
    #[serde(default)]
    pub seq: Option<u64>,
}

/// A path impairment: at `link`, `action` on the packets it applies to
/// (`impair.rs`), within `[from_ns, until_ns)`, of `flows` (empty: every flow),
/// a `fraction` of them (`impair_link.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpairSpec {
    pub link: String,
    pub action: crate::impair::ImpairAction,
    #[serde(default = "all_packets")]
    pub fraction: f64,
    #[serde(default)]
    pub from_ns: u64,
    #[serde(default)]
    pub until_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<String>,
}

fn all_packets() -> f64 {
    1.0
}

//! The engine's result, returned to the Python front as JSON. Field names are a
//! contract for users' scripts.

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct RunOutput {
    pub sim: SimOut,
    pub flows: Vec<FlowOut>,
    /// One summary per entry making more than `groups::RECORD_LIMIT` flows (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<crate::groups::GroupOut>,
    /// One summary per `incast` entry: its queries and their completion times (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<crate::incast::QueryOut>,
    pub queues: Vec<QueueOut>,
    pub links: Vec<LinkOut>,
    pub timeseries: TimeSeriesOut,
    /// Router queues' sojourn histograms after the warm-up (`SojournOut`); the front moves
    /// them out of the summary into `sojourn.parquet`.
    pub sojourn_histograms: Vec<SojournOut>,
}

/// One sojourn-time histogram of packets that left a router queue after the warm-up: the
/// whole queue's (`class` and `flow` null), one class's (DualPI2: `L`, `C`), or, in a
/// per-flow queue (FQ-CoDel), one flow's. Buckets of 2 significant digits
/// (`ecnlab_aqm::SojournBuckets`): `value_ns[i]` is the highest sojourn bucket `i` holds,
/// `count[i]` its packets; empty buckets are left out.
#[derive(Debug, Serialize)]
pub struct SojournOut {
    pub link: String,
    pub class: Option<&'static str>,
    pub flow: Option<String>,
    pub value_ns: Vec<u64>,
    pub count: Vec<u64>,
}

#[derive(Debug, Default, Serialize)]
pub struct SimOut {
    pub sim_time_s: f64,
    pub events: u64,
    /// Packets routers sent on (every hop after the first).
    pub packets_forwarded: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct FlowOut {
    pub id: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    pub ecn: bool,
    pub ecn_negotiated: bool,
    /// Congestion control (`tcp.cc`) and loss recovery (`tcp.recovery`).
    pub cc: &'static str,
    pub recovery: &'static str,
    pub start_s: f64,
    pub connections: u32,
    /// From the flow's first SYN to its first connection established at the client (the
    /// SYN-ACK received), SYN retransmissions included; null if no connection was established.
    pub connect_time_s: Option<f64>,
    /// SYN and SYN-ACK retransmissions, both ends, every connection of the flow.
    pub syn_retransmits: u64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub ecn_reductions: u64,
    pub ce_received: u64,
    pub ece_sent: u64,
    pub cwr_sent: u64,
    pub acks_sent: u64,
    /// ICMP Source Quenches that reached the flow's endpoints, and the window
    /// reductions they caused (at most one per window; Floyd 1994 §4).
    pub quenches_received: u64,
    pub quench_reductions: u64,
    pub completion_time_s: Option<f64>,
    /// Serial flows: each file's transfer time, connection opening (SYN) to
    /// its last byte at the client, in order; empty for other kinds.
    pub transfer_times_s: Vec<f64>,
    pub transactions: Option<u64>,
    /// Data packets that reached the dst host, duplicates and corrupted ones included.
    pub data_packets_received: u64,
    /// Of those, packets that arrived damaged and were discarded.
    pub corrupted_received: u64,
    /// Pure ACKs sent by the dst (receiving) side.
    pub dst_acks_sent: u64,
    /// Packet accounting of both directions: sent = delivered + dropped + corrupted + in flight
    /// (ICMP Source Quenches about the flow's packets included).
    pub pkts_sent: u64,
    pub pkts_delivered: u64,
    pub pkts_dropped: u64,
    pub pkts_corrupted: u64,
    pub pkts_in_flight: u64,
    /// The counters above counted after the warm-up only (every `*_after_warmup` field: the
    /// whole-run value less its value when the warm-up ended; equal without a warm-up).
    pub bytes_delivered_after_warmup: u64,
    pub data_packets_sent_after_warmup: u64,
    pub retransmits_after_warmup: u64,
    pub fast_retransmits_after_warmup: u64,
    pub timeouts_after_warmup: u64,
    pub ecn_reductions_after_warmup: u64,
    pub ce_received_after_warmup: u64,
    pub pkts_dropped_after_warmup: u64,
    /// DCTCP flows only (`tcp.cc = "dctcp"`): α (RFC 8257 §3.3) at the data
    /// source when its latest connection ended or the run did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dctcp_alpha: Option<f64>,
    /// AccECN flows only (`tcp.ecn = "accecn"`, RFC 9768): CE-marked packets the
    /// data source learnt from the ACE field (with the wrap safety rule), to set
    /// beside the receiver's `ce_received`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ace_delta_ce: Option<u64>,
    /// AccECN flows only: CE-marked payload bytes the data sender learnt from
    /// the AccECN option's ECEB counter (RFC 9768 §3.2.3), beside `ace_delta_ce`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accecn_ceb: Option<u64>,
    /// Telnet flows only (absent otherwise): writes made, writes delivered in
    /// order, and their one-way delay from write to delivery (see telnet.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_writes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_delivered: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_delay_mean_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_delay_max_s: Option<f64>,
    /// Share of delivered writes delayed more than 100 ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_frac_over_100ms: Option<f64>,
    /// Delivered writes per delay bin; bins end at 1, 2, 5, 10, 20, 50, 100,
    /// 200, 500, 1000 ms, the last counts the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telnet_delay_hist: Option<Vec<u64>>,
    /// `ftp_arrivals` flows only: transfers started and completed, and the mean
    /// over completed transfers of size / (last byte at the receiver − start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfers_started: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfers_completed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_goodput_mean_bps: Option<f64>,
    /// `web` flows only (web.rs): objects requested and completed, response
    /// bytes requested, and response times (client SYN → last byte) of the
    /// completed objects: mean, percentiles and a histogram.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<crate::web::WebOut>,
    /// Incast flows only: responses received in full by the aggregator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<u64>,
}

#[derive(Debug, Default, Serialize)]
pub struct QueueOut {
    pub link: String,
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub marks: u64,
    /// Packets forwarded unchanged with an ICMP Source Quench sent to their source (RED `quench`).
    pub quenches: u64,
    pub early_drops: u64,
    /// Early drops of ECN-capable packets (zero whenever the queue has ECN on).
    pub early_drops_ect: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    /// The queue's drops (early + forced + overflow) by what the packet was
    /// (`packet.rs`, `PacketKind`).
    pub drops_syn: u64,
    pub drops_synack: u64,
    pub drops_data: u64,
    pub drops_retransmit: u64,
    pub drops_fin: u64,
    pub drops_ack: u64,
    pub drops_quench: u64,
    pub avg_qlen_pkts: f64,
    pub max_qlen_pkts: u32,
    pub avg_qlen_bytes: f64,
    /// Drops and marks made after enqueue (AQMs that decide at dequeue); also
    /// in the counts by reason and in `marks`.
    pub dequeue_drops: u64,
    pub dequeue_marks: u64,
    /// Marks by a threshold rule (step queue, CoDel `ce_threshold`, DualPI2's L step); also in `marks`.
    pub step_marks: u64,
    /// Sojourn-time percentiles of the packets that left, in ms (queues
    /// leaving a router; null elsewhere or when no packet left).
    pub sojourn_p50_ms: Option<f64>,
    pub sojourn_p90_ms: Option<f64>,
    pub sojourn_p99_ms: Option<f64>,
    pub sojourn_p999_ms: Option<f64>,
    pub sojourn_max_ms: Option<f64>,
    pub sojourn_mean_ms: Option<f64>,
    /// The counters above counted after the warm-up only (see `FlowOut`).
    pub arrivals_after_warmup: u64,
    pub enqueued_after_warmup: u64,
    pub dequeued_after_warmup: u64,
    pub marks_after_warmup: u64,
    pub quenches_after_warmup: u64,
    pub early_drops_after_warmup: u64,
    pub early_drops_ect_after_warmup: u64,
    pub forced_drops_after_warmup: u64,
    pub overflow_drops_after_warmup: u64,
    pub drops_syn_after_warmup: u64,
    pub drops_synack_after_warmup: u64,
    pub drops_data_after_warmup: u64,
    pub drops_retransmit_after_warmup: u64,
    pub drops_fin_after_warmup: u64,
    pub drops_ack_after_warmup: u64,
    pub drops_quench_after_warmup: u64,
    pub dequeue_drops_after_warmup: u64,
    pub dequeue_marks_after_warmup: u64,
    pub step_marks_after_warmup: u64,
    /// Per class of sub-queue (DualPI2: L, then C); absent for one class.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassOut>,
}

/// One class of sub-queues (`ecnlab_aqm::ClassStats`) and its counters after the warm-up.
#[derive(Debug, Default, Serialize)]
pub struct ClassOut {
    #[serde(flatten)]
    pub whole_run: ecnlab_aqm::ClassStats,
    pub dequeued_after_warmup: u64,
    pub marks_after_warmup: u64,
    pub step_marks_after_warmup: u64,
    pub drops_after_warmup: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct LinkOut {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub packets: u64,
    pub bytes: u64,
    /// Share of the link's capacity used after the warm-up.
    pub utilization: f64,
    pub random_losses: u64,
    pub fault_drops: u64,
    pub fault_marks: u64,
    /// Links with `tail_threshold_bytes` only: that threshold and the fraction
    /// of [warm-up, end] the queue held more bytes (`tail.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_tail_threshold_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_frac_above: Option<f64>,
    /// Links with path impairments only: what each did, in the scenario's order (`impair_link.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impairments: Option<Vec<crate::impair_link::ImpairCount>>,
}

#[derive(Debug, Default, Serialize)]
pub struct TimeSeriesOut {
    pub queue: Vec<QueueSeries>,
    pub flow: Vec<FlowSeries>,
}

/// Columnar samples of one flow's sender (`series.rs`); null while the flow
/// has no open connection (and ssthresh while it is "infinite").
#[derive(Debug, Serialize)]
pub struct FlowSeries {
    pub flow: String,
    pub t_s: Vec<f64>,
    pub cwnd_bytes: Vec<Option<u32>>,
    pub ssthresh_bytes: Vec<Option<u32>>,
    pub srtt_ms: Vec<Option<f64>>,
    pub in_flight_bytes: Vec<Option<u64>>,
    /// Payload bytes delivered to the dst application so far.
    pub delivered_bytes: Vec<u64>,
    /// The congestion controls' probes (`ecnlab_tcp::PROBES`: DCTCP's α, CUBIC's
    /// W_max and epoch, ...), each a key of its own; absent for a flow whose
    /// senders never reported it, null while no connection is open.
    #[serde(flatten)]
    pub probes: ProbeSeries,
}

/// A flow's probe columns, in `ecnlab_tcp::PROBES` order, only those some
/// sample reported; written as keys of the flow's series.
#[derive(Debug, Default)]
pub struct ProbeSeries(pub Vec<(&'static str, Vec<Option<f64>>)>);

impl ProbeSeries {
    /// The column of probe `name`, if this flow has it.
    pub fn get(&self, name: &str) -> Option<&[Option<f64>]> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_slice())
    }
}

impl Serialize for ProbeSeries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, values) in &self.0 {
            map.serialize_entry(name, values)?;
        }
        map.end()
    }
}

/// Columnar samples of one queue: instantaneous length and the AQM's average
/// (null for queues without one).
#[derive(Debug, Serialize)]
pub struct QueueSeries {
    pub link: String,
    pub t_s: Vec<f64>,
    pub qlen_pkts: Vec<u32>,
    pub avg_pkts: Vec<Option<f64>>,
    /// Sojourn time of the oldest queued packet at the sample, in ms (0 when empty).
    pub delay_ms: Vec<f64>,
    /// The AQM's signal probability (PI, PIE, DualPI2's p', ARED's max_p);
    /// absent for AQMs without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prob: Option<Vec<f64>>,
    /// CE marks and drops (every reason) so far, cumulative.
    pub marks: Vec<u64>,
    pub drops: Vec<u64>,
}

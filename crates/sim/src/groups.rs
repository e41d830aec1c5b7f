//! Large flow groups in the result: an entry that makes more than [`RECORD_LIMIT`]
//! flows gets one summary record ([`GroupOut`]) instead of a record per flow in
//! the JSON result of the columnar path (`run_json_split_until`); its flows'
//! results leave as columns ([`crate::flow_table`]), which the front writes to
//! `flows.parquet`. Entries up to the limit keep their records as before.

use crate::output::FlowOut;
use crate::spec::FlowSpec;
use serde::Serialize;

/// Entries making more flows than this are reported as groups.
pub const RECORD_LIMIT: usize = 1000;

/// One large entry's flows summarised: counts, sums of the per-flow counters,
/// and the spread of goodput and completion time over its flows.
#[derive(Debug, Default, Serialize)]
pub struct GroupOut {
    /// The entry's name (its flows are `name_1` … `name_n`).
    pub name: String,
    pub kind: &'static str,
    /// Position of the entry among the scenario's `[[flows]]`.
    pub entry: u32,
    /// Flows in the group, and the flow index (row of `flows.parquet`) of its first one.
    pub flows: u64,
    pub first_row: u64,
    pub bytes_delivered: u64,
    /// Goodput over the group's flows: mean, min, nearest-rank p10/p50/p90/p99, max.
    pub goodput_bps_mean: f64,
    pub goodput_bps_min: f64,
    pub goodput_bps_p10: f64,
    pub goodput_bps_p50: f64,
    pub goodput_bps_p90: f64,
    pub goodput_bps_p99: f64,
    pub goodput_bps_max: f64,
    /// Jain's index over the group's goodputs (null if all are zero).
    pub jain: Option<f64>,
    /// Flows that finished their work, and their completion times (null when none did).
    pub completed: u64,
    pub completion_time_s_mean: Option<f64>,
    pub completion_time_s_p50: Option<f64>,
    pub completion_time_s_p99: Option<f64>,
    pub completion_time_s_max: Option<f64>,
    pub ecn_negotiated: u64,
    pub connections: u64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub ecn_reductions: u64,
    pub ce_received: u64,
    pub ece_sent: u64,
    pub cwr_sent: u64,
    pub pkts_sent: u64,
    pub pkts_dropped: u64,
}

/// Whether `entry`'s flows are reported as a group.
pub fn is_group(entry: &FlowSpec) -> bool {
    entry.len() > RECORD_LIMIT
}

/// The group records of the large entries among `entries`, whose flows are `flows`
/// in flow-index order.
pub fn summarize(entries: &[FlowSpec], flows: &[FlowOut]) -> Vec<GroupOut> {
    let mut out = Vec::new();
    let mut first = 0;
    for (e, entry) in entries.iter().enumerate() {
        let n = entry.len();
        if is_group(entry) {
            out.push(group_out(&entry.id, e, first, &flows[first..first + n]));
        }
        first += n;
    }
    out
}

fn group_out(name: &str, entry: usize, first: usize, flows: &[FlowOut]) -> GroupOut {
    let sum = |f: fn(&FlowOut) -> u64| flows.iter().map(f).sum::<u64>();
    let goodput: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
    let sorted = sorted(goodput.clone());
    let done: Vec<f64> = flows.iter().filter_map(|f| f.completion_time_s).collect();
    let done_sorted = sorted_or_none(done.clone());
    let [p10, p50, p90] = [10.0, 50.0, 90.0].map(|q| nearest_rank(&sorted, q));
    GroupOut {
        name: name.to_string(),
        kind: flows[0].kind,
        entry: entry as u32,
        flows: flows.len() as u64,
        first_row: first as u64,
        bytes_delivered: sum(|f| f.bytes_delivered),
        goodput_bps_mean: mean(&goodput),
        goodput_bps_min: sorted[0],
        goodput_bps_p10: p10,
        goodput_bps_p50: p50,
        goodput_bps_p90: p90,
        goodput_bps_p99: nearest_rank(&sorted, 99.0),
        goodput_bps_max: sorted[sorted.len() - 1],
        jain: jain(&goodput),
        completed: done.len() as u64,
        completion_time_s_mean: (!done.is_empty()).then(|| mean(&done)),
        completion_time_s_p50: done_sorted.as_deref().map(|s| nearest_rank(s, 50.0)),
        completion_time_s_p99: done_sorted.as_deref().map(|s| nearest_rank(s, 99.0)),
        completion_time_s_max: done_sorted.as_deref().map(|s| s[s.len() - 1]),
        ecn_negotiated: sum(|f| u64::from(f.ecn_negotiated)),
        connections: sum(|f| u64::from(f.connections)),
        data_packets_sent: sum(|f| f.data_packets_sent),
        retransmits: sum(|f| f.retransmits),
        fast_retransmits: sum(|f| f.fast_retransmits),
        timeouts: sum(|f| f.timeouts),
        ecn_reductions: sum(|f| f.ecn_reductions),
        ce_received: sum(|f| f.ce_received),
        ece_sent: sum(|f| f.ece_sent),
        cwr_sent: sum(|f| f.cwr_sent),
        pkts_sent: sum(|f| f.pkts_sent),
        pkts_dropped: sum(|f| f.pkts_dropped),
    }
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn sorted_or_none(v: Vec<f64>) -> Option<Vec<f64>> {
    (!v.is_empty()).then(|| sorted(v))
}

/// Sum in flow order over the count (the front's arithmetic, so it can check it).
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The value at nearest rank ⌈q/100 · n⌉ (1-based) of `sorted` (not empty).
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    sorted[((q / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1]
}

/// Jain's fairness index (Σx)² / (n·Σx²); None when every value is zero.
fn jain(v: &[f64]) -> Option<f64> {
    let squares: f64 = v.iter().map(|x| x * x).sum();
    (squares != 0.0).then(|| v.iter().sum::<f64>().powi(2) / (v.len() as f64 * squares))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_takes_the_ceiling_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 10.0), 1.0);
        assert_eq!(nearest_rank(&v, 50.0), 5.0);
        assert_eq!(nearest_rank(&v, 99.0), 10.0);
        assert_eq!(nearest_rank(&[7.0], 1.0), 7.0);
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_none_for_nothing() {
        assert_eq!(jain(&[2.0, 2.0, 2.0]), Some(1.0));
        assert_eq!(jain(&[0.0, 0.0]), None);
        assert!((jain(&[3.0, 1.0]).unwrap() - 0.8).abs() < 1e-12);
    }
}

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

/// `GroupOut` with its sums of per-flow counters named once: each is the sum over the
/// group's flows of the `FlowOut` field of the same name.
macro_rules! group_out {
    ($($sum:ident),* $(,)?) => {
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
            /// Request/response transactions completed (null when no flow counts them).
            pub transactions: Option<u64>,
            /// Sums over the group's flows (`ecn_negotiated`: flows that negotiated ECN).
            $(pub $sum: u64,)*
        }

        fn add_sums(g: &mut GroupOut, flows: &[FlowOut]) {
            $(g.$sum = flows.iter().map(|f| u64::from(f.$sum)).sum();)*
        }
    };
}

group_out!(
    ecn_negotiated,
    connections,
    data_packets_sent,
    retransmits,
    fast_retransmits,
    timeouts,
    ecn_reductions,
    ce_received,
    ece_sent,
    cwr_sent,
    pkts_sent,
    pkts_dropped,
    bytes_delivered_after_warmup,
    data_packets_sent_after_warmup,
    retransmits_after_warmup,
    fast_retransmits_after_warmup,
    timeouts_after_warmup,
    ecn_reductions_after_warmup,
    ce_received_after_warmup,
    pkts_dropped_after_warmup,
);

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
    let goodput: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
    let sorted = sorted(goodput.clone());
    let done: Vec<f64> = flows.iter().filter_map(|f| f.completion_time_s).collect();
    let done_sorted = sorted_or_none(done.clone());
    let [p10, p50, p90] = [10.0, 50.0, 90.0].map(|q| nearest_rank(&sorted, q));
    let mut g = GroupOut {
        name: name.to_string(),
        kind: flows[0].kind,
        entry: entry as u32,
        flows: flows.len() as u64,
        first_row: first as u64,
        bytes_delivered: flows.iter().map(|f| f.bytes_delivered).sum(),
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
        transactions: flows.iter().filter_map(|f| f.transactions).reduce(|a, b| a + b),
        ..Default::default()
    };
    add_sums(&mut g, flows);
    g
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

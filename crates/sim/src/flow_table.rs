//! Per-flow results as columns, one row per flow in flow-index order: what the
//! front writes to `flows.parquet` without a JSON record per flow. The columns
//! are the flow record's keys (`output::FlowOut`), with `web` spread into
//! `web_*` columns; each carries the Arrow type the front gives it.

use crate::output::FlowOut;
use crate::web::WebOut;

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// One number per row (counters are exact below 2^53), null as NaN.
    Num(Vec<f64>),
    /// UTF-8 strings: row i is `data[offsets[i]..offsets[i + 1]]`.
    Text { offsets: Vec<i32>, data: Vec<u8> },
    /// A list of numbers per row: row i is `values[offsets[i]..offsets[i + 1]]`,
    /// null where `valid[i]` is false.
    List { offsets: Vec<i32>, values: Vec<f64>, valid: Vec<bool> },
}

/// A column: its name, the Arrow type alias of its values (of a list's items),
/// and the values.
pub type Column = (&'static str, &'static str, Values);

fn text<'a>(name: &'static str, flows: &'a [FlowOut], get: impl Fn(&'a FlowOut) -> &'a str) -> Column {
    let mut offsets = Vec::with_capacity(flows.len() + 1);
    let mut data = Vec::new();
    offsets.push(0);
    for f in flows {
        data.extend_from_slice(get(f).as_bytes());
        offsets.push(i32::try_from(data.len()).expect("flow names fit 32-bit offsets"));
    }
    (name, "string", Values::Text { offsets, data })
}

fn num(name: &'static str, kind: &'static str, flows: &[FlowOut], get: impl Fn(&FlowOut) -> Option<f64>) -> Column {
    (name, kind, Values::Num(flows.iter().map(|f| get(f).unwrap_or(f64::NAN)).collect()))
}

fn list(
    name: &'static str,
    kind: &'static str,
    flows: &[FlowOut],
    get: impl Fn(&FlowOut) -> Option<Vec<f64>>,
) -> Column {
    let (mut offsets, mut values, mut valid) = (vec![0], Vec::new(), Vec::with_capacity(flows.len()));
    for f in flows {
        let row = get(f);
        valid.push(row.is_some());
        values.extend(row.unwrap_or_default());
        offsets.push(i32::try_from(values.len()).expect("list columns fit 32-bit offsets"));
    }
    (name, kind, Values::List { offsets, values, valid })
}

fn web<T>(f: &FlowOut, get: impl Fn(&WebOut) -> T) -> Option<T> {
    f.web.as_ref().map(get)
}

fn floats(v: &[f64]) -> Vec<f64> {
    v.to_vec()
}

fn counts(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// Every flow's results as columns (names and order: the flow record's keys).
pub fn columns(flows: &[FlowOut]) -> Vec<Column> {
    let u64s = |name, get: fn(&FlowOut) -> u64| num(name, "uint64", flows, move |f| Some(get(f) as f64));
    let opt_u64 =
        |name, get: fn(&FlowOut) -> Option<u64>| num(name, "uint64", flows, move |f| get(f).map(|v| v as f64));
    let opt_f64 = |name, get: fn(&FlowOut) -> Option<f64>| num(name, "float64", flows, get);
    let flag = |name, get: fn(&FlowOut) -> bool| num(name, "bool", flows, move |f| Some(f64::from(u8::from(get(f)))));
    vec![
        text("id", flows, |f| &f.id),
        text("kind", flows, |f| f.kind),
        text("src", flows, |f| &f.src),
        text("dst", flows, |f| &f.dst),
        flag("ecn", |f| f.ecn),
        flag("ecn_negotiated", |f| f.ecn_negotiated),
        text("cc", flows, |f| f.cc),
        text("recovery", flows, |f| f.recovery),
        opt_f64("start_s", |f| Some(f.start_s)),
        num("connections", "uint32", flows, |f| Some(f64::from(f.connections))),
        opt_f64("connect_time_s", |f| f.connect_time_s),
        u64s("syn_retransmits", |f| f.syn_retransmits),
        u64s("bytes_delivered", |f| f.bytes_delivered),
        opt_f64("goodput_bps", |f| Some(f.goodput_bps)),
        u64s("data_packets_sent", |f| f.data_packets_sent),
        u64s("retransmits", |f| f.retransmits),
        u64s("fast_retransmits", |f| f.fast_retransmits),
        u64s("timeouts", |f| f.timeouts),
        u64s("ecn_reductions", |f| f.ecn_reductions),
        u64s("ce_received", |f| f.ce_received),
        u64s("ece_sent", |f| f.ece_sent),
        u64s("cwr_sent", |f| f.cwr_sent),
        u64s("acks_sent", |f| f.acks_sent),
        u64s("quenches_received", |f| f.quenches_received),
        u64s("quench_reductions", |f| f.quench_reductions),
        opt_f64("completion_time_s", |f| f.completion_time_s),
        list("transfer_times_s", "float64", flows, |f| Some(floats(&f.transfer_times_s))),
        opt_u64("transactions", |f| f.transactions),
        u64s("data_packets_received", |f| f.data_packets_received),
        u64s("corrupted_received", |f| f.corrupted_received),
        u64s("dst_acks_sent", |f| f.dst_acks_sent),
        u64s("pkts_sent", |f| f.pkts_sent),
        u64s("pkts_delivered", |f| f.pkts_delivered),
        u64s("pkts_dropped", |f| f.pkts_dropped),
        u64s("pkts_corrupted", |f| f.pkts_corrupted),
        u64s("pkts_in_flight", |f| f.pkts_in_flight),
        u64s("bytes_delivered_after_warmup", |f| f.bytes_delivered_after_warmup),
        u64s("data_packets_sent_after_warmup", |f| f.data_packets_sent_after_warmup),
        u64s("retransmits_after_warmup", |f| f.retransmits_after_warmup),
        u64s("fast_retransmits_after_warmup", |f| f.fast_retransmits_after_warmup),
        u64s("timeouts_after_warmup", |f| f.timeouts_after_warmup),
        u64s("ecn_reductions_after_warmup", |f| f.ecn_reductions_after_warmup),
        u64s("ce_received_after_warmup", |f| f.ce_received_after_warmup),
        u64s("pkts_dropped_after_warmup", |f| f.pkts_dropped_after_warmup),
        opt_f64("dctcp_alpha", |f| f.dctcp_alpha),
        opt_u64("ace_delta_ce", |f| f.ace_delta_ce),
        opt_u64("accecn_ceb", |f| f.accecn_ceb),
        opt_u64("telnet_writes", |f| f.telnet_writes),
        opt_u64("telnet_delivered", |f| f.telnet_delivered),
        opt_f64("telnet_delay_mean_s", |f| f.telnet_delay_mean_s),
        opt_f64("telnet_delay_max_s", |f| f.telnet_delay_max_s),
        opt_f64("telnet_frac_over_100ms", |f| f.telnet_frac_over_100ms),
        list("telnet_delay_hist", "uint64", flows, |f| f.telnet_delay_hist.as_deref().map(counts)),
        opt_u64("transfers_started", |f| f.transfers_started),
        opt_u64("transfers_completed", |f| f.transfers_completed),
        opt_f64("transfer_goodput_mean_bps", |f| f.transfer_goodput_mean_bps),
        opt_u64("web_sessions", |f| web(f, |w| w.sessions)),
        opt_u64("web_objects_started", |f| web(f, |w| w.objects_started)),
        opt_u64("web_objects_completed", |f| web(f, |w| w.objects_completed)),
        opt_u64("web_bytes_requested", |f| web(f, |w| w.bytes_requested)),
        opt_f64("web_response_mean_s", |f| web(f, |w| w.response_mean_s).flatten()),
        list("web_response_pct_s", "float64", flows, |f| web(f, |w| floats(&w.response_pct_s))),
        list("web_response_hist", "uint64", flows, |f| web(f, |w| counts(&w.response_hist))),
        opt_u64("responses", |f| f.responses),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns are the flow record's keys in order, `web` spread into its `web_*` keys.
    #[test]
    fn columns_follow_the_flow_record() {
        let schema = crate::schema::summary_schema();
        let mut want: Vec<String> = Vec::new();
        for k in schema["flow"]["keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()) {
            if k == "web" {
                let web = crate::schema::keys(&WebOut::default());
                want.extend(web["keys"].as_array().unwrap().iter().map(|f| format!("web_{}", f.as_str().unwrap())));
            } else {
                want.push(k.to_string());
            }
        }
        let got: Vec<String> = columns(&[FlowOut::default()]).iter().map(|c| c.0.to_string()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn text_and_list_columns_keep_rows_apart() {
        let a = FlowOut { id: "a".into(), transfer_times_s: vec![1.5, 2.5], ..Default::default() };
        let b = FlowOut { id: "flow_b".into(), telnet_delay_hist: Some(vec![3, 4]), ..Default::default() };
        let cols = columns(&[a, b]);
        let get = |name| cols.iter().find(|c| c.0 == name).unwrap().2.clone();
        assert_eq!(get("id"), Values::Text { offsets: vec![0, 1, 7], data: b"aflow_b".to_vec() });
        assert_eq!(
            get("transfer_times_s"),
            Values::List { offsets: vec![0, 2, 2], values: vec![1.5, 2.5], valid: vec![true, true] }
        );
        assert_eq!(
            get("telnet_delay_hist"),
            Values::List { offsets: vec![0, 0, 2], values: vec![3.0, 4.0], valid: vec![false, true] }
        );
        let Values::Num(t) = get("transactions") else { panic!() };
        assert!(t.iter().all(|v| v.is_nan()), "null as NaN");
    }
}

//! Time series sampled every `sample_interval_ns` (0: none), columnar.
//!
//! Queues: the links named in `timeseries_links`, or by default the links
//! between two routers (the core; a dumbbell's two bottleneck directions),
//! or, when no link joins two routers, every link leaving a router. Per
//! sample: instantaneous length (packets), the AQM's average (RED family),
//! the sojourn of the oldest queued packet (ms), the AQM's probability, and
//! the CE marks and drops so far (cumulative).
//!
//! Flows: the flows named in `timeseries_flows`, or by default every flow.
//! Per sample, of the flow's latest connection while it is open, at the
//! endpoint on the flow's `src` host (the data sender): cwnd and ssthresh
//! (bytes; ssthresh null while it is still "infinite", RFC 5681 §3.1),
//! smoothed RTT (ms, null before the first sample), bytes in flight (sent and
//! not acknowledged); null when the flow has no open connection. Always: the
//! flow's payload bytes delivered to its dst application so far. And one
//! column per probe of the congestion controls (`ecnlab_tcp::PROBES`, each
//! control's file documents its own: DCTCP's and Prague's α, CUBIC's W_max
//! and epoch), the value its sender reports; a probe's column is absent from
//! a flow's JSON series when no sample had a sender reporting it, NaN in the
//! columns.

use crate::error::Error;
use crate::output::{FlowSeries, ProbeSeries, QueueSeries};
use crate::spec::SimSpec;
use ecnlab_aqm::AqmQueue;
use ecnlab_tcp::{Connection, PROBES};
use ecnlab_wire::Instant;
use std::collections::HashMap;

/// ssthresh at or above this is reported as null ("arbitrarily high").
const SSTHRESH_INFINITE: u32 = 1 << 30;

#[derive(Debug, Default)]
pub(crate) struct QueueSamples {
    t: Vec<f64>,
    qlen: Vec<u32>,
    avg: Vec<Option<f64>>,
    delay_ms: Vec<f64>,
    prob: Vec<Option<f64>>,
    marks: Vec<u64>,
    drops: Vec<u64>,
}

impl QueueSamples {
    pub(crate) fn sample<P: ecnlab_aqm::QueuedPacket>(&mut self, now: Instant, q: &mut AqmQueue<P>) {
        self.t.push(now.as_secs_f64());
        self.qlen.push(q.len_pkts());
        self.avg.push(q.avg_estimate());
        self.delay_ms.push(q.head_sojourn(now).as_nanos() as f64 / 1e6);
        self.prob.push(q.prob(now));
        let (marks, drops) = q.marks_drops();
        self.marks.push(marks);
        self.drops.push(drops);
    }

    pub(crate) fn finish(self, link: String) -> QueueSeries {
        let prob = self.prob.iter().all(Option::is_some).then(|| self.prob.iter().flatten().copied().collect());
        QueueSeries {
            link,
            t_s: self.t,
            qlen_pkts: self.qlen,
            avg_pkts: self.avg,
            delay_ms: self.delay_ms,
            prob,
            marks: self.marks,
            drops: self.drops,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct FlowSamples {
    t: Vec<f64>,
    cwnd: Vec<Option<u32>>,
    ssthresh: Vec<Option<u32>>,
    srtt_ms: Vec<Option<f64>>,
    in_flight: Vec<Option<u64>>,
    delivered: Vec<u64>,
    /// Per probe of `PROBES`: its values, and whether any sample reported it.
    probes: [(Vec<Option<f64>>, bool); PROBES.len()],
}

impl FlowSamples {
    /// One sample: `sender` is the flow's open connection at its src host, if any.
    pub(crate) fn sample(&mut self, now: Instant, sender: Option<&Connection>, delivered: u64) {
        self.t.push(now.as_secs_f64());
        self.cwnd.push(sender.map(Connection::cwnd));
        self.ssthresh.push(sender.map(Connection::ssthresh).filter(|&s| s < SSTHRESH_INFINITE));
        self.srtt_ms.push(sender.and_then(Connection::srtt).map(|d| d.as_nanos() as f64 / 1e6));
        self.in_flight.push(sender.map(Connection::bytes_in_flight));
        self.delivered.push(delivered);
        let mut now_values = [None; PROBES.len()];
        if let Some(c) = sender {
            c.probes(&mut |name, v| {
                if let Some(i) = PROBES.iter().position(|&p| p == name) {
                    now_values[i] = Some(v);
                }
            });
        }
        for ((values, reported), v) in self.probes.iter_mut().zip(now_values) {
            *reported |= v.is_some();
            values.push(v.flatten());
        }
    }

    pub(crate) fn finish(self, flow: String) -> FlowSeries {
        FlowSeries {
            flow,
            t_s: self.t,
            cwnd_bytes: self.cwnd,
            ssthresh_bytes: self.ssthresh,
            srtt_ms: self.srtt_ms,
            in_flight_bytes: self.in_flight,
            delivered_bytes: self.delivered,
            probes: ProbeSeries(
                PROBES
                    .iter()
                    .zip(self.probes)
                    .filter(|(_, (_, reported))| *reported)
                    .map(|(&n, (v, _))| (n, v))
                    .collect(),
            ),
        }
    }
}

/// The link indices whose queues are sampled (module doc); an unknown name is an error.
pub(crate) fn sampled_links(spec: &SimSpec, is_router: impl Fn(&str) -> bool) -> Result<Vec<u32>, Error> {
    if spec.sample_interval_ns == 0 {
        return Ok(Vec::new());
    }
    if let Some(names) = &spec.timeseries_links {
        let index: HashMap<&str, u32> =
            spec.links.iter().enumerate().map(|(i, l)| (l.name.as_str(), i as u32)).collect();
        return names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                index
                    .get(n.as_str())
                    .copied()
                    .ok_or_else(|| Error::spec(format!("timeseries_links[{i}]"), n, "no such link"))
            })
            .collect();
    }
    let leaving: Vec<u32> =
        spec.links.iter().enumerate().filter(|(_, l)| is_router(&l.from)).map(|(i, _)| i as u32).collect();
    let core: Vec<u32> = leaving.iter().copied().filter(|&i| is_router(&spec.links[i as usize].to)).collect();
    Ok(if core.is_empty() { leaving } else { core })
}

/// The flow indices whose TCP state is sampled (module doc); an unknown id is an error.
pub(crate) fn sampled_flows(spec: &SimSpec) -> Result<Vec<u32>, Error> {
    if spec.sample_interval_ns == 0 {
        return Ok(Vec::new());
    }
    let Some(ids) = &spec.timeseries_flows else {
        return Ok((0..spec.flow_count() as u32).collect());
    };
    let all = spec.flow_ids();
    let index: HashMap<&str, u32> = all.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            index
                .get(id.as_str())
                .copied()
                .ok_or_else(|| Error::spec(format!("timeseries_flows[{i}]"), id, "no such flow"))
        })
        .collect()
}

/// The time series as columns for a columnar consumer (the Python front writes
/// Parquet from them without a JSON round trip): per kind, the series' names,
/// how many samples each has, and every column concatenated over the series as
/// f64 (null as NaN; integer columns are exact below 2^53).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Columns {
    pub names: Vec<String>,
    pub counts: Vec<u32>,
    pub columns: Vec<(&'static str, Vec<f64>)>,
}

fn column<'a, T: 'a + Copy>(
    name: &'static str,
    parts: impl Iterator<Item = &'a [T]>,
    f: impl Fn(T) -> f64,
) -> (&'static str, Vec<f64>) {
    (name, parts.flat_map(|p| p.iter().map(|&v| f(v))).collect())
}

/// A column only some flows' series have: NaN for the others.
fn optional<'a>(
    name: &'static str,
    flows: &'a [FlowSeries],
    get: impl Fn(&'a FlowSeries) -> Option<&'a [Option<f64>]>,
) -> (&'static str, Vec<f64>) {
    let values = flows
        .iter()
        .flat_map(|s| match get(s) {
            Some(a) => a.iter().map(|&v| opt(v)).collect(),
            None => vec![f64::NAN; s.t_s.len()],
        })
        .collect();
    (name, values)
}

fn opt<T: Into<f64>>(v: Option<T>) -> f64 {
    v.map_or(f64::NAN, Into::into)
}

impl crate::output::TimeSeriesOut {
    /// The queue series as [`Columns`] (same names and meaning as the JSON form).
    pub fn queue_columns(&self) -> Columns {
        let q = &self.queue;
        let probs: Vec<Vec<f64>> =
            q.iter().map(|s| s.prob.clone().unwrap_or_else(|| vec![f64::NAN; s.t_s.len()])).collect();
        Columns {
            names: q.iter().map(|s| s.link.clone()).collect(),
            counts: q.iter().map(|s| s.t_s.len() as u32).collect(),
            columns: vec![
                column("t_s", q.iter().map(|s| s.t_s.as_slice()), |v| v),
                column("qlen_pkts", q.iter().map(|s| s.qlen_pkts.as_slice()), f64::from),
                column("avg_pkts", q.iter().map(|s| s.avg_pkts.as_slice()), opt),
                column("delay_ms", q.iter().map(|s| s.delay_ms.as_slice()), |v| v),
                column("prob", probs.iter().map(Vec::as_slice), |v| v),
                column("marks", q.iter().map(|s| s.marks.as_slice()), |v| v as f64),
                column("drops", q.iter().map(|s| s.drops.as_slice()), |v| v as f64),
            ],
        }
    }

    /// The flow series as [`Columns`].
    pub fn flow_columns(&self) -> Columns {
        let f = &self.flow;
        Columns {
            names: f.iter().map(|s| s.flow.clone()).collect(),
            counts: f.iter().map(|s| s.t_s.len() as u32).collect(),
            columns: vec![
                column("t_s", f.iter().map(|s| s.t_s.as_slice()), |v| v),
                column("cwnd_bytes", f.iter().map(|s| s.cwnd_bytes.as_slice()), opt),
                column("ssthresh_bytes", f.iter().map(|s| s.ssthresh_bytes.as_slice()), opt),
                column("srtt_ms", f.iter().map(|s| s.srtt_ms.as_slice()), opt),
                column("in_flight_bytes", f.iter().map(|s| s.in_flight_bytes.as_slice()), |v| {
                    v.map_or(f64::NAN, |x| x as f64)
                }),
                column("delivered_bytes", f.iter().map(|s| s.delivered_bytes.as_slice()), |v| v as f64),
            ]
            .into_iter()
            .chain(PROBES.iter().map(|&name| optional(name, f, |s| s.probes.get(name))))
            .collect(),
        }
    }
}

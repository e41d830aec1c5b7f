//! Partition/aggregate queries ("incast"; Alizadeh et al., "Data Center TCP",
//! SIGCOMM 2010, §2.2.1; Vasudevan et al., SIGCOMM 2009).
//!
//! An `incast` entry's flows are the connections between one aggregator (each
//! flow's dst) and its responders (the flows' srcs). Each flow keeps one
//! connection open for the whole run. Query k is issued at `t_k` to every flow
//! of the entry at once:
//!
//! 1. the aggregator writes `request_bytes` on each connection;
//! 2. a responder, once the whole request has arrived, writes `response_bytes`;
//! 3. the query completes when the last byte of the last response has arrived:
//!    `QCT_k = max over the entry's flows of done(f, k) − t_k`.
//!
//! Requests and responses on one connection are served in order (TCP is a byte
//! stream), so a late response delays the next query's on that connection, as
//! with a persistent connection in a real service.
//!
//! Issue times: `t_1 = start + g_1`, `t_k = t_{k−1} + g_k`, with gaps `g` all
//! equal to `interval_ns` (`periodic`) or exponential with that mean
//! (`poisson`), drawn from the entry's own stream (`Stream::Queries`, entry
//! index) so every flow of the entry shares them. The schedule stops after
//! `queries` queries (when given) or at the end of the run.
//!
//! Results (`QueryOut`, one per entry), over the queries issued at or after the
//! warm-up: how many were issued, how many completed, the QCT's mean and
//! nearest-rank percentiles, each completed query's QCT, and how many completed
//! queries had a response that saw a retransmission timeout (at either end of
//! its connection, counted from the previous response's completion on that
//! connection, or from its opening for the first).

use crate::arrivals::Transfers;
use crate::groups::nearest_rank;
use crate::rng::SimRng;
use ecnlab_wire::{Duration, Instant};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// At most this many queries per entry (the result keeps one QCT per query).
pub const MAX_QUERIES: u64 = 100_000;

/// How query issue times are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryArrivals {
    /// Every `interval_ns` exactly.
    Periodic,
    /// Exponential gaps of mean `interval_ns` (a Poisson process).
    Poisson,
}

/// An `incast` entry's application (`AppSpec::Incast`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastParams {
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// The gap between queries (its mean for `poisson`).
    pub interval_ns: u64,
    pub arrivals: QueryArrivals,
    /// Queries to issue; `None` issues them until the run ends.
    #[serde(default)]
    pub queries: Option<u32>,
}

/// (field, value, rule) of the first parameter out of range for a run of `duration_ns`.
pub fn check(p: &IncastParams, duration_ns: u64) -> Result<(), (&'static str, u64, String)> {
    for (field, v) in [("request_bytes", p.request_bytes), ("response_bytes", p.response_bytes)] {
        if v == 0 {
            return Err((field, v, "must be > 0".into()));
        }
    }
    if p.interval_ns == 0 {
        return Err(("interval_ns", 0, "must be > 0".into()));
    }
    match p.queries {
        Some(0) => Err(("queries", 0, "must be > 0".into())),
        Some(n) if u64::from(n) > MAX_QUERIES => Err(("queries", n.into(), format!("must be <= {MAX_QUERIES}"))),
        None if duration_ns / p.interval_ns > MAX_QUERIES => Err((
            "interval_ns",
            p.interval_ns,
            format!("issues more than {MAX_QUERIES} queries in the run; give a longer interval or a number of queries"),
        )),
        _ => Ok(()),
    }
}

/// The entry's query issue times, in order, none after `end`.
pub fn query_times(p: &IncastParams, start: Instant, end: Instant, rng: &mut SimRng) -> Arc<[Instant]> {
    let limit = p.queries.map_or(MAX_QUERIES, u64::from);
    let mut times = Vec::new();
    let mut t = start;
    while (times.len() as u64) < limit {
        let gap = match p.arrivals {
            QueryArrivals::Periodic => Duration(p.interval_ns),
            QueryArrivals::Poisson => Transfers::gap(rng, p.interval_ns),
        };
        t += gap;
        if t > end {
            break;
        }
        times.push(t);
    }
    times.into()
}

/// One flow (connection) of an incast entry.
#[derive(Clone, Debug)]
pub struct IncastFlow {
    pub params: IncastParams,
    /// The entry's issue times (shared by its flows).
    pub times: Arc<[Instant]>,
    /// Requests the aggregator has written.
    pub requested: u32,
    /// Responses the responder has written.
    pub answered: u32,
    /// Per response received in full, in order: when, and the connection's
    /// retransmission timeouts (both ends) at that moment.
    pub done: Vec<(Instant, u64)>,
}

impl IncastFlow {
    pub fn new(params: IncastParams, times: Arc<[Instant]>) -> Self {
        IncastFlow { params, times, requested: 0, answered: 0, done: Vec::new() }
    }

    /// The aggregator at `now`: the request bytes of every query issued by now
    /// and not yet written (each query's request is written once), and when
    /// the next query is due.
    pub fn due_requests(&mut self, now: Instant) -> (u64, Option<Instant>) {
        let mut bytes = 0;
        while let Some(&t) = self.times.get(self.requested as usize) {
            if t > now {
                return (bytes, Some(t));
            }
            self.requested += 1;
            bytes += self.params.request_bytes;
        }
        (bytes, None)
    }

    /// The responder, holding `request_bytes_in` request bytes in all: the
    /// response bytes it now owes (one response per whole request).
    pub fn owed_responses(&mut self, request_bytes_in: u64) -> u64 {
        let whole = (request_bytes_in / self.params.request_bytes) as u32;
        let owed = whole.saturating_sub(self.answered);
        self.answered += owed;
        u64::from(owed) * self.params.response_bytes
    }

    /// The aggregator, holding `response_bytes_in` response bytes in all at
    /// `now` with `timeouts` on the connection: records each response now
    /// complete; true when the last query's response is in.
    pub fn on_response_bytes(&mut self, response_bytes_in: u64, now: Instant, timeouts: u64) -> bool {
        let whole = (response_bytes_in / self.params.response_bytes) as usize;
        while self.done.len() < whole.min(self.times.len()) {
            self.done.push((now, timeouts));
        }
        self.params.queries.is_some() && self.done.len() == self.times.len()
    }

    /// Whether response `k` saw a retransmission timeout (it is complete).
    fn timed_out(&self, k: usize) -> bool {
        let before = if k == 0 { 0 } else { self.done[k - 1].1 };
        self.done[k].1 > before
    }
}

/// One incast entry's queries.
#[derive(Debug, Default, Serialize)]
pub struct QueryOut {
    /// The entry's name, and its position among the scenario's `[[flows]]`.
    pub name: String,
    pub entry: u32,
    /// Flows (responders) each query fans out to.
    pub responders: u64,
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Queries issued at or after the warm-up, and of those, how many completed.
    pub queries_issued: u64,
    pub queries_completed: u64,
    /// Completed queries with a response that saw a retransmission timeout.
    pub queries_with_timeout: u64,
    /// Query completion time over the completed queries: mean, nearest-rank
    /// p50, p95, p99, and max (null when none completed).
    pub qct_mean_s: Option<f64>,
    pub qct_p50_s: Option<f64>,
    pub qct_p95_s: Option<f64>,
    pub qct_p99_s: Option<f64>,
    pub qct_max_s: Option<f64>,
    /// Each completed query's completion time, in issue order.
    pub qct_s: Vec<f64>,
}

/// The summary of one entry's flows (`flows`: its flows' incast state, in order).
pub fn summarize(name: &str, entry: usize, flows: &[&IncastFlow], warmup: Instant) -> QueryOut {
    let first = flows.first().expect("an entry makes at least one flow");
    let times = &first.times;
    let mut out = QueryOut {
        name: name.to_string(),
        entry: entry as u32,
        responders: flows.len() as u64,
        request_bytes: first.params.request_bytes,
        response_bytes: first.params.response_bytes,
        ..Default::default()
    };
    for (k, &t) in times.iter().enumerate().filter(|&(_, &t)| t >= warmup) {
        let Some(last) = flows.iter().map(|f| f.done.get(k).map(|d| d.0)).collect::<Option<Vec<_>>>() else {
            out.queries_issued += 1;
            continue;
        };
        out.queries_issued += 1;
        out.queries_completed += 1;
        out.queries_with_timeout += u64::from(flows.iter().any(|f| f.timed_out(k)));
        let done = last.into_iter().max().expect("at least one flow");
        out.qct_s.push((done - t).as_secs_f64());
    }
    if !out.qct_s.is_empty() {
        let mut sorted = out.qct_s.clone();
        sorted.sort_by(f64::total_cmp);
        out.qct_mean_s = Some(sorted.iter().sum::<f64>() / sorted.len() as f64);
        out.qct_p50_s = Some(nearest_rank(&sorted, 50.0));
        out.qct_p95_s = Some(nearest_rank(&sorted, 95.0));
        out.qct_p99_s = Some(nearest_rank(&sorted, 99.0));
        out.qct_max_s = sorted.last().copied();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    fn params(arrivals: QueryArrivals, queries: Option<u32>) -> IncastParams {
        IncastParams { request_bytes: 100, response_bytes: 1000, interval_ns: 1_000_000, arrivals, queries }
    }

    #[test]
    fn periodic_queries_are_evenly_spaced_and_stop_at_the_end_or_the_count() {
        let mut rng = stream(1, Stream::Queries, 0);
        let p = params(QueryArrivals::Periodic, None);
        let t = query_times(&p, Instant(500), Instant(3_000_500), &mut rng);
        assert_eq!(&t[..], &[Instant(1_000_500), Instant(2_000_500), Instant(3_000_500)]);
        let p = params(QueryArrivals::Periodic, Some(2));
        assert_eq!(query_times(&p, Instant(0), Instant(u64::MAX / 2), &mut rng).len(), 2);
    }

    #[test]
    fn poisson_gaps_have_the_mean_asked() {
        let mut rng = stream(1, Stream::Queries, 0);
        let p = params(QueryArrivals::Poisson, Some(20_000));
        let t = query_times(&p, Instant(0), Instant(u64::MAX / 2), &mut rng);
        let mean = t.last().unwrap().0 as f64 / t.len() as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.03, "mean gap {mean} ns");
    }

    #[test]
    fn requests_responses_and_completions_follow_the_byte_counts() {
        let times: Arc<[Instant]> = vec![Instant(10), Instant(20), Instant(30)].into();
        let mut f = IncastFlow::new(params(QueryArrivals::Periodic, Some(3)), times);
        assert_eq!(f.due_requests(Instant(5)), (0, Some(Instant(10))));
        assert_eq!(f.due_requests(Instant(25)), (200, Some(Instant(30))), "two queries were due");
        assert_eq!(f.owed_responses(150), 1000, "one whole request so far");
        assert_eq!(f.owed_responses(200), 1000);
        assert_eq!(f.owed_responses(200), 0, "each request answered once");
        assert!(!f.on_response_bytes(1999, Instant(40), 0));
        assert!(!f.on_response_bytes(2000, Instant(41), 1));
        assert_eq!(f.done, vec![(Instant(40), 0), (Instant(41), 1)]);
        assert!(!f.timed_out(0) && f.timed_out(1));
        assert_eq!(f.due_requests(Instant(30)), (100, None));
        assert!(f.on_response_bytes(3000, Instant(50), 1), "the last query is in");
    }

    #[test]
    fn a_query_completes_with_its_slowest_response() {
        let times: Arc<[Instant]> = vec![Instant(1_000), Instant(2_000), Instant(3_000)].into();
        let p = params(QueryArrivals::Periodic, Some(3));
        let mut a = IncastFlow::new(p, times.clone());
        let mut b = IncastFlow::new(p, times);
        a.done = vec![(Instant(1_500), 0), (Instant(2_100), 0), (Instant(3_200), 0)];
        b.done = vec![(Instant(1_200), 0), (Instant(2_900), 1)];
        let out = summarize("q", 2, &[&a, &b], Instant(0));
        assert_eq!((out.queries_issued, out.queries_completed, out.queries_with_timeout), (3, 2, 1));
        assert_eq!(out.qct_s, vec![500e-9, 900e-9]);
        assert_eq!(out.qct_max_s, Some(900e-9));
        let late = summarize("q", 2, &[&a, &b], Instant(1_001));
        assert_eq!((late.queries_issued, late.qct_s.len()), (2, 1), "queries before the warm-up are left out");
    }
}

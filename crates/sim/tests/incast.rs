//! Partition/aggregate queries (`incast.rs`) end to end: the completion time of
//! a query on an idle path, against the path's own arithmetic; the shared
//! query schedule; and incast itself (Alizadeh et al., "Data Center TCP",
//! SIGCOMM 2010, §2.3.1 and §4.2.2: many responders answering at once overflow a
//! shallow port and "the query suffers a timeout"; DCTCP with marking at K
//! keeps the queue short enough that it does not).

mod common;

use common::*;
use ecnlab_aqm::{QueueConfig, StepOn, StepParams};
use ecnlab_sim::incast::{IncastParams, QueryArrivals};
use ecnlab_sim::output::RunOutput;
use ecnlab_sim::spec::*;
use ecnlab_sim::Simulation;
use ecnlab_tcp::{
    CcKind, EcnMode, EctPackets, IdleRestart, LossMarking, Recovery, RtoInRecovery, RtoScoreboard, SsthreshBasis,
    TcpConfig, WindowReduction,
};

const US: u64 = 1_000;

fn run(spec: SimSpec) -> RunOutput {
    Simulation::new(spec).expect("valid spec").run().expect("run")
}

/// `n` responders s1..sn answering `response` bytes to the aggregator r1 on the
/// dumbbell of `common` (queue `q` at the bottleneck R1->R2).
fn incast(n: usize, rate: u64, q: QueueConfig, tcp: TcpConfig, p: IncastParams, duration: u64) -> SimSpec {
    let mut spec = dumbbell(n, rate, 5 * MS, q, tcp.clone(), duration);
    let responders = (1..=n).map(|i| format!("s{i}")).collect();
    spec.flows = vec![FlowSpec {
        id: "q".into(),
        src: Hosts::Many(responders),
        dst: "r1".into(),
        count: 1,
        start_ns: 0,
        start_spread_ns: 0,
        initiator: Initiator::Dst,
        app: AppSpec::Incast(p),
        tcp,
    }];
    spec
}

fn params(
    request: u64,
    response: u64,
    interval_ns: u64,
    arrivals: QueryArrivals,
    queries: Option<u32>,
) -> IncastParams {
    IncastParams { request_bytes: request, response_bytes: response, interval_ns, arrivals, queries }
}

/// One responder, one segment each way, nothing else on the path: a query
/// completes one request trip and one response trip after it is issued.
#[test]
fn test_query_completion_time_is_the_two_trips_on_an_idle_path() {
    let tcp = TcpConfig { delayed_ack: false, ..TcpConfig::default() };
    let p = params(100, 1000, 100 * MS, QueryArrivals::Periodic, Some(3));
    let out = run(incast(1, 10_000_000, droptail(100), tcp, p, SEC));
    let q = &out.queries[0];
    assert_eq!((q.name.as_str(), q.responders, q.queries_issued, q.queries_completed), ("q", 1, 3, 3));
    // Request: 140 bytes on the wire (40 of IPv4 + TCP headers) over r1->R2 and R1->s1
    // (100 Mbit/s, 1 ms each) and R2->R1 (10 Mbit/s, 5 ms); the response, 1040 bytes, back.
    let trip = |bytes: f64| 2.0 * (bytes * 8.0 / 100e6 + 1e-3) + bytes * 8.0 / 10e6 + 5e-3;
    let want = trip(140.0) + trip(1040.0);
    for qct in &q.qct_s {
        assert!((qct - want).abs() < 1e-9, "QCT {qct} s, want {want} s");
    }
    assert_eq!(out.flows[0].responses, Some(3));
    assert_eq!(out.flows[0].bytes_delivered, 3000, "the aggregator received three responses");
    assert_eq!(out.flows[0].completion_time_s, Some(0.3 + want), "the flow is done with its last query");
    assert_eq!(q.queries_with_timeout, 0);
}

/// Poisson queries: every responder answers the same queries (one schedule per
/// entry), and a query's completion time is at least the time to send every
/// response through the bottleneck.
#[test]
fn test_responders_share_the_entry_schedule() {
    let tcp = TcpConfig { delayed_ack: false, ..TcpConfig::default() };
    let p = params(100, 5_000, 50 * MS, QueryArrivals::Poisson, None);
    let out = run(incast(4, 10_000_000, droptail(1000), tcp, p, 3 * SEC));
    let q = &out.queries[0];
    assert!((40..=80).contains(&q.queries_issued), "about 60 queries in 3 s: {}", q.queries_issued);
    let answered: Vec<u64> = out.flows.iter().map(|f| f.responses.unwrap()).collect();
    assert!(answered.iter().all(|&a| a + 1 >= q.queries_issued), "{answered:?} of {}", q.queries_issued);
    let bound = 4.0 * 5_000.0 * 8.0 / 10e6;
    assert!(q.qct_s.iter().all(|&t| t > bound), "no query beats the bottleneck: {:?}", q.qct_s);
    assert!(q.qct_p50_s.unwrap() < 3.0 * bound, "p50 {} against {bound}", q.qct_p50_s.unwrap());
}

/// The data-centre dumbbell of the incast test: 1 Gbit/s bottleneck, 10 Gbit/s
/// access, 10-20 µs per link (base RTT about 100 µs), a 100-packet port.
fn data_centre(n: usize, q: QueueConfig, tcp: TcpConfig) -> RunOutput {
    let p = params(100, 25_600, 20 * MS, QueryArrivals::Periodic, None);
    let mut spec = incast(n, 1_000_000_000, q, tcp, p, SEC);
    for l in &mut spec.links {
        l.delay_ns = if l.rate_bps == 1_000_000_000 { 20 * US } else { 10 * US };
    }
    run(spec)
}

/// DCTCP's marking at K = 20 packets in a 100-packet port.
fn step_marker() -> QueueConfig {
    QueueConfig::Step(StepParams {
        limit_pkts: Some(100),
        limit_bytes: None,
        on: StepOn::Packets,
        threshold: 20,
        ecn: true,
    })
}

/// Linux's loss recovery (the linux personality's rules: IW10, PRR, RACK marking, SACK-based
/// retransmission after a timeout, the window after idle) with a data-centre minimum RTO.
fn dc_tcp() -> TcpConfig {
    TcpConfig {
        recovery: Recovery::Sack,
        init_cwnd_segments: 10,
        prr: WindowReduction::Prr,
        rack: LossMarking::Rack,
        sack_after_rto: RtoScoreboard::Kept,
        ssthresh_basis: SsthreshBasis::Cwnd,
        rto_keeps_recovery_ssthresh: RtoInRecovery::Keep,
        idle_restart: IdleRestart::Linux,
        delayed_ack: false, // quick ACKs, as data-centre hosts that lower the minimum RTO run
        min_rto_ns: 10 * MS,
        rwnd_bytes: 4 << 20,
        ..TcpConfig::default()
    }
}

/// 20 responders × 25 KiB into a 100-packet port: with drop-tail most queries
/// wait for a retransmission timeout (10 ms); DCTCP, marking at K = 20 with
/// every packet ECT, keeps nearly all of them to the time the bytes take.
#[test]
fn test_dctcp_keeps_incast_queries_out_of_timeouts() {
    let n = 20;
    let tail = data_centre(n, droptail(100), dc_tcp());
    let step = step_marker();
    let dctcp = TcpConfig {
        cc: CcKind::Dctcp,
        ecn: EcnMode::Classic,
        ecn_min_cwnd_segments: 2,
        ect_all_packets: EctPackets::All,
        ..dc_tcp()
    };
    let marked = data_centre(n, step, dctcp);
    let (t, d) = (&tail.queries[0], &marked.queries[0]);
    assert!(
        t.queries_completed >= 45 && d.queries_completed >= 45,
        "{} and {}",
        t.queries_completed,
        d.queries_completed
    );
    let share = |q: &ecnlab_sim::incast::QueryOut| q.queries_with_timeout as f64 / q.queries_completed as f64;
    assert!(share(t) > 0.5, "drop-tail: {} of {} queries timed out", t.queries_with_timeout, t.queries_completed);
    assert!(share(d) < 0.1, "DCTCP: {} of {} queries timed out", d.queries_with_timeout, d.queries_completed);
    let ideal = n as f64 * 25_600.0 * 8.0 / 1e9; // every response through the bottleneck
    assert!(t.qct_p50_s.unwrap() > 10e-3, "drop-tail's median query waits for the 10 ms timer");
    assert!(d.qct_p50_s.unwrap() < 1.5 * ideal, "DCTCP median {} s against {ideal} s", d.qct_p50_s.unwrap());
}

/// Without ECT on ACKs and retransmissions, a DCTCP step marker drops them
/// above K (a Not-ECT packet cannot be marked): the same DCTCP incast, 40
/// responders, loses retransmissions at the marker and waits for more
/// timeouts than with every packet ECT, which the marker never drops early.
#[test]
fn test_dctcp_needs_ect_on_every_packet_at_a_step_marker() {
    let step = step_marker();
    let dctcp = TcpConfig { cc: CcKind::Dctcp, ecn: EcnMode::Classic, ecn_min_cwnd_segments: 2, ..dc_tcp() };
    let rfc = data_centre(40, step, TcpConfig { ect_all_packets: EctPackets::NewData, ..dctcp.clone() });
    let all = data_centre(40, step, TcpConfig { ect_all_packets: EctPackets::All, ..dctcp });
    let port = |out: &RunOutput| out.queues.iter().find(|q| q.link == "R1->R2").unwrap().early_drops;
    let timeouts = |out: &RunOutput| out.flows.iter().map(|f| f.timeouts).sum::<u64>();
    assert!(port(&rfc) > 0 && port(&all) == 0, "Not-ECT packets dropped at K: {} and {}", port(&rfc), port(&all));
    assert!(timeouts(&rfc) > timeouts(&all), "timeouts: {} against {}", timeouts(&rfc), timeouts(&all));
}

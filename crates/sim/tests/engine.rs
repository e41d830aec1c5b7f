//! Engine-level behaviour: routing, link timing, applications, determinism.

mod common;
use common::*;
use ecnlab_sim::spec::*;
use ecnlab_sim::{run_json, Simulation};
use ecnlab_tcp::{EcnMode, TcpConfig};

fn run(spec: SimSpec) -> ecnlab_sim::RunOutput {
    Simulation::new(spec).expect("valid spec").run().expect("run")
}

#[test]
fn test_single_bulk_flow_fills_the_bottleneck() {
    let spec = dumbbell(1, 1_500_000, 20 * MS, droptail(100), TcpConfig::default(), 30 * SEC);
    let out = run(spec);
    let f = &out.flows[0];
    let bottleneck = out.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(bottleneck.utilization > 0.95, "utilisation {}", bottleneck.utilization);
    // Goodput is payload only: at most 1460/1500 of the link rate.
    assert!(f.goodput_bps <= 1_500_000.0 * 1460.0 / 1500.0 + 1.0, "{}", f.goodput_bps);
    assert!(f.goodput_bps > 0.9 * 1_500_000.0 * 1460.0 / 1500.0, "{}", f.goodput_bps);
}

#[test]
fn test_finite_bulk_transfer_completes_with_exact_bytes() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    spec.flows[0].app = AppSpec::Bulk { bytes: Some(1_000_000) };
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.bytes_delivered, 1_000_000);
    let t = f.completion_time_s.expect("completed");
    // 1 MB at 10 Mbit/s needs at least 0.8 s plus a handshake (≥ 2 × 12 ms).
    assert!(t > 0.8 && t < 5.0, "completion {t}");
}

#[test]
fn test_serial_transfers_open_one_connection_per_file() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    spec.flows[0].initiator = Initiator::Dst;
    spec.flows[0].app = AppSpec::Serial { files: 4, file_bytes: 100_000, gap_ns: 0 };
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.connections, 4);
    assert_eq!(f.bytes_delivered, 400_000);
    assert!(f.completion_time_s.is_some());
}

#[test]
fn test_serial_transfer_times_add_up_to_the_completion_time() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    spec.flows[0].initiator = Initiator::Dst;
    spec.flows[0].start_ns = 100 * MS;
    spec.flows[0].app = AppSpec::Serial { files: 4, file_bytes: 100_000, gap_ns: 250 * MS };
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.transfer_times_s.len(), 4);
    for t in &f.transfer_times_s {
        // 100 kB at 10 Mbit/s takes ≥ 80 ms, plus the handshake's round trip.
        assert!(*t > 0.08 && *t < 2.0, "transfer time {t}");
    }
    // Each file starts `gap` after the previous one ended, so start + Σ times + 3 gaps = completion.
    let sum: f64 = f.transfer_times_s.iter().sum();
    let done = f.completion_time_s.expect("completed");
    assert!((0.1 + sum + 3.0 * 0.25 - done).abs() < 1e-6, "{sum} vs {done}");
}

#[test]
fn test_transfer_times_are_empty_for_bulk_flows() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    spec.flows[0].app = AppSpec::Bulk { bytes: Some(100_000) };
    let out = run(spec);
    assert!(out.flows[0].transfer_times_s.is_empty());
}

#[test]
fn test_request_response_counts_transactions() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 10 * SEC);
    spec.flows[0].initiator = Initiator::Dst;
    spec.flows[0].app =
        AppSpec::RequestResponse { request_bytes: 100, response_bytes: 5000, think_ns: 0, count: Some(5) };
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.transactions, Some(5));
    assert_eq!(f.connections, 5);
    assert_eq!(f.bytes_delivered, 25_000);
}

#[test]
fn test_same_spec_gives_identical_json() {
    let mut spec = dumbbell(
        4,
        1_500_000,
        20 * MS,
        red(5.0, 15.0, 0.1, 60, true, 1_500_000),
        TcpConfig { ecn: EcnMode::Classic, ..Default::default() },
        10 * SEC,
    );
    spec.links[2].loss = 0.01;
    let json = serde_json::to_string(&spec).unwrap();
    let a = run_json(&json).unwrap();
    let b = run_json(&json).unwrap();
    assert_eq!(a, b);
    spec.seed = 2;
    let c = run_json(&serde_json::to_string(&spec).unwrap()).unwrap();
    assert_ne!(a, c, "a different seed must change a run with random loss and RED");
}

#[test]
fn test_bad_spec_names_the_field() {
    let mut spec = dumbbell(1, 1_500_000, 20 * MS, droptail(100), TcpConfig::default(), SEC);
    spec.flows[0].dst = "nowhere".into();
    let err = Simulation::new(spec).err().expect("must fail").to_string();
    assert_eq!(err, "flows[0].dst = nowhere: no such node");
}

#[test]
fn test_no_route_is_reported() {
    let mut spec = dumbbell(1, 1_500_000, 20 * MS, droptail(100), TcpConfig::default(), SEC);
    spec.links.retain(|l| l.name != "R2->R1");
    let err = Simulation::new(spec).err().expect("must fail").to_string();
    assert!(err.contains("no route"), "{err}");
}

#[test]
fn test_packets_are_conserved_end_to_end() {
    let mut spec =
        dumbbell(3, 1_500_000, 20 * MS, red(5.0, 15.0, 0.1, 30, false, 1_500_000), TcpConfig::default(), 5 * SEC);
    spec.links[3].loss = 0.02;
    let mut sim = Simulation::new(spec).unwrap();
    let mut steps = 0u64;
    while sim.step() {
        steps += 1;
        if steps.is_multiple_of(997) {
            let c = sim.census();
            assert_eq!(
                c.sent,
                c.delivered + c.stale + sim.packets_discarded() + sim.packets_in_network(),
                "at {:?}",
                sim.now()
            );
        }
    }
    assert!(sim.packets_discarded() > 0, "the test should exercise drops");
}

#[test]
fn test_corrupted_packets_reach_the_receiver_and_are_counted() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    spec.flows[0].app = AppSpec::Bulk { bytes: Some(1_000_000) };
    let r2_r1 = spec.links.iter().position(|l| l.name == "R2->r1").unwrap();
    spec.links[r2_r1].corrupt = 0.02;
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.bytes_delivered, 1_000_000);
    assert!(f.corrupted_received > 0, "2 % of ~700 data packets");
    assert!(f.pkts_corrupted >= f.corrupted_received);
    // Every payload byte arrives once at least; duplicates and damaged copies come on top.
    let min_pkts = 1_000_000u64.div_ceil(1460);
    assert!(f.data_packets_received >= min_pkts + f.corrupted_received);
    assert_eq!(f.pkts_sent, f.pkts_delivered + f.pkts_dropped + f.pkts_corrupted + f.pkts_in_flight);
    assert_eq!(f.pkts_in_flight, 0, "the transfer finished and both ends closed long before 60 s");
}

#[test]
fn test_stop_when_complete_ends_at_the_last_transfer() {
    let mut spec = dumbbell(2, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 60 * SEC);
    for f in &mut spec.flows {
        f.initiator = Initiator::Dst;
        f.app = AppSpec::Serial { files: 3, file_bytes: 100_000, gap_ns: 0 };
    }
    spec.stop_when_complete = true;
    let out = run(spec.clone());
    let last = out.flows.iter().map(|f| f.completion_time_s.unwrap()).fold(0.0, f64::max);
    assert_eq!(out.sim.sim_time_s, last);
    spec.duration_ns = 100 * MS;
    let err = Simulation::new(spec).unwrap().run().unwrap_err().to_string();
    assert!(err.starts_with("flow bulk1 did not finish its work by 0.1 s"), "{err}");
}

#[test]
fn test_stop_when_complete_refuses_endless_flows() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), SEC);
    spec.stop_when_complete = true;
    let err = Simulation::new(spec).err().unwrap().to_string();
    assert!(err.contains("stop_when_complete needs every flow to have a finite amount of work"), "{err}");
}

#[test]
fn test_time_series_sample_the_core_queues_and_every_flow() {
    let mut spec = dumbbell(2, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 2 * SEC);
    spec.sample_interval_ns = 100 * MS;
    let out = run(spec.clone());
    let links: Vec<_> = out.timeseries.queue.iter().map(|q| q.link.as_str()).collect();
    assert_eq!(links, ["R1->R2", "R2->R1"], "the links between routers");
    assert_eq!(out.timeseries.flow.len(), 2);
    for (s, f) in out.timeseries.flow.iter().zip(&out.flows) {
        assert_eq!(s.t_s.len(), 21, "t = 0, 0.1, ..., 2 s");
        assert!(s.delivered_bytes.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*s.delivered_bytes.last().unwrap(), f.bytes_delivered);
        for (c, n) in s.cwnd_bytes.iter().zip(&s.in_flight_bytes) {
            if let (Some(c), Some(n)) = (c, n) {
                assert!(*n <= u64::from(*c) + 2 * 1460, "in flight {n} within cwnd {c} (+ limited transmit)");
            }
        }
        assert!(s.srtt_ms.iter().flatten().all(|&r| r >= 12.0), "RTT at least the 2·(5+1) ms path");
    }
    spec.timeseries_links = Some(vec!["R1->R9".into()]);
    let err = Simulation::new(spec).err().expect("unknown link");
    assert_eq!(err.to_string(), "timeseries_links[0] = R1->R9: no such link");
}

/// `n` pairs, `count` staggered flows each (start drawn from [0, 1 s]), as entries written one
/// by one (ids `g_1` …, pair by pair) or as one entry the engine expands.
fn staggered(n: usize, count: u32, as_group: bool) -> SimSpec {
    let mut spec = dumbbell(n, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 2 * SEC);
    let mut one = spec.flows[0].clone();
    one.start_spread_ns = SEC;
    let pairs: Vec<(String, String)> = (1..=n).map(|i| (format!("s{i}"), format!("r{i}"))).collect();
    spec.flows = if as_group {
        let (src, dst) = pairs.into_iter().unzip();
        vec![FlowSpec { id: "g".into(), src: Hosts::Many(src), dst: Hosts::Many(dst), count, ..one }]
    } else {
        let each = pairs.iter().flat_map(|p| std::iter::repeat_n(p, count as usize));
        each.enumerate()
            .map(|(k, (s, r))| FlowSpec {
                id: format!("g_{}", k + 1),
                src: s.as_str().into(),
                dst: r.as_str().into(),
                ..one.clone()
            })
            .collect()
    };
    spec
}

#[test]
fn test_a_group_runs_as_its_flows_written_one_by_one() {
    let one_by_one = run_json(&serde_json::to_string(&staggered(3, 2, false)).unwrap()).unwrap();
    let group = run_json(&serde_json::to_string(&staggered(3, 2, true)).unwrap()).unwrap();
    assert_eq!(group, one_by_one, "same ids, hosts, start draws and results");
    let out: serde_json::Value = serde_json::from_str(&group).unwrap();
    let ids: Vec<&str> = out["flows"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["g_1", "g_2", "g_3", "g_4", "g_5", "g_6"]);
    let srcs: Vec<&str> = out["flows"].as_array().unwrap().iter().map(|f| f["src"].as_str().unwrap()).collect();
    assert_eq!(srcs, ["s1", "s1", "s2", "s2", "s3", "s3"], "count flows per pair, pair by pair");
}

#[test]
fn test_a_group_is_checked_as_one_entry() {
    let err = |spec: SimSpec| Simulation::new(spec).err().expect("must fail").to_string();
    let mut spec = staggered(3, 2, true);
    spec.flows[0].dst = Hosts::Many(vec!["r1".into(), "r2".into()]);
    assert_eq!(err(spec), "flows[0].dst = 2 hosts: must name as many hosts as src (3) or one");
    let mut spec = staggered(3, 2, true);
    spec.flows[0].count = 0;
    assert_eq!(err(spec), "flows[0].count = 0: must be >= 1");
    let mut spec = staggered(3, 2, true);
    spec.flows[0].src = Hosts::Many(vec!["s1".into(), "s9".into(), "s3".into()]);
    assert_eq!(err(spec), "flows[0].src[1] = s9: no such node");
    let mut spec = staggered(2, 1, true);
    let mut single = spec.flows[0].clone();
    (single.id, single.src, single.dst, single.count) = ("g_2".into(), "s1".into(), "r1".into(), 1);
    spec.flows.push(single);
    assert_eq!(err(spec), "flows[1].id = g_2: flow ids must be unique");
    // One host on a side pairs with every host of the other.
    let mut spec = staggered(3, 1, true);
    spec.flows[0].dst = "r1".into();
    let out = run(spec);
    assert!(out.flows.iter().all(|f| f.dst == "r1") && out.flows.len() == 3);
}

#[test]
fn test_a_large_group_leaves_as_columns_and_one_summary() {
    use ecnlab_sim::flow_table::Values;
    let mut spec = staggered(1, 1001, true);
    let mut single = spec.flows[0].clone();
    (single.id, single.count) = ("solo".into(), 1);
    spec.flows.push(single);
    let json = serde_json::to_string(&spec).unwrap();
    let split = ecnlab_sim::run_json_split_until(&json, u32::MAX, || false).unwrap();
    let out = serde_json::to_value(&split.out).unwrap();
    let ids: Vec<&str> = out["flows"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["solo"], "only the small entry keeps its record");
    let groups = out["groups"].as_array().unwrap();
    assert_eq!((groups.len(), groups[0]["name"].as_str(), groups[0]["flows"].as_u64()), (1, Some("g"), Some(1001)));
    let table = split.flow_table.expect("a large group makes the flow table");
    let Values::Text { offsets, .. } = &table[0].2 else { panic!("id is text") };
    assert_eq!((table[0].0, offsets.len() - 1), ("id", 1002), "every flow of the run, in flow order");
    // The full JSON path keeps every record and adds the same group summary.
    let full: serde_json::Value = serde_json::from_str(&run_json(&json).unwrap()).unwrap();
    assert_eq!(full["flows"].as_array().unwrap().len(), 1002);
    assert_eq!(full["groups"], out["groups"]);
    let small = staggered(1, 1000, true);
    let split = ecnlab_sim::run_json_split_until(&serde_json::to_string(&small).unwrap(), u32::MAX, || false).unwrap();
    assert!(split.flow_table.is_none() && split.out.groups.is_empty(), "1000 flows are not a group");
}

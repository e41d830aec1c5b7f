//! Builders for small test networks.
#![allow(dead_code)]

use ecnlab_aqm::{DropTailParams, QueueConfig, RedMode, RedParams};
use ecnlab_sim::spec::*;
use ecnlab_tcp::TcpConfig;

pub const MS: u64 = 1_000_000;
pub const SEC: u64 = 1_000_000_000;

pub fn droptail(limit: u32) -> QueueConfig {
    QueueConfig::DropTail(DropTailParams { limit_pkts: Some(limit), limit_bytes: None })
}

pub fn red(min_th: f64, max_th: f64, max_p: f64, limit: u32, ecn: bool, rate_bps: u64) -> QueueConfig {
    QueueConfig::Red(RedParams {
        limit_pkts: Some(limit),
        limit_bytes: None,
        min_th,
        max_th,
        max_p,
        wq: 0.002,
        gentle: false,
        wait: true,
        mode: RedMode::Packet,
        mean_pkt_bytes: 1500,
        link_rate_bps: rate_bps,
        ecn,
        personality: Default::default(),
        mark_p: None,
        adaptive: false,
        ns2_rng_skip: None,
        quench: false,
    })
}

fn link(from: &str, to: &str, rate_bps: u64, delay_ns: u64, queue: QueueConfig) -> LinkSpec {
    LinkSpec {
        name: format!("{from}->{to}"),
        from: from.into(),
        to: to.into(),
        rate_bps,
        delay_ns,
        queue,
        loss: 0.0,
        corrupt: 0.0,
        pcap: false,
        pcap_file: None,
        tail_threshold_bytes: None,
    }
}

/// Dumbbell: s1..sN — R1 — R2 — r1..rN; access 10×bottleneck rate, 1 ms;
/// `queue` on R1->R2; one bulk flow s_i → r_i per pair with `tcp`.
pub fn dumbbell(
    n: usize,
    rate_bps: u64,
    delay_ns: u64,
    queue: QueueConfig,
    tcp: TcpConfig,
    duration_ns: u64,
) -> SimSpec {
    let mut nodes = vec![
        NodeSpec { name: "R1".into(), kind: NodeKind::Router },
        NodeSpec { name: "R2".into(), kind: NodeKind::Router },
    ];
    let mut links =
        vec![link("R1", "R2", rate_bps, delay_ns, queue), link("R2", "R1", rate_bps, delay_ns, droptail(1000))];
    let mut flows = Vec::new();
    for i in 1..=n {
        let (s, r) = (format!("s{i}"), format!("r{i}"));
        nodes.push(NodeSpec { name: s.clone(), kind: NodeKind::Host });
        nodes.push(NodeSpec { name: r.clone(), kind: NodeKind::Host });
        for (a, b) in [(s.as_str(), "R1"), ("R1", s.as_str()), (r.as_str(), "R2"), ("R2", r.as_str())] {
            links.push(link(a, b, rate_bps * 10, MS, droptail(1000)));
        }
        flows.push(FlowSpec {
            start_spread_ns: 0,
            id: format!("bulk{i}"),
            src: s.into(),
            dst: r.into(),
            count: 1,
            start_ns: 0,
            initiator: Initiator::Src,
            app: AppSpec::Bulk { bytes: None },
            tcp: tcp.clone(),
        });
    }
    SimSpec {
        seed: 1,
        duration_ns,
        warmup_ns: 0,
        sample_interval_ns: 0,
        timeseries_links: None,
        timeseries_flows: None,
        nodes,
        links,
        flows,
        faults: vec![],
        impairments: vec![],
        stop_when_complete: false,
        pcap_dir: None,
        ecmp: false,
    }
}

//! Pacing end to end: one flow's first round trips through a 10 Mbit/s
//! bottleneck behind 100 Mbit/s access. Unpaced, each window arrives at the
//! access rate and queues at the bottleneck; paced at 200 % of cwnd/srtt, the
//! same windows arrive spread over the round trip and queue less.
//!
//! Pacing is not free of cost: on a long transfer into a 20-packet queue the
//! paced flow here loses more packets at the end of slow start (130 against
//! 22 unpaced with IW10, SACK, 2 MB), because the smooth arrivals delay the
//! first loss until the window overshoots further — the effect Aggarwal,
//! Savage and Anderson describe ("Understanding the Performance of TCP
//! Pacing", INFOCOM 2000: pacing delays congestion signals).

mod common;

use common::*;
use ecnlab_sim::Simulation;
use ecnlab_tcp::{Recovery, TcpConfig};

/// (drops, peak queue) at a bottleneck of `limit` packets for a transfer of `bytes`.
fn drops_and_peak(pacing: bool, limit: u32, bytes: u64) -> (u64, u32) {
    let tcp = TcpConfig {
        pacing,
        init_cwnd_segments: 10,
        recovery: Recovery::Sack,
        rwnd_bytes: 1 << 20,
        ..TcpConfig::default()
    };
    let mut spec = dumbbell(1, 10_000_000, 20 * MS, droptail(limit), tcp, 20 * SEC);
    spec.flows[0].app = ecnlab_sim::spec::AppSpec::Bulk { bytes: Some(bytes) };
    let out = Simulation::new(spec).unwrap().run().unwrap();
    assert_eq!(out.flows[0].bytes_delivered, bytes, "the transfer completes");
    let q = out.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    (q.overflow_drops, q.max_qlen_pkts)
}

#[test]
fn test_paced_windows_queue_less_in_the_first_round_trips() {
    // IW10, then 20 and 30 segments: 60 segments in three round trips, no loss either way.
    let (burst_drops, burst_peak) = drops_and_peak(false, 100, 60_000);
    let (paced_drops, paced_peak) = drops_and_peak(true, 100, 60_000);
    assert_eq!((burst_drops, paced_drops), (0, 0));
    assert!(burst_peak >= 10, "unpaced windows queue at the bottleneck: peak {burst_peak}");
    assert!(2 * paced_peak <= burst_peak, "paced windows queue less: peak {paced_peak} against {burst_peak}");
}

#[test]
fn test_pacing_delays_the_first_loss_and_then_loses_more() {
    let (burst_drops, _) = drops_and_peak(false, 20, 2_000_000);
    let (paced_drops, _) = drops_and_peak(true, 20, 2_000_000);
    assert!(paced_drops > burst_drops, "paced {paced_drops} drops, unpaced {burst_drops}");
}

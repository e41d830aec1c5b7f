//! Telnet and ftp_arrivals applications, and staggered starts, end to end.

mod common;

use common::*;
use ecnlab_sim::output::FlowOut;
use ecnlab_sim::spec::*;
use ecnlab_sim::telnet::Interarrival;
use ecnlab_sim::{RunOutput, Simulation};
use ecnlab_tcp::TcpConfig;

fn run(spec: SimSpec) -> RunOutput {
    Simulation::new(spec).expect("valid spec").run().expect("run")
}

/// One telnet flow s1 → r1 writing 1-byte packets with exponential gaps of
/// mean 50 ms; no fast retransmit (dupack threshold out of reach), so a lost
/// write is recovered by the retransmission timer: 1 s, on a 1 ms clock.
fn telnet_spec(duration_ns: u64) -> SimSpec {
    let tcp = TcpConfig {
        dupack_threshold: 1000,
        min_rto_ns: SEC,
        initial_rto_ns: SEC,
        clock_granularity_ns: MS,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), tcp, duration_ns);
    spec.flows[0].app =
        AppSpec::Telnet { interarrival: Interarrival::Exponential, mean_interarrival_ns: 50 * MS, write_bytes: 1 };
    spec
}

fn telnet(out: &RunOutput) -> &FlowOut {
    &out.flows[0]
}

#[test]
fn test_telnet_delay_is_the_path_delay_without_loss() {
    let out = run(telnet_spec(5 * SEC));
    let f = telnet(&out);
    assert_eq!(f.kind, "telnet");
    let writes = f.telnet_writes.unwrap();
    assert!((60..=140).contains(&writes), "≈100 writes in 5 s at 50 ms: {writes}");
    // Every write but those still in flight at the end is delivered.
    assert!(f.telnet_delivered.unwrap() + 1 >= writes);
    // One way: 1 ms access + 5 ms bottleneck + 1 ms access, plus 3 serialisations of 41 bytes.
    let max = f.telnet_delay_max_s.unwrap();
    assert!(max > 0.007 && max < 0.0072, "max delay {max}");
    assert_eq!(f.telnet_frac_over_100ms, Some(0.0));
    assert_eq!(f.retransmits, 0);
    // 41 bytes on the wire per write: 1 payload byte, 40 bytes of IPv4+TCP headers.
    assert_eq!(f.bytes_delivered, f.telnet_delivered.unwrap());
}

#[test]
fn test_dropped_telnet_packet_carries_its_retransmission_wait() {
    let mut spec = telnet_spec(5 * SEC);
    // Drop the packet carrying the 10th written byte on its first trip.
    spec.faults.push(FaultSpec {
        link: "s1->R1".into(),
        flow: "bulk1".into(),
        action: FaultAction::Drop,
        nth: None,
        seq: Some(10),
    });
    let out = run(spec);
    let f = telnet(&out);
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.retransmits, 1);
    // The dropped write waited for the 1 s timer (armed when it was sent, since
    // everything before it had been acknowledged), then crossed the path (≈7 ms).
    let max = f.telnet_delay_max_s.unwrap();
    assert!((1.0..1.02).contains(&max), "max delay {max}");
    // Writes made behind it wait for it (in-order delivery), so at least one is
    // over 100 ms, and none of those after the repair are.
    let over = f.telnet_frac_over_100ms.unwrap() * f.telnet_delivered.unwrap() as f64;
    assert!((1.0..60.0).contains(&over), "{over} writes over 100 ms");
    let hist = f.telnet_delay_hist.as_ref().unwrap();
    assert_eq!(hist.iter().sum::<u64>(), f.telnet_delivered.unwrap());
    assert!(hist[10] >= 1, "the dropped write is in the > 1 s bin: {hist:?}");
}

#[test]
fn test_tcplib_telnet_is_deterministic_per_seed() {
    let mut spec = telnet_spec(20 * SEC);
    spec.flows[0].app = AppSpec::Telnet { interarrival: Interarrival::Tcplib, mean_interarrival_ns: 0, write_bytes: 1 };
    let a = serde_json::to_string(&run(spec.clone())).unwrap();
    let b = serde_json::to_string(&run(spec.clone())).unwrap();
    assert_eq!(a, b);
    spec.seed = 2;
    let c = serde_json::to_string(&run(spec)).unwrap();
    assert_ne!(a, c, "another seed draws other gaps");
}

#[test]
fn test_staggered_starts_are_drawn_per_flow_within_the_spread() {
    let mut spec = dumbbell(5, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 3 * SEC);
    for f in &mut spec.flows {
        f.start_spread_ns = SEC;
    }
    let out = run(spec.clone());
    let starts: Vec<f64> = out.flows.iter().map(|f| f.start_s).collect();
    assert!(starts.iter().all(|s| (0.0..=1.0).contains(s)), "{starts:?}");
    let mut distinct = starts.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 5, "{starts:?}");
    // Adding a flow does not change the others' starts (one stream per flow).
    let mut more = spec.clone();
    let mut extra = more.flows[0].clone();
    extra.id = "extra".into();
    more.flows.push(extra);
    let out2 = run(more);
    let starts2: Vec<f64> = out2.flows.iter().take(5).map(|f| f.start_s).collect();
    assert_eq!(starts, starts2);
}

#[test]
fn test_ftp_arrivals_open_one_connection_per_transfer() {
    let mut spec = dumbbell(1, 10_000_000, 5 * MS, droptail(100), TcpConfig::default(), 10 * SEC);
    spec.flows[0].app = AppSpec::FtpArrivals { min_bytes: 96_000, max_bytes: 288_000, mean_gap_ns: SEC };
    let out = run(spec);
    let f = &out.flows[0];
    assert_eq!(f.kind, "ftp_arrivals");
    let started = f.transfers_started.unwrap();
    assert!((4..=20).contains(&started), "≈10 arrivals in 10 s: {started}");
    assert_eq!(f.connections as u64, started);
    let done = f.transfers_completed.unwrap();
    assert!(done + 2 >= started && done >= 1, "{done} of {started}");
    // Each transfer alone on a 10 Mbit/s path: a few Mbit/s each (slow start, 1 MSS IW 2).
    let g = f.transfer_goodput_mean_bps.unwrap();
    assert!(g > 1e6 && g < 1e7, "goodput {g}");
    assert!(f.bytes_delivered >= done * 96_000);
}

#[test]
fn test_bad_telnet_and_arrival_parameters_are_refused() {
    let mut spec = telnet_spec(SEC);
    spec.flows[0].app =
        AppSpec::Telnet { interarrival: Interarrival::Exponential, mean_interarrival_ns: 0, write_bytes: 1 };
    let e = Simulation::new(spec.clone()).err().unwrap().to_string();
    assert!(e.contains("flows[0].app.mean_interarrival_ns"), "{e}");
    spec.flows[0].app = AppSpec::FtpArrivals { min_bytes: 10, max_bytes: 5, mean_gap_ns: SEC };
    let e = Simulation::new(spec).err().unwrap().to_string();
    assert!(e.contains("flows[0].app.max_bytes"), "{e}");
}

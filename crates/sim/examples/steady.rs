//! Steady-state cost of the engine, for profiling (docs/performance.md).
//!
//! `cargo run --release -p ecnlab-sim --example steady -- SPEC.json T0 T1`
//! builds the run from an engine spec (as `ecnlab run --engine-json` writes
//! it), steps it unmeasured to T0 seconds of simulated time, then measures
//! the events from T0 to T1 by this thread's on-CPU time (Linux
//! `/proc/thread-self/schedstat`, so that time slices lost to other
//! processes do not count) and prints ns per event. Run it under `perf stat`
//! for cache misses per event.
use ecnlab_sim::{SimSpec, Simulation};
use ecnlab_wire::Instant;

fn on_cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: steady SPEC.json T0_SECONDS T1_SECONDS");
        std::process::exit(2);
    }
    let spec: SimSpec = serde_json::from_str(&std::fs::read_to_string(&args[1]).expect("read spec")).expect("spec");
    let secs = |a: &str| Instant((a.parse::<f64>().expect("seconds") * 1e9) as u64);
    let (t0, t1) = (secs(&args[2]), secs(&args[3]));
    let mut sim = Simulation::new(spec).expect("build");
    while sim.now() < t0 && sim.step() {}
    let (cpu0, wall0) = (on_cpu_ns(), std::time::Instant::now());
    let events = measured(&mut sim, t1);
    let cpu = on_cpu_ns() - cpu0;
    let wall = wall0.elapsed().as_nanos() as f64;
    println!(
        "events={events} cpu_s={:.3} wall_s={:.3} ns/event={:.1}",
        cpu as f64 / 1e9,
        wall / 1e9,
        cpu as f64 / events.max(1) as f64
    );
}

/// The measured stretch (a function of its own, for `callgrind --toggle-collect=*measured*`).
#[inline(never)]
fn measured(sim: &mut Simulation, t1: Instant) -> u64 {
    let mut events = 0u64;
    while sim.now() < t1 && sim.step() {
        events += 1;
    }
    events
}

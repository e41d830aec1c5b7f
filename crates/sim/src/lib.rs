//! ecnlab-sim: the deterministic packet-level discrete-event simulator.
//!
//! A run is a value: `Simulation::new(spec)?.run()?`. Time is integer
//! nanoseconds, events are ordered by (time, insertion), every random choice
//! comes from a stream derived from (seed, component), so the same spec gives
//! the same result on any machine.
//!
//! - [`spec`]: the engine's input (lowered by the Python front).
//! - [`sched`]: the event queue. [`net`]: topology and routing. [`link`]: links.
//! - [`conn`], [`app`]: TCP connections and the applications on them.
//! - [`web`]: web sessions of HTTP/1.0 objects. [`incast`]: partition/aggregate queries. [`tail`]: time with the queue above a threshold.
//! - [`fault`]: scripted drops and marks. [`impair`], [`impair_link`]: path impairments of the ECN fields. [`pcap`]: packet captures.
//! - `quench.rs`: ICMP Source Quenches sent by RED queues in quench mode.
//! - [`output`]: the result; [`groups`], [`flow_table`]: large flow groups as one
//!   summary each and every flow's results as columns.

mod ahead;
pub mod app;
pub mod arrivals;
mod build;
pub mod conn;
pub mod error;
pub mod fault;
pub mod flow_table;
pub mod groups;
pub mod impair;
pub mod impair_link;
pub mod incast;
pub mod link;
pub mod net;
pub mod output;
pub mod packet;
pub mod pcap;
mod prefetch;
mod quench;
mod radix;
mod report;
pub mod rng;
pub mod scenario_schema;
pub mod sched;
pub mod schema;
pub mod series;
pub mod sim;
pub mod spec;
mod spec_flows;
pub mod tail;
pub mod tcplib;
pub mod telnet;
pub mod web;

pub use error::Error;
pub use output::RunOutput;
pub use sim::Simulation;
pub use spec::SimSpec;

/// Validates a spec given as JSON without running it.
pub fn check_json(spec_json: &str) -> Result<(), Error> {
    let spec: SimSpec = serde_json::from_str(spec_json)?;
    build::check(&spec)
}

/// Runs a spec given as JSON and returns the result as JSON.
pub fn run_json(spec_json: &str) -> Result<String, Error> {
    run_json_until(spec_json, u32::MAX, || false)
}

/// What the columnar path returns: the result (without time series, and
/// without the flow records of large groups), the queue and flow time series,
/// and, when the run has a large group, every flow's results as columns.
pub struct SplitOutput {
    pub out: output::RunOutput,
    pub queues: series::Columns,
    pub flows: series::Columns,
    pub flow_table: Option<Vec<flow_table::Column>>,
}

/// As [`run_json_until`], with the time series apart as columns (queues, flows)
/// and left out of the JSON; when an entry makes more than
/// [`groups::RECORD_LIMIT`] flows, every flow's results as columns too, and only
/// the records of the smaller entries' flows in the JSON (the group has its summary).
pub fn run_json_split_until(spec_json: &str, every: u32, stop: impl FnMut() -> bool) -> Result<SplitOutput, Error> {
    let spec: SimSpec = serde_json::from_str(spec_json)?;
    let kept: Vec<bool> = spec.flows.iter().flat_map(|f| std::iter::repeat_n(!groups::is_group(f), f.len())).collect();
    let mut out = Simulation::new(spec)?.run_until(every, stop)?;
    let (queues, flows) = (out.timeseries.queue_columns(), out.timeseries.flow_columns());
    out.timeseries = Default::default();
    let flow_table = (!out.groups.is_empty()).then(|| {
        let table = flow_table::columns(&out.flows);
        let mut keep = kept.iter();
        out.flows.retain(|_| *keep.next().expect("one per flow"));
        table
    });
    Ok(SplitOutput { out, queues, flows, flow_table })
}

/// As [`run_json`], asking `stop()` every `every` events (`Simulation::run_until`).
pub fn run_json_until(spec_json: &str, every: u32, stop: impl FnMut() -> bool) -> Result<String, Error> {
    let spec: SimSpec = serde_json::from_str(spec_json)?;
    let out = Simulation::new(spec)?.run_until(every, stop)?;
    Ok(serde_json::to_string(&out)?)
}

//! `ecnlab._core`: the PyO3 glue between the Python front and the engine.
//!
//! Glue only. The Python side validates the scenario file and lowers it to
//! the engine's JSON input (`ecnlab_sim::spec::SimSpec`); [`run`] hands that
//! string to [`ecnlab_sim::run_json`] with the GIL released and returns the
//! engine's JSON result. Python never sees per-packet callbacks.

mod json_text;
mod records_text;
mod to_python;
mod toml_read;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(ecnlab._core, EngineError, PyException, "The engine rejected its input or failed during a run.");
create_exception!(
    ecnlab._core,
    SpecError,
    EngineError,
    "A run's input broke one of the engine's rules: args are (field, value, allowed), as `check_spec` returns them."
);

/// `(field, value, allowed)` of an error in the input (`field` the engine-JSON path, e.g.
/// `links[3].queue.limit_pkts`, `flows[7].tcp.rwnd_bytes`), or the error itself.
fn spec_fault(e: ecnlab_sim::Error) -> Result<(String, String, String), ecnlab_sim::Error> {
    use ecnlab_sim::Error;
    match e {
        Error::Spec { field, value, allowed } => Ok((field, value, allowed)),
        Error::Queue { field, source } => Ok((format!("{field}.{}", source.field), source.value, source.allowed)),
        Error::Tcp { field, source } => {
            Ok((format!("{field}.{}", source.field), source.value, source.allowed.to_string()))
        }
        e => Err(e),
    }
}

/// A run's error as Python sees it: [`SpecError`] for the input's faults, else [`EngineError`].
fn run_error(e: ecnlab_sim::Error) -> PyErr {
    match spec_fault(e) {
        Ok(fault) => SpecError::new_err(fault),
        Err(e) => EngineError::new_err(e.to_string()),
    }
}

/// The ecnlab version this extension was built from (the Cargo workspace version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Run one simulation: `spec_json` is a `SimSpec` as JSON; returns the result JSON. An input
/// that breaks one of the engine's rules raises [`SpecError`] before anything runs.
///
/// The GIL is released for the whole run, so Python threads can run many
/// simulations in parallel (a run is a value; the engine has no globals).
///
/// Every `CHECK_EVERY` events the run takes the GIL for a moment to let
/// Python handle pending signals: Ctrl-C or SIGTERM then stops the run at
/// once with the handler's exception (KeyboardInterrupt), instead of when
/// the whole simulation is over.
#[pyfunction]
fn run(py: Python<'_>, spec_json: String) -> PyResult<String> {
    const CHECK_EVERY: u32 = 1 << 20;
    let mut pending: Option<PyErr> = None;
    let result = py.detach(|| {
        ecnlab_sim::run_json_until(&spec_json, CHECK_EVERY, || {
            Python::attach(|py| py.check_signals()).map_err(|e| pending = Some(e)).is_err()
        })
    });
    match (result, pending) {
        (Err(ecnlab_sim::Error::Interrupted), Some(e)) => Err(e),
        (r, _) => r.map_err(run_error),
    }
}

/// As [`run`], with the time series apart: returns (the result without
/// `timeseries`, as the dict `json.loads` makes of [`run`]'s JSON, built
/// directly: `to_python.rs`; queue columns, flow columns, flow table). Each column set is a
/// dict with `names` (one per series), `counts` (samples per series) and every
/// column as little-endian f64 bytes concatenated over the series (null = NaN),
/// which the front turns into Parquet without parsing millions of JSON numbers.
/// The flow table is None unless an entry makes more than
/// `ecnlab_sim::groups::RECORD_LIMIT` flows; then it holds every flow's results
/// (`flow_table_list`) and the JSON only the smaller entries' flow records. Last, the
/// result's `flows` list as `summary.json` holds it (`records_text.rs`), made on another thread
/// while the result's objects are made; None if it could not be.
#[pyfunction]
fn run_split(py: Python<'_>, spec_json: String) -> PyResult<Split> {
    const CHECK_EVERY: u32 = 1 << 20;
    let mut pending: Option<PyErr> = None;
    let result = py.detach(|| {
        ecnlab_sim::run_json_split_until(&spec_json, CHECK_EVERY, || {
            Python::attach(|py| py.check_signals()).map_err(|e| pending = Some(e)).is_err()
        })
    });
    let out = match (result, pending) {
        (Err(ecnlab_sim::Error::Interrupted), Some(e)) => return Err(e),
        (r, _) => r.map_err(run_error)?,
    };
    let table = out.flow_table.as_deref().map(|t| flow_table_list(py, t)).transpose()?;
    let (result, text) = std::thread::scope(|s| {
        let render = s.spawn(|| records_text::render(&out.out.flows));
        (to_python::to_python(py, &out.out), render.join())
    });
    let result = result?;
    let records = match (text, result.get_item("flows")?.cast_into::<PyList>()) {
        (Ok(Ok(text)), Ok(list)) => {
            Some(Py::new(py, records_text::RecordsText { len: list.len(), list: list.unbind(), text })?)
        }
        _ => None,
    };
    Ok((result.unbind(), columns_dict(py, &out.queues)?, columns_dict(py, &out.flows)?, table, records))
}

/// What `run_split` returns: (result, queue columns, flow columns, flow table, flow records' text).
type Split = (Py<PyAny>, Py<PyDict>, Py<PyDict>, Option<Py<PyList>>, Option<Py<records_text::RecordsText>>);

fn columns_dict(py: Python<'_>, c: &ecnlab_sim::series::Columns) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("names", &c.names)?;
    d.set_item("counts", &c.counts)?;
    for (name, values) in &c.columns {
        d.set_item(*name, f64_bytes(py, values))?;
    }
    Ok(d.unbind())
}

fn f64_bytes<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}

fn i32_bytes<'py>(py: Python<'py>, values: &[i32]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}

/// The flow table as a list of `(name, arrow type, data, offsets, valid)`: numbers as
/// f64 bytes (null = NaN) with no offsets; strings as UTF-8 bytes and i32 offsets;
/// lists as f64 item bytes, i32 offsets and one byte per row (0 = null).
fn flow_table_list(py: Python<'_>, columns: &[ecnlab_sim::flow_table::Column]) -> PyResult<Py<PyList>> {
    use ecnlab_sim::flow_table::Values;
    let list = PyList::empty(py);
    for (name, kind, values) in columns {
        let none = py.None().into_bound(py);
        let item = match values {
            Values::Num(v) => (*name, *kind, f64_bytes(py, v).into_any(), none.clone(), none),
            Values::Text { offsets, data } => {
                (*name, *kind, PyBytes::new(py, data).into_any(), i32_bytes(py, offsets).into_any(), none)
            }
            Values::List { offsets, values, valid } => {
                let valid: Vec<u8> = valid.iter().map(|&b| u8::from(b)).collect();
                let (data, offsets) = (f64_bytes(py, values).into_any(), i32_bytes(py, offsets).into_any());
                (*name, *kind, data, offsets, PyBytes::new(py, &valid).into_any())
            }
        };
        list.append(item)?;
    }
    Ok(list.unbind())
}

/// The `TcpConfig` a personality gives when no field is set (`TcpConfig::default()`, the `rfc`
/// personality's, without one) as JSON: what the engine fills in for every field that engine JSON
/// leaves out, so the front lowers only the fields that differ.
#[pyfunction]
#[pyo3(signature = (personality=None))]
fn default_tcp_config(personality: Option<&str>) -> PyResult<String> {
    let p = match personality {
        None => ecnlab_tcp::Personality::default(),
        Some(name) => serde_json::from_value(serde_json::Value::from(name))
            .map_err(|e| EngineError::new_err(format!("personality: {e}")))?,
    };
    serde_json::to_string(&p.config()).map_err(|e| EngineError::new_err(e.to_string()))
}

/// Checks one queue configuration (`ecnlab_aqm::QueueConfig` as JSON) with
/// the engine's own rules: `None` if valid, else `(field, value, allowed)`
/// naming the engine's JSON key. The front calls this for every queue, so
/// the ranges live in one place (the AQM's file).
#[pyfunction]
fn check_queue(queue_json: &str) -> PyResult<Option<(String, String, String)>> {
    let cfg: ecnlab_aqm::QueueConfig =
        serde_json::from_str(queue_json).map_err(|e| EngineError::new_err(format!("queue JSON: {e}")))?;
    Ok(cfg.validate().err().map(|e| (e.field.to_string(), e.value, e.allowed)))
}

/// Checks one TCP configuration (`ecnlab_tcp::TcpConfig` as JSON) with the
/// engine's own rules: `None` if valid, else `(field, value, allowed)`.
#[pyfunction]
fn check_tcp(tcp_json: &str) -> PyResult<Option<(String, String, String)>> {
    let cfg: ecnlab_tcp::TcpConfig =
        serde_json::from_str(tcp_json).map_err(|e| EngineError::new_err(format!("tcp JSON: {e}")))?;
    Ok(cfg.validate().err().map(|e| (e.field.to_string(), e.value, e.allowed.to_string())))
}

/// Checks a whole engine spec (`SimSpec` as JSON) with the engine's own
/// rules (`ecnlab_sim::check_json`: topology, links, queues, flows, TCP,
/// faults, time series) without running it: `None` if valid, else
/// `(field, value, allowed)` with `field` the engine-JSON path (e.g.
/// `links[3].queue.limit_pkts`, `flows[7].tcp.rwnd_bytes`). The front maps
/// the path back to the scenario key the user wrote.
#[pyfunction]
fn check_spec(spec_json: &str) -> PyResult<Option<(String, String, String)>> {
    match ecnlab_sim::check_json(spec_json) {
        Ok(()) => Ok(None),
        Err(e) => spec_fault(e).map(Some).map_err(|e| EngineError::new_err(e.to_string())),
    }
}

/// The summary's record keys (`ecnlab_sim::schema::summary_schema`) as JSON:
/// `{"sim"|"flow"|"queue"|"link": {"keys": [...], "optional": [...]}}`.
#[pyfunction]
fn summary_schema() -> String {
    ecnlab_sim::schema::summary_schema().to_string()
}

/// Every scenario key the engine accepts (`ecnlab_sim::scenario_schema`) as JSON: TCP keys
/// and each queue kind's, with engine field, unit, allowed values, default and one line of doc.
#[pyfunction]
fn scenario_schema() -> String {
    ecnlab_sim::scenario_schema::scenario_schema().to_string()
}

/// The TCP personalities (`ecnlab_tcp::personality`) as JSON, in the engine's order:
/// `[["rfc", {field: value, ...}], ["ns2", ...], ["linux", ...]]`, each the `TcpConfig` fields
/// that personality sets, named and written as in engine JSON.
#[pyfunction]
fn tcp_personalities() -> PyResult<String> {
    let table: Vec<(&str, &ecnlab_tcp::PersonalityRules)> =
        ecnlab_tcp::Personality::ALL.iter().map(|p| (p.name(), p.rules())).collect();
    serde_json::to_string(&table).map_err(|e| EngineError::new_err(e.to_string()))
}

/// Replays a script of arrivals and departures (`ecnlab_aqm::replay::Op`
/// as JSON) through one queue, with the queue random stream the simulator
/// gives link 0 under `seed`; returns the events (`replay::Event`) as JSON.
#[pyfunction]
fn queue_replay(py: Python<'_>, queue_json: String, ops_json: String, seed: u64) -> PyResult<String> {
    py.detach(move || {
        let cfg: ecnlab_aqm::QueueConfig = serde_json::from_str(&queue_json).map_err(|e| format!("queue JSON: {e}"))?;
        let ops: Vec<ecnlab_aqm::replay::Op> = serde_json::from_str(&ops_json).map_err(|e| format!("ops JSON: {e}"))?;
        let mut rng = ecnlab_sim::rng::stream(seed, ecnlab_sim::rng::Stream::Queue, 0);
        let events = ecnlab_aqm::replay::replay(&cfg, &ops, &mut rng).map_err(|e| e.to_string())?;
        serde_json::to_string(&events).map_err(|e| e.to_string())
    })
    .map_err(EngineError::new_err)
}

/// Cost of one queue: `ecnlab_aqm::replay::churn` timed here; returns
/// (nanoseconds per arrival-and-departure, packets that left).
#[pyfunction]
fn queue_churn(py: Python<'_>, queue_json: String, flows: u32, backlog: u32, packets: u64) -> PyResult<(f64, u64)> {
    py.detach(move || {
        let cfg: ecnlab_aqm::QueueConfig = serde_json::from_str(&queue_json).map_err(|e| format!("queue JSON: {e}"))?;
        let mut rng = ecnlab_sim::rng::stream(1, ecnlab_sim::rng::Stream::Queue, 0);
        let start = std::time::Instant::now();
        let left = ecnlab_aqm::replay::churn(&cfg, flows, backlog, packets, &mut rng).map_err(|e| e.to_string())?;
        Ok((start.elapsed().as_nanos() as f64 / packets.max(1) as f64, left))
    })
    .map_err(|e: String| EngineError::new_err(e))
}

/// The simulator's web application model (`ecnlab_sim::web::Web`) with the
/// flow's own RNG stream, driven by wall-clock times: `ecnlab emulate`'s web
/// client makes the same draws (sessions, pages, objects, sizes, think
/// times) from the same code and parameters as `ecnlab run`.
#[pyclass(module = "ecnlab._core")]
struct WebSource {
    web: ecnlab_sim::web::Web,
    rng: ecnlab_sim::rng::SimRng,
}

#[pymethods]
impl WebSource {
    /// `params_json`: the engine's `WebParams`; the stream is (seed, App, flow_index), as in the
    /// engine, which first draws the start from it when `spread_ns` is not zero ([`flow_start_ns`]).
    #[new]
    #[pyo3(signature = (params_json, seed, flow_index, start_ns, spread_ns = 0))]
    fn new(params_json: &str, seed: u64, flow_index: u32, start_ns: u64, spread_ns: u64) -> PyResult<Self> {
        use ecnlab_sim::rng::{stream, Stream};
        let p: ecnlab_sim::web::WebParams =
            serde_json::from_str(params_json).map_err(|e| EngineError::new_err(format!("web params: {e}")))?;
        ecnlab_sim::web::check(&p).map_err(|(f, v, r)| EngineError::new_err(format!("web {f} = {v}: {r}")))?;
        let mut rng = stream(seed, Stream::App, flow_index);
        let start = ecnlab_wire::Instant(ecnlab_sim::app::draw_start(start_ns, spread_ns, &mut rng));
        Ok(WebSource { web: ecnlab_sim::web::Web::new(p, start), rng })
    }

    /// The earliest scheduled connection start opens at `now_ns`: returns
    /// (connection number, response bytes, the following session's arrival if this opened a session).
    fn start(&mut self, now_ns: u64) -> (u32, u64, Option<u64>) {
        let conn = self.web.objects.len() as u32;
        let next = self.web.on_connection_start(&mut self.rng, ecnlab_wire::Instant(now_ns));
        (conn, self.web.object_bytes(conn), next.map(|t| t.0))
    }

    /// Connection `conn`'s object fully arrived at `now_ns`: when its session's next connection starts.
    fn done(&mut self, conn: u32, now_ns: u64) -> Option<u64> {
        self.web.on_object_done(&mut self.rng, conn, ecnlab_wire::Instant(now_ns)).map(|t| t.0)
    }

    fn request_bytes(&self) -> u64 {
        self.web.request_bytes()
    }

    /// The engine's per-flow web result (`WebOut`) as JSON, for objects done so far.
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.web.summary()).map_err(|e| EngineError::new_err(e.to_string()))
    }
}

/// The live-emulation router (`ecnlab-router`'s arguments, after the program
/// name): runs it in this process with the GIL released until it stops, and
/// returns its exit status (0; 2 after one `ecnlab-router: error:` line).
/// `python -m ecnlab.emu.router` is its command line; Linux only.
#[cfg(target_os = "linux")]
#[pyfunction]
fn router_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| ecnlab_emu::router::main(&argv))
}

/// Flow `flow_index`'s start in a run with `seed`, as the engine draws it: `start_ns`, plus
/// a uniform draw from `0..=spread_ns` on the flow's stream (`ecnlab_sim::app::draw_start`).
#[pyfunction]
fn flow_start_ns(seed: u64, flow_index: u32, start_ns: u64, spread_ns: u64) -> u64 {
    use ecnlab_sim::rng::{stream, Stream};
    ecnlab_sim::app::draw_start(start_ns, spread_ns, &mut stream(seed, Stream::App, flow_index))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(router_main, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(toml_read::parse_toml, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::dumps_indented, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::dumps_indented_file, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::dumps_compact, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::write_indented_file, m)?)?;
    m.add_function(wrap_pyfunction!(flow_start_ns, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_split, m)?)?;
    m.add_function(wrap_pyfunction!(default_tcp_config, m)?)?;
    m.add_function(wrap_pyfunction!(check_queue, m)?)?;
    m.add_function(wrap_pyfunction!(check_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(check_spec, m)?)?;
    m.add_function(wrap_pyfunction!(summary_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_personalities, m)?)?;
    m.add_function(wrap_pyfunction!(queue_replay, m)?)?;
    m.add_function(wrap_pyfunction!(queue_churn, m)?)?;
    m.add_class::<WebSource>()?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add_class::<records_text::RecordsText>()?;
    Ok(())
}

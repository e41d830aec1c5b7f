//! `ecnlab._core`: the PyO3 glue between the Python front and the engine.
//!
//! Glue only. The Python side validates the scenario file and lowers it to
//! the engine's JSON input (`ecnlab_sim::spec::SimSpec`); [`run`] hands that
//! string to [`ecnlab_sim::run_json`] with the GIL released and returns the
//! engine's JSON result. Python never sees per-packet callbacks.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(ecnlab._core, EngineError, PyException, "The engine rejected its input or failed during a run.");

/// The ecnlab version this extension was built from (the Cargo workspace version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Run one simulation: `spec_json` is a `SimSpec` as JSON; returns the result JSON.
///
/// The GIL is released for the whole run, so Python threads can run many
/// simulations in parallel (a run is a value; the engine has no globals).
#[pyfunction]
fn run(py: Python<'_>, spec_json: String) -> PyResult<String> {
    py.detach(move || ecnlab_sim::run_json(&spec_json)).map_err(|e| EngineError::new_err(e.to_string()))
}

/// `TcpConfig::default()` as JSON, so the front can check that its documented
/// defaults match the engine's.
#[pyfunction]
fn default_tcp_config() -> PyResult<String> {
    serde_json::to_string(&ecnlab_tcp::TcpConfig::default()).map_err(|e| EngineError::new_err(e.to_string()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(default_tcp_config, m)?)?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    Ok(())
}

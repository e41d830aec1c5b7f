//! Errors the engine reports for a spec it cannot run. The Python front
//! validates first; these are the second line of defence and name the
//! engine-JSON field, the value and what is allowed.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("engine spec: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{field} = {value}: {allowed}")]
    Spec { field: String, value: String, allowed: String },
    #[error("{field}: {source}")]
    Queue { field: String, source: ecnlab_aqm::ConfigError },
    #[error("{field}: {source}")]
    Tcp { field: String, source: ecnlab_tcp::ConfigError },
    #[error("flow {flow} did not finish its work by {time_s} s (delivered {delivered} bytes): raise the duration or check the scenario")]
    Incomplete { flow: String, time_s: f64, delivered: u64 },
    #[error("pcap {path}: {source}")]
    Pcap { path: String, source: std::io::Error },
    /// The caller asked the run to stop (a signal, in the Python front).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn spec(field: impl Into<String>, value: impl std::fmt::Display, allowed: impl Into<String>) -> Self {
        Error::Spec { field: field.into(), value: value.to_string(), allowed: allowed.into() }
    }
}

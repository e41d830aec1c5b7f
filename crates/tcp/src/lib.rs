//! ecnlab-tcp: sans-IO TCP endpoints with ECN (RFC 3168) and ECN+ (RFC 5562).

pub mod config;

pub use config::{TcpConfig, Variant};

//! ecnlab-emu: the live emulation router (`ecnlab-router`).
//!
//! Real Linux TCP endpoints, each in its own network namespace behind one TUN
//! device, talk through this process, which forwards their IPv4 packets over
//! the scenario's links: the simulator's own `AqmQueue` (same parameters, same
//! RNG streams, same verdicts), a rate limiter and a propagation delay per
//! link, scheduled in virtual time against a monotonic clock.
//!
//! - [`frame`]: `Frame`, the queue's packet type over real bytes (checked input).
//! - [`impair`]: the simulator's path impairments on a `Frame`'s bytes.
//! - [`link`], [`net`]: the sans-IO core (a fake clock drives it in tests).
//! - [`lateness`]: delivery-lateness percentiles.
//! - [`config`]: the JSON the Python side writes.
//! - [`router`]: the IO loop (TUN devices, poll, control channel), run by the
//!   `ecnlab-router` binary and by `ecnlab._core.router_main`.
//! - `sys`: the few syscalls, the only unsafe code.

pub mod config;
pub mod frame;
pub mod impair;
pub mod lateness;
pub mod link;
pub mod net;
pub mod router;
mod sys;

pub use config::{ConfigError, RouterConfig};
pub use frame::{Frame, Malformed};
pub use net::{Net, Report, Sink, WindowReport};

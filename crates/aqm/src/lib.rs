//! ecnlab-aqm: sans-IO queues and active queue management.
//!
//! [`AqmQueue`] is a FIFO host that runs one AQM (DropTail, RED, RED*) chosen by
//! [`QueueConfig`], turns its congestion signals into CE marks or drops (or,
//! for RED with `quench`, into [`Enqueued::Quench`]: forward and quench the
//! source) and keeps ns-3-style [`QueueStats`]. Nothing here reads a clock or creates an
//! RNG: the caller passes `now` and an RNG stream to every call.
//!
//! Files: `config.rs` (serde contract), `error.rs` (validation), `verdict.rs`,
//! `aqm.rs` (internal trait + enum dispatch), `queue.rs` (the host),
//! `droptail.rs`, `red.rs` (RED, gentle, wait, byte mode, RED*: personality
//! `floyd93`), `pi.rs` (PI, Hollot et al. 2001), `red/ns.rs` (personalities `ns2`, `ns3`), `red/linux.rs`
//! (personality `linux`), `stats.rs`. docs/performance.md compares the personalities.

mod aqm;
mod ared;
mod backlog;
mod codel;
pub mod config;
mod droptail;
mod dualpi2;
mod error;
mod fq_codel;
mod pi;
mod pie;
mod queue;
mod red;
pub mod replay;
mod stats;
mod step;
mod subqueues;
#[cfg(test)]
mod testutil;
mod verdict;

pub use config::{
    AqmPersonality, AredParams, CodelParams, DropTailParams, DualPi2Params, EcnMask, FqCodelParams, PiParams,
    PieParams, QueueConfig, RedMode, RedParams, RedPersonality, StepOn, StepParams,
};
pub use error::ConfigError;
pub use queue::{AqmQueue, QueuedPacket};
pub use stats::{ClassStats, QueueStats, Sojourn, SojournBuckets, SojournHist};
pub use verdict::{DropReason, Enqueued};

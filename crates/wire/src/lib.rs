//! ecnlab-wire: the vocabulary every other crate shares. No IO, no clock.
//!
//! - [`time`]: integer-nanosecond `Instant` / `Duration`.
//! - [`ecn`]: the ECN codepoint of the IP header.

pub mod ecn;
pub mod segment;
pub mod time;

pub use ecn::Ecn;
pub use segment::{SackBlocks, Segment, TcpFlags};
pub use time::{Duration, Instant};

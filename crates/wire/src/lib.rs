//! ecnlab-wire: the vocabulary every other crate shares. No IO, no clock.
//!
//! - [`time`]: integer-nanosecond `Instant` / `Duration`.
//! - [`ecn`]: the ECN codepoint of the IP header.
//! - [`segment`]: the high-level TCP segment the simulator moves.
//! - [`ipv4`], [`tcp`]: zero-copy header views (RFC 791, RFC 9293) that never
//!   panic on untrusted bytes once `new_checked` has accepted them.
//! - [`checksum`]: the Internet checksum (RFC 1071, RFC 1624).
//! - [`ip_tcp`]: a [`Segment`] to and from real IPv4/TCP bytes.
//! - [`icmp`]: an ICMP Source Quench (RFC 792) as real IPv4/ICMP bytes.
//! - [`keys`]: the row type of the scenario-key tables beside each configuration struct.
//! - [`pcap`]: a nanosecond pcap writer (`LINKTYPE_RAW`), the only IO-facing
//!   piece, over any `std::io::Write`.

pub mod checksum;
pub mod ecn;
pub mod icmp;
pub mod ip_tcp;
pub mod ipv4;
pub mod keys;
pub mod pcap;
pub mod segment;
pub mod tcp;
pub mod time;

pub use ecn::Ecn;
pub use icmp::{emit_source_quench, SOURCE_QUENCH_LEN};
pub use ip_tcp::{emit_ipv4_tcp, parse_ipv4_tcp, EmitError, Endpoints, ParseError};
pub use ipv4::{Ipv4Error, Ipv4Packet};
pub use pcap::PcapWriter;
pub use segment::{AccEcnOption, SackBlocks, Segment, TcpFlags};
pub use tcp::{TcpError, TcpOption, TcpPacket};
pub use time::{Duration, Instant};

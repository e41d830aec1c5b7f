//! When a receiver with delayed ACKs answers at once
//! (`TcpConfig::syn_immediate_ack`, `ack_ce_at_once`).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `syn_immediate_ack`: `delayed` (false) | the responder holds its SYN-ACK for the delayed-ACK timeout, like any first in-order segment | ns-2.35's DelAck sink with `SYN_immediate_ack_` false, as `test-suite-ecn.tcl` sets it |
//! | `syn_immediate_ack`: `immediate` (true) | the responder answers a SYN at once | RFC 793; ns-2.35's default `SYN_immediate_ack_` true; every personality |
//! | `ack_ce_at_once`: `delayed` (false) | a CE segment waits like any in-order segment | ns-2.35 `DelAckSink::recv`; the `ns2` personality |
//! | `ack_ce_at_once`: `at_once` (true) | a CE segment that starts the ECE echo is ACKed at once | RFC 3168 §6.1.3 (the sender told promptly), Linux `tcp_enter_quickack_mode`; the `rfc` and `linux` personalities |
//!
//! Without delayed ACKs every segment is ACKed at once either way.

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::syn_immediate_ack` (the module's table).
    pub enum SynAck {
        /// ns-2.35 `SYN_immediate_ack_` false: delayed.
        Delayed,
        /// RFC 793: at once.
        Immediate,
    }
}

two_way_rule! {
    /// `TcpConfig::ack_ce_at_once` (the module's table).
    pub enum CeAck {
        /// ns-2.35 DelAck sink: delayed like any segment.
        Delayed,
        /// RFC 3168 §6.1.3, Linux quick-ACK: at once.
        AtOnce,
    }
}

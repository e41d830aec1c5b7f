//! When a receiver with delayed ACKs answers at once
//! (`TcpConfig::syn_immediate_ack`, `ack_ce_at_once`, `ecn_quickack`).
//!
//! | field: variant | behaviour | source |
//! |---|---|---|
//! | `syn_immediate_ack`: `delayed` (false) | the responder holds its SYN-ACK for the delayed-ACK timeout, like any first in-order segment | ns-2.35's DelAck sink with `SYN_immediate_ack_` false, as `test-suite-ecn.tcl` sets it |
//! | `syn_immediate_ack`: `immediate` (true) | the responder answers a SYN at once | RFC 793; ns-2.35's default `SYN_immediate_ack_` true; every personality |
//! | `ack_ce_at_once`: `delayed` (false) | a CE segment waits like any in-order segment | ns-2.35 `DelAckSink::recv`; the `ns2` personality |
//! | `ack_ce_at_once`: `at_once` (true) | a CE segment that starts the ECE echo is ACKed at once | RFC 3168 §6.1.3 (the sender told promptly), Linux `tcp_enter_quickack_mode`; the `rfc` and `linux` personalities |
//! | `ecn_quickack`: `echo` (false) | no ACK at once for CWR; a DCTCP receiver ACKs at once only a change of CE (RFC 8257 §3.2) | RFC 3168 §6.1.3, RFC 8257 §3.2, ns-2.35; the `rfc` and `ns2` personalities |
//! | `ecn_quickack`: `linux` (true) | Linux's state `TCP_ECN_DEMAND_CWR`, set by a CE data segment, cleared by a CWR one, each step ACKed at once: a data segment carrying CWR is ACKed at once (`tcp_ecn_accept_cwr`: "its cwnd may be very low (even just 1 packet), so we should ACK immediately"), and a CE data segment while no CWR is awaited puts the receiver in quick-ACK mode for two ACKs of new data (`tcp_data_ecn_check` → `tcp_enter_quickack_mode(sk, 2)`; `tcp_dec_quickack_mode` counts an ACK sent while one was scheduled, not DCTCP's ACK of the earlier data); every receiver with RFC 3168 feedback, DCTCP's included (the kernel runs both for every congestion control) | Linux `include/net/tcp_ecn.h`, `net/ipv4/tcp_input.c`; the `linux` personality |
//!
//! Without delayed ACKs every segment is ACKed at once either way; with AccECN
//! (`accecn.rs`) neither `ecn_quickack` step applies, as in Linux (RFC 3168 mode only).

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
    /// `TcpConfig::ecn_quickack` (the module's table).
    pub enum EcnQuickAck {
        /// RFC 3168 §6.1.3, RFC 8257 §3.2: the echo's own immediate ACKs only.
        Echo,
        /// Linux `tcp_ecn_accept_cwr`, `tcp_data_ecn_check`: CWR ACKed at once, CE starts two quick ACKs.
        Linux,
    }
}

/// Quick ACKs of Linux's `tcp_enter_quickack_mode(sk, 2)` after a CE segment.
pub(crate) const CE_QUICKACKS: u8 = 2;

two_way_rule! {
    /// `TcpConfig::ack_ce_at_once` (the module's table).
    pub enum CeAck {
        /// ns-2.35 DelAck sink: delayed like any segment.
        Delayed,
        /// RFC 3168 §6.1.3, Linux quick-ACK: at once.
        AtOnce,
    }
}

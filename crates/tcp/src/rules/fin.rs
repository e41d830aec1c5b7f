//! Where the FIN goes (`TcpConfig::fin_with_data`).
//!
//! | variant | behaviour | source |
//! |---|---|---|
//! | `own_segment` (false) | the FIN is a segment of its own, without data and so Not-ECT | RFC 793, RFC 3168 §6.1.4 (packets without data are Not-ECT); the `rfc` and `ns2` personalities |
//! | `with_last_data` (true) | the FIN rides on the last data segment when the application closed before that segment was sent; that segment carries data, so it is ECT with ECN, and a retransmission of it after close carries the FIN too | Linux `tcp_send_fin` (FIN on the tail segment still queued; the retransmit collapses the FIN into it); the `linux` personality |

use crate::rules::two_way_rule;

two_way_rule! {
    /// `TcpConfig::fin_with_data` (the module's table).
    pub enum FinPlacement {
        /// RFC 793: a segment of its own.
        OwnSegment,
        /// Linux `tcp_send_fin`: on the last data segment not yet sent.
        WithLastData,
    }
}

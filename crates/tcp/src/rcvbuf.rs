//! The receive window a receiver offers: `rwnd` throughout, or grown with the
//! data the application reads as Linux's receive-buffer autotuning (Dynamic
//! Right-Sizing) grows it (`TcpConfig::rcv_autotune`).
//!
//! Why: a sender in a long recovery (NewReno without SACK) sends new data until
//! the receiver's window stops it; Linux's window is about twice what arrived
//! in order in the last round trip, far below a fixed 16 MiB (docs/emulation.md,
//! "The receive window Linux autotunes").
//!
//! Sources: Linux `tcp_select_initial_window`, `tcp_init_buffer_space`,
//! `tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`, `tcp_grow_window`,
//! `tcp_data_queue_ofo`, `__tcp_select_window` and `tcp_select_window`, as
//! E. Dumazet's 2025 netdev series leaves them ("tcp: fix sk_rcvbuf overshoot":
//! "instead of betting on possible losses and over estimate BDP, it is better to
//! only account for slow start", so `rcvwin = space << 1`; "tcp: adjust rcvbuf
//! in presence of reorders": the out-of-order span, and a grow on every
//! out-of-order arrival; "tcp: always seek for minimal rtt in
//! tcp_rcv_rtt_update()"; in 6.15 stable and on; this machine runs 6.18), and
//! "tcp: grow window for OOO packets only for SACK flows" (2020). Bytes
//! throughout; `mss` is the receiver's (`advmss`); the application reads every
//! in-order byte at once.
//!
//! | quantity | rule here | Linux |
//! |---|---|---|
//! | window at the start (SYN, SYN-ACK) | min(rwnd, ⌊65 536 / mss⌋·mss) | `tcp_rmem[1]` = 131 072 bytes of buffer at the default scaling ratio ½, rounded down to the MSS |
//! | clamp at the start | min(rwnd, 65 536 − mss) | `tcp_init_buffer_space`: the full space less one segment held back |
//! | target (`rcv_ssthresh`) | starts at min(window, clamp); + 2·mss per data segment that arrives in order (and out of order with SACK), at most the clamp | `tcp_grow_window` (`incr = 2 * advmss`; out of order only for SACK flows) |
//! | space | starts at 10·mss | `rcvq_space.space` = min(…, TCP_INIT_CWND·advmss) |
//! | measured every receiver round trip | at an in-order arrival once `rtt` has passed since the mark: copied = rcv_nxt − mark; when copied > space: space = copied, grow; the mark moves to now, rcv_nxt | `tcp_rcv_space_adjust` (nothing waits unread, so `inq` = 0) |
//! | grow | clamp = max(clamp, min(rwnd, 2·space + the out-of-order span)) | `tcp_rcvbuf_grow`: 2·space (slow start may double the rate) plus `ooo_last_skb.end_seq − rcv_nxt`; the clamp follows the buffer (the scaling ratio cancels); `tcp_rmem[2]`'s share caps it (`rwnd` here) |
//! | every out-of-order arrival | grow | `tcp_data_queue_ofo` → `tcp_rcvbuf_grow` |
//! | offered | free = clamp − bytes held out of order; min(free, target) rounded down to the MSS; the right edge never moves left | `__tcp_select_window` (free = `tcp_space`), `tcp_select_window` (no shrinking) |
//!
//! Not modelled: the scaling ratio measured from the first data segment's
//! buffer size (Linux's first clamp follows it: 80 896 bytes in the trace,
//! where this rule gives 64 088), the window-scale granularity of the offered
//! window, memory pressure, and an application that reads late. The receiver
//! round trip `rtt` is the handshake's RTT (Linux: the least timestamp-echo
//! sample since 6.16, the path's base RTT when the flow starts into an empty
//! queue); without a sample (a retransmitted handshake) the window is measured
//! once a second (Linux's initial RTO).

use ecnlab_wire::{Duration, Instant};

/// Linux's initial receive space: `tcp_rmem[1]` (131 072) at the default scaling ratio ½.
const INIT_SPACE: u64 = 65_536;
/// `TCP_INIT_CWND`: the first measurement's space, in segments.
const INIT_CWND: u64 = 10;
/// The measurement interval without a handshake RTT sample (`TCP_TIMEOUT_INIT`).
const NO_SAMPLE_RTT: Duration = Duration(1_000_000_000);

/// The window offered at the handshake (SYN or SYN-ACK).
pub(crate) fn initial_window(rwnd: u64, mss: u64) -> u64 {
    rwnd.min(INIT_SPACE / mss.max(1) * mss.max(1)).max(mss.min(rwnd))
}

/// Linux's receive-window autotuning for one receiver (module doc).
#[derive(Clone, Debug)]
pub(crate) struct Autotune {
    rwnd: u64,
    mss: u64,
    /// `window_clamp`: the most the window may grow to.
    clamp: u64,
    /// `rcv_ssthresh`: the offered window's target.
    target: u64,
    /// `rcvq_space.space`: bytes read in the last measured round trip.
    space: u64,
    /// `rcvq_space.seq` and `.time`: where and when the measurement started.
    mark_seq: u64,
    mark_at: Instant,
    rtt: Duration,
    /// The right edge offered so far (`rcv_wup + rcv_wnd`).
    right_edge: u64,
    sack: bool,
}

/// What the out-of-order queue holds, for the window: its span above
/// `rcv_nxt` and its bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OutOfOrder {
    pub(crate) span: u64,
    pub(crate) bytes: u64,
}

impl Autotune {
    /// At establishment: `rcv_nxt` is where data starts, `rtt` the handshake's.
    pub(crate) fn new(rwnd: u64, mss: u64, sack: bool, now: Instant, rcv_nxt: u64, rtt: Option<Duration>) -> Self {
        let mss = mss.max(1);
        let window = initial_window(rwnd, mss);
        let clamp = rwnd.min(INIT_SPACE.saturating_sub(mss).max(2 * mss));
        Autotune {
            rwnd,
            mss,
            clamp,
            target: window.min(clamp),
            space: INIT_CWND * mss,
            mark_seq: rcv_nxt,
            mark_at: now,
            rtt: rtt.unwrap_or(NO_SAMPLE_RTT),
            right_edge: rcv_nxt + window,
            sack,
        }
    }

    /// A data segment arrived; `in_order` if it advanced `rcv_nxt` (now `rcv_nxt`).
    pub(crate) fn on_data(&mut self, now: Instant, rcv_nxt: u64, in_order: bool, ooo: OutOfOrder) {
        if in_order || self.sack {
            self.target = (self.target + 2 * self.mss).min(self.clamp); // tcp_grow_window
        }
        if in_order {
            self.measure(now, rcv_nxt, ooo);
        } else {
            self.grow(ooo); // tcp_data_queue_ofo
        }
    }

    /// `tcp_rcv_space_adjust`: once a receiver round trip, the bytes read since the mark.
    fn measure(&mut self, now: Instant, rcv_nxt: u64, ooo: OutOfOrder) {
        if now.saturating_since(self.mark_at) < self.rtt {
            return;
        }
        let copied = rcv_nxt - self.mark_seq;
        if copied > self.space {
            self.space = copied;
            self.grow(ooo);
        }
        self.mark_seq = rcv_nxt;
        self.mark_at = now;
    }

    /// `tcp_rcvbuf_grow`: room for twice the last round trip's data and the out-of-order span.
    fn grow(&mut self, ooo: OutOfOrder) {
        let want = (2 * self.space + ooo.span).min(self.rwnd);
        self.clamp = self.clamp.max(want);
    }

    /// The window an ACK of `rcv_nxt` offers (`tcp_select_window`).
    pub(crate) fn window(&mut self, rcv_nxt: u64, ooo: OutOfOrder) -> u64 {
        let free = self.clamp.saturating_sub(ooo.bytes).min(self.target);
        let offered = free / self.mss * self.mss;
        self.right_edge = self.right_edge.max(rcv_nxt + offered);
        self.right_edge - rcv_nxt
    }

    #[cfg(test)]
    pub(crate) fn clamp(&self) -> u64 {
        self.clamp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;
    const BIG: u64 = 16 << 20;

    fn at(ms: u64) -> Instant {
        Instant(ms * 1_000_000)
    }

    fn tuner() -> Autotune {
        Autotune::new(BIG, MSS, false, at(0), 1, Some(Duration(80_000_000)))
    }

    #[test]
    fn the_handshake_offers_tcp_rmem1s_share_rounded_to_the_mss() {
        // tcp_select_initial_window: 131 072 / 2 = 65 536 → 45 segments of 1448 = 65 160
        // (the 65 160 bytes the ss trace shows at the start).
        assert_eq!(initial_window(BIG, MSS), 65_160);
        assert_eq!(initial_window(20_000, MSS), 20_000);
        let mut t = tuner();
        // tcp_init_buffer_space holds one segment back: clamp 65 536 − 1448.
        assert_eq!(t.window(1, OutOfOrder::default()), 65_160);
        assert_eq!(t.clamp(), 64_088);
    }

    #[test]
    fn space_grows_to_twice_the_data_read_in_a_round_trip() {
        let mut t = tuner();
        let none = OutOfOrder::default();
        // First round trip: 10 segments read = the initial space: no growth.
        t.on_data(at(80), 1 + 10 * MSS, true, none);
        assert_eq!(t.clamp(), 64_088);
        // Second: 40 segments read in 80 ms > 10: clamp = 2 · 40 segments.
        t.on_data(at(160), 1 + 50 * MSS, true, none);
        assert_eq!(t.clamp(), 80 * MSS);
        // Within the round trip nothing is measured.
        t.on_data(at(200), 1 + 500 * MSS, true, none);
        assert_eq!(t.clamp(), 80 * MSS);
    }

    #[test]
    fn the_target_grows_two_segments_per_in_order_segment_up_to_the_clamp() {
        let mut t = tuner();
        let none = OutOfOrder::default();
        // target = min(65 160, 64 088); a segment's + 2·1448 is capped at the clamp.
        t.on_data(at(1), 1 + MSS, true, none);
        assert_eq!(t.window(1 + MSS, none), 64_088 / MSS * MSS);
        // The clamp grows to 80 segments (above: the segment that measures grows the
        // target first, still under the old clamp); four more within the round trip:
        // target 64 088 + 4 · 2 · 1448 = 75 672, offered in whole segments.
        t.on_data(at(80), 1 + 10 * MSS, true, none);
        t.on_data(at(160), 1 + 50 * MSS, true, none);
        assert_eq!(t.clamp(), 80 * MSS);
        for k in 1..=4 {
            t.on_data(at(161), 1 + (50 + k) * MSS, true, none);
        }
        let target = 64_088 + 4 * 2 * MSS;
        assert_eq!(t.window(1 + 54 * MSS, none), target / MSS * MSS);
        for k in 5..=40 {
            t.on_data(at(162), 1 + (50 + k) * MSS, true, none);
        }
        assert_eq!(t.window(1 + 90 * MSS, none), 80 * MSS);
    }

    #[test]
    fn out_of_order_data_grows_the_clamp_by_its_span_but_not_the_free_space() {
        let mut t = tuner();
        let none = OutOfOrder::default();
        t.on_data(at(160), 1 + 200 * MSS, true, none); // space 200 segments, clamp 400
        for _ in 0..400 {
            t.on_data(at(161), 1 + 200 * MSS, true, none); // target up to the clamp
        }
        let w = t.window(1 + 200 * MSS, none);
        assert_eq!(w, 400 * MSS);
        // A hole of one segment, then 300 segments above it: clamp 2·200 + 301.
        let ooo = OutOfOrder { span: 301 * MSS, bytes: 300 * MSS };
        t.on_data(at(170), 1 + 200 * MSS, false, ooo);
        assert_eq!(t.clamp(), 701 * MSS);
        // Free = 701 − 300 = 401 segments, but the target (no SACK) stays 400:
        // the right edge does not move past rcv_nxt + 400 segments.
        assert_eq!(t.window(1 + 200 * MSS, ooo), 400 * MSS);
    }

    #[test]
    fn the_right_edge_never_moves_left() {
        let mut t = tuner();
        let w = t.window(1, OutOfOrder::default());
        // Out-of-order data fills the buffer: free space falls, the edge stays.
        let ooo = OutOfOrder { span: 40 * MSS, bytes: 40 * MSS };
        assert_eq!(t.window(1, ooo), w);
    }

    #[test]
    fn the_cap_is_rwnd() {
        let mut t = Autotune::new(100 * MSS, MSS, false, at(0), 1, Some(Duration(10_000_000)));
        t.on_data(at(20), 1 + 1000 * MSS, true, OutOfOrder::default());
        assert_eq!(t.clamp(), 100 * MSS);
    }
}

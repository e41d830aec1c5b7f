//! Linux's segmentation offload bursts (`TcpConfig::tso = Linux`): how many
//! segments a Linux sender hands to the device at once, and when it holds back
//! a send to make that burst whole. Off (`None`, the RFC model): every segment
//! goes as soon as the window has room for it, which with delayed ACKs means
//! bursts of two.
//!
//! Linux hands the device chunks of up to `max_segs` segments, each one TSO/GSO
//! burst that leaves back to back at the device's rate (measured through
//! ecnlab's router, 50 Mbit/s, 20 ms, one DCTCP flow: bursts of 3.65 segments on
//! average, up to 26, against the RFC model's 1.81; docs/emulation.md's DCTCP
//! grid sets both beside Linux).
//!
//! Burst size (`tcp_tso_autosize`, `tcp_update_pacing_rate`; Linux ≥ 5.18):
//!
//! ```text
//! rate     = ratio/100 · max(cwnd, in flight) / srtt     bytes/s; ratio 200 while
//!            cwnd < ssthresh/2, else 120 (tcp_pacing_ss_ratio, tcp_pacing_ca_ratio)
//! bytes    = rate >> 10                                  (sk_pacing_shift 10: ~1 ms)
//!          + 65536 >> (min_rtt_us >> 9)                  (tcp_tso_rtt_log 9; 0 from 16.4 ms)
//! max_segs = max(min(bytes, 65536) / mss, 2)             (gso_max_size, tcp_min_tso_segs)
//! ```
//!
//! Before the first RTT sample Linux has no rate (`~0`) and the burst is the
//! 64 KB maximum.
//!
//! The send queue (`tcp_sendmsg`, `tcp_xmit_size_goal`): the application's data
//! sits in buffers of the size goal, 64 KB bounded to half the peer's largest
//! window (`tcp_bound_to_half_wnd`), in whole segments. `tcp_write_xmit` sends
//! from the head buffer chunks of min(cwnd quota, `max_segs`) segments, each a
//! burst (`tcp_mss_split_point`, `tso_fragment`; the quota is min(cwnd − in
//! flight, cwnd/2), `tcp_cwnd_test`), and asks before each chunk whether to hold
//! the head buffer instead (`tcp_tso_should_defer`, "a kind of TSO Nagle test").
//! Send now if any of:
//!
//! | rule | Linux |
//! |---|---|
//! | in Recovery or Loss | `icsk_ca_state >= TCP_CA_Recovery` |
//! | the last send was more than 1 ms ago | `tcp_wstamp_ns` + `NSEC_PER_MSEC` |
//! | limit = min(rwnd room, cwnd room) ≥ max_segs · mss | "a full-sized TSO skb can be sent" |
//! | the buffer is not the queue's last and limit ≥ its length | "middle in queue won't get any more data" |
//! | limit ≥ min(rwnd, cwnd) / 3 | `tcp_tso_win_divisor` 3 |
//! | the next ACK, expected srtt after the oldest unacknowledged segment left, is more than min(srtt/2, 1 ms) away | "If next ACK is likely to come too late, ie in more than min(1ms, half srtt), do not defer" (Linux 6.18, "tcp: fix tcp_tso_should_defer() vs large RTT"; before it: that segment left less than srtt/2 ago) |
//! | the buffer is the last, its room (cwnd's or rwnd's, the smaller) exceeds its length, and it carries the FIN | "this packet won't get more data" |
//!
//! else hold it until an ACK. So within one ACK's sending, once a chunk has left
//! (the last send is now), a remainder of room smaller than `max_segs` waits for
//! the next ACK only when that ACK is due within 1 ms (ACKs less than 1 ms apart,
//! as at 50 Mbit/s); at 10 Mbit/s, ACKs 1.2 ms or more apart, the odd segment goes.
//!
//! Approximations: the oldest unacknowledged segment's send time is the oldest
//! one the sender still holds (`Sender::sent_times`, emptied by a retransmission,
//! Karn), so after a retransmission it is a later one; `min_rtt` is the least
//! sample of the connection (Linux's is a 300 s window); the peer's largest window
//! is its current one.
//!
//! **With pacing** (`pacing = true`, BBR): Linux paces whole chunks
//! (`tcp_write_xmit` checks `tcp_pacing_check` once per buffer, and
//! `tcp_update_skb_after_send` moves the next departure by the buffer's length
//! over the rate), so a chunk leaves back to back and the next waits for the
//! pacing release after all of it. The chunk is `tcp_tso_autosize` of the pacing
//! rate the sender uses (the congestion control's own, e.g. BBR's, or ratio ·
//! max(cwnd, in flight) / srtt), at least the congestion control's
//! `min_tso_segs` (BBR: 1 below 1.2 Mbit/s, else 2; others
//! `tcp_min_tso_segs`). Not modelled with pacing: the hold (a paced sender's
//! room is rarely below a chunk; BBR's cwnd is twice its BDP), Prague's own
//! burst sizing (`prague_tso_segs`), and the credit of late departures
//! (`tcp_update_skb_after_send` takes up to half a gap back).

use crate::cc::CongestionControl;
use crate::config::{TcpConfig, Tso};
use crate::send::{FinState, Sender, Tx};
use crate::window::{Phase, Window};
use ecnlab_wire::{Duration, Instant};

/// Linux's `sk_gso_max_size` default (`GSO_LEGACY_MAX_SIZE`), bytes.
pub(crate) const GSO_MAX_BYTES: u64 = 65_536;
/// `tcp_min_tso_segs`.
pub(crate) const MIN_TSO_SEGS: u32 = 2;
/// `tcp_tso_win_divisor`.
const WIN_DIVISOR: u64 = 3;
/// How recent the last send must be for a hold (`tcp_tso_should_defer`).
const RECENT: Duration = Duration(1_000_000);
/// How soon the next ACK must be due for a hold, at most (`tcp_tso_should_defer`: `NSEC_PER_MSEC`).
const ACK_SOON: Duration = Duration(1_000_000);

/// `tcp_tso_autosize`: the segments of one burst from the window's pacing rate (module doc).
pub(crate) fn max_segs(
    cwnd: u64,
    in_flight: u64,
    ssthresh: u64,
    srtt: Option<Duration>,
    min_rtt: Option<Duration>,
    mss: u32,
    (ss_ratio, ca_ratio): (u32, u32),
) -> u32 {
    let rate = match srtt.filter(|d| d.0 > 0) {
        None => u64::MAX, // no rate yet: ~0, capped below
        Some(srtt) => {
            let ratio = crate::pacing::ratio(cwnd, ssthresh, ss_ratio, ca_ratio);
            let rate = u128::from(cwnd.max(in_flight)) * u128::from(ratio) * 1_000_000_000 / (100 * u128::from(srtt.0));
            u64::try_from(rate).unwrap_or(u64::MAX)
        }
    };
    autosize(rate, min_rtt, mss, MIN_TSO_SEGS)
}

/// `tcp_tso_autosize` of a pacing rate (bytes per second): a 1/1024 s of it plus
/// the min_rtt bonus, at most 64 KB, in segments, at least `min_tso`.
pub(crate) fn autosize(rate: u64, min_rtt: Option<Duration>, mss: u32, min_tso: u32) -> u32 {
    let mss = u64::from(mss.max(1));
    let r = min_rtt.map_or(0, |d| (d.0 / 1_000) >> 9);
    let bonus = if r < 32 { GSO_MAX_BYTES >> r } else { 0 };
    let bytes = (rate >> 10).saturating_add(bonus).min(GSO_MAX_BYTES);
    u32::try_from(bytes / mss).unwrap_or(u32::MAX).max(min_tso)
}

/// A connection's send queue with `tso = linux` (module doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TsoState {
    /// Segments left in the buffer at the head of the send queue (0: the next one).
    buffer: u32,
    /// Segments left of the chunk leaving now.
    chunk: u32,
    min_rtt: Option<Duration>,
    ss_ratio: u32,
    ca_ratio: u32,
    /// Paced chunks (module doc, "With pacing"): no hold.
    paced: bool,
}

impl TsoState {
    /// Whether `cfg` sends in Linux's buffers.
    pub(crate) fn on(cfg: &TcpConfig) -> bool {
        cfg.tso == Tso::Linux
    }

    /// Whether `cfg` holds buffers for an ACK (`tcp_tso_should_defer`: not modelled with pacing).
    pub(crate) fn holds(cfg: &TcpConfig) -> bool {
        cfg.tso == Tso::Linux && !cfg.pacing
    }

    pub(crate) fn new(cfg: &TcpConfig) -> Self {
        let (ss_ratio, ca_ratio, paced) = (cfg.pacing_ss_ratio, cfg.pacing_ca_ratio, cfg.pacing);
        TsoState { buffer: 0, chunk: 0, min_rtt: None, ss_ratio, ca_ratio, paced }
    }

    /// Whatever comes next starts a chunk of its own (after an idle period).
    pub(crate) fn end_chunk(&mut self) {
        self.chunk = 0;
    }

    pub(crate) fn on_rtt(&mut self, rtt: Option<Duration>) {
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
    }

    /// `max_segs` for this window (module doc).
    pub(crate) fn max_segs_now(&self, win: &Window, in_flight: u64, srtt: Option<Duration>) -> u32 {
        let (cwnd, ssthresh) = (u64::from(win.cwnd), u64::from(win.ssthresh));
        let ratios = (self.ss_ratio, self.ca_ratio);
        max_segs(cwnd, in_flight, ssthresh, srtt, self.min_rtt, win.mss, ratios)
    }
}

/// The size goal in segments: 64 KB bounded to half the peer's window (module doc).
fn size_goal(rwnd: u64, mss: u64) -> u32 {
    let bytes = GSO_MAX_BYTES.min((rwnd / 2).max(mss));
    u32::try_from(bytes / mss).unwrap_or(u32::MAX).max(1)
}

impl Sender {
    /// The segments that count against cwnd, as `next_tx` counts them.
    fn tso_in_flight(&self) -> u64 {
        if self.counts_reno_sacks() {
            self.reno_pipe()
        } else if self.use_sack {
            self.sb.pipe(&self.space())
        } else {
            self.nxt - self.una
        }
    }

    /// With `tso = linux`: whether `tx`, the next segment, waits (`tcp_tso_should_defer`).
    pub(crate) fn tso_holds(&self, now: Instant, tx: &Tx) -> bool {
        let Some(t) = self.tso.as_ref() else { return false };
        if t.paced || tx.retransmit || tx.len == 0 || tx.seq != self.nxt {
            return false;
        }
        if t.chunk > 0 && self.last_data_sent == Some(now) {
            return false; // the rest of the chunk that is leaving now
        }
        let in_flight = self.tso_in_flight();
        let mss = u64::from(self.win.mss.max(1));
        let (cwnd, rwnd) = (u64::from(self.win.cwnd), u64::from(self.peer_rwnd));
        let full = u64::from(t.max_segs_now(&self.win, in_flight, self.rtt.srtt())) * mss;
        let buffer = if t.buffer > 0 { t.buffer } else { size_goal(rwnd, mss) };
        let rest = self.data_end() - self.nxt;
        let len = (u64::from(buffer) * mss).min(rest);
        let h = Head {
            now,
            recovering: matches!(self.win.phase, Phase::Recovery { .. } | Phase::Loss { .. }),
            last_sent: self.last_data_sent,
            len,
            full,
            cwnd_room: cwnd.saturating_sub(in_flight),
            rwnd_room: (self.una + rwnd).saturating_sub(self.nxt),
            cwnd,
            rwnd,
            tail: rest <= len,
            fin: rest <= len && self.fin == FinState::Queued,
            oldest_sent: self.sent_times.as_ref().and_then(|q| q.front()).map(|&(_, at)| at),
            srtt: self.rtt.srtt(),
        };
        should_defer(&h)
    }

    /// Whether the next new segment belongs to the chunk leaving now (paced
    /// senders skip the pacing release for it: module doc, "With pacing").
    pub(crate) fn tso_chunk_continues(&self, now: Instant) -> bool {
        self.tso.as_ref().is_some_and(|t| t.chunk > 0) && self.last_data_sent == Some(now)
    }

    /// With `tso = linux`, before `tx` (new data) moves `nxt`: a chunk of
    /// min(quota, max_segs) segments starts with it or it continues one.
    pub(crate) fn tso_on_sent(&mut self, now: Instant, tx: &Tx) {
        if self.tso.is_none() || tx.retransmit || tx.len == 0 {
            return;
        }
        let continues = self.last_data_sent == Some(now);
        let in_flight = self.tso_in_flight();
        let mss = u64::from(self.win.mss.max(1));
        let cwnd = u64::from(self.win.cwnd);
        let srtt = self.rtt.srtt();
        let rwnd = u64::from(self.peer_rwnd);
        let own_rate = self.cc.pacing_rate(now).map(|r| (r, self.cc.min_tso_segs()));
        let Some(t) = self.tso.as_mut() else { return };
        if t.buffer == 0 {
            t.buffer = size_goal(rwnd, mss);
        }
        if t.chunk == 0 || !continues {
            let quota = (cwnd.saturating_sub(in_flight) / mss).min((cwnd / mss / 2).max(1)).max(1);
            let max = match own_rate {
                Some((rate, min_tso)) if t.paced => autosize(rate, t.min_rtt, self.win.mss, min_tso),
                _ => t.max_segs_now(&self.win, in_flight, srtt),
            };
            let max = u64::from(max);
            t.chunk = u32::try_from(quota.min(max)).unwrap_or(u32::MAX).min(t.buffer);
        }
        t.chunk -= 1;
        t.buffer -= 1;
    }
}

/// What `tcp_tso_should_defer` is asked about one buffer (module doc); bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head {
    pub(crate) now: Instant,
    /// In Recovery or Loss.
    pub(crate) recovering: bool,
    pub(crate) last_sent: Option<Instant>,
    /// The buffer's remaining length, and one burst's (`max_segs`·mss).
    pub(crate) len: u64,
    pub(crate) full: u64,
    /// Room in cwnd and in the peer's window; the two windows.
    pub(crate) cwnd_room: u64,
    pub(crate) rwnd_room: u64,
    pub(crate) cwnd: u64,
    pub(crate) rwnd: u64,
    /// The last buffer of the queue (the application's data ends in it), or the FIN goes with it.
    pub(crate) tail: bool,
    pub(crate) fin: bool,
    pub(crate) oldest_sent: Option<Instant>,
    pub(crate) srtt: Option<Duration>,
}

/// `tcp_tso_should_defer`: whether the buffer waits for the next ACK (module doc).
pub(crate) fn should_defer(h: &Head) -> bool {
    if h.recovering {
        return false;
    }
    match h.last_sent {
        Some(t) if h.now - t <= RECENT => {}
        _ => return false,
    }
    let limit = h.cwnd_room.min(h.rwnd_room);
    if limit >= h.full || (!h.tail && limit >= h.len) || limit >= h.cwnd.min(h.rwnd) / WIN_DIVISOR {
        return false;
    }
    let (Some(oldest), Some(srtt)) = (h.oldest_sent, h.srtt) else { return false };
    let expected_ack = oldest + srtt;
    if expected_ack > h.now && expected_ack - h.now > Duration(srtt.0 / 2).min(ACK_SOON) {
        return false; // the next ACK is too far to wait for
    }
    if h.cwnd_room.min(h.rwnd_room) <= h.len {
        return true; // cwnd- or rwnd-limited: wait for the ACK that makes room
    }
    !h.fin
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const LINUX: (u32, u32) = (200, 120); // tcp_pacing_ss_ratio, tcp_pacing_ca_ratio

    #[test]
    fn burst_size_is_a_millisecond_of_the_pacing_rate() {
        // 50 Mbit/s, 20 ms: cwnd 104 segments of 1448 at srtt 24.8 ms in avoidance
        // (the emulated point of the module doc): rate = 1.2 · 150 592 / 0.0248 =
        // 7.29 MB/s, >> 10 = 7 115 bytes, 4 segments (Linux measured 3.65 on average).
        let (mss, cwnd) = (1448, 104 * 1448);
        let srtt = Some(Duration(24_800_000));
        assert_eq!(max_segs(cwnd, cwnd, cwnd / 2, srtt, Some(Duration(20 * MS)), mss, LINUX), 4);
        // 10 Mbit/s: 1.4 KB a millisecond, tcp_min_tso_segs' 2.
        assert_eq!(max_segs(36 * 1448, 36 * 1448, 0, Some(Duration(44 * MS)), Some(Duration(40 * MS)), mss, LINUX), 2);
        // Slow start (cwnd < ssthresh/2) at 200 %: 11 859 bytes, 8 segments.
        assert_eq!(max_segs(cwnd, cwnd, 4 * cwnd, srtt, Some(Duration(20 * MS)), mss, LINUX), 8);
        // No RTT sample yet: the 64 KB maximum, 45 segments of 1448.
        assert_eq!(max_segs(10 * 1448, 0, u64::MAX, None, None, mss, LINUX), 45);
    }

    #[test]
    fn short_paths_get_the_min_rtt_bonus() {
        // tcp_tso_rtt_log 9: 65536 >> (min_rtt_us >> 9). 100 us: the whole 64 KB;
        // 1 ms: 32 KB more; from 16.384 ms none.
        let (srtt, mss) = (Some(Duration(MS)), 1448);
        let small = 20 * 1448; // 20 segments at 1 ms: 34.7 MB/s, 33.9 KB per 1/1024 s
        assert_eq!(max_segs(small, small, 0, srtt, Some(Duration(100_000)), mss, LINUX), 45);
        assert_eq!(max_segs(small, small, 0, srtt, Some(Duration(MS)), mss, LINUX), 45); // 33.9 + 32 KB, capped
        assert_eq!(max_segs(small, small, 0, srtt, Some(Duration(17 * MS)), mss, LINUX), 23);
        // A small window: 169 bytes of rate; 2 ms of min_rtt adds 65536 >> 3, 5 segments.
        assert_eq!(max_segs(2 * 1448, 2 * 1448, 0, Some(Duration(20 * MS)), Some(Duration(2 * MS)), mss, LINUX), 5);
        assert_eq!(max_segs(2 * 1448, 2 * 1448, 0, Some(Duration(20 * MS)), Some(Duration(20 * MS)), mss, LINUX), 2);
    }

    #[test]
    fn a_paced_chunk_is_a_millisecond_of_the_congestion_controls_rate() {
        // tcp_tso_autosize(sk, mss, min_tso) of sk_pacing_rate as BBR sets it, min_rtt 20 ms
        // (no bonus). 10 Mbit/s: 1.22 KB per 1/1024 s, under a segment: bbr_min_tso_segs' 2.
        let (mss, rtt) = (1448, Some(Duration(20 * MS)));
        assert_eq!(autosize(1_250_000, rtt, mss, 2), 2);
        // 50 Mbit/s: 6.1 KB, 4 segments; 100 Mbit/s: 12.2 KB, 8.
        assert_eq!(autosize(6_250_000, rtt, mss, 2), 4);
        assert_eq!(autosize(12_500_000, rtt, mss, 2), 8);
        // 10 Gbit/s: the 64 KB maximum, 45 segments.
        assert_eq!(autosize(1_250_000_000, rtt, mss, 2), 45);
        // Below 1.2 Mbit/s BBR's min_tso_segs is 1: single segments.
        assert_eq!(autosize(100_000, rtt, mss, 1), 1);
    }

    fn held() -> Head {
        // Avoidance at 100 segments, the last send 0.5 ms ago, an ACK freed 2 of a 4-segment buffer.
        Head {
            now: Instant(100 * MS),
            recovering: false,
            last_sent: Some(Instant(100 * MS - MS / 2)),
            len: 4 * 1448,
            full: 4 * 1448,
            cwnd_room: 2 * 1448,
            rwnd_room: 1 << 30,
            cwnd: 100 * 1448,
            rwnd: 1 << 30,
            tail: false,
            fin: false,
            oldest_sent: Some(Instant(75 * MS)),
            srtt: Some(Duration(25 * MS)),
        }
    }

    #[test]
    fn a_buffer_the_window_would_split_waits_for_the_next_ack() {
        assert!(should_defer(&held()));
        // Room for the whole rest of a middle buffer: it goes.
        assert!(!should_defer(&Head { cwnd_room: 4 * 1448, ..held() }));
        // The last write more than 1 ms ago: "avoid bursty behavior".
        assert!(!should_defer(&Head { last_sent: Some(Instant(100 * MS - MS - 1)), ..held() }));
        // A third of the window free: tcp_tso_win_divisor.
        assert!(!should_defer(&Head { cwnd: 6 * 1448, ..held() }));
        // The next ACK (srtt after the oldest segment in flight left) due in more than 1 ms: it goes.
        assert!(!should_defer(&Head { oldest_sent: Some(Instant(90 * MS)), ..held() }));
        assert!(!should_defer(&Head { oldest_sent: Some(Instant(80 * MS)), ..held() }));
        // Due within 1 ms (here 0.5 ms), or overdue: it waits.
        assert!(should_defer(&Head { oldest_sent: Some(Instant(75 * MS + MS / 2)), ..held() }));
        assert!(should_defer(&Head { oldest_sent: Some(Instant(70 * MS)), ..held() }));
        // Never in Recovery or Loss.
        assert!(!should_defer(&Head { recovering: true, ..held() }));
        // The last buffer: the room is still ≤ its length, so it waits as Linux's does.
        assert!(should_defer(&Head { tail: true, ..held() }));
        // The last buffer with more room than its length waits for more data unless it carries the FIN.
        assert!(should_defer(&Head { tail: true, len: 1448, full: 4 * 1448, ..held() }));
        assert!(!should_defer(&Head { tail: true, fin: true, len: 1448, ..held() }));
    }
}

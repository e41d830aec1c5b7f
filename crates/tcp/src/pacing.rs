//! Pacing (`TcpConfig::pacing`): data segments leave no faster than a rate
//! derived from the window, instead of in bursts as ACKs free the window.
//!
//! Rate, as Linux's `tcp_update_pacing_rate` sets `sk_pacing_rate` (used by
//! its internal pacing, `tcp_internal_pacing`, and by the fq qdisc):
//!
//! ```text
//! rate = ratio/100 · cwnd / srtt            bytes per second
//! ratio = pacing_ss_ratio (Linux default 200) while cwnd < ssthresh/2 (slow start
//!         that will double the window), else pacing_ca_ratio (default 120)
//! ```
//!
//! After a data segment (first transmission or retransmission) of `len`
//! payload bytes leaves at `t`, the next may leave at `t + len / rate`: Linux
//! moves the next departure by the length of the headerless write-queue buffer
//! (`tcp_update_skb_after_send`: "skb->len * NSEC_PER_SEC / rate"), and the rate
//! counts payload (`mss_cache`), so a flow paced at a link's payload rate fills
//! it. Pure ACKs are
//! not paced. Before the first RTT sample there is no rate and nothing is
//! paced (Linux divides by srtt only once it has one). The TCP Prague
//! reference paces at 100 % in congestion avoidance and 200 % in slow start:
//! `pacing_ca_ratio = 100`.
//!
//! Sans-IO: the connection reports the release time in `poll_at` while data
//! waits for it, and `poll_transmit` sends nothing new before it; the host
//! wakes the connection on its own clock.

use ecnlab_wire::{Duration, Instant};

/// The ratio (percent) of `tcp_update_pacing_rate`: the slow-start one while
/// cwnd < ssthresh/2, else the congestion-avoidance one (module doc). Also the
/// rate `tso.rs` sizes Linux's bursts by.
pub(crate) fn ratio(cwnd: u64, ssthresh: u64, ss_ratio: u32, ca_ratio: u32) -> u32 {
    if cwnd < ssthresh / 2 {
        ss_ratio
    } else {
        ca_ratio
    }
}

/// When the segment after one of `len` payload bytes sent at `now` may leave, or
/// `None` (no pacing) without an RTT sample or a window.
pub(crate) fn next_release(
    now: Instant,
    len: u32,
    cwnd: u32,
    ssthresh: u32,
    srtt: Option<Duration>,
    ss_ratio: u32,
    ca_ratio: u32,
) -> Option<Instant> {
    let srtt = srtt.filter(|d| d.0 > 0)?;
    if cwnd == 0 {
        return None;
    }
    let ratio = ratio(u64::from(cwnd), u64::from(ssthresh), ss_ratio, ca_ratio);
    // gap = len / (ratio/100 · cwnd / srtt) = len · srtt · 100 / (ratio · cwnd), in ns.
    let gap = u128::from(len) * u128::from(srtt.0) * 100 / (u128::from(ratio.max(1)) * u128::from(cwnd));
    Some(now + Duration(u64::try_from(gap).unwrap_or(u64::MAX)))
}

/// When the segment after one of `len` payload bytes sent at `now` may leave at a rate
/// the congestion control sets itself (`CongestionControl::pacing_rate`), bytes/s.
pub(crate) fn release_at_rate(now: Instant, len: u32, rate: u64) -> Instant {
    let gap = u128::from(len) * 1_000_000_000 / u128::from(rate.max(1));
    now + Duration(u64::try_from(gap).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gap_is_the_segment_at_the_window_rate() {
        let srtt = Some(Duration(100_000_000)); // 100 ms
                                                // cwnd 100 000 bytes, congestion avoidance at 120 %: 1.2 MB/s; 1 500 bytes take 1.25 ms.
        let t = next_release(Instant(0), 1500, 100_000, 50_000, srtt, 200, 120).unwrap();
        assert_eq!(t, Instant(1_250_000));
        // Slow start (cwnd < ssthresh / 2) at 200 %: 2 MB/s, 0.75 ms.
        let t = next_release(Instant(0), 1500, 100_000, 1_000_000, srtt, 200, 120).unwrap();
        assert_eq!(t, Instant(750_000));
        // Prague's 100 %: exactly one window per RTT.
        let t = next_release(Instant(10), 1000, 10_000, 0, srtt, 200, 100).unwrap();
        assert_eq!(t, Instant(10 + 10_000_000));
    }

    #[test]
    fn nothing_is_paced_without_an_rtt_sample() {
        assert_eq!(next_release(Instant(0), 1500, 10_000, 0, None, 200, 120), None);
        assert_eq!(next_release(Instant(0), 1500, 10_000, 0, Some(Duration(0)), 200, 120), None);
    }
}

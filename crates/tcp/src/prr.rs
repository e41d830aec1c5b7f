//! Proportional Rate Reduction (RFC 6937), as Linux runs it (`tcp_cwnd_reduction`).
//!
//! During a window reduction — a SACK fast recovery, a NewReno one with
//! `dupacks_as_sacks`, or the CWR phase after an ECN-Echo — cwnd does not drop
//! to ssthresh at once. On every ACK:
//!
//! ```text
//! prr_delivered += DeliveredData          (bytes newly cumulatively ACKed or SACKed)
//! if pipe > ssthresh:                     (proportional part)
//!     sndcnt = ⌈prr_delivered · ssthresh / prior_cwnd⌉ − prr_out
//! else:                                   (slow-start reduction bound, PRR-SSRB)
//!     sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + SMSS·grow)
//! sndcnt = max(sndcnt, 0), and at least one SMSS before anything was sent
//! cwnd   = pipe + sndcnt
//! ```
//!
//! and `prr_out` counts every byte sent during the reduction. When it ends,
//! cwnd = ssthresh (`tcp_end_cwnd_reduction`).
//!
//! | quantity | RFC 6937 §3 | here (Linux) |
//! |---|---|---|
//! | divisor | RecoverFS = snd.nxt − snd.una at entry | `prior_cwnd`, cwnd at entry (`tp->prior_cwnd`) |
//! | pipe | RFC 6675 pipe | the scoreboard's pipe with SACK; without it, with `dupacks_as_sacks`, snd.nxt − snd.una less the segments duplicate ACKs counted as SACKed and the segment marked lost and not yet resent; else snd.max − snd.una (`tcp_packets_in_flight`) |
//! | DeliveredData without SACK | estimated from duplicate ACKs (one SMSS each) and the advance of snd.una less what they counted | the same with `dupacks_as_sacks` (`tcp_add_reno_sack`, `tcp_remove_reno_sacks`: at least one segment per cumulative ACK) |
//! | grow (the SSRB's + SMSS) | always (PRR-SSRB) | only on an ACK that advanced snd.una and marked no new loss (`FLAG_SND_UNA_ADVANCED && !newly_lost`): without SACK, in CWR; a partial ACK marks the next segment lost. The SACK path here adds it on every ACK, as before |
//! | first ACK | — | `sndcnt ≥ 1` segment while `prr_out` is 0 ("force a fast retransmit upon entering fast recovery") |
//! | units | bytes (`prr_delivered`, `prr_out`, `sndcnt`, `RecoverFS`) | whole segments, as Linux counts packets (`prr_delivered`, `prr_out`, `snd_ssthresh`, `prior_cwnd`, `tcp_packets_in_flight`): the ceiling rounds up to a whole segment where bytes leave a fraction of one unsendable |
//!
//! Units: the state is kept in bytes; [`Prr::on_ack`] computes in whole segments
//! of `mss` (delivered bytes ÷ mss rounded down, bytes sent and pipe rounded up,
//! ssthresh and prior cwnd rounded down) and returns cwnd in bytes. Where bytes
//! and segments part: prior cwnd 20, ssthresh 14 segments, one segment delivered
//! per ACK — Linux sends ⌈0.7·k⌉ segments after k ACKs (1, 2, 3, 3, 4 …), RFC
//! 6937's bytes ⌊0.7·k⌋ after the first (1, 1, 2, 2, 3 …), so behind an ECN-Echo
//! the bytes version holds back up to a segment for the whole reduction.
//! (Measured against Linux 6.18 through the emulator, FQ-CoDel 10 Mbit/s, 80 ms,
//! four CUBIC flows: in the first 20 ms after the ECN-Echo Linux sent 0.77
//! segments per segment delivered, bytes 0.63, whole segments 0.80.)

/// One reduction in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Prr {
    /// cwnd when the reduction started (the proportion's divisor).
    prior_cwnd: u64,
    /// Bytes delivered to the receiver since it started (cumulative + SACKed).
    delivered: u64,
    /// Bytes sent since it started.
    out: u64,
}

impl Prr {
    pub(crate) fn new(prior_cwnd: u32) -> Self {
        Prr { prior_cwnd: u64::from(prior_cwnd).max(1), delivered: 0, out: 0 }
    }

    /// Bytes handed to the network during the reduction.
    pub(crate) fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// An ACK that delivered `delivered` bytes: the new cwnd, given `pipe` and
    /// `ssthresh`. `ssrb_grows`: below ssthresh the ACK may send one segment
    /// more than was delivered (PRR-SSRB); without it as much as was delivered
    /// (packet conservation). Linux grows only on an ACK that advanced snd_una
    /// and marked no new loss (`tcp_cwnd_reduction`: `FLAG_SND_UNA_ADVANCED &&
    /// !newly_lost`).
    pub(crate) fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, ssrb_grows: bool) -> u64 {
        self.delivered += delivered;
        let mss = mss.max(1);
        // Whole segments, as tcp_cwnd_reduction counts them (the header's table).
        let (prr_delivered, prr_out) = (self.delivered / mss, self.out.div_ceil(mss));
        let (in_flight, ssthresh) = (pipe.div_ceil(mss), ssthresh / mss);
        let sndcnt = if in_flight > ssthresh {
            let prior_cwnd = (self.prior_cwnd / mss).max(1);
            (prr_delivered * ssthresh).div_ceil(prior_cwnd).saturating_sub(prr_out)
        } else {
            let grow = u64::from(ssrb_grows);
            let limit = prr_delivered.saturating_sub(prr_out).max(delivered / mss) + grow;
            (ssthresh - in_flight).min(limit)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(1) } else { sndcnt };
        pipe + sndcnt * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §5's example: cwnd 20 segments, one loss, ssthresh 10: while
    /// pipe exceeds ssthresh, one segment is sent for every two delivered.
    #[test]
    fn test_proportional_part_sends_half_of_what_is_delivered() {
        let mut p = Prr::new(20 * MSS as u32);
        let mut sent = 0;
        for k in 1..=10u64 {
            let pipe = 19 * MSS - k * MSS + sent; // 19 in flight after the loss; each ACK takes one out
            let cwnd = p.on_ack(MSS, pipe, 10 * MSS, MSS, true);
            let n = cwnd.saturating_sub(pipe);
            p.on_sent(n);
            sent += n;
        }
        assert_eq!(sent, 5 * MSS, "ten delivered, five sent");
    }

    /// PRR-SSRB: with pipe below ssthresh, sending may exceed what was
    /// delivered by one segment per ACK (slow-start-like), up to ssthresh.
    #[test]
    fn test_ssrb_grows_towards_ssthresh_by_one_segment_per_ack() {
        let mut p = Prr::new(20 * MSS as u32);
        p.on_sent(MSS); // the fast retransmit
        assert_eq!(p.on_ack(MSS, 2 * MSS, 10 * MSS, MSS, true), 2 * MSS + MSS + MSS);
        assert_eq!(p.on_ack(0, 9 * MSS, 10 * MSS, MSS, true), 10 * MSS, "never above ssthresh");
        // Nine and a half segments in flight are ten packets (`tcp_packets_in_flight`):
        // at ssthresh, nothing more to send.
        assert_eq!(p.on_ack(0, 9 * MSS + 500, 10 * MSS, MSS, true), 9 * MSS + 500);
    }

    /// Linux `tcp_cwnd_reduction`: an ACK that did not advance snd_una (or
    /// marked a new loss) sends no more than was delivered, even below ssthresh.
    #[test]
    fn test_ssrb_without_growth_sends_what_was_delivered() {
        let mut p = Prr::new(20 * MSS as u32);
        p.on_sent(MSS); // the fast retransmit
        assert_eq!(p.on_ack(MSS, 2 * MSS, 10 * MSS, MSS, false), 2 * MSS + MSS);
        p.on_sent(MSS);
        assert_eq!(p.on_ack(MSS, 2 * MSS, 10 * MSS, MSS, false), 2 * MSS + MSS, "one delivered, one sent");
        assert_eq!(p.on_ack(MSS, 2 * MSS, 10 * MSS, MSS, true), 2 * MSS + 2 * MSS, "with growth: one more");
    }

    /// Linux `tcp_cwnd_reduction` counts packets: `sndcnt = div_u64(snd_ssthresh ·
    /// prr_delivered + prior_cwnd − 1, prior_cwnd) − prr_out`. Prior cwnd 20, ssthresh 14
    /// (CUBIC's 0.7), one segment delivered per ACK, pipe above ssthresh throughout: after k
    /// ACKs ⌈0.7·k⌉ segments were sent (RFC 6937's bytes would leave 0.7·k less a fraction
    /// unsendable: 1, 1, 2, 2, 3, 4, 4, 5).
    #[test]
    fn test_proportional_part_rounds_up_to_whole_segments_as_linux_counts_packets() {
        let mut p = Prr::new(20 * MSS as u32);
        let (mut sent, mut pipe, mut seq) = (0u64, 20 * MSS, vec![]);
        for _ in 1..=8u64 {
            pipe -= MSS;
            let n = (p.on_ack(MSS, pipe, 14 * MSS, MSS, true) - pipe) / MSS;
            p.on_sent(n * MSS);
            pipe += n * MSS;
            sent += n;
            seq.push(sent);
        }
        assert_eq!(seq, [1, 2, 3, 3, 4, 5, 5, 6], "⌈0.7·k⌉");
    }

    /// A partly sent segment counts whole in `prr_out` (Linux counts packets), and
    /// delivered bytes count only whole segments.
    #[test]
    fn test_partial_segments_count_as_linux_counts_packets() {
        let mut p = Prr::new(10 * MSS as u32);
        // One packet of half a segment out; 1.5 segments delivered count 1:
        // ⌈1·5/10⌉ = 1, less the 1 packet out = 0.
        p.on_sent(MSS / 2);
        assert_eq!(p.on_ack(MSS + MSS / 2, 9 * MSS, 5 * MSS, MSS, true), 9 * MSS);
        // delivered 2 → ⌈2·5/10⌉ = 1 − 1 = 0; 4 → 2 − 1 = 1
        assert_eq!(p.on_ack(MSS / 2, 9 * MSS, 5 * MSS, MSS, true), 9 * MSS);
        assert_eq!(p.on_ack(2 * MSS, 9 * MSS, 5 * MSS, MSS, true), 10 * MSS);
    }

    #[test]
    fn test_first_ack_sends_at_least_one_segment() {
        let mut p = Prr::new(20 * MSS as u32);
        assert_eq!(p.on_ack(0, 19 * MSS, 10 * MSS, MSS, true), 20 * MSS);
    }
}

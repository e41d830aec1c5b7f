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
//!
//! Units: bytes throughout.

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
        let sndcnt = if pipe > ssthresh {
            (self.delivered * ssthresh).div_ceil(self.prior_cwnd).saturating_sub(self.out)
        } else {
            let extra = if ssrb_grows { mss } else { 0 };
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + extra;
            (ssthresh - pipe).min(limit)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        pipe + sndcnt
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
        assert_eq!(p.on_ack(0, 9 * MSS + 500, 10 * MSS, MSS, true), 10 * MSS, "never above ssthresh");
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

    #[test]
    fn test_first_ack_sends_at_least_one_segment() {
        let mut p = Prr::new(20 * MSS as u32);
        assert_eq!(p.on_ack(0, 19 * MSS, 10 * MSS, MSS, true), 20 * MSS);
    }
}

//! RACK's loss marking during recovery (RFC 8985 §6.2), as far as ecnlab's
//! paths need it: no reordering, so the reordering window is zero once
//! recovery has started (Linux `tcp_rack_reo_wnd` returns 0 "if no reordering
//! has been observed" and the sender is in recovery or has DupThresh
//! segments SACKed), and RACK's rule
//!
//! ```text
//! segment S is lost  ⇔  a segment sent after S has been delivered
//!                       and now ≥ S.xmit_ts + RACK.rtt + RACK.reo_wnd
//! ```
//!
//! reduces to an ordering: with reo_wnd = 0 and RACK.rtt = now − (the
//! delivered segment's xmit time), the time condition is "sent before it".
//! Original transmissions leave in sequence order, so an unSACKed segment
//! below the highest SACKed byte is lost (`Scoreboard::is_lost` with `rack`);
//! a retransmission is lost once either data first sent after it (above
//! snd_max at its retransmission) or a later retransmission has been SACKed —
//! the case RFC 6675 leaves to the retransmission timer, and Linux's
//! `tcp_rack_detect_loss` resends at once. A lost retransmission is resent
//! before anything else (NextSeg rule (1)).
//!
//! Not here: the reordering window and its timer before recovery (entry stays
//! RFC 6675's DupThresh rule), RACK's spurious-retransmission filter (nothing
//! is delivered twice on these paths), Tail Loss Probe.

/// One retransmission not yet acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resent {
    seq: u64,
    end: u64,
    /// snd_max when it was sent: any byte at or above it was sent after it.
    high_at: u64,
    lost: bool,
}

/// The retransmissions of the current recovery, in the order sent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rack {
    sent: Vec<Resent>,
}

impl Rack {
    /// `[seq, end)` was retransmitted with snd_max at `high_at`.
    pub(crate) fn on_retransmit(&mut self, seq: u64, end: u64, high_at: u64) {
        self.sent.retain(|r| r.seq != seq);
        self.sent.push(Resent { seq, end, high_at, lost: false });
    }

    /// Everything below `una` is acknowledged; a timeout resends all anyway (`clear`).
    pub(crate) fn forget_below(&mut self, una: u64) {
        self.sent.retain(|r| r.end > una);
    }

    pub(crate) fn clear(&mut self) {
        self.sent.clear();
    }

    /// Marks the retransmissions that data sent after them proves lost, and
    /// forgets the ones delivered (SACKed).
    pub(crate) fn detect(&mut self, is_sacked: impl Fn(u64, u64) -> bool, highest_sacked: u64) {
        let mut later_delivered = false;
        for r in self.sent.iter_mut().rev() {
            let delivered = is_sacked(r.seq, r.end);
            if !delivered && (later_delivered || highest_sacked > r.high_at) {
                r.lost = true;
            }
            later_delivered |= delivered;
        }
        self.sent.retain(|r| !is_sacked(r.seq, r.end));
    }

    /// The first retransmission found lost (to resend first).
    pub(crate) fn next_lost(&self) -> Option<u64> {
        self.sent.iter().filter(|r| r.lost).map(|r| r.seq).min()
    }

    /// `s` was retransmitted and that copy is lost (not in the network).
    pub(crate) fn resend_lost(&self, s: u64) -> bool {
        self.sent.iter().any(|r| r.lost && r.seq == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_retransmission_lost_when_later_new_data_is_sacked() {
        let mut r = Rack::default();
        r.on_retransmit(1, 101, 1001);
        r.detect(|_, _| false, 1001);
        assert_eq!(r.next_lost(), None, "nothing sent after it delivered yet");
        r.detect(|l, _| l >= 1001, 1101);
        assert_eq!(r.next_lost(), Some(1));
    }

    #[test]
    fn test_retransmission_lost_when_a_later_retransmission_is_sacked() {
        let mut r = Rack::default();
        r.on_retransmit(1, 101, 1001);
        r.on_retransmit(201, 301, 1001);
        r.detect(|l, _| l == 201, 901);
        assert_eq!(r.next_lost(), Some(1));
        assert!(r.resend_lost(1) && !r.resend_lost(201));
        r.on_retransmit(1, 101, 1001);
        assert_eq!(r.next_lost(), None, "resent: in the network again");
    }

    #[test]
    fn test_earlier_delivery_proves_nothing() {
        let mut r = Rack::default();
        r.on_retransmit(201, 301, 1001);
        r.on_retransmit(1, 101, 1001);
        r.detect(|l, _| l == 201, 901);
        assert_eq!(r.next_lost(), None);
    }
}

//! Tail Loss Probe (RFC 8985 §7, "The RACK-TLP Loss Detection Algorithm for
//! TCP", Standards Track), as Linux runs it (`tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`); `tcp.tlp`, on in the linux
//! personality.
//!
//! A loss at the tail of a flight leaves no later segment to produce duplicate
//! ACKs or SACKs, so without TLP only the retransmission timer finds it. TLP
//! sends one probe segment after about two round trips of silence; its ACK
//! (or SACK) lets fast recovery repair the loss instead of a timeout.
//!
//! **When a probe is scheduled** (`tcp_schedule_loss_probe`): after new data
//! is sent and after an ACK of new data, if SACK is in use, data is
//! outstanding and the sender is in Open or CWR (not in Disorder, recovery or
//! after a timeout). The probe timeout replaces the retransmission timer:
//!
//! ```text
//! PTO = 2·SRTT + (one segment outstanding ? RTO_min : 2 ms)   (no SRTT yet: 1 s)
//! PTO = min(PTO, time left until the RTO)                       (after an ACK: the whole RTO)
//! ```
//!
//! RFC 8985 §7.2 adds the worst-case delayed-ACK time, WCDelAckT = 200 ms, with
//! one segment outstanding; Linux adds its minimum RTO (200 ms by default, the
//! scenario's `min_rto` here) and 2 ms otherwise (`TCP_TIMEOUT_MIN_US`).
//!
//! **When it fires** (`tcp_send_loss_probe`), at most one probe is
//! outstanding per tail-loss episode (`tlp_high_seq`):
//! - a probe is outstanding: the RTO is armed again, nothing is sent;
//! - new data waits and the peer's window allows it: one new segment, even
//!   beyond cwnd (RFC 8985 §7.3 "transmit a new segment if one is available");
//! - otherwise the last MSS of data sent is retransmitted (§7.3: "retransmit
//!   the last segment");
//!
//! then `high` = snd_nxt, and the RTO restarts from now.
//!
//! **A SACKed probe starts recovery.** RACK (RFC 8985 §6.2) marks a segment
//! lost once a segment sent at least RACK.reo_wnd after it is delivered;
//! outside recovery Linux's reo_wnd is min(min_RTT/4, SRTT)
//! (`tcp_rack_reo_wnd`). Every segment outstanding when the probe left was
//! sent at least a PTO > 2·SRTT earlier, so a SACK of the probe marks the
//! holes below it lost and fast recovery starts at once. (RACK's reordering
//! window for segments sent close together, and its timer, are not modelled:
//! there DupThresh and RFC 6675 IsLost decide, as before.)
//!
//! **The probe's ACK** (`tcp_process_tlp_ack`, RFC 8985 §7.4), once snd_una
//! reaches `high`:
//! - the probe was new data: the episode ends;
//! - snd_una passes `high`: the probe repaired a loss, so the window is reduced
//!   once, as after a fast recovery (ssthresh from the congestion control,
//!   cwnd = ssthresh, CWR on the next segment with ECN);
//! - a duplicate ACK with no new SACK information: original and probe both
//!   arrived, no loss; the episode ends.
//!
//! Not modelled: Linux's DSACK test (ecnlab's receivers send no D-SACK, so a
//! spurious probe is recognised by the duplicate ACK alone), and
//! `skb_still_in_host_queue` (no host queue below TCP).

use ecnlab_wire::Duration;

/// Linux `TCP_TIMEOUT_MIN_US`: added to 2·SRTT with more than one segment out.
pub(crate) const PTO_EXTRA: Duration = Duration(2_000_000);
/// Linux `TCP_TIMEOUT_INIT`: the PTO before any RTT sample.
pub(crate) const PTO_NO_SRTT: Duration = Duration(1_000_000_000);

/// One tail-loss episode's probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Probe {
    /// The probe segment's sequence range.
    pub(crate) seq: u64,
    pub(crate) end: u64,
    /// snd_nxt after the probe left (`tlp_high_seq`).
    pub(crate) high: u64,
    /// The probe retransmitted data (`tlp_retrans`), rather than sending new data.
    pub(crate) retrans: bool,
}

/// What the probe's ACK means (`tcp_process_tlp_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeAck {
    /// snd_una is still below the probe's `high`: wait.
    Pending,
    /// The episode is over without a loss.
    NoLoss,
    /// The probe repaired a loss: reduce the window once.
    Loss,
}

impl Probe {
    /// An ACK arrived: `ack` its cumulative acknowledgment; `advanced`, `data`
    /// and `new_sack` Linux's FLAG_SND_UNA_ADVANCED, FLAG_NOT_DUP (data or a
    /// window update) and FLAG_DATA_SACKED.
    pub(crate) fn on_ack(self, ack: u64, advanced: bool, not_dup: bool, new_sack: bool) -> ProbeAck {
        if ack < self.high {
            ProbeAck::Pending
        } else if !self.retrans {
            ProbeAck::NoLoss
        } else if ack > self.high {
            ProbeAck::Loss
        } else if !(advanced || not_dup || new_sack) {
            ProbeAck::NoLoss
        } else {
            ProbeAck::Pending
        }
    }
}

/// The probe timeout after `srtt` with `one_segment` outstanding, at most `rto_left`.
pub(crate) fn pto(srtt: Option<Duration>, one_segment: bool, min_rto: Duration, rto_left: Duration) -> Duration {
    let t = match srtt {
        Some(s) => Duration(2 * s.0 + if one_segment { min_rto.0 } else { PTO_EXTRA.0 }),
        None => PTO_NO_SRTT,
    };
    if rto_left.0 > 0 {
        Duration(t.0.min(rto_left.0))
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn test_pto_is_two_srtt_plus_linux_extra_capped_by_the_rto() {
        let min_rto = Duration(200 * MS);
        let srtt = Some(Duration(30 * MS));
        assert_eq!(pto(srtt, false, min_rto, Duration(1000 * MS)), Duration(62 * MS));
        assert_eq!(pto(srtt, true, min_rto, Duration(1000 * MS)), Duration(260 * MS), "one segment: + RTO_min");
        assert_eq!(pto(srtt, true, min_rto, Duration(230 * MS)), Duration(230 * MS), "never after the RTO");
        assert_eq!(pto(None, false, min_rto, Duration(3000 * MS)), Duration(1000 * MS), "no SRTT: 1 s");
    }

    #[test]
    fn test_probe_ack_outcomes_follow_tcp_process_tlp_ack() {
        let p = Probe { seq: 90, end: 100, high: 100, retrans: true };
        assert_eq!(p.on_ack(90, true, true, false), ProbeAck::Pending);
        assert_eq!(p.on_ack(120, true, true, false), ProbeAck::Loss, "snd_una passes high");
        assert_eq!(p.on_ack(100, false, false, false), ProbeAck::NoLoss, "pure duplicate ACK");
        assert_eq!(p.on_ack(100, true, true, false), ProbeAck::Pending, "reaches high: wait for more");
        let new_data = Probe { seq: 90, end: 100, high: 100, retrans: false };
        assert_eq!(new_data.on_ack(100, true, true, false), ProbeAck::NoLoss);
    }
}

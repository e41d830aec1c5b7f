//! Delivery-rate sampling, as Linux's `net/ipv4/tcp_rate.c` computes it for the
//! congestion controls that ask for it (`CongestionControl::wants_rate_samples`:
//! BBR). Without one the sender keeps none of this (`Sender::rate` is `None`).
//!
//! **When a data segment leaves** (`tcp_rate_skb_sent`): if nothing was
//! outstanding, the connection's `first_tx` and `delivered_at` restart at now; the
//! segment keeps a snapshot of the connection's `delivered` (bytes delivered so
//! far), `delivered_at` (when the last delivery was learnt), `first_tx` (the send
//! time of the newest segment whose delivery was learnt), whether the connection
//! is app-limited, and (BBR v3's additions to the sample) the data in flight with
//! this segment and the bytes counted lost so far.
//!
//! **When an ACK delivers segments**, cumulatively or by SACK
//! (`tcp_rate_skb_delivered`): of the segments it newly delivers, the one with
//! the largest `delivered` snapshot (the most recently sent) gives the sample its
//! `prior_delivered`, `prior_at` and app-limited flag, and `first_tx` becomes its
//! send time; the send interval is that send time less its `first_tx` snapshot.
//! A SACKed segment is marked off, so its later cumulative ACK delivers nothing.
//!
//! **The sample** (`tcp_rate_gen`), once per ACK: `delivered` = the connection's
//! delivered − `prior_delivered`; the interval is the longer of the send interval
//! and the ACK interval (now − `prior_at`); a sample without timing, or whose
//! interval is shorter than the connection's minimum RTT, is invalid (`None`).
//! The app-limited mark clears once the data sent before it is delivered.
//!
//! **App-limited** (`tcp_rate_check_app_limited`): when less than a segment is
//! waiting to be sent, the window is not full and no lost segment awaits its
//! retransmission, the connection is app-limited until `delivered + in flight`
//! more bytes are delivered (at least 1).
//!
//! **Losses.** Linux counts a segment lost when its loss detection marks it. Here
//! a segment counts as lost when it is sent again (the sender retransmits only
//! what its loss detection deemed lost; a tail-loss probe is not counted), once
//! per transmission; the next ACK's sample reports them. A timeout marks every
//! segment outstanding and not SACKed lost at once (`tcp_timeout_mark_lost`: the
//! connection's lost count grows by all of them, no ACK's `losses` reports them),
//! and resending one of those counts nothing more: the go-back-N retransmissions
//! after a timeout are one loss event, not one per round trip until they are done.
//!
//! Units: bytes and nanoseconds (Linux counts packets and microseconds).

use ecnlab_wire::{Duration, Instant};
use std::collections::VecDeque;

/// One data segment in flight and its snapshot (`TCP_SKB_CB(skb)->tx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxRecord {
    seq: u64,
    end: u64,
    sent_at: Instant,
    first_tx: Instant,
    /// `None` once delivered by SACK (Linux zeroes `tx.delivered_mstamp`).
    delivered_at: Option<Instant>,
    delivered: u64,
    app_limited: bool,
    retransmitted: bool,
    /// Bytes in flight when it left, itself included (BBR v3's `tx.in_flight`).
    in_flight: u64,
    /// The connection's lost bytes when it left (BBR v3's `tx.lost`).
    lost: u64,
    /// Counted lost by a timeout since it left (Linux's `TCPCB_LOST`).
    marked_lost: bool,
}

/// What one ACK tells of the delivery rate (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RateSample {
    /// Bytes delivered over `interval`; `None` when the sample is invalid.
    pub(crate) delivered: Option<u64>,
    pub(crate) interval: Duration,
    /// The connection's delivered count when the newest delivered segment left.
    pub(crate) prior_delivered: u64,
    /// Bytes newly ACKed or SACKed by this ACK (`acked_sacked`).
    pub(crate) acked_sacked: u64,
    /// Bytes counted lost since the previous ACK (`losses`).
    pub(crate) losses: u64,
    /// Bytes counted lost since the newest delivered segment left (v3's `lost`).
    pub(crate) lost: u64,
    /// Bytes in flight when the newest delivered segment left (v3's `tx_in_flight`).
    pub(crate) tx_in_flight: u64,
    /// Of `delivered`, the bytes the receiver echoed as CE-marked (v3's `delivered_ce`).
    pub(crate) delivered_ce: u64,
    pub(crate) is_app_limited: bool,
    /// The RTT of the newest delivered segment sent once (Karn), else `None`.
    pub(crate) rtt: Option<Duration>,
    /// Bytes in flight before this ACK (`prior_in_flight`).
    pub(crate) prior_in_flight: u64,
    /// The ACK carried ECE (or new CE counts by AccECN).
    pub(crate) ece: bool,
}

/// The connection's delivery state and its segments in flight.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateSampler {
    /// Bytes delivered (cumulatively or by SACK) over the connection's life (`tp->delivered`).
    pub(crate) delivered: u64,
    /// Of those, the bytes of ACKs that echoed CE (`tp->delivered_ce`).
    pub(crate) delivered_ce: u64,
    /// When the last delivery was learnt (`tp->delivered_mstamp`).
    pub(crate) delivered_at: Option<Instant>,
    first_tx: Instant,
    /// Bytes counted lost (`tp->lost`).
    pub(crate) lost: u64,
    /// App-limited until `delivered` passes this; 0: not app-limited (`tp->app_limited`).
    pub(crate) app_limited: u64,
    /// The least RTT sample seen (Linux's `tcp_min_rtt`).
    pub(crate) min_rtt: Option<Duration>,
    records: VecDeque<TxRecord>,
    losses: u64,
    /// The sample being built by the current ACK.
    rs: RateSample,
    newest: Option<TxRecord>,
}

impl RateSampler {
    /// `tcp_rate_skb_sent`, and the loss count of a retransmission (module doc);
    /// `probe`: a tail-loss probe; `in_flight`: bytes in flight with this segment.
    pub(crate) fn on_sent(&mut self, now: Instant, seq: u64, end: u64, retransmit: bool, probe: bool, in_flight: u64) {
        if end <= seq {
            return;
        }
        if self.records.is_empty() {
            self.first_tx = now;
            self.delivered_at = Some(now);
        }
        let rec = TxRecord {
            seq,
            end,
            sent_at: now,
            first_tx: self.first_tx,
            delivered_at: self.delivered_at,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            retransmitted: retransmit,
            in_flight,
            lost: self.lost,
            marked_lost: false,
        };
        let at = self.records.partition_point(|r| r.seq < seq);
        match self.records.get_mut(at) {
            Some(r) if r.seq == seq => {
                if retransmit && !probe && r.delivered_at.is_some() && !r.marked_lost {
                    self.lost += r.end - r.seq;
                    self.losses += r.end - r.seq;
                }
                *r = rec;
            }
            _ => self.records.insert(at, rec),
        }
    }

    /// `tcp_timeout_mark_lost`: a retransmission timeout marks every segment in
    /// flight and not SACKed lost, those already marked (and not sent since) only
    /// once; returns the bytes newly counted lost.
    pub(crate) fn on_timeout(&mut self) -> u64 {
        let mut marked = 0;
        for r in self.records.iter_mut().filter(|r| r.delivered_at.is_some() && !r.marked_lost) {
            r.marked_lost = true;
            marked += r.end - r.seq;
        }
        self.lost += marked;
        marked
    }

    /// An ACK up to `ack` with SACK blocks `sacks`: each newly delivered segment
    /// goes through `tcp_rate_skb_delivered`. Call before [`Self::generate`].
    pub(crate) fn on_ack(&mut self, ack: u64, sacks: &[(u64, u64)]) {
        self.rs = RateSample::default();
        self.newest = None;
        while let Some(r) = self.records.front().copied().filter(|r| r.end <= ack) {
            self.records.pop_front();
            if r.delivered_at.is_some() {
                self.deliver(r);
            }
        }
        for &(left, right) in sacks {
            let from = self.records.partition_point(|r| r.seq < left);
            for i in from..self.records.len() {
                let r = self.records[i];
                if r.end > right {
                    break;
                }
                if r.delivered_at.is_some() {
                    self.deliver(r);
                    self.records[i].delivered_at = None;
                }
            }
        }
    }

    fn deliver(&mut self, r: TxRecord) {
        self.rs.acked_sacked += r.end - r.seq;
        if self
            .newest
            .is_none_or(|n| r.delivered > n.delivered || (r.delivered == n.delivered && r.sent_at > n.sent_at))
        {
            self.newest = Some(r);
        }
    }

    /// `tcp_rate_gen` at `now`: the sample of this ACK. `prior_in_flight`: bytes
    /// in flight before the ACK; `ece`: it echoed CE.
    pub(crate) fn generate(&mut self, now: Instant, prior_in_flight: u64, ece: bool) -> RateSample {
        let acked = self.rs.acked_sacked;
        self.delivered += acked;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0; // the bubble is delivered
        }
        if ece {
            self.delivered_ce += acked;
        }
        if acked > 0 {
            self.delivered_at = Some(now);
        }
        let mut rs = RateSample {
            acked_sacked: acked,
            losses: std::mem::take(&mut self.losses),
            prior_in_flight,
            ece,
            delivered_ce: if ece { acked } else { 0 },
            ..RateSample::default()
        };
        let Some(n) = self.newest.take() else { return rs };
        let Some(prior_at) = n.delivered_at else { return rs };
        if !n.retransmitted {
            let rtt = now.saturating_since(n.sent_at);
            rs.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        self.first_tx = n.sent_at;
        rs.prior_delivered = n.delivered;
        rs.is_app_limited = n.app_limited;
        rs.tx_in_flight = n.in_flight;
        rs.lost = self.lost - n.lost;
        let send = n.sent_at.saturating_since(n.first_tx);
        let ack = now.saturating_since(prior_at);
        rs.interval = send.max(ack);
        if self.min_rtt.is_some_and(|m| rs.interval < m) {
            return rs; // shorter than an RTT: not a valid sample
        }
        rs.delivered = Some(self.delivered - n.delivered);
        rs
    }

    /// `tcp_rate_check_app_limited`: `waiting` bytes not yet sent, `in_flight`
    /// against `cwnd`, `lost_pending`: a lost segment awaits its retransmission.
    pub(crate) fn check_app_limited(&mut self, waiting: u64, mss: u64, in_flight: u64, cwnd: u64, lost_pending: bool) {
        if waiting < mss && in_flight < cwnd && !lost_pending {
            self.app_limited = (self.delivered + in_flight).max(1);
        }
    }

    /// Marks the connection app-limited now (BBR's PROBE_RTT ignores low-rate samples so).
    pub(crate) fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
#[path = "rate_sample_tests.rs"]
mod tests;

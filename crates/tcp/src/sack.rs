//! RFC 6675 sender scoreboard: SACKed ranges, IsLost, SetPipe and NextSeg
//! (with `rack`, RACK's loss marking in recovery: `rack.rs`).
//!
//! Segments are the MSS-sized pieces `[s, min(s + mss, data_end))` starting at
//! `snd_una`; every segment this crate sends starts on such a boundary, so the
//! scoreboard can work per segment instead of per octet.
//!
//! | RFC 6675 §4 | here |
//! |---|---|
//! | IsLost(S) | more than (DupThresh − 1)·SMSS bytes SACKed above S (the byte rule; the "DupThresh discontiguous sequences" rule coincides for full-sized segments) |
//! | SetPipe | Σ unSACKed segments: +len if not IsLost, +len again if retransmitted (below HighRxt) |
//! | NextSeg | (1) first unSACKed lost segment above HighRxt, (2) new data (caller), (3) first unSACKed segment above HighRxt below the highest SACKed byte; (4) rescue retransmission is not implemented |

use crate::rack::Rack;

/// The sequence space the scoreboard reasons about.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeqSpace {
    /// HighACK + 1 in RFC terms: the first unacknowledged byte.
    pub una: u64,
    /// HighData + 1: one past the highest data byte sent.
    pub high: u64,
    pub mss: u64,
    pub dupthresh: u64,
    /// In fast recovery or after a timeout (RACK's reordering window is then zero).
    pub recovering: bool,
}

impl SeqSpace {
    fn seg_end(&self, s: u64) -> u64 {
        (s + self.mss).min(self.high)
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    /// SACKed ranges above snd_una: sorted, disjoint, non-adjacent.
    sacked: Vec<(u64, u64)>,
    /// One past the highest byte retransmitted in the current recovery episode.
    high_rxt: u64,
    /// Every unSACKed segment below this is lost (snd_max at a timeout that
    /// kept the scoreboard, `TcpConfig::sack_after_rto`); 0: none.
    lost_below: u64,
    /// RACK's loss marking in recovery (`TcpConfig::rack`, `rack.rs`).
    rack: Option<Rack>,
}

impl Scoreboard {
    /// Nothing is SACKed or marked lost by a timeout: outside a recovery, pipe is FlightSize.
    pub(crate) fn is_clear(&self) -> bool {
        self.sacked.is_empty() && self.lost_below == 0
    }

    /// With RACK's loss marking in recovery (`rack.rs`).
    pub(crate) fn with_rack(rack: bool) -> Self {
        Scoreboard { rack: rack.then(Rack::default), ..Scoreboard::default() }
    }

    /// Records the SACK blocks of an ACK and forgets everything below `una`.
    pub(crate) fn update(&mut self, una: u64, blocks: &[(u64, u64)]) {
        self.update_blocks(una, blocks);
        if let Some(mut rack) = self.rack.take() {
            rack.forget_below(una);
            rack.detect(|l, r| self.is_sacked(l, r), self.highest_sacked());
            self.rack = Some(rack);
        }
    }

    fn update_blocks(&mut self, una: u64, blocks: &[(u64, u64)]) {
        for &(l, r) in blocks {
            let l = l.max(una);
            if l < r {
                self.insert(l, r);
            }
        }
        self.sacked.retain(|&(_, r)| r > una);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(una);
        }
    }

    fn insert(&mut self, mut l: u64, mut r: u64) {
        self.sacked.retain(|&(a, b)| {
            let joins = a <= r && l <= b;
            if joins {
                l = l.min(a);
                r = r.max(b);
            }
            !joins
        });
        let at = self.sacked.partition_point(|&(a, _)| a < l);
        self.sacked.insert(at, (l, r));
    }

    /// RFC 2018 §8: after a retransmission timeout, turn off all SACKed bits.
    pub(crate) fn clear(&mut self) {
        self.sacked.clear();
        self.lost_below = 0;
    }

    /// A timeout: the retransmissions before it no longer count.
    pub(crate) fn on_timeout(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            r.clear();
        }
    }

    /// A timeout that keeps the scoreboard: everything unSACKed below `max` is
    /// lost, nothing of it retransmitted yet (Linux `tcp_timeout_mark_lost`).
    pub(crate) fn mark_all_lost(&mut self, una: u64, max: u64) {
        self.lost_below = max;
        self.high_rxt = una;
        self.on_timeout();
    }

    /// A new recovery episode: nothing retransmitted yet.
    pub(crate) fn start_episode(&mut self, una: u64) {
        self.high_rxt = una;
    }

    /// `s` was retransmitted in this episode (below HighRxt).
    pub(crate) fn resent(&self, s: u64) -> bool {
        s < self.high_rxt
    }

    /// `[seq, end)` was retransmitted with snd_max at `high`.
    pub(crate) fn on_retransmit(&mut self, seq: u64, end: u64, high: u64) {
        self.high_rxt = self.high_rxt.max(end);
        if let Some(r) = self.rack.as_mut() {
            r.on_retransmit(seq, end, high);
        }
    }

    /// `[l, r)` entirely SACKed.
    pub(crate) fn is_sacked(&self, l: u64, r: u64) -> bool {
        let i = self.sacked.partition_point(|&(_, b)| b <= l);
        self.sacked.get(i).is_some_and(|&(a, b)| a <= l && r <= b)
    }

    /// Bytes SACKed above snd_una.
    pub(crate) fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|&(a, b)| b - a).sum()
    }

    fn sacked_above(&self, s: u64) -> u64 {
        self.sacked.iter().map(|&(a, b)| b.saturating_sub(a.max(s))).sum()
    }

    fn highest_sacked(&self) -> u64 {
        self.sacked.last().map_or(0, |&(_, b)| b)
    }

    /// RFC 6675 §4 IsLost.
    pub(crate) fn is_lost(&self, s: u64, v: &SeqSpace) -> bool {
        self.lost_with(s, self.sacked_above(s), v)
    }

    /// IsLost of an unSACKed segment `s` with `above` bytes SACKed above it: DupThresh
    /// segments' worth (RFC 6675), everything below a timeout that kept the scoreboard,
    /// and with RACK in recovery anything at all (sent before a delivered segment).
    fn lost_with(&self, s: u64, above: u64, v: &SeqSpace) -> bool {
        s < self.lost_below || above > (v.dupthresh - 1) * v.mss || (self.rack.is_some() && v.recovering && above > 0)
    }

    /// RFC 6675 §4 SetPipe, in bytes (one pass from the top, accumulating SACKed bytes).
    pub(crate) fn pipe(&self, v: &SeqSpace) -> u64 {
        if v.high <= v.una {
            return 0;
        }
        let n = (v.high - v.una).div_ceil(v.mss);
        let (mut pipe, mut above) = (0, 0);
        for k in (0..n).rev() {
            let s = v.una + k * v.mss;
            let len = v.seg_end(s) - s;
            if self.is_sacked(s, s + len) {
                above += len;
                continue;
            }
            if !self.lost_with(s, above, v) {
                pipe += len; // (a) not lost: still in the network
            }
            if s < self.high_rxt && !self.rack.as_ref().is_some_and(|r| r.resend_lost(s)) {
                pipe += len; // (b) retransmitted: the copy is in the network (RACK: unless found lost)
            }
        }
        pipe
    }

    /// First unSACKed segment at or above max(una, HighRxt), below `high`.
    fn first_candidate(&self, v: &SeqSpace) -> Option<u64> {
        let mut s = v.una;
        if self.high_rxt > s {
            // Keep segment alignment: round HighRxt up to a boundary from una.
            s += (self.high_rxt - s).div_ceil(v.mss) * v.mss;
        }
        while s < v.high {
            let e = v.seg_end(s);
            if !self.is_sacked(s, e) {
                return Some(s);
            }
            s = e;
        }
        None
    }

    /// NextSeg rule (1): a lost segment not yet retransmitted; with RACK first
    /// a retransmission found lost.
    pub(crate) fn next_lost(&self, v: &SeqSpace) -> Option<u64> {
        let again = self.rack.as_ref().and_then(Rack::next_lost).filter(|&s| s >= v.una);
        again.or_else(|| self.first_candidate(v).filter(|&s| self.is_lost(s, v)))
    }

    /// NextSeg rule (3): an unSACKed segment below the highest SACKed byte.
    pub(crate) fn next_hole(&self, v: &SeqSpace) -> Option<u64> {
        self.first_candidate(v).filter(|&s| s < self.highest_sacked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    fn space(una: u64, high: u64) -> SeqSpace {
        SeqSpace { una, high, mss: MSS, dupthresh: 3, recovering: false }
    }

    #[test]
    fn test_update_merges_and_trims_below_una() {
        let mut sb = Scoreboard::default();
        sb.update(1, &[(201, 301)]);
        sb.update(1, &[(301, 401), (501, 601)]);
        assert!(sb.is_sacked(201, 401));
        assert!(!sb.is_sacked(101, 201));
        sb.update(451, &[]);
        assert!(!sb.is_sacked(201, 301));
        assert!(sb.is_sacked(501, 601));
        sb.update(701, &[]);
        assert!(sb.sacked.is_empty());
    }

    #[test]
    fn test_is_lost_needs_more_than_two_segments_sacked_above() {
        let mut sb = Scoreboard::default();
        let v = space(1, 1001);
        sb.update(1, &[(101, 301)]);
        assert!(!sb.is_lost(1, &v));
        sb.update(1, &[(301, 401)]);
        assert!(sb.is_lost(1, &v));
        assert!(!sb.is_lost(101, &v) || sb.is_sacked(101, 201));
    }

    #[test]
    fn test_pipe_counts_unsacked_not_lost_and_retransmitted() {
        // Segments 1..10 (starting 1, 101, ..., 901); segment 1 lost, 2..4 SACKed.
        let mut sb = Scoreboard::default();
        let v = space(1, 1001);
        sb.update(1, &[(101, 401)]);
        // Segment at 1 is lost (3 SACKed above): not counted. 401..1001 = 6 segments in flight.
        assert_eq!(sb.pipe(&v), 600);
        sb.start_episode(1);
        sb.on_retransmit(1, 101, 1001);
        assert_eq!(sb.pipe(&v), 700);
    }

    #[test]
    fn test_next_seg_rules_1_and_3() {
        let mut sb = Scoreboard::default();
        let v = space(1, 1001);
        sb.update(1, &[(101, 401), (501, 601)]);
        sb.start_episode(1);
        assert_eq!(sb.next_lost(&v), Some(1));
        sb.on_retransmit(1, 101, 1001);
        // Next candidate is 401: SACKed above it is only 100 bytes, not lost.
        assert_eq!(sb.next_lost(&v), None);
        // Rule 3: 401 lies below the highest SACKed byte (601).
        assert_eq!(sb.next_hole(&v), Some(401));
        sb.on_retransmit(401, 501, 1001);
        assert_eq!(sb.next_hole(&v), None);
    }

    #[test]
    fn test_partial_last_segment() {
        let mut sb = Scoreboard::default();
        let v = space(1, 251); // segments [1,101) [101,201) [201,251)
        sb.update(1, &[(201, 251)]);
        assert_eq!(sb.pipe(&v), 200);
        assert_eq!(sb.next_hole(&v), Some(1));
    }
}

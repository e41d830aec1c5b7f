//! Leaving slow start before a loss: Linux's HyStart (Ha & Rhee, "Taming the
//! elephants", 2011; `tcp_cubic.c` `hystart_update`) or HyStart++ (RFC 9406),
//! selected by `tcp.hystart` for CUBIC (`cubic.rs`). Off: slow start ends only
//! at ssthresh or a congestion event (RFC 5681).
//!
//! Both count rounds: a round ends when SND.UNA passes SND.NXT as it was at the
//! round's start (Linux `end_seq`, RFC 9406 `windowEnd`).
//!
//! **Linux HyStart** (`hystart_detect` 3: both detectors), once cwnd ≥
//! `hystart_low_window` (16 segments), on every RTT sample:
//! - ACK train: an ACK within `hystart_ack_delta_us` (2 ms) of the previous one
//!   extends the train; when the train has lasted longer than
//!   (delay_min + ack_delay)/2 (not halved when paced) since the round began,
//!   slow start ends. ack_delay = min(1 ms, 4·64 KiB / pacing rate), the
//!   pacing rate 2·cwnd/srtt in slow start (`hystart_ack_delay` with
//!   `sk_gso_max_size` 64 KiB);
//! - delay: the round's minimum of its first 8 samples (`HYSTART_MIN_SAMPLES`)
//!   against delay_min (the least RTT seen): slow start ends when it exceeds
//!   delay_min + clamp(delay_min/8, 4 ms, 16 ms).
//!
//! Ending slow start sets ssthresh = cwnd (`found`); detection stays off until a
//! timeout restarts CUBIC (`bictcp_reset`).
//!
//! **HyStart++** (RFC 9406 §4.2, constants §4.3: MIN_RTT_THRESH 4 ms,
//! MAX_RTT_THRESH 16 ms, MIN_RTT_DIVISOR 8, N_RTT_SAMPLE 8, CSS_GROWTH_DIVISOR
//! 4, CSS_ROUNDS 5): per round, currentRoundMinRTT over its RTT samples; after
//! N_RTT_SAMPLE samples, if currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh
//! (RttThresh = clamp(lastRoundMinRTT/8, 4 ms, 16 ms)) the sender enters
//! Conservative Slow Start with cssBaselineMinRtt = currentRoundMinRTT; in CSS
//! cwnd grows by a quarter of slow start's increase; a round whose minimum falls
//! below the baseline returns to slow start; CSS_ROUNDS rounds of CSS end it
//! (ssthresh = cwnd). A congestion event in CSS ends slow start as usual.
//!
//! Named differences: ecnlab has no GSO, so Linux's ack_delay term is computed
//! from the formula rather than a device; Linux also ignores delay samples within
//! 1 s of a recovery's epoch start, which matters only in congestion avoidance.

use super::Feedback;
use crate::config::HyStartMode;
use ecnlab_wire::{Duration, Instant};

/// Linux `hystart_low_window`, segments.
const LOW_WINDOW: u64 = 16;
/// Linux `hystart_ack_delta_us`.
const ACK_DELTA: Duration = Duration(2_000_000);
/// Linux HYSTART_MIN_SAMPLES, RFC 9406 N_RTT_SAMPLE.
const MIN_SAMPLES: u32 = 8;
/// Linux HYSTART_DELAY_MIN/MAX, RFC 9406 MIN/MAX_RTT_THRESH.
const THRESH_MIN: u64 = 4_000_000;
const THRESH_MAX: u64 = 16_000_000;
/// RFC 9406 CSS_ROUNDS and CSS_GROWTH_DIVISOR.
const CSS_ROUNDS: u32 = 5;
pub(crate) const CSS_GROWTH_DIVISOR: u32 = 4;

/// What the detector says about the ACK just seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Slow start as usual.
    SlowStart,
    /// RFC 9406 Conservative Slow Start: grow by a CSS_GROWTH_DIVISOR-th.
    Conservative,
    /// Leave slow start: ssthresh = cwnd.
    Exit,
}

#[derive(Clone, Debug)]
pub(crate) struct HyStart {
    mode: HyStartMode,
    /// Round: its end (SND.NXT at its start) and start time.
    end_seq: u64,
    round_start: Instant,
    /// Minimum RTT of this round and its sample count; the last round's minimum.
    curr_rtt: Option<Duration>,
    samples: u32,
    last_round_rtt: Option<Duration>,
    /// Least RTT seen (Linux `delay_min`).
    delay_min: Option<Duration>,
    last_ack: Instant,
    /// Linux `found`: detection done until a timeout.
    found: bool,
    /// RFC 9406: in CSS since this baseline, for this many rounds.
    css: Option<(Duration, u32)>,
    /// cwnd (segments) and slow start, as the last ACK left them; pacing on.
    cwnd_segments: u64,
    srtt: Option<Duration>,
    paced: bool,
    verdict: Verdict,
}

impl HyStart {
    pub(crate) fn new(mode: HyStartMode, paced: bool) -> Self {
        HyStart {
            mode,
            end_seq: 0,
            round_start: Instant::ZERO,
            curr_rtt: None,
            samples: 0,
            last_round_rtt: None,
            delay_min: None,
            last_ack: Instant::ZERO,
            found: false,
            css: None,
            cwnd_segments: 0,
            srtt: None,
            paced,
            verdict: Verdict::SlowStart,
        }
    }

    /// An ACK of new data while in slow start with `cwnd_segments` (before its growth).
    pub(crate) fn on_feedback(&mut self, fb: &Feedback, cwnd_segments: u64) -> Verdict {
        self.cwnd_segments = cwnd_segments;
        self.srtt = fb.srtt;
        if fb.una > self.end_seq {
            self.new_round(fb);
        }
        if let Some(rtt) = fb.ack_rtt.or(fb.rtt).filter(|d| d.0 > 0) {
            self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
            match self.mode {
                HyStartMode::Off => {}
                HyStartMode::Linux => self.linux(fb.now, rtt),
                HyStartMode::HyStartPlusPlus => self.plus_plus(rtt),
            }
        }
        self.verdict
    }

    /// A timeout restarts detection (Linux `bictcp_reset`; RFC 9406 §4.2 after an RTO).
    pub(crate) fn reset(&mut self) {
        self.found = false;
        self.css = None;
        self.verdict = Verdict::SlowStart;
    }

    /// Slow start ended for another reason (a congestion event).
    pub(crate) fn leave(&mut self) {
        self.css = None;
        self.verdict = Verdict::SlowStart;
    }

    fn new_round(&mut self, fb: &Feedback) {
        self.end_seq = fb.snd_nxt;
        self.round_start = fb.now;
        self.last_ack = fb.now;
        self.last_round_rtt = self.curr_rtt.or(self.last_round_rtt);
        self.curr_rtt = None;
        self.samples = 0;
        if let Some((base, rounds)) = self.css {
            self.css = Some((base, rounds + 1));
            if rounds + 1 >= CSS_ROUNDS {
                self.css = None;
                self.verdict = Verdict::Exit; // RFC 9406: CSS_ROUNDS of CSS end slow start
            }
        }
    }

    fn sample(&mut self, rtt: Duration) {
        self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
    }

    /// `hystart_update`, both detectors.
    fn linux(&mut self, now: Instant, rtt: Duration) {
        if self.found || self.cwnd_segments < LOW_WINDOW {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(rtt);
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let mut threshold = delay_min.0 + self.ack_delay().0;
            if !self.paced {
                threshold >>= 1;
            }
            if now.saturating_since(self.round_start).0 > threshold {
                self.exit();
            }
        }
        self.sample(rtt);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if self.curr_rtt.is_some_and(|c| c.0 > delay_min.0 + thresh(delay_min)) {
            self.exit();
        }
    }

    /// Linux `hystart_ack_delay`: min(1 ms, 4·GSO max / pacing rate), rate 2·cwnd/srtt.
    fn ack_delay(&self) -> Duration {
        let Some(srtt) = self.srtt.filter(|d| d.0 > 0) else { return Duration(0) };
        // 4 · 65 536 bytes at 2·cwnd·1500 bytes per srtt, in ns.
        let rate_bytes = 2 * self.cwnd_segments.max(1) * 1500;
        let ns = u128::from(4 * 65_536u64) * u128::from(srtt.0) / u128::from(rate_bytes);
        Duration((ns.min(1_000_000)) as u64)
    }

    fn exit(&mut self) {
        self.found = true;
        self.verdict = Verdict::Exit;
    }

    /// RFC 9406 §4.2.
    fn plus_plus(&mut self, rtt: Duration) {
        self.sample(rtt);
        self.samples += 1;
        if self.samples < MIN_SAMPLES || self.verdict == Verdict::Exit {
            return;
        }
        let curr = self.curr_rtt.unwrap_or(rtt);
        match self.css {
            None => {
                if let Some(last) = self.last_round_rtt {
                    if curr.0 >= last.0 + thresh(last) {
                        self.css = Some((curr, 0));
                        self.verdict = Verdict::Conservative;
                    }
                }
            }
            Some((base, _)) if curr < base => {
                self.css = None; // the delay increase was spurious
                self.verdict = Verdict::SlowStart;
            }
            Some(_) => {}
        }
    }
}

/// clamp(rtt/8, 4 ms, 16 ms), ns.
fn thresh(rtt: Duration) -> u64 {
    (rtt.0 / 8).clamp(THRESH_MIN, THRESH_MAX)
}

#[cfg(test)]
#[path = "hystart_tests.rs"]
mod tests;

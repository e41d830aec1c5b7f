//! BBR (Bottleneck Bandwidth and RTT), `cc = "bbr"`: BBRv1 as mainline Linux runs
//! it (`net/ipv4/tcp_bbr.c`; Cardwell et al., "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016), and with `bbr_version = "v3"` Google's BBRv3
//! (`google/bbr`, branch v3, `net/ipv4/tcp_bbr.c`; its differences in `bbr_v3.rs`).
//!
//! BBR sets cwnd and its pacing rate itself on every ACK from a model of the path
//! (Linux's `cong_control` hook, `bbr_main`), from the delivery-rate sample of
//! that ACK (`rate_sample.rs`); the sender's own growth, PRR and ECN halving do
//! not touch its window. Rates are bytes per second, times nanoseconds, gains in
//! 1/256 (`BBR_UNIT`), windows in segments of the connection's MSS.
//!
//! **The model** (`bbr_update_model`):
//! - bandwidth: the maximum delivery-rate sample over the last 10 packet-timed
//!   rounds (`bbr_update_bw`, `minmax.rs`); an app-limited sample counts only if it
//!   is at least the current maximum. A round ends when a segment sent after the
//!   round began is delivered (`next_rtt_delivered`).
//! - min_rtt: the least RTT sample over 10 s (`bbr_update_min_rtt`); only a sample
//!   strictly below it renews its stamp (Linux commit 1b9e2a8c99a5; `is_ack_delayed`,
//!   which exempts a possibly delayed ACK once the filter expired, is not modelled); when it is
//!   10 s old, PROBE_RTT: cwnd 4 segments until 200 ms and one round have passed
//!   at that flight, then back to PROBE_BW (or STARTUP if the pipe was never
//!   full), with cwnd restored (`bbr_check_probe_rtt_done`).
//! - full bandwidth (`bbr_check_full_bw_reached`): at each round start with a
//!   sample not app-limited, a bandwidth below 1.25 × the last `full_bw` counts a
//!   round; 3 such rounds: the pipe is full.
//!
//! **Modes and gains** (`bbr_update_gains`): STARTUP pacing and cwnd gain 2/ln 2
//! (2.885); DRAIN pacing 1/2.885 until the data in flight is at most one BDP
//! (`bbr_check_drain`); PROBE_BW cycles pacing gains 1.25, 0.75, 1, 1, 1, 1, 1, 1
//! with cwnd gain 2, one phase per min_rtt (1.25 lasts until the flight reaches
//! 1.25 BDP or a loss, 0.75 until it falls to one BDP; `bbr_is_next_cycle_phase`),
//! entered at a phase drawn at random from all but the 0.75 one
//! (`bbr_reset_probe_bw_mode`; the draw from the flow's seeded stream,
//! [`Bbr::seed`]); PROBE_RTT gains 1.
//!
//! **Pacing** (`bbr_set_pacing_rate`): rate = gain × bw × 99 % (`bbr_pacing_margin_percent`);
//! before the pipe is full only a higher rate is taken. Before any bandwidth sample,
//! 2.885 × cwnd / srtt (1 ms without an RTT sample; `bbr_init_pacing_rate_from_rtt`).
//!
//! **cwnd** (`bbr_set_cwnd`): target = ⌈gain × bw × min_rtt⌉ segments
//! (`bbr_bdp`; 10 segments before any RTT sample) plus the ACK-aggregation
//! allowance (`bbr_ack_aggregation_cwnd`: the largest excess of data delivered over
//! bw × elapsed in an epoch, kept over 5–10 rounds, at most 100 ms of bw, once the
//! pipe is full) plus the quantization budget (`bbr_quantization_budget`: 3 ×
//! `bbr_tso_segs_goal`, rounded up to even, +2 in the 1.25 phase). Once the pipe is
//! full cwnd = min(cwnd + acked, target); before, cwnd grows by the data acked while
//! below target (or until 10 segments are delivered; v3: while below twice the initial window); never below 4 segments;
//! in PROBE_RTT at most 4.
//!
//! **Loss** (`bbr_set_cwnd_to_recover_or_restore`): cwnd −= segments newly lost;
//! on entering fast recovery, packet conservation for one round: cwnd = flight +
//! acked; on leaving recovery, cwnd = max(cwnd, the cwnd saved at entry). A timeout
//! (`bbr_set_state` in Loss, when it happens) resets full-bandwidth detection's
//! `full_bw` and starts a round; the flight it counts lost is one loss, not a loss
//! per segment resent (`rate_sample.rs`), so from cwnd 1 the window grows by the data
//! acked up to its target. BBRv1 does not react to ECN: an ECE leaves cwnd to the model.
//!
//! **Long-term bandwidth, policers** (`bbr_lt_bw_sampling`): from the first loss,
//! intervals of 4–16 rounds ending in a loss; an interval with loss ≥ 20 % whose
//! rate is within 1/8 (or 4 kbit/s) of the previous interval's means a policer:
//! bw = the mean of the two, pacing gain 1, for 48 rounds of PROBE_BW.
//!
//! **Not modelled**: the earliest departure time of the next packet is taken as now
//! (`bbr_packets_in_net_at_edt`), the TSO goal is Linux's from the pacing rate
//! (`bbr_tso_segs_goal`, 64 KiB at most), and undo (`bbr_undo_cwnd`) is not called
//! since the sender has no undo.

use super::bbr_v3::V3;
use super::minmax::MaxFilter;
use super::{Ack, Congestion, CongestionControl, RateCtx};
use crate::config::TcpConfig;
use crate::rate_sample::{RateSample, RateSampler};
use crate::window::{CaState, Window};
use ecnlab_wire::key;
use ecnlab_wire::keys::{Allowed::*, Key};
use ecnlab_wire::{Duration, Ecn, Instant};
use serde::{Deserialize, Serialize};

pub(crate) const UNIT: u64 = 256; // BBR_UNIT
pub(crate) const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1; // 2/ln 2
pub(crate) const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
pub(crate) const CWND_GAIN: u64 = UNIT * 2;
const PACING_GAIN: [u64; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
const CYCLE_RAND: u64 = 7;
const BW_RTTS: u64 = 10;
pub(crate) const MIN_RTT_WIN: Duration = Duration(10_000_000_000);
pub(crate) const PROBE_RTT_MODE: Duration = Duration(200_000_000);
pub(crate) const CWND_MIN_TARGET: u64 = 4;
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50; // 50/256 ≈ 20 %
const LT_BW_RATIO: u64 = UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8; // bytes per second
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const EXTRA_ACKED_MAX: Duration = Duration(100_000_000);
const MIN_TSO_RATE: u64 = 1_200_000 / 8; // bytes per second
const NS: u128 = 1_000_000_000;
/// Linux's `TCP_INIT_CWND`: the window before any RTT sample, and the delivery below
/// which STARTUP grows cwnd whatever the target.
const TCP_INIT_CWND: u64 = 10;

/// Which BBR (`BbrKnobs::version`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BbrVersion {
    /// Mainline Linux `tcp_bbr.c`.
    #[default]
    V1,
    /// `google/bbr` v3: loss and ECN bounds, the PROBE_BW DOWN/CRUISE/REFILL/UP states.
    V3,
}

/// BBR's knobs (`TcpConfig::bbr`; in JSON the flat keys `bbr_version` and `bbr_ecn_low`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BbrKnobs {
    /// v1 (default) or v3.
    #[serde(rename = "bbr_version")]
    pub version: BbrVersion,
    /// The route is a shallow-threshold ECN one (v3's `ecn_low`, module doc); off.
    #[serde(rename = "bbr_ecn_low")]
    pub ecn_low: bool,
}

/// BBR's scenario keys (`[tcp]`, flat among `TcpConfig`'s).
pub const KEYS: &[Key] = &[
    key!(
        "bbr_version",
        Choice,
        Variants(ecnlab_wire::keys::variants::<BbrVersion>),
        "cc bbr: mainline tcp_bbr.c (ignores CE), or google/bbr v3's loss and ECN bounds"
    ),
    key!(
        "bbr_ecn_low",
        Boolean,
        Any,
        "cc bbr v3 with ecn, min RTT ≤ 5 ms: react to CE marks (Linux's ecn_low route feature)"
    ),
];

impl BbrKnobs {
    /// The knobs' defaults unless `cc = "bbr"`, and what `cc = "bbr"` needs of the others.
    pub(crate) fn validate(&self, cfg: &TcpConfig) -> Result<(), crate::config::ConfigError> {
        use crate::config::{check, CcKind};
        let bbr = cfg.cc == CcKind::Bbr;
        check(bbr || self.version == BbrVersion::V1, "bbr_version", "v3", "v1 unless cc = bbr")?;
        check(bbr || !self.ecn_low, "bbr_ecn_low", true, "false unless cc = bbr")?;
        check(!bbr || cfg.pacing, "pacing", false, "true with cc = bbr (bbr_init asks for pacing)")
    }
}

/// BBRv3's receiver echoes CE as DCTCP's does, an ACK at each change of CE with ECE
/// copied from it (`bbr_precise_ece_ack`: `bbr_cwnd_event` calls `dctcp_ece_ack_update`), so
/// that its `delivered_ce` counts the marked data; BBRv1's echoes as RFC 3168's.
pub(crate) fn echoes_ce_precisely(cfg: &TcpConfig) -> bool {
    cfg.cc == crate::config::CcKind::Bbr && cfg.bbr.version == BbrVersion::V3
}

/// BBR's state machine (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The long-term (policer) estimate (`lt_*`).
#[derive(Clone, Copy, Debug, Default)]
struct LongTerm {
    sampling: bool,
    rtt_cnt: u32,
    use_bw: bool,
    bw: u64,
    last_delivered: u64,
    last_stamp: Instant,
    last_lost: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct Bbr {
    pub(crate) mode: Mode,
    pub(crate) version: BbrVersion,
    /// BBRv3's state (`bbr_v3.rs`), unused by v1.
    pub(crate) v3: V3,
    rng: u64,
    pub(crate) mss: u64,
    init_cwnd: u64,
    pub(crate) bw: MaxFilter,
    pub(crate) min_rtt: Option<Duration>,
    pub(crate) min_rtt_stamp: Instant,
    pub(crate) probe_rtt_done: Option<Instant>,
    pub(crate) probe_rtt_round_done: bool,
    pub(crate) rtt_cnt: u64,
    pub(crate) next_rtt_delivered: u64,
    pub(crate) round_start: bool,
    pub(crate) cycle_idx: usize,
    pub(crate) cycle_stamp: Instant,
    pub(crate) pacing_gain: u64,
    pub(crate) cwnd_gain: u64,
    pub(crate) full_bw: u64,
    pub(crate) full_bw_cnt: u32,
    pub(crate) full_bw_reached: bool,
    /// Segments.
    pub(crate) prior_cwnd: u64,
    pub(crate) prev_ca_state: CaState,
    packet_conservation: bool,
    lt: LongTerm,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_idx: usize,
    ack_epoch_stamp: Instant,
    ack_epoch_acked: u64,
    /// Bytes per second; 0 before the connection is established.
    pub(crate) pacing_rate: u64,
    has_seen_rtt: bool,
}

impl Bbr {
    pub(crate) fn new(cfg: &TcpConfig, knobs: &BbrKnobs) -> Self {
        Bbr {
            mode: Mode::Startup,
            version: knobs.version,
            v3: V3::new(knobs.ecn_low),
            rng: 0,
            mss: u64::from(cfg.mss),
            init_cwnd: u64::from(cfg.init_cwnd_segments),
            bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: Instant(0),
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            cycle_idx: 0,
            cycle_stamp: Instant(0),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            lt: LongTerm::default(),
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_idx: 0,
            ack_epoch_stamp: Instant(0),
            ack_epoch_acked: 0,
            pacing_rate: 0,
            has_seen_rtt: false,
        }
    }

    /// The random draws (PROBE_BW's first phase; v3's probe waits) come from
    /// this seed, which the simulator draws from the flow's seeded stream.
    pub(crate) fn seed(&mut self, seed: u64) {
        self.rng = seed;
    }

    /// A number in 0..n (SplitMix64 over the seed; `get_random_u32_below`).
    pub(crate) fn random_below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n.max(1)
    }

    /// The windowed maximum bandwidth, bytes per second (`bbr_max_bw`).
    pub(crate) fn max_bw(&self) -> u64 {
        match self.version {
            BbrVersion::V3 => self.v3.max_bw(),
            BbrVersion::V1 => self.bw.get(),
        }
    }

    /// The bandwidth the model runs at (`bbr_bw`): the policer's rate while one is
    /// detected (v1), below `bw_lo` (v3).
    pub(crate) fn bw(&self) -> u64 {
        match self.version {
            BbrVersion::V3 => self.v3.max_bw().min(self.v3.bw_lo),
            BbrVersion::V1 if self.lt.use_bw => self.lt.bw,
            BbrVersion::V1 => self.bw.get(),
        }
    }

    /// `bbr_rate_bytes_per_sec`: gain × rate, less the 1 % margin.
    pub(crate) fn rate_with_gain(rate: u64, gain: u64) -> u64 {
        (u128::from(rate) * u128::from(gain) / u128::from(UNIT) * 99 / 100) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: 2.885 × cwnd / srtt (1 ms without one).
    fn init_pacing_rate(&mut self, cwnd_bytes: u64, srtt: Option<Duration>) {
        let rtt = match srtt.filter(|d| d.0 > 0) {
            Some(d) => {
                self.has_seen_rtt = true;
                d.0
            }
            None => 1_000_000,
        };
        let bw = (u128::from(cwnd_bytes) * NS / u128::from(rtt)) as u64;
        self.pacing_rate = Self::rate_with_gain(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`.
    pub(crate) fn set_pacing_rate(&mut self, bw: u64, gain: u64, cwnd_bytes: u64, srtt: Option<Duration>) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(cwnd_bytes, srtt);
        }
        let rate = Self::rate_with_gain(bw, gain);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal`: about 1 ms of the pacing rate (`sk_pacing_shift` 10), in
    /// segments, at least 2 (1 below 1.2 Mbit/s), at most 127.
    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate >> 10).min(65_536 - 1 - 320);
        let min = if self.pacing_rate < MIN_TSO_RATE { 1 } else { 2 };
        (bytes / self.mss.max(1)).max(min).min(0x7f)
    }

    /// `bbr_bdp`: ⌈bw × min_rtt × gain⌉ segments; the initial window before any RTT sample.
    pub(crate) fn bdp(&self, bw: u64, gain: u64) -> u64 {
        let Some(rtt) = self.min_rtt else { return TCP_INIT_CWND };
        let bytes = u128::from(bw) * u128::from(rtt.0) * u128::from(gain);
        let denom = NS * u128::from(UNIT) * u128::from(self.mss.max(1));
        bytes.div_ceil(denom) as u64
    }

    /// `bbr_quantization_budget`.
    pub(crate) fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        let up = if self.version == BbrVersion::V3 { super::bbr_v3::PROBE_UP } else { 0 };
        if self.mode == Mode::ProbeBw && self.cycle_idx == up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: the BDP at `gain` with the quantization budget, segments.
    pub(crate) fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`, the departure time taken as now: the flight,
    /// plus the next burst while the gain is above 1.
    pub(crate) fn in_net_at_edt(&self, inflight: u64) -> u64 {
        if self.pacing_gain > UNIT {
            inflight + self.tso_segs_goal()
        } else {
            inflight
        }
    }

    pub(crate) fn segs(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss.max(1))
    }

    /// `bbr_save_cwnd`.
    pub(crate) fn save_cwnd(&mut self, cwnd: u64) {
        if !matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_update_bw` (v1): the round count, long-term sampling, the max filter.
    fn update_bw(&mut self, rs: &RateSample, r: &RateSampler) {
        self.round_start = false;
        let (Some(delivered), true) = (rs.delivered, rs.interval.0 > 0) else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = r.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs, r);
        let bw = (u128::from(delivered) * NS / u128::from(rs.interval.0)) as u64;
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`.
    pub(crate) fn update_ack_aggregation(&mut self, rs: &RateSample, r: &RateSampler, cwnd: u64, win_rtts: u32) {
        if rs.acked_sacked == 0 || rs.delivered.is_none() || rs.interval.0 == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let at = r.delivered_at.unwrap_or(Instant(0));
        let epoch = at.saturating_since(self.ack_epoch_stamp);
        let mut expected = (u128::from(self.bw()) * u128::from(epoch.0) / NS) as u64;
        let acked = rs.acked_sacked;
        if self.ack_epoch_acked <= expected || self.segs(self.ack_epoch_acked + acked) >= 1 << 20 {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = at;
            expected = 0;
        }
        self.ack_epoch_acked += acked;
        let extra = self.segs(self.ack_epoch_acked.saturating_sub(expected)).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd`, segments.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (u128::from(self.bw()) * u128::from(EXTRA_ACKED_MAX.0) / NS) as u64;
        (self.extra_acked[0].max(self.extra_acked[1])).min(self.segs(max))
    }

    /// `bbr_is_next_cycle_phase` (v1).
    fn is_next_cycle_phase(&self, rs: &RateSample, r: &RateSampler) -> bool {
        let at = r.delivered_at.unwrap_or(Instant(0));
        let full_length = self.min_rtt.is_some_and(|m| at.saturating_since(self.cycle_stamp) > m);
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let inflight = self.in_net_at_edt(self.segs(rs.prior_in_flight));
        let bw = self.max_bw();
        if self.pacing_gain > UNIT {
            return full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || inflight <= self.inflight(bw, UNIT)
    }

    /// `bbr_reset_probe_bw_mode` (v1): a random phase other than 0.75, then the next.
    pub(crate) fn reset_probe_bw_mode(&mut self, r: &RateSampler) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = 8 - 1 - self.random_below(CYCLE_RAND) as usize;
        self.advance_cycle_phase(r);
    }

    fn advance_cycle_phase(&mut self, r: &RateSampler) {
        self.cycle_idx = (self.cycle_idx + 1) % 8;
        self.cycle_stamp = r.delivered_at.unwrap_or(Instant(0));
    }

    /// `bbr_reset_mode`: back to STARTUP, or PROBE_BW once the pipe was full.
    fn reset_mode(&mut self, r: &RateSampler) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(r);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_interval(&mut self, r: &RateSampler) {
        self.lt.last_stamp = r.delivered_at.unwrap_or(Instant(0));
        self.lt.last_delivered = r.delivered;
        self.lt.last_lost = r.lost;
        self.lt.rtt_cnt = 0;
    }

    fn reset_lt(&mut self, r: &RateSampler) {
        self.lt.bw = 0;
        self.lt.use_bw = false;
        self.lt.sampling = false;
        self.reset_lt_interval(r);
    }

    /// `bbr_lt_bw_interval_done`.
    fn lt_interval_done(&mut self, bw: u64, r: &RateSampler) {
        if self.lt.bw > 0 {
            let diff = bw.abs_diff(self.lt.bw);
            if diff * UNIT <= LT_BW_RATIO * self.lt.bw || Self::rate_with_gain(diff, UNIT) <= LT_BW_DIFF {
                self.lt.bw = (bw + self.lt.bw) / 2;
                self.lt.use_bw = true;
                self.pacing_gain = UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(r);
    }

    /// `bbr_lt_bw_sampling`: is a token-bucket policer limiting the flow?
    fn lt_bw_sampling(&mut self, rs: &RateSample, r: &RateSampler) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(r);
                    self.reset_probe_bw_mode(r);
                }
            }
            return;
        }
        if !self.lt.sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_interval(r);
            self.lt.sampling = true;
        }
        if rs.is_app_limited {
            return self.reset_lt(r);
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            return self.reset_lt(r);
        }
        if rs.losses == 0 {
            return;
        }
        let lost = r.lost - self.lt.last_lost;
        let delivered = r.delivered - self.lt.last_delivered;
        if delivered == 0 || lost * UNIT < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = r.delivered_at.unwrap_or(Instant(0)).saturating_since(self.lt.last_stamp);
        if t.0 < 1_000_000 {
            return; // under a millisecond: wait
        }
        let bw = (u128::from(delivered) * NS / u128::from(t.0)) as u64;
        self.lt_interval_done(bw, r);
    }

    /// `bbr_check_full_bw_reached` (v1).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (u128::from(self.full_bw) * u128::from(FULL_BW_THRESH) / u128::from(UNIT)) as u64;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain` (v1): STARTUP → DRAIN → PROBE_BW once the flight is one BDP.
    fn check_drain(&mut self, w: &mut Window, ctx: &RateCtx, r: &RateSampler) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = (self.inflight(self.max_bw(), UNIT) * self.mss).min(u64::from(u32::MAX)) as u32;
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(self.segs(ctx.in_flight)) <= self.inflight(self.max_bw(), UNIT)
        {
            self.reset_probe_bw_mode(r);
        }
    }

    /// `bbr_check_probe_rtt_done`: 200 ms and a round at the low flight are over.
    pub(crate) fn check_probe_rtt_done(&mut self, w: &mut Window, now: Instant, r: &RateSampler) {
        if self.probe_rtt_done.is_none_or(|t| now <= t) {
            return;
        }
        self.min_rtt_stamp = now;
        w.cwnd = w.cwnd.max((self.prior_cwnd * self.mss).min(u64::from(u32::MAX)) as u32);
        match self.version {
            BbrVersion::V3 => self.exit_probe_rtt_v3(r, now),
            BbrVersion::V1 => self.reset_mode(r),
        }
    }

    /// `bbr_update_min_rtt` (v1): the 10 s filter and PROBE_RTT.
    fn update_min_rtt(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
        let expired = ctx.now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = ctx.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.enter_probe_rtt(u64::from(w.cwnd) / self.mss.max(1));
        }
        self.probe_rtt_step(w, ctx, r, CWND_MIN_TARGET);
    }

    pub(crate) fn enter_probe_rtt(&mut self, cwnd_segs: u64) {
        self.mode = Mode::ProbeRtt;
        self.save_cwnd(cwnd_segs);
        self.probe_rtt_done = None;
    }

    /// PROBE_RTT's per-ACK part of `bbr_update_min_rtt`: hold the flight at
    /// `target` segments for max(200 ms, one round).
    pub(crate) fn probe_rtt_step(&mut self, w: &mut Window, ctx: &RateCtx, r: &mut RateSampler, target: u64) {
        if self.mode != Mode::ProbeRtt {
            return;
        }
        r.mark_app_limited(ctx.in_flight);
        if self.probe_rtt_done.is_none() && self.segs(ctx.in_flight) <= target {
            self.probe_rtt_done = Some(ctx.now + PROBE_RTT_MODE);
            self.probe_rtt_round_done = false;
            self.next_rtt_delivered = r.delivered;
        } else if self.probe_rtt_done.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(w, ctx.now, r);
            }
        }
    }

    /// `bbr_update_gains` (v1).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt.use_bw => (UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: Some(cwnd) under packet conservation.
    fn recover_or_restore(&mut self, cwnd: &mut u64, rs: &RateSample, ctx: &RateCtx, r: &RateSampler) -> bool {
        let acked = self.segs(rs.acked_sacked);
        if rs.losses > 0 {
            *cwnd = cwnd.saturating_sub(self.segs(rs.losses)).max(1);
        }
        let (state, prev) = (ctx.phase, self.prev_ca_state);
        let recovering = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = r.delivered;
            *cwnd = self.segs(ctx.in_flight) + acked;
        } else if recovering(prev) && !recovering(state) {
            *cwnd = (*cwnd).max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            *cwnd = (*cwnd).max(self.segs(ctx.in_flight) + acked);
            return true;
        }
        false
    }

    /// `bbr_set_cwnd`: toward the target, segments; `min_cap` is PROBE_RTT's cap.
    pub(crate) fn set_cwnd(
        &mut self,
        w: &mut Window,
        rs: &RateSample,
        ctx: &RateCtx,
        r: &RateSampler,
        probe_rtt_cap: u64,
    ) {
        let mut cwnd = u64::from(w.cwnd) / self.mss.max(1);
        let acked = self.segs(rs.acked_sacked);
        if acked > 0 && !self.recover_or_restore(&mut cwnd, rs, ctx, r) {
            let mut target = self.bdp(self.bw(), self.cwnd_gain) + self.ack_aggregation_cwnd();
            target = self.quantization_budget(target);
            let v3_init = (self.version == BbrVersion::V3).then_some(2 * self.init_cwnd);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || v3_init.map_or(self.segs(r.delivered) < TCP_INIT_CWND, |i| cwnd < i) {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(probe_rtt_cap);
        }
        w.cwnd = (cwnd * self.mss).min(u64::from(crate::window::CWND_MAX)) as u32;
    }

    /// A timeout put the sender in Loss (`bbr_set_state(TCP_CA_Loss)`), its flight
    /// counted lost: v1 starts a round, restarts full-bandwidth detection and shows
    /// the long-term sampler a loss; v3 (`bbr_v3.rs`) notes the loss round instead.
    fn on_loss_state(&mut self, w: &Window, r: &RateSampler) {
        self.prev_ca_state = CaState::Loss;
        match self.version {
            BbrVersion::V1 => {
                self.full_bw = 0;
                self.round_start = true;
                let rs = RateSample { losses: 1, ..RateSample::default() };
                self.lt_bw_sampling(&rs, r);
            }
            BbrVersion::V3 => self.on_timeout_v3(w, r),
        }
    }

    /// `bbr_main` (v1).
    fn main_v1(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
        self.update_bw(rs, r);
        self.update_ack_aggregation(rs, r, u64::from(w.cwnd) / self.mss.max(1), EXTRA_ACKED_WIN_RTTS);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, r) {
            self.advance_cycle_phase(r);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, ctx, r);
        self.update_min_rtt(w, rs, ctx, r);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, u64::from(w.cwnd), ctx.srtt);
        self.set_cwnd(w, rs, ctx, r, CWND_MIN_TARGET);
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    /// The window is the model's (`cong_control`), not grown per ACK.
    fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {}
    /// `bbr_ssthresh`: saves cwnd for the end of the recovery; ssthresh unchanged.
    fn ssthresh(&mut self, w: &Window, _kind: Congestion, _flight: u64) -> u32 {
        self.save_cwnd(u64::from(w.cwnd) / self.mss.max(1));
        w.ssthresh
    }
    fn codepoint(&self) -> Ecn {
        Ecn::Ect0
    }
    fn pacing_rate(&self, _now: Instant) -> Option<u64> {
        (self.pacing_rate > 0).then_some(self.pacing_rate)
    }
    /// `bbr_min_tso_segs`: 1 below 1.2 Mbit/s, else 2.
    fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE {
            1
        } else {
            2
        }
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_established(&mut self, w: &mut Window, srtt: Option<Duration>) {
        self.mss = u64::from(w.mss.max(1)); // ssthresh stays "arbitrarily high" (TCP_INFINITE_SSTHRESH)
        self.init_pacing_rate(u64::from(w.cwnd), srtt);
    }
    fn on_timeout(&mut self, w: &Window, r: &RateSampler) {
        self.on_loss_state(w, r);
    }
    fn cong_control(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
        match self.version {
            BbrVersion::V3 => self.main_v3(w, rs, ctx, r),
            BbrVersion::V1 => self.main_v1(w, rs, ctx, r),
        }
    }
    fn seed(&mut self, seed: u64) {
        Bbr::seed(self, seed);
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;

//! BBRv3 (`bbr_version = "v3"`): what Google's `google/bbr` v3 branch
//! (`net/ipv4/tcp_bbr.c`, `BBR_VERSION 3`) changes in BBR (`bbr.rs`).
//!
//! **Gains**: STARTUP pacing 2.77 (`bbr_startup_pacing_gain`, 4 ln 2) and cwnd 2.0
//! (`bbr_startup_cwnd_gain`); DRAIN 1/2.885; PROBE_BW cwnd gain 2.0, 2.25 in UP
//! (`bbr_bw_probe_cwnd_gain`); PROBE_RTT 1.
//!
//! **Bandwidth**: the maximum of the last two PROBE_BW cycles' samples (`bw_hi[2]`,
//! `bbr_advance_max_bw_filter` at the end of each probe's feedback), bounded by
//! `bw_lo`; samples are rounded up.
//!
//! **PROBE_BW states** (`bbr_update_cycle_phase`): DOWN (pacing 0.91) until the flight
//! is at most the BDP and leaves 15 % headroom below `inflight_hi`; CRUISE (1.0) until
//! it is time to probe: 2–3 s (`bbr_bw_probe_base_us` + a random part up to
//! `bbr_bw_probe_rand_us`) or min(63, target inflight) rounds (Reno coexistence,
//! with 0–1 random rounds); REFILL (1.0) for one round with the lower bounds reset;
//! UP (1.25), raising `inflight_hi` by a slope that doubles each round while cwnd is
//! limited by it, until the bandwidth plateaus (3 rounds under 1.25×), the flight reaches
//! `inflight_hi` after a probe that went too high, or loss/ECN says too high.
//!
//! **Too high** (`bbr_is_inflight_too_high`): more than 2 % of the data in flight when
//! the delivered segment left was lost since (`bbr_loss_thresh`), or, ECN-eligible,
//! more than 50 % of the data delivered was CE-marked (`bbr_ecn_thresh`). While probing
//! (REFILL, UP, once per probe) that cuts `inflight_hi` to max(tx_in_flight, 0.7 ×
//! target inflight) (`bbr_beta` 0.3) and starts DOWN (`bbr_handle_inflight_too_high`).
//! In STARTUP: 6 loss events in a round of recovery with loss too high, or 2 rounds
//! with a CE ratio over 50 %, end STARTUP with `inflight_hi` = max(BDP, latest flight).
//!
//! **Lower bounds** (`bbr_adapt_lower_bounds`), once per round outside probing: a loss
//! in the round cuts `bw_lo` and `inflight_lo` to 0.7× (not below the latest round's
//! delivery); CE in the round cuts `inflight_lo` to (1 − α/3)× (`bbr_ecn_factor`).
//! A timeout is one such loss round (`bbr_note_loss` from `bbr_skb_marked_lost`), and
//! outside probing an unset `inflight_lo` starts at the cwnd saved before it
//! (`bbr_set_state`): the go-back-N retransmissions after it are not new losses.
//!
//! **ECN** (`bbr_update_ecn_alpha`, each round): α ← (1 − 1/16) α + 1/16 × CE ratio of
//! the round's delivered data, α starting at 1 (`bbr_ecn_alpha_gain`, `bbr_ecn_alpha_init`).
//! A flow is ECN-eligible once ECN was negotiated, the route is marked `ecn_low`
//! (Linux's `RTAX_FEATURE_ECN_LOW` route feature, "shallow-threshold ECN":
//! `bbr_ecn_low`, off by default) and min_rtt ≤ 5 ms (`bbr_ecn_max_rtt_us`). Without
//! that, CE marks change nothing. The receiving end of a v3 flow echoes CE as DCTCP's
//! does (`bbr_precise_ece_ack`, `bbr::echoes_ce_precisely`). With ECN in a cycle but no loss, the next probe comes
//! at once with a slope of half of `inflight_hi` (`bbr_ecn_reprobe_gain`).
//!
//! **cwnd bound** (`bbr_bound_cwnd_for_inflight_model`): in PROBE_BW except CRUISE at most
//! `inflight_hi`; in CRUISE and PROBE_RTT at most `inflight_hi` less 15 %; always at most
//! `inflight_lo`, at least 4 segments.
//!
//! **min_rtt and PROBE_RTT**: PROBE_RTT when no RTT sample was as low for 5 s
//! (`bbr_probe_rtt_win_ms`), at cwnd 0.5 × BDP (`bbr_probe_rtt_cwnd_gain`); min_rtt
//! itself is kept over 10 s.
//!
//! **Not modelled**: the fast path (`bbr_run_fast_path`, a CPU saving for app-limited
//! flows), Protective Load Balancing (`bbr_plb`), the exact lost prefix of a lost
//! segment (`bbr_inflight_hi_from_lost_skb`) and so the `inflight_hi` cut when a
//! timeout's marks end a bandwidth probe, the RTT-dependent TSO goal and the TLP
//! refinements of the latest-delivery filter.

use super::bbr::{Bbr, Mode, CWND_GAIN, CWND_MIN_TARGET, DRAIN_GAIN, MIN_RTT_WIN, UNIT};
use super::RateCtx;
use crate::rate_sample::{RateSample, RateSampler};
use crate::window::{CaState, Window};
use ecnlab_wire::{Duration, Instant};

const STARTUP_PACING_GAIN: u64 = UNIT * 277 / 100 + 1;
const STARTUP_CWND_GAIN: u64 = UNIT * 2;
pub(crate) const PROBE_UP: usize = 0;
const PROBE_DOWN: usize = 1;
const PROBE_CRUISE: usize = 2;
const PROBE_REFILL: usize = 3;
const PACING_GAIN: [u64; 4] = [UNIT * 5 / 4, UNIT * 91 / 100, UNIT, UNIT];
const PROBE_RTT_WIN: Duration = Duration(5_000_000_000);
const PROBE_RTT_CWND_GAIN: u64 = UNIT / 2;
const ECN_MAX_RTT: Duration = Duration(5_000_000);
const BETA: u64 = UNIT * 30 / 100;
const ECN_ALPHA_GAIN: u64 = UNIT / 16;
const ECN_FACTOR: u64 = UNIT / 3;
const ECN_THRESH: u64 = UNIT / 2;
const ECN_REPROBE_GAIN: u64 = UNIT / 2;
const LOSS_THRESH: u64 = UNIT * 2 / 100;
const FULL_LOSS_CNT: u32 = 6;
const FULL_ECN_CNT: u32 = 2;
const INFLIGHT_HEADROOM: u64 = UNIT * 15 / 100;
const BW_PROBE_CWND_GAIN: u64 = 1;
const BW_PROBE_MAX_ROUNDS: u64 = 63;
const BW_PROBE_RAND_ROUNDS: u64 = 2;
const BW_PROBE_BASE: Duration = Duration(2_000_000_000);
const BW_PROBE_RAND_US: u64 = 1_000_000;
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const NS: u128 = 1_000_000_000;
const UNSET: u64 = u64::MAX;

/// How the ACKs relate to bandwidth probing (`enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBRv3's state beside v1's; windows in segments, rates in bytes per second.
#[derive(Clone, Debug)]
pub(crate) struct V3 {
    pub(crate) ecn_low: bool,
    pub(crate) bw_hi: [u64; 2],
    pub(crate) bw_lo: u64,
    pub(crate) bw_latest: u64,
    pub(crate) inflight_latest: u64,
    pub(crate) inflight_lo: u64,
    pub(crate) inflight_hi: u64,
    loss_round_delivered: u64,
    pub(crate) loss_round_start: bool,
    pub(crate) loss_in_round: bool,
    pub(crate) ecn_in_round: bool,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    pub(crate) full_bw_now: bool,
    startup_ecn_rounds: u32,
    loss_events_in_round: u32,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    probe_wait: Duration,
    pub(crate) rounds_since_probe: u64,
    pub(crate) ack_phase: AckPhase,
    pub(crate) bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    pub(crate) ecn_eligible: bool,
    /// In 1/256.
    pub(crate) ecn_alpha: u64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    probe_rtt_min: Option<Duration>,
    probe_rtt_min_stamp: Instant,
    sample_bw: u64,
}

impl V3 {
    pub(crate) fn new(ecn_low: bool) -> Self {
        V3 {
            ecn_low,
            bw_hi: [0; 2],
            bw_lo: UNSET,
            bw_latest: 0,
            inflight_latest: 0,
            inflight_lo: UNSET,
            inflight_hi: UNSET,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            full_bw_now: false,
            startup_ecn_rounds: 0,
            loss_events_in_round: 0,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: UNSET,
            bw_probe_up_acks: 0,
            probe_wait: Duration(0),
            rounds_since_probe: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            ecn_eligible: false,
            ecn_alpha: UNIT,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: Instant(0),
            sample_bw: 0,
        }
    }

    /// `bbr_max_bw`: the larger of the two cycles' maxima.
    pub(crate) fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }
}

impl Bbr {
    /// `bbr_main` (v3).
    pub(crate) fn main_v3(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
        self.update_round_start_v3(rs, r);
        if self.round_start {
            self.v3.rounds_since_probe = (self.v3.rounds_since_probe + 1).min(0xff);
            self.update_ecn_alpha(ctx, r);
        }
        self.v3.ecn_in_round |= self.v3.ecn_eligible && rs.ece;
        self.v3.sample_bw = match rs.delivered {
            Some(d) if rs.interval.0 > 0 => (u128::from(d) * NS).div_ceil(u128::from(rs.interval.0)) as u64,
            _ => 0,
        };
        self.update_latest_delivery_signals(rs, r);
        self.update_congestion_signals(rs, w);
        let win = if self.full_bw_reached { EXTRA_ACKED_WIN_RTTS } else { 1 };
        self.update_ack_aggregation(rs, r, u64::from(w.cwnd) / self.mss.max(1), win);
        self.check_loss_too_high_in_startup(rs, ctx);
        self.check_full_bw_reached_v3(rs);
        self.check_drain_v3(w, ctx, r);
        self.update_cycle_phase_v3(rs, ctx, r, w);
        self.update_min_rtt_v3(w, rs, ctx, r);
        self.update_gains_v3();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, u64::from(w.cwnd), ctx.srtt);
        let cap = self.probe_rtt_cwnd();
        self.set_cwnd(w, rs, ctx, r, cap);
        self.bound_cwnd_for_inflight_model(w);
        if self.v3.loss_round_start {
            // bbr_advance_latest_delivery_signals
            self.v3.bw_latest = self.v3.sample_bw;
            self.v3.inflight_latest = self.segs(rs.delivered.unwrap_or(0));
        }
        self.v3.loss_in_cycle |= rs.lost > 0;
        self.v3.ecn_in_cycle |= rs.delivered_ce > 0;
    }

    fn update_round_start_v3(&mut self, rs: &RateSample, r: &RateSampler) {
        self.round_start = false;
        if rs.interval.0 > 0 && rs.delivered.is_some() && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = r.delivered;
            self.round_start = true;
        }
    }

    /// `bbr_update_ecn_alpha`, once per round.
    fn update_ecn_alpha(&mut self, ctx: &RateCtx, r: &RateSampler) {
        let v = &mut self.v3;
        if !v.ecn_eligible && ctx.ecn && v.ecn_low && self.min_rtt.is_some_and(|m| m <= ECN_MAX_RTT) {
            v.ecn_eligible = true;
        }
        if !v.ecn_eligible {
            return;
        }
        let delivered = r.delivered - v.alpha_last_delivered;
        let ce = r.delivered_ce - v.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ce_ratio = ce * UNIT / delivered;
        let alpha = ((UNIT - ECN_ALPHA_GAIN) * v.ecn_alpha) / UNIT + (ECN_ALPHA_GAIN * ce_ratio) / UNIT;
        v.ecn_alpha = alpha.min(UNIT);
        v.alpha_last_delivered = r.delivered;
        v.alpha_last_delivered_ce = r.delivered_ce;
        // bbr_check_ecn_too_high_in_startup
        if self.full_bw_reached {
            return;
        }
        if ce_ratio >= ECN_THRESH {
            self.v3.startup_ecn_rounds += 1;
        } else {
            self.v3.startup_ecn_rounds = 0;
        }
        if self.v3.startup_ecn_rounds >= FULL_ECN_CNT {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// `bbr_handle_queue_too_high_in_startup`.
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        let bdp = self.inflight(self.max_bw(), UNIT);
        self.v3.inflight_hi = bdp.max(self.v3.inflight_latest);
    }

    /// `bbr_update_latest_delivery_signals`.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, r: &RateSampler) {
        self.v3.loss_round_start = false;
        if rs.interval.0 == 0 || rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        let delivered = self.segs(rs.delivered.unwrap_or(0));
        let v = &mut self.v3;
        v.bw_latest = v.bw_latest.max(v.sample_bw);
        v.inflight_latest = v.inflight_latest.max(delivered);
        if rs.prior_delivered >= v.loss_round_delivered {
            v.loss_round_delivered = r.delivered;
            v.loss_round_start = true;
        }
    }

    /// `bbr_update_congestion_signals`: the bandwidth filter, and once per round the lower bounds.
    fn update_congestion_signals(&mut self, rs: &RateSample, w: &Window) {
        if rs.interval.0 == 0 || rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        let bw = self.v3.sample_bw;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.v3.bw_hi[1] = self.v3.bw_hi[1].max(bw);
        }
        self.v3.loss_in_round |= rs.losses > 0;
        if !self.v3.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(w);
        self.v3.loss_in_round = false;
        self.v3.ecn_in_round = false;
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.cycle_idx, PROBE_REFILL | PROBE_UP))
    }

    /// `bbr_adapt_lower_bounds`: the ECN and loss cuts, once per round, not while probing.
    fn adapt_lower_bounds(&mut self, w: &Window) {
        if self.is_probing_bandwidth() {
            return;
        }
        let cwnd = u64::from(w.cwnd) / self.mss.max(1);
        let max_bw = self.max_bw();
        let v = &mut self.v3;
        let mut ecn_inflight_lo = UNSET;
        if v.ecn_in_round {
            if v.inflight_lo == UNSET {
                v.inflight_lo = cwnd;
            }
            let cut = UNIT - (v.ecn_alpha * ECN_FACTOR) / UNIT;
            ecn_inflight_lo = v.inflight_lo * cut / UNIT;
        }
        if v.loss_in_round {
            if v.bw_lo == UNSET {
                v.bw_lo = max_bw;
            }
            if v.inflight_lo == UNSET {
                v.inflight_lo = cwnd;
            }
            let cut = UNIT - BETA;
            v.bw_lo = v.bw_latest.max((u128::from(v.bw_lo) * u128::from(cut) / u128::from(UNIT)) as u64);
            v.inflight_lo = v.inflight_latest.max(v.inflight_lo * cut / UNIT);
        }
        v.inflight_lo = v.inflight_lo.min(ecn_inflight_lo);
        v.bw_lo = v.bw_lo.max(1);
    }

    fn reset_lower_bounds(&mut self) {
        self.v3.bw_lo = UNSET;
        self.v3.inflight_lo = UNSET;
    }

    fn reset_congestion_signals(&mut self) {
        let v = &mut self.v3;
        (v.loss_in_round, v.ecn_in_round, v.loss_in_cycle, v.ecn_in_cycle) = (false, false, false, false);
        (v.bw_latest, v.inflight_latest) = (0, 0);
    }

    /// A timeout (`bbr_set_state(TCP_CA_Loss)`, after `tcp_timeout_mark_lost` called
    /// `bbr_skb_marked_lost` for the flight): one loss round from now
    /// (`bbr_note_loss`), full-bandwidth detection restarts, and outside probing an
    /// unset `inflight_lo` starts from the larger of cwnd and the cwnd saved before.
    pub(crate) fn on_timeout_v3(&mut self, w: &Window, r: &RateSampler) {
        if !self.v3.loss_in_round {
            self.v3.loss_round_delivered = r.delivered;
        }
        self.v3.loss_in_round = true;
        self.v3.loss_in_cycle = true;
        self.reset_full_bw();
        if !self.is_probing_bandwidth() && self.v3.inflight_lo == UNSET {
            self.v3.inflight_lo = (u64::from(w.cwnd) / self.mss.max(1)).max(self.prior_cwnd);
        }
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.v3.full_bw_now = false;
    }

    /// `bbr_is_inflight_too_high`: loss over 2 % of the flight, or (ECN-eligible) CE over 50 %.
    pub(crate) fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        if rs.lost > 0 && rs.tx_in_flight > 0 && rs.lost * UNIT > rs.tx_in_flight * LOSS_THRESH {
            return true;
        }
        let delivered = rs.delivered.unwrap_or(0);
        self.v3.ecn_eligible && rs.delivered_ce > 0 && delivered > 0 && rs.delivered_ce * UNIT > delivered * ECN_THRESH
    }

    /// `bbr_target_inflight`: the BDP, or cwnd if congestion cut it below.
    fn target_inflight(&self, w: &Window) -> u64 {
        self.inflight(self.bw(), UNIT).min(u64::from(w.cwnd) / self.mss.max(1))
    }

    /// `bbr_handle_inflight_too_high`: cut `inflight_hi`, and stop probing.
    fn handle_inflight_too_high(&mut self, rs: &RateSample, w: &Window, r: &RateSampler, now: Instant) {
        self.v3.prev_probe_too_high = true;
        self.v3.bw_probe_samples = false;
        if !rs.is_app_limited {
            let cut = self.target_inflight(w) * (UNIT - BETA) / UNIT;
            self.v3.inflight_hi = self.segs(rs.tx_in_flight).max(cut);
        }
        if self.mode == Mode::ProbeBw && self.cycle_idx == PROBE_UP {
            self.start_bw_probe_down(r, now);
        }
    }

    /// `bbr_check_loss_too_high_in_startup`.
    fn check_loss_too_high_in_startup(&mut self, rs: &RateSample, ctx: &RateCtx) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.v3.loss_events_in_round < 0xf {
            self.v3.loss_events_in_round += 1;
        }
        if self.v3.loss_round_start
            && ctx.phase == CaState::Recovery
            && self.v3.loss_events_in_round >= FULL_LOSS_CNT
            && self.is_inflight_too_high(rs)
        {
            return self.handle_queue_too_high_in_startup();
        }
        if self.v3.loss_round_start {
            self.v3.loss_events_in_round = 0;
        }
    }

    /// `bbr_check_full_bw_reached` (v3): on the sample, not the filter.
    fn check_full_bw_reached_v3(&mut self, rs: &RateSample) {
        if self.v3.full_bw_now || rs.is_app_limited {
            return;
        }
        let thresh = (u128::from(self.full_bw) * u128::from(FULL_BW_THRESH) / u128::from(UNIT)) as u64;
        if self.v3.sample_bw >= thresh {
            self.reset_full_bw();
            self.full_bw = self.v3.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.v3.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.v3.full_bw_now;
    }

    /// `bbr_check_drain` (v3).
    fn check_drain_v3(&mut self, w: &mut Window, ctx: &RateCtx, r: &RateSampler) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = (self.inflight(self.max_bw(), UNIT) * self.mss).min(u64::from(u32::MAX)) as u32;
            self.reset_congestion_signals();
        }
        let flight = self.in_net_at_edt(self.segs(ctx.in_flight));
        if self.mode == Mode::Drain && flight <= self.inflight(self.max_bw(), UNIT) {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(r, ctx.now);
        }
    }

    /// `bbr_pick_probe_wait`: 0–1 rounds and 2–3 s, at random.
    fn pick_probe_wait(&mut self) {
        self.v3.rounds_since_probe = self.random_below(BW_PROBE_RAND_ROUNDS);
        let us = self.random_below(BW_PROBE_RAND_US);
        self.v3.probe_wait = BW_PROBE_BASE + Duration(us * 1000);
    }

    fn start_bw_probe_refill(&mut self, up_rounds: u32, r: &RateSampler) {
        self.reset_lower_bounds();
        let v = &mut self.v3;
        v.bw_probe_up_rounds = up_rounds;
        v.bw_probe_up_acks = 0;
        v.stopped_risky_probe = false;
        v.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = r.delivered;
        self.cycle_idx = PROBE_REFILL;
    }

    fn start_bw_probe_up(&mut self, r: &RateSampler, now: Instant, w: &Window) {
        self.v3.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = r.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = self.v3.sample_bw;
        self.cycle_idx = PROBE_UP;
        self.raise_inflight_hi_slope(w);
    }

    pub(crate) fn start_bw_probe_down(&mut self, r: &RateSampler, now: Instant) {
        self.reset_congestion_signals();
        self.v3.bw_probe_up_cnt = UNSET;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.v3.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = r.delivered;
        self.cycle_idx = PROBE_DOWN;
    }

    fn start_bw_probe_cruise(&mut self) {
        if self.v3.inflight_lo != UNSET {
            self.v3.inflight_lo = self.v3.inflight_lo.min(self.v3.inflight_hi);
        }
        self.cycle_idx = PROBE_CRUISE;
    }

    /// `bbr_raise_inflight_hi_slope`: twice the growth each round of UP.
    fn raise_inflight_hi_slope(&mut self, w: &Window) {
        let growth = 1u64 << self.v3.bw_probe_up_rounds;
        self.v3.bw_probe_up_rounds = (self.v3.bw_probe_up_rounds + 1).min(30);
        self.v3.bw_probe_up_cnt = (u64::from(w.cwnd) / self.mss.max(1) / growth).max(1);
    }

    /// `bbr_probe_inflight_hi_upward`.
    fn probe_inflight_hi_upward(&mut self, rs: &RateSample, w: &Window, cwnd_limited: bool) {
        let cwnd = u64::from(w.cwnd) / self.mss.max(1);
        if !cwnd_limited || cwnd < self.v3.inflight_hi {
            return;
        }
        let acked = self.segs(rs.acked_sacked);
        let v = &mut self.v3;
        v.bw_probe_up_acks += acked;
        if v.bw_probe_up_acks >= v.bw_probe_up_cnt {
            let delta = v.bw_probe_up_acks / v.bw_probe_up_cnt;
            v.bw_probe_up_acks -= delta * v.bw_probe_up_cnt;
            v.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(w);
        }
    }

    /// `bbr_adapt_upper_bounds`: true when it decided a state transition.
    fn adapt_upper_bounds(&mut self, rs: &RateSample, ctx: &RateCtx, r: &RateSampler, w: &Window) -> bool {
        if self.v3.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.v3.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.v3.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.v3.bw_probe_samples = false;
            self.v3.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited && self.v3.bw_hi[1] > 0 {
                self.v3.bw_hi = [self.v3.bw_hi[1], 0]; // bbr_advance_max_bw_filter
            }
            if self.mode == Mode::ProbeBw && self.v3.stopped_risky_probe && !self.v3.prev_probe_too_high {
                self.start_bw_probe_refill(0, r);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.v3.bw_probe_samples {
                self.handle_inflight_too_high(rs, w, r, ctx.now);
            }
        } else {
            if self.v3.inflight_hi == UNSET {
                return false;
            }
            self.v3.inflight_hi = self.v3.inflight_hi.max(self.segs(rs.tx_in_flight));
            if self.mode == Mode::ProbeBw && self.cycle_idx == PROBE_UP {
                self.probe_inflight_hi_upward(rs, w, cwnd_limited(rs, w));
            }
        }
        false
    }

    /// `bbr_check_time_to_probe_bw`.
    fn check_time_to_probe_bw(&mut self, w: &Window, ctx: &RateCtx, r: &RateSampler) -> bool {
        let v = &self.v3;
        if v.ecn_eligible && v.ecn_in_cycle && !v.loss_in_cycle && ctx.phase == CaState::Open {
            let n = (v.inflight_hi.min(u64::from(u32::MAX)) * ECN_REPROBE_GAIN / UNIT).max(1).ilog2();
            self.start_bw_probe_refill(n, r);
            return true;
        }
        let elapsed = ctx.now > self.cycle_stamp + v.probe_wait;
        let reno_rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(w));
        if elapsed || self.v3.rounds_since_probe >= reno_rounds {
            self.start_bw_probe_refill(0, r);
            return true;
        }
        false
    }

    fn inflight_with_headroom(&self) -> u64 {
        let hi = self.v3.inflight_hi;
        if hi == UNSET {
            return UNSET;
        }
        let headroom = (hi * INFLIGHT_HEADROOM / UNIT).max(1);
        hi.saturating_sub(headroom).max(CWND_MIN_TARGET)
    }

    /// `bbr_update_cycle_phase` (v3): DOWN → CRUISE → REFILL → UP → DOWN.
    fn update_cycle_phase_v3(&mut self, rs: &RateSample, ctx: &RateCtx, r: &RateSampler, w: &Window) {
        if !self.full_bw_reached || self.adapt_upper_bounds(rs, ctx, r, w) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.in_net_at_edt(self.segs(rs.prior_in_flight));
        let bw = self.max_bw();
        match self.cycle_idx {
            PROBE_CRUISE => {
                self.check_time_to_probe_bw(w, ctx, r);
            }
            PROBE_REFILL => {
                if self.round_start {
                    self.v3.bw_probe_samples = true;
                    self.start_bw_probe_up(r, ctx.now, w);
                }
            }
            PROBE_UP => {
                let mut done = false;
                let cwnd = u64::from(w.cwnd) / self.mss.max(1);
                if self.v3.prev_probe_too_high && inflight >= self.v3.inflight_hi {
                    self.v3.stopped_risky_probe = true;
                    done = true;
                } else if cwnd_limited(rs, w) && cwnd >= self.v3.inflight_hi {
                    self.reset_full_bw();
                    self.full_bw = self.v3.sample_bw;
                } else if self.v3.full_bw_now {
                    done = true;
                }
                if done {
                    self.v3.prev_probe_too_high = false;
                    self.start_bw_probe_down(r, ctx.now);
                }
            }
            _ => {
                if self.check_time_to_probe_bw(w, ctx, r) {
                    return;
                }
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(bw, UNIT) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    /// `bbr_exit_probe_rtt`.
    pub(crate) fn exit_probe_rtt_v3(&mut self, r: &RateSampler, now: Instant) {
        self.v3.probe_rtt_min_stamp = now;
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(r, now);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_probe_rtt_cwnd`: half the BDP, at least 4 segments.
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN).max(CWND_MIN_TARGET)
    }

    /// `bbr_update_min_rtt` (v3): PROBE_RTT after 5 s without as low an RTT.
    fn update_min_rtt_v3(&mut self, w: &mut Window, rs: &RateSample, ctx: &RateCtx, r: &mut RateSampler) {
        let now = ctx.now;
        let probe_expired = now > self.v3.probe_rtt_min_stamp + PROBE_RTT_WIN;
        if let Some(rtt) = rs.rtt {
            if self.v3.probe_rtt_min.is_none_or(|m| rtt < m) || probe_expired {
                self.v3.probe_rtt_min = Some(rtt);
                self.v3.probe_rtt_min_stamp = now;
            }
        }
        let min_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(p) = self.v3.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.v3.probe_rtt_min_stamp;
            }
        }
        if probe_expired && self.mode != Mode::ProbeRtt {
            self.enter_probe_rtt(u64::from(w.cwnd) / self.mss.max(1));
            self.v3.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = r.delivered;
        }
        let target = self.probe_rtt_cwnd();
        self.probe_rtt_step(w, ctx, r, target);
    }

    /// `bbr_update_gains` (v3).
    fn update_gains_v3(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw if self.cycle_idx == PROBE_UP => {
                (PACING_GAIN[PROBE_UP], CWND_GAIN + UNIT * BW_PROBE_CWND_GAIN / 4)
            }
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// `bbr_bound_cwnd_for_inflight_model`.
    fn bound_cwnd_for_inflight_model(&self, w: &mut Window) {
        let mut cap = UNSET;
        if self.mode == Mode::ProbeBw && self.cycle_idx != PROBE_CRUISE {
            cap = self.v3.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBw {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.v3.inflight_lo).max(CWND_MIN_TARGET);
        let bytes = cap.saturating_mul(self.mss).min(u64::from(u32::MAX)) as u32;
        w.cwnd = w.cwnd.min(bytes);
    }
}

/// Linux's `tp->is_cwnd_limited`, from this ACK: the flight before it filled cwnd
/// to within a segment.
fn cwnd_limited(rs: &RateSample, w: &Window) -> bool {
    rs.prior_in_flight + u64::from(w.mss) > u64::from(w.cwnd)
}

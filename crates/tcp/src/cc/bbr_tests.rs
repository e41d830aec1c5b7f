//! BBR's rules, each test named after the kernel function it checks (`tcp_bbr.c`,
//! mainline for v1, `google/bbr` v3). The model is driven by synthetic rate
//! samples: one ACK per round delivering what the path carries in that round.

use super::*;
use crate::cc::bbr_v3::PROBE_UP;
use crate::config::CcKind;
use proptest::prelude::*;

const MSS: u64 = 1000;
const RTT: Duration = Duration(20_000_000);
/// 10 Mbit/s in bytes per second.
const BW: u64 = 1_250_000;

struct Drv {
    b: Bbr,
    w: Window,
    r: RateSampler,
    now: Instant,
    phase: CaState,
    ecn: bool,
}

fn drv(version: BbrVersion, ecn_low: bool) -> Drv {
    let cfg = TcpConfig {
        cc: CcKind::Bbr,
        pacing: true,
        mss: MSS as u32,
        init_cwnd_segments: 10,
        bbr: BbrKnobs { version, ecn_low },
        ..TcpConfig::default()
    };
    let mut b = Bbr::new(&cfg, &cfg.bbr);
    let mut w = Window::new(3);
    w.init(MSS as u32, 10);
    b.on_established(&mut w, Some(RTT));
    Drv { b, w, r: RateSampler::default(), now: Instant(0), phase: CaState::Open, ecn: true }
}

impl Drv {
    /// One round of `rtt` in which the path delivered `bw` bytes per second; `extra`
    /// adjusts the sample (losses, CE, app-limited).
    fn round_with(&mut self, bw: u64, rtt: Duration, extra: impl Fn(&mut RateSample)) -> RateSample {
        self.now += rtt;
        let bytes = (u128::from(bw) * u128::from(rtt.0) / 1_000_000_000) as u64;
        let prior = self.r.delivered;
        self.r.delivered += bytes;
        self.r.delivered_at = Some(self.now);
        let mut rs = RateSample {
            delivered: Some(bytes),
            interval: rtt,
            prior_delivered: prior,
            acked_sacked: bytes,
            rtt: Some(rtt),
            prior_in_flight: u64::from(self.w.cwnd),
            tx_in_flight: u64::from(self.w.cwnd),
            // Sent while the sampler was app-limited (PROBE_RTT marks it so).
            is_app_limited: self.r.app_limited != 0,
            ..RateSample::default()
        };
        extra(&mut rs);
        self.r.delivered_ce += rs.delivered_ce;
        self.r.lost += rs.losses;
        let ctx = RateCtx {
            now: self.now,
            in_flight: u64::from(self.w.cwnd).min(bytes),
            phase: self.phase,
            ecn: self.ecn,
            srtt: Some(rtt),
        };
        self.b.cong_control(&mut self.w, &rs, &ctx, &mut self.r);
        rs
    }

    fn round(&mut self, bw: u64) -> RateSample {
        self.round_with(bw, RTT, |_| {})
    }

    fn cwnd_segs(&self) -> u64 {
        u64::from(self.w.cwnd) / MSS
    }

    /// Rounds at `BW` until the model is in PROBE_BW.
    fn reach_probe_bw(&mut self) {
        for _ in 0..40 {
            self.round(BW);
            if self.b.mode == Mode::ProbeBw {
                return;
            }
        }
        panic!("never reached PROBE_BW: {:?}", self.b.mode);
    }
}

#[test]
fn bbr_check_full_bw_reached_after_3_rounds_without_25_percent_growth() {
    let mut d = drv(BbrVersion::V1, false);
    // Growing by half each round: STARTUP goes on.
    let mut bw = 100_000;
    for _ in 0..6 {
        d.round(bw);
        bw += bw / 2;
        assert_eq!(d.b.mode, Mode::Startup);
    }
    // Flat: the first round sets full_bw to the plateau (it grew), then three rounds without 25 %.
    let flat = bw;
    d.round(flat);
    for n in 1..=2 {
        d.round(flat);
        assert!(!d.b.full_bw_reached, "{n} flat rounds are not enough");
    }
    d.round(flat);
    assert!(d.b.full_bw_reached, "the third round without growth fills the pipe");
    assert_ne!(d.b.mode, Mode::Startup, "STARTUP is over (DRAIN or already PROBE_BW)");
}

#[test]
fn bbr_update_bw_forgets_a_maximum_after_10_rounds() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    d.round(2 * BW);
    assert_eq!(d.b.max_bw(), 2 * BW);
    for _ in 0..9 {
        d.round(BW);
        assert_eq!(d.b.max_bw(), 2 * BW, "still in the 10-round window");
    }
    d.round(BW);
    d.round(BW);
    assert_eq!(d.b.max_bw(), BW, "aged out");
}

#[test]
fn bbr_update_bw_skips_an_app_limited_sample_below_the_maximum() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    for _ in 0..12 {
        d.round_with(BW / 4, RTT, |rs| rs.is_app_limited = true);
    }
    assert_eq!(d.b.max_bw(), BW, "app-limited samples do not drag the estimate down");
}

#[test]
fn bbr_set_pacing_rate_is_the_gain_times_bw_less_one_percent() {
    let mut d = drv(BbrVersion::V1, false);
    // Before any sample: 2.885 × the initial window per srtt.
    assert_eq!(d.b.pacing_rate, Bbr::rate_with_gain(10 * MSS * 1_000_000_000 / RTT.0, HIGH_GAIN));
    d.reach_probe_bw();
    for _ in 0..8 {
        d.round(BW);
        let gain = PACING_GAIN[d.b.cycle_idx];
        assert_eq!(d.b.pacing_rate, BW * gain / UNIT * 99 / 100, "phase {}", d.b.cycle_idx);
    }
}

#[test]
fn bbr_set_cwnd_converges_to_the_target_cwnd() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    for _ in 0..20 {
        d.round(BW);
    }
    // bbr_bdp: 1.25 MB/s × 20 ms = 25 segments, × cwnd_gain 2 = 50; bbr_quantization_budget:
    // + 3 × bbr_tso_segs_goal (2 below 1 ms of 1 500 B) = 56, even; + 2 in the 1.25 phase.
    assert_eq!(d.b.bdp(BW, CWND_GAIN), 50);
    let budget = if d.b.cycle_idx == 0 { 8 } else { 6 };
    assert_eq!(d.b.quantization_budget(50), 50 + budget);
    // One ACK per round is the most aggregated ACK stream: bbr_ack_aggregation_cwnd adds
    // the excess a round's ACK carries.
    let agg = d.b.ack_aggregation_cwnd();
    assert!(agg > 0);
    assert_eq!(d.cwnd_segs(), d.b.quantization_budget(50 + agg));
}

#[test]
fn bbr_update_min_rtt_enters_probe_rtt_after_10_s_without_a_lower_rtt() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    // A new minimum: the filter's stamp is now.
    d.round_with(BW, Duration(RTT.0 - 1_000), |_| {});
    // RTT samples above the minimum (a standing queue) for 10 s.
    let start = d.now;
    while d.now < start + MIN_RTT_WIN {
        d.round_with(BW, Duration(RTT.0 + 5_000_000), |_| {});
        assert_ne!(d.b.mode, Mode::ProbeRtt);
    }
    d.round_with(BW, Duration(RTT.0 + 5_000_000), |_| {});
    assert_eq!(d.b.mode, Mode::ProbeRtt, "the 10 s min_rtt is stale");
    assert!(d.cwnd_segs() <= CWND_MIN_TARGET, "PROBE_RTT holds 4 segments");
    assert_eq!(d.b.min_rtt, Some(Duration(RTT.0 + 5_000_000)), "the expired filter takes the new sample");
}

#[test]
fn bbr_update_min_rtt_equal_samples_do_not_postpone_probe_rtt() {
    // Linux commit 1b9e2a8c99a5 ("tcp: only postpone PROBE_RTT if RTT is < current min_rtt
    // estimate"): `rs->rtt_us < bbr->min_rtt_us`, so samples equal to min_rtt leave its stamp.
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    let start = d.now;
    while d.now <= start + MIN_RTT_WIN {
        d.round(BW); // each sample equals min_rtt
    }
    d.round(BW);
    assert_eq!(d.b.mode, Mode::ProbeRtt, "equal samples do not refresh the 10 s filter");
}

#[test]
fn bbr_update_min_rtt_stays_out_of_probe_rtt_while_min_rtt_falls() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    let start = d.now;
    let mut rtt = RTT.0;
    while d.now < start + Duration(3 * MIN_RTT_WIN.0) {
        rtt -= 1_000; // a sample 1 µs below min_rtt every round renews the filter
        d.round_with(BW, Duration(rtt), |_| {});
        assert_ne!(d.b.mode, Mode::ProbeRtt);
    }
}

#[test]
fn bbr_check_probe_rtt_done_after_200_ms_and_a_round_restores_cwnd() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    for _ in 0..12 {
        d.round(BW);
    }
    let before = d.cwnd_segs();
    let entered = d.now;
    d.b.min_rtt_stamp = Instant(0);
    d.now = Instant(d.now.0.max(MIN_RTT_WIN.0 + 1));
    d.round(BW);
    assert_eq!(d.b.mode, Mode::ProbeRtt);
    let mut left = None;
    for _ in 0..30 {
        d.round_with(BW / 10, RTT, |_| {});
        if d.b.mode != Mode::ProbeRtt {
            left = Some(d.now);
            break;
        }
    }
    let left = left.expect("PROBE_RTT ends");
    assert!(left.saturating_since(entered) >= PROBE_RTT_MODE, "at least 200 ms");
    assert_eq!(d.b.mode, Mode::ProbeBw, "back to PROBE_BW: the pipe was full before");
    // cwnd = max(cwnd, the cwnd saved at entry), then bbr_set_cwnd caps it at the target.
    let target = d.b.quantization_budget(d.b.bdp(d.b.bw(), CWND_GAIN));
    assert!(before > target && d.cwnd_segs() >= target, "cwnd {} back to the target {target}", d.cwnd_segs());
}

#[test]
fn bbr_reset_probe_bw_mode_draws_a_phase_other_than_the_drain_one_from_the_seed() {
    let mut phases = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let first = |seed| {
            let mut d = drv(BbrVersion::V1, false);
            d.b.seed(seed);
            d.reach_probe_bw();
            d.b.cycle_idx
        };
        let p = first(seed);
        assert_eq!(p, first(seed), "same seed, same phase");
        assert_ne!(p, 1, "never starts in the 0.75 phase");
        phases.insert(p);
    }
    assert!(phases.len() >= 5, "phases drawn: {phases:?}");
}

#[test]
fn bbr_set_cwnd_to_recover_or_restore_conserves_packets_then_restores() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    for _ in 0..12 {
        d.round(BW);
    }
    let before = d.cwnd_segs();
    d.b.ssthresh(&d.w, Congestion::Loss, 0); // bbr_ssthresh saves cwnd
    d.phase = CaState::Recovery;
    // First round of recovery: cwnd = in flight + acked (packet conservation), 3 lost.
    let rs = d.round_with(BW / 2, RTT, |rs| rs.losses = 3 * MSS);
    let in_flight = u64::from(d.w.cwnd).min(rs.acked_sacked);
    assert!(d.cwnd_segs() <= before);
    assert!(d.cwnd_segs() * MSS >= in_flight, "at least the flight plus what was acked");
    d.phase = CaState::Open;
    d.round(BW);
    assert!(d.cwnd_segs() >= before, "restored to the cwnd saved at entry");
}

#[test]
fn bbr_lt_bw_sampling_detects_a_policer() {
    let mut d = drv(BbrVersion::V1, false);
    d.reach_probe_bw();
    // Two intervals of 4 rounds ending in heavy loss (25 %), at a steady 2.5 Mbit/s.
    let policed = BW / 4;
    for _ in 0..12 {
        d.round_with(policed, RTT, |rs| rs.losses = rs.acked_sacked / 4);
        if d.b.lt.use_bw {
            break;
        }
    }
    assert!(d.b.lt.use_bw, "policer detected");
    assert!(d.b.bw().abs_diff(policed) <= policed / 8, "bw {} ≈ policed {policed}", d.b.bw());
    d.round(BW);
    assert_eq!(d.b.pacing_gain, UNIT, "gain 1 while policed");
}

#[test]
fn bbr_v1_ignores_ce() {
    let mut a = drv(BbrVersion::V1, true);
    let mut b = drv(BbrVersion::V1, true);
    for _ in 0..30 {
        a.round(BW);
        b.round_with(BW, Duration(2_000_000).max(RTT), |rs| {
            rs.ece = true;
            rs.delivered_ce = rs.acked_sacked;
        });
        assert_eq!((a.w.cwnd, a.b.pacing_rate), (b.w.cwnd, b.b.pacing_rate));
    }
}

/// v3 in PROBE_BW's UP phase with its probe samples counting, at a 1 000-segment inflight_hi.
fn v3_probing(ecn_low: bool, rtt: Duration) -> Drv {
    let mut d = drv(BbrVersion::V3, ecn_low);
    for _ in 0..40 {
        d.round_with(BW, rtt, |_| {});
    }
    d.b.mode = Mode::ProbeBw;
    d.b.cycle_idx = PROBE_UP;
    d.b.v3.bw_probe_samples = true;
    d.b.v3.inflight_hi = 1000;
    d
}

#[test]
fn bbr_v3_handle_inflight_too_high_cuts_inflight_hi_on_more_than_2_percent_loss() {
    // 1 % lost: not too high; inflight_hi stays.
    let mut d = v3_probing(false, RTT);
    d.round_with(BW, RTT, |rs| rs.lost = rs.tx_in_flight / 100);
    assert_eq!(d.b.v3.inflight_hi, 1000);
    // 3 % lost since the delivered segment left: cut to max(tx_in_flight, 0.7 × target), then DOWN.
    let mut d = v3_probing(false, RTT);
    let target = d.b.inflight(d.b.bw(), UNIT).min(d.cwnd_segs());
    let rs = d.round_with(BW, RTT, |rs| rs.lost = rs.tx_in_flight * 3 / 100);
    let expect = (rs.tx_in_flight / MSS).max(target * (UNIT - UNIT * 30 / 100) / UNIT);
    assert_eq!(d.b.v3.inflight_hi, expect);
    assert_eq!(d.b.cycle_idx, 1, "PROBE_DOWN");
}

#[test]
fn bbr_v3_reacts_to_ce_above_the_threshold_only_below_5_ms_on_an_ecn_low_route() {
    let ce_all = |rs: &mut RateSample| {
        rs.ece = true;
        rs.delivered_ce = rs.acked_sacked * 6 / 10;
    };
    let low = Duration(2_000_000);
    // min_rtt 2 ms, ecn_low: 60 % CE while probing is "too high".
    let mut d = v3_probing(true, low);
    assert!(d.b.v3.ecn_eligible);
    d.round_with(BW, low, ce_all);
    assert!(d.b.v3.inflight_hi < 1000, "cut by CE");
    // min_rtt 20 ms: not ECN-eligible, CE changes nothing.
    let mut d = v3_probing(true, RTT);
    assert!(!d.b.v3.ecn_eligible);
    d.round_with(BW, RTT, ce_all);
    assert_eq!(d.b.v3.inflight_hi, 1000);
    // No ecn_low on the route: neither.
    let mut d = v3_probing(false, low);
    assert!(!d.b.v3.ecn_eligible);
    d.round_with(BW, low, ce_all);
    assert_eq!(d.b.v3.inflight_hi, 1000);
}

#[test]
fn bbr_v3_adapt_lower_bounds_cuts_inflight_lo_by_alpha_on_ce_outside_probing() {
    let low = Duration(2_000_000);
    let mut d = v3_probing(true, low);
    d.b.cycle_idx = 2; // CRUISE, just entered: not yet time to probe
    d.b.v3.rounds_since_probe = 0;
    d.b.cycle_stamp = d.now;
    let cwnd = d.cwnd_segs();
    d.round_with(BW, low, |rs| {
        rs.ece = true;
        rs.delivered_ce = rs.acked_sacked / 10;
    });
    // bbr_ecn_lower_bounds: inflight_lo = cwnd × (1 − α/3), α just updated by this round.
    let cut = UNIT - d.b.v3.ecn_alpha * (UNIT / 3) / UNIT;
    assert_eq!(d.b.v3.inflight_lo, cwnd * cut / UNIT);
    assert!(d.b.v3.inflight_lo < cwnd);
    assert!(d.cwnd_segs() <= d.b.v3.inflight_lo.max(CWND_MIN_TARGET), "cwnd bounded by inflight_lo");
    // bbr_check_time_to_probe_bw: ECN but no loss in the cycle: reprobe at once (REFILL).
    d.round_with(BW, low, |_| {});
    assert_eq!(d.b.cycle_idx, 3, "PROBE_REFILL");
}

proptest! {
    /// Whatever the samples, the pacing rate stays positive and, on an ACK of data
    /// outside recovery, cwnd at least 4 segments (`bbr_cwnd_min_target`).
    #[test]
    fn bbr_keeps_a_positive_rate_and_four_segments(
        v3 in any::<bool>(),
        rounds in proptest::collection::vec((1_000u64..50_000_000, 1u64..200, 0u64..30, any::<bool>(), any::<bool>()), 1..80),
    ) {
        let mut d = drv(if v3 { BbrVersion::V3 } else { BbrVersion::V1 }, true);
        for (bw, rtt_ms, loss_pct, app, ce) in rounds {
            d.round_with(bw, Duration(rtt_ms * 1_000_000), |rs| {
                rs.losses = rs.acked_sacked * loss_pct / 100;
                rs.lost = rs.losses;
                rs.is_app_limited = app;
                rs.ece = ce;
                rs.delivered_ce = if ce { rs.acked_sacked } else { 0 };
            });
            prop_assert!(d.b.pacing_rate > 0);
            prop_assert!(d.cwnd_segs() >= CWND_MIN_TARGET.min(4), "cwnd {}", d.cwnd_segs());
        }
    }
}

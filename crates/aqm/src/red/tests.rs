//! RED tests: differential checks of the arithmetic against the plain
//! Floyd & Jacobson 1993 formulas (written out again here, independently),
//! scripted verdict tables, spacing of early actions, gentle, byte mode, RED*.

use ecnlab_wire::{Duration, Ecn, Instant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::config::{QueueConfig, RedPersonality};
use crate::queue::AqmQueue;
use crate::testutil::{ScriptRng, TestPkt};

fn params() -> RedParams {
    RedParams {
        limit_pkts: Some(1000),
        limit_bytes: None,
        min_th: 2.0,
        max_th: 4.0,
        max_p: 0.5,
        wq: 1.0,
        gentle: false,
        wait: false,
        mode: RedMode::Packet,
        mean_pkt_bytes: 1000,
        link_rate_bps: 8_000_000, // s = 1 ms
        ecn: true,
        personality: RedPersonality::Floyd93,
        mark_p: None,
        adaptive: false,
        ns2_rng_skip: None,
        quench: false,
    }
}

fn view(len_pkts: u32) -> QueueView {
    QueueView { len_pkts, len_bytes: u64::from(len_pkts) * 1000 }
}

fn ms(x: u64) -> Instant {
    Instant::from_nanos(x * 1_000_000)
}

/// Independent F&J §7 / ns-2 pa.
fn fj_pa(pb: f64, count: f64, wait: bool) -> f64 {
    let pa = if !wait {
        if count * pb < 1.0 {
            pb / (1.0 - count * pb)
        } else {
            1.0
        }
    } else if count * pb < 1.0 {
        0.0
    } else if count * pb < 2.0 {
        pb / (2.0 - count * pb)
    } else {
        1.0
    };
    pa.clamp(0.0, 1.0)
}

/// Independent pb: F&J Fig. 2, Floyd 2000 gentle, F&J §4 byte mode.
fn fj_pb(c: &RedParams, avg: f64, len: f64) -> f64 {
    let pb = if avg < c.max_th {
        c.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
    } else {
        c.max_p + (1.0 - c.max_p) * (avg - c.max_th) / c.max_th
    };
    if c.mode == RedMode::Byte {
        pb * len / f64::from(c.mean_pkt_bytes)
    } else {
        pb
    }
}

#[test]
fn test_pow_int_exact_and_bounded() {
    assert_eq!(pow_int(0.5, 10), 1.0 / 1024.0);
    assert_eq!(pow_int(0.3, 0), 1.0);
    assert_eq!(pow_int(0.3, 1), 0.3);
    assert_eq!(pow_int(1.0, u64::MAX), 1.0);
    assert_eq!(pow_int(0.998, u64::MAX), 0.0);
    assert_eq!(pow_int(0.0, 5), 0.0);
}

#[test]
fn test_busy_arrival_updates_avg_by_fj_ewma_grid() {
    for wq in [1e-4, 0.002, 0.1, 0.5, 1.0] {
        for avg0 in [0.0, 0.3, 2.5, 17.0] {
            for q in [0u32, 1, 3, 50] {
                let mut red = Red::new(&RedParams { wq, min_th: 1e6, max_th: 2e6, ..params() }, ForcedAction::Drop);
                red.v.avg = avg0;
                red.v.idle = Idle::Busy;
                let v = red.on_enqueue(ms(5), 100, &view(q), &mut ScriptRng::default());
                assert_eq!(v, Verdict::Pass);
                let want = (1.0 - wq) * avg0 + wq * f64::from(q);
                assert_eq!(red.v.avg.to_bits(), want.to_bits(), "wq={wq} avg={avg0} q={q}");
                let alt = avg0 + wq * (f64::from(q) - avg0);
                assert!((red.v.avg - alt).abs() <= 1e-12 * alt.abs().max(1.0));
            }
        }
    }
}

#[test]
fn test_idle_arrival_decays_by_fj_power_grid() {
    for wq in [0.002, 0.05, 0.5] {
        for (bytes, rate) in [(1000u32, 8_000_000u64), (1500, 10_000_000), (40, 1_000_000_000), (576, 3)] {
            // s in ns, computed independently: ceil(bytes·8·1e9 / rate).
            let s_ns = (u128::from(bytes) * 8 * 1_000_000_000).div_ceil(u128::from(rate)) as u64;
            for idle_ns in [0, 1, s_ns - 1, s_ns, 3 * s_ns + 7, 1000 * s_ns, 123_456_789_012] {
                let cfg = RedParams { wq, mean_pkt_bytes: bytes, link_rate_bps: rate, ..params() };
                let mut red = Red::new(&cfg, ForcedAction::Drop);
                red.v.avg = 10.0;
                red.on_idle(ms(7));
                red.on_enqueue(ms(7) + Duration::from_nanos(idle_ns), 100, &view(0), &mut ScriptRng::new(&[0.5]));
                let m = idle_ns / s_ns;
                let want = (1.0 - wq) * (10.0 * (1.0 - wq).powf(m as f64));
                // Repeated squaring and powf each round; their gap grows with m.
                let tol = 4.0 * f64::EPSILON * (64.0 + m as f64) * want;
                assert!((red.v.avg - want).abs() <= tol, "wq={wq} s={s_ns} idle={idle_ns}: {} vs {want}", red.v.avg);
                assert_eq!(red.v.idle, Idle::Busy);
            }
        }
    }
}

#[test]
fn test_only_the_first_arrival_after_idle_decays() {
    let cfg = RedParams { wq: 0.5, min_th: 100.0, max_th: 200.0, ..params() };
    let mut red = Red::new(&cfg, ForcedAction::Drop);
    red.v.avg = 8.0;
    red.on_idle(ms(0));
    let mut rng = ScriptRng::default();
    red.on_enqueue(ms(3), 100, &view(0), &mut rng); // m = 3: 8·0.5³ = 1, then EWMA(q=0) = 0.5
    assert_eq!(red.v.avg, 0.5);
    red.on_enqueue(ms(10), 100, &view(1), &mut rng); // busy: EWMA only
    assert_eq!(red.v.avg, 0.75);
}

#[test]
fn test_prob_functions_match_fj_grid() {
    for mode in [RedMode::Packet, RedMode::Byte] {
        for gentle in [false, true] {
            let cfg = RedParams { min_th: 3.0, max_th: 9.0, max_p: 0.1, mode, gentle, ..params() };
            for i in 0..=170 {
                let avg = 3.0 + f64::from(i) * 0.1;
                if region(&cfg, avg) == Region::Forced {
                    assert!(avg >= if gentle { 18.0 } else { 9.0 } - 1e-9);
                    continue;
                }
                for len in [40u32, 1000, 1500] {
                    let pb = prob_base(&cfg, avg, len);
                    assert_eq!(pb, fj_pb(&cfg, avg, f64::from(len)), "avg={avg} len={len}");
                    for count in [0u64, 1, 2, 5, 10, 30, 100, 400] {
                        for wait in [false, true] {
                            let want = fj_pa(pb, count as f64, wait);
                            assert_eq!(prob_act(pb, count, wait), want, "pb={pb} count={count} wait={wait}");
                        }
                    }
                }
            }
        }
    }
}

/// Drives the full `on_enqueue` path over a grid: wq = 1 makes avg = q, a preset
/// count and draws just below / above the independently computed pa.
#[test]
fn test_on_enqueue_matches_fj_decision_grid() {
    for wait in [false, true] {
        for gentle in [false, true] {
            let cfg = RedParams { min_th: 2.0, max_th: 10.0, max_p: 0.2, gentle, wait, ..params() };
            for q in 0..25u32 {
                for count in [None, Some(0), Some(3), Some(12), Some(40)] {
                    check_decision(&cfg, q, count);
                }
            }
        }
    }
}

fn check_decision(cfg: &RedParams, q: u32, count: Option<u64>) {
    let avg = f64::from(q);
    let forced = avg >= if cfg.gentle { 2.0 * cfg.max_th } else { cfg.max_th };
    let n = count.map_or(0, |c| c + 1) as f64;
    for (delta, signal_if_possible) in [(-1e-9, true), (1e-9, false)] {
        let mut red = Red::new(cfg, ForcedAction::Drop);
        red.v = RedVars { avg: 0.0, count, idle: Idle::Busy };
        let pa = fj_pa(fj_pb(cfg, avg, 1000.0), n, cfg.wait);
        let u = (pa + delta).clamp(0.0, 0.999_999);
        let mut rng = ScriptRng::new(&[u]);
        let v = red.on_enqueue(ms(1), 1000, &view(q), &mut rng);
        let ctx = format!("q={q} count={count:?} pa={pa} u={u}");
        if avg < cfg.min_th {
            assert_eq!((v, red.v.count, rng.remaining()), (Verdict::Pass, None, 1), "{ctx}");
        } else if forced {
            assert_eq!((v, red.v.count), (Verdict::Drop(DropReason::Forced), Some(0)), "{ctx}");
        } else if u < pa {
            assert!(signal_if_possible || pa == 1.0, "{ctx}");
            assert_eq!((v, red.v.count), (Verdict::Signal(SignalKind::Early), Some(0)), "{ctx}");
        } else {
            assert_eq!((v, red.v.count), (Verdict::Pass, Some(n as u64)), "{ctx}");
        }
        assert_eq!(rng.remaining(), usize::from(avg < cfg.min_th || forced), "one draw: {ctx}");
    }
}

/// Outcome of one scripted arrival or departure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    Enq,
    Mark,
    Drop(DropReason),
    Deq(u64),
}

/// Runs `(t_ms, op, len, ecn)` rows; `op` is 'e' (enqueue) or 'd' (dequeue).
fn run_table(q: &mut AqmQueue<TestPkt>, rng: &mut impl RngCore, rows: &[(u64, char, u32, Ecn)]) -> Vec<Out> {
    let mut out = Vec::new();
    for (id, &(t, op, len, ecn)) in rows.iter().enumerate() {
        let o = match op {
            'e' => match q.enqueue(ms(t), TestPkt::new(id as u64, len, ecn), rng) {
                Ok(()) if ecn.is_ect() && q.stats(ms(t)).marks > 0 && marked_last(q) => Out::Mark,
                Ok(()) => Out::Enq,
                Err((_, why)) => Out::Drop(why),
            },
            _ => Out::Deq(q.dequeue(ms(t), &mut ScriptRng::default()).expect("dequeue from empty queue").id),
        };
        out.push(o);
    }
    out
}

/// Whether the newest packet in the queue carries CE (peeks by draining a clone).
fn marked_last(q: &AqmQueue<TestPkt>) -> bool {
    let mut c = q.clone();
    std::iter::from_fn(|| c.dequeue(Instant::MAX, &mut ScriptRng::default())).last().is_some_and(|p| p.ce_calls > 0)
}

const E0: Ecn = Ecn::Ect0;
const E1: Ecn = Ecn::Ect1;
const NE: Ecn = Ecn::NotEct;

#[test]
fn test_table_red_packet_mode_scripted_draws() {
    let mut q = AqmQueue::new(&QueueConfig::Red(params())).unwrap();
    // min 2, max 4, max_p 0.5, wq 1: avg = q before the arrival.
    let mut rng = ScriptRng::new(&[0.0, 0.3, 0.34, 0.1, 0.2]);
    let rows = [
        (0, 'e', 1000, E0), // q0 below min: pass, count=-1, no draw
        (1, 'e', 1000, E0), // q1 below
        (2, 'e', 1000, E0), // q2: count 0, pb 0, pa 0; u=0.0 -> pass
        (3, 'e', 40, NE),   // q3: count 1, pb .25, pa 1/3; u=.3 -> early signal; Not-ECT -> drop
        (4, 'e', 1000, E0), // q3: count 1, pa 1/3; u=.34 -> pass
        (5, 'e', 1000, E1), // q4 >= max_th: forced drop even though ECT (RED, not RED*)
        (6, 'd', 0, NE),    // -> id 0
        (7, 'e', 1000, E1), // q3: count 1, pa 1/3, u=.1 -> mark
        (8, 'd', 0, NE),    // -> 1
        (8, 'd', 0, NE),    // -> 2
        (9, 'e', 1000, E0), // q2: count 0 after mark... pb 0 -> pass, u=.2
    ];
    let out = run_table(&mut q, &mut rng, &rows);
    use Out::*;
    let want =
        [Enq, Enq, Enq, Drop(DropReason::Early), Enq, Drop(DropReason::Forced), Deq(0), Mark, Deq(1), Deq(2), Enq];
    assert_eq!(out, want);
    assert_eq!(rng.remaining(), 0);
    let s = q.stats(ms(10));
    assert_eq!((s.arrivals, s.enqueued, s.marks, s.early_drops, s.forced_drops), (8, 6, 1, 1, 1));
}

#[test]
fn test_table_red_star_gentle_wait_scripted_draws() {
    let cfg = RedParams { gentle: true, wait: true, max_p: 0.25, ..params() };
    let mut q = AqmQueue::new(&QueueConfig::RedStar(cfg)).unwrap();
    let mut rng = ScriptRng::new(&[0.9, 0.9, 0.9, 0.6, 0.0]);
    let rows = [
        (0, 'e', 1000, E0), // q0, q1: below
        (0, 'e', 1000, E0),
        (0, 'e', 1000, E0), // q2: count 0, pb 0, wait -> pa 0, u .9 pass
        (0, 'e', 1000, E0), // q3: count 1, pb .125, count·pb<1 -> pa 0; pass
        (0, 'e', 1000, E0), // q4 gentle: count 2, pb .25, c·pb = .5 -> pa 0; pass
        (0, 'e', 1000, NE), // q5 gentle: count 3, pb .25+.75·.25=.4375, c·pb=1.3125 -> pa=.4375/.6875≈.636; u=.6 -> signal, Not-ECT drop
        (0, 'e', 1000, E0), // q5: count 1, c·pb = .4375 -> pa 0, u=0 -> pass
        (0, 'e', 1000, E0), // q6: count 2, pb .625, c·pb=1.25 -> pa .625/.75; (draw not scripted -> below)
    ];
    let out = run_table(&mut q, &mut rng, &rows[..7]);
    use Out::*;
    assert_eq!(out, [Enq, Enq, Enq, Enq, Enq, Drop(DropReason::Early), Enq]);
    assert_eq!(rng.remaining(), 0);
    // q6, q7: gentle. q8 = 2·max_th: forced signal -> ECT marked, Not-ECT forced drop, every time.
    rng.push(0.99); // q6 pass (pa .8333)
    rng.push(0.99); // q7: count 3, pb .8125, c·pb 2.4375 >= 2 -> pa 1: signal
    assert_eq!(run_table(&mut q, &mut rng, &[(1, 'e', 1000, E0), (1, 'e', 1000, E0)]), [Enq, Mark]);
    let forced = [(2, 'e', 1000, E0), (2, 'e', 1000, NE), (2, 'e', 1000, E1), (2, 'e', 40, NE), (2, 'e', 1000, E0)];
    assert_eq!(
        run_table(&mut q, &mut rng, &forced),
        [Mark, Drop(DropReason::Forced), Mark, Drop(DropReason::Forced), Mark]
    );
    let s = q.stats(ms(3));
    assert_eq!((s.marks, s.forced_drops, s.early_drops, s.enqueued), (4, 2, 1, 11));
}

/// Seeded PCG: the decisions must equal an independent F&J model fed the same
/// draws (a clone of the stream), and are pinned as a regression string.
#[test]
fn test_table_pcg_seeded_matches_independent_model_and_is_pinned() {
    let cfg =
        RedParams { min_th: 3.0, max_th: 9.0, max_p: 0.3, gentle: false, wq: 0.25, limit_pkts: Some(30), ..params() };
    let mut q = AqmQueue::new(&QueueConfig::Red(cfg)).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut model_rng = rng.clone();
    let (mut avg, mut count, mut idle_since): (f64, i64, Option<u64>) = (0.0, -1, Some(0));
    let mut code = String::new();
    for i in 0..120u64 {
        // Arrivals outpace departures 3:1 for a while, then departures drain the queue.
        let deq = if i < 80 { i % 4 == 3 } else { i % 3 != 0 };
        let now = ms(i);
        if deq {
            if q.dequeue(now, &mut ScriptRng::default()).is_some() {
                code.push('d');
                if q.is_empty() {
                    idle_since = Some(i);
                }
            }
            continue;
        }
        // Model, F&J Fig. 2: idle decay over m = idle / s (s = 1 ms here), then the EWMA.
        if let Some(t0) = idle_since.take() {
            avg *= (1.0 - cfg.wq).powf((i - t0) as f64);
        }
        avg = (1.0 - cfg.wq) * avg + cfg.wq * f64::from(q.len_pkts());
        let want = if avg < cfg.min_th {
            count = -1;
            'p'
        } else if avg < if cfg.gentle { 2.0 * cfg.max_th } else { cfg.max_th } {
            count += 1;
            let u: f64 = model_rng.random();
            if u < fj_pa(fj_pb(&cfg, avg, 1000.0), count as f64, false) {
                count = 0;
                'E'
            } else {
                'p'
            }
        } else {
            count = 0;
            'F'
        };
        let got = match q.enqueue(now, TestPkt::new(i, 1000, Ecn::NotEct), &mut rng) {
            Ok(()) => 'p',
            Err((_, DropReason::Early)) => 'E',
            Err((_, DropReason::Forced)) => 'F',
            Err((_, DropReason::Overflow)) => 'O',
        };
        if got != 'p' && q.is_empty() {
            idle_since = Some(i);
        }
        let est = q.avg_estimate().unwrap();
        assert!((est - avg).abs() <= 1e-12 * avg.max(1.0), "arrival {i}: {est} vs {avg}");
        assert_eq!(got, want, "arrival {i}, avg {avg}");
        code.push(got);
    }
    assert_eq!(rng.random::<u64>(), model_rng.random::<u64>(), "same number of draws");
    assert_eq!(code, PINNED_PCG_CODE);
}

const PINNED_PCG_CODE: &str =
    "pppdpppdpppdppEdpEpdpEpdEpEdpFFdFFFdEpEdppEdEEEdEEpdpEpdpFFdFFFdEEpdpEEdppEdpFFddFddpddEddpddEddpdpdpdpdpdpdpdpd";

/// Gaps between early actions at a fixed pb (F&J §7): uniform over
/// {1, …, N−1} without wait and {N, …, 2N−1} with wait, N = 1/pb = 20.
fn early_gaps(wait: bool) -> Vec<u64> {
    let cfg = RedParams { min_th: 0.0, max_th: 10.0, max_p: 0.5, wait, ..params() };
    let mut red = Red::new(&cfg, ForcedAction::Drop);
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let (mut gaps, mut since) = (Vec::new(), 0u64);
    for _ in 0..400_000 {
        since += 1;
        // q = 1 and wq = 1: avg = 1, pb = 0.5 · 1/10 = 0.05.
        if red.on_enqueue(ms(1), 1000, &view(1), &mut rng) == Verdict::Signal(SignalKind::Early) {
            gaps.push(since);
            since = 0;
        }
    }
    gaps
}

fn mean(xs: &[u64]) -> f64 {
    xs.iter().sum::<u64>() as f64 / xs.len() as f64
}

#[test]
fn test_no_wait_spacing_is_uniform_1_to_n() {
    let g = early_gaps(false);
    assert_eq!((g.iter().min(), g.iter().max()), (Some(&1), Some(&19)));
    assert!((mean(&g) - 10.0).abs() < 0.1, "mean gap {}", mean(&g));
    // Uniform: every gap value 1..=19 has frequency 1/19 within 10 %.
    for k in 1..=19 {
        let f = g.iter().filter(|&&x| x == k).count() as f64 / g.len() as f64;
        assert!((f * 19.0 - 1.0).abs() < 0.1, "gap {k}: {f}");
    }
}

#[test]
fn test_wait_spacing_is_uniform_n_to_2n() {
    let g = early_gaps(true);
    assert_eq!((g.iter().min(), g.iter().max()), (Some(&20), Some(&39)));
    assert!((mean(&g) - 29.5).abs() < 0.2, "mean gap {}", mean(&g));
}

#[test]
fn test_gentle_region_signals_instead_of_forcing() {
    let base = RedParams { min_th: 2.0, max_th: 4.0, max_p: 0.5, ..params() };
    for (gentle, q, want_forced) in [(false, 4, true), (true, 4, false), (true, 7, false), (true, 8, true)] {
        let mut red = Red::new(&RedParams { gentle, ..base }, ForcedAction::Drop);
        red.v.idle = Idle::Busy;
        let mut rng = ScriptRng::new(&[0.999_999]);
        let v = red.on_enqueue(ms(1), 1000, &view(q), &mut rng);
        assert_eq!(v == Verdict::Drop(DropReason::Forced), want_forced, "gentle={gentle} q={q}");
        assert_eq!(rng.remaining(), usize::from(want_forced));
    }
    // Gentle pb at avg = 6: max_p + (1 - max_p)(6 - 4)/4 = 0.75.
    assert_eq!(prob_base(&RedParams { gentle: true, ..base }, 6.0, 1000), 0.75);
}

#[test]
fn test_byte_mode_scales_probability_and_queue_by_size() {
    let cfg = RedParams { mode: RedMode::Byte, min_th: 2.0, max_th: 6.0, max_p: 0.1, ..params() };
    // q = 5000 bytes / 1000 = 5 mean packets: pb = 0.1 · 3/4 = 0.075 for a mean-size packet.
    let q = QueueView { len_pkts: 2, len_bytes: 5000 };
    for (len, u, want) in
        [(1000, 0.07, true), (1000, 0.08, false), (500, 0.03, true), (500, 0.04, false), (2000, 0.14, true)]
    {
        let mut red = Red::new(&cfg, ForcedAction::Drop);
        red.v.idle = Idle::Busy;
        let v = red.on_enqueue(ms(1), len, &q, &mut ScriptRng::new(&[u]));
        assert_eq!(red.v.avg, 5.0);
        assert_eq!(v == Verdict::Signal(SignalKind::Early), want, "len={len} u={u}");
    }
    assert_eq!(prob_base(&cfg, 5.0, 500) * 2.0, prob_base(&cfg, 5.0, 1000));
}

/// Fills past max_th, then checks every arrival while avg ≥ max_th.
fn forced_region_outcomes(star: bool) -> (Vec<Result<Ecn, DropReason>>, crate::QueueStats) {
    let cfg = RedParams { min_th: 5.0, max_th: 10.0, max_p: 0.1, wq: 1.0, ..params() };
    let qc = if star { QueueConfig::RedStar(cfg) } else { QueueConfig::Red(cfg) };
    let mut q = AqmQueue::new(&qc).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut id = 0;
    while q.len_pkts() < 10 {
        id += 1;
        let _ = q.enqueue(ms(0), TestPkt::new(id, 1000, Ecn::Ect0), &mut rng);
    }
    let before = q.stats(ms(0));
    let mut outs = Vec::new();
    for i in 0..200u64 {
        let ecn = [Ecn::Ect0, Ecn::NotEct, Ecn::Ect1][(i % 3) as usize];
        let r = q.enqueue(ms(1), TestPkt::new(1000 + i, 1000, ecn), &mut rng);
        let ok = r.is_ok();
        outs.push(r.map(|()| ecn).map_err(|(_, why)| why));
        if ok {
            q.dequeue(ms(1), &mut ScriptRng::default()); // keep q (and avg) at or above max_th
        }
    }
    let after = q.stats(ms(1));
    let delta = crate::QueueStats {
        marks: after.marks - before.marks,
        forced_drops: after.forced_drops - before.forced_drops,
        early_drops: after.early_drops - before.early_drops,
        ..after
    };
    (outs, delta)
}

#[test]
fn test_red_star_marks_every_ect_above_max_th_and_drops_not_ect() {
    let (outs, d) = forced_region_outcomes(true);
    for (i, o) in outs.iter().enumerate() {
        if i % 3 == 1 {
            assert_eq!(*o, Err(DropReason::Forced), "arrival {i}");
        } else {
            assert!(matches!(o, Ok(e) if e.is_ect()), "arrival {i}: {o:?}");
        }
    }
    assert_eq!((d.marks, d.forced_drops, d.early_drops), (133, 67, 0));
}

#[test]
fn test_red_with_ecn_drops_ect_in_forced_region() {
    let (outs, d) = forced_region_outcomes(false);
    assert!(outs.iter().all(|o| *o == Err(DropReason::Forced)));
    assert_eq!((d.marks, d.forced_drops), (0, 200));
}

#[test]
fn test_ecn_off_never_marks() {
    for star in [false, true] {
        let cfg = RedParams { min_th: 3.0, max_th: 8.0, max_p: 0.2, wq: 0.2, ecn: false, ..params() };
        let qc = if star { QueueConfig::RedStar(cfg) } else { QueueConfig::Red(cfg) };
        let mut q = AqmQueue::new(&qc).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for i in 0..3000u64 {
            if let Err((p, _)) = q.enqueue(ms(i), TestPkt::new(i, 1000, Ecn::Ect0), &mut rng) {
                assert_eq!(p.ce_calls, 0);
            }
            if i % 4 == 0 {
                q.dequeue(ms(i), &mut ScriptRng::default());
            }
        }
        let s = q.stats(ms(3000));
        assert_eq!(s.marks, 0);
        assert!(s.early_drops > 0 && s.forced_drops > 0, "{s:?}");
        while let Some(p) = q.dequeue(ms(3000), &mut ScriptRng::default()) {
            assert_eq!((p.ecn, p.ce_calls), (Ecn::Ect0, 0));
        }
    }
}

#[test]
fn test_ecn_on_early_signal_marks_ect_and_drops_not_ect() {
    let cfg = RedParams { min_th: 0.0, max_th: 100.0, max_p: 1.0, ..params() };
    let mut q = AqmQueue::new(&QueueConfig::Red(cfg)).unwrap();
    // q = 0: pb = 0, pass (u = .5); later arrivals have pa > 0 and draw u = 0: signal.
    let mut rng = ScriptRng::new(&[0.5, 0.0, 0.0, 0.0]);
    let out = run_table(
        &mut q,
        &mut rng,
        &[(0, 'e', 1000, E0), (0, 'e', 1000, E0), (0, 'e', 60, NE), (0, 'e', 1000, Ecn::Ce)],
    );
    assert_eq!(out, [Out::Enq, Out::Mark, Out::Drop(DropReason::Early), Out::Enq]);
    let s = q.stats(ms(0));
    assert_eq!((s.marks, s.early_drops), (2, 1), "a CE arrival that is signalled counts as marked");
}

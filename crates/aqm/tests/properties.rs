//! Property tests: random operation sequences (s2n-quic style) against every
//! queue kind, checking the ns-3 stats identities, byte/packet conservation,
//! FIFO order, "never mark Not-ECT", and that marks and drops only appear
//! where the configuration allows them.

use std::collections::VecDeque;

use ecnlab_aqm::{
    AqmQueue, DropReason, DropTailParams, Enqueued, PiParams, QueueConfig, QueueStats, QueuedPacket, RedMode, RedParams,
};
use ecnlab_wire::{Duration, Ecn, Instant};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
struct Pkt {
    id: u64,
    len: u32,
    ecn_in: Ecn,
    ecn: Ecn,
    ce_calls: u32,
}

impl QueuedPacket for Pkt {
    fn wire_len(&self) -> u32 {
        self.len
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) -> bool {
        self.ce_calls += 1;
        self.ecn.set_ce()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Enqueue { len: u32, ecn: Ecn },
    Dequeue,
    Advance(u64),
}

fn ecn() -> impl Strategy<Value = Ecn> {
    prop_oneof![Just(Ecn::NotEct), Just(Ecn::Ect0), Just(Ecn::Ect1), Just(Ecn::Ce)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..1600, ecn()).prop_map(|(len, ecn)| Op::Enqueue { len, ecn }),
        3 => Just(Op::Dequeue),
        2 => (0u64..5_000_000).prop_map(Op::Advance),
    ]
}

fn limits() -> impl Strategy<Value = (Option<u32>, Option<u64>)> {
    prop_oneof![(1u32..40).prop_map(|p| (Some(p), None)), (1u64..40_000).prop_map(|b| (None, Some(b)))]
}

fn red_params() -> impl Strategy<Value = RedParams> {
    let probs = (prop_oneof![Just(1.0), 0.01f64..1.0], prop_oneof![Just(1.0), Just(0.002), 0.01f64..1.0]);
    let flags = (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>());
    let sizes = (40u32..1500, prop_oneof![Just(1u64), 1_000u64..10_000_000_000]);
    (limits(), 0.0f64..10.0, 0.05f64..20.0, probs, flags, sizes).prop_map(
        |((limit_pkts, limit_bytes), min_th, dth, (max_p, wq), (gentle, wait, byte, ecn), (mean, rate))| {
            // the limit holds max_th where the units agree (RedParams::validate)
            let max_th = min_th + dth;
            let (limit_pkts, limit_bytes) = match (byte, limit_pkts, limit_bytes) {
                (false, Some(p), None) => (Some(p.max(max_th.ceil() as u32)), None),
                (true, None, Some(b)) => (None, Some(b.max((max_th * f64::from(mean)).ceil() as u64))),
                other => (other.1, other.2),
            };
            RedParams {
                limit_pkts,
                limit_bytes,
                min_th,
                max_th,
                max_p,
                wq,
                gentle,
                wait,
                mode: if byte { RedMode::Byte } else { RedMode::Packet },
                mean_pkt_bytes: mean,
                link_rate_bps: rate,
                ecn,
                personality: Default::default(),
                mark_p: None,
                adaptive: false,
                ns2_rng_skip: None,
                quench: false,
            }
        },
    )
}

fn config() -> impl Strategy<Value = QueueConfig> {
    prop_oneof![
        limits()
            .prop_map(|(limit_pkts, limit_bytes)| QueueConfig::DropTail(DropTailParams { limit_pkts, limit_bytes })),
        red_params().prop_map(QueueConfig::Red),
        red_params().prop_map(QueueConfig::RedStar),
        pi_params().prop_map(QueueConfig::Pi),
    ]
}

/// PI with gains large enough that p leaves 0 within a short script.
fn pi_params() -> impl Strategy<Value = PiParams> {
    (limits(), 0.0f64..20.0, 0.0f64..0.5, 0.0f64..0.5, 1.0f64..1000.0, any::<bool>()).prop_map(
        |((limit_pkts, limit_bytes), q_ref, a, b, sample_hz, ecn)| PiParams {
            limit_pkts: limit_pkts.map(|p| p.max(q_ref.floor() as u32 + 1)), // q_ref < limit_pkts
            limit_bytes,
            q_ref,
            a,
            b,
            sample_hz,
            ecn,
        },
    )
}

/// What the test keeps beside the queue.
#[derive(Default)]
struct Model {
    fifo: VecDeque<(u64, u32)>,
    arrival_bytes: u64,
    dequeued_bytes: u64,
    marked_out: u64,
    next_id: u64,
}

fn ecn_on(cfg: &QueueConfig) -> bool {
    match cfg {
        QueueConfig::DropTail(_) => false,
        QueueConfig::Red(p) | QueueConfig::RedStar(p) => p.ecn,
        QueueConfig::Pi(p) => p.ecn,
        QueueConfig::Ared(p) => p.ecn,
        QueueConfig::Pie(p) => p.ecn,
        QueueConfig::Step(p) => p.ecn,
        QueueConfig::Codel(p) => p.ecn,
        QueueConfig::FqCodel(p) => p.ecn,
        QueueConfig::DualPi2(_) => true,
    }
}

fn limit_of(cfg: &QueueConfig) -> (Option<u32>, Option<u64>) {
    match cfg {
        QueueConfig::DropTail(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Red(p) | QueueConfig::RedStar(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Pi(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Ared(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Pie(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Step(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::Codel(p) => (p.limit_pkts, p.limit_bytes),
        QueueConfig::FqCodel(p) => (Some(p.limit_pkts), None),
        QueueConfig::DualPi2(p) => (Some(p.limit_pkts), None),
    }
}

fn check_drop(cfg: &QueueConfig, p: &Pkt, why: DropReason) -> Result<(), TestCaseError> {
    prop_assert_eq!(p.ce_calls, 0, "a dropped packet was CE-marked first");
    prop_assert_eq!(p.ecn, p.ecn_in);
    if matches!(cfg, QueueConfig::DropTail(_)) {
        prop_assert_eq!(why, DropReason::Overflow);
    }
    Ok(())
}

fn check_dequeued(cfg: &QueueConfig, p: &Pkt, m: &mut Model) -> Result<(), TestCaseError> {
    let (id, len) = m.fifo.pop_front().expect("model has the packet");
    prop_assert_eq!((p.id, p.len), (id, len), "FIFO order");
    m.dequeued_bytes += u64::from(len);
    if p.ce_calls > 0 {
        prop_assert!(ecn_on(cfg), "marked with ECN off");
        prop_assert!(p.ecn_in != Ecn::NotEct, "Not-ECT marked");
        prop_assert_eq!((p.ecn, p.ce_calls), (Ecn::Ce, 1));
        m.marked_out += 1;
    } else {
        prop_assert_eq!(p.ecn, p.ecn_in);
    }
    Ok(())
}

fn check_state(cfg: &QueueConfig, q: &AqmQueue<Pkt>, m: &Model, now: Instant) -> Result<QueueStats, TestCaseError> {
    let s = q.stats(now);
    prop_assert_eq!(s.arrivals, s.enqueued + s.early_drops + s.forced_drops + s.overflow_drops);
    prop_assert_eq!(s.enqueued - s.dequeued, u64::from(q.len_pkts()));
    prop_assert!(s.marks <= s.enqueued);
    prop_assert_eq!(q.len_pkts() as usize, m.fifo.len());
    prop_assert_eq!(q.len_bytes(), m.fifo.iter().map(|&(_, l)| u64::from(l)).sum::<u64>());
    prop_assert_eq!(q.is_empty(), m.fifo.is_empty());
    prop_assert_eq!((s.arrival_bytes, s.dequeued_bytes), (m.arrival_bytes, m.dequeued_bytes));
    prop_assert!(s.max_qlen_pkts >= q.len_pkts() && s.max_qlen_bytes >= q.len_bytes());
    prop_assert!(s.avg_qlen_pkts >= 0.0 && s.avg_qlen_pkts <= f64::from(s.max_qlen_pkts), "{:?}", s);
    prop_assert!(s.avg_qlen_bytes >= 0.0 && s.avg_qlen_bytes <= s.max_qlen_bytes as f64, "{:?}", s);
    match limit_of(cfg) {
        (Some(p), _) => prop_assert!(s.max_qlen_pkts <= p),
        (_, Some(b)) => prop_assert!(s.max_qlen_bytes <= b),
        _ => prop_assert!(false, "validated config has a limit"),
    }
    if !ecn_on(cfg) {
        prop_assert_eq!(s.marks, 0);
    }
    match (cfg, q.avg_estimate()) {
        (QueueConfig::DropTail(_), est) => {
            prop_assert_eq!(est, None);
            prop_assert_eq!(s.early_drops + s.forced_drops, 0);
        }
        (QueueConfig::Pi(_), est) => {
            prop_assert_eq!(est, None); // PI keeps a probability, not an average queue
            prop_assert_eq!(s.forced_drops, 0);
        }
        (_, Some(avg)) => prop_assert!(avg.is_finite() && avg >= 0.0),
        (_, None) => prop_assert!(false, "RED must expose its average"),
    }
    Ok(s)
}

/// Runs `ops`; returns the final stats (after draining) for determinism checks.
fn run(cfg: &QueueConfig, ops: &[Op], seed: u64) -> Result<QueueStats, TestCaseError> {
    let mut q: AqmQueue<Pkt> = AqmQueue::new(cfg).expect("generated configs are valid");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let (mut m, mut now) = (Model::default(), Instant::ZERO);
    for op in ops {
        match *op {
            Op::Enqueue { len, ecn } => {
                let p = Pkt { id: m.next_id, len, ecn_in: ecn, ecn, ce_calls: 0 };
                m.next_id += 1;
                m.arrival_bytes += u64::from(len);
                match q.enqueue(now, p, &mut rng) {
                    Ok(()) => m.fifo.push_back((m.next_id - 1, len)),
                    Err((p, why)) => check_drop(cfg, &p, why)?,
                }
            }
            Op::Dequeue => match q.dequeue(now, &mut rng) {
                Some(p) => check_dequeued(cfg, &p, &mut m)?,
                None => prop_assert!(m.fifo.is_empty()),
            },
            Op::Advance(ns) => now += Duration::from_nanos(ns),
        }
        check_state(cfg, &q, &m, now)?;
    }
    while let Some(p) = q.dequeue(now, &mut rng) {
        check_dequeued(cfg, &p, &mut m)?;
    }
    let s = check_state(cfg, &q, &m, now)?;
    prop_assert_eq!(s.marks, m.marked_out, "every counted mark left the queue as CE");
    prop_assert_eq!(s.dequeued, s.enqueued);
    Ok(s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn prop_queue_invariants(cfg in config(), ops in prop::collection::vec(op(), 0..300), seed in any::<u64>()) {
        run(&cfg, &ops, seed)?;
    }

    #[test]
    fn prop_runs_are_deterministic(cfg in config(), ops in prop::collection::vec(op(), 0..200), seed in any::<u64>()) {
        let a = run(&cfg, &ops, seed)?;
        let b = run(&cfg, &ops, seed)?;
        prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    /// Heavy ECT load on RED* with ECN on and a packet limit far above 2·max_th:
    /// nothing ECN-capable is ever dropped except by overflow.
    #[test]
    fn prop_red_star_never_drops_ect_below_limit(p in red_params(), n in 1usize..400, seed in any::<u64>()) {
        let top = 2.0 * p.max_th;
        let p = RedParams { ecn: true, mode: RedMode::Packet, limit_pkts: Some(top as u32 + 2), limit_bytes: None, ..p };
        let mut q: AqmQueue<Pkt> = AqmQueue::new(&QueueConfig::RedStar(p)).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        for id in 0..n as u64 {
            let pkt = Pkt { id, len: 1000, ecn_in: Ecn::Ect0, ecn: Ecn::Ect0, ce_calls: 0 };
            if let Err((_, why)) = q.enqueue(Instant::from_nanos(id), pkt, &mut rng) {
                prop_assert_eq!(why, DropReason::Overflow);
            }
        }
        let s = q.stats(Instant::from_nanos(n as u64));
        prop_assert_eq!(s.early_drops + s.forced_drops, 0);
    }

    /// Quench mode is RED marking with another delivery (Floyd 1994 §9.1): on the
    /// same ECN-capable arrivals and RNG stream, a quench queue quenches exactly
    /// the packets an ECN queue marks, drops exactly what it drops, and marks nothing.
    #[test]
    fn prop_quench_selects_the_packets_marking_marks(
        p in red_params(),
        ops in prop::collection::vec(op(), 0..300),
        seed in any::<u64>(),
    ) {
        let mark = QueueConfig::Red(RedParams { ecn: true, quench: false, ..p });
        let quench = QueueConfig::Red(RedParams { ecn: false, quench: true, ..p });
        let mut qm: AqmQueue<Pkt> = AqmQueue::new(&mark).unwrap();
        let mut qq: AqmQueue<Pkt> = AqmQueue::new(&quench).unwrap();
        let (mut rm, mut rq) = (Pcg64Mcg::seed_from_u64(seed), Pcg64Mcg::seed_from_u64(seed));
        let (mut now, mut id) = (Instant::ZERO, 0u64);
        for op in &ops {
            match *op {
                Op::Enqueue { len, .. } => {
                    let pkt = Pkt { id, len, ecn_in: Ecn::Ect0, ecn: Ecn::Ect0, ce_calls: 0 };
                    id += 1;
                    let a = qm.enqueue_signalled(now, pkt.clone(), &mut rm).map_err(|(_, r)| r);
                    let b = qq.enqueue_signalled(now, pkt, &mut rq).map_err(|(_, r)| r);
                    let want = a.map(|e| if e == Enqueued::Marked { Enqueued::Quench } else { e });
                    prop_assert_eq!(b, want, "arrival {}", id - 1);
                }
                Op::Dequeue => {
                    let (a, b) = (qm.dequeue(now, &mut rm), qq.dequeue(now, &mut rq));
                    prop_assert_eq!(a.map(|p| p.id), b.as_ref().map(|p| p.id));
                    prop_assert!(b.is_none_or(|p| p.ecn == Ecn::Ect0 && p.ce_calls == 0));
                }
                Op::Advance(ns) => now += Duration::from_nanos(ns),
            }
        }
        let (a, b) = (qm.stats(now), qq.stats(now));
        prop_assert_eq!((a.marks, a.early_drops, a.forced_drops), (b.quenches, b.early_drops, b.forced_drops));
        prop_assert_eq!(b.marks, 0);
    }
}

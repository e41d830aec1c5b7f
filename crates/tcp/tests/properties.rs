//! Property tests: random fault scripts (drops and marks of random
//! transmissions in both directions, random delays, rates, clocks and
//! configurations) over bounded transfers.
//!
//! Checked on every run: the transfer completes with exactly the bytes sent
//! delivered in order; cwnd ≥ 1 MSS at every step; at most one ECN reduction
//! per window (snd_una passed the previous reduction point before the next);
//! retransmissions, pure ACKs and SYNs are Not-ECT; nothing panics.

mod harness;

use ecnlab_tcp::{AppEvent, CaState, CcKind, EcnMode, NewRenoTimer, Recovery, SsthreshBasis, TcpConfig};
use ecnlab_wire::{Duration, Ecn, Instant};
use harness::*;
use proptest::prelude::*;

fn variant() -> impl Strategy<Value = Recovery> {
    prop_oneof![Just(Recovery::Tahoe), Just(Recovery::Reno), Just(Recovery::NewReno), Just(Recovery::Sack)]
}

fn fault() -> impl Strategy<Value = Fault> {
    let action = prop_oneof![Just(Action::Drop), Just(Action::Mark)];
    let target = prop_oneof![
        6 => (1u32..400).prop_map(Target::DataTx),
        2 => (1u32..200).prop_map(Target::AckTx),
        1 => (1u32..3).prop_map(Target::SynAck),
    ];
    (target, action).prop_map(|(target, action)| Fault { target, action })
}

#[derive(Debug, Clone)]
struct Case {
    variant: Recovery,
    delayed_ack: bool,
    ecn: bool,
    ecn_plus: bool,
    /// AccECN (RFC 9768) instead of RFC 3168's feedback, both ends.
    accecn: bool,
    iw: u32,
    tick_ns: u64,
    segments: u64,
    tail: u64,
    delay_ms: [u64; 2],
    rate_mbps: u64,
    faults: Vec<Fault>,
    /// RFC 3465 L (0: per ACK), Limited Transmit, Impatient NewReno, CUBIC (else Reno),
    /// Linux's rules (`ssthresh_basis = cwnd`, `sack_after_rto`, `rto_keeps_recovery_ssthresh`, `prr`, `rack`, `tlp`,
    /// `dupacks_as_sacks`, `fin_with_data`).
    options: (u32, bool, bool, bool, bool),
}

fn case() -> impl Strategy<Value = Case> {
    (
        (variant(), any::<bool>(), any::<bool>(), 0u8..3, 1u32..=4),
        prop_oneof![Just(1_000u64), Just(1_000_000), Just(100_000_000)],
        (0u64..300, 0u64..1000),
        (1u64..50, 1u64..50, prop_oneof![Just(1u64), Just(10), Just(100)]),
        proptest::collection::vec(fault(), 0..25),
        (0u32..=2, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |((variant, delayed_ack, ecn, plus, iw), tick_ns, (segments, tail), (d0, d1, rate), faults, options)| {
                Case {
                    variant,
                    delayed_ack,
                    ecn,
                    ecn_plus: ecn && plus == 1,
                    accecn: ecn && plus == 2,
                    iw,
                    tick_ns,
                    segments,
                    tail,
                    delay_ms: [d0, d1],
                    rate_mbps: rate,
                    faults,
                    options,
                }
            },
        )
}

fn ecn_mode(c: &Case) -> EcnMode {
    match (c.ecn, c.ecn_plus, c.accecn) {
        (false, _, _) => EcnMode::Off,
        (true, _, true) => EcnMode::AccEcn,
        (true, false, false) => EcnMode::Classic,
        (true, true, false) => EcnMode::EcnPlus,
    }
}

fn with_options(mut cfg: TcpConfig, c: &Case) -> TcpConfig {
    let (abc, lt, impatient, cubic, linux) = c.options;
    cfg.abc = abc;
    cfg.ssthresh_basis = if linux { SsthreshBasis::Cwnd } else { SsthreshBasis::Flight };
    cfg.sack_after_rto = linux.into();
    cfg.rto_keeps_recovery_ssthresh = linux.into();
    cfg.prr = linux.into();
    cfg.rack = linux.into();
    cfg.tlp = linux.into();
    cfg.dupacks_as_sacks = linux.into();
    cfg.fin_with_data = linux.into();
    cfg.cc = if cubic { CcKind::Cubic } else { CcKind::Reno };
    cfg.limited_transmit = lt.into();
    cfg.newreno_timer = if impatient { NewRenoTimer::Impatient } else { NewRenoTimer::SlowButSteady };
    cfg
}

fn run(c: &Case) -> (Net, u64) {
    let mut cfg = with_options(config(c.variant, c.delayed_ack), c);
    cfg.ecn = ecn_mode(c);
    cfg.init_cwnd_segments = c.iw;
    run_with(c, cfg, c.faults.clone())
}

/// The transfer of `c` with `cfg` (the case's clock and a 200 ms minimum RTO added) and `faults`.
fn run_with(c: &Case, mut cfg: TcpConfig, faults: Vec<Fault>) -> (Net, u64) {
    cfg.clock_granularity_ns = c.tick_ns;
    cfg.min_rto_ns = Duration::from_millis(200).as_nanos();
    cfg.validate().unwrap();
    let bytes = c.segments * MSS as u64 + c.tail;
    let mut net = Net::new(cfg.clone(), cfg, faults);
    net.delay = c.delay_ms.map(Duration::from_millis);
    net.rate_bps = [c.rate_mbps * 1_000_000; 2];
    net.c.send(bytes);
    net.c.close();
    net.run(Instant(Duration::from_secs(3600).as_nanos()));
    (net, bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn test_random_faults_transfer_completes(c in case()) {
        let (net, bytes) = run(&c);
        prop_assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
        let received: u64 = net.s_events.iter().map(|e| match e { AppEvent::Received(n) => *n, _ => 0 }).sum();
        prop_assert_eq!(received, bytes);
        prop_assert!(net.c.is_closed() && net.s.is_closed(), "not closed\n{}", net.dump());
        prop_assert_eq!(net.c.bytes_acked(), bytes);
    }

    #[test]
    fn test_random_faults_invariants(c in case()) {
        let (net, _) = run(&c);
        let smss = net.c.smss(); // the MSS, less the AccECN option's room with AccECN
        for l in &net.log {
            if l.dir == Dir::C2S && !l.seg.flags.syn() {
                prop_assert!(l.cwnd >= smss, "cwnd below 1 SMSS: {}", l);
            }
            // What the sender put on the wire (a mark only turns ECT into CE).
            let sent = if l.fate == Fate::Marked { Ecn::Ect0 } else { l.seg.ecn };
            if l.seg.retransmit || l.seg.payload_len == 0 && !(l.seg.flags.syn() && l.seg.flags.ack()) {
                prop_assert_eq!(sent, Ecn::NotEct, "{}", l);
            }
            if l.seg.payload_len > 0 && !l.seg.retransmit {
                prop_assert_eq!(sent == Ecn::Ect0, c.ecn, "{}", l);
            }
        }
        for p in &net.cc_log {
            prop_assert!(p.cwnd >= smss);
        }
        // RFC 3168 §6.1.2: at most one reduction per window of data.
        for w in net.ecn_reductions.windows(2) {
            let ((_, high0), (una1, _)) = (w[0], w[1]);
            prop_assert!(una1 > high0, "second ECN reduction in one window: {:?}\n{}", net.ecn_reductions, net.dump());
        }
        if !c.ecn {
            prop_assert_eq!(net.c.stats().ecn_reductions, 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Both ends send at once (piggybacked ACKs, two send halves); both streams complete.
    #[test]
    fn test_random_faults_bidirectional(c in case(), back in 0u64..50_000) {
        let mut cfg = with_options(config(c.variant, c.delayed_ack), &c);
        cfg.ecn = ecn_mode(&c);
        cfg.clock_granularity_ns = c.tick_ns;
        let fwd = c.segments * MSS as u64 + c.tail;
        let mut net = Net::new(cfg.clone(), cfg, c.faults.clone());
        net.delay = c.delay_ms.map(Duration::from_millis);
        net.c.send(fwd);
        net.c.close();
        net.s.send(back);
        net.run(Instant(Duration::from_secs(3600).as_nanos()));
        prop_assert_eq!(net.s.bytes_received(), fwd, "{}", net.dump());
        prop_assert_eq!(net.c.bytes_received(), back, "{}", net.dump());
        prop_assert!(net.c.is_closed() && net.s.is_closed(), "not closed\n{}", net.dump());
    }
}

/// DCTCP (RFC 8257) over a random fault script: `marks_only` keeps the data marks and
/// drops nothing, so no loss response can take cwnd below DCTCP's floor.
fn run_dctcp(c: &Case, marks_only: bool, shift_g: u32) -> (Net, u64) {
    let mut cfg = with_options(config(c.variant, c.delayed_ack), c);
    cfg.cc = CcKind::Dctcp;
    cfg.ecn = EcnMode::Classic;
    cfg.ecn_min_cwnd_segments = 2;
    cfg.dctcp.shift_g = shift_g;
    cfg.init_cwnd_segments = c.iw.max(2);
    let faults: Vec<Fault> = if marks_only {
        c.faults.iter().filter(|f| matches!(f.target, Target::DataTx(_))).map(|f| mark(f.target)).collect()
    } else {
        c.faults.clone()
    };
    run_with(c, cfg, faults)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// α ∈ [0, 1] after every input; with marks only, ssthresh ≥ 2 segments (Linux's
    /// floor), and so is cwnd unless PRR is walking it down to ssthresh inside the Cwr
    /// phase (RFC 6937 sends by what was delivered, as Linux's `tcp_cwnd_reduction`);
    /// at most one reduction per window of data.
    #[test]
    fn test_dctcp_alpha_in_unit_interval_and_cwnd_floor(c in case(), shift_g in 0u32..=8) {
        let (net, bytes) = run_dctcp(&c, true, shift_g);
        let prr = c.options.4;
        prop_assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
        for p in &net.cc_log {
            let a = p.alpha.unwrap();
            prop_assert!((0.0..=1.0).contains(&a), "α = {}", a);
            prop_assert!(p.ssthresh >= 2 * MSS, "ssthresh {} below two segments\n{}", p.ssthresh, net.dump());
            let floor = if prr && p.ca == CaState::Cwr { MSS } else { 2 * MSS };
            prop_assert!(p.cwnd >= floor, "cwnd {} below {}\n{}", p.cwnd, floor, net.dump());
        }
        for w in net.ecn_reductions.windows(2) {
            prop_assert!(w[1].0 > w[0].1, "two reductions in one window: {:?}", w);
        }
    }

    /// With drops as well the transfer completes and α stays in [0, 1].
    #[test]
    fn test_dctcp_random_faults_complete(c in case()) {
        let (net, bytes) = run_dctcp(&c, false, 4);
        prop_assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
        prop_assert!(net.c.is_closed() && net.s.is_closed(), "not closed\n{}", net.dump());
        prop_assert!(net.cc_log.iter().all(|p| p.alpha.is_some_and(|a| (0.0..=1.0).contains(&a))));
    }
}

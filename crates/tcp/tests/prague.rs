//! TCP Prague (`crates/tcp/src/cc/prague.rs`) on a connection: packet traces of
//! its codepoint, its once-per-round (and, RTT-independent, once-per-target-RTT)
//! reduction, its fall-back without AccECN, and properties of its window and α.
//! Setting as `trace.rs` (harness::config: MSS 1000 B, IW 2, 10 ms one-way,
//! 10 Mbit/s, so an RTT of about 20 ms, below Prague's 25 ms target).

mod harness;

use ecnlab_tcp::{CaState, CcKind, EcnMode, EctPackets, PragueFeedback, PragueVersion, Recovery, TcpConfig};
use ecnlab_wire::{Duration, Ecn};
use harness::*;
use proptest::prelude::*;

fn prague() -> TcpConfig {
    TcpConfig {
        cc: CcKind::Prague,
        ecn: EcnMode::AccEcn,
        ecn_min_cwnd_segments: 2,
        ect_all_packets: EctPackets::All,
        abc: 2,
        ..config(Recovery::Sack, true)
    }
}

/// The Client's ECN reductions: (time, cwnd before, ssthresh after) from the cc log.
fn reductions(net: &Net) -> Vec<(Duration, u32, u32)> {
    net.cc_log
        .windows(2)
        .filter(|w| w[1].ssthresh < w[0].ssthresh && w[1].ssthresh < u32::MAX / 4)
        .map(|w| (Duration(w[1].t.0), w[0].cwnd, w[1].ssthresh))
        .collect()
}

/// RFC 9331 §4.1 (ECT(1)) and the reference's ECN++: every Client packet of a
/// Prague connection, the SYN included, is ECT(1); the flow reports `prague`.
#[test]
fn test_every_packet_is_ect1() {
    let net = Net::transfer(prague(), 50 * MSS as u64, vec![]);
    assert!(net.c.is_closed() && net.s.is_closed());
    assert_eq!(net.c.cc_name(), "prague");
    let c2s: Vec<_> = net.log.iter().filter(|l| l.dir == Dir::C2S).collect();
    assert!(c2s.len() > 50);
    assert!(c2s.iter().all(|l| l.seg.ecn == Ecn::Ect1), "{}", net.dump());
}

/// The reference falls back to Reno without ECN (`prague-reno`) when AccECN is not
/// negotiated (`TCP_CONG_NO_FALLBACK_RFC3168`): against a classic-ECN Server the
/// Client sends Not-ECT after the handshake and never reduces for CE.
#[test]
fn test_without_accecn_it_falls_back_to_reno_without_ecn() {
    let server = TcpConfig { ecn: EcnMode::Classic, ..config(Recovery::Sack, true) };
    let mut net = Net::new(prague(), server, vec![]);
    net.c.send(50 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(Duration::from_secs(100).as_nanos()));
    assert!(net.c.is_closed());
    assert_eq!(net.c.cc_name(), "prague-reno");
    let data: Vec<_> = net.data().filter(|l| l.dir == Dir::C2S).collect();
    assert!(data.iter().all(|l| l.seg.ecn == Ecn::NotEct), "{}", net.dump());
}

/// 3000 segments from `cfg` to `cfg` with every fourth data segment from the 20th on CE-marked,
/// run for 100 s.
fn quarter_marked(cfg: TcpConfig) -> Net {
    let marks: Vec<Fault> = (20..3000).filter(|n| n % 4 == 0).map(|n| mark(Target::DataTx(n))).collect();
    let mut net = Net::new(cfg.clone(), cfg, marks);
    net.c.send(3000 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(Duration::from_secs(100).as_nanos()));
    net
}

/// RFC 9331 §4.3 / the reference's `prague_enter_cwr` in the CWR state: with every
/// fourth data segment CE-marked, a reduction W·(1 − α/2) comes at most once per round
/// trip (a reduction's ACK passes the data sent before the last one), and once the
/// flow is RTT-independent, at most once per 25 ms target although its RTT is ~20 ms.
#[test]
fn test_reduces_at_most_once_per_round_and_per_target_rtt() {
    let net = quarter_marked(prague());
    assert!(net.c.is_closed());
    let r = &net.ecn_reductions;
    assert!(r.len() >= 10, "{} reductions", r.len());
    for w in r.windows(2) {
        assert!(w[1].0 > w[0].1, "reduction at una {} before the round of {} ended", w[1].0, w[0].1);
    }
    let times = reductions(&net);
    let late: Vec<_> = times.iter().skip(8).collect(); // past slow start and the 4-round transition
    assert!(late.len() >= 5, "{times:?}");
    for w in late.windows(2) {
        let gap = w[1].0 .0 - w[0].0 .0;
        assert!(gap >= 25_000_000, "reductions {gap} ns apart (target 25 ms)\n{times:?}");
    }
    // A quarter of the bytes marked throughout: α near 1/4 (one segment in four).
    let a = net.c.dctcp_alpha().unwrap();
    assert!((a - 0.25).abs() < 0.1, "α {a}");
    assert!(net.cc_log.iter().skip(50).all(|p| p.cwnd >= 2 * MSS));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Any pattern of CE marks and drops: cwnd never below two segments (RFC 9331
    /// §4.3; the reference's `MIN_CWND_RTT`) except the one-segment window a timeout
    /// sets until the next ACK, α stays in [0, 1], and the transfer completes.
    #[test]
    fn prop_window_and_alpha_stay_in_bounds(
        marks in proptest::collection::btree_set(1u32..200, 0..120),
        drops in proptest::collection::btree_set(1u32..200, 0..6),
    ) {
        let mut faults: Vec<Fault> = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
        faults.extend(drops.iter().filter(|n| !marks.contains(n)).map(|&n| drop(Target::DataTx(n))));
        let net = Net::transfer(prague(), 150 * MSS as u64, faults);
        prop_assert!(net.c.is_closed() && net.s.is_closed(), "{}", net.dump());
        let smss = net.c.smss(); // the MSS less the AccECN option's room
        for p in &net.cc_log {
            let a = p.alpha.unwrap();
            prop_assert!((0.0..=1.0).contains(&a), "α {}", a);
            let rto = p.ca == ecnlab_tcp::CaState::Loss;
            prop_assert!(p.cwnd >= 2 * smss || (rto && p.cwnd >= smss), "cwnd {} in {:?}", p.cwnd, p.ca);
        }
    }
}

/// The Client's data transmissions with every data segment from the 15th on
/// CE-marked, paced, as `version`: (time, payload length) of each.
fn sends_under_full_marking(version: PragueVersion) -> Vec<(u64, u32)> {
    let marks: Vec<Fault> = (15..2000).map(|n| mark(Target::DataTx(n))).collect();
    let mut cfg = TcpConfig { pacing: true, pacing_ca_ratio: 100, ..prague() };
    cfg.prague.version = version;
    let mut net = Net::new(cfg.clone(), cfg, marks);
    net.c.send(150 * MSS as u64);
    net.c.close();
    net.run(ecnlab_wire::Instant(Duration::from_secs(100).as_nanos()));
    assert!(net.c.is_closed(), "{}", net.dump());
    net.data().filter(|l| l.dir == Dir::C2S).map(|l| (l.t.0, l.seg.payload_len)).collect()
}

/// `prague_cong_control` (`prague_cwnd_mode` 2), `prague_enter_cwr`,
/// `prague_update_pacing_rate` and `MINIMUM_RATE`: under marking of every packet a
/// v0.7 flow falls into the rate-based mode, its rate goes down to 100 kbit/s and
/// it paces there, each gap its segment's payload at 12 500 B/s + 3 % or − 3 % (the rate the
/// last ACK set); v0.6 keeps sending its 2-segment window per round trip (~20 ms) and
/// finishes the transfer in under half the time.
#[test]
fn test_v07_paces_down_to_100_kbit_under_full_marking() {
    let v7 = sends_under_full_marking(PragueVersion::V07);
    let late: Vec<_> = v7.iter().filter(|(t, _)| *t > 2_000_000_000).collect();
    assert!(late.len() > 10, "{} late segments", late.len());
    for p in late.windows(2) {
        let (gap, len) = (p[1].0 - p[0].0, u64::from(p[0].1));
        let fast = len * 1_000_000_000 / 12_890; // 12 500 + 12 500·4/128
        let slow = len * 1_000_000_000 / 12_110;
        assert!(gap == fast || gap == slow, "gap {gap} ns, not {fast} or {slow}");
    }
    let v6 = sends_under_full_marking(PragueVersion::V06);
    let (end6, end7) = (v6.last().unwrap().0, v7.last().unwrap().0);
    assert!(end6 < end7 / 2, "v0.6 ends at {end6} ns, v0.7 at {end7}");
}

/// For each ECN reduction of the Client: cwnd at the reduction, its ssthresh, and
/// the largest cwnd of the CWR phase that follows, from the cc log.
fn cwr_phases(net: &Net) -> Vec<(u32, u32, u32)> {
    let log = &net.cc_log;
    let starts = (1..log.len()).filter(|&i| log[i].ca == CaState::Cwr && log[i - 1].ca != CaState::Cwr);
    starts
        .map(|i| {
            let max = log[i..].iter().take_while(|p| p.ca == CaState::Cwr).map(|p| p.cwnd).max().unwrap_or(0);
            (log[i].cwnd, log[i].ssthresh, max)
        })
        .collect()
}

/// Linux's `tcp_cong_control` hands every ACK to a congestion control that has a
/// `cong_control` hook (the reference's `prague_cong_control`) and returns before
/// `tcp_cwnd_reduction`, and `tcp_end_cwnd_reduction` returns at once for it: with
/// PRR on (the `linux` personality's `prr`), a CE mark leaves Prague's reduced window
/// at once, not PRR's walk down from the old one, and the ACKs of the CWR that
/// follows grow it on their unmarked bytes. DCTCP has no such hook: PRR starts its
/// CWR from the window in flight, above ssthresh, and it does not grow there.
#[test]
fn test_prague_window_is_its_own_in_cwr_with_prr_on() {
    let marks = || -> Vec<Fault> { [40, 120, 200].iter().map(|&n| mark(Target::DataTx(n))).collect() };
    let cfg = TcpConfig { prr: true.into(), ..prague() };
    let net = Net::transfer(cfg, 400 * MSS as u64, marks());
    assert!(net.c.is_closed(), "{}", net.dump());
    let phases = cwr_phases(&net);
    assert_eq!(phases.len(), 3, "{phases:?}");
    for &(at, ssthresh, max) in &phases {
        // The ACK that reduced also grew the window by its unmarked bytes: less than a segment.
        assert!(at >= ssthresh && at < ssthresh + MSS, "cwnd is the reduced window at once: {phases:?}");
        assert!(max > at, "the ACKs of CWR grow the window: {phases:?}");
    }
    let dctcp =
        TcpConfig { cc: CcKind::Dctcp, ecn_min_cwnd_segments: 2, prr: true.into(), ..config(Recovery::Sack, true) };
    let net = Net::transfer(dctcp, 400 * MSS as u64, marks());
    let phases = cwr_phases(&net);
    assert!(!phases.is_empty(), "{}", net.dump());
    for &(at, ssthresh, max) in &phases {
        assert!(at > ssthresh && max == at, "PRR walks DCTCP's cwnd down, never up: {phases:?}");
    }
}

/// `prague_feedback = "dctcp"`: Prague's congestion response over RFC 3168 ECN with
/// DCTCP's receiver echo (ecnlab's BPF Prague-like on a kernel without AccECN).
fn prague_dctcp() -> TcpConfig {
    let mut cfg = TcpConfig { ecn: EcnMode::Classic, ..prague() };
    cfg.prague.feedback = PragueFeedback::Dctcp;
    cfg
}

/// RFC 3168 §6.1.1 negotiation, and no `prague-reno`: the reference falls back when
/// AccECN is not negotiated (`TCP_CONG_NO_FALLBACK_RFC3168`), the DCTCP-feedback
/// option does not. Against a DCTCP-echo Server and against a plain RFC 3168 one the
/// Client stays `prague`, its data ECT(1), and a CE mark reduces its window.
#[test]
fn test_dctcp_feedback_negotiates_classic_ecn_and_keeps_prague() {
    let plain = TcpConfig { ecn: EcnMode::Classic, ..config(Recovery::Sack, true) };
    for server in [prague_dctcp(), plain] {
        let mut net = Net::new(prague_dctcp(), server, vec![mark(Target::DataTx(30))]);
        net.c.send(80 * MSS as u64);
        net.c.close();
        net.run(ecnlab_wire::Instant(Duration::from_secs(100).as_nanos()));
        assert!(net.c.is_closed(), "{}", net.dump());
        assert_eq!(net.c.cc_name(), "prague");
        let syn = net.log.iter().find(|l| l.dir == Dir::C2S && l.seg.flags.syn()).unwrap();
        assert!(syn.seg.flags.ece() && syn.seg.flags.cwr() && !syn.seg.flags.ae(), "RFC 3168 SYN\n{}", net.dump());
        assert!(
            net.data().filter(|l| l.dir == Dir::C2S).all(|l| matches!(l.seg.ecn, Ecn::Ect1 | Ecn::Ce)),
            "{}",
            net.dump()
        );
        assert_eq!(net.c.stats().ecn_reductions, 1, "{}", net.dump());
    }
}

/// RFC 8257 §3.2 at a Prague receiver with `prague_feedback = "dctcp"` (as
/// `dctcp.rs`'s test of cc = dctcp): ECE is set iff DCTCP.CE, and a change of CE
/// state is ACKed at once, so under delayed ACKs no ACK covers both states and the
/// bytes ECE ACKs cover are exactly the CE-marked bytes.
#[test]
fn test_dctcp_feedback_receiver_echoes_ce_runs_exactly() {
    let marks = [5, 6, 7, 12, 20, 21, 30, 31, 32, 33, 34, 41];
    let faults = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
    let net = Net::transfer(prague_dctcp(), 60 * MSS as u64, faults);
    let mut segs: Vec<(u64, bool)> = net
        .data()
        .filter(|l| l.dir == Dir::C2S && !l.seg.retransmit)
        .map(|l| (l.seg.seq + l.seg.payload_len as u64, l.fate == Fate::Marked))
        .collect();
    segs.sort();
    let (mut acked, mut ece_segs) = (1u64, 0usize);
    for a in net.acks().filter(|l| l.dir == Dir::S2C && !l.seg.flags.syn()) {
        let ack = a.seg.ack.min(segs.last().unwrap().0);
        let covered: Vec<bool> = segs.iter().filter(|&&(end, _)| end > acked && end <= ack).map(|s| s.1).collect();
        acked = acked.max(ack);
        let Some(&state) = covered.first() else { continue };
        assert!(covered.iter().all(|&c| c == state), "ACK {ack} mixes CE states {covered:?}\n{}", net.dump());
        assert_eq!(a.seg.flags.ece(), state, "ACK {ack}: ECE must equal CE of what it covers\n{}", net.dump());
        ece_segs += if state { covered.len() } else { 0 };
    }
    assert_eq!(ece_segs, marks.len());
}

/// The sender's side of DCTCP's echo (RFC 8257 §3.3: the bytes an ECE ACK
/// acknowledges are the marked bytes) under Prague's rules (`prague_update_alpha`,
/// `prague_enter_cwr`): with every fourth data segment CE-marked, α is the EWMA of
/// a quarter, the first mark halves the window (v0.7, α from 0), and each later
/// reduction leaves frac·(1 − α/2) of the window before it (frac within a segment of
/// that cwnd), α being the estimate the reducing ACK left.
#[test]
fn test_dctcp_feedback_alpha_and_reduction_follow_ece_marked_bytes() {
    let net = quarter_marked(prague_dctcp());
    assert!(net.c.is_closed(), "{}", net.dump());
    let a = net.c.dctcp_alpha().unwrap();
    assert!((a - 0.25).abs() < 0.1, "α {a}");
    let log = &net.cc_log;
    let cuts: Vec<(u32, u32, f64)> = (1..log.len())
        .filter(|&i| log[i].ssthresh < log[i - 1].ssthresh && log[i].ca == CaState::Cwr)
        .map(|i| (log[i - 1].cwnd, log[i].ssthresh, log[i].alpha.unwrap()))
        .collect();
    assert!(cuts.len() >= 10, "{cuts:?}");
    let (before, after, _) = cuts[0];
    assert!(after.abs_diff(before / 2) <= MSS, "the first mark halves: {before} -> {after}");
    for &(before, after, alpha) in &cuts[1..] {
        let expect = f64::from(before) * (1.0 - alpha / 2.0);
        assert!((f64::from(after) - expect).abs() <= 1.5 * f64::from(MSS), "{before} -> {after}, α {alpha}: {cuts:?}");
    }
}

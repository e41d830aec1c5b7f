//! RFC 3168 §6.1.1.1 through a path that drops ECN-setup SYNs: "a host that receives no reply
//! to an ECN-setup SYN within the normal SYN retransmission timeout interval MAY resend the SYN
//! and any subsequent SYN retransmissions with CWR and ECE cleared" (`rules/syn_fallback.rs`).
//! Linux does so on every SYN retransmission (`__tcp_retransmit_skb` → `tcp_ecn_clear_syn`,
//! sysctl `tcp_ecn_fallback` = 1); with the fallback off every SYN asks for ECN again.

mod harness;

use ecnlab_tcp::{EcnMode, Personality, Recovery, State, SynEcnFallback, TcpConfig};
use ecnlab_wire::Instant;
use harness::*;

/// The Client's SYNs in the trace: (time, asks for ECN, dropped).
fn syns(net: &Net) -> Vec<(Instant, bool, bool)> {
    net.log
        .iter()
        .filter(|l| l.dir == Dir::C2S && l.seg.flags.syn())
        .map(|l| (l.t, l.seg.flags.ece() || l.seg.flags.cwr() || l.seg.flags.ae(), l.fate == Fate::Dropped))
        .collect()
}

fn linux(ecn: EcnMode) -> TcpConfig {
    let mut cfg = TcpConfig { ecn, ..config(Recovery::Sack, true) };
    Personality::Linux.rules().apply(&mut cfg);
    cfg
}

/// Linux: the first SYN (ECE and CWR) is dropped; one initial RTO (1 s, `TCP_TIMEOUT_INIT`)
/// later the retransmitted SYN asks for nothing, gets through, and the connection runs
/// without ECN to the end of the transfer.
#[test]
fn test_linux_falls_back_on_the_first_syn_retransmission() {
    let cfg = linux(EcnMode::Classic);
    assert_eq!(cfg.syn_ecn_fallback, SynEcnFallback::Retransmissions);
    let net = Net::transfer(cfg, 20_000, vec![drop(Target::EcnSyn)]);
    let s = syns(&net);
    assert_eq!(s.len(), 2, "{}", net.dump());
    assert_eq!((s[0].0, s[0].1, s[0].2), (Instant::ZERO, true, true));
    assert_eq!((s[1].0.as_secs_f64(), s[1].1, s[1].2), (1.0, false, false), "{}", net.dump());
    assert!(!net.c.ecn_negotiated() && !net.s.ecn_negotiated());
    assert_eq!(net.c.stats().syn_retransmits, 1);
    assert!(net.c.is_closed() && net.s.bytes_received() == 20_000, "{}", net.dump());
}

/// With AccECN the fallback clears AE as well as CWR and ECE (an AccECN SYN sets all three).
#[test]
fn test_linux_fallback_clears_an_accecn_syn_too() {
    let net = Net::transfer(linux(EcnMode::AccEcn), 5_000, vec![drop(Target::EcnSyn)]);
    let s = syns(&net);
    assert_eq!(s.iter().map(|x| (x.1, x.2)).collect::<Vec<_>>(), [(true, true), (false, false)]);
    assert!(!net.c.ecn_negotiated() && net.s.bytes_received() == 5_000);
}

/// The RFC as the `rfc` personality reads it (the fallback is a "MAY"): every SYN asks for ECN,
/// so the blackhole drops them all, each after a doubled timeout, and nothing connects.
#[test]
fn test_without_the_fallback_an_ecn_syn_blackhole_never_connects() {
    let cfg = config(Recovery::Sack, true);
    assert_eq!(cfg.syn_ecn_fallback, SynEcnFallback::Off);
    let net = Net::transfer(cfg, 5_000, vec![drop(Target::EcnSyn)]);
    let s = syns(&net);
    assert!(s.len() >= 5 && s.iter().all(|&(_, ecn, dropped)| ecn && dropped), "{}", net.dump());
    let gaps: Vec<f64> = s.windows(2).take(4).map(|w| (w[1].0 - w[0].0).as_secs_f64()).collect();
    assert_eq!(gaps, [1.0, 2.0, 4.0, 8.0]);
    assert_eq!(net.c.state(), State::SynSent);
}

/// Without a blackhole the fallback changes nothing: the first SYN asks for ECN and gets it.
#[test]
fn test_the_fallback_leaves_a_clean_path_alone() {
    let net = Net::transfer(linux(EcnMode::Classic), 5_000, vec![]);
    assert_eq!(syns(&net), [(Instant::ZERO, true, false)]);
    assert!(net.c.ecn_negotiated() && net.s.ecn_negotiated());
}

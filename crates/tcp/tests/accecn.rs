//! AccECN (RFC 9768; `crates/tcp/src/accecn.rs`): packet traces of the
//! negotiation and its fall-backs, the receiver's ACE counter across delayed,
//! lost and wrapping ACKs, the sender's decoding and what the congestion control
//! does with it; then the AccECN option's policy (`tcp.accecn_option`, Linux's
//! `tcp_ecn_option` and `tcp_ecn_option_beacon`), one test per rule, each quoting
//! the RFC sentence or naming the Linux function. Setting as `trace.rs`
//! (harness::config: MSS 1000 B, IW 2, 10 ms one-way, 10 Mbit/s); a few tests
//! drive two endpoints by hand (`Pair`) where a packet has to be held, dropped
//! or re-marked exactly.

mod harness;

use ecnlab_tcp::{AccEcnOptionPolicy, CcKind, Connection, EcnFeedback, EcnMode, EctPackets, Recovery, Role, TcpConfig};
use ecnlab_wire::{AccEcnOption, Duration, Ecn, Instant, Segment, TcpFlags};
use harness::*;
use proptest::prelude::*;

fn acc(delayed_ack: bool) -> TcpConfig {
    TcpConfig { ecn: EcnMode::AccEcn, ..config(Recovery::Sack, delayed_ack) }
}

fn with_ecn(cfg: &TcpConfig, ecn: EcnMode) -> TcpConfig {
    TcpConfig { ecn, ..cfg.clone() }
}

/// The (AE, CWR, ECE) of segments.
fn ace(l: &Line) -> u8 {
    l.seg.flags.ace()
}

/// Two endpoints wired by hand: every segment is handed over at once unless the
/// test says otherwise.
struct Pair {
    c: Connection,
    s: Connection,
    now: Instant,
}

impl Pair {
    fn new(c: TcpConfig, s: TcpConfig) -> Self {
        Pair { c: Connection::new(c, Role::Client), s: Connection::new(s, Role::Server), now: Instant::ZERO }
    }
    fn out(conn: &mut Connection, now: Instant) -> Vec<Segment> {
        std::iter::from_fn(|| conn.poll_transmit(now)).collect()
    }
    fn client_out(&mut self) -> Vec<Segment> {
        Self::out(&mut self.c, self.now)
    }
    fn server_out(&mut self) -> Vec<Segment> {
        Self::out(&mut self.s, self.now)
    }
    fn tick(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
    }
}

/// RFC 9768 §3.1.1: "an AccECN TCP Client ... MUST set both TCP header flags CWR
/// and ECE and ... AE" on the SYN; Table 2: the AccECN Server's SYN-ACK encodes the
/// IP-ECN field of the SYN (Not-ECT → 010, ECT(1) → 011, ECT(0) → 100, CE → 110);
/// §3.2.2.1 / Table 4: the Client's first ACK encodes the SYN-ACK's the same way,
/// and every later segment carries ACE = r.cep mod 8 = 5 (r.cep "initialized to 5").
#[test]
fn test_negotiation_trace_both_accecn() {
    let net = Net::transfer(acc(false), 10 * MSS as u64, vec![]);
    let c2s: Vec<&Line> = net.log.iter().filter(|l| l.dir == Dir::C2S).collect();
    let s2c: Vec<&Line> = net.acks().collect();
    assert!(c2s[0].seg.flags.syn() && ace(c2s[0]) == 0b111, "{}", net.dump());
    assert!(s2c[0].seg.flags.syn() && s2c[0].seg.flags.ack());
    assert_eq!(ace(s2c[0]), 0b010, "SYN was Not-ECT\n{}", net.dump());
    assert_eq!(ace(c2s[1]), 0b010, "first ACK: the SYN-ACK was Not-ECT\n{}", net.dump());
    assert!(c2s[2..].iter().all(|l| ace(l) == 0b101), "later: r.cep = 5\n{}", net.dump());
    assert!(s2c[1..].iter().all(|l| ace(l) == 0b101), "{}", net.dump());
    assert_eq!(net.c.ecn_feedback(), EcnFeedback::AccEcn);
    assert_eq!(net.s.ecn_feedback(), EcnFeedback::AccEcn);
    assert_eq!(net.s.handshake_feedback(), Some(Ecn::NotEct));
    assert!(net.data().all(|l| l.seg.ecn == Ecn::Ect0), "new data is ECT(0)");
    assert_eq!(net.c.accecn_counters(), Some((5, 5)));
    assert_eq!(net.c.stats().ece_sent + net.c.stats().cwr_sent, 0, "ACE bits are no ECE/CWR signals");
}

/// Table 2 for each IP-ECN codepoint of the SYN, and Table 4 for the SYN-ACK's
/// codepoint on the Client's first ACK (a CE SYN-ACK is fed back as 110).
#[test]
fn test_handshake_codes_feed_back_the_ip_ecn_field_of_syn_and_syn_ack() {
    let table = [(Ecn::NotEct, 0b010), (Ecn::Ect1, 0b011), (Ecn::Ect0, 0b100), (Ecn::Ce, 0b110)];
    for (ecn, code) in table {
        let mut p = Pair::new(acc(false), acc(false));
        let mut syn = p.client_out().remove(0);
        syn.ecn = ecn;
        p.s.on_segment(p.now, &syn);
        let mut syn_ack = p.server_out().remove(0);
        assert_eq!(syn_ack.flags.ace(), code, "SYN {ecn:?}");
        syn_ack.ecn = ecn; // as if the SYN-ACK arrived with the same codepoint
        p.c.on_segment(p.now, &syn_ack);
        let ack = p.client_out().remove(0);
        assert_eq!(ack.flags.ace(), code, "SYN-ACK {ecn:?}");
        p.s.on_segment(p.now, &ack);
        assert_eq!(p.s.handshake_feedback(), Some(ecn));
        assert_eq!((p.c.ecn_feedback(), p.s.ecn_feedback()), (EcnFeedback::AccEcn, EcnFeedback::AccEcn));
        assert_eq!(p.s.accecn_counters(), Some((5, 5)), "handshake CE is not in r.cep");
    }
}

/// Table 2 fall-backs: "AccECN | ECN | 111 | 001 | Classic ECN" (an RFC 3168
/// Server ignores AE), "AccECN | No ECN | 111 | 000 | Not ECN", and an AccECN
/// Server answering a classic SYN (011) with 001: classic ECN on both ends.
#[test]
fn test_fall_backs_to_classic_ecn_and_to_no_ecn() {
    let base = acc(false);
    let mark12 = || vec![mark(Target::DataTx(12))];
    // AccECN Client, classic Server.
    let mut net = Net::new(base.clone(), with_ecn(&base, EcnMode::Classic), mark12());
    net.c.send(30 * MSS as u64);
    net.c.close();
    net.run(Instant(Duration::from_secs(100).as_nanos()));
    let synack = net.acks().next().unwrap();
    assert_eq!(ace(synack), 0b001, "{}", net.dump());
    assert_eq!((net.c.ecn_feedback(), net.s.ecn_feedback()), (EcnFeedback::Classic, EcnFeedback::Classic));
    assert_eq!(net.c.stats().ecn_reductions, 1);
    assert_eq!(net.c.stats().cwr_sent, 1, "RFC 3168 CWR after the reduction\n{}", net.dump());
    assert!(net.s.stats().ece_sent >= 1);
    assert!(net.data().all(|l| !l.seg.flags.ae()), "no AE after a classic handshake");
    // AccECN Client, Server without ECN.
    let net = Net::new(base.clone(), with_ecn(&base, EcnMode::Off), mark12());
    let mut net = net;
    net.c.send(30 * MSS as u64);
    net.c.close();
    net.run(Instant(Duration::from_secs(100).as_nanos()));
    assert_eq!(ace(net.acks().next().unwrap()), 0b000);
    assert_eq!((net.c.ecn_feedback(), net.s.ecn_feedback()), (EcnFeedback::Off, EcnFeedback::Off));
    assert!(net.data().all(|l| l.seg.ecn == Ecn::NotEct), "no ECN: Not-ECT data\n{}", net.dump());
    // Classic Client, AccECN Server.
    let mut net = Net::new(with_ecn(&base, EcnMode::Classic), base.clone(), mark12());
    net.c.send(30 * MSS as u64);
    net.c.close();
    net.run(Instant(Duration::from_secs(100).as_nanos()));
    let syn = net.log.iter().find(|l| l.dir == Dir::C2S).unwrap();
    assert_eq!(ace(syn), 0b011);
    assert_eq!(ace(net.acks().next().unwrap()), 0b001, "{}", net.dump());
    assert_eq!((net.c.ecn_feedback(), net.s.ecn_feedback()), (EcnFeedback::Classic, EcnFeedback::Classic));
    assert_eq!(net.c.stats().ecn_reductions, 1);
    // A Server that reflects AE, CWR and ECE (Table 2's "broken" row): no ECN.
    let mut p = Pair::new(base.clone(), base.clone());
    p.client_out();
    let reflected = Segment {
        flags: TcpFlags::SYN | TcpFlags::ACK | TcpFlags::AE | TcpFlags::CWR | TcpFlags::ECE,
        ack: 1,
        mss: Some(1000),
        window: 65535,
        ..Segment::default()
    };
    p.c.on_segment(p.now, &reflected);
    assert_eq!(p.c.ecn_feedback(), EcnFeedback::Off);
}

/// §3.2.2.5.1 "Change-Triggered ACKs: An AccECN Data Receiver SHOULD emit an ACK
/// whenever a data packet marked CE arrives after the previous packet was not CE"
/// and "Increment-Triggered ACKs: ... MUST emit an ACK if 'n' CE marks have arrived
/// since the previous ACK. If there is unacknowledged data at the receiver, 'n'
/// SHOULD be 2": with delayed ACKs, the first CE of a run is ACKed on its own (the
/// ACK acknowledges exactly up to it) and no ACK covers more than two CE marks.
/// No ECE latch: the ACE of the ACK after the run is unchanged, and the sender's
/// count equals the receiver's.
#[test]
fn test_change_and_increment_triggered_acks_under_delayed_acks() {
    let marks = [5u32, 6, 7, 8, 9, 12, 20, 30, 31, 41];
    let net = Net::transfer(acc(true), 60 * MSS as u64, marks.iter().map(|&n| mark(Target::DataTx(n))).collect());
    let data: Vec<(u64, bool)> =
        net.data().map(|l| (l.seg.seq + l.seg.payload_len as u64, l.fate == Fate::Marked)).collect();
    assert!(net.data().all(|l| !l.seg.retransmit), "{}", net.dump());
    let acks: Vec<u64> = net.acks().filter(|l| !l.seg.flags.syn()).map(|l| l.seg.ack).collect();
    for (i, &(end, ce)) in data.iter().enumerate() {
        let prev_ce = i > 0 && data[i - 1].1;
        if ce && !prev_ce {
            assert!(acks.contains(&end), "change-triggered ACK of {end} missing\n{}", net.dump());
        }
    }
    let mut prev = 1;
    for &a in &acks {
        let covered = data.iter().filter(|&&(end, ce)| ce && end > prev && end <= a).count();
        assert!(covered <= 2, "ACK {a} covers {covered} CE marks\n{}", net.dump());
        prev = prev.max(a);
    }
    let ce = marks.len() as u64;
    assert_eq!(net.s.stats().ce_received, ce);
    assert_eq!(net.c.stats().ace_delta_ce, ce, "{}", net.dump());
    let (r_cep, _) = net.s.accecn_counters().unwrap();
    let (_, s_cep) = net.c.accecn_counters().unwrap();
    assert_eq!((r_cep, s_cep), (5 + ce, 5 + ce));
    assert!(net.s.stats().acks_sent < 55, "delayed ACKs still apply");
    let last = net.acks().last().unwrap();
    assert_eq!(ace(last) as u64, (5 + ce) % 8, "ACE = r.cep mod 8\n{}", net.dump());
}

/// Lost ACKs lose no CE count while fewer than 8 marks hide behind them: the next
/// ACK's ACE carries the cumulative counter (Appendix A.2.1 "d.cep = (ACE + DIVACE -
/// (s.cep % DIVACE)) % DIVACE").
#[test]
fn test_ace_survives_lost_acks() {
    let marks = [3u32, 4, 9, 10, 11, 15, 22];
    let mut faults: Vec<Fault> = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
    faults.extend([4u32, 5, 9, 10, 11, 12, 17].iter().map(|&n| drop(Target::AckTx(n))));
    let net = Net::transfer(acc(false), 30 * MSS as u64, faults);
    assert_eq!(net.log.iter().filter(|l| l.dir == Dir::S2C && l.fate == Fate::Dropped).count(), 7);
    // A mark meant for a Not-ECT retransmission drops it (harness), so count the marks made.
    let marked = net.data().filter(|l| l.fate == Fate::Marked).count() as u64;
    assert!(marked >= 5, "{}", net.dump());
    assert_eq!(net.s.stats().ce_received, marked, "{}", net.dump());
    assert_eq!(net.c.stats().ace_delta_ce, marked, "{}", net.dump());
    assert_eq!(net.c.accecn_counters().unwrap().1, 5 + marked);
}

/// The 3-bit wrap: ten CE-marked segments whose ACKs are all lost but the last.
/// Plain modulo decoding would see 10 mod 8 = 2; §3.2.2.5.2 "it SHOULD deem whether
/// it cycled by taking the safest likely case", Appendix A.2.1 "dSafer.cep =
/// newlyAckedPkt - ((newlyAckedPkt - d.cep) % DIVACE)" = 10 - (8 % 8) = 10.
/// With only 2 of 10 marked the same rule assumes 10 (the safest case), and with
/// 9 newly acknowledged and d.cep = 2 it keeps 2 ("9 - ((9-2) % 8) = 2").
#[test]
fn test_wrap_rule_when_an_ack_covers_more_than_eight_packets() {
    for (n, marked, expect) in [(10u64, 10u64, 10u64), (10, 2, 10), (9, 2, 2), (7, 7, 7)] {
        let cfg = TcpConfig { init_cwnd_segments: 20, ..acc(false) };
        let mut p = Pair::new(cfg.clone(), cfg);
        let syn = p.client_out().remove(0);
        p.s.on_segment(p.now, &syn);
        for s in p.server_out() {
            p.c.on_segment(p.now, &s);
        }
        let smss = u64::from(p.c.smss()); // the MSS less the AccECN option's room
        p.c.send(n * smss);
        let out = p.client_out();
        let data: Vec<Segment> = out.into_iter().filter(|s| s.payload_len > 0).collect();
        assert_eq!(data.len() as u64, n);
        let mut last_ack = None;
        for (i, mut d) in data.into_iter().enumerate() {
            if (i as u64) < marked {
                d.ecn = Ecn::Ce;
            }
            p.tick(1);
            p.s.on_segment(p.now, &d);
            last_ack = p.server_out().pop().or(last_ack); // every earlier ACK is lost
        }
        let ack = last_ack.unwrap();
        assert_eq!(ack.ack, 1 + n * smss);
        assert_eq!(ack.flags.ace() as u64, (5 + marked) % 8);
        p.tick(20);
        p.c.on_segment(p.now, &ack);
        assert_eq!(p.c.stats().ace_delta_ce, expect, "n = {n}, marked = {marked}");
        assert_eq!(p.s.accecn_counters().unwrap().0, 5 + marked);
    }
}

/// RFC 9768 §3.2.2.5 with Reno: new CE marks (Δ > 0) are an ECN-Echo, one
/// reduction per window however many marks; the sender sets no CWR (§3.2.2: CWR is
/// part of the ACE field), and the receiver keeps no latch (ACE changes only with
/// new marks).
#[test]
fn test_reno_reduces_once_per_window_and_sends_no_cwr() {
    let faults = vec![mark(Target::DataTx(12)), mark(Target::DataTx(13)), mark(Target::DataTx(14))];
    let net = Net::transfer(acc(false), 40 * MSS as u64, faults);
    assert_eq!(net.c.stats().ecn_reductions, 1, "{}", net.dump());
    assert_eq!(net.c.stats().ace_delta_ce, 3);
    assert_eq!(net.c.stats().cwr_sent, 0);
    assert_eq!(net.s.stats().ece_sent, 0);
    let changes = net
        .acks()
        .filter(|l| !l.seg.flags.syn())
        .map(ace)
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0] != w[1])
        .count();
    assert_eq!(changes, 3, "ACE steps once per mark (no ACK loss)\n{}", net.dump());
}

/// DCTCP with AccECN (RFC 8257 §3.3, marked bytes from the ACE count): with every
/// other segment marked, α settles near 1/2 as with DCTCP's own ECE feedback.
#[test]
fn test_dctcp_alpha_from_ace_counts() {
    let dctcp = |ecn| TcpConfig { cc: CcKind::Dctcp, ecn, ecn_min_cwnd_segments: 2, ..config(Recovery::Sack, true) };
    let marks: Vec<Fault> = (1..400).filter(|n| n % 2 == 0).map(|n| mark(Target::DataTx(n))).collect();
    let acc = Net::transfer(dctcp(EcnMode::AccEcn), 400 * MSS as u64, marks.clone());
    let classic = Net::transfer(dctcp(EcnMode::Classic), 400 * MSS as u64, marks);
    let (a, c) = (acc.c.dctcp_alpha().unwrap(), classic.c.dctcp_alpha().unwrap());
    assert!((a - 0.5).abs() < 0.12, "α with AccECN {a}\n{}", acc.dump());
    assert!((a - c).abs() < 0.12, "α {a} (AccECN) vs {c} (DCTCP ECE)");
    assert_eq!(acc.c.stats().ace_delta_ce, acc.s.stats().ce_received);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Without ACK loss the sender never counts more CE than the receiver saw, and
    /// once every ACK is in the two counts are equal: s.cep = r.cep.
    #[test]
    fn prop_sender_count_never_exceeds_receiver_and_ends_equal(
        marks in proptest::collection::btree_set(1u32..80, 0..60),
        delayed in any::<bool>(),
    ) {
        let faults: Vec<Fault> = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
        let net = Net::transfer(acc(delayed), 80 * MSS as u64, faults);
        prop_assert!(net.c.is_closed() && net.s.is_closed());
        // At every ACK the Client processed: its count so far ≤ the CE the Server had
        // received when it sent that ACK (ACE of that ACK, decoded without wrap).
        let (r, s) = (net.s.accecn_counters().unwrap().0, net.c.accecn_counters().unwrap().1);
        prop_assert_eq!(r, 5 + marks.len() as u64);
        prop_assert_eq!(s, r);
        let mut ce_sent = 0u64;
        let mut decoded = 5u64;
        for l in &net.log {
            if l.dir == Dir::C2S && l.fate == Fate::Marked {
                ce_sent += 1;
            }
            if l.dir == Dir::S2C && !l.seg.flags.syn() {
                decoded += (l.seg.flags.ace() as u64 + 8 - decoded % 8) % 8;
                prop_assert!(decoded <= 5 + ce_sent, "ACE {} ahead of the marks sent", decoded);
            }
        }
    }
}

/// RFC 9768 §3.2.3: every ACK after the handshake carries the AccECN option, and
/// its ECEB counts the CE-marked payload bytes; the Data Sender reads it, so with
/// ACKs lost (even enough to hide a wrap of the 3-bit ACE field) the CE bytes it
/// learns equal the bytes the Data Receiver got marked.
#[test]
fn test_accecn_option_ceb_survives_lost_acks() {
    let marks: Vec<Fault> = (10..60).filter(|n| n % 3 != 0).map(|n| mark(Target::DataTx(n))).collect();
    // Nine ACKs in a row lost while the window is large: the next one covers more
    // than eight CE packets' worth of ACE.
    let ack_losses: Vec<Fault> = (20..29).map(|n| drop(Target::AckTx(n))).collect();
    let faults = marks.iter().copied().chain(ack_losses).collect();
    // ECT on retransmissions too, so that a marked retransmission is not dropped.
    let cfg = TcpConfig { ect_all_packets: EctPackets::All, ..acc(false) };
    let net = Net::transfer(cfg, 80 * MSS as u64 + 123, faults);
    assert!(net.c.is_closed() && net.s.is_closed(), "{}", net.dump());
    let acks: Vec<_> = net.log.iter().filter(|l| l.dir == Dir::S2C && !l.seg.flags.syn()).collect();
    for l in &acks {
        assert!(l.seg.accecn.is_some_and(|o| o.fields == 3 && !o.order1), "{:?}\n{}", l.seg, net.dump());
    }
    // What crossed the link, from the capture log: every data packet that arrived,
    // duplicates included, by its codepoint on arrival.
    let arrived = |f: Fate| -> u64 {
        let data = net.log.iter().filter(|l| l.dir == Dir::C2S && l.seg.payload_len > 0 && l.fate == f);
        data.map(|l| u64::from(l.seg.payload_len)).sum()
    };
    let (ce_bytes, ect0_bytes) = (arrived(Fate::Marked), arrived(Fate::Sent));
    assert!(ce_bytes >= 20 * MSS as u64);
    assert_eq!(net.c.stats().accecn_ceb, ce_bytes, "the sender learnt every CE byte");
    let last = acks.last().unwrap().seg.accecn.unwrap();
    assert_eq!(u64::from(last.eceb), ce_bytes);
    assert_eq!(u64::from(last.ee0b), 1 + ect0_bytes, "ECT(0) bytes from the initial 1");
    assert_eq!(last.ee1b, 1);
}

// ---------------------------------------------------------------------------
// The AccECN option's policy (§3.2.3.2, §3.2.3.3; Linux tcp_ecn_option)
// ---------------------------------------------------------------------------

/// `acc(delayed_ack)` with option `policy` and `beacon`.
fn opt(delayed_ack: bool, policy: AccEcnOptionPolicy, beacon: u8) -> TcpConfig {
    TcpConfig { accecn_option: policy, accecn_option_beacon: beacon, ..acc(delayed_ack) }
}

/// The option a segment of the log carries.
fn option(l: &Line) -> Option<AccEcnOption> {
    l.seg.accecn
}

/// The initial counters (§3.2.1: EE0B = EE1B = 1, ECEB = 0) in all three fields, AccECN0.
const INITIAL: AccEcnOption = AccEcnOption { order1: false, fields: 3, ee0b: 1, eceb: 0, ee1b: 1 };

/// Payload bytes of the Client's data that arrived with `ecn` and lie below `ack`.
fn arrived_below(net: &Net, ack: u64, ce: bool) -> u64 {
    let want = if ce { Fate::Marked } else { Fate::Sent };
    net.data()
        .filter(|l| l.fate == want && l.seg.seq + u64::from(l.seg.payload_len) <= ack)
        .map(|l| u64::from(l.seg.payload_len))
        .sum()
}

/// §3.2.3.2.1 "A TCP Server that confirms its support for AccECN (in response to an
/// AccECN SYN from the Client as described in Section 3.1) SHOULD include an AccECN
/// TCP Option on the SYN/ACK"; §3.2.3.2.2 "the TCP Server SHOULD retransmit the
/// SYN/ACK, but with no AccECN Option" (Linux `tcp_synack_options`: the first
/// transmission only). With `off` (Linux: "This also disables sending AccECN option
/// in SYN/ACK") there is none.
#[test]
fn test_syn_ack_carries_the_option_and_its_retransmission_none() {
    for policy in [AccEcnOptionPolicy::Minimum, AccEcnOptionPolicy::Full] {
        let cfg = opt(false, policy, 3);
        let mut net = Net::new(cfg.clone(), cfg, vec![drop(Target::SynAck(1))]);
        net.c.send(5 * MSS as u64);
        net.c.close();
        net.run(Instant(Duration::from_secs(100).as_nanos()));
        let synacks: Vec<&Line> = net.acks().filter(|l| l.seg.flags.syn()).collect();
        assert_eq!(synacks.len(), 2, "{}", net.dump());
        assert_eq!(option(synacks[0]), Some(INITIAL), "{policy:?}\n{}", net.dump());
        assert!(synacks[0].seg.options_len() <= 40);
        assert_eq!(option(synacks[1]), None, "retransmitted SYN-ACK\n{}", net.dump());
        assert!(net.c.is_closed() && net.s.is_closed());
    }
    let net = Net::transfer(opt(false, AccEcnOptionPolicy::Off, 3), 5 * MSS as u64, vec![]);
    assert!(net.log.iter().all(|l| option(l).is_none()), "off: none at all\n{}", net.dump());
    assert!(net.data().all(|l| l.seg.payload_len == MSS || l.seg.seq + l.seg.payload_len as u64 == 1 + 5000));
    assert_eq!(net.c.smss(), MSS, "off: no room kept on data segments");
}

/// §3.2.3.2.1 "A TCP Client that has successfully negotiated AccECN SHOULD include an
/// AccECN Option in the first ACK at the end of the three-way handshake. However,
/// this first ACK is not delivered reliably, so the TCP Client SHOULD also include an
/// AccECN Option on the first data segment it sends". With `minimum` and no beacon
/// this is Linux's demand: a SYN-ACK with the option asks for it on the next two
/// segments (`tcp_ecn_rcv_synack`), and the Server's first segment after the
/// handshake carries it (`tcp_ecn_openreq_child`, demand 1); later ones do not.
#[test]
fn test_minimum_handshake_ack_and_first_data_segment_carry_the_option() {
    let cfg = opt(false, AccEcnOptionPolicy::Minimum, 0);
    let mut p = Pair::new(cfg.clone(), cfg);
    let syn = p.client_out().remove(0);
    assert_eq!(syn.accecn, None, "§3.2.3.2.1: the Client MUST NOT include an AccECN TCP Option on the SYN");
    p.s.on_segment(p.now, &syn);
    let syn_ack = p.server_out().remove(0);
    assert_eq!(syn_ack.accecn, Some(INITIAL));
    p.tick(20);
    p.c.on_segment(p.now, &syn_ack);
    let ack = p.client_out().remove(0);
    assert_eq!((ack.payload_len, ack.flags.ace()), (0, 0b010), "the handshake ACK");
    assert_eq!(ack.accecn, Some(INITIAL), "the final ACK of the handshake");
    p.c.send(3 * MSS as u64);
    let data = p.client_out();
    assert_eq!(data.len(), 2, "IW 2");
    assert!(data[0].accecn.is_some(), "the first data segment");
    assert!(data[1].accecn.is_none(), "demand spent, no beacon");
    p.s.on_segment(p.now, &ack);
    p.s.send(2 * MSS as u64);
    let s = p.server_out();
    assert!(s[0].accecn.is_some() && s[1].accecn.is_none(), "the Server's first segment only: {s:?}");
}

/// Linux `tcp_established_options` sends the option only once one arrived from the
/// peer (`saw_accecn_opt`); §3.2.3.2.3 "If the TCP Client has successfully
/// negotiated AccECN but does not receive an AccECN Option on the SYN/ACK ..., the
/// Client switches into a mode that assumes that the AccECN Option is not available
/// for this half connection". A `full` Client behind an `off` Server sends none and
/// keeps its data segments at the full MSS; its ECN feedback is the ACE field alone.
#[test]
fn test_no_option_before_the_peer_sent_one() {
    let c = opt(false, AccEcnOptionPolicy::Full, 3);
    let s = opt(false, AccEcnOptionPolicy::Off, 3);
    let mut net = Net::new(c, s, vec![mark(Target::DataTx(4))]);
    net.c.send(10 * MSS as u64);
    net.c.close();
    net.run(Instant(Duration::from_secs(100).as_nanos()));
    assert!(net.log.iter().all(|l| option(l).is_none()), "{}", net.dump());
    assert_eq!(net.c.smss(), MSS);
    assert_eq!(net.c.stats().ace_delta_ce, 1);
    assert_eq!(net.c.stats().accecn_ceb, 0, "no ECEB to read");
}

/// `full` (Linux `tcp_ecn_option = 2`: "Send AccECN option on every packet whenever
/// it fits into TCP option space"): every segment after the SYN carries it, data
/// segments too. A data segment's payload leaves it room within the MSS — Linux's
/// `tcp_current_mss` less the 11-byte option padded to 12 — so data segments carry
/// MSS − 12 bytes and cwnd counts in them; the Data Receiver still ACKs every second
/// of them with delayed ACKs (RFC 5681 §4.2). The counters are each end's own: the
/// Client's data segments report nothing received (EE0B = 1, ECEB = 0, EE1B = 1),
/// the Server's ACKs the ECT(0) and CE payload bytes that arrived below them.
#[test]
fn test_full_puts_the_option_on_every_segment_data_included() {
    let marks = [6u32, 7, 15];
    let faults = marks.iter().map(|&n| mark(Target::DataTx(n))).collect();
    let cfg = opt(true, AccEcnOptionPolicy::Full, 3);
    let net = Net::transfer(cfg, 40_000, faults);
    assert!(net.c.is_closed() && net.s.is_closed(), "{}", net.dump());
    let smss = MSS - 12;
    assert_eq!(net.c.smss(), smss);
    for l in net.log.iter().filter(|l| !l.seg.flags.syn() || l.seg.flags.ack()) {
        let o = option(l).unwrap_or_else(|| panic!("no option: {l}\n{}", net.dump()));
        assert!(l.seg.options_len() <= 40);
        if l.seg.payload_len > 0 {
            assert!(l.seg.payload_len <= smss, "{l}");
            assert!(l.seg.payload_len + l.seg.options_len() <= MSS, "payload + options within the MSS: {l}");
            assert_eq!(o, INITIAL, "the Client received no data: {l}");
        }
    }
    let full = net.data().filter(|l| l.seg.payload_len == smss).count();
    assert_eq!(full, 40_000 / smss as usize, "full-sized segments of MSS − 12\n{}", net.dump());
    for l in net.acks().filter(|l| !l.seg.flags.syn()) {
        let o = option(l).unwrap();
        assert_eq!(u64::from(o.ee0b), 1 + arrived_below(&net, l.seg.ack, false), "{l}");
        assert_eq!(u64::from(o.eceb), arrived_below(&net, l.seg.ack, true), "{l}");
        assert_eq!((o.ee1b, o.fields), (1, 3));
    }
    assert_eq!(net.c.stats().accecn_ceb, marks.len() as u64 * u64::from(smss));
    // Delayed ACKs: one ACK per two data segments of MSS − 12, as without the option.
    let plain = Net::transfer(opt(true, AccEcnOptionPolicy::Full, 3), 100 * u64::from(smss), vec![]);
    let acks = plain.acks().filter(|l| !l.seg.flags.syn() && !l.seg.flags.fin()).count();
    assert!((50..=52).contains(&acks), "{acks} ACKs for 100 segments\n{}", plain.dump());
    // IW 2 counts in the smaller segments (cwnd in SMSS, as Linux counts segments).
    assert_eq!(net.data().next().unwrap().cwnd, 2 * smss);
}

/// `minimum` (Linux `tcp_ecn_option = 1`: "Send AccECN option sparingly according to
/// the minimum option rules"), its demand rules without the beacon: §3.2.3.3
/// "Change-Triggered AccECN TCP Options: If an arriving packet increments a different
/// byte counter to that incremented by the previous packet, the Data Receiver SHOULD
/// feed it back in an AccECN Option on the next scheduled ACK", "the Data Receiver
/// SHOULD include a counter that has continued to increment on the next scheduled ACK
/// following a change-triggered AccECN TCP Option" and "It SHOULD always include an
/// AccECN Option if the r.ceb counter is incrementing" — Linux
/// `tcp_ecn_received_counters`: an IP-ECN change or a CE packet demands the option on
/// the next two segments. ACK k acknowledges data segment k (no delayed ACKs): the
/// first ECT(0) segment (Not-ECT before it, the handshake ACK) demands ACKs 1 and 2;
/// CE on 10 and 11 and ECT(0) again on 12 demand 10 to 13; CE on 20 and ECT(0) on 21
/// demand 20 to 22; at the end the Not-ECT FIN after ECT(0) data is a change too: the
/// ACK of the FIN and the Server's FIN. Nothing else carries it; each that does has
/// the counters.
#[test]
fn test_minimum_demand_on_change_and_ce() {
    let faults = [10u32, 11, 20].iter().map(|&n| mark(Target::DataTx(n))).collect();
    let cfg = opt(false, AccEcnOptionPolicy::Minimum, 0);
    let net = Net::transfer(cfg, 30 * (MSS as u64 - 12), faults);
    let acks: Vec<&Line> = net.acks().filter(|l| !l.seg.flags.syn() && l.seg.ack > 1).collect();
    let smss = u64::from(net.c.smss());
    assert_eq!(smss, u64::from(MSS) - 12, "minimum keeps the room on data segments too");
    let with: Vec<u64> = acks.iter().filter(|l| option(l).is_some()).map(|l| (l.seg.ack - 1) / smss).collect();
    assert_eq!(with, [1, 2, 10, 11, 12, 13, 20, 21, 22, 30, 30], "{}", net.dump());
    assert!(acks[acks.len() - 2..].iter().all(|l| l.seg.ack == 2 + 30 * smss), "the FIN's ACK and FIN");
    for l in acks.iter().filter(|l| option(l).is_some()) {
        let o = option(l).unwrap();
        assert_eq!(u64::from(o.eceb), arrived_below(&net, l.seg.ack, true), "{l}");
        assert_eq!(u64::from(o.ee0b), 1 + arrived_below(&net, l.seg.ack, false), "{l}");
    }
    // The Client: the handshake ACK rides on its first data segment; that and the next.
    let client: Vec<bool> = net.data().map(|l| option(l).is_some()).collect();
    assert_eq!(&client[..3], [true, true, false], "{}", net.dump());
    assert!(client[3..].iter().all(|&o| !o));
    assert_eq!(net.c.stats().accecn_ceb, 3 * smss, "the CE bytes, from the options that came");
}

/// The beacon (`minimum`; Linux `tcp_accecn_option_beacon_check`, sysctl
/// `tcp_ecn_option_beacon`, default 3 "AccECN will be send at least 3 times per
/// RTT"): the option also goes out once (now − last option)·beacon ≥ srtt. The
/// Server's srtt is its handshake sample, 30 ms; it ACKs one ECT(0) segment per
/// millisecond. The first two ACKs carry the option by demand (Not-ECT → ECT(0)),
/// then every 10 ms with beacon 3, every 30 ms with 1, never with 0.
#[test]
fn test_minimum_beacon_sends_the_option_beacon_times_per_rtt() {
    for (beacon, expect) in [(3u8, vec![0u64, 1, 11, 21, 31]), (1, vec![0, 1, 31]), (0, vec![0, 1])] {
        let cfg = TcpConfig { init_cwnd_segments: 50, ..opt(false, AccEcnOptionPolicy::Minimum, beacon) };
        let mut p = Pair::new(cfg.clone(), cfg);
        let syn = p.client_out().remove(0);
        p.s.on_segment(p.now, &syn);
        let syn_ack = p.server_out().remove(0);
        p.tick(30);
        p.c.on_segment(p.now, &syn_ack);
        p.c.send(40 * u64::from(MSS));
        let out = p.client_out();
        let data: Vec<&Segment> = out.iter().filter(|s| s.payload_len > 0).collect();
        assert!(data.len() >= 40);
        let mut with = vec![];
        for (i, d) in data.iter().take(40).enumerate() {
            p.s.on_segment(p.now, d);
            for a in p.server_out() {
                if a.accecn.is_some() {
                    with.push(i as u64);
                }
            }
            p.tick(1);
        }
        assert_eq!(p.s.srtt(), Some(Duration::from_millis(30)));
        assert_eq!(with, expect, "beacon {beacon}");
    }
}

/// §3.2.3.3 "It SHOULD include each counter at least once for every 2^22 bytes
/// incremented to prevent overflow during continual repetition" (Linux
/// `tcp_ecn_received_counters`: a counter's bits 22 and up changing demand one
/// option). With `minimum` and no beacon, past the two ACKs after the first data,
/// the one option is on the ACK of the segment that takes r.e0b past 2^22 bytes.
#[test]
fn test_minimum_option_once_per_2_22_bytes() {
    let cfg = TcpConfig { rwnd_bytes: 4_000_000, ..opt(false, AccEcnOptionPolicy::Minimum, 0) };
    let total = (1 << 22) + 100_000;
    let net = Net::transfer(cfg, total, vec![]);
    assert!(net.c.is_closed() && net.s.is_closed());
    // ACKs of data (the FIN, Not-ECT after ECT(0), is a change of its own).
    let of_data = |l: &&Line| !l.seg.flags.syn() && l.seg.ack > 1 && l.seg.ack <= 1 + total;
    let with: Vec<&Line> = net.acks().filter(of_data).filter(|l| option(l).is_some()).collect();
    assert_eq!(with.len(), 3, "{}", with.iter().map(|l| format!("{l}\n")).collect::<String>());
    let crossing = with[2];
    let bytes = crossing.seg.ack - 1;
    let smss = u64::from(net.c.smss());
    assert!(bytes >= 1 << 22 && bytes - smss < 1 << 22, "{crossing}");
    assert_eq!(u64::from(option(crossing).unwrap().ee0b), 1 + bytes);
}

/// §3.2.3.3 "Necessary Option Length: When TCP option space is limited, an AccECN
/// TCP option MAY be truncated to omit one or two fields from the end of the option
/// ..., provided that the counter(s) that have changed since the previous AccECN TCP
/// option are not omitted"; "If SACK has been negotiated ..., and the smallest
/// recommended AccECN Option would leave insufficient space for two SACK blocks on a
/// particular ACK, the Data Receiver MUST give precedence to the SACK option" (Linux
/// `tcp_options_fit_accecn` with "try to fit AccECN option with SACK": down to two
/// SACK blocks). Segments 3, 5, 7 and 9 of a burst are lost: the ACKs beside four
/// SACK blocks (34 bytes) carry one field, EE0B, the only counter that changed; the
/// ACK of a CE segment needs ECEB too, and gives up the oldest SACK block for it.
#[test]
fn test_option_beside_sack_keeps_the_changed_counters() {
    let cfg = TcpConfig { init_cwnd_segments: 20, ..opt(false, AccEcnOptionPolicy::Full, 3) };
    let mut p = Pair::new(cfg.clone(), cfg);
    let syn = p.client_out().remove(0);
    p.s.on_segment(p.now, &syn);
    for s in p.server_out() {
        p.c.on_segment(p.now, &s);
    }
    p.c.send(12 * u64::from(p.c.smss()));
    let data: Vec<Segment> = p.client_out().into_iter().filter(|s| s.payload_len > 0).collect();
    let mut acks = vec![];
    for (i, mut d) in data.into_iter().enumerate() {
        let k = i + 1;
        if [3, 5, 7, 9].contains(&k) {
            continue;
        }
        if k == 11 {
            d.ecn = Ecn::Ce;
        }
        p.s.on_segment(p.now, &d);
        acks.extend(p.server_out());
    }
    for a in &acks {
        assert!(a.options_len() <= 40, "{a:?}");
        assert!(a.accecn.is_some(), "full: every ACK {a:?}");
    }
    let shape = |a: &Segment| (a.sack.len(), a.accecn.unwrap().fields);
    // ACKs of 1, 2, 4, 6, 8, 10, 11 (CE), 12.
    assert_eq!(acks.len(), 8);
    assert_eq!(shape(&acks[5]), (4, 1), "four SACK blocks: EE0B alone fits, and is all that changed");
    assert_eq!(shape(&acks[6]), (3, 3), "CE: a SACK block gives way for ECEB");
    assert_eq!(acks[6].accecn.unwrap().eceb, p.c.smss());
    assert_eq!(shape(&acks[7]), (4, 1), "EE0B changed again: four blocks back");
}

/// Linux paces at cwnd·`mss_cache`/srtt (`tcp_update_pacing_rate`), and `mss_cache`
/// leaves out the AccECN option, while it spaces each buffer by its payload
/// (`tcp_update_skb_after_send`): a paced sender whose data segments carry the option
/// (MSS − 12 bytes of payload, the same bytes on the wire) keeps its payload rate, so its
/// gaps are (MSS − 12)/MSS of those without (the ACKs' option bytes shift the rounds by
/// microseconds, not the gaps within them).
#[test]
fn test_pacing_keeps_its_payload_rate_with_the_option() {
    let gaps = |policy| {
        let cfg = TcpConfig { pacing: true, init_cwnd_segments: 10, ..opt(false, policy, 3) };
        let net = Net::transfer(cfg, 200_000, vec![]);
        assert!(net.data().take(120).all(|l| l.seg.wire_len() == MSS + 40));
        let t: Vec<u64> = net.data().take(120).map(|l| l.t.0).collect();
        t.windows(2).map(|w| w[1] - w[0]).collect::<Vec<u64>>()
    };
    let (off, full) = (gaps(AccEcnOptionPolicy::Off), gaps(AccEcnOptionPolicy::Full));
    // The first rounds, before the shorter gaps move the ACK clock and so the windows.
    for (i, (&a, &b)) in off.iter().zip(&full).enumerate().take(40) {
        // Within a paced round the gaps are in proportion; between rounds they follow the ACK clock.
        if a < 2_000_000 {
            let expect = a * u64::from(MSS - 12) / u64::from(MSS);
            assert!(expect.abs_diff(b) * 1000 <= a, "gap {i}: {a} ns without the option, {b} ns with");
        }
    }
}

//! BBR (`cc/bbr.rs`) end to end in the packet-trace harness: a 10 Mbit/s path with
//! 10 ms each way and an unlimited queue (harness::config, ECN negotiated).

mod harness;

use ecnlab_tcp::{BbrKnobs, BbrVersion, CaState, CcKind, DupAckAccounting, Recovery, TcpConfig};
use harness::*;

fn bbr(version: BbrVersion, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Bbr,
        pacing: true,
        bbr: BbrKnobs { version, ..BbrKnobs::default() },
        init_cwnd_segments: 10,
        ..config(Recovery::Sack, delayed_ack)
    }
}

/// (time, cwnd) of the Client at each change of its window (the log also has an entry at
/// each change of its CA state, which ECN's CWR adds).
fn cwnds(net: &Net) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = net.cc_log.iter().map(|p| (p.t.0, p.cwnd)).collect();
    v.dedup_by_key(|p| p.1);
    v
}

#[test]
fn bbr_v1_ignores_ce_no_cwnd_reduction_on_ece() {
    let bytes = 400 * MSS as u64;
    // An ACK per segment, so that a CE mark does not change when ACKs leave (a delayed-ACK
    // receiver ACKs at once on a change of CE).
    let clean = Net::transfer(bbr(BbrVersion::V1, false), bytes, vec![]);
    let marked = Net::transfer(
        bbr(BbrVersion::V1, false),
        bytes,
        (20..200).step_by(7).map(|n| mark(Target::DataTx(n))).collect(),
    );
    assert_eq!(marked.s.bytes_received(), bytes);
    // ECN was negotiated and the marks were echoed and answered with CWR (the sender's CWR
    // state), but the window is the model's: the same, input by input, as without marks.
    assert!(marked.log.iter().any(|l| l.dir == Dir::S2C && l.seg.flags.ece()), "{}", marked.dump());
    assert!(marked.log.iter().any(|l| l.dir == Dir::C2S && l.seg.flags.cwr()));
    assert!(marked.cc_log.iter().any(|p| p.ca == CaState::Cwr));
    assert_eq!(cwnds(&clean), cwnds(&marked));
}

#[test]
fn bbr_paces_and_keeps_the_window_near_its_model() {
    let bytes = 2000 * MSS as u64;
    let net = Net::transfer(bbr(BbrVersion::V1, true), bytes, vec![]);
    assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
    let data: Vec<_> = net.data().filter(|l| l.dir == Dir::C2S).collect();
    // After the first ACK, never two data segments at the same instant (pacing).
    let first_ack = net.acks().find(|l| l.dir == Dir::S2C && !l.seg.flags.syn()).unwrap().t.0;
    let later: Vec<_> = data.iter().filter(|l| l.t.0 > first_ack).collect();
    assert!(later.windows(2).all(|w| w[1].t.0 > w[0].t.0), "paced");
    // The path's BDP is 10 Mbit/s × 20 ms ≈ 24 segments of 1 040 B on the wire; once STARTUP is
    // over (1 s in), cwnd is the cwnd gain 2 × BDP plus the quantization and aggregation
    // allowances, well under STARTUP's 2.885 × and never below 4 segments.
    let steady: Vec<u32> = net.cc_log.iter().filter(|p| p.t.0 > 1_000_000_000).map(|p| p.cwnd).collect();
    assert!(!steady.is_empty());
    let max = *steady.iter().max().unwrap() / MSS;
    let min = *steady.iter().min().unwrap() / MSS;
    assert!((40..=90).contains(&max), "max cwnd {max} segments");
    assert!(min >= 4, "min cwnd {min}");
    // The link stays busy: 2 000 segments take little more than their serialisation time.
    let done = data.last().unwrap().t.as_secs_f64();
    let wire = 2000.0 * data[5].seg.wire_len() as f64 * 8.0 / 10e6;
    assert!(done < wire * 1.25 + 0.2, "finished at {done:.2} s, serialisation {wire:.2} s");
}

#[test]
fn bbr_v3_completes_through_loss_and_marks() {
    let bytes = 600 * MSS as u64;
    let faults = vec![drop(Target::DataTx(50)), drop(Target::DataTx(51)), mark(Target::DataTx(120))];
    let net = Net::transfer(bbr(BbrVersion::V3, true), bytes, faults);
    assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
    assert!(net.cc_log.iter().any(|p| p.ca == CaState::Recovery));
    assert!(net.cc_log.iter().filter(|p| p.ca == CaState::Open && p.ack.is_some()).all(|p| p.cwnd >= 4 * MSS));
}

/// Linux's `tcp_enter_loss` marks the whole flight lost at a timeout (`tcp_timeout_mark_lost`,
/// `tp->lost` grows by every segment outstanding), so `tcp_packets_in_flight` is what was sent
/// since and the go-back-N retransmissions are not losses again; BBR is told once
/// (`bbr_set_state(TCP_CA_Loss)`; v3 `bbr_note_loss`: one loss round). From one segment the
/// window then grows by the data acked up to BBR's target, and the flight is resent in a few
/// round trips. Without SACK, the first transmissions of segments 300–400 dropped (more than a
/// window) leave no duplicate ACK.
#[test]
fn bbr_regrows_its_window_after_a_timeout_that_marks_the_flight_lost() {
    for version in [BbrVersion::V1, BbrVersion::V3] {
        let cfg = TcpConfig {
            recovery: Recovery::NewReno,
            dupacks_as_sacks: DupAckAccounting::RenoSacks,
            ..bbr(version, false)
        };
        let bytes = 1500 * MSS as u64;
        let faults = (300..=400).map(|k| drop(Target::Seq(seg(k)))).collect();
        let net = Net::transfer(cfg, bytes, faults);
        assert_eq!(net.s.bytes_received(), bytes, "{version:?}\n{}", net.dump());
        assert!(net.c.stats().timeouts >= 1, "{version:?}\n{}", net.dump());
        let lost: Vec<_> = net.cc_log.iter().filter(|p| p.ca == CaState::Loss).collect();
        let (start, recover) = (lost[0], lost[0].high_sent);
        let peak = lost.iter().map(|p| p.cwnd / MSS).max().unwrap();
        assert!(peak >= 16, "{version:?}: cwnd at most {peak} segments while resending the flight");
        // The flight (some 60–80 segments) is resent within 15 round trips of 20 ms.
        let done = net.cc_log.iter().find(|p| p.una >= recover).unwrap();
        let took = (done.t.0 - start.t.0) as f64 / 1e9;
        assert!(took < 0.3, "{version:?}: the flight resent in {took:.2} s");
    }
}

/// On a path whose only delays are the bottleneck's serialisation and propagation, a
/// delivery-rate sample cannot exceed the bottleneck's rate (`tcp_rate_gen` takes the longer
/// of the send and ACK phases, and the ACKs come back at the bottleneck's spacing), so
/// BBRv1's bandwidth filter holds the bottleneck's rate and the cruising phases (gain 1,
/// six of the eight) pace at 99 % of it (`bbr_pacing_margin_percent`), spacing segments by
/// their payload (`tcp_update_skb_after_send`) at a rate counted in payload: the median
/// gap between data segments after STARTUP is one segment's serialisation time / 0.99.
#[test]
fn bbr_v1_cruises_at_99_percent_of_the_bottleneck_on_a_clean_path() {
    let bytes = 4000 * MSS as u64;
    let net = Net::transfer(bbr(BbrVersion::V1, true), bytes, vec![]);
    assert_eq!(net.s.bytes_received(), bytes);
    let data: Vec<_> = net.data().filter(|l| l.dir == Dir::C2S && l.t.0 > 1_000_000_000).collect();
    let mut gaps: Vec<u64> = data.windows(2).map(|w| w[1].t.0 - w[0].t.0).collect();
    gaps.sort_unstable();
    let median = gaps[gaps.len() / 2] as f64;
    let serialisation = data[0].seg.wire_len() as f64 * 8.0 / 10e6 * 1e9;
    let ratio = median / serialisation;
    assert!((1.0..1.02).contains(&ratio), "median gap {median:.0} ns, serialisation {serialisation:.0} ns");
}

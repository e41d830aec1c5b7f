//! Linux's TSO/GSO bursts (`tso = Linux`, `tso.rs`): a Linux sender hands its
//! data to the device in buffers of `tcp_tso_autosize` segments and holds a
//! buffer the window would split until an ACK lets it go whole
//! (`tcp_tso_should_defer`), unless the last send was more than 1 ms ago.
//! Setting as `trace.rs` (harness::config), 1000-byte segments, 20 ms RTT.

mod harness;

use ecnlab_tcp::{Recovery, TcpConfig, Tso};
use harness::*;

fn cfg(tso: Tso) -> TcpConfig {
    TcpConfig { tso, init_cwnd_segments: 10, ..config(Recovery::Sack, true) }
}

/// Sizes of the groups of new data segments the Client sends at one instant.
fn bursts(net: &Net) -> Vec<usize> {
    bursts_from(net, 0)
}

fn bursts_from(net: &Net, t0: u64) -> Vec<usize> {
    let mut out: Vec<(u64, usize)> = Vec::new();
    let new_data = |l: &&Line| l.dir == Dir::C2S && !l.seg.retransmit && l.seg.payload_len > 0 && l.t.0 >= t0;
    for l in net.data().filter(new_data) {
        match out.last_mut() {
            Some((t, n)) if *t == l.t.0 => *n += 1,
            _ => out.push((l.t.0, 1)),
        }
    }
    out.into_iter().map(|(_, n)| n).collect()
}

fn at_rate(tso: Tso, bps: u64, bytes: u64, faults: Vec<Fault>) -> Net {
    let mut net = Net::new(cfg(tso), cfg(tso), faults);
    net.rate_bps = [bps; 2];
    net.c.send(bytes);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    net
}

/// At 10 Mbit/s in congestion avoidance (a CE mark on segment 20 ends slow
/// start; cwnd 10–20 segments of 1000 bytes, srtt ≥ 20 ms, so a 1/1024 s of
/// 1.2 · cwnd / srtt is under 2 000 bytes) a chunk is `tcp_min_tso_segs` = 2 segments.
/// The ACKs come 1.6 ms apart (one per two 0.8 ms segments), so when growth frees
/// an odd segment beside a chunk the next ACK is mostly more than 1 ms away and the
/// segment goes at once: "If next ACK is likely to come too late, ie in more than
/// min(1ms, half srtt), do not defer" (`tcp_tso_should_defer`), a burst of 3 as the
/// RFC model's. It waits for the next ACK's chunk (a burst of 4) only where the
/// smoothed RTT puts that ACK within 1 ms. The same data arrives within 5 % of the time.
#[test]
fn test_chunks_of_two_at_10mbit() {
    let bytes = 400 * MSS as u64;
    let faults = || vec![mark(Target::Seq(seg(20)))];
    let none = at_rate(Tso::None, 10_000_000, bytes, faults());
    let linux = at_rate(Tso::Linux, 10_000_000, bytes, faults());
    assert_eq!(linux.s.bytes_received(), bytes);
    let cut = |n: &Net| n.data().find(|l| l.dir == Dir::C2S && l.seg.flags.cwr()).expect("a CWR").t.0;
    let (b0, b1) = (bursts_from(&none, cut(&none)), bursts_from(&linux, cut(&linux)));
    let count = |b: &[usize], k: usize| b.iter().filter(|&&n| n == k).count();
    assert!(count(&b0, 3) >= 10, "RFC model: growth sends 3 {b0:?}");
    assert!(count(&b1, 3) > count(&b1, 4), "Linux: the odd segment mostly goes at once {b1:?}");
    assert!(count(&b1, 2) > 100, "Linux: chunks of 2 {b1:?}");
    let end = |n: &Net| n.data().last().unwrap().t.0 as f64;
    assert!((end(&linux) / end(&none) - 1.0).abs() < 0.05, "{} against {}", end(&linux), end(&none));
}

/// At 100 Mbit/s the ACKs come every 0.16 ms: the head buffer waits until the
/// window takes a whole chunk, so new data leaves in bursts of about a
/// millisecond of the pacing rate (here up to 45 segments as the window grows),
/// where the RFC model sends two or three segments per ACK. The same data
/// arrives, in about the same time.
#[test]
fn test_fast_ack_clock_sends_whole_buffers() {
    let bytes = 3000 * MSS as u64;
    let none = at_rate(Tso::None, 100_000_000, bytes, vec![]);
    let linux = at_rate(Tso::Linux, 100_000_000, bytes, vec![]);
    for n in [&none, &linux] {
        assert_eq!(n.s.bytes_received(), bytes);
    }
    let (b0, b1) = (bursts(&none), bursts(&linux));
    let mean = |b: &[usize]| b.iter().sum::<usize>() as f64 / b.len() as f64;
    assert!(b0.iter().skip(1).all(|&n| n <= 3), "RFC model: what each ACK frees {b0:?}");
    assert!(mean(&b1) > 2.0 * mean(&b0), "whole buffers: {:.2} against {:.2}", mean(&b1), mean(&b0));
    assert!(b1.iter().all(|&n| n <= 45), "a buffer is at most 64 KB: {b1:?}");
    let end = |n: &Net| n.data().last().unwrap().t.0 as f64;
    assert!((end(&linux) / end(&none) - 1.0).abs() < 0.1, "{} against {}", end(&linux), end(&none));
}

/// "icsk_ca_state >= TCP_CA_Recovery: send now": a fast retransmission and the
/// new data of a SACK recovery go at once, not held for a whole buffer.
#[test]
fn test_recovery_is_never_held() {
    let bytes = 600 * MSS as u64;
    let faults = vec![drop(Target::Seq(seg(300)))];
    let linux = at_rate(Tso::Linux, 100_000_000, bytes, faults);
    assert_eq!(linux.s.bytes_received(), bytes);
    let rtx = linux.data().find(|l| l.dir == Dir::C2S && l.seg.retransmit).expect("a fast retransmit");
    // It leaves at the instant an ACK arrives, the third duplicate.
    assert!(linux.c_arrivals.iter().any(|a| a.0 == rtx.t), "retransmitted at {:?}\n{}", rtx.t, linux.dump());
}

fn paced_bbr(tso: Tso) -> TcpConfig {
    TcpConfig { cc: ecnlab_tcp::CcKind::Bbr, pacing: true, ..cfg(tso) }
}

/// (instant, segments) of the Client's new data after `t0`, grouped by instant.
fn groups_from(net: &Net, t0: u64) -> Vec<(u64, usize)> {
    let mut out: Vec<(u64, usize)> = Vec::new();
    for l in net.data().filter(|l| l.dir == Dir::C2S && !l.seg.retransmit && l.seg.payload_len > 0 && l.t.0 >= t0) {
        match out.last_mut() {
            Some((t, n)) if *t == l.t.0 => *n += 1,
            _ => out.push((l.t.0, 1)),
        }
    }
    out
}

/// With pacing, Linux paces whole chunks: `tcp_pacing_check` once per buffer, and
/// `tcp_update_skb_after_send` moves the next departure on by the buffer's length
/// over the rate. BBR at 10 Mbit/s paces at about 1.2 KB per 1/1024 s, under one
/// segment, so a chunk is `bbr_min_tso_segs` = 2: after start-up its segments leave
/// in pairs, each pair twice a segment's gap after the last; without `tso` one by
/// one. The same data arrives within 5 % of the time.
#[test]
fn test_paced_bbr_sends_chunks_of_two_at_10mbit() {
    let bytes = 2000 * MSS as u64;
    let run = |tso| {
        let mut net = Net::new(paced_bbr(tso), paced_bbr(tso), vec![]);
        net.rate_bps = [10_000_000; 2];
        net.c.send(bytes);
        net.c.close();
        net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
        net
    };
    let (none, linux) = (run(Tso::None), run(Tso::Linux));
    assert_eq!(linux.s.bytes_received(), bytes);
    let t0 = 1_000_000_000; // after STARTUP and DRAIN
    let (g0, g1) = (groups_from(&none, t0), groups_from(&linux, t0));
    assert!(g0.iter().all(|&(_, n)| n == 1), "one by one: {g0:?}");
    let pairs = g1.iter().filter(|&&(_, n)| n == 2).count();
    assert!(pairs * 10 >= g1.len() * 9, "chunks of two: {g1:?}");
    assert!(g1.iter().all(|&(_, n)| n <= 2), "{g1:?}");
    // Back-to-back pairs are spaced by two segments' pacing gaps: the median gap between
    // groups with pacing on whole chunks is about twice the gap between single segments.
    let median_gap = |g: &[(u64, usize)]| {
        let mut d: Vec<u64> = g.windows(2).map(|w| w[1].0 - w[0].0).collect();
        d.sort_unstable();
        d[d.len() / 2] as f64
    };
    let ratio = median_gap(&g1) / median_gap(&g0);
    assert!((1.8..2.2).contains(&ratio), "gap ratio {ratio:.2}");
    let end = |n: &Net| n.data().last().unwrap().t.0 as f64;
    assert!((end(&linux) / end(&none) - 1.0).abs() < 0.05, "{} against {}", end(&linux), end(&none));
}

/// At 100 Mbit/s BBR's 1/1024 s of pacing is about 12 KB: chunks of about 11
/// segments of 1 000 bytes (`tcp_tso_autosize`), never above 64 KB.
#[test]
fn test_paced_bbr_chunks_grow_with_the_rate() {
    let bytes = 30_000 * MSS as u64;
    let mut net = Net::new(paced_bbr(Tso::Linux), paced_bbr(Tso::Linux), vec![]);
    net.rate_bps = [100_000_000; 2];
    net.c.send(bytes);
    net.c.close();
    net.run(ecnlab_wire::Instant(ecnlab_wire::Duration::from_secs(200).as_nanos()));
    assert_eq!(net.s.bytes_received(), bytes);
    let g = groups_from(&net, 1_000_000_000);
    let mut sizes: Vec<usize> = g.iter().map(|&(_, n)| n).collect();
    sizes.sort_unstable();
    let median = sizes[sizes.len() / 2];
    assert!((8..=14).contains(&median), "median chunk {median}: {sizes:?}");
    assert!(sizes.iter().all(|&n| n <= 65), "{sizes:?}");
}

//! Pacing (`pacing.rs`): with `pacing`, data segments leave one at a time at
//! ratio/100 · cwnd / srtt (Linux `tcp_update_pacing_rate`), never two at the
//! same instant once an RTT is known; without it, a window leaves as a burst
//! when ACKs free it. Setting as `trace.rs` (harness::config).

mod harness;

use ecnlab_tcp::{Recovery, TcpConfig};
use ecnlab_wire::Duration;
use harness::*;

fn paced(pacing: bool, delayed_ack: bool) -> TcpConfig {
    TcpConfig { pacing, init_cwnd_segments: 10, ..config(Recovery::Sack, delayed_ack) }
}

/// (time, payload bytes, cwnd) of each Client data transmission.
fn departures(net: &Net) -> Vec<(u64, u32, u32)> {
    net.data().filter(|l| l.dir == Dir::C2S).map(|l| (l.t.0, l.seg.payload_len, l.cwnd)).collect()
}

#[test]
fn test_paced_segments_leave_one_window_per_rtt_apart() {
    for delayed_ack in [false, true] {
        let bytes = 200 * MSS as u64;
        let burst = Net::transfer(paced(false, delayed_ack), bytes, vec![]);
        let net = Net::transfer(paced(true, delayed_ack), bytes, vec![]);
        assert_eq!(net.s.bytes_received(), bytes, "{}", net.dump());
        let d = departures(&net);
        let same = |d: &[(u64, u32, u32)]| d.windows(2).filter(|w| w[0].0 == w[1].0).count();
        // The initial window goes out at once (no RTT sample yet); after the first ACK, never two together.
        let first_ack = net.acks().find(|l| l.dir == Dir::S2C && !l.seg.flags.syn()).unwrap().t.0;
        let later: Vec<_> = d.iter().copied().filter(|x| x.0 > first_ack + 20_000_000).collect();
        assert_eq!(same(&later), 0, "paced: one segment at a time\n{}", net.dump());
        assert!(same(&departures(&burst)) > 20, "unpaced: bursts");
        // Each gap is at least the segment at the fastest rate, 200 % of cwnd per srtt, and srtt is at
        // least the 20 ms base RTT: gap ≥ 20 ms · len / (2 · cwnd).
        for w in later.windows(2) {
            let (t0, len, cwnd) = w[0];
            let min_gap = Duration::from_millis(20).0 as u128 * len as u128 * 100 / (200 * cwnd as u128);
            assert!((w[1].0 - t0) as u128 >= min_gap, "gap {} < {min_gap} after t = {t0}", w[1].0 - t0);
        }
    }
}

//! v0.7's rate-based mode, each rule against the reference function it follows (`prague_rate.rs`).

use super::*;

const MS: u64 = 1_000_000;

fn mode(rate: u64) -> RateMode {
    RateMode { on: true, rate, hsrtt: 0 }
}

/// `prague_cong_control` with `prague_cwnd_transit` 4: on at 4 × 1500 B of window
/// once a mark was seen, off above it or before any mark.
#[test]
fn the_switch_is_four_full_segments_after_the_first_mark() {
    let mut m = RateMode::default();
    assert!(m.switch(true, 4 * 1448, 1448));
    assert!(m.switch(true, 3 * 1448 + 1, 1448), "a partial segment counts as one");
    assert!(!m.switch(true, 4 * 1448 + 1, 1448));
    assert!(!m.switch(false, 2 * 1448, 1448), "no mark yet: the window governs");
}

/// `prague_frac_cwnd_to_pacing_rate` and the window branch of
/// `prague_update_pacing_rate`: bytes per srtt, not below `MINIMUM_RATE` (100 kbit/s).
#[test]
fn the_rate_of_a_window_is_its_bytes_per_srtt_floored_at_100_kbit() {
    let mut m = RateMode::default();
    m.set_from_window(3000, Duration(20 * MS));
    assert_eq!(m.rate(), 150_000);
    m.set_from_window(3000, Duration(1000 * MS));
    assert_eq!(m.rate(), MIN_RATE, "3 kB per second is below 100 kbit/s");
}

/// `prague_pacing_rate_to_frac_cwnd`: frac = rate · hsrtt, rounded up; hsrtt
/// (`prague_update_alpha`) starts at the first srtt and moves 1/128 of the way
/// to srtt per round.
#[test]
fn the_window_of_a_rate_is_rate_times_the_slow_srtt() {
    let mut m = mode(100_000);
    m.on_srtt(Duration(20 * MS));
    assert_eq!(m.frac(Duration(20 * MS), 16), 2000 << 16, "100 kB/s · 20 ms = 2000 B");
    m.on_round(Duration(148 * MS));
    // hsrtt = 20 + (148 − 20)/128 = 21 ms.
    assert_eq!(m.frac(Duration(148 * MS), 16), 2100 << 16);
    m.on_srtt(Duration(500 * MS));
    assert_eq!(m.frac(Duration(500 * MS), 16), 2100 << 16, "only the first srtt starts it");
}

/// `prague_update_cwnd`, rate branch: per unmarked segment the rate grows by
/// (1500 / v) / n, n = ⌈rate · v / SMSS⌉: one 1500-B packet per virtual RTT per
/// virtual RTT.
#[test]
fn the_rate_grows_one_1500_byte_packet_per_virtual_rtt_per_virtual_rtt() {
    let v = Duration(25 * MS);
    let mut m = mode(200_000);
    // n = ⌈200 000 · 0.025 / 1000⌉ = 5; 1500 B / 25 ms = 60 000 B/s; / 5 = 12 000.
    m.grow(1000, 1000, v);
    assert_eq!(m.rate(), 212_000);
    // n follows the rate: 6 segments per v from 212 000 B/s, 7 from 242 000, so five
    // segments add 12 000 + 3 · 10 000 + 8 571.
    let mut m = mode(200_000);
    for _ in 0..5 {
        m.grow(1000, 1000, v);
    }
    assert_eq!(m.rate(), 250_571);
}

/// `prague_enter_cwr`, rate branch: rate · (1 − α/2), not below `MINIMUM_RATE`;
/// `prague_enter_loss`: the rate halved.
#[test]
fn ce_cuts_the_rate_by_alpha_over_two_and_loss_halves_it() {
    let mut m = mode(400_000);
    m.reduce(1 << 19, 20); // α = 0.5
    assert_eq!(m.rate(), 300_000);
    m.halve();
    assert_eq!(m.rate(), 150_000);
    let mut m = mode(20_000);
    m.reduce(1 << 20, 20); // α = 1: 10 000, below the floor
    assert_eq!(m.rate(), MIN_RATE);
}

/// `prague_update_pacing_rate`, rate branch with `RATE_OFFSET` 4/128: +3 % in the
/// first half of the virtual RTT after the α update, −3 % in the second.
#[test]
fn pacing_is_three_percent_above_the_rate_then_three_below() {
    let m = mode(128_000);
    let v = Duration(40 * MS);
    assert_eq!(m.pacing(Duration(0), v), 132_000);
    assert_eq!(m.pacing(Duration(19 * MS), v), 132_000);
    assert_eq!(m.pacing(Duration(20 * MS), v), 124_000);
    assert_eq!(m.pacing(Duration(39 * MS), v), 124_000);
}

//! TCP Prague v0.7's rate-based mode (`prague_version = "v0.7"`): below a
//! window of 4 × 1500 B the flow is governed by a pacing rate instead of its
//! window, after the L4S team's `tcp_prague.c` 0.7 in its default
//! `prague_cwnd_mode` 2 ("switch", `prague_cwnd_transit` 4).
//!
//! **Switch** (the reference's `prague_cong_control`, after every ACK): once a
//! CE mark has been seen, a window of at most 4 × 1500 B (4 full segments:
//! ⌈cwnd/SMSS⌉ · 1500 ≤ 6000) turns the mode on and the window is derived from
//! the rate; a larger window, or no mark yet, turns it off and the rate is
//! derived from the window.
//!
//! **Rate ↔ window**, in bytes and ns:
//!
//! ```text
//! window → rate:  rate = max(max(⌊frac⌋ in whole segments, in flight) / srtt, 100 kbit/s)
//! rate → window:  frac = rate · hsrtt                        (prague_pacing_rate_to_frac_cwnd)
//! hsrtt:          hsrtt ← hsrtt + (srtt − hsrtt)/128 at every round end, from the first srtt
//! ```
//!
//! and cwnd = max(⌈frac⌉, 2·SMSS) as ever (`prague.rs`): below 2 segments per
//! RTT the window no longer limits, the pacing rate does, down to 100 kbit/s
//! (`MINIMUM_RATE` 12 500 B/s).
//!
//! **The rate's rules**, only when the flow is also RTT-independent (the
//! reference's `prague_is_rtt_indep(sk) && cwnd_mode == 1`), with the virtual
//! RTT v = max(target, srtt) (`prague_virtual_rtt`):
//!
//! - growth (`prague_update_cwnd`): per ACK of unmarked bytes u, rate += (u/SMSS ·
//!   1500 / v) / n, n = ⌈rate · v / SMSS⌉ the segments of one virtual RTT: one
//!   1500-B packet per v per v;
//! - CE (`prague_enter_cwr`): rate ← max(rate − rate·α/2, 100 kbit/s);
//! - loss (`prague_enter_loss`): rate ← rate − rate/2;
//! - pacing (`prague_update_pacing_rate`): rate + rate·4/128 during the first half
//!   of v after the last α update, rate − rate·4/128 in the second half (±3 %,
//!   "to trigger a stable amount of marks every RTT on a STEP marking AQM"),
//!   doubled while cwnd < ssthresh/2. Outside the rate-based mode the ±3 % does
//!   not apply (the reference adds it in that branch only) and pacing is
//!   `pacing.rs`'s.
//!
//! After each rule the window is derived from the rate again.
//!
//! **Not modelled: the smaller segments.** The reference also shrinks its MTU
//! once per round (`prague_update_alpha`, `tcp_sync_mss`) to rate · v / 2,
//! between 150 B of MSS (`MIN_MSS`) and the path MTU, so that it still sends two
//! packets per 25 ms below about 1 Mbit/s. ecnlab's connection keeps the
//! segment size of its handshake for its whole life (`Window::mss`, which the
//! SACK scoreboard, TSO sizing and recovery count in), so a Prague flow here
//! sends full-size segments at the paced rate: at 100 kbit/s, one 1500-B packet
//! per 120 ms where the reference sends a 190-B packet per 15 ms. The growth's
//! factor 1500 / MTU on the window (`MTU_SYS`) is 1 for full-size packets and
//! not modelled either.

use ecnlab_wire::Duration;

/// 100 kbit/s, bytes per second (the reference's `MINIMUM_RATE`).
pub(crate) const MIN_RATE: u64 = 12_500;
/// The reference's `MTU_SYS`: the packet one step of growth and the switch count in.
const MTU_SYS: u64 = 1500;
/// The switch: at most this many `MTU_SYS` packets of window (`prague_cwnd_transit`).
const TRANSIT_PACKETS: u64 = 4;
/// ±RATE_OFFSET / 2^OFFSET_BITS of the rate per half virtual RTT (4/128 ≈ 3 %).
const RATE_OFFSET: u64 = 4;
const OFFSET_BITS: u32 = 7;
/// hsrtt's gain 2^-HSRTT_SHIFT per round.
const HSRTT_SHIFT: u32 = 7;
const NS_PER_S: u128 = 1_000_000_000;

#[derive(Clone, Debug, Default)]
pub(crate) struct RateMode {
    /// The rate-based mode is on (`cwnd_mode` 1).
    pub(crate) on: bool,
    /// Bytes per second.
    rate: u64,
    /// The slow srtt, ns · 2^HSRTT_SHIFT; 0 before the first srtt.
    hsrtt: u64,
}

impl RateMode {
    pub(crate) fn rate(&self) -> u64 {
        self.rate
    }

    /// The first srtt starts hsrtt (the reference sets it when the connection starts).
    pub(crate) fn on_srtt(&mut self, srtt: Duration) {
        if self.hsrtt == 0 {
            self.hsrtt = srtt.0.max(1) << HSRTT_SHIFT;
        }
    }

    /// A round ended: hsrtt's EWMA.
    pub(crate) fn on_round(&mut self, srtt: Duration) {
        self.on_srtt(srtt);
        self.hsrtt = self.hsrtt + srtt.0 - (self.hsrtt >> HSRTT_SHIFT);
    }

    /// The switch: on with a window of at most 4 × 1500 B once a mark was seen.
    pub(crate) fn switch(&mut self, saw_ce: bool, cwnd: u32, mss: u32) -> bool {
        let packets = u64::from(cwnd.div_ceil(mss.max(1)));
        self.on = saw_ce && packets * MTU_SYS <= TRANSIT_PACKETS * MTU_SYS;
        self.on
    }

    /// window → rate: `bytes` (the whole segments of frac, or what is in flight) per srtt.
    pub(crate) fn set_from_window(&mut self, bytes: u64, srtt: Duration) {
        let r = (u128::from(bytes) * NS_PER_S).checked_div(u128::from(srtt.0)).unwrap_or(0);
        self.rate = (r.min(u128::from(u64::MAX)) as u64).max(MIN_RATE);
    }

    /// rate → window: frac (bytes · 2^frac_bits) = rate · hsrtt, rounded up.
    pub(crate) fn frac(&self, srtt: Duration, frac_bits: u32) -> u64 {
        let rtt = match self.hsrtt >> HSRTT_SHIFT {
            0 => srtt.0,
            h => h,
        };
        let f = ((u128::from(self.rate) * u128::from(rtt)) << frac_bits).div_ceil(NS_PER_S);
        f.min(u128::from(u64::MAX >> 1)) as u64
    }

    /// Growth by `unmarked` bytes: one 1500-B packet per virtual RTT per virtual RTT.
    pub(crate) fn grow(&mut self, unmarked: u64, mss: u32, vrtt: Duration) {
        let (mss, v) = (u128::from(mss.max(1)), u128::from(vrtt.0.max(1)));
        let increase = u128::from(unmarked) * u128::from(MTU_SYS) * NS_PER_S / (mss * v);
        let n = (u128::from(self.rate) * v).div_ceil(mss * NS_PER_S).max(1);
        self.rate += ((increase + n / 2) / n) as u64;
    }

    /// A CE reduction: rate · (1 − α/2), α in units of 2^-alpha_bits, not below 100 kbit/s.
    pub(crate) fn reduce(&mut self, alpha: u64, alpha_bits: u32) {
        let cut = (u128::from(self.rate) * u128::from(alpha)) >> (alpha_bits + 1);
        self.rate = self.rate.saturating_sub(cut as u64).max(MIN_RATE);
    }

    /// A loss: the rate halved.
    pub(crate) fn halve(&mut self) {
        self.rate -= self.rate >> 1;
    }

    /// The pacing rate `since` the last α update: +3 % in the first half of the
    /// virtual RTT, −3 % in the second.
    pub(crate) fn pacing(&self, since: Duration, vrtt: Duration) -> u64 {
        let offset = ((u128::from(self.rate) * u128::from(RATE_OFFSET)) >> OFFSET_BITS) as u64;
        if since.0 >= vrtt.0 / 2 {
            self.rate - offset
        } else {
            self.rate + offset
        }
    }
}

#[cfg(test)]
#[path = "prague_rate_tests.rs"]
mod tests;

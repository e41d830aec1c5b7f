//! Linux's retransmission-timeout estimator (`tcp_rtt_estimator`, `tcp_set_rto`
//! in `net/ipv4/tcp_input.c`, kernel 6.18): `rto_arith = "linux"`, the `linux`
//! personality's.
//!
//! Linux keeps srtt scaled by 8 and a mean deviation `mdev` scaled by 4, so
//! that srtt + mdev reads as RFC 6298's SRTT + 4·RTTVAR; but the timeout adds
//! `rttvar`, which never falls below `rto_min`:
//!
//! | step | rule (m: the sample) |
//! |---|---|
//! | first sample | srtt = m; mdev = 2·m ("make sure rto = 3*rtt"); rttvar = max(mdev, rto_min); mdev_max = rttvar |
//! | later sample | e = m − srtt; srtt += e/8; if e < 0: e = \|e\| − mdev/4, and if that is > 0 it counts only /8 (Eifel-like: a falling RTT barely raises mdev); else e −= mdev/4; mdev += e |
//! | mdev_max | if mdev > mdev_max: mdev_max = mdev, and rttvar = max(rttvar, mdev_max) |
//! | end of a round trip | rttvar −= (rttvar − mdev_max)/4 when mdev_max < rttvar; mdev_max = rto_min |
//! | RTO | srtt + rttvar, so at least srtt + rto_min (RFC 6298: max(rto_min, SRTT + 4·RTTVAR)); rounded up to the clock's ticks, ≤ max_rto |
//!
//! Samples are taken as for RFC 6298 here, one timed segment per round trip
//! (Karn), so every sample ends a round trip (`after(snd_una, rtt_seq)`, true
//! once per RTT in Linux, which samples every ACK), and are not floored to the
//! clock's ticks (Linux measures in µs). Integer nanoseconds, with Linux's
//! shifts; backoff and expiry as in `rtt.rs`.

use ecnlab_wire::Duration;

/// The estimator's state, in nanoseconds (Linux: µs), with Linux's scalings.
#[derive(Clone, Debug)]
pub(crate) struct LinuxRtt {
    /// 8·srtt; 0 before the first sample.
    srtt8: u64,
    /// 4·(mean deviation), Linux's `mdev_us`.
    mdev: u64,
    /// The largest mdev in this round trip, at least rto_min (`mdev_max_us`).
    mdev_max: u64,
    /// What the RTO adds to srtt (`rttvar_us`), at least rto_min.
    rttvar: u64,
}

impl LinuxRtt {
    pub(crate) fn new() -> Self {
        LinuxRtt { srtt8: 0, mdev: 0, mdev_max: 0, rttvar: 0 }
    }

    /// One RTT sample of `m` (`tcp_rtt_estimator`), ending a round trip.
    pub(crate) fn sample(&mut self, m: Duration, rto_min: Duration) {
        let (m, rto_min) = (m.0, rto_min.0);
        if self.srtt8 == 0 {
            self.srtt8 = m << 3;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(rto_min);
            self.mdev_max = self.rttvar;
        } else {
            let mut e = m as i64 - (self.srtt8 >> 3) as i64;
            self.srtt8 = (self.srtt8 as i64 + e) as u64;
            let quarter = (self.mdev >> 2) as i64;
            if e < 0 {
                e = -e - quarter;
                if e > 0 {
                    e >>= 3;
                }
            } else {
                e -= quarter;
            }
            self.mdev = (self.mdev as i64 + e) as u64;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            // The end of a round trip (every sample here, module doc).
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
            }
            self.mdev_max = rto_min;
        }
        self.srtt8 = self.srtt8.max(1);
    }

    pub(crate) fn srtt(&self) -> Duration {
        Duration(self.srtt8 >> 3)
    }

    /// `__tcp_set_rto`: srtt + rttvar, before rounding, bounds and backoff.
    pub(crate) fn rto(&self) -> Duration {
        Duration((self.srtt8 >> 3) + self.rttvar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ms(v: u64) -> Duration {
        Duration(v * MS)
    }

    /// First sample: "tp->mdev_us = m << 1; /* make sure rto = 3*rtt */" and
    /// "tp->rttvar_us = max(tp->mdev_us, tcp_rto_min_us(sk))": a 100 ms RTT gives
    /// 100 + max(200, 200) = 300 ms; a 20 ms RTT gives 20 + 200 = 220 ms, where RFC
    /// 6298 gives max(200, 20 + 4·10) = 200 ms.
    #[test]
    fn test_first_sample() {
        let mut e = LinuxRtt::new();
        e.sample(ms(100), ms(200));
        assert_eq!((e.srtt(), e.rto()), (ms(100), ms(300)));
        let mut e = LinuxRtt::new();
        e.sample(ms(20), ms(200));
        assert_eq!((e.srtt(), e.rto()), (ms(20), ms(220)));
    }

    /// A steady RTT: mdev decays by a quarter per sample, but the RTO never falls
    /// below srtt + rto_min (RFC 6298 would reach max(rto_min, SRTT + 4·RTTVAR) → rto_min).
    #[test]
    fn test_steady_rtt_keeps_srtt_plus_rto_min() {
        let mut e = LinuxRtt::new();
        for _ in 0..50 {
            e.sample(ms(40), ms(200));
        }
        assert_eq!(e.srtt(), ms(40));
        assert_eq!(e.rto(), ms(240));
    }

    /// "m -= (tp->mdev_us >> 2); ... if (m > 0) m >>= 3;" for a falling RTT: a drop
    /// from 100 to 20 ms raises mdev by an eighth of what a rise of the same size
    /// would. And the deviation, once above rto_min, lifts rttvar at once and decays
    /// by a quarter of the excess per round trip.
    #[test]
    fn test_falling_rtt_counts_an_eighth_and_rttvar_follows_mdev_max() {
        let (mut up, mut down) = (LinuxRtt::new(), LinuxRtt::new());
        up.sample(ms(100), ms(10));
        down.sample(ms(100), ms(10));
        let mdev0 = up.mdev;
        up.sample(ms(180), ms(10));
        down.sample(ms(20), ms(10));
        // e = ±80 ms; rise: mdev += 80 − mdev0/4; fall: mdev += (80 − mdev0/4)/8.
        assert_eq!(up.mdev, mdev0 + 80 * MS - mdev0 / 4);
        assert_eq!(down.mdev, mdev0 + (80 * MS - mdev0 / 4) / 8);
        // With a 10 ms rto_min the first rttvar is mdev = 200 ms; the rise lifts it to
        // mdev (230 ms) at once. At the srtt itself the next sample lowers mdev by a
        // quarter (172.5 ms) and rttvar falls a quarter of the way to it.
        assert_eq!((up.mdev, up.rttvar), (230 * MS, 230 * MS));
        assert_eq!(up.srtt(), ms(110));
        up.sample(ms(110), ms(10));
        assert_eq!(up.mdev, 172_500_000);
        assert_eq!(up.rttvar, 230 * MS - (230 * MS - 172_500_000) / 4);
        assert_eq!(up.rto(), Duration(110 * MS + up.rttvar));
    }
}

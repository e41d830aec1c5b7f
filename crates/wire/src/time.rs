//! Simulated time as integer nanoseconds.
//!
//! `Instant` is a point on the run's clock (0 = start of the run); `Duration` is a
//! span. Both are `u64` nanoseconds: 2^64 ns is about 584 years, so overflow is
//! not a practical concern, but arithmetic saturates instead of wrapping.

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
use serde::{Deserialize, Serialize};

/// Nanoseconds in one second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A point in simulated (or emulated) time, in nanoseconds since the run started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Instant(pub u64);

/// A non-negative span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Duration(pub u64);

impl Instant {
    pub const ZERO: Instant = Instant(0);
    pub const MAX: Instant = Instant(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Instant(ns)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`, zero if `earlier` is in the future.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NANOS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            Duration(0)
        } else {
            Duration((s * NANOS_PER_SEC as f64).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time to serialise `bytes` at `rate_bps` bits per second, rounded up to
    /// the next nanosecond so that a link never runs faster than its rate.
    pub fn transmission(bytes: u64, rate_bps: u64) -> Self {
        debug_assert!(rate_bps > 0);
        // The same quotient in 64 bits whenever the product fits (any packet):
        // a 128-bit division is a library call on the per-packet path.
        if let Some(bits) = bytes.checked_mul(8 * NANOS_PER_SEC) {
            return Duration(bits.div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
        Duration(bits.div_ceil(rate_bps as u128) as u64)
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        Duration(self.0.saturating_mul(k))
    }
    /// Rounds up to a whole number of `tick`s (a zero tick leaves `self` unchanged).
    pub fn round_up_to(self, tick: Duration) -> Self {
        if tick.0 == 0 {
            self
        } else {
            Duration(self.0.div_ceil(tick.0).saturating_mul(tick.0))
        }
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}
impl Sub<Instant> for Instant {
    type Output = Duration;
    /// Saturating: an `earlier` that is later gives zero.
    fn sub(self, earlier: Instant) -> Duration {
        self.saturating_since(earlier)
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_transmission_time_rounds_up() {
        // 1500 bytes at 1.5 Mbit/s = 8 ms exactly.
        assert_eq!(Duration::transmission(1500, 1_500_000), Duration::from_millis(8));
        // 1 byte at 3 bit/s = 8/3 s, rounded up.
        assert_eq!(Duration::transmission(1, 3), Duration(2_666_666_667));
        // Sizes whose bit count overflows 64 bits take the 128-bit path: 2^61 bytes at 2^62 bit/s = 4 s.
        assert_eq!(Duration::transmission(1 << 61, 1 << 62), Duration::from_secs(4));
        assert_eq!(Duration::transmission(u64::MAX / 8, 1 << 60), Duration(16_000_000_000));
    }

    #[test]
    fn test_round_up_to_tick() {
        let tick = Duration::from_millis(100);
        assert_eq!(Duration::from_millis(1).round_up_to(tick), tick);
        assert_eq!(Duration::from_millis(100).round_up_to(tick), tick);
        assert_eq!(Duration::from_millis(101).round_up_to(tick), Duration::from_millis(200));
        assert_eq!(Duration::from_millis(7).round_up_to(Duration::ZERO), Duration::from_millis(7));
    }

    #[test]
    fn test_instant_arithmetic_saturates() {
        assert_eq!(Instant(5) - Instant(9), Duration::ZERO);
        assert_eq!(Instant::MAX + Duration(1), Instant::MAX);
        assert_eq!(Duration::from_secs_f64(-1.0), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(0.02), Duration::from_millis(20));
    }
}

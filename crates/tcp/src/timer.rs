//! The retransmission timer as a data-carrying enum (smoltcp style), and the
//! coarse-clock rule: a timer expires on a tick boundary of the absolute clock
//! (Floyd 1994's 100 ms TCP clock; with a 1 µs tick it is effectively exact).

use ecnlab_wire::{Duration, Instant};

/// The single retransmission timer of a connection (RFC 6298 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RtxTimer {
    /// Nothing outstanding.
    Idle,
    /// RFC 6298 §5: retransmit (SYN, SYN-ACK, data or FIN) when it expires.
    Retransmit { expires_at: Instant },
    /// RFC 3168 §6.1.2, ECE with cwnd of one segment: the timer was reset and no
    /// new data may be sent until it expires. If data is outstanding at expiry it
    /// acts as an ordinary retransmission timeout.
    EcnHold { expires_at: Instant },
    /// RFC 8985 §7 (`tlp.rs`): the probe timeout, in place of the retransmission
    /// timer, which is due at `rto_at` and runs again once the probe has left.
    Probe { expires_at: Instant, rto_at: Instant },
}

impl RtxTimer {
    pub(crate) fn deadline(self) -> Option<Instant> {
        match self {
            RtxTimer::Idle => None,
            RtxTimer::Retransmit { expires_at }
            | RtxTimer::EcnHold { expires_at }
            | RtxTimer::Probe { expires_at, .. } => Some(expires_at),
        }
    }

    pub(crate) fn is_due(self, now: Instant) -> bool {
        self.deadline().is_some_and(|t| t <= now)
    }

    pub(crate) fn is_hold(self) -> bool {
        matches!(self, RtxTimer::EcnHold { .. })
    }
}

/// `now + d`, rounded up to the next multiple of `tick` on the absolute clock.
pub(crate) fn tick_deadline(now: Instant, d: Duration, tick: Duration) -> Instant {
    let t = (now + d).as_nanos();
    Instant(Duration(t).round_up_to(tick).as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_tick_deadline_rounds_up_on_absolute_clock() {
        let tick = Duration::from_millis(100);
        let d = tick_deadline(Instant(Duration::from_millis(130).0), Duration::from_secs(1), tick);
        assert_eq!(d, Instant(Duration::from_millis(1200).0));
        let exact = tick_deadline(Instant(Duration::from_millis(100).0), Duration::from_secs(1), tick);
        assert_eq!(exact, Instant(Duration::from_millis(1100).0));
        assert_eq!(tick_deadline(Instant(7), Duration(3), Duration::ZERO), Instant(10));
    }

    #[test]
    fn test_timer_predicates() {
        let t = RtxTimer::Retransmit { expires_at: Instant(10) };
        assert!(!t.is_due(Instant(9)) && t.is_due(Instant(10)));
        assert_eq!(RtxTimer::Idle.deadline(), None);
        assert!(RtxTimer::EcnHold { expires_at: Instant(1) }.is_hold());
    }
}

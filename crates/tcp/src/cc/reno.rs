//! Reno / AIMD congestion control (RFC 5681 §3.1).
//!
//! Growth, per ACK of new data, bytes, integer arithmetic:
//! - slow start while cwnd < ssthresh: cwnd += SMSS (RFC 5681 eq. 2);
//! - congestion avoidance: cwnd += max(1, SMSS·SMSS / cwnd) (RFC 5681 eq. 3).
//!
//! Reduction, for every kind of congestion event:
//! ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4), FlightSize taken
//! after the ACK that triggered it was applied.

use super::{Ack, Congestion, CongestionControl};
use crate::config::TcpConfig;
use crate::window::{Window, CWND_MAX};

#[derive(Clone, Debug, Default)]
pub(crate) struct Reno;

impl Reno {
    pub(crate) fn new(_cfg: &TcpConfig) -> Self {
        Reno
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, _ack: &Ack) {
        let inc = if w.cwnd < w.ssthresh { w.mss } else { (w.mss as u64 * w.mss as u64 / w.cwnd as u64).max(1) as u32 };
        w.cwnd = w.cwnd.saturating_add(inc).min(CWND_MAX);
    }

    fn ssthresh(&mut self, w: &Window, _kind: Congestion, flight: u64) -> u32 {
        let half = (flight / 2).min(CWND_MAX as u64) as u32;
        half.max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::Instant;

    fn ack() -> Ack {
        Ack { now: Instant::ZERO, acked: 1000, rtt: None }
    }

    #[test]
    fn test_slow_start_then_congestion_avoidance() {
        let mut w = Window::new(3);
        w.init(1000, 2);
        w.ssthresh = 3000;
        let mut cc = Reno;
        cc.on_ack(&mut w, &ack());
        assert_eq!(w.cwnd, 3000);
        cc.on_ack(&mut w, &ack()); // CA: 1000·1000/3000 = 333
        assert_eq!(w.cwnd, 3333);
    }

    #[test]
    fn test_ssthresh_has_two_segment_floor() {
        let mut w = Window::new(3);
        w.init(1000, 2);
        let mut cc = Reno;
        assert_eq!(cc.ssthresh(&w, Congestion::Loss, 3000), 2000);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, 9000), 4500);
    }
}

//! The congestion window after an idle period (`TcpConfig::idle_restart`).
//!
//! A sender that has sent no data for longer than one retransmission timeout
//! no longer knows what the path holds, so before it sends again:
//!
//! | `idle_restart` | rule | source |
//! |---|---|---|
//! | `off` | cwnd and ssthresh as they were | ns-2's one-way agents as the `ns2` personality models them |
//! | `rfc5681` | cwnd = min(cwnd, IW); ssthresh unchanged | RFC 5681 §4.1: "TCP SHOULD set cwnd to no more than RW before beginning transmission if the TCP has not sent data in an interval exceeding the retransmission timeout", RW = min(IW, cwnd) |
//! | `linux` | ssthresh = max(ssthresh, ¾·cwnd); cwnd halved once per RTO of idle time beyond the first, not below min(IW, cwnd) | Linux `tcp_slow_start_after_idle_check` → `tcp_cwnd_restart` (sysctl `tcp_slow_start_after_idle` = 1 by default), `tcp_current_ssthresh` |
//!
//! "Idle" is Linux's test: nothing outstanding (every byte sent has been
//! acknowledged) and the last data segment (first transmission or
//! retransmission; not a FIN alone) left more than the current RTO ago. The
//! check is made when new data is about to be sent, which in this sans-IO
//! core is the moment the application's bytes can first leave. Linux halves
//! in whole segments; so does this.

use serde::{Deserialize, Serialize};

/// `TcpConfig::idle_restart`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleRestart {
    Off,
    /// The default: the `rfc` personality's.
    #[default]
    Rfc5681,
    Linux,
}

/// (cwnd, ssthresh) in bytes after `idle_ns` without data sent, for a
/// window of `cwnd` and `ssthresh` bytes, segments of `mss` bytes, an
/// initial window of `iw_segments` and a retransmission timeout of `rto_ns`.
/// Unchanged unless `idle_ns > rto_ns` (the caller checks nothing is outstanding).
pub(crate) fn restart(
    rule: IdleRestart,
    cwnd: u32,
    ssthresh: u32,
    mss: u32,
    iw_segments: u32,
    idle_ns: u64,
    rto_ns: u64,
) -> (u32, u32) {
    if idle_ns <= rto_ns || rule == IdleRestart::Off {
        return (cwnd, ssthresh);
    }
    let iw = mss.saturating_mul(iw_segments.max(1));
    match rule {
        IdleRestart::Off => (cwnd, ssthresh),
        IdleRestart::Rfc5681 => (cwnd.min(iw), ssthresh),
        IdleRestart::Linux => {
            let mut segs = cwnd / mss;
            let ssthresh = ssthresh.max(((segs >> 1) + (segs >> 2)) * mss);
            let floor = (iw / mss).min(segs).max(1);
            let mut left = idle_ns.saturating_sub(rto_ns);
            while left > 0 && segs > floor {
                segs >>= 1;
                left = left.saturating_sub(rto_ns.max(1));
            }
            (segs.max(floor) * mss, ssthresh)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;
    const RTO: u64 = 200_000_000;

    #[test]
    fn nothing_changes_within_one_rto_or_when_off() {
        for rule in [IdleRestart::Off, IdleRestart::Rfc5681, IdleRestart::Linux] {
            assert_eq!(restart(rule, 80 * MSS, 40 * MSS, MSS, 10, RTO, RTO), (80 * MSS, 40 * MSS));
        }
        assert_eq!(restart(IdleRestart::Off, 80 * MSS, 40 * MSS, MSS, 10, 10 * RTO, RTO), (80 * MSS, 40 * MSS));
    }

    #[test]
    fn rfc5681_restarts_at_the_initial_window() {
        assert_eq!(restart(IdleRestart::Rfc5681, 80 * MSS, 40 * MSS, MSS, 10, RTO + 1, RTO), (10 * MSS, 40 * MSS));
        assert_eq!(restart(IdleRestart::Rfc5681, 4 * MSS, 40 * MSS, MSS, 10, RTO + 1, RTO), (4 * MSS, 40 * MSS));
    }

    /// Linux `tcp_cwnd_restart`: `while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1`.
    #[test]
    fn linux_halves_per_rto_idle_down_to_the_initial_window() {
        let at = |idle| restart(IdleRestart::Linux, 80 * MSS, 40 * MSS, MSS, 10, idle, RTO);
        assert_eq!(at(RTO + 1), (40 * MSS, 60 * MSS), "one halving; ssthresh = 3/4 of 80");
        assert_eq!(at(2 * RTO), (40 * MSS, 60 * MSS), "delta - rto = rto, then 0: one halving");
        assert_eq!(at(2 * RTO + 1), (20 * MSS, 60 * MSS));
        assert_eq!(at(3 * RTO + 1), (10 * MSS, 60 * MSS));
        assert_eq!(at(100 * RTO), (10 * MSS, 60 * MSS), "never below IW");
        let small = restart(IdleRestart::Linux, 6 * MSS, 3 * MSS, MSS, 10, 100 * RTO, RTO);
        assert_eq!(small, (6 * MSS, 4 * MSS), "below IW: cwnd kept, ssthresh = max(3, 3 + 1) segments");
    }
}

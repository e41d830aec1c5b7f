//! DropTail (tail drop, FIFO): no active management at all.
//!
//! Source: the baseline of Floyd & Jacobson 1993 §1 and §2 ("Drop Tail
//! gateways"); ns-2 `DropTail`, ns-3 `FifoQueueDisc`. Every arrival passes the
//! AQM; the host queue (`queue.rs`) drops it as `Overflow` if it would exceed
//! the physical limit (`limit_pkts` or `limit_bytes`). It never marks.

use ecnlab_wire::Instant;
use rand::RngCore;

use crate::aqm::{Aqm, QueueView};
use crate::verdict::Verdict;

/// The tail-drop "algorithm": stateless, the limit lives in the host.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DropTail;

impl Aqm for DropTail {
    fn on_enqueue<R: RngCore + ?Sized>(&mut self, _now: Instant, _len: u32, _q: &QueueView, _rng: &mut R) -> Verdict {
        Verdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use ecnlab_wire::{Ecn, Instant};

    use crate::config::{DropTailParams, QueueConfig};
    use crate::queue::AqmQueue;
    use crate::testutil::{ScriptRng, TestPkt};
    use crate::verdict::DropReason;

    fn queue(limit_pkts: Option<u32>, limit_bytes: Option<u64>) -> AqmQueue<TestPkt> {
        AqmQueue::new(&QueueConfig::DropTail(DropTailParams { limit_pkts, limit_bytes })).unwrap()
    }

    fn t(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn test_droptail_packet_limit_overflow() {
        let mut q = queue(Some(3), None);
        let mut rng = ScriptRng::default(); // DropTail never draws
        for id in 0..3 {
            assert_eq!(q.enqueue(t(id), TestPkt::new(id, 1500, Ecn::Ect0), &mut rng), Ok(()));
        }
        let (p, why) = q.enqueue(t(3), TestPkt::new(3, 40, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!((p.id, why, p.ecn, p.ce_calls), (3, DropReason::Overflow, Ecn::Ect0, 0));
        assert_eq!((q.len_pkts(), q.len_bytes()), (3, 4500));
        assert_eq!(q.dequeue(t(4), &mut ScriptRng::default()).map(|p| p.id), Some(0));
        assert_eq!(q.enqueue(t(5), TestPkt::new(4, 40, Ecn::NotEct), &mut rng), Ok(()));
        let ids: Vec<u64> = std::iter::from_fn(|| q.dequeue(t(6), &mut ScriptRng::default())).map(|p| p.id).collect();
        assert_eq!(ids, [1, 2, 4]);
        assert!(q.is_empty() && q.dequeue(t(7), &mut ScriptRng::default()).is_none());
        let s = q.stats(t(8));
        assert_eq!((s.arrivals, s.enqueued, s.dequeued, s.overflow_drops), (5, 4, 4, 1));
        assert_eq!((s.marks, s.early_drops, s.forced_drops), (0, 0, 0));
        assert_eq!((s.arrival_bytes, s.dequeued_bytes), (4580, 4540));
        assert_eq!((s.max_qlen_pkts, s.max_qlen_bytes), (3, 4500));
        assert_eq!(q.avg_estimate(), None);
    }

    #[test]
    fn test_droptail_byte_limit_admits_what_fits() {
        let mut q = queue(None, Some(2500));
        let mut rng = ScriptRng::default();
        assert!(q.enqueue(t(0), TestPkt::new(0, 1000, Ecn::Ect0), &mut rng).is_ok());
        assert!(q.enqueue(t(0), TestPkt::new(1, 1000, Ecn::Ect0), &mut rng).is_ok());
        let err = q.enqueue(t(0), TestPkt::new(2, 1000, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!(err.1, DropReason::Overflow);
        // Exactly filling the limit is allowed.
        assert!(q.enqueue(t(0), TestPkt::new(3, 500, Ecn::Ect0), &mut rng).is_ok());
        assert_eq!(q.len_bytes(), 2500);
        let err = q.enqueue(t(0), TestPkt::new(4, 1, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!(err.1, DropReason::Overflow);
        let s = q.stats(t(0));
        assert_eq!((s.enqueued, s.overflow_drops, s.max_qlen_bytes), (3, 2, 2500));
    }
}

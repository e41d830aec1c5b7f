//! A step marker: a congestion signal for every packet while a measure of the
//! queue exceeds a fixed threshold — DCTCP's marking rule and the shallow
//! threshold of L4S's data-centre deployments.
//!
//! Sources: M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1
//! ("mark arriving packets with the CE codepoint if the queue occupancy is
//! greater than K upon its arrival"); RFC 8257 §3.1 (the same rule, "a
//! single parameter, the marking threshold K"); Linux
//! `Documentation/networking/dctcp.rst` (K = 20 packets at 1 Gbit/s, 65 at
//! 10 Gbit/s); a sojourn-time threshold as Linux `fq_codel ce_threshold` and
//! DualPI2's L-queue step apply it.
//!
//! | `on`      | measure                                   | decided at |
//! |-----------|-------------------------------------------|------------|
//! | `packets` | packets queued when the packet arrives    | enqueue    |
//! | `bytes`   | bytes queued when the packet arrives      | enqueue    |
//! | `sojourn` | the packet's own time in the queue, in ns | dequeue    |
//!
//! Signal iff the queue at arrival is ≥ `threshold` packets or bytes — the
//! paper says "greater than K", but the implementations DCTCP runs on mark
//! at K: Linux `tc red` with min = max = K and ns-3 `RedQueueDisc` with
//! MinTh = MaxTh = K, QW = 1 both act once the (instantaneous) average is
//! ≥ max_th, and the ns-3 replay test checks this queue against the latter —
//! or iff the sojourn is > `threshold` ns (as Linux `ce_threshold`). The host marks an ECT packet CE (ECN on)
//! and drops anything else; marks count in `marks` and `step_marks`. At
//! dequeue, a dropped head is followed by a decision on the next head. No
//! random draws are taken.
//!
//! A packet threshold must be below `limit_pkts`, a byte threshold below
//! `limit_bytes`: a full queue drops the arrival before the step could signal.

use ecnlab_wire::Instant;
use rand::RngCore;

use crate::aqm::SchedAqm;
use crate::backlog::{Backlog, MarkRule, Signalled};
use crate::config::{StepOn, StepParams};
use crate::error::{check_limits, ConfigError};
use crate::verdict::{SignalKind, Verdict};

#[derive(Clone, Debug)]
pub(crate) struct Step {
    on: StepOn,
    threshold: u64,
}

impl Step {
    pub(crate) fn new(p: &StepParams) -> Self {
        Step { on: p.on, threshold: p.threshold }
    }
}

impl SchedAqm for Step {
    fn on_enqueue<R: RngCore + ?Sized, B: Backlog>(
        &mut self,
        _now: Instant,
        _len: u32,
        _sub: usize,
        b: &B,
        _rng: &mut R,
    ) -> Verdict {
        let measure = match self.on {
            StepOn::Packets => u64::from(b.len_pkts()),
            StepOn::Bytes => b.len_bytes(),
            StepOn::Sojourn => return Verdict::Pass,
        };
        if measure >= self.threshold {
            Verdict::Signal(SignalKind::Step)
        } else {
            Verdict::Pass
        }
    }

    fn dequeue<R: RngCore + ?Sized, B: Backlog>(&mut self, now: Instant, b: &mut B, _rng: &mut R) -> Option<usize> {
        loop {
            let head = b.head(0)?;
            if self.on != StepOn::Sojourn || head.sojourn(now).as_nanos() <= self.threshold {
                return Some(0);
            }
            if b.signal_head(0, SignalKind::Step, MarkRule::Step) == Signalled::Marked {
                return Some(0);
            }
        }
    }
}

impl StepParams {
    /// One limit (`error.rs`); a packet or byte threshold below the limit in the same unit: a
    /// full queue drops the arrival before the step could signal, so a threshold at or above the
    /// limit never marks.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_limits(self.limit_pkts, self.limit_bytes)?;
        let limit = match (self.on, self.limit_pkts, self.limit_bytes) {
            (StepOn::Packets, Some(pkts), _) => Some(("limit_pkts", u64::from(pkts))),
            (StepOn::Bytes, _, Some(bytes)) => Some(("limit_bytes", bytes)),
            _ => None,
        };
        match limit {
            Some((field, limit)) if self.threshold >= limit => {
                let rule = format!("must be < {field} ({limit}): a full queue drops the arrival, so it never marks");
                Err(ConfigError::new("threshold", self.threshold, rule))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QueueConfig;
    use crate::queue::AqmQueue;
    use crate::testutil::{ScriptRng, TestPkt};
    use crate::verdict::DropReason;
    use ecnlab_wire::{Duration, Ecn};

    fn queue(on: StepOn, threshold: u64, ecn: bool) -> AqmQueue<TestPkt> {
        let p = StepParams { limit_pkts: Some(100), limit_bytes: None, on, threshold, ecn };
        AqmQueue::new(&QueueConfig::Step(p)).unwrap()
    }

    /// DCTCP's K as Linux and ns-3 RED implement it (module doc): with K = 2
    /// the 3rd and later arrivals (2 queued) are marked.
    #[test]
    fn test_packets_mark_above_k_on_arrival() {
        let mut q = queue(StepOn::Packets, 2, true);
        let mut rng = ScriptRng::default(); // no draws
        for id in 0..5 {
            q.enqueue(Instant::ZERO, TestPkt::new(id, 1500, Ecn::Ect0), &mut rng).unwrap();
        }
        let out: Vec<Ecn> = std::iter::from_fn(|| q.dequeue(Instant::ZERO, &mut rng)).map(|p| p.ecn).collect();
        assert_eq!(out, [Ecn::Ect0, Ecn::Ect0, Ecn::Ce, Ecn::Ce, Ecn::Ce]);
        let s = q.stats(Instant::ZERO);
        assert_eq!((s.marks, s.step_marks, s.dequeue_marks), (3, 3, 0));
    }

    #[test]
    fn test_bytes_threshold_and_not_ect_dropped() {
        let mut q = queue(StepOn::Bytes, 4500, true);
        let mut rng = ScriptRng::default();
        for id in 0..3 {
            q.enqueue(Instant::ZERO, TestPkt::new(id, 1500, Ecn::Ect1), &mut rng).unwrap();
        }
        // 4500 bytes queued ≥ 4500: a Not-ECT arrival is dropped (early), an ECT(1) one marked.
        let (_, why) = q.enqueue(Instant::ZERO, TestPkt::new(9, 100, Ecn::NotEct), &mut rng).unwrap_err();
        assert_eq!(why, DropReason::Early);
        q.enqueue(Instant::ZERO, TestPkt::new(10, 100, Ecn::Ect1), &mut rng).unwrap();
        let s = q.stats(Instant::ZERO);
        assert_eq!((s.marks, s.step_marks, s.early_drops), (1, 1, 1));
    }

    /// Sojourn mode decides at dequeue: a packet that waited more than the
    /// threshold leaves CE; a Not-ECT one is dropped and the next head decided.
    #[test]
    fn test_sojourn_marks_at_dequeue() {
        let ms = |m: u64| Instant::ZERO + Duration::from_nanos(m * 1_000_000);
        let mut q = queue(StepOn::Sojourn, 1_000_000, true);
        let mut rng = ScriptRng::default();
        q.enqueue(ms(0), TestPkt::new(0, 1500, Ecn::NotEct), &mut rng).unwrap();
        q.enqueue(ms(0), TestPkt::new(1, 1500, Ecn::Ect1), &mut rng).unwrap();
        q.enqueue(ms(2), TestPkt::new(2, 1500, Ecn::Ect1), &mut rng).unwrap();
        let p = q.dequeue(ms(2), &mut rng).unwrap();
        assert_eq!((p.id, p.ecn), (1, Ecn::Ce), "packet 0 (Not-ECT, 2 ms) dropped, packet 1 marked");
        let dropped: Vec<(u64, DropReason)> = q.drain_dropped().map(|(p, r)| (p.id, r)).collect();
        assert_eq!(dropped, [(0, DropReason::Early)]);
        let p = q.dequeue(ms(3), &mut rng).unwrap();
        assert_eq!((p.id, p.ecn), (2, Ecn::Ect1), "1 ms is not above the threshold");
        let s = q.stats(ms(3));
        assert_eq!((s.marks, s.dequeue_marks, s.step_marks, s.dequeue_drops, s.early_drops), (1, 1, 1, 1, 1));
        assert_eq!(s.queued(), 0);
    }

    #[test]
    fn test_ecn_off_drops() {
        let mut q = queue(StepOn::Packets, 1, false);
        let mut rng = ScriptRng::default();
        q.enqueue(Instant::ZERO, TestPkt::new(0, 1500, Ecn::Ect0), &mut rng).unwrap();
        let (_, why) = q.enqueue(Instant::ZERO, TestPkt::new(1, 1500, Ecn::Ect0), &mut rng).unwrap_err();
        assert_eq!(why, DropReason::Early);
    }

    #[test]
    fn test_threshold_at_or_above_limit_rejected() {
        let p = StepParams { limit_pkts: Some(100), limit_bytes: None, on: StepOn::Packets, threshold: 100, ecn: true };
        let e = QueueConfig::Step(p).validate().unwrap_err().to_string();
        assert_eq!(e, "threshold = 100: must be < limit_pkts (100): a full queue drops the arrival, so it never marks");
        assert_eq!(StepParams { threshold: 99, ..p }.validate(), Ok(()));
        let b = StepParams { limit_pkts: None, limit_bytes: Some(9000), on: StepOn::Bytes, threshold: 9001, ecn: true };
        assert!(b.validate().unwrap_err().to_string().starts_with("threshold = 9001: must be < limit_bytes (9000)"));
        // a packet limit with a byte threshold, or a sojourn threshold: different units, not compared
        assert_eq!(StepParams { limit_pkts: Some(10), on: StepOn::Bytes, threshold: 90_000, ..p }.validate(), Ok(()));
        assert_eq!(StepParams { on: StepOn::Sojourn, threshold: 10_000_000, ..p }.validate(), Ok(()));
    }
}

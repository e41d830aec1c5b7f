//! Replaying a script of arrivals and departures through one queue: the
//! ecnlab side of the differential AQM tests against ns-3
//! (`python/ecnlab/bench/scripts/ns3_queue_trace.cc` replays the same script through an ns-3
//! queue disc) and of table tests written as scripts.
//!
//! A script is a list of [`Op`]s in time order; the result is the list of
//! [`Event`]s in the order they happened, in the same vocabulary as the ns-3
//! program prints: a drop before enqueue, a drop after enqueue (at dequeue or
//! by FQ-CoDel's overflow), a CE mark (at enqueue, or at dequeue when the
//! packet leaves CE but arrived otherwise), a departure (or none).

use ecnlab_wire::{Ecn, Instant};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::config::QueueConfig;
use crate::error::ConfigError;
use crate::queue::{AqmQueue, QueuedPacket};
use crate::verdict::Enqueued;

/// One step of a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Enq { t_ns: u64, id: u64, bytes: u32, ecn: u8, flow: u32 },
    Deq { t_ns: u64 },
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    DropBefore { t_ns: u64, id: u64 },
    DropAfter { t_ns: u64, id: u64 },
    Mark { t_ns: u64, id: u64 },
    Deq { t_ns: u64, id: Option<u64>, ecn: Option<u8> },
}

#[derive(Clone, Debug)]
struct ScriptPkt {
    id: u64,
    len: u32,
    ecn: Ecn,
    ecn_in: Ecn,
    flow: u32,
}

impl QueuedPacket for ScriptPkt {
    fn wire_len(&self) -> u32 {
        self.len
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) -> bool {
        self.ecn.set_ce()
    }
    fn flow_key(&self) -> u64 {
        u64::from(self.flow)
    }
}

fn ecn_of(bits: u8) -> Ecn {
    match bits & 3 {
        0 => Ecn::NotEct,
        1 => Ecn::Ect1,
        2 => Ecn::Ect0,
        _ => Ecn::Ce,
    }
}

fn bits_of(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    }
}

/// Runs `ops` through a queue built from `cfg`, drawing from `rng`.
pub fn replay<R: RngCore + ?Sized>(cfg: &QueueConfig, ops: &[Op], rng: &mut R) -> Result<Vec<Event>, ConfigError> {
    let mut q = AqmQueue::new(cfg)?;
    let mut out = Vec::new();
    let mut marked_in = std::collections::HashSet::new();
    for op in ops {
        match *op {
            Op::Enq { t_ns, id, bytes, ecn, flow } => {
                let e = ecn_of(ecn);
                let pkt = ScriptPkt { id, len: bytes, ecn: e, ecn_in: e, flow };
                let r = q.enqueue_signalled(Instant::from_nanos(t_ns), pkt, rng);
                out.extend(q.drain_dropped().map(|(p, _)| Event::DropAfter { t_ns, id: p.id }));
                match r {
                    Err((p, _)) => out.push(Event::DropBefore { t_ns, id: p.id }),
                    Ok(Enqueued::Marked) => {
                        marked_in.insert(id);
                        out.push(Event::Mark { t_ns, id });
                    }
                    Ok(_) => {}
                }
            }
            Op::Deq { t_ns } => {
                let p = q.dequeue(Instant::from_nanos(t_ns), rng);
                out.extend(q.drain_dropped().map(|(p, _)| Event::DropAfter { t_ns, id: p.id }));
                match p {
                    Some(p) => {
                        if p.ecn == Ecn::Ce && p.ecn_in != Ecn::Ce && !marked_in.remove(&p.id) {
                            out.push(Event::Mark { t_ns, id: p.id });
                        }
                        out.push(Event::Deq { t_ns, id: Some(p.id), ecn: Some(bits_of(p.ecn)) });
                    }
                    None => out.push(Event::Deq { t_ns, id: None, ecn: None }),
                }
            }
        }
    }
    Ok(out)
}

/// A steady backlog for cost measurements: `backlog` packets queued from
/// `flows` flows round-robin, then `packets` times one arrival (the next
/// flow, 1500 bytes, ECT(0)) and one departure, 1.2 µs apart. Returns the
/// packets that left (the caller times the call; nothing here reads a clock).
pub fn churn<R: RngCore + ?Sized>(
    cfg: &QueueConfig,
    flows: u32,
    backlog: u32,
    packets: u64,
    rng: &mut R,
) -> Result<u64, ConfigError> {
    let mut q = AqmQueue::new(cfg)?;
    let flows = u64::from(flows.max(1));
    let pkt = |id: u64| ScriptPkt { id, len: 1500, ecn: Ecn::Ect0, ecn_in: Ecn::Ect0, flow: (id % flows) as u32 };
    let mut t = Instant::ZERO;
    for id in 0..u64::from(backlog) {
        let _ = q.enqueue(t, pkt(id), rng);
    }
    let mut left = 0;
    for i in 0..packets {
        t = Instant::from_nanos(t.as_nanos() + 1200);
        let _ = q.enqueue(t, pkt(u64::from(backlog) + i), rng);
        left += u64::from(q.dequeue(t, rng).is_some());
        q.drain_dropped().for_each(drop);
    }
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{StepOn, StepParams};
    use crate::testutil::ScriptRng;

    #[test]
    fn test_replay_reports_marks_and_departures() {
        let cfg = QueueConfig::Step(StepParams {
            limit_pkts: Some(2),
            limit_bytes: None,
            on: StepOn::Packets,
            threshold: 1,
            ecn: true,
        });
        let ops = [
            Op::Enq { t_ns: 0, id: 1, bytes: 100, ecn: 2, flow: 0 },
            Op::Enq { t_ns: 0, id: 2, bytes: 100, ecn: 2, flow: 0 },
            Op::Enq { t_ns: 0, id: 3, bytes: 100, ecn: 0, flow: 0 },
            Op::Deq { t_ns: 5 },
            Op::Deq { t_ns: 6 },
            Op::Deq { t_ns: 7 },
        ];
        let ev = replay(&cfg, &ops, &mut ScriptRng::default()).unwrap();
        assert_eq!(
            ev,
            [
                Event::Mark { t_ns: 0, id: 2 },
                Event::DropBefore { t_ns: 0, id: 3 },
                Event::Deq { t_ns: 5, id: Some(1), ecn: Some(2) },
                Event::Deq { t_ns: 6, id: Some(2), ecn: Some(3) },
                Event::Deq { t_ns: 7, id: None, ecn: None },
            ]
        );
    }
}

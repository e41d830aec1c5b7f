//! Deliveries ahead: the packets now on their last link, in the order they
//! will reach their hosts, so that the simulator can prefetch (`prefetch.rs`)
//! the state each delivery touches a few deliveries before it happens.
//!
//! With many flows, delivering a packet touches state that is not in any
//! cache (the connection endpoint, the flow's census and application state,
//! the packet): several misses to memory, one after the other. Prefetched at
//! the moment the packet starts its last link, that state is evicted again
//! before it arrives (a link delay later, a millisecond of simulated time is
//! more than a megabyte of other state); prefetched only when the delivery
//! is the next event, too late to hide the latency. Kept here in arrival
//! order, the next `DEPTH` deliveries are prefetched while the events before
//! them run (about five events per delivery here, so some forty events ahead): several misses overlap, and each lands shortly before its use.
//!
//! Nothing here decides anything the simulation computes: a wrong or stale
//! entry costs a wasted prefetch, never a different result.

use crate::app::FlowState;
use crate::conn::Live;
use crate::sched::End;
use ecnlab_wire::Instant;
use std::collections::VecDeque;

/// How many deliveries ahead are prefetched.
const DEPTH: usize = 8;

/// A packet on its last link, and the connection endpoint and flow it is for.
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    pub slot: u32,
    pub end: End,
    pub flow: u32,
    /// The packet (slab index).
    pub pkt: u32,
    /// The packet carries payload (only then does the application react).
    pub data: bool,
}

/// Pending deliveries by arrival time (pushed when a packet starts its last
/// link; links of equal delay keep them nearly in order, and order is only a hint).
#[derive(Default)]
pub struct Ahead {
    queue: VecDeque<(Instant, Delivery)>,
    /// The first `prefetched` entries have been prefetched.
    prefetched: usize,
}

impl Ahead {
    /// A packet that will be delivered to `d` at `at`.
    #[inline]
    pub fn push(&mut self, at: Instant, d: Delivery) {
        self.queue.push_back((at, d));
    }

    /// Drops the deliveries due before `now`, and calls `prefetch` on those
    /// that have to start now so that the next `DEPTH` are on their way.
    #[inline]
    pub fn advance(&mut self, now: Instant, mut prefetch: impl FnMut(Delivery)) {
        while self.queue.front().is_some_and(|&(t, _)| t < now) {
            self.queue.pop_front();
            self.prefetched = self.prefetched.saturating_sub(1);
        }
        while self.prefetched < DEPTH.min(self.queue.len()) {
            prefetch(self.queue[self.prefetched].1);
            self.prefetched += 1;
        }
    }

    /// Whether prefetching pays with `flows` flows: when their connections and
    /// application state (about 3.5 KB a flow) are larger than a core's
    /// second-level cache (2 MiB on the machines measured; docs/performance.md).
    /// With fewer, the state stays in the cache and the prefetches would only
    /// cost instructions.
    pub fn worth_it(flows: usize) -> bool {
        let per_flow = std::mem::size_of::<Live>() + std::mem::size_of::<FlowState>();
        flows.saturating_mul(per_flow) > 2 << 20
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(slot: u32) -> Delivery {
        Delivery { slot, end: End::Server, flow: 0, pkt: 0, data: true }
    }

    #[test]
    fn test_each_delivery_prefetched_once_depth_ahead() {
        let mut a = Ahead::default();
        for (i, t) in (10..=100).step_by(10).enumerate() {
            a.push(Instant(t), d(i as u32));
        }
        let slots = |a: &mut Ahead, now| {
            let mut v = Vec::new();
            a.advance(Instant(now), |d| v.push(d.slot));
            v
        };
        assert_eq!(slots(&mut a, 5), (0..8).collect::<Vec<_>>(), "DEPTH = 8 ahead");
        assert_eq!(slots(&mut a, 10), Vec::<u32>::new(), "nothing delivered yet");
        assert_eq!(slots(&mut a, 11), vec![8], "one delivered: one more ahead");
        assert_eq!(slots(&mut a, 45), vec![9], "three more delivered, one left to prefetch");
        assert_eq!(slots(&mut a, 101), Vec::<u32>::new());
        assert!(a.queue.is_empty() && a.prefetched == 0);
    }

    #[test]
    fn test_worth_it_with_many_flows_only() {
        assert!(!Ahead::worth_it(10) && !Ahead::worth_it(100));
        assert!(Ahead::worth_it(10_000) && Ahead::worth_it(1_000_000));
    }
}

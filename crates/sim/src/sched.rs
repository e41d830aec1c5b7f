//! The event queue: a binary heap ordered by (time, insertion sequence), so
//! events at the same instant run in the order they were scheduled (FIFO
//! tie-break, as nexosim and smoltcp's netsim do). Events are small `Copy`
//! values that address components by index; nothing is boxed per event.

use ecnlab_wire::Instant;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Index of a packet in the simulation's packet slab.
pub type PktIdx = u32;

/// Which endpoint of a connection a timer or packet is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    Client,
    Server,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link finished serialising its current packet.
    TxDone { link: u32 },
    /// A packet reaches the far end of `link` (after serialisation and propagation).
    Arrive { link: u32, pkt: PktIdx },
    /// A TCP endpoint's timer may be due; checked against `poll_at` (lazy cancel).
    ConnTimer { slot: u32, gen: u32, end: End },
    /// A flow's application starts its next connection.
    AppStart { flow: u32 },
    /// Take one sample of every sampled queue.
    Sample,
    /// The warm-up period ends: snapshot the counters goodput is measured from.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    at: Instant,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Time-ordered event queue with FIFO order among equal times.
#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: Instant,
    processed: u64,
}

impl Scheduler {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn now(&self) -> Instant {
        self.now
    }
    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
    /// Schedules `ev` at `at`; an `at` in the past runs at the current time.
    pub fn schedule(&mut self, at: Instant, ev: Event) {
        let at = at.max(self.now);
        self.heap.push(Entry { at, seq: self.next_seq, ev });
        self.next_seq += 1;
    }
    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.at)
    }
    /// Pops the next event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let e = self.heap.pop()?;
        debug_assert!(e.at >= self.now, "time went backwards");
        self.now = e.at;
        self.processed += 1;
        Some((e.at, e.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_pops_in_time_then_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(Instant(20), Event::AppStart { flow: 0 });
        s.schedule(Instant(10), Event::AppStart { flow: 1 });
        s.schedule(Instant(20), Event::AppStart { flow: 2 });
        s.schedule(Instant(10), Event::AppStart { flow: 3 });
        let order: Vec<u32> = std::iter::from_fn(|| s.pop())
            .map(|(_, e)| match e {
                Event::AppStart { flow } => flow,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
        assert_eq!(s.now(), Instant(20));
        assert_eq!(s.processed(), 4);
    }

    #[test]
    fn test_past_events_run_now() {
        let mut s = Scheduler::new();
        s.schedule(Instant(50), Event::Sample);
        s.pop();
        s.schedule(Instant(10), Event::WarmupEnd);
        assert_eq!(s.pop(), Some((Instant(50), Event::WarmupEnd)));
    }
}

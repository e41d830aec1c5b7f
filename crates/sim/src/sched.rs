//! The event queue: a 4-ary heap (`heap4.rs`) ordered by (time, insertion
//! sequence), so events at the same instant run in the order they were
//! scheduled (FIFO tie-break, as nexosim and smoltcp's netsim do). Events are
//! small `Copy` values that address components by index; nothing is boxed per
//! event. The key packs time and sequence into one `u128` (time in the high
//! 64 bits), so one integer comparison orders two events.

use crate::heap4::Heap4;
use ecnlab_wire::Instant;

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
    /// A (telnet) flow's application writes to its connection.
    AppWrite { flow: u32 },
    /// Take one sample of every sampled queue.
    Sample,
    /// The warm-up period ends: snapshot the counters goodput is measured from.
    WarmupEnd,
}

/// (time, sequence) as one sortable integer.
fn key(at: Instant, seq: u64) -> u128 {
    (u128::from(at.0) << 64) | u128::from(seq)
}

/// Time-ordered event queue with FIFO order among equal times.
#[derive(Default)]
pub struct Scheduler {
    heap: Heap4<Event>,
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
        self.heap.push(key(at, self.next_seq), ev);
        self.next_seq += 1;
    }
    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek_key().map(|k| Instant((k >> 64) as u64))
    }
    /// Pops the next event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let (k, ev) = self.heap.pop()?;
        let at = Instant((k >> 64) as u64);
        debug_assert!(at >= self.now, "time went backwards");
        self.now = at;
        self.processed += 1;
        Some((at, ev))
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

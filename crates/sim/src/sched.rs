//! The event queue: a radix heap (`radix.rs`) ordered by (time, insertion
//! sequence), so events at the same instant run in the order they were
//! scheduled (FIFO tie-break, as nexosim and smoltcp's netsim do). Events are
//! small `Copy` values that address components by index; nothing is boxed per
//! event. The heap's radix is the time; the sequence number breaks ties.

use crate::radix::RadixHeap;
use ecnlab_wire::Instant;

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
    /// The head of `link`'s pipe (the packet in propagation that left first)
    /// reaches the far end of the link.
    Arrive { link: u32 },
    /// A TCP endpoint's timer may be due; checked against `poll_at` (lazy cancel).
    ConnTimer { slot: u32, gen: u32, end: End },
    /// A flow's application starts its next connection.
    AppStart { flow: u32 },
    /// A flow's application writes to its connection (telnet; incast requests).
    AppWrite { flow: u32 },
    /// Take one sample of every sampled queue.
    Sample,
    /// The warm-up period ends: snapshot the counters goodput is measured from.
    WarmupEnd,
}

/// Time-ordered event queue with FIFO order among equal times.
///
/// An event's order is fixed by the sequence number it gets when it is
/// *decided*, not when it is pushed: a caller may `reserve` a number and
/// push the event later (`schedule_reserved`), or never, so long as it pushes
/// it before it is due. `sim.rs` uses this for packets in propagation (only
/// a link's first packet is in the queue) and for ends of transmission that
/// nothing waits for; the pop order is the same as if every event had been
/// pushed when decided.
#[derive(Default)]
pub struct Scheduler {
    heap: RadixHeap<Event>,
    next_seq: u64,
    now: Instant,
    /// Sequence number of the event popped last (the one being handled).
    cur_seq: u64,
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
        let seq = self.reserve();
        self.schedule_reserved(at.max(self.now), seq, ev);
    }
    /// Takes the next sequence number for an event pushed later (or never).
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }
    /// Pushes an event with a reserved number; (`at`, `seq`) must not be due yet.
    #[inline]
    pub fn schedule_reserved(&mut self, at: Instant, seq: u64, ev: Event) {
        debug_assert!(!self.is_past(at, seq), "a reserved event pushed after it was due");
        self.heap.push(at.0, seq, ev);
    }
    /// Whether an event (`at`, `seq`) would already have been popped: it
    /// orders before the event being handled.
    #[inline]
    pub fn is_past(&self, at: Instant, seq: u64) -> bool {
        (at, seq) < (self.now, self.cur_seq)
    }
    /// Counts an event that was decided but, having no effect, never pushed.
    pub fn count_unpushed(&mut self) {
        self.processed += 1;
    }
    /// Time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<Instant> {
        self.heap.peek_key().map(|(t, _)| Instant(t))
    }
    /// The event likely to be popped next, if the queue can tell without
    /// work (`RadixHeap::peek_hint`): for prefetching its state, never for
    /// deciding anything.
    #[inline]
    pub fn next_hint(&self) -> Option<Event> {
        self.heap.peek_hint().copied()
    }
    /// Pops the next event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let (t, seq, ev) = self.heap.pop()?;
        let at = Instant(t);
        debug_assert!(at >= self.now, "time went backwards");
        self.now = at;
        self.cur_seq = seq;
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
    fn test_reserved_event_pushed_late_keeps_its_place() {
        let mut s = Scheduler::new();
        s.schedule(Instant(5), Event::AppStart { flow: 0 });
        let early = s.reserve(); // decided now, pushed later
        let never = s.reserve(); // decided, never pushed
        s.schedule(Instant(10), Event::AppStart { flow: 2 });
        assert_eq!(s.pop(), Some((Instant(5), Event::AppStart { flow: 0 })));
        assert!(!s.is_past(Instant(10), early), "same time, lower sequence: still ahead");
        s.schedule_reserved(Instant(10), early, Event::AppStart { flow: 1 });
        assert_eq!(s.pop(), Some((Instant(10), Event::AppStart { flow: 1 })));
        assert!(s.is_past(Instant(10), early - 1), "same time, lower sequence: already handled");
        assert!(s.is_past(Instant(7), never), "an earlier time is past whatever the sequence");
        assert!(!s.is_past(Instant(10), never), "same time, higher sequence: still ahead");
        s.count_unpushed();
        assert_eq!(s.pop(), Some((Instant(10), Event::AppStart { flow: 2 })));
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

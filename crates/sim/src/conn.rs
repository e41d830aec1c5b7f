//! Live TCP connections: both endpoints of a connection share one slot, so a
//! packet finds its endpoint by slot index (no port demultiplexing per packet).
//! Slots are reused; a generation number makes packets and timers addressed to
//! a previous occupant harmless.

use crate::sched::End;
use ecnlab_tcp::Connection;
use ecnlab_wire::Instant;

pub struct Live {
    pub flow: u32,
    /// Connection number within the flow (0 = first).
    pub conn_no: u32,
    pub client: Connection,
    pub server: Connection,
    pub client_node: u32,
    pub server_node: u32,
    /// Application progress on this connection.
    pub sink_bytes: u64,
    pub source_bytes_in: u64,
    pub closing: [bool; 2],
}

impl Live {
    pub fn endpoint(&mut self, end: End) -> &mut Connection {
        match end {
            End::Client => &mut self.client,
            End::Server => &mut self.server,
        }
    }
    pub fn node(&self, end: End) -> u32 {
        match end {
            End::Client => self.client_node,
            End::Server => self.server_node,
        }
    }
    pub fn both_closed(&self) -> bool {
        self.client.is_closed() && self.server.is_closed()
    }
}

pub fn end_index(end: End) -> usize {
    match end {
        End::Client => 0,
        End::Server => 1,
    }
}

pub fn peer(end: End) -> End {
    match end {
        End::Client => End::Server,
        End::Server => End::Client,
    }
}

/// Each endpoint's timer, kept in the slot beside the generation rather than in
/// the connection: a timer event that finds its deadline moved on (every ACK of
/// new data moves the retransmission deadline later) is rescheduled from here
/// without touching the connection, which with many flows is cold in the cache.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timers {
    /// The event in the scheduler per endpoint (client, server); an earlier one added lazily cancels it.
    pub scheduled: [Option<Instant>; 2],
    /// The endpoint's deadline (`Connection::poll_at`, clamped after now) at its last input.
    pub want: [Option<Instant>; 2],
}

/// A slot's small part: its generation, whether it holds a connection, and
/// the timers. Kept apart from the connections themselves (`ConnTable::lives`)
/// so that a timer event that only reschedules touches this dense column.
struct Slot {
    gen: u32,
    live: bool,
    timers: Timers,
}

/// The connections by slot: the small per-slot part in one column, the
/// connections in another with the same index, stored in place (not boxed),
/// so a connection's address follows from its slot index without a load and
/// can be prefetched (`prefetch.rs`) while an earlier event runs. A freed
/// slot's connection stays in place, dead, until the slot is reused.
#[derive(Default)]
pub struct ConnTable {
    slots: Vec<Slot>,
    lives: Vec<Live>,
    free: Vec<u32>,
}

impl ConnTable {
    /// Room for `n` connections at once without moving them (one per flow, as
    /// most runs have); address space only until a slot is used.
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
        self.lives.reserve(n);
    }
    /// Stores a new connection; returns (slot, generation).
    pub fn insert(&mut self, live: Live) -> (u32, u32) {
        if let Some(i) = self.free.pop() {
            let s = &mut self.slots[i as usize];
            s.live = true;
            s.timers = Timers::default();
            self.lives[i as usize] = live;
            (i, s.gen)
        } else {
            self.slots.push(Slot { gen: 0, live: true, timers: Timers::default() });
            self.lives.push(live);
            ((self.slots.len() - 1) as u32, 0)
        }
    }
    /// Whether `slot` holds the connection of generation `gen`.
    #[inline]
    fn holds(&self, slot: u32, gen: u32) -> bool {
        self.slots.get(slot as usize).is_some_and(|s| s.gen == gen && s.live)
    }
    /// The connection in `slot` if it is still the one of generation `gen`.
    #[inline]
    pub fn get(&mut self, slot: u32, gen: u32) -> Option<&mut Live> {
        self.holds(slot, gen).then(|| &mut self.lives[slot as usize])
    }
    /// The timers of the connection in `slot` if it is still generation `gen`.
    #[inline]
    pub fn timers(&mut self, slot: u32, gen: u32) -> Option<&mut Timers> {
        let s = self.slots.get_mut(slot as usize)?;
        (s.gen == gen && s.live).then_some(&mut s.timers)
    }
    /// Frees the slot; returns its connection, which stays there (dead) until the slot is reused.
    pub fn remove(&mut self, slot: u32) -> Option<&Live> {
        let s = &mut self.slots[slot as usize];
        if !s.live {
            return None;
        }
        s.live = false;
        s.gen = s.gen.wrapping_add(1);
        self.free.push(slot);
        Some(&self.lives[slot as usize])
    }
    /// Every live connection (for end-of-run accounting).
    pub fn iter_live(&self) -> impl Iterator<Item = &Live> {
        self.slots.iter().zip(&self.lives).filter(|(s, _)| s.live).map(|(_, l)| l)
    }
    /// Starts loading what a timer event for `slot` reads first (a hint:
    /// nothing is read, an out-of-range slot is ignored; `prefetch.rs`).
    #[inline]
    pub fn prefetch_slot(&self, slot: u32) {
        if let Some(s) = self.slots.get(slot as usize) {
            crate::prefetch::lines(s);
        }
    }
    /// Starts loading what a segment for endpoint `end` in `slot` touches: the
    /// slot and that endpoint (whose address needs no load: `lives` is indexed by slot).
    #[inline]
    pub fn prefetch(&self, slot: u32, end: End) {
        self.prefetch_slot(slot);
        if let Some(l) = self.lives.get(slot as usize) {
            use crate::prefetch::lines;
            lines(&l.flow);
            lines(&l.client_node);
            lines(&l.sink_bytes);
            lines(&l.closing);
            lines(match end {
                End::Client => &l.client,
                End::Server => &l.server,
            });
        }
    }
}

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

struct Slot {
    gen: u32,
    timers: Timers,
    live: Option<Box<Live>>,
}

#[derive(Default)]
pub struct ConnTable {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl ConnTable {
    /// Stores a new connection; returns (slot, generation).
    pub fn insert(&mut self, live: Live) -> (u32, u32) {
        let live = Some(Box::new(live));
        if let Some(i) = self.free.pop() {
            let s = &mut self.slots[i as usize];
            s.live = live;
            s.timers = Timers::default();
            (i, s.gen)
        } else {
            self.slots.push(Slot { gen: 0, timers: Timers::default(), live });
            ((self.slots.len() - 1) as u32, 0)
        }
    }
    /// The connection in `slot` if it is still the one of generation `gen`.
    pub fn get(&mut self, slot: u32, gen: u32) -> Option<&mut Live> {
        let s = self.slots.get_mut(slot as usize)?;
        if s.gen != gen {
            return None;
        }
        s.live.as_deref_mut()
    }
    /// Frees the slot and returns its connection.
    /// The timers of the connection in `slot` if it is still generation `gen`.
    pub fn timers(&mut self, slot: u32, gen: u32) -> Option<&mut Timers> {
        let s = self.slots.get_mut(slot as usize)?;
        (s.gen == gen && s.live.is_some()).then_some(&mut s.timers)
    }
    pub fn remove(&mut self, slot: u32) -> Option<Box<Live>> {
        let s = &mut self.slots[slot as usize];
        let live = s.live.take()?;
        s.gen = s.gen.wrapping_add(1);
        self.free.push(slot);
        Some(live)
    }
    /// Every live connection (for end-of-run accounting).
    pub fn iter_live(&self) -> impl Iterator<Item = &Live> {
        self.slots.iter().filter_map(|s| s.live.as_deref())
    }
}

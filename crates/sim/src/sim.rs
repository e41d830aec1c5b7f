//! The simulation: one value per run (no globals), so many runs can go in
//! parallel. `Simulation::new` validates and builds everything; `run` pops
//! events until the end time and returns the results.

use crate::ahead::{Ahead, Delivery};
use crate::app::{AppAction, FlowCensus, FlowState};
use crate::conn::{end_index, peer, ConnTable, Live};
use crate::error::Error;
use crate::fault::Fault;
use crate::link::{InFlight, Link};
use crate::net::{Topology, NO_ROUTE};
use crate::packet::{Packet, PacketSlab, QueuedRef};
use crate::pcap::PcapTap;
use crate::sched::{End, Event, Scheduler};
use crate::series::{FlowSamples, QueueSamples};
use crate::spec::{FaultAction, SimSpec};
use ecnlab_aqm::{DropReason, Enqueued};
use ecnlab_tcp::{Connection, Role};
use ecnlab_wire::{Duration, Instant};
use rand::Rng;

pub struct Simulation {
    pub(crate) spec: SimSpec,
    pub(crate) sched: Scheduler,
    pub(crate) topo: Topology,
    pub(crate) links: Vec<Link>,
    pub(crate) pkts: PacketSlab,
    pub(crate) conns: ConnTable,
    pub(crate) flows: Vec<FlowState>,
    /// Each flow's packet census, by flow index: apart from `flows`, because every packet
    /// updates it and a compact column stays in the cache where the flows' state does not.
    pub(crate) flow_census: Vec<FlowCensus>,
    /// Each flow's id (`FlowSpec::flow_id`), by flow index.
    pub(crate) flow_ids: Vec<String>,
    /// Faults per link index.
    pub(crate) faults: Vec<Vec<Fault>>,
    pub(crate) taps: Vec<PcapTap>,
    /// The capture each link writes to (an index into `taps`).
    pub(crate) tap_of: Vec<Option<u32>>,
    /// Sampled links and their series.
    pub(crate) sampled: Vec<(u32, QueueSamples)>,
    pub(crate) sampled_flows: Vec<(u32, FlowSamples)>,
    pub(crate) end: Instant,
    pub(crate) warmup: Instant,
    pub(crate) forwarded: u64,
    pub(crate) census: Census,
    /// Flows that have not finished their work (for `stop_when_complete`).
    pub(crate) pending_flows: usize,
    /// Packets on their last link, for prefetching what their delivery touches
    /// (`None` with few flows, whose state stays in the cache).
    pub(crate) ahead: Option<Ahead>,
    /// Scratch for the packets a queue dropped after enqueueing them.
    pub(crate) drop_buf: Vec<(QueuedRef, DropReason)>,
    /// Each flow's TCP counters (both ends, every connection) and packet census when the
    /// warm-up ended, by flow index (empty without a warm-up).
    pub(crate) flows_at_warmup: Vec<(ecnlab_tcp::TcpStats, FlowCensus)>,
}

/// Packet census for conservation checks: every packet a host sends is, at any
/// time, delivered, discarded (dropped by a queue, a fault, random loss, or
/// addressed to a finished connection) or still in the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    pub sent: u64,
    pub delivered: u64,
    /// Delivered to a host whose connection had already been freed.
    pub stale: u64,
}

impl Simulation {
    /// Validates `spec` and builds the network; nothing runs yet.
    pub fn new(spec: SimSpec) -> Result<Self, Error> {
        crate::build::check(&spec)?;
        crate::build::build(spec)
    }

    /// Runs to the end time and returns the results.
    pub fn run(mut self) -> Result<crate::output::RunOutput, Error> {
        while self.step() {}
        self.finish()
    }

    /// As [`Self::run`], asking `stop()` every `every` events and ending with
    /// [`Error::Interrupted`] when it says so (the events run are the same).
    pub fn run_until(mut self, every: u32, mut stop: impl FnMut() -> bool) -> Result<crate::output::RunOutput, Error> {
        loop {
            for _ in 0..every.max(1) {
                if !self.step() {
                    return self.finish();
                }
            }
            if stop() {
                return Err(Error::Interrupted);
            }
        }
    }

    /// Processes one event; false when the run is over.
    pub fn step(&mut self) -> bool {
        match self.sched.peek_time() {
            Some(t) if t <= self.end => {}
            _ => return false,
        }
        let Some((now, ev)) = self.sched.pop() else { return false };
        self.prefetch_ahead(now);
        match ev {
            Event::TxDone { link } => self.on_tx_done(link, now),
            Event::Arrive { link } => self.on_arrive(link, now),
            Event::ConnTimer { slot, gen, end } => self.on_conn_timer(slot, gen, end, now),
            Event::AppStart { flow } => self.start_connection(flow, now),
            Event::AppWrite { flow } => self.on_app_write(flow, now),
            Event::Sample => self.on_sample(now),
            Event::WarmupEnd => self.on_warmup_end(),
        }
        true
    }

    pub fn now(&self) -> Instant {
        self.sched.now()
    }

    /// With many flows (`Ahead::worth_it`), starts loading the state that the
    /// next events will touch while this one runs (`prefetch.rs`): the
    /// deliveries a few ahead (`ahead.rs`), and the slot and endpoint of a
    /// timer event that is next. That state is then not in the cache, and
    /// waiting for it one event at a time is most of the cost.
    #[inline]
    fn prefetch_ahead(&mut self, now: Instant) {
        let Some(ahead) = self.ahead.as_mut() else { return };
        let (pkts, conns, census, flows) = (&self.pkts, &self.conns, &self.flow_census, &self.flows);
        ahead.advance(now, |d| {
            pkts.prefetch(d.pkt);
            conns.prefetch(d.slot, d.end);
            if let Some(c) = census.get(d.flow as usize) {
                crate::prefetch::lines(c);
            }
            if let Some(f) = flows.get(d.flow as usize).filter(|_| d.data) {
                f.prefetch(); // only data has the application react
            }
        });
        if let Some(Event::ConnTimer { slot, end, .. }) = self.sched.next_hint() {
            self.conns.prefetch(slot, end); // the endpoint too: a timer that fires reads it
        }
    }

    pub fn census(&self) -> Census {
        self.census
    }

    /// Packets discarded inside the network so far (queues, faults, impairments, random loss).
    pub fn packets_discarded(&self) -> u64 {
        let now = self.now();
        self.links
            .iter()
            .map(|l| {
                let q = l.queue.stats(now);
                let c = &l.counters;
                let impaired = l.impair.as_ref().map_or(0, |m| m.dropped());
                q.early_drops
                    + q.forced_drops
                    + q.overflow_drops
                    + c.fault_drops
                    + c.random_losses
                    + c.corrupted
                    + impaired
            })
            .sum()
    }

    /// Packets queued or on the wire right now.
    pub fn packets_in_network(&self) -> u64 {
        self.links.iter().map(|l| l.pipe.len() as u64 + l.queue.len_pkts() as u64).sum::<u64>()
    }

    // ----- links -------------------------------------------------------------

    /// A new packet enters link `li` (it goes into the packet slab until it is
    /// delivered or discarded).
    pub(crate) fn send_on_link(&mut self, li: u32, p: Packet, now: Instant) {
        let idx = self.pkts.insert(p);
        self.enter_link(li, idx, now);
    }

    /// Packet `idx` enters link `li`: scripted faults, path impairments, then the queue, then
    /// the transmitter.
    fn enter_link(&mut self, li: u32, idx: u32, now: Instant) {
        let link_faults = &mut self.faults[li as usize];
        if !link_faults.is_empty() && self.pkts.get(idx).quench.is_none() {
            let p = self.pkts.get_mut(idx);
            let action = crate::fault::check_all(link_faults, p);
            let mut p = *p;
            let kept = self.apply_fault(li, action, &mut p);
            *self.pkts.get_mut(idx) = p;
            if !kept {
                self.flow_census[p.flow as usize].dropped += 1;
                self.pkts.take(idx);
                return;
            }
        }
        if self.links[li as usize].impair.is_some() && !self.impair(li, idx, now) {
            return;
        }
        let p = self.pkts.get_mut(idx);
        p.enqueued_at = now;
        let q = QueuedRef::of(idx, p);
        let link = &mut self.links[li as usize];
        let verdict = link.queue.enqueue_signalled(now, q, &mut link.queue_rng);
        if link.queue.has_dropped() {
            self.discard_queue_drops(li);
        }
        match verdict {
            Err((q, reason)) => {
                self.discard_queued(li, q, reason);
                return;
            }
            Ok(Enqueued::Quench) => {
                let p = *self.pkts.get(idx);
                self.send_quench(li, &p, now);
            }
            Ok(_) => {}
        }
        let link = &mut self.links[li as usize];
        if let Some(t) = link.tail.as_mut() {
            t.observe(now, link.queue.len_bytes());
        }
        self.try_transmit(li, now);
    }

    /// Applies the impairments of `li` to packet `idx` (a Source Quench passes untouched);
    /// false if they dropped it (it has left the network).
    fn impair(&mut self, li: u32, idx: u32, now: Instant) -> bool {
        let p = self.pkts.get_mut(idx);
        let Some(m) = self.links[li as usize].impair.as_mut().filter(|_| p.quench.is_none()) else { return true };
        if m.apply(now, Some(p.flow), &mut p.seg) {
            return true;
        }
        self.flow_census[p.flow as usize].dropped += 1;
        self.pkts.take(idx);
        false
    }

    /// A packet the queue of `li` dropped (at arrival, or after enqueue) leaves the network.
    fn discard_queued(&mut self, li: u32, q: QueuedRef, reason: DropReason) {
        let link = &mut self.links[li as usize];
        // Counted by the queue; the sim also checks the rule that an ECN queue
        // never drops an ECN-capable packet early (it marks it).
        if reason == DropReason::Early && q.ecn.is_ect() {
            link.counters.early_drops_ect += 1;
        }
        let p = self.pkts.take(q.idx);
        link.counters.drops_by_kind[p.kind() as usize] += 1;
        self.flow_census[p.flow as usize].dropped += 1;
    }

    /// Discards the packets the AQM of `li` dropped after enqueueing them.
    fn discard_queue_drops(&mut self, li: u32) {
        let mut dropped = std::mem::take(&mut self.drop_buf);
        dropped.extend(self.links[li as usize].queue.drain_dropped());
        for (q, reason) in dropped.drain(..) {
            self.discard_queued(li, q, reason);
        }
        self.drop_buf = dropped;
    }

    /// Applies a fault's action; false if the packet was dropped.
    fn apply_fault(&mut self, li: u32, action: Option<FaultAction>, p: &mut Packet) -> bool {
        use ecnlab_aqm::QueuedPacket;
        let c = &mut self.links[li as usize].counters;
        match action {
            None => true,
            Some(FaultAction::Mark) if p.set_ce() => {
                c.fault_marks += 1;
                true
            }
            Some(_) => {
                c.fault_drops += 1;
                false
            }
        }
    }

    /// Starts the next transmission on `li` if the transmitter is idle; if it
    /// is busy, a packet may now wait for the end of the transmission, so that
    /// end's `TxDone` goes into the event queue (link.rs).
    fn try_transmit(&mut self, li: u32, now: Instant) {
        let link = &mut self.links[li as usize];
        if let Some((t, seq)) = link.tx_end {
            if !self.sched.is_past(t, seq) {
                if !link.tx_end_pushed && !link.queue.is_empty() {
                    link.tx_end_pushed = true;
                    self.sched.schedule_reserved(t, seq, Event::TxDone { link: li });
                }
                return;
            }
            // The end passed unpushed: its `TxDone` found the queue empty and
            // only freed the transmitter.
            debug_assert!(!link.tx_end_pushed, "a pushed TxDone clears tx_end when it runs");
            link.tx_end = None;
            self.sched.count_unpushed();
        }
        self.start_transmission(li, now);
    }

    /// Sends the queue's next packet, if any, on the idle transmitter of `li`.
    fn start_transmission(&mut self, li: u32, now: Instant) {
        let link = &mut self.links[li as usize];
        let next = link.start_next(now);
        if link.queue.has_dropped() {
            self.discard_queue_drops(li);
        }
        let Some(q) = next else { return };
        let link = &mut self.links[li as usize];
        let tx = link.tx_time(q.len);
        let arrive = now + tx + link.delay;
        let p = self.pkts.get_mut(q.idx);
        if p.quench.is_none() {
            p.seg.ecn = q.ecn; // a mark made in the queue (a quench quotes its segment unchanged)
        }
        if let Some(ahead) = self.ahead.as_mut().filter(|_| self.topo.ends[li as usize].1 == p.dst) {
            ahead.push(
                arrive,
                Delivery { slot: p.slot, end: p.to, flow: p.flow, pkt: q.idx, data: p.seg.payload_len > 0 },
            );
        }
        // Sequence numbers in the order the events were always scheduled: TxDone, then Arrive.
        let tx_seq = self.sched.reserve();
        let arrive_seq = self.sched.reserve();
        link.tx_end = Some((now + tx, tx_seq));
        link.tx_end_pushed = !link.queue.is_empty();
        if link.tx_end_pushed {
            self.sched.schedule_reserved(now + tx, tx_seq, Event::TxDone { link: li });
        }
        if link.pipe.is_empty() {
            self.sched.schedule_reserved(arrive, arrive_seq, Event::Arrive { link: li });
        }
        link.pipe.push_back(InFlight { at: arrive, seq: arrive_seq, idx: q.idx });
        if link.watched {
            self.record_departure(li, now);
        }
    }

    /// A departure from a watched link (`Link::watched`): the packet that just left its
    /// queue, the newest on its pipe, into the link's capture and its flow's sojourn
    /// histogram. Out of line, and finding the packet from the pipe, so that the dequeue
    /// path tests one flag and keeps nothing of the packet for it.
    #[cold]
    #[inline(never)]
    fn record_departure(&mut self, li: u32, now: Instant) {
        let link = &mut self.links[li as usize];
        let Some(last) = link.pipe.back() else { return };
        let p = self.pkts.get(last.idx);
        if let Some(t) = self.tap_of[li as usize] {
            // Both ends of a flow share its TCP configuration, so both announce this shift.
            let wscale = self.flows[p.flow as usize].tcp.wscale();
            self.taps[t as usize].record(now, p, wscale);
        }
        if link.flow_sojourn.is_some() {
            link.record_flow_sojourn(p.flow);
        }
    }

    fn on_tx_done(&mut self, li: u32, now: Instant) {
        let link = &mut self.links[li as usize];
        link.tx_end = None;
        link.tx_end_pushed = false;
        self.start_transmission(li, now);
    }

    /// Counts the `TxDone`s that were never pushed but fall before the end:
    /// the events handled are the same as if they had been pushed.
    pub(crate) fn count_unpushed_tx_ends(&mut self) {
        for l in &self.links {
            if let Some((t, _)) = l.tx_end.filter(|_| !l.tx_end_pushed) {
                if t <= self.end {
                    self.sched.count_unpushed();
                }
            }
        }
    }

    /// The head of `li`'s pipe arrives; the next packet in the pipe becomes the head.
    fn on_arrive(&mut self, li: u32, now: Instant) {
        let link = &mut self.links[li as usize];
        let idx = link.pipe.pop_front().expect("an Arrive has its packet at the head of the pipe").idx;
        if let Some(next) = link.pipe.front() {
            self.sched.schedule_reserved(next.at, next.seq, Event::Arrive { link: li });
        }
        let node = self.topo.ends[li as usize].1;
        let p = self.pkts.get(idx);
        if link.loss > 0.0 && link.loss_rng.random::<f64>() < link.loss {
            link.counters.random_losses += 1;
            self.flow_census[p.flow as usize].dropped += 1;
            self.pkts.take(idx);
            return;
        }
        if link.corrupt > 0.0 && link.loss_rng.random::<f64>() < link.corrupt {
            // Arrives damaged: the next node discards it on the checksum.
            link.counters.corrupted += 1;
            let census = &mut self.flow_census[p.flow as usize];
            census.corrupted += 1;
            if node == p.dst && p.seg.payload_len > 0 && p.quench.is_none() {
                census.corrupted_data_at_host += 1;
            }
            self.pkts.take(idx);
            return;
        }
        if node == p.dst {
            let p = self.pkts.take(idx);
            self.deliver(p, now);
        } else {
            let next = self.topo.next_link(node, p.dst, p.flow);
            debug_assert_ne!(next, NO_ROUTE, "routes are checked before the run");
            if next != NO_ROUTE {
                self.forwarded += 1;
                self.enter_link(next, idx, now);
            } else {
                self.pkts.take(idx);
            }
        }
    }

    // ----- connections -------------------------------------------------------

    fn start_connection(&mut self, flow: u32, now: Instant) {
        let f = &mut self.flows[flow as usize];
        let (client_node, server_node) = f.client_server_nodes();
        let conn_no = f.conns_started;
        f.conns_started += 1;
        f.conn_opened = now;
        f.first_opened.get_or_insert(now);
        let next_arrival = f.on_connection_start(now);
        let live = Live {
            flow,
            conn_no,
            client: Connection::shared(f.tcp.clone(), Role::Client),
            server: Connection::shared(f.tcp.clone(), Role::Server),
            client_node,
            server_node,
            sink_bytes: 0,
            source_bytes_in: 0,
            closing: [false, false],
        };
        let mut live = live;
        if f.tcp.cc == ecnlab_tcp::CcKind::Bbr {
            // BBR's random draws come from the flow's stream; no other flow draws here.
            use rand::Rng;
            let seed = f.rng.random::<u64>();
            live.client.seed_cc(seed);
            live.server.seed_cc(seed);
        }
        let (slot, gen) = self.conns.insert(live);
        self.flows[flow as usize].live_conn = Some((slot, gen));
        if let Some(t) = next_arrival.filter(|&t| t <= self.end) {
            self.sched.schedule(t, Event::AppStart { flow });
        }
        self.touch(slot, gen, End::Client, now);
    }

    /// A telnet source writes a packet, or an incast aggregator its due requests,
    /// to the flow's connection (if it is still open).
    fn on_app_write(&mut self, flow: u32, now: Instant) {
        let f = &mut self.flows[flow as usize];
        let Some((slot, gen)) = f.live_conn else { return };
        let Some(c) = self.conns.get(slot, gen) else { return };
        let (end, next) = f.app_write(c, now);
        if let Some(t) = next.filter(|&t| t <= self.end) {
            self.sched.schedule(t, Event::AppWrite { flow });
        }
        self.touch(slot, gen, end, now);
    }

    pub(crate) fn deliver(&mut self, p: Packet, now: Instant) {
        let census = &mut self.flow_census[p.flow as usize];
        let Some(c) = self.conns.get(p.slot, p.gen) else {
            self.census.stale += 1;
            census.stale += 1;
            return;
        };
        self.census.delivered += 1;
        census.delivered += 1;
        if p.quench.is_some() {
            c.endpoint(p.to).on_source_quench(now);
        } else {
            c.endpoint(p.to).on_segment(now, &p.seg);
        }
        self.touch(p.slot, p.gen, p.to, now);
    }

    fn on_conn_timer(&mut self, slot: u32, gen: u32, end: End, now: Instant) {
        let Some(timers) = self.conns.timers(slot, gen) else { return };
        let i = end_index(end);
        if timers.scheduled[i] != Some(now) {
            return; // superseded by an earlier timer: lazily cancelled
        }
        timers.scheduled[i] = None;
        match timers.want[i] {
            None => return, // nothing pending any more
            Some(w) if w > now => {
                // The deadline moved on since this event was scheduled: wait for it, without
                // waking the connection (it has had no input since, so nothing else is due).
                timers.scheduled[i] = Some(w);
                self.sched.schedule(w, Event::ConnTimer { slot, gen, end });
                return;
            }
            Some(_) => {}
        }
        let Some(c) = self.conns.get(slot, gen) else { return };
        c.endpoint(end).on_timer(now);
        self.touch(slot, gen, end, now);
    }

    /// After any input to an endpoint: run the application on its events, send
    /// what TCP wants to send, re-arm its timer, and free the slot when done.
    fn touch(&mut self, slot: u32, gen: u32, end: End, now: Instant) {
        let Some(c) = self.conns.get(slot, gen) else { return };
        let flow = c.flow as usize;
        let mut next_start = None;
        // The flow's state is touched only when the application has something to react to
        // (most inputs, pure ACKs among them, raise no event).
        if let Some(first) = c.endpoint(end).poll_event() {
            let was_done = self.flows[flow].completion.is_some();
            let mut ev = Some(first);
            while let Some(e) = ev {
                match self.flows[flow].on_event(c, end, e, now) {
                    AppAction::StartNext(t) => next_start = Some(t),
                    AppAction::Write(t) if t <= self.end => {
                        self.sched.schedule(t, Event::AppWrite { flow: flow as u32 })
                    }
                    _ => {}
                }
                ev = c.endpoint(end).poll_event();
            }
            if !was_done && self.flows[flow].completion.is_some() {
                self.on_flow_complete(now);
            }
        }
        self.transmit_from(slot, gen, end, now);
        self.arm_timer(slot, gen, end, now);
        if let Some(t) = next_start {
            if t <= self.end {
                self.sched.schedule(t, Event::AppStart { flow: flow as u32 });
            }
        }
        self.reap(slot, gen);
    }

    fn transmit_from(&mut self, slot: u32, gen: u32, end: End, now: Instant) {
        loop {
            let Some(c) = self.conns.get(slot, gen) else { return };
            let Some(seg) = c.endpoint(end).poll_transmit(now) else { return };
            let (src, dst) = (c.node(end), c.node(peer(end)));
            let p = Packet {
                seg,
                flow: c.flow,
                slot,
                gen,
                conn_no: c.conn_no,
                to: peer(end),
                src,
                dst,
                enqueued_at: now,
                quench: None,
            };
            let li = self.topo.next_link(src, dst, p.flow);
            debug_assert_ne!(li, NO_ROUTE, "routes are checked before the run");
            if li != NO_ROUTE {
                self.census.sent += 1;
                self.flow_census[p.flow as usize].sent += 1;
                self.send_on_link(li, p, now);
            }
        }
    }

    fn arm_timer(&mut self, slot: u32, gen: u32, end: End, now: Instant) {
        let Some(c) = self.conns.get(slot, gen) else { return };
        // A deadline already due is handled at the next nanosecond at the latest,
        // so a timer that does not clear itself cannot stall the clock.
        let want = c.endpoint(end).poll_at().map(|t| if t <= now { now + Duration(1) } else { t });
        let Some(timers) = self.conns.timers(slot, gen) else { return };
        let i = end_index(end);
        timers.want[i] = want;
        let Some(t) = want else { return };
        if timers.scheduled[i].is_none_or(|s| t < s) {
            timers.scheduled[i] = Some(t);
            self.sched.schedule(t, Event::ConnTimer { slot, gen, end });
        }
    }

    fn on_flow_complete(&mut self, now: Instant) {
        self.pending_flows = self.pending_flows.saturating_sub(1);
        if self.spec.stop_when_complete && self.pending_flows == 0 {
            self.end = now; // every flow is done: the run ends here
        }
    }

    /// Frees a connection whose endpoints have both finished.
    fn reap(&mut self, slot: u32, gen: u32) {
        let Some(c) = self.conns.get(slot, gen) else { return };
        if !c.both_closed() {
            return;
        }
        if let Some(c) = self.conns.remove(slot) {
            self.flows[c.flow as usize].add_connection_stats(c);
        }
    }

    // ----- measurement -------------------------------------------------------

    fn on_sample(&mut self, now: Instant) {
        for (li, s) in &mut self.sampled {
            s.sample(now, &mut self.links[*li as usize].queue);
        }
        for (fi, s) in &mut self.sampled_flows {
            let f = &self.flows[*fi as usize];
            let live = f.live_conn.and_then(|(slot, gen)| self.conns.get(slot, gen));
            let sender = live.map(|c| if c.client_node == f.src { &c.client } else { &c.server });
            s.sample(now, sender, f.delivered);
        }
        let dt = Duration(self.spec.sample_interval_ns);
        if now + dt <= self.end {
            self.sched.schedule(now + dt, Event::Sample);
        }
    }

    /// The warm-up ends: every counter's value now is the base of its value after the warm-up
    /// (`report.rs`), and the sojourn histograms start.
    fn on_warmup_end(&mut self) {
        let now = self.now();
        let mut base: Vec<_> = self.flows.iter().zip(&self.flow_census).map(|(f, c)| (f.totals.clone(), *c)).collect();
        for c in self.conns.iter_live() {
            base[c.flow as usize].0.accumulate(c.client.stats());
            base[c.flow as usize].0.accumulate(c.server.stats());
        }
        self.flows_at_warmup = base;
        for f in &mut self.flows {
            f.delivered_at_warmup = f.delivered;
        }
        for l in &mut self.links {
            l.counters.bytes_at_warmup = l.counters.bytes;
            l.at_warmup = Some(Box::new((l.queue.stats(now), l.counters)));
            if l.sojourn {
                l.record_sojourn();
            }
        }
    }
}

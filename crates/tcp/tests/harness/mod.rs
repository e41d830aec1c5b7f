//! A tiny deterministic two-endpoint network for packet-trace tests.
//!
//! Client → Server and Server → Client are one-way pipes with a fixed delay and
//! a serialising bottleneck (unlimited queue), so ACK clocking is real. A fault
//! script drops or CE-marks chosen transmissions (a mark sets CE on an ECT
//! packet and drops a Not-ECT one, as an ECN router does). Events are
//! processed in time order, packets before timers at equal times, FIFO ties.

#![allow(dead_code)]

use ecnlab_tcp::{AppEvent, CaState, Connection, EcnMode, LimitedTransmit, NewRenoTimer, Recovery, Role, TcpConfig};
use ecnlab_wire::{Duration, Ecn, Instant, Segment};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

pub const MSS: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    C2S,
    S2C,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Drop,
    Mark,
    /// Forward unchanged and send the Client an ICMP Source Quench (arrives
    /// one reverse one-way delay later).
    Quench,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The n-th (1-based) Client → Server transmission carrying data, retransmissions included.
    DataTx(u32),
    /// The first transmission of the data segment starting at this sequence number.
    Seq(u64),
    /// The k-th (1-based) SYN-ACK transmission.
    SynAck(u32),
    /// The n-th (1-based) Server → Client transmission that is not a SYN-ACK.
    AckTx(u32),
    /// The n-th (1-based) Client → Server transmission carrying FIN, with data or without.
    Fin(u32),
    /// Every Client SYN that asks for ECN (ECE, CWR or AE set): a middlebox that drops
    /// ECN-setup SYNs (RFC 3168 §6.1.1.1).
    EcnSyn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub target: Target,
    pub action: Action,
}

pub fn drop(target: Target) -> Fault {
    Fault { target, action: Action::Drop }
}
pub fn mark(target: Target) -> Fault {
    Fault { target, action: Action::Mark }
}
pub fn quench(target: Target) -> Fault {
    Fault { target, action: Action::Quench }
}
/// Sequence number of the k-th (1-based) data segment.
pub fn seg(k: u64) -> u64 {
    1 + (k - 1) * MSS as u64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Sent,
    Dropped,
    Marked,
    Quenched,
}

/// One transmission, with the sender's congestion state after sending it.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub t: Instant,
    pub dir: Dir,
    pub seg: Segment,
    /// The IP-ECN field as the sender set it (`seg.ecn` is what the path made of it).
    pub sent_ecn: Ecn,
    pub fate: Fate,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub ca: CaState,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.seg;
        let fl = s.flags;
        let flags: String = [
            (fl.syn(), 'S'),
            (fl.ack(), 'A'),
            (fl.fin(), 'F'),
            (fl.ae(), 'N'),
            (fl.cwr(), 'W'),
            (fl.ece(), 'E'),
            (s.retransmit, 'R'),
        ]
        .iter()
        .map(|&(on, c)| if on { c } else { '.' })
        .collect();
        let ssthresh = if self.ssthresh > 1 << 30 { "inf".to_string() } else { self.ssthresh.to_string() };
        write!(
            f,
            "{:>12.6} {:?} seq={:<6} ack={:<6} {} {:?} len={:<4} cwnd={:<6} ssth={:<6} {} sack={:?}{} {:?}",
            self.t.as_secs_f64(),
            self.dir,
            s.seq,
            s.ack,
            flags,
            s.ecn,
            s.payload_len,
            self.cwnd,
            ssthresh,
            self.ca,
            s.sack.as_slice(),
            // The AccECN option: its number of fields.
            s.accecn.map_or(String::new(), |o| format!(" accecn={}", o.fields)),
            self.fate
        )
    }
}

/// The Client's congestion state after an input that changed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcPoint {
    pub t: Instant,
    /// Ack field of the segment the Client just processed (None: a timer).
    pub ack: Option<u64>,
    /// One past the highest data byte the Client had sent before this input.
    pub high_sent: u64,
    /// The Client's snd_una after this input.
    pub una: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub ca: CaState,
    /// DCTCP's α after this input (None for other congestion controls).
    pub alpha: Option<f64>,
}

pub struct Net {
    pub c: Connection,
    pub s: Connection,
    pub now: Instant,
    pub delay: [Duration; 2],
    pub rate_bps: [u64; 2],
    link_free: [Instant; 2],
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    /// What is on the way: a segment, or (`None` direction) a Source Quench to the Client.
    in_flight: Vec<Option<(Option<Dir>, Segment)>>,
    faults: Vec<Fault>,
    /// A box on each direction's path (C2S, S2C) that rewrites every segment before the
    /// fault script acts on it (a path impairment: bleaching, remarking, zeroing).
    pub path: [Option<fn(&mut Segment)>; 2],
    data_tx: u32,
    fin_tx: u32,
    synack_tx: u32,
    c_high: u64,
    ack_tx: u32,
    /// Client ECN reductions: (snd_una, highest data sent) when each happened.
    pub ecn_reductions: Vec<(u64, u64)>,
    pub log: Vec<Line>,
    /// Every segment the Client received: (arrival time, its ack field, its payload length).
    pub c_arrivals: Vec<(Instant, u64, u32)>,
    pub cc_log: Vec<CcPoint>,
    pub c_events: Vec<AppEvent>,
    pub s_events: Vec<AppEvent>,
}

/// The configuration the trace tests use: MSS 1000 B, IW 2, ECN on, 1 ms clock,
/// 1 s min RTO, and the classic growth: per ACK, no Limited Transmit,
/// Slow-but-Steady NewReno (the arithmetic of `trace.rs`); `conformance.rs`
/// turns on RFC 3465, RFC 3042 and the Impatient timer where it tests them.
pub fn config(variant: Recovery, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        abc: 0,
        limited_transmit: LimitedTransmit::Off,
        newreno_timer: NewRenoTimer::SlowButSteady,
        recovery: variant,
        mss: MSS,
        init_cwnd_segments: 2,
        rwnd_bytes: 1_000_000,
        delayed_ack,
        ecn: EcnMode::Classic,
        ..TcpConfig::default()
    }
}

impl Net {
    pub fn new(c: TcpConfig, s: TcpConfig, faults: Vec<Fault>) -> Self {
        Net {
            c: Connection::new(c, Role::Client),
            s: Connection::new(s, Role::Server),
            now: Instant::ZERO,
            delay: [Duration::from_millis(10); 2],
            rate_bps: [10_000_000; 2],
            link_free: [Instant::ZERO; 2],
            heap: BinaryHeap::new(),
            in_flight: Vec::new(),
            faults,
            path: [None; 2],
            data_tx: 0,
            fin_tx: 0,
            synack_tx: 0,
            c_high: 1,
            ack_tx: 0,
            ecn_reductions: Vec::new(),
            log: Vec::new(),
            c_arrivals: Vec::new(),
            cc_log: Vec::new(),
            c_events: Vec::new(),
            s_events: Vec::new(),
        }
    }

    /// Client sends `bytes` then closes; runs until both are done or `limit`.
    pub fn transfer(cfg: TcpConfig, bytes: u64, faults: Vec<Fault>) -> Self {
        let mut net = Net::new(cfg.clone(), cfg, faults);
        net.c.send(bytes);
        net.c.close();
        net.run(Instant(Duration::from_secs(200).as_nanos()));
        net
    }

    /// As `transfer`, with the Client's and the Server's own configurations and a box
    /// on each direction's path (`path`).
    pub fn through(c: TcpConfig, s: TcpConfig, bytes: u64, path: [Option<fn(&mut Segment)>; 2]) -> Self {
        let mut net = Net::new(c, s, vec![]);
        net.path = path;
        net.c.send(bytes);
        net.c.close();
        net.run(Instant(Duration::from_secs(200).as_nanos()));
        net
    }

    /// The Server sends `bytes` (FIN after them) to a Client that sends nothing
    /// and closes when the Server's FIN arrives.
    pub fn response(cfg: TcpConfig, bytes: u64, faults: Vec<Fault>) -> Self {
        let mut net = Net::new(cfg.clone(), cfg, faults);
        net.s.send(bytes);
        net.s.close();
        net.run(Instant(Duration::from_secs(200).as_nanos()));
        net
    }

    pub fn run(&mut self, limit: Instant) {
        self.drain(Dir::C2S);
        self.drain(Dir::S2C);
        loop {
            if self.c.is_closed() && self.s.is_closed() && self.heap.is_empty() {
                break;
            }
            let pkt = self.heap.peek().map(|r| r.0 .0);
            let tc = self.c.poll_at();
            let ts = self.s.poll_at();
            let Some(t) = [pkt, tc, ts].into_iter().flatten().min() else { break };
            if t > limit {
                break;
            }
            assert!(t >= self.now, "time went backwards");
            self.now = t;
            if pkt == Some(t) {
                let Reverse((_, id)) = self.heap.pop().unwrap();
                match self.in_flight[id as usize].take().unwrap() {
                    (Some(dir), seg) => self.deliver(dir, &seg),
                    (None, _) => {
                        self.c.on_source_quench(t);
                        self.after_input(Dir::C2S, None);
                    }
                }
            } else if tc.is_some_and(|x| x <= t) {
                self.c.on_timer(t);
                self.after_input(Dir::C2S, None);
            } else {
                self.s.on_timer(t);
                self.after_input(Dir::S2C, None);
            }
        }
    }

    fn deliver(&mut self, dir: Dir, seg: &Segment) {
        match dir {
            Dir::C2S => {
                self.s.on_segment(self.now, seg);
                self.after_input(Dir::S2C, None);
            }
            Dir::S2C => {
                self.c_arrivals.push((self.now, seg.ack, seg.payload_len));
                self.c.on_segment(self.now, seg);
                self.after_input(Dir::C2S, Some(seg.ack));
            }
        }
    }

    /// After an input to the endpoint that transmits in `dir`.
    fn after_input(&mut self, dir: Dir, ack: Option<u64>) {
        let high_sent = self.c_high;
        // The input itself (on_segment / on_timer) made any reduction; drain sends only.
        if dir == Dir::C2S && self.c.stats().ecn_reductions > self.ecn_reductions.len() as u64 {
            self.ecn_reductions.push((self.c.bytes_acked() + 1, high_sent));
        }
        self.drain(dir);
        if dir == Dir::C2S {
            let p = CcPoint {
                t: self.now,
                ack,
                high_sent,
                una: self.c.bytes_acked() + 1,
                cwnd: self.c.cwnd(),
                ssthresh: self.c.ssthresh(),
                ca: self.c.ca_state(),
                alpha: self.c.dctcp_alpha(),
            };
            let last = self.cc_log.last().map(|l| (l.cwnd, l.ssthresh, l.ca));
            if last != Some((p.cwnd, p.ssthresh, p.ca)) {
                self.cc_log.push(p);
            }
        }
    }

    /// Sends everything the endpoint has; the Server closes when the Client's FIN arrives.
    fn drain(&mut self, dir: Dir) {
        loop {
            loop {
                let conn = match dir {
                    Dir::C2S => &mut self.c,
                    Dir::S2C => &mut self.s,
                };
                let Some(seg) = conn.poll_transmit(self.now) else { break };
                let (cwnd, ssthresh, ca) = (conn.cwnd(), conn.ssthresh(), conn.ca_state());
                self.emit(dir, seg, cwnd, ssthresh, ca);
            }
            let (conn, events) = match dir {
                Dir::C2S => (&mut self.c, &mut self.c_events),
                Dir::S2C => (&mut self.s, &mut self.s_events),
            };
            let mut closed_now = false;
            while let Some(e) = conn.poll_event() {
                events.push(e);
                if e == AppEvent::PeerClosed {
                    conn.close();
                    closed_now = true;
                }
            }
            if !closed_now {
                break;
            }
        }
    }

    fn fault_for(&mut self, dir: Dir, seg: &Segment) -> Option<Action> {
        let mut hit = None;
        let fin = (dir == Dir::C2S && seg.flags.fin()).then(|| {
            self.fin_tx += 1;
            Target::Fin(self.fin_tx)
        });
        if dir == Dir::C2S && seg.payload_len > 0 {
            self.data_tx += 1;
            let n = self.data_tx;
            hit = self.faults.iter().find(|f| {
                f.target == Target::DataTx(n)
                    || (f.target == Target::Seq(seg.seq) && !seg.retransmit)
                    || Some(f.target) == fin
            });
        } else if let Some(fin) = fin {
            hit = self.faults.iter().find(|f| f.target == fin);
        } else if dir == Dir::C2S && seg.flags.syn() {
            let ecn_setup = seg.flags.ece() || seg.flags.cwr() || seg.flags.ae();
            hit = self.faults.iter().find(|f| f.target == Target::EcnSyn && ecn_setup);
        } else if dir == Dir::S2C && seg.flags.syn() {
            self.synack_tx += 1;
            let n = self.synack_tx;
            hit = self.faults.iter().find(|f| f.target == Target::SynAck(n));
        } else if dir == Dir::S2C {
            self.ack_tx += 1;
            let n = self.ack_tx;
            hit = self.faults.iter().find(|f| f.target == Target::AckTx(n));
        }
        hit.map(|f| f.action)
    }

    fn emit(&mut self, dir: Dir, mut seg: Segment, cwnd: u32, ssthresh: u32, ca: CaState) {
        let sent_ecn = seg.ecn;
        if let Some(rewrite) = self.path[dir as usize] {
            rewrite(&mut seg);
        }
        let fate = match self.fault_for(dir, &seg) {
            None => Fate::Sent,
            Some(Action::Mark) if seg.ecn.is_ect() => {
                seg.ecn = Ecn::Ce;
                Fate::Marked
            }
            Some(Action::Quench) => {
                let id = self.in_flight.len() as u64;
                self.in_flight.push(Some((None, seg)));
                self.heap.push(Reverse((self.now + self.delay[1], id)));
                Fate::Quenched
            }
            Some(_) => Fate::Dropped,
        };
        if dir == Dir::C2S {
            self.c_high = self.c_high.max(seg.seq + seg.payload_len as u64);
        }
        self.log.push(Line { t: self.now, dir, seg, sent_ecn, fate, cwnd, ssthresh, ca });
        if fate == Fate::Dropped {
            return;
        }
        let i = dir as usize;
        let start = self.now.max(self.link_free[i]);
        self.link_free[i] = start + Duration::transmission(seg.wire_len() as u64, self.rate_bps[i]);
        let arrival = self.link_free[i] + self.delay[i];
        let id = self.in_flight.len() as u64;
        self.in_flight.push(Some((Some(dir), seg)));
        self.heap.push(Reverse((arrival, id)));
    }

    pub fn dump(&self) -> String {
        let mut s = String::new();
        for l in &self.log {
            s.push_str(&l.to_string());
            s.push('\n');
        }
        s.push_str(&format!("client {:?}\nserver {:?}\n", self.c.stats(), self.s.stats()));
        s
    }

    /// Client → Server data transmissions.
    pub fn data(&self) -> impl Iterator<Item = &Line> {
        self.log.iter().filter(|l| l.dir == Dir::C2S && l.seg.payload_len > 0)
    }

    /// Server → Client segments.
    pub fn acks(&self) -> impl Iterator<Item = &Line> {
        self.log.iter().filter(|l| l.dir == Dir::S2C)
    }
}

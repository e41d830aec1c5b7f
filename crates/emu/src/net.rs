//! The router's core, sans-IO: endpoints, links and routes, driven by the
//! times the IO loop passes in. `poll(now)` runs every link event due by
//! `now` in time order (ties by link index), handing packets from one link to
//! the next at their virtual arrival time; `next_deadline()` is the IO loop's
//! poll timeout. A fake clock drives it in tests exactly as the real one does.

use std::collections::HashMap;
use std::net::Ipv4Addr;

use ecnlab_aqm::{QueueStats, QueuedPacket};
use ecnlab_wire::{Ecn, Instant};
use serde::Serialize;

use crate::config::{ConfigError, RouterConfig};
use crate::frame::{Frame, Malformed};
use crate::lateness::{Lateness, LatenessReport};
use crate::link::{Fired, Link, LinkCounters};
use ecnlab_sim::impair_link::{ImpairCount, LinkImpairments};

/// Where the core's output goes (TUN writes and captures in the binary; vectors in tests).
pub trait Sink {
    /// `frame` is due at end `end` now (its scheduled time was `due`).
    fn deliver(&mut self, end: usize, due: Instant, frame: &Frame);
    /// `frame` starts transmission on link `link` at `t`.
    fn tap(&mut self, link: usize, t: Instant, frame: &Frame);
}

/// A frame on its way: which route, which hop of it.
#[derive(Debug)]
struct Routed {
    frame: Frame,
    route: usize,
    hop: usize,
}

impl QueuedPacket for Routed {
    fn wire_len(&self) -> u32 {
        self.frame.wire_len()
    }
    fn ecn(&self) -> Ecn {
        self.frame.ecn()
    }
    fn set_ce(&mut self) -> bool {
        self.frame.set_ce()
    }
    fn flow_key(&self) -> u64 {
        self.frame.flow_key()
    }
}

/// Per-endpoint counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EndCounters {
    /// Packets and bytes read from the endpoint's TUN device.
    pub rx_packets: u64,
    pub rx_bytes: u64,
    /// Packets and bytes handed to the endpoint's TUN device.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub malformed_short: u64,
    pub malformed_not_ipv4: u64,
    pub malformed_bad_ihl: u64,
    pub malformed_bad_total_len: u64,
    /// Well-formed packets to an address no route leads to.
    pub unroutable: u64,
}

impl EndCounters {
    fn count_malformed(&mut self, why: Malformed) {
        match why {
            Malformed::Short => self.malformed_short += 1,
            Malformed::NotIpv4 => self.malformed_not_ipv4 += 1,
            Malformed::BadIhl => self.malformed_bad_ihl += 1,
            Malformed::BadTotalLen => self.malformed_bad_total_len += 1,
        }
    }

    pub fn malformed(&self) -> u64 {
        self.malformed_short + self.malformed_not_ipv4 + self.malformed_bad_ihl + self.malformed_bad_total_len
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct EndReport {
    pub name: String,
    #[serde(flatten)]
    pub counters: EndCounters,
}

/// Per-route counters: what the route's source end sent into the router and what reached its
/// destination end (with the packets that arrived CE). Once the router is idle, `packets_in −
/// packets_out` are the route's drops (every queue and loss on its path), which attribute drops
/// and marks to the flows between one pair of hosts (the queues cannot: they see no flows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RouteCounters {
    pub packets_in: u64,
    pub packets_out: u64,
    pub ce_out: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RouteReport {
    pub from: String,
    pub to: String,
    #[serde(flatten)]
    pub counters: RouteCounters,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkReport {
    pub link: String,
    #[serde(flatten)]
    pub queue: QueueStats,
    #[serde(flatten)]
    pub counters: LinkCounters,
    /// Links with impairments only: what each did (the simulator's `impairments` key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impairments: Option<Vec<ImpairCount>>,
}

/// The measurement window on the router's clock, once [`Net::set_window`] named it:
/// queue averages from `start_s` (the traffic's start), sojourn times and link
/// utilisation from `warmup_s` (the end of the warm-up), as in the simulator.
/// Each is `None` until the router's clock has passed it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct WindowReport {
    pub start_s: Option<f64>,
    pub warmup_s: Option<f64>,
}

/// Everything the router reports (one JSON line on the control channel).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Router clock, seconds since it started.
    pub t_s: f64,
    pub window: WindowReport,
    pub links: Vec<LinkReport>,
    pub ends: Vec<EndReport>,
    pub routes: Vec<RouteReport>,
    pub lateness: LatenessReport,
}

pub struct Net {
    links: Vec<Link<Routed>>,
    /// Each link's path impairments, applied as a packet enters it (`None`: none).
    impair: Vec<Option<LinkImpairments>>,
    /// The start of the traffic, from which the impairments' time windows count.
    origin: Instant,
    link_names: Vec<String>,
    end_names: Vec<String>,
    ends: Vec<EndCounters>,
    /// (from end, destination address) → route index.
    route_of: HashMap<(usize, Ipv4Addr), usize>,
    /// Route index → (destination end, links in order).
    routes: Vec<(usize, Vec<usize>)>,
    /// Route index → (source end, counters).
    route_counters: Vec<(usize, RouteCounters)>,
    lateness: Lateness,
    /// Pending window marks: (traffic start, warm-up end), each taken once the clock passes it.
    start_at: Option<Instant>,
    warmup_at: Option<Instant>,
    window: WindowReport,
}

impl Net {
    pub fn new(cfg: &RouterConfig) -> Result<Net, ConfigError> {
        cfg.validate()?;
        let mut links = Vec::with_capacity(cfg.links.len());
        for (i, l) in cfg.links.iter().enumerate() {
            let link = Link::new(cfg.seed, l).map_err(|e| ConfigError {
                field: format!("links[{i}].queue.{}", e.field),
                value: e.value.clone(),
                allowed: e.allowed.clone(),
            })?;
            links.push(link);
        }
        let mut route_of = HashMap::new();
        let mut routes = Vec::new();
        for r in &cfg.routes {
            route_of.insert((r.from, cfg.ends[r.to].addr), routes.len());
            routes.push((r.to, r.links.clone()));
        }
        let route_counters = cfg.routes.iter().map(|r| (r.from, RouteCounters::default())).collect();
        let impair = (cfg.links.iter())
            .map(|l| {
                let rules: Vec<_> = l.impairments.iter().map(|m| m.rule()).collect();
                (!rules.is_empty()).then(|| LinkImpairments::new(cfg.seed, l.index, rules))
            })
            .collect();
        Ok(Net {
            links,
            impair,
            origin: Instant::ZERO,
            link_names: cfg.links.iter().map(|l| l.name.clone()).collect(),
            end_names: cfg.ends.iter().map(|e| e.name.clone()).collect(),
            ends: vec![EndCounters::default(); cfg.ends.len()],
            route_of,
            routes,
            route_counters,
            lateness: Lateness::default(),
            start_at: None,
            warmup_at: None,
            window: WindowReport::default(),
        })
    }

    /// The traffic starts at `start` and its warm-up ends at `warmup` (router
    /// clock): from `start` the queues' time averages restart, at `warmup`
    /// sojourn recording restarts and each link notes its bytes, so that the
    /// report covers the simulator's windows (crates/sim: averages over the
    /// run, which starts with its traffic; sojourn and utilisation after the
    /// warm-up), not the router's idle time before the traffic. Each mark is
    /// taken in time order with the link events; a time already past is taken
    /// at the next `poll`.
    pub fn set_window(&mut self, start: Instant, warmup: Instant) {
        self.origin = start;
        self.start_at = Some(start);
        self.warmup_at = Some(warmup.max(start));
    }

    /// Bytes read from end `end`'s device at `now`: checked, routed, enqueued
    /// on the first link of the route (or counted and dropped).
    pub fn arrive(&mut self, now: Instant, end: usize, bytes: Vec<u8>, sink: &mut dyn Sink) {
        self.poll(now, sink);
        let c = &mut self.ends[end];
        c.rx_packets += 1;
        c.rx_bytes += bytes.len() as u64;
        let frame = match Frame::parse(bytes) {
            Ok(f) => f,
            Err(why) => return c.count_malformed(why),
        };
        let Some(&route) = self.route_of.get(&(end, Ipv4Addr::from(frame.dst_addr()))) else {
            c.unroutable += 1;
            return;
        };
        self.route_counters[route].1.packets_in += 1;
        self.enter(now, Routed { frame, route, hop: 0 }, sink);
    }

    /// Runs every event due by `now`, in time order (a window mark before the link events at its time).
    pub fn poll(&mut self, now: Instant, sink: &mut dyn Sink) {
        loop {
            let event = self.next_event().filter(|(t, _)| *t <= now);
            let mark = self.next_mark().filter(|t| *t <= now);
            match (mark, event) {
                (Some(m), None) => self.take_mark(m),
                (Some(m), Some((t, _))) if m <= t => self.take_mark(m),
                (_, Some((t, li))) => {
                    let mut tap = |at: Instant, p: &Routed| sink.tap(li, at, &p.frame);
                    let fired = self.links[li].fire(&mut tap);
                    if let Some((_, Fired::Arrived(p))) = fired {
                        self.hand_over(t, now, p, sink);
                    }
                }
                _ => break,
            }
        }
    }

    /// The earliest pending event or window mark, if any (the IO loop sleeps until then).
    pub fn next_deadline(&self) -> Option<Instant> {
        let event = self.next_event().map(|(t, _)| t);
        [event, self.next_mark()].into_iter().flatten().min()
    }

    fn next_mark(&self) -> Option<Instant> {
        self.start_at.or(self.warmup_at)
    }

    /// Takes the window mark due at `t`.
    fn take_mark(&mut self, t: Instant) {
        let secs = Some(t.as_secs_f64());
        if self.start_at.take().is_some() {
            self.links.iter_mut().for_each(|l| l.start_averages(t));
            self.window.start_s = secs;
        } else if self.warmup_at.take().is_some() {
            self.links.iter_mut().for_each(Link::end_warmup);
            self.window.warmup_s = secs;
        }
    }

    fn next_event(&self) -> Option<(Instant, usize)> {
        // Strict `<` keeps the lowest link index on ties: a deterministic order.
        let mut best: Option<(Instant, usize)> = None;
        for (i, l) in self.links.iter().enumerate() {
            if let Some(t) = l.next_event() {
                match best {
                    Some((b, _)) if b <= t => {}
                    _ => best = Some((t, i)),
                }
            }
        }
        best
    }

    /// A packet that crossed a link at virtual time `t`: next link, or its endpoint.
    fn hand_over(&mut self, t: Instant, now: Instant, mut p: Routed, sink: &mut dyn Sink) {
        let (to, path) = &self.routes[p.route];
        p.hop += 1;
        if p.hop < path.len() {
            return self.enter(t, p, sink);
        }
        let c = &mut self.ends[*to];
        c.tx_packets += 1;
        c.tx_bytes += u64::from(p.frame.wire_len());
        let rc = &mut self.route_counters[p.route].1;
        rc.packets_out += 1;
        rc.ce_out += u64::from(p.frame.ecn() == Ecn::Ce);
        self.lateness.record(now.saturating_since(t).as_nanos());
        sink.deliver(*to, t, &p.frame);
    }

    /// `p` enters its route's next link at `t`: the link's impairments (a dropped packet
    /// is counted by them), then the link.
    fn enter(&mut self, t: Instant, mut p: Routed, sink: &mut dyn Sink) {
        let li = self.routes[p.route].1[p.hop];
        if let Some(m) = self.impair[li].as_mut() {
            let since = Instant::from_nanos(t.saturating_since(self.origin).as_nanos());
            if !m.apply(since, None, &mut p.frame) {
                return;
            }
        }
        let mut tap = |at: Instant, q: &Routed| sink.tap(li, at, &q.frame);
        // A refused packet is counted by the queue (and early_drops_ect by the link).
        let _ = self.links[li].enter(t, p, &mut tap);
    }

    pub fn report(&self, now: Instant) -> Report {
        Report {
            t_s: now.as_secs_f64(),
            window: self.window,
            links: (self.links.iter().zip(&self.link_names).zip(&self.impair))
                .map(|((l, name), m)| LinkReport {
                    link: name.clone(),
                    queue: l.queue_stats(now),
                    counters: l.counters(),
                    impairments: m.as_ref().map(LinkImpairments::counts),
                })
                .collect(),
            ends: (self.ends.iter().zip(&self.end_names))
                .map(|(c, name)| EndReport { name: name.clone(), counters: c.clone() })
                .collect(),
            routes: (self.route_counters.iter().zip(&self.routes))
                .map(|((from, counters), (to, _))| RouteReport {
                    from: self.end_names[*from].clone(),
                    to: self.end_names[*to].clone(),
                    counters: *counters,
                })
                .collect(),
            lateness: self.lateness.report(),
        }
    }
}

#[cfg(test)]
mod tests;

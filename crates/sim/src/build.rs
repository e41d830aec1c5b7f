//! From a `SimSpec` to a ready `Simulation`: check every field first (nothing is
//! built or written for a spec that fails), then build links, flows, faults,
//! pcap taps and the first events.

use crate::ahead::Ahead;
use crate::app::FlowState;
use crate::conn::ConnTable;
use crate::error::Error;
use crate::fault::{Fault, Target};
use crate::link::{Link, LinkCounters};
use crate::net::{Topology, NO_ROUTE};
use crate::pcap::PcapTap;
use crate::rng::{stream, Stream};
use crate::sched::{Event, Scheduler};
use crate::series::{sampled_flows, sampled_links, FlowSamples, QueueSamples};
use crate::sim::Simulation;
use crate::spec::{AppSpec, FlowSpec, Hosts, NodeKind, SimSpec};
use ecnlab_aqm::AqmQueue;
use ecnlab_wire::{Duration, Instant};
use std::collections::{HashMap, HashSet};

/// Validates everything that can be checked without building.
pub fn check(spec: &SimSpec) -> Result<(), Error> {
    if spec.duration_ns == 0 {
        return Err(Error::spec("duration_ns", 0, "must be > 0"));
    }
    let topo = Topology::build(spec)?;
    check_links(spec)?;
    let ids = check_flows(spec, &topo)?;
    check_faults(spec, &topo, &ids)?;
    check_impairments(spec, &topo, &ids)?;
    if spec.stop_when_complete {
        if let Some(i) = spec.flows.iter().position(|f| !f.app.is_finite()) {
            return Err(Error::spec(
                format!("flows[{i}].app"),
                &spec.flows[i].id,
                "stop_when_complete needs every flow to have a finite amount of work",
            ));
        }
    }
    let is_router = |name: &str| topo.index.get(name).is_some_and(|&n| topo.kinds[n as usize] == NodeKind::Router);
    crate::series::sampled_links(spec, is_router)?;
    crate::series::sampled_flows(spec)?;
    if spec.links.iter().any(|l| l.pcap) && spec.pcap_dir.is_none() {
        return Err(Error::spec("pcap_dir", "null", "required when a link has pcap = true"));
    }
    Ok(())
}

fn check_links(spec: &SimSpec) -> Result<(), Error> {
    for (i, l) in spec.links.iter().enumerate() {
        if l.rate_bps == 0 {
            return Err(Error::spec(format!("links[{i}].rate_bps"), 0, "must be > 0"));
        }
        if !(0.0..=1.0).contains(&l.loss) {
            return Err(Error::spec(format!("links[{i}].loss"), l.loss, "must be in [0, 1]"));
        }
        if !(0.0..=1.0).contains(&l.corrupt) {
            return Err(Error::spec(format!("links[{i}].corrupt"), l.corrupt, "must be in [0, 1]"));
        }
        l.queue.validate().map_err(|source| Error::Queue { field: format!("links[{i}].queue"), source })?;
    }
    Ok(())
}

/// Each entry once (hosts, pairs, routes per pair, TCP, application), then the ids of
/// all the flows they make, which must be unique; returns those ids.
fn check_flows(spec: &SimSpec, topo: &Topology) -> Result<HashSet<String>, Error> {
    let mut ids = HashSet::with_capacity(spec.flow_count());
    for (i, f) in spec.flows.iter().enumerate() {
        check_shape(f, i)?;
        let src = hosts(topo, &f.src, i, "src")?;
        let dst = hosts(topo, &f.dst, i, "dst")?;
        for k in 0..f.pairs() {
            let (a, b) = (src[if src.len() == 1 { 0 } else { k }], dst[if dst.len() == 1 { 0 } else { k }]);
            check_pair(topo, a, b, i)?;
        }
        f.tcp.validate().map_err(|source| Error::Tcp { field: format!("flows[{i}].tcp"), source })?;
        check_app(&f.app, i, spec.duration_ns)?;
        for k in 0..f.len() {
            let id = f.flow_id(k);
            if ids.contains(&id) {
                return Err(Error::spec(format!("flows[{i}].id"), id, "flow ids must be unique"));
            }
            ids.insert(id);
        }
    }
    Ok(ids)
}

/// A group's host lists pair up (equal lengths, or one host on a side) and it makes flows.
fn check_shape(f: &FlowSpec, i: usize) -> Result<(), Error> {
    let (ns, nd) = (f.src.names().len(), f.dst.names().len());
    if ns == 0 || nd == 0 {
        let side = if ns == 0 { "src" } else { "dst" };
        return Err(Error::spec(format!("flows[{i}].{side}"), "[]", "must name at least one host"));
    }
    if ns != nd && ns != 1 && nd != 1 {
        return Err(Error::spec(
            format!("flows[{i}].dst"),
            format!("{nd} hosts"),
            format!("must name as many hosts as src ({ns}) or one"),
        ));
    }
    if f.count == 0 {
        return Err(Error::spec(format!("flows[{i}].count"), 0, "must be >= 1"));
    }
    Ok(())
}

/// The node of each host name in `list` (`flows[i].src`, or `flows[i].src[j]` in a list).
fn hosts(topo: &Topology, list: &Hosts, i: usize, side: &str) -> Result<Vec<u32>, Error> {
    let many = matches!(list, Hosts::Many(_));
    let field = |j: usize| if many { format!("flows[{i}].{side}[{j}]") } else { format!("flows[{i}].{side}") };
    list.names().iter().enumerate().map(|(j, name)| host(topo, name, || field(j))).collect()
}

/// A pair's two hosts differ and have routes both ways.
fn check_pair(topo: &Topology, a: u32, b: u32, i: usize) -> Result<(), Error> {
    if a == b {
        return Err(Error::spec(format!("flows[{i}].dst"), &topo.names[b as usize], "must differ from src"));
    }
    for (x, y) in [(a, b), (b, a)] {
        if topo.next_link(x, y, 0) == NO_ROUTE {
            let (nx, ny) = (&topo.names[x as usize], &topo.names[y as usize]);
            return Err(Error::spec(format!("flows[{i}]"), format!("{nx} -> {ny}"), "no route between the hosts"));
        }
    }
    Ok(())
}

fn host(topo: &Topology, name: &str, field: impl Fn() -> String) -> Result<u32, Error> {
    let n = topo.host(name, &field)?;
    if topo.kinds[n as usize] != NodeKind::Host {
        return Err(Error::spec(field(), name, "must be a host, not a router"));
    }
    Ok(n)
}

fn check_app(app: &AppSpec, i: usize, duration_ns: u64) -> Result<(), Error> {
    let positive = |name: &str, v: u64| {
        if v == 0 {
            Err(Error::spec(format!("flows[{i}].app.{name}"), 0, "must be > 0"))
        } else {
            Ok(())
        }
    };
    match *app {
        AppSpec::Bulk { bytes } => bytes.map_or(Ok(()), |b| positive("bytes", b)),
        AppSpec::Serial { files, file_bytes, .. } => {
            positive("files", files as u64)?;
            positive("file_bytes", file_bytes)
        }
        AppSpec::RequestResponse { request_bytes, response_bytes, count, .. } => {
            positive("request_bytes", request_bytes)?;
            positive("response_bytes", response_bytes)?;
            count.map_or(Ok(()), |k| positive("count", k as u64))
        }
        AppSpec::Telnet { interarrival, mean_interarrival_ns, write_bytes } => {
            positive("write_bytes", write_bytes as u64)?;
            match interarrival {
                crate::telnet::Interarrival::Exponential => positive("mean_interarrival_ns", mean_interarrival_ns),
                crate::telnet::Interarrival::Tcplib => Ok(()),
            }
        }
        AppSpec::FtpArrivals { min_bytes, max_bytes, mean_gap_ns } => {
            positive("min_bytes", min_bytes)?;
            positive("mean_gap_ns", mean_gap_ns)?;
            if max_bytes < min_bytes {
                return Err(Error::spec(format!("flows[{i}].app.max_bytes"), max_bytes, "must be >= min_bytes"));
            }
            Ok(())
        }
        AppSpec::Web(w) => {
            crate::web::check(&w).map_err(|(field, v, rule)| Error::spec(format!("flows[{i}].app.{field}"), v, rule))
        }
        AppSpec::Incast(p) => crate::incast::check(&p, duration_ns)
            .map_err(|(field, v, rule)| Error::spec(format!("flows[{i}].app.{field}"), v, rule)),
    }
}

fn check_faults(spec: &SimSpec, topo: &Topology, ids: &HashSet<String>) -> Result<(), Error> {
    for (i, f) in spec.faults.iter().enumerate() {
        if !topo.link_index.contains_key(&f.link) {
            return Err(Error::spec(format!("faults[{i}].link"), &f.link, "no such link"));
        }
        if !ids.contains(&f.flow) {
            return Err(Error::spec(format!("faults[{i}].flow"), &f.flow, "no such flow"));
        }
        match (f.nth, f.seq) {
            (Some(0), None) => return Err(Error::spec(format!("faults[{i}].nth"), 0, "must be >= 1")),
            (Some(_), None) | (None, Some(_)) => {}
            _ => return Err(Error::spec(format!("faults[{i}]"), "nth/seq", "give exactly one of nth and seq")),
        }
    }
    Ok(())
}

fn check_impairments(spec: &SimSpec, topo: &Topology, ids: &HashSet<String>) -> Result<(), Error> {
    for (i, m) in spec.impairments.iter().enumerate() {
        if !topo.link_index.contains_key(&m.link) {
            return Err(Error::spec(format!("impairments[{i}].link"), &m.link, "no such link"));
        }
        if !(m.fraction > 0.0 && m.fraction <= 1.0) {
            return Err(Error::spec(format!("impairments[{i}].fraction"), m.fraction, "must be in (0, 1]"));
        }
        if let Some(u) = m.until_ns.filter(|&u| u <= m.from_ns) {
            return Err(Error::spec(format!("impairments[{i}].until_ns"), u, "must be after from_ns"));
        }
        if let Some((k, f)) = m.flows.iter().enumerate().find(|(_, f)| !ids.contains(*f)) {
            return Err(Error::spec(format!("impairments[{i}].flows[{k}]"), f, "no such flow"));
        }
    }
    Ok(())
}

/// Builds a checked spec.
pub fn build(spec: SimSpec) -> Result<Simulation, Error> {
    let topo = Topology::build(&spec)?;
    let mut links = build_links(&spec, &topo)?;
    let flow_ids = spec.flow_ids();
    build_impairments(&spec, &topo, &flow_ids, &mut links);
    let flows = build_flows(&spec, &topo)?;
    let faults = build_faults(&spec, &topo, &flow_ids);
    let (taps, tap_of) = open_taps(&spec)?;
    for (link, tap) in links.iter_mut().zip(&tap_of) {
        link.watched |= tap.is_some();
    }
    let is_router = |name: &str| topo.index.get(name).is_some_and(|&n| topo.kinds[n as usize] == NodeKind::Router);
    let sampled: Vec<_> =
        sampled_links(&spec, is_router)?.into_iter().map(|li| (li, QueueSamples::default())).collect();
    let sampled_flows: Vec<_> = sampled_flows(&spec)?.into_iter().map(|fi| (fi, FlowSamples::default())).collect();
    let mut sched = Scheduler::new();
    for (i, f) in flows.iter().enumerate() {
        sched.schedule(f.start, Event::AppStart { flow: i as u32 });
    }
    if !sampled.is_empty() || !sampled_flows.is_empty() {
        sched.schedule(Instant::ZERO, Event::Sample);
    }
    if spec.warmup_ns > 0 {
        sched.schedule(Instant(spec.warmup_ns), Event::WarmupEnd);
    }
    let flows_len = flows.len();
    let mut conns = ConnTable::default();
    conns.reserve(flows_len);
    Ok(Simulation {
        end: Instant(spec.duration_ns),
        warmup: Instant(spec.warmup_ns),
        spec,
        sched,
        topo,
        links,
        pkts: Default::default(),
        conns,
        flows,
        flow_ids,
        faults,
        taps,
        tap_of,
        sampled,
        sampled_flows,
        forwarded: 0,
        census: Default::default(),
        flow_census: vec![Default::default(); flows_len],
        pending_flows: flows_len,
        ahead: Ahead::worth_it(flows_len).then(Ahead::default),
        drop_buf: Vec::new(),
        flows_at_warmup: Vec::new(),
    })
}

fn build_links(spec: &SimSpec, topo: &Topology) -> Result<Vec<Link>, Error> {
    let mut links = Vec::with_capacity(spec.links.len());
    for (i, l) in spec.links.iter().enumerate() {
        let queue =
            AqmQueue::new(&l.queue).map_err(|source| Error::Queue { field: format!("links[{i}].queue"), source })?;
        // Sojourn histograms for router queues (host queues rarely matter), from the end of the warm-up.
        let sojourn = topo.kinds[topo.ends[i].0 as usize] == NodeKind::Router;
        let mut link = Link {
            rate_bps: l.rate_bps,
            delay: Duration(l.delay_ns),
            loss: l.loss,
            corrupt: l.corrupt,
            queue,
            queue_rng: stream(spec.seed, Stream::Queue, i as u32),
            loss_rng: stream(spec.seed, Stream::LinkLoss, i as u32),
            tx_end: None,
            tx_end_pushed: false,
            pipe: Default::default(),
            counters: LinkCounters::default(),
            tail: l.tail_threshold_bytes.map(|b| crate::tail::QueueTail::new(b, Instant(spec.warmup_ns))),
            sojourn,
            flow_sojourn: None,
            watched: false,
            at_warmup: None,
            impair: None,
        };
        if sojourn && spec.warmup_ns == 0 {
            link.record_sojourn();
        }
        links.push(link);
    }
    Ok(links)
}

/// Every flow of every entry, in flow-index order, each with its own random stream.
fn build_flows(spec: &SimSpec, topo: &Topology) -> Result<Vec<FlowState>, Error> {
    let mut flows = Vec::with_capacity(spec.flow_count());
    for (e, f) in spec.flows.iter().enumerate() {
        // Once per entry: its TCP configuration (shared) and an incast entry's query times.
        let tcp = std::sync::Arc::new(f.tcp.clone());
        let queries = match f.app {
            AppSpec::Incast(p) => {
                let mut rng = stream(spec.seed, Stream::Queries, e as u32);
                let times = crate::incast::query_times(&p, Instant(f.start_ns), Instant(spec.duration_ns), &mut rng);
                Some((p, times))
            }
            _ => None,
        };
        for k in 0..f.len() {
            let (a, b) = f.flow_hosts(k);
            let src = topo.host(a, || format!("flows[{e}].src"))?;
            let dst = topo.host(b, || format!("flows[{e}].dst"))?;
            let rng = stream(spec.seed, Stream::App, flows.len() as u32);
            let mut flow = FlowState::new(f, tcp.clone(), src, dst, rng);
            flow.incast = queries.as_ref().map(|(p, times)| crate::incast::IncastFlow::new(*p, times.clone()));
            flows.push(flow);
        }
    }
    Ok(flows)
}

fn build_faults(spec: &SimSpec, topo: &Topology, flow_ids: &[String]) -> Vec<Vec<Fault>> {
    let mut per_link = vec![Vec::new(); spec.links.len()];
    if spec.faults.is_empty() {
        return per_link;
    }
    let index: HashMap<&str, u32> = flow_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();
    for f in &spec.faults {
        let li = topo.link_index[&f.link] as usize;
        let flow = index[f.flow.as_str()];
        let target = match (f.nth, f.seq) {
            (Some(n), _) => Target::Nth(n),
            (None, Some(s)) => Target::Seq(s),
            (None, None) => unreachable!("checked"),
        };
        per_link[li].push(Fault::new(flow, f.action, target));
    }
    per_link
}

/// Each link's impairments, in the spec's order (links without any keep `None`).
fn build_impairments(spec: &SimSpec, topo: &Topology, flow_ids: &[String], links: &mut [Link]) {
    use crate::impair_link::{Impairment, LinkImpairments};
    if spec.impairments.is_empty() {
        return;
    }
    let index: HashMap<&str, u32> = flow_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i as u32)).collect();
    let mut per_link: Vec<Vec<Impairment>> = vec![Vec::new(); links.len()];
    for m in &spec.impairments {
        let flows = (!m.flows.is_empty()).then(|| {
            let mut v: Vec<u32> = m.flows.iter().map(|f| index[f.as_str()]).collect();
            v.sort_unstable();
            v
        });
        let until = m.until_ns.map(Instant);
        let rule = Impairment { action: m.action, fraction: m.fraction, from: Instant(m.from_ns), until, flows };
        per_link[topo.link_index[&m.link] as usize].push(rule);
    }
    for (i, rules) in per_link.into_iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        links[i].impair = Some(Box::new(LinkImpairments::new(spec.seed, i as u32, rules)));
    }
}

/// The capture files and, per link, the index of the one it writes to (links with the
/// same `pcap_file` share one).
fn open_taps(spec: &SimSpec) -> Result<(Vec<PcapTap>, Vec<Option<u32>>), Error> {
    let mut taps = Vec::new();
    let mut by_file: HashMap<&str, u32> = HashMap::new();
    let mut tap_of = Vec::with_capacity(spec.links.len());
    for l in &spec.links {
        let (Some(dir), true) = (&spec.pcap_dir, l.pcap) else {
            tap_of.push(None);
            continue;
        };
        let file = l.pcap_file.as_deref().unwrap_or(&l.name);
        let i = match by_file.get(file) {
            Some(&i) => i,
            None => {
                taps.push(PcapTap::create(std::path::Path::new(dir), file)?);
                by_file.insert(file, taps.len() as u32 - 1);
                taps.len() as u32 - 1
            }
        };
        tap_of.push(Some(i));
    }
    Ok((taps, tap_of))
}

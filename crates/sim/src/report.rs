//! End of run: turn counters into the result the front writes to summary.json.
//!
//! Goodput of a flow that finished is its payload over (completion − start);
//! of one still running at the end, the payload delivered after
//! max(start, warm-up) over that interval. Link utilisation counts the bytes
//! whose transmission started after the warm-up.
//!
//! One warm-up rule for every counter: each flow's and queue's counter is
//! reported over the whole run (`drops`) and after the warm-up
//! (`drops_after_warmup`: the whole-run value less its value when the warm-up
//! ended, `Simulation::on_warmup_end`); the sojourn histograms hold only the
//! packets that left after the warm-up.

use crate::app::{FlowCensus, FlowState};
use crate::error::Error;
use crate::incast::{IncastFlow, QueryOut};
use crate::output::*;
use crate::sim::Simulation;
use ecnlab_wire::Instant;

impl Simulation {
    pub(crate) fn finish(mut self) -> Result<RunOutput, Error> {
        let end = self.end;
        self.count_unpushed_tx_ends();
        if self.spec.stop_when_complete && self.pending_flows > 0 {
            return Err(self.incomplete_error());
        }
        for c in self.conns.iter_live() {
            self.flows[c.flow as usize].add_connection_stats(c);
        }
        let in_flight = self.in_flight_per_flow();
        let no_base = (ecnlab_tcp::TcpStats::default(), FlowCensus::default());
        for tap in &mut self.taps {
            tap.finish()?;
        }
        let flows: Vec<FlowOut> = self
            .flow_ids
            .iter()
            .zip(self.flows.iter().zip(&self.flow_census))
            .zip(in_flight)
            .enumerate()
            .map(|(i, ((id, (f, c)), n))| {
                let base = self.flows_at_warmup.get(i).unwrap_or(&no_base);
                flow_out(id, f, c, n, self.warmup, end, &self.topo.names, base)
            })
            .collect();
        let queues = self.spec.links.iter().zip(&self.links).map(|(s, l)| queue_out(&s.name, l, end)).collect();
        let sojourn_histograms = self.sojourn_histograms();
        let links = self.spec.links.iter().zip(&self.links).map(|(s, l)| link_out(s, l, self.warmup, end)).collect();
        let queue = std::mem::take(&mut self.sampled)
            .into_iter()
            .map(|(li, s)| s.finish(self.spec.links[li as usize].name.clone()))
            .collect();
        let flow = std::mem::take(&mut self.sampled_flows)
            .into_iter()
            .map(|(fi, s)| s.finish(self.flow_ids[fi as usize].clone()))
            .collect();
        Ok(RunOutput {
            sim: SimOut {
                sim_time_s: end.as_secs_f64(),
                events: self.sched.processed(),
                packets_forwarded: self.forwarded,
            },
            groups: crate::groups::summarize(&self.spec.flows, &flows),
            queries: self.queries(),
            flows,
            queues,
            links,
            timeseries: TimeSeriesOut { queue, flow },
            sojourn_histograms,
        })
    }
}

impl Simulation {
    /// Packets of each flow still queued or on a wire (counted where they are).
    fn in_flight_per_flow(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for l in &self.links {
            let queued = l.queue.iter().map(|q| q.idx);
            for idx in queued.chain(l.pipe.iter().map(|f| f.idx)) {
                n[self.pkts.get(idx).flow as usize] += 1;
            }
        }
        n
    }

    /// The router queues' sojourn histograms, link by link: the whole queue, its classes, its flows.
    fn sojourn_histograms(&self) -> Vec<SojournOut> {
        let mut out = Vec::new();
        for (s, l) in self.spec.links.iter().zip(&self.links) {
            for b in l.queue.sojourn_histograms() {
                let (value_ns, count) = (b.value_ns, b.count);
                out.push(SojournOut { link: s.name.clone(), class: b.class, flow: None, value_ns, count });
            }
            for (&fi, h) in l.flow_sojourn.iter().flatten() {
                let b = h.buckets();
                let flow = Some(self.flow_ids[fi as usize].clone());
                out.push(SojournOut { link: s.name.clone(), class: None, flow, value_ns: b.value_ns, count: b.count });
            }
        }
        out
    }

    /// Each incast entry's queries (`incast.rs`), entries in order.
    fn queries(&self) -> Vec<QueryOut> {
        let mut out = Vec::new();
        let mut first = 0;
        for (e, entry) in self.spec.flows.iter().enumerate() {
            let flows = &self.flows[first..first + entry.len()];
            first += entry.len();
            let states: Vec<&IncastFlow> = flows.iter().filter_map(|f| f.incast.as_ref()).collect();
            if !states.is_empty() {
                out.push(crate::incast::summarize(&entry.id, e, &states, self.warmup));
            }
        }
        out
    }

    fn incomplete_error(&self) -> Error {
        let (i, f) = self.flows.iter().enumerate().find(|(_, f)| f.completion.is_none()).expect("a flow is pending");
        Error::Incomplete { flow: self.flow_ids[i].clone(), time_s: self.end.as_secs_f64(), delivered: f.delivered }
    }
}

fn goodput_bps(f: &FlowState, warmup: Instant, end: Instant) -> f64 {
    if let Some(done) = f.completion {
        let secs = (done - f.start).as_secs_f64();
        return if secs > 0.0 { f.delivered as f64 * 8.0 / secs } else { 0.0 };
    }
    let from = f.start.max(warmup);
    let base = if warmup > f.start { f.delivered_at_warmup } else { 0 };
    let secs = (end - from).as_secs_f64();
    if secs > 0.0 {
        (f.delivered - base) as f64 * 8.0 / secs
    } else {
        0.0
    }
}

#[allow(clippy::too_many_arguments)]
fn flow_out(
    id: &str,
    f: &FlowState,
    census: &FlowCensus,
    in_flight: u64,
    warmup: Instant,
    end: Instant,
    names: &[String],
    (t0, c0): &(ecnlab_tcp::TcpStats, FlowCensus),
) -> FlowOut {
    let t = &f.totals;
    let is_rr = f.kind_name() == "request_response";
    let is_arrivals = f.kind_name() == "ftp_arrivals";
    FlowOut {
        id: id.to_string(),
        kind: f.kind_name(),
        src: names[f.src as usize].clone(),
        dst: names[f.dst as usize].clone(),
        ecn: f.tcp.ecn.enabled(),
        ecn_negotiated: f.ecn_negotiated,
        cc: f.tcp.cc.name(),
        recovery: f.tcp.recovery.name(),
        start_s: f.start.as_secs_f64(),
        connections: f.conns_started,
        connect_time_s: f.connect_time.map(|d| d.as_secs_f64()),
        syn_retransmits: t.syn_retransmits,
        bytes_delivered: f.delivered,
        goodput_bps: goodput_bps(f, warmup, end),
        data_packets_sent: t.data_packets_sent,
        retransmits: t.retransmits,
        fast_retransmits: t.fast_retransmits,
        timeouts: t.timeouts,
        ecn_reductions: t.ecn_reductions,
        ce_received: t.ce_received,
        ece_sent: t.ece_sent,
        cwr_sent: t.cwr_sent,
        acks_sent: t.acks_sent,
        quenches_received: t.quenches_received,
        quench_reductions: t.quench_reductions,
        completion_time_s: f.completion.map(|c| c.as_secs_f64()),
        transfer_times_s: f.transfer_times.iter().map(|d| d.as_secs_f64()).collect(),
        transactions: is_rr.then_some(f.transactions),
        data_packets_received: f.dst_totals.data_packets_received + census.corrupted_data_at_host,
        corrupted_received: census.corrupted_data_at_host,
        dst_acks_sent: f.dst_totals.acks_sent,
        pkts_sent: census.sent,
        pkts_delivered: census.delivered + census.stale,
        pkts_dropped: census.dropped,
        pkts_corrupted: census.corrupted,
        pkts_in_flight: in_flight,
        bytes_delivered_after_warmup: f.delivered - f.delivered_at_warmup,
        data_packets_sent_after_warmup: t.data_packets_sent - t0.data_packets_sent,
        retransmits_after_warmup: t.retransmits - t0.retransmits,
        fast_retransmits_after_warmup: t.fast_retransmits - t0.fast_retransmits,
        timeouts_after_warmup: t.timeouts - t0.timeouts,
        ecn_reductions_after_warmup: t.ecn_reductions - t0.ecn_reductions,
        ce_received_after_warmup: t.ce_received - t0.ce_received,
        pkts_dropped_after_warmup: census.dropped - c0.dropped,
        dctcp_alpha: f.dctcp_alpha,
        ace_delta_ce: (f.tcp.ecn == ecnlab_tcp::EcnMode::AccEcn).then_some(t.ace_delta_ce),
        accecn_ceb: (f.tcp.ecn == ecnlab_tcp::EcnMode::AccEcn).then_some(t.accecn_ceb),
        telnet_writes: f.telnet.as_ref().map(|t| t.writes),
        telnet_delivered: f.telnet.as_ref().map(|t| t.delays.count),
        telnet_delay_mean_s: f.telnet.as_ref().and_then(|t| t.delays.mean_s()),
        telnet_delay_max_s: f.telnet.as_ref().and_then(|t| t.delays.max_s()),
        telnet_frac_over_100ms: f.telnet.as_ref().and_then(|t| t.delays.frac_over_100ms()),
        telnet_delay_hist: f.telnet.as_ref().map(|t| t.delays.hist.to_vec()),
        transfers_started: is_arrivals.then_some(f.transfers.list.len() as u64),
        transfers_completed: is_arrivals.then(|| f.transfers.completed()),
        transfer_goodput_mean_bps: if is_arrivals { f.transfers.mean_goodput_bps() } else { None },
        web: f.web.as_ref().map(crate::web::Web::summary),
        responses: f.incast.as_ref().map(|q| q.done.len() as u64),
    }
}

fn queue_out(name: &str, l: &crate::link::Link, end: Instant) -> QueueOut {
    use crate::packet::PacketKind as K;
    let s = l.queue.stats(end);
    let zero = Default::default();
    let (s0, c0) = l.at_warmup.as_deref().unwrap_or(&zero);
    let by = |k: K| l.counters.drops_by_kind[k as usize];
    let after = |k: K| by(k) - c0.drops_by_kind[k as usize];
    QueueOut {
        link: name.to_string(),
        arrivals: s.arrivals,
        enqueued: s.enqueued,
        dequeued: s.dequeued,
        marks: s.marks,
        quenches: s.quenches,
        early_drops: s.early_drops,
        early_drops_ect: l.counters.early_drops_ect,
        forced_drops: s.forced_drops,
        overflow_drops: s.overflow_drops,
        drops_syn: by(K::Syn),
        drops_synack: by(K::SynAck),
        drops_data: by(K::Data),
        drops_retransmit: by(K::Retransmit),
        drops_fin: by(K::Fin),
        drops_ack: by(K::Ack),
        drops_quench: by(K::Quench),
        avg_qlen_pkts: s.avg_qlen_pkts,
        max_qlen_pkts: s.max_qlen_pkts,
        avg_qlen_bytes: s.avg_qlen_bytes,
        dequeue_drops: s.dequeue_drops,
        dequeue_marks: s.dequeue_marks,
        step_marks: s.step_marks,
        sojourn_p50_ms: s.sojourn.as_ref().map(|x| x.p50_ms),
        sojourn_p90_ms: s.sojourn.as_ref().map(|x| x.p90_ms),
        sojourn_p99_ms: s.sojourn.as_ref().map(|x| x.p99_ms),
        sojourn_p999_ms: s.sojourn.as_ref().map(|x| x.p999_ms),
        sojourn_max_ms: s.sojourn.as_ref().map(|x| x.max_ms),
        sojourn_mean_ms: s.sojourn.as_ref().map(|x| x.mean_ms),
        arrivals_after_warmup: s.arrivals - s0.arrivals,
        enqueued_after_warmup: s.enqueued - s0.enqueued,
        dequeued_after_warmup: s.dequeued - s0.dequeued,
        marks_after_warmup: s.marks - s0.marks,
        quenches_after_warmup: s.quenches - s0.quenches,
        early_drops_after_warmup: s.early_drops - s0.early_drops,
        early_drops_ect_after_warmup: l.counters.early_drops_ect - c0.early_drops_ect,
        forced_drops_after_warmup: s.forced_drops - s0.forced_drops,
        overflow_drops_after_warmup: s.overflow_drops - s0.overflow_drops,
        drops_syn_after_warmup: after(K::Syn),
        drops_synack_after_warmup: after(K::SynAck),
        drops_data_after_warmup: after(K::Data),
        drops_retransmit_after_warmup: after(K::Retransmit),
        drops_fin_after_warmup: after(K::Fin),
        drops_ack_after_warmup: after(K::Ack),
        drops_quench_after_warmup: after(K::Quench),
        dequeue_drops_after_warmup: s.dequeue_drops - s0.dequeue_drops,
        dequeue_marks_after_warmup: s.dequeue_marks - s0.dequeue_marks,
        step_marks_after_warmup: s.step_marks - s0.step_marks,
        classes: s.classes.iter().enumerate().map(|(i, k)| class_out(k, s0.classes.get(i))).collect(),
    }
}

fn class_out(k: &ecnlab_aqm::ClassStats, at_warmup: Option<&ecnlab_aqm::ClassStats>) -> ClassOut {
    let k0 = at_warmup.cloned().unwrap_or_default();
    ClassOut {
        dequeued_after_warmup: k.dequeued - k0.dequeued,
        marks_after_warmup: k.marks - k0.marks,
        step_marks_after_warmup: k.step_marks - k0.step_marks,
        drops_after_warmup: k.drops - k0.drops,
        whole_run: k.clone(),
    }
}

fn link_out(s: &crate::spec::LinkSpec, l: &crate::link::Link, warmup: Instant, end: Instant) -> LinkOut {
    let c = &l.counters;
    let secs = (end - warmup).as_secs_f64();
    let bits = (c.bytes - c.bytes_at_warmup) as f64 * 8.0;
    LinkOut {
        name: s.name.clone(),
        from: s.from.clone(),
        to: s.to.clone(),
        rate_bps: s.rate_bps,
        delay_s: s.delay_ns as f64 / 1e9,
        packets: c.packets,
        bytes: c.bytes,
        utilization: if secs > 0.0 { (bits / (l.rate_bps as f64 * secs)).min(1.0) } else { 0.0 },
        random_losses: c.random_losses,
        fault_drops: c.fault_drops,
        fault_marks: c.fault_marks,
        queue_tail_threshold_bytes: l.tail.map(|t| t.threshold_bytes),
        queue_frac_above: l.tail.map(|t| t.fraction(end)),
        impairments: l.impair.as_ref().map(|m| m.counts()),
    }
}

//! Traffic applications: what each end of a flow's connections does when TCP
//! reports progress. Data always flows src → dst; the "source" endpoint is the
//! one at the flow's src host.
//!
//! - Bulk: the source sends `bytes` (or for ever) and closes.
//! - Serial: `files` transfers, one after another, each on a new connection;
//!   the next starts `gap` after the previous file is fully received.
//! - RequestResponse (netperf TCP_CRR): the client (dst) connects and sends
//!   `request_bytes`; the server answers with `response_bytes` and closes; the
//!   client counts a transaction when the whole response has arrived, closes,
//!   and starts the next one `think` later.
//! - Incast: one connection; the aggregator (dst) writes a request at each of
//!   the entry's query times, the responder (src) answers each whole request
//!   (`incast.rs`).

use crate::arrivals::Transfers;
use crate::conn::{end_index, Live};
use crate::incast::IncastFlow;
use crate::rng::SimRng;
use crate::sched::End;
use crate::spec::{AppSpec, FlowSpec, Initiator};
use crate::telnet::Telnet;
use crate::web::Web;
use ecnlab_tcp::{AppEvent, TcpConfig, TcpStats};
use ecnlab_wire::{Duration, Instant};
use rand::Rng;
use std::sync::Arc;

/// Where a flow's packets (both directions, every connection) went: every
/// packet sent is delivered, stale (for a connection already freed),
/// dropped, corrupted, or still in the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCensus {
    pub sent: u64,
    pub delivered: u64,
    pub stale: u64,
    /// Dropped by a queue, a scripted fault or random loss.
    pub dropped: u64,
    /// Arrived damaged and discarded.
    pub corrupted: u64,
    /// Of those, data packets that reached their destination host damaged.
    pub corrupted_data_at_host: u64,
}

pub struct FlowState {
    pub src: u32,
    pub dst: u32,
    pub initiator: Initiator,
    pub app: AppSpec,
    /// The entry's TCP configuration, shared by its flows and their connections.
    pub tcp: Arc<TcpConfig>,
    pub start: Instant,
    pub conns_started: u32,
    pub files_done: u32,
    pub transactions: u64,
    /// Payload bytes delivered in order to the dst application.
    pub delivered: u64,
    pub delivered_at_warmup: u64,
    /// When the flow's last byte (or last transaction) arrived.
    pub completion: Option<Instant>,
    /// When the flow's latest connection was opened (the client's first SYN).
    pub conn_opened: Instant,
    /// When the flow's first connection was opened, and the time from then to the first
    /// connection established at the client (the SYN-ACK received, its ACK sent).
    pub first_opened: Option<Instant>,
    pub connect_time: Option<Duration>,
    /// Serial flows: each finished file's time from its connection's opening
    /// to its last byte at the client (handshake included).
    pub transfer_times: Vec<Duration>,
    /// Both endpoints' TCP counters summed over all of the flow's connections.
    pub totals: TcpStats,
    pub ecn_negotiated: bool,
    /// DCTCP's α at the data source of the latest connection counted (its end, or the run's).
    pub dctcp_alpha: Option<f64>,
    /// TCP counters of the endpoints at the dst host only (the receiver side).
    pub dst_totals: TcpStats,
    /// The flow's own random stream (start spread, telnet gaps, transfer sizes).
    pub rng: SimRng,
    /// Telnet flows: write schedule and per-write delays.
    pub telnet: Option<Telnet>,
    /// `ftp_arrivals` flows: one transfer per connection.
    pub transfers: Transfers,
    /// `web` flows: sessions, pages and objects (one per connection).
    pub web: Option<Web>,
    /// `incast` flows: the entry's query times and this connection's requests and responses
    /// (set by the builder, which draws the times once per entry).
    pub incast: Option<IncastFlow>,
    /// (slot, generation) of the flow's latest connection (telnet writes and incast requests go there).
    pub live_conn: Option<(u32, u32)>,
}

/// A flow's start: `start_ns`, plus a draw from `0..=spread_ns` when the spread is not zero,
/// the first draw from the flow's stream (`rng::stream(seed, Stream::App, flow index)`).
/// `ecnlab emulate` starts its flows through the same rule (`_core.flow_start_ns`).
pub fn draw_start(start_ns: u64, spread_ns: u64, rng: &mut SimRng) -> u64 {
    if spread_ns == 0 {
        return start_ns;
    }
    start_ns + rng.random_range(0..=spread_ns)
}

/// What the simulator should do after an application reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppAction {
    Nothing,
    /// Start the flow's next connection at this time.
    StartNext(Instant),
    /// The application writes again at this time (telnet; an incast aggregator's next query).
    Write(Instant),
}

impl FlowState {
    /// `rng` is the flow's stream (`rng::stream(seed, Stream::App, flow index)`);
    /// the start time is drawn from it first when the spec gives a spread.
    pub fn new(spec: &FlowSpec, tcp: Arc<TcpConfig>, src: u32, dst: u32, mut rng: SimRng) -> Self {
        let start_ns = draw_start(spec.start_ns, spec.start_spread_ns, &mut rng);
        let telnet = match spec.app {
            AppSpec::Telnet { interarrival, mean_interarrival_ns, write_bytes } => {
                Some(Telnet::new(interarrival, mean_interarrival_ns, write_bytes))
            }
            _ => None,
        };
        let start = Instant(start_ns);
        let web = match spec.app {
            AppSpec::Web(p) => Some(Web::new(p, start)),
            _ => None,
        };
        FlowState {
            rng,
            telnet,
            web,
            incast: None,
            transfers: Transfers::default(),
            live_conn: None,
            src,
            dst,
            initiator: spec.initiator,
            app: spec.app.clone(),
            tcp,
            start,
            conns_started: 0,
            files_done: 0,
            transactions: 0,
            delivered: 0,
            delivered_at_warmup: 0,
            completion: None,
            conn_opened: Instant(spec.start_ns),
            first_opened: None,
            connect_time: None,
            transfer_times: Vec::new(),
            totals: TcpStats::default(),
            ecn_negotiated: false,
            dctcp_alpha: None,
            dst_totals: TcpStats::default(),
        }
    }

    /// Adds a connection's TCP counters to the flow's totals.
    pub fn add_connection_stats(&mut self, c: &Live) {
        self.totals.accumulate(c.client.stats());
        self.totals.accumulate(c.server.stats());
        let (src, dst) = match self.source_end() {
            End::Client => (&c.client, &c.server),
            End::Server => (&c.server, &c.client),
        };
        self.dst_totals.accumulate(dst.stats());
        self.dctcp_alpha = src.dctcp_alpha().or(self.dctcp_alpha);
    }

    /// Starts loading the fields an application event reads (`on_event`; `prefetch.rs`).
    #[inline]
    pub fn prefetch(&self) {
        use crate::prefetch::lines;
        lines(&self.initiator);
        lines(&self.app);
        lines(&self.delivered);
        lines(&self.completion);
        lines(&self.telnet);
        lines(&self.incast);
        lines(&self.web);
    }

    /// The endpoint at the src host (the data source).
    pub fn source_end(&self) -> End {
        match self.initiator {
            Initiator::Src => End::Client,
            Initiator::Dst => End::Server,
        }
    }

    /// (client node, server node) of this flow's connections.
    pub fn client_server_nodes(&self) -> (u32, u32) {
        match self.initiator {
            Initiator::Src => (self.src, self.dst),
            Initiator::Dst => (self.dst, self.src),
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self.app {
            AppSpec::Bulk { .. } => "bulk",
            AppSpec::Serial { .. } => "serial",
            AppSpec::RequestResponse { .. } => "request_response",
            AppSpec::Telnet { .. } => "telnet",
            AppSpec::FtpArrivals { .. } => "ftp_arrivals",
            AppSpec::Web(_) => "web",
            AppSpec::Incast(_) => "incast",
        }
    }

    /// Reacts to one TCP event at endpoint `end` of connection `c`.
    pub fn on_event(&mut self, c: &mut Live, end: End, ev: AppEvent, now: Instant) -> AppAction {
        let at_source = end == self.source_end();
        match ev {
            AppEvent::Connected => {
                if end == End::Client {
                    self.ecn_negotiated |= c.client.ecn_negotiated();
                    if self.connect_time.is_none() {
                        self.connect_time = self.first_opened.map(|t| now - t);
                    }
                }
                self.on_connected(c, end, at_source);
                if self.incast.is_some() && !at_source {
                    return self.app_write(c, now).1.map_or(AppAction::Nothing, AppAction::Write);
                }
                self.first_write(at_source, now)
            }
            AppEvent::Received(n) if at_source => {
                self.on_request_bytes(c, end, n);
                AppAction::Nothing
            }
            AppEvent::Received(n) => self.on_delivered(c, end, n, now),
            AppEvent::PeerClosed => {
                close_once(c, end);
                AppAction::Nothing
            }
            AppEvent::Closed => AppAction::Nothing,
        }
    }

    fn on_connected(&mut self, c: &mut Live, end: End, at_source: bool) {
        match (&self.app, at_source) {
            (AppSpec::Bulk { bytes: None }, true) => c.endpoint(end).send_unlimited(),
            (AppSpec::Bulk { bytes: Some(b) }, true) => {
                c.endpoint(end).send(*b);
                close_once(c, end);
            }
            (AppSpec::Serial { file_bytes, .. }, true) => {
                c.endpoint(end).send(*file_bytes);
                close_once(c, end);
            }
            (AppSpec::RequestResponse { request_bytes, .. }, false) => c.endpoint(end).send(*request_bytes),
            (AppSpec::Web(w), false) => c.endpoint(end).send(w.request_bytes),
            (AppSpec::FtpArrivals { .. }, true) => {
                let bytes = self.transfers.list.get(c.conn_no as usize).map_or(0, |t| t.bytes);
                c.endpoint(end).send(bytes);
                close_once(c, end);
            }
            _ => {}
        }
    }

    /// Request bytes reaching the source (server) of a request/response flow.
    fn on_request_bytes(&mut self, c: &mut Live, end: End, n: u64) {
        if let Some(web) = self.web.as_ref() {
            let before = c.source_bytes_in;
            c.source_bytes_in += n;
            let req = web.request_bytes();
            if before < req && c.source_bytes_in >= req {
                let bytes = web.object_bytes(c.conn_no);
                c.endpoint(end).send(bytes);
                close_once(c, end);
            }
            return;
        }
        if let Some(q) = self.incast.as_mut() {
            c.source_bytes_in += n;
            let owed = q.owed_responses(c.source_bytes_in);
            c.endpoint(end).send(owed);
            return;
        }
        if let AppSpec::RequestResponse { request_bytes, response_bytes, .. } = self.app {
            let before = c.source_bytes_in;
            c.source_bytes_in += n;
            if before < request_bytes && c.source_bytes_in >= request_bytes {
                c.endpoint(end).send(response_bytes);
                close_once(c, end);
            }
        }
    }

    /// Payload delivered to the dst application.
    fn on_delivered(&mut self, c: &mut Live, end: End, n: u64, now: Instant) -> AppAction {
        self.delivered += n;
        let before = c.sink_bytes;
        c.sink_bytes += n;
        if let Some(t) = self.telnet.as_mut() {
            t.on_delivered(c.sink_bytes, now);
        }
        if matches!(self.app, AppSpec::FtpArrivals { .. }) {
            self.transfers.on_received(c.conn_no, c.sink_bytes, now);
        }
        let crossed = |target: u64| before < target && c.sink_bytes >= target;
        if let Some(q) = self.incast.as_mut() {
            let timeouts = c.client.stats().timeouts + c.server.stats().timeouts;
            if q.on_response_bytes(c.sink_bytes, now, timeouts) {
                self.completion = Some(now);
                close_once(c, end);
            }
            return AppAction::Nothing;
        }
        if let Some(web) = self.web.as_mut() {
            if !crossed(web.object_bytes(c.conn_no)) {
                return AppAction::Nothing;
            }
            close_once(c, end);
            return match web.on_object_done(&mut self.rng, c.conn_no, now) {
                Some(t) => AppAction::StartNext(t),
                None => AppAction::Nothing,
            };
        }
        match self.app {
            AppSpec::Bulk { bytes: Some(b) } if crossed(b) => {
                self.completion = Some(now);
                AppAction::Nothing
            }
            AppSpec::Serial { files, file_bytes, gap_ns } if crossed(file_bytes) => {
                self.files_done += 1;
                self.transfer_times.push(now - self.conn_opened);
                if self.files_done >= files {
                    self.completion = Some(now);
                    AppAction::Nothing
                } else {
                    AppAction::StartNext(now + Duration(gap_ns))
                }
            }
            AppSpec::RequestResponse { response_bytes, think_ns, count, .. } if crossed(response_bytes) => {
                self.transactions += 1;
                close_once(c, end);
                if count.is_some_and(|k| self.transactions >= k as u64) {
                    self.completion = Some(now);
                    AppAction::Nothing
                } else {
                    AppAction::StartNext(now + Duration(think_ns))
                }
            }
            _ => AppAction::Nothing,
        }
    }
}

impl FlowState {
    /// A new connection of this flow opens at `now`. For `ftp_arrivals`: draws
    /// its size and returns when the next transfer arrives (Poisson arrivals).
    pub fn on_connection_start(&mut self, now: Instant) -> Option<Instant> {
        match self.app {
            AppSpec::FtpArrivals { min_bytes, max_bytes, mean_gap_ns } => {
                self.transfers.begin(&mut self.rng, now, min_bytes, max_bytes);
                Some(now + Transfers::gap(&mut self.rng, mean_gap_ns))
            }
            AppSpec::Web(_) => self.web.as_mut()?.on_connection_start(&mut self.rng, now),
            _ => None,
        }
    }

    /// Telnet: once the source is connected, the first write comes one gap later.
    fn first_write(&mut self, at_source: bool, now: Instant) -> AppAction {
        match self.telnet.as_ref() {
            Some(t) if at_source => AppAction::Write(now + t.next_gap(&mut self.rng)),
            _ => AppAction::Nothing,
        }
    }

    /// A timed write (`Event::AppWrite`): a telnet source writes one packet, an
    /// incast aggregator the requests of the queries due. Returns the end that
    /// wrote and when the application writes next.
    pub fn app_write(&mut self, c: &mut Live, now: Instant) -> (End, Option<Instant>) {
        let end = self.source_end();
        if let Some(q) = self.incast.as_mut() {
            let aggregator = crate::conn::peer(end);
            let (bytes, next) = q.due_requests(now);
            if bytes > 0 {
                c.endpoint(aggregator).send(bytes);
            }
            return (aggregator, next);
        }
        let Some(t) = self.telnet.as_mut() else { return (end, None) };
        let bytes = t.write(now);
        c.endpoint(end).send(bytes);
        (end, Some(now + t.next_gap(&mut self.rng)))
    }
}

/// Closes our side once (a second close is not an error, just nothing to do).
fn close_once(c: &mut Live, end: End) {
    let i = end_index(end);
    if !c.closing[i] {
        c.closing[i] = true;
        c.endpoint(end).close();
    }
}

//! The send half: sequence state, application data, and which segment goes next.
//!
//! Sequence numbers: the SYN is 0 (handled by `conn.rs`), data occupies
//! `[1, data_end)`, the FIN (once `close()` was called) is `data_end`: a
//! segment of its own, or with `fin_with_data` on the last data segment.
//! `una ≤ nxt ≤ max`: `nxt` is the next byte to send and drops back to `una`
//! after a timeout (go-back-N); `max` is one past the highest byte ever sent.
//! Every data segment starts at `1 + k·mss`, so retransmissions re-cut the same
//! segments.
//!
//! Nagle is off: full segments are sent while data and window allow; the last
//! partial segment is sent as soon as the window has room for it.

use crate::accecn::{AccEcnSend, EcnFeedback};
use crate::cc::{AnyCc, CongestionControl};
use crate::config::{Recovery, TcpConfig};
use crate::idle::{self, IdleRestart};
use crate::prr::Prr;
use crate::rtt::RttEstimator;
use crate::rules::fin::FinPlacement;
use crate::rules::loss_detection::LossMarking;
use crate::rules::timeout::RtoScoreboard;
use crate::rules::SenderRules;
use crate::sack::{Scoreboard, SeqSpace};
use crate::timer::RtxTimer;
use crate::tlp::Probe;
use crate::window::{Phase, Window};
use ecnlab_wire::{Duration, Ecn, Instant};

/// Data the application gave us.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AppData {
    Bytes(u64),
    Unlimited,
}

/// Whether the application closed the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FinState {
    Open,
    /// `close()` called: a FIN follows the data.
    Queued,
}

/// RFC 3168 §6.1.2 sender-side ECN state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EcnSend {
    Disabled,
    Idle,
    /// The window was reduced: set CWR on the next new data segment.
    CwrPending,
}

/// One segment chosen for transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tx {
    pub(crate) seq: u64,
    pub(crate) len: u32,
    pub(crate) fin: bool,
    pub(crate) retransmit: bool,
}

/// The timed segment for RTT measurement (one at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timing {
    pub(crate) end: u64,
    pub(crate) sent_at: Instant,
}

/// Fields in declaration order (`repr(C)`), hot first: see the comments below
/// and docs/performance.md ("What the engine does per packet").
#[repr(C)]
#[derive(Clone, Debug)]
pub(crate) struct Sender {
    // Hot: read or written on nearly every ACK and every segment sent, so that
    // they share a few cache lines (with many flows every line is a miss).
    pub(crate) una: u64,
    pub(crate) nxt: u64,
    pub(crate) max: u64,
    /// snd_max at the last window reduction of any kind (ECN, fast retransmit,
    /// timeout); ECE is ignored until snd_una passes it.
    pub(crate) reduced_at: u64,
    pub(crate) app: AppData,
    /// A retransmission to send before anything else (fast retransmit, partial ACK).
    pub(crate) rtx_next: Option<u64>,
    pub(crate) win: Window,
    pub(crate) peer_rwnd: u32,
    /// `TcpConfig::ecn_min_cwnd_segments`: 1 (RFC 3168) or 2 (ns-3, Linux).
    pub(crate) ecn_min_cwnd_segments: u32,
    pub(crate) timer: RtxTimer,
    pub(crate) timing: Option<Timing>,
    /// ns-2's `cwnd_` during a fast recovery: the halved window without the
    /// inflation by duplicate ACKs (`window_arith = ns2`); cwnd on exit.
    pub(crate) halved: u32,
    pub(crate) iw_segments: u32,
    pub(crate) fin: FinState,
    /// SACK negotiated and the recovery is `Sack`.
    pub(crate) use_sack: bool,
    /// Neither rate samples (`rate`) nor AccECN counters (`accecn`): an ACK takes the
    /// window's path alone (`Connection::on_segment_open` tests this one flag).
    pub(crate) plain_acks: bool,
    pub(crate) ecn: EcnSend,
    /// The codepoint of ECN-capable segments: the congestion control's
    /// (`CongestionControl::codepoint`, fixed for a connection, read once here rather
    /// than dispatched for every segment); Not-ECT once a test of the path failed
    /// (`rules/accecn_checks.rs`: no ECT from then on).
    pub(crate) codepoint: Ecn,
    pub(crate) recovery: Recovery,
    /// The rules this sender asks (`rules/`): one small copy of the configuration's.
    pub(crate) rules: SenderRules,
    /// Whether this NewReno recovery saw a partial ACK yet (`newreno_timer`).
    pub(crate) partial_seen: bool,
    /// ns-2's `ecn_backoff_` (`ecn_backoff`): an ECE already met a window of
    /// one segment and no ACK without ECE came since.
    pub(crate) ecn_backoff_armed: bool,
    /// A Tail Loss Probe is due now (`tlp`).
    pub(crate) tlp_due: bool,
    pub(crate) rtt: RttEstimator,
    /// Send times of the data segments in flight, (end, sent at), for an RTT
    /// sample on every ACK (HyStart needs one per ACK, `cc/hystart.rs`); kept only
    /// with `hystart`, and emptied by a retransmission (Karn). Boxed so that every
    /// other Sender pays 8 bytes for it, not a VecDeque's 32 (per-flow state).
    #[allow(clippy::box_collection)]
    pub(crate) sent_times: Option<Box<std::collections::VecDeque<(u64, Instant)>>>,
    /// The bytes Limited Transmit sent beyond cwnd since the last new ACK (left
    /// out of FlightSize at recovery entry).
    pub(crate) lt_bytes: u64,
    /// With `dupacks_as_sacks`: the bytes duplicate ACKs count as SACKed (Linux's
    /// `sacked_out` without SACK, one segment each).
    pub(crate) reno_sacked: u64,
    // Present only with some options or during a reduction: their tags here,
    // their bodies mostly cold.
    /// AccECN negotiated: the ACE decoder (`accecn.rs`); no CWR is ever sent. Boxed: a
    /// pointer's room in every sender without AccECN.
    pub(crate) accecn: Option<Box<AccEcnSend>>,
    /// The reduction in progress with `prr` (`prr.rs`).
    pub(crate) prr: Option<Prr>,
    /// With `tlp` (`tlp.rs`): the probe of the current tail-loss episode, and
    /// RTO_min for the probe timeout.
    pub(crate) tlp: Option<Probe>,
    pub(crate) tlp_min_rto: Duration,
    /// When the last data segment was sent (`idle_restart`, `idle.rs`).
    pub(crate) last_data_sent: Option<Instant>,
    /// `TcpConfig::tso = Linux` (`tso.rs`); `hystart`: the per-ACK
    /// RTT sample goes to the congestion control.
    pub(crate) tso: Option<crate::tso::TsoState>,
    pub(crate) hystart_rtt: bool,
    /// Delivery-rate sampling (`rate_sample.rs`), only for a congestion control that
    /// sets cwnd from it (`CongestionControl::wants_rate_samples`: BBR).
    pub(crate) rate: Option<Box<crate::rate_sample::RateSampler>>,
    pub(crate) sb: Scoreboard,
    // Last: the congestion control, of which Reno reads its first bytes and
    // CUBIC or Prague the whole.
    /// The congestion control (`cc/`): growth and the ssthresh of a reduction.
    pub(crate) cc: AnyCc,
}

impl Sender {
    pub(crate) fn new(cfg: &TcpConfig) -> Self {
        // Until the handshake fixes the effective MSS, report the configured IW.
        let mut win = Window::new(cfg.dupack_threshold);
        win.init(cfg.mss, cfg.init_cwnd_segments);
        let cc = AnyCc::new(cfg);
        let codepoint = cc.codepoint();
        Sender {
            rate: cc.wants_rate_samples().then(Box::default),
            una: 1,
            nxt: 1,
            max: 1,
            app: AppData::Bytes(0),
            fin: FinState::Open,
            peer_rwnd: u32::MAX,
            rtx_next: None,
            timing: None,
            win,
            cc,
            recovery: cfg.recovery,
            sb: Scoreboard::with_rack(cfg.rack == LossMarking::Rack),
            use_sack: false,
            plain_acks: false,
            rtt: RttEstimator::new(cfg),
            timer: RtxTimer::Idle,
            ecn: EcnSend::Disabled,
            codepoint,
            accecn: None,
            reduced_at: 0,
            ecn_min_cwnd_segments: cfg.ecn_min_cwnd_segments,
            rules: SenderRules::of(cfg),
            partial_seen: false,
            lt_bytes: 0,
            ecn_backoff_armed: false,
            halved: 0,
            prr: None,
            reno_sacked: 0,
            iw_segments: cfg.init_cwnd_segments,
            last_data_sent: None,
            sent_times: (cfg.cubic.hystart != crate::config::HyStartMode::Off || crate::tso::TsoState::holds(cfg))
                .then(Box::default),
            tso: crate::tso::TsoState::on(cfg).then(|| crate::tso::TsoState::new(cfg)),
            hystart_rtt: cfg.cubic.hystart != crate::config::HyStartMode::Off,
            tlp_min_rto: Duration(cfg.min_rto_ns),
            tlp: None,
            tlp_due: false,
        }
    }

    /// The handshake finished: effective MSS, SACK, ECN and the peer's window are known.
    pub(crate) fn establish(&mut self, cfg: &TcpConfig, mss: u32, sack: bool, ecn: EcnFeedback, rwnd: u32) {
        self.win.init(mss, cfg.init_cwnd_segments);
        self.use_sack = sack && cfg.recovery == Recovery::Sack;
        self.ecn = if ecn == EcnFeedback::Off { EcnSend::Disabled } else { EcnSend::Idle };
        self.accecn = (ecn == EcnFeedback::AccEcn).then(|| Box::new(AccEcnSend::new()));
        if self.cc.needs_accecn() && self.accecn.is_none() {
            // Prague without AccECN: no ECN at all, Reno (the reference's `prague-reno`).
            self.ecn = EcnSend::Disabled;
            self.cc.fall_back();
            self.codepoint = self.cc.codepoint();
        }
        self.plain_acks = self.rate.is_none() && self.accecn.is_none();
        self.peer_rwnd = rwnd;
        self.timer = RtxTimer::Idle;
        self.cc.on_established(&mut self.win, self.rtt.srtt());
        if self.rules.ns2_window() {
            // ns-2 reset(): ssthresh_ = int(window_), in whole segments.
            self.win.ssthresh = (rwnd / mss * mss).max(2 * mss);
        }
    }

    /// One past the last data byte (the FIN's sequence number once closed).
    pub(crate) fn data_end(&self) -> u64 {
        match self.app {
            AppData::Bytes(n) => 1 + n,
            AppData::Unlimited => u64::MAX - 1,
        }
    }

    pub(crate) fn fin_acked(&self) -> bool {
        self.fin == FinState::Queued && self.una > self.data_end()
    }

    /// Data bytes acknowledged by the peer.
    pub(crate) fn bytes_acked(&self) -> u64 {
        self.una.min(self.data_end()) - 1
    }

    /// RFC 5681 FlightSize: data sent and not yet acknowledged.
    pub(crate) fn flight_size(&self) -> u64 {
        self.max - self.una
    }

    /// The data still in the network, as Linux's `tcp_packets_in_flight` counts it (sent,
    /// less SACKed and deemed lost, plus retransmitted): RFC 6675's pipe with SACK, the
    /// duplicate-ACK estimate without it, FlightSize while nothing is SACKed or lost.
    /// After a timeout that went back N (no SACK, or the scoreboard cleared) everything
    /// sent before it is lost (`tcp_timeout_mark_lost`) and what went again since is in
    /// flight: snd_nxt − snd_una, not FlightSize, until the Loss phase ends.
    /// The common case (FlightSize) inline, the others a call of their own.
    #[inline]
    pub(crate) fn in_flight(&self) -> u64 {
        if matches!(self.win.phase, Phase::Open | Phase::Cwr { .. }) && self.sb.is_clear() {
            self.flight_size()
        } else {
            self.in_flight_reduced()
        }
    }

    /// [`Self::in_flight`] with something SACKed or lost, or in Disorder, Recovery or Loss.
    #[inline(never)]
    fn in_flight_reduced(&self) -> u64 {
        let kept = self.use_sack && self.rules.timeout.scoreboard == RtoScoreboard::Kept;
        if matches!(self.win.phase, Phase::Loss { .. }) && !kept {
            self.nxt - self.una
        } else if self.use_sack {
            self.sb.pipe(&self.space())
        } else if self.counts_reno_sacks() {
            self.reno_pipe()
        } else {
            self.flight_size()
        }
    }

    pub(crate) fn space(&self) -> SeqSpace {
        SeqSpace {
            una: self.una,
            high: self.max.min(self.data_end()),
            mss: self.win.mss as u64,
            dupthresh: self.win.dupthresh as u64,
            recovering: matches!(self.win.phase, Phase::Recovery { .. } | Phase::Loss { .. }),
        }
    }

    /// `rate_sample.rs`: the segment's snapshot, then whether the sender is app-limited.
    fn rate_on_sent(&mut self, now: Instant, tx: &Tx) {
        let in_flight = self.in_flight() + if tx.retransmit { 0 } else { u64::from(tx.len) };
        let (probe, waiting) = (self.tlp_due, self.data_end().saturating_sub(tx.seq + u64::from(tx.len)));
        let (mss, cwnd, lost) = (u64::from(self.win.mss), u64::from(self.win.cwnd), self.rtx_next.is_some());
        if let Some(r) = self.rate.as_mut() {
            r.on_sent(now, tx.seq, tx.seq + u64::from(tx.len), tx.retransmit, probe, in_flight);
            if tx.seq + u64::from(tx.len) >= self.nxt {
                r.check_app_limited(waiting, mss, in_flight, cwnd, lost);
            }
        }
    }

    /// The segment at `seq`. With `fin_with_data` the last data segment carries
    /// the FIN once the application has closed (Linux `tcp_send_fin` sets FIN on
    /// the tail segment not yet sent; a retransmission of that segment after
    /// close carries it too, as Linux's retransmit collapses the FIN into it).
    fn tx_at(&self, seq: u64) -> Tx {
        let end = self.data_end();
        let retransmit = seq < self.max;
        if seq >= end {
            Tx { seq: end, len: 0, fin: true, retransmit }
        } else {
            let len = (end - seq).min(self.win.mss as u64) as u32;
            let fin = self.rules.fin == FinPlacement::WithLastData
                && self.fin == FinState::Queued
                && seq + u64::from(len) == end;
            Tx { seq, len, fin, retransmit }
        }
    }

    /// The next segment to send, if any (does not change state; see `on_sent`).
    pub(crate) fn next_tx(&self) -> Option<Tx> {
        if self.tlp_due {
            return Some(self.probe_tx());
        }
        if self.counts_reno_sacks() {
            return self.reno_next();
        }
        if let Some(seq) = self.rtx_next {
            return Some(self.tx_at(seq));
        }
        if self.timer.is_hold() {
            return None; // RFC 3168 §6.1.2: wait for the timer before sending
        }
        if self.use_sack && (matches!(self.win.phase, Phase::Recovery { .. }) || self.sack_loss()) {
            return self.sack_next();
        }
        self.window_next(self.nxt - self.una)
    }

    /// `dupacks_as_sacks` in use: no SACK, a NewReno recovery, and not after a
    /// timeout (Linux counts no duplicate ACKs in its Loss state).
    pub(crate) fn counts_reno_sacks(&self) -> bool {
        self.rules.reduction.reno_sacks()
            && !self.use_sack
            && matches!(self.recovery, Recovery::NewReno | Recovery::Sack)
            && !matches!(self.win.phase, Phase::Loss { .. })
    }

    /// Linux's `tcp_packets_in_flight` without SACK: what was sent and not
    /// acknowledged, less the segments duplicate ACKs counted as SACKed, less
    /// the segment a fast retransmit or partial ACK marked lost until it is
    /// sent again (`lost_out` − `retrans_out`).
    pub(crate) fn reno_pipe(&self) -> u64 {
        let lost = match self.rtx_next {
            Some(s) => u64::from(self.tx_at(s).len),
            None => 0,
        };
        (self.nxt - self.una).saturating_sub(self.reno_sacked + lost)
    }

    /// With `dupacks_as_sacks`: the lost segment first, then new data, both
    /// only while pipe leaves room in cwnd (Linux `tcp_xmit_retransmit_queue`
    /// stops once `tcp_packets_in_flight` reaches cwnd; `tcp_write_xmit`).
    fn reno_next(&self) -> Option<Tx> {
        let pipe = self.reno_pipe();
        if let Some(seq) = self.rtx_next {
            let tx = self.tx_at(seq);
            return (pipe + u64::from(tx.len) <= u64::from(self.win.cwnd)).then_some(tx);
        }
        if self.timer.is_hold() {
            return None; // RFC 3168 §6.1.2: wait for the timer before sending
        }
        // cwnd against the pipe; the receiver's window against all that is unacknowledged.
        let rwnd = u64::from(self.peer_rwnd);
        self.window_next(pipe).filter(|tx| tx.len == 0 || self.nxt - self.una + u64::from(tx.len) <= rwnd)
    }

    /// In Loss after a timeout with the scoreboard kept (`sack_after_rto`):
    /// the holes go by RFC 6675's rules, everything below snd_max at the timeout lost.
    pub(crate) fn sack_loss(&self) -> bool {
        self.rules.timeout.scoreboard == RtoScoreboard::Kept && matches!(self.win.phase, Phase::Loss { .. })
    }

    /// Next segment at `nxt` if it fits in min(cwnd, rwnd) given `in_flight`.
    fn window_next(&self, in_flight: u64) -> Option<Tx> {
        let end = self.data_end();
        if self.nxt < end {
            let tx = self.tx_at(self.nxt);
            let wnd = (self.win.cwnd as u64 + self.limited_transmit_room()).min(self.peer_rwnd as u64);
            return (in_flight + tx.len as u64 <= wnd).then_some(tx);
        }
        // The FIN takes no window: it goes as soon as all data has been sent.
        (self.fin == FinState::Queued && self.nxt == end).then(|| self.tx_at(end))
    }

    /// RFC 3042 §2: on each of the first two duplicate ACKs one new segment,
    /// "the amount of outstanding data would remain less than or equal to the
    /// congestion window plus 2 segments"; cwnd itself does not change.
    fn limited_transmit_room(&self) -> u64 {
        let disorder = self.win.phase == Phase::Disorder;
        let reduced = matches!(self.win.phase, Phase::Cwr { .. } | Phase::Loss { .. });
        let lt = self.rules.limited_transmit.applies(disorder, reduced, self.win.dupacks, self.win.dupthresh);
        // With `dupacks_as_sacks` the duplicate ACKs make that room in the pipe.
        if !lt || self.counts_reno_sacks() {
            return 0;
        }
        self.win.dupacks.min(2) as u64 * self.win.mss as u64
    }

    /// RFC 6675 §5 (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg().
    fn sack_next(&self) -> Option<Tx> {
        let v = self.space();
        let pipe = self.sb.pipe(&v);
        if pipe + self.win.mss as u64 > self.win.cwnd as u64 {
            return None;
        }
        if let Some(s) = self.sb.next_lost(&v) {
            return Some(self.tx_at(s)); // NextSeg rule (1)
        }
        if let Some(tx) = self.window_next(pipe) {
            return Some(tx); // rule (2): new data
        }
        if let Some(s) = self.sb.next_hole(&v) {
            return Some(self.tx_at(s)); // rule (3)
        }
        // After a timeout that kept the scoreboard, the FIN is lost with the rest:
        // it goes again once the data below it is acknowledged.
        let end = self.data_end();
        let fin_lost = self.sack_loss() && self.una == end && self.max > end && !self.sb.resent(end);
        fin_lost.then(|| self.tx_at(end))
    }

    /// Bookkeeping after `tx` was handed to the network.
    pub(crate) fn on_sent(&mut self, now: Instant, tx: Tx) {
        self.tso_on_sent(now, &tx);
        let end = tx.seq + tx.len as u64 + tx.fin as u64;
        if self.rate.is_some() {
            self.rate_on_sent(now, &tx);
        }
        if self.rules.limited_transmit.enabled() && !tx.retransmit && self.win.phase == Phase::Disorder {
            let beyond = (end - self.una).saturating_sub(self.win.cwnd as u64);
            self.lt_bytes = self.lt_bytes.max(beyond);
        }
        if self.rtx_next == Some(tx.seq) {
            self.rtx_next = None;
        }
        if tx.seq == self.nxt {
            self.nxt = end;
        }
        self.max = self.max.max(end);
        if let Some(p) = self.prr.as_mut() {
            p.on_sent(u64::from(tx.len));
        }
        if tx.len > 0 {
            self.last_data_sent = Some(now);
        }
        if tx.retransmit {
            self.sb.on_retransmit(tx.seq, end, self.max);
            self.timing = None; // Karn: no sample across a retransmission
        } else if self.timing.is_none() && tx.len > 0 {
            self.timing = Some(Timing { end, sent_at: now });
        }
        if let Some(q) = self.sent_times.as_mut() {
            if tx.retransmit {
                q.clear();
            } else if tx.len > 0 {
                q.push_back((end, now));
            }
        }
        if std::mem::take(&mut self.tlp_due) {
            // tcp_send_loss_probe: one probe per episode, then the RTO from now.
            self.tlp = Some(Probe { seq: tx.seq, end, high: self.max, retrans: tx.retransmit });
            self.arm_timer(now);
            return;
        }
        if self.timer == RtxTimer::Idle {
            // RFC 6298 (5.1): start the timer when sending data and it is not running.
            self.arm_timer(now);
        }
        if !tx.retransmit && tx.len > 0 {
            self.schedule_probe(now, false);
        }
    }

    /// The probe segment (`tlp.rs`): new data if the peer's window allows it,
    /// whatever cwnd says, else the last MSS sent (or the FIN) again.
    fn probe_tx(&self) -> Tx {
        let end = self.data_end();
        if self.nxt < end {
            let tx = self.tx_at(self.nxt);
            if self.nxt - self.una + u64::from(tx.len) <= u64::from(self.peer_rwnd) {
                return tx;
            }
        }
        let top = self.max.min(end);
        if top <= self.una {
            return self.tx_at(end); // only the FIN is outstanding
        }
        // The segment holding byte top − 1 (segments start at 1 + k·mss).
        let mss = u64::from(self.win.mss);
        self.tx_at((1 + (top - 2) / mss * mss).max(self.una))
    }

    /// The probe timer gives way to the retransmission timer it replaced.
    pub(crate) fn cancel_probe(&mut self) {
        if let RtxTimer::Probe { rto_at, .. } = self.timer {
            self.timer = RtxTimer::Retransmit { expires_at: rto_at };
        }
        self.tlp_due = false;
    }

    /// `tcp_schedule_loss_probe`: the probe timer replaces the retransmission
    /// timer while SACK is in use, data is outstanding and the sender is in
    /// Open or CWR. `advancing`: called for an ACK that restarted the RTO (the
    /// probe may take the whole RTO), else it must fire before the running RTO.
    pub(crate) fn schedule_probe(&mut self, now: Instant, advancing: bool) {
        let open = matches!(self.win.phase, Phase::Open | Phase::Cwr { .. });
        if !self.rules.loss.probes_tail() || !self.use_sack || !open || self.una >= self.max {
            return;
        }
        let rto_at = match self.timer {
            RtxTimer::Retransmit { expires_at } | RtxTimer::Probe { rto_at: expires_at, .. } => expires_at,
            RtxTimer::Idle | RtxTimer::EcnHold { .. } => return,
        };
        let left = if advancing { self.rto() } else { rto_at.saturating_since(now) };
        let one_segment = self.max - self.una <= u64::from(self.win.mss);
        let pto = crate::tlp::pto(self.rtt.srtt(), one_segment, self.tlp_min_rto, left);
        self.timer = RtxTimer::Probe { expires_at: now + pto, rto_at };
    }

    /// RFC 3168 §6.1.2: after any reduction the next new data segment carries
    /// CWR; not with AccECN, where CWR is part of the ACE field (RFC 9768 §3.2.2).
    pub(crate) fn signal_cwr(&mut self) {
        if self.ecn != EcnSend::Disabled && self.accecn.is_none() {
            self.ecn = EcnSend::CwrPending;
        }
    }

    pub(crate) fn arm_timer(&mut self, now: Instant) {
        self.timer = RtxTimer::Retransmit { expires_at: self.rtt.deadline(now) };
    }

    pub(crate) fn hold_timer(&mut self, now: Instant) {
        self.timer = RtxTimer::EcnHold { expires_at: self.rtt.deadline(now) };
    }

    /// RFC 6298 (5.2)/(5.3) after an ACK of new data; the ECN hold keeps running.
    /// With `tlp` the probe timer takes its place where it applies (Linux
    /// `tcp_set_xmit_timer`).
    pub(crate) fn restart_timer(&mut self, now: Instant) {
        if self.timer.is_hold() {
            return;
        }
        if self.una >= self.max {
            self.timer = RtxTimer::Idle;
        } else {
            self.arm_timer(now);
            self.schedule_probe(now, true);
        }
    }

    /// The RTT of the newest data segment `ack` covers that was sent once (with
    /// `sent_times` only): Linux's per-ACK sample, which HyStart reads.
    pub(crate) fn ack_rtt_sample(&mut self, now: Instant, ack: u64) -> Option<Duration> {
        let q = self.sent_times.as_mut()?;
        let mut newest = None;
        while let Some(&(end, at)) = q.front().filter(|(end, _)| *end <= ack) {
            q.pop_front();
            newest = Some((end, at));
        }
        newest.map(|(_, at)| now.saturating_since(at))
    }

    /// An RTT sample when the timed segment is covered by `ack`.
    /// With `keep_backoff` the sample leaves the timer's backoff as it is
    /// (ns-2 `newack`: not while `ecn_backoff_` and the ACK carries ECE).
    pub(crate) fn take_rtt_sample(&mut self, now: Instant, ack: u64, keep_backoff: bool) -> Option<Duration> {
        let t = self.timing.filter(|t| ack >= t.end)?;
        let sample = now - t.sent_at;
        let backoff = self.rtt.backoff_state();
        self.rtt.sample(t.sent_at, now);
        if keep_backoff {
            self.rtt.set_backoff_state(backoff);
        }
        self.timing = None;
        Some(sample)
    }

    pub(crate) fn rto(&self) -> Duration {
        self.rtt.rto()
    }

    /// Before new data leaves at `now`: the window after an idle period
    /// (`idle.rs`), when nothing is outstanding and data is waiting.
    pub(crate) fn restart_if_idle(&mut self, now: Instant) {
        if self.rules.idle_restart == IdleRestart::Off || self.una < self.max || self.nxt >= self.data_end() {
            return;
        }
        let Some(last) = self.last_data_sent else { return };
        let open = self.win.phase == Phase::Open;
        let ssthresh = self.win.ssthresh;
        let (cwnd, new_ssthresh) = idle::restart(
            self.rules.idle_restart,
            self.win.cwnd,
            ssthresh,
            self.win.mss,
            self.iw_segments,
            (now - last).0,
            self.rto().0,
        );
        self.win.cwnd = cwnd;
        self.win.ssthresh = if open { new_ssthresh } else { ssthresh }; // tcp_current_ssthresh
        self.last_data_sent = Some(now); // checked: one restart per idle period
        if let Some(t) = self.tso.as_mut() {
            t.end_chunk();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accecn::EcnFeedback;
    use crate::rules::reduction::{DupAckAccounting, WindowReduction};

    const MSS: u64 = 1000;

    /// A NewReno sender with `dupacks_as_sacks` in recovery: 20 segments out,
    /// 5 counted SACKed by duplicate ACKs, the first one lost and not resent.
    fn in_recovery() -> Sender {
        let cfg = TcpConfig {
            recovery: Recovery::NewReno,
            dupacks_as_sacks: DupAckAccounting::RenoSacks,
            prr: WindowReduction::Prr,
            mss: MSS as u32,
            rwnd_bytes: 1 << 20,
            ..TcpConfig::default()
        };
        let mut s = Sender::new(&cfg);
        s.establish(&cfg, MSS as u32, false, EcnFeedback::Off, 1 << 20);
        s.app = AppData::Unlimited;
        s.max = 1 + 20 * MSS;
        s.nxt = s.max;
        s.win.phase = Phase::Recovery { recover: s.max };
        s.reno_sacked = 5 * MSS;
        s.rtx_next = Some(1);
        s
    }

    /// Linux `tcp_packets_in_flight` without SACK: packets out − SACKed (duplicate
    /// ACKs) − lost + retransmitted; `tcp_xmit_retransmit_queue` sends the lost
    /// segment only while that is below cwnd.
    #[test]
    fn test_reno_pipe_and_the_lost_segment_waits_for_cwnd() {
        let mut s = in_recovery();
        assert_eq!(s.reno_pipe(), 14 * MSS, "20 out − 5 SACKed − 1 lost");
        s.win.cwnd = (14 * MSS) as u32;
        assert_eq!(s.next_tx(), None, "no room: the retransmission waits");
        s.win.cwnd = (15 * MSS) as u32;
        assert_eq!(s.next_tx().map(|t| (t.seq, t.retransmit)), Some((1, true)));
        s.rtx_next = None; // sent: back in the pipe
        assert_eq!(s.reno_pipe(), 15 * MSS);
        assert_eq!(s.next_tx(), None, "pipe = cwnd: no new data either");
        s.win.cwnd = (16 * MSS) as u32;
        assert_eq!(s.next_tx().map(|t| (t.seq, t.retransmit)), Some((1 + 20 * MSS, false)));
    }
}

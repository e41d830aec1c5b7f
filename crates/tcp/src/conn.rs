//! The connection: handshake, state machine and the glue between the send
//! half ([`crate::send`], [`crate::recovery`]) and the receive half ([`crate::recv`]).
//!
//! Handshake (RFC 793 §3.4, RFC 3168 §6.1.1, RFC 5562):
//! - the Client sends SYN (seq 0) with MSS, SACK-permitted (variant Sack) and,
//!   with `ecn`, ECE+CWR, on its first `poll_transmit`;
//! - the Server answers with SYN-ACK: ECE when it accepts ECN; ECT(0) only with
//!   `ecn_plus` and only the first transmission (retransmissions are Not-ECT);
//! - SYN and SYN-ACK are retransmitted on the retransmission timer, starting
//!   at `initial_rto` and doubling; each expiry counts in `timeouts` and each
//!   retransmission in `syn_retransmits`. A retransmitted SYN that reaches a
//!   Server in SYN-RECEIVED is ignored (the SYN-ACK timer recovers; Linux
//!   would answer at once);
//! - a Client with data piggybacks the handshake ACK on its first data segment
//!   (a pure ACK otherwise); a CE SYN-ACK counts in `ce_received` and puts ECE
//!   on that one segment (RFC 5562 §3.2), which makes the Server start with
//!   cwnd = 1 MSS (counted in its `ecn_reductions`);
//! - with `ecn = accecn` (RFC 9768 §3.1, `accecn.rs`) the SYN has AE, CWR and
//!   ECE; an AccECN Server's SYN-ACK encodes the SYN's IP-ECN field in
//!   (AE, CWR, ECE), and the Client's first segment after it encodes the
//!   SYN-ACK's; each end then uses AccECN, classic ECN or none as Table 2 says;
//!   the AccECN option goes on the first SYN-ACK and on later segments as
//!   `accecn_option` says, and data segments may leave room for it (`accecn.rs`);
//! - the handshake gives an RTT sample unless the SYN / SYN-ACK was retransmitted;
//!   a backed-off RTO stays backed off until the first data sample (RFC 6298
//!   (5.7) would set it to 3 s; not implemented).
//!
//! Closing: FIN exchange without TIME-WAIT. The connection is `Done` (and
//! `AppEvent::Closed` is emitted) once our FIN is acknowledged and the peer's
//! FIN was received. A `Done` connection still re-acknowledges a retransmitted
//! FIN, which is what TIME-WAIT would be for. No RST.

use crate::accecn::{self, AccEcnRecv, EcnFeedback};
use crate::cc::CongestionControl;
use crate::config::{CcKind, EcnMode, RcvAutotune, Recovery, TcpConfig};
use crate::rcvbuf;
use crate::recv::{EcnEcho, PeerFin, Receiver};
use crate::rules::accecn_checks::{AccEcnFailure, End};
use crate::rules::ect_marking::EctPackets;
use crate::rules::receiver_ack::SynAck;
use crate::send::{AppData, EcnSend, FinState, Sender, Tx};
use crate::stats::TcpStats;
use crate::timer::RtxTimer;
use crate::window::CaState;
use core::fmt;
use ecnlab_wire::{Duration, Ecn, Instant, Segment, TcpFlags};
use std::collections::VecDeque;
use std::sync::Arc;

/// Which side opens the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Active open: sends the SYN on the first `poll_transmit`.
    Client,
    /// Passive open: answers a SYN.
    Server,
}

/// Connection state (RFC 793 names; FIN-WAIT-1/2 are merged, no TIME-WAIT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    /// Our FIN queued or sent, the peer's not received (FIN-WAIT-1 and -2).
    FinWait,
    CloseWait,
    Closing,
    LastAck,
    /// Both FINs exchanged and ours acknowledged: the connection is finished.
    Done,
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            State::Closed => "CLOSED",
            State::Listen => "LISTEN",
            State::SynSent => "SYN-SENT",
            State::SynReceived => "SYN-RECEIVED",
            State::Established => "ESTABLISHED",
            State::FinWait => "FIN-WAIT",
            State::CloseWait => "CLOSE-WAIT",
            State::Closing => "CLOSING",
            State::LastAck => "LAST-ACK",
            State::Done => "DONE",
        };
        f.write_str(s)
    }
}

/// What the application learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AppEvent {
    Connected,
    /// New in-order payload bytes.
    Received(u64),
    /// The peer's FIN arrived after all its data.
    PeerClosed,
    /// Both FINs exchanged and acknowledged: the connection is finished.
    Closed,
}

/// Our SYN or SYN-ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    Idle,
    /// Server, `syn_immediate_ack` off with delayed ACKs: the SYN-ACK waits
    /// for the delayed-ACK timer, as ns-2's DelAck sink holds the ACK of
    /// packet 0 (`SYN_immediate_ack_` false).
    Delayed {
        until: Instant,
    },
    /// To be (re)sent by the next `poll_transmit`.
    Pending {
        retransmit: bool,
    },
    /// Sent; `ect`: a SYN-ACK sent ECT(0) (RFC 5562).
    Sent {
        at: Instant,
        retransmitted: bool,
        ect: bool,
    },
}

/// Options agreed in the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Negotiated {
    mss: u32,
    sack: bool,
    ecn: bool,
    /// Which ECN feedback (`ecn` is true unless `Off`).
    fb: EcnFeedback,
    /// Server: the IP-ECN field of the SYN (an AccECN SYN-ACK encodes it).
    syn_ecn: Ecn,
    /// The IP-ECN field of our last SYN (SYN-ACK), for AccECN's handshake test.
    sent_ecn: Ecn,
    /// The SYN offered window scaling (the windows themselves stay in bytes here).
    wscale: bool,
}

/// One TCP endpoint: a send half and a receive half (sans-IO).
/// Fields in declaration order (`repr(C)`): what every segment reads first,
/// the send half (hot part first) last; docs/performance.md ("What the engine does per packet").
#[repr(C)]
#[derive(Clone, Debug)]
pub struct Connection {
    // What every segment in either direction reads first.
    state: State,
    role: Role,
    /// AccECN Server: the IP-ECN field of its SYN-ACK as the Client's first ACK told it.
    handshake_fb: Option<Ecn>,
    /// AccECN: a failed test of the path (`rules/accecn_checks.rs`): no ECT from then on.
    accecn_failure: Option<AccEcnFailure>,
    /// AccECN, `rfc9768` checks: the next segment's ACE field is the first to test.
    ace_check: bool,
    neg: Negotiated,
    hs: Handshake,
    /// Shared by every connection of a flow entry (one copy, not one per endpoint).
    cfg: Arc<TcpConfig>,
    /// With `pacing`: no data segment before this (`pacing.rs`), and, when the last
    /// `poll_transmit` held a segment back for it, that release time (for `poll_at`).
    pace_at: Option<Instant>,
    pace_wait: Option<Instant>,
    events: VecDeque<AppEvent>,
    rcv: Receiver,
    stats: TcpStats,
    // The send half: its hot fields first (`send.rs`).
    snd: Sender,
}

impl Connection {
    pub fn new(cfg: TcpConfig, role: Role) -> Self {
        Self::shared(Arc::new(cfg), role)
    }

    /// As `new`, with a configuration shared with other connections.
    pub fn shared(cfg: Arc<TcpConfig>, role: Role) -> Self {
        let state = match role {
            Role::Client => State::Closed,
            Role::Server => State::Listen,
        };
        Connection {
            snd: Sender::new(&cfg),
            rcv: Receiver::new(
                cfg.delayed_ack,
                Duration(cfg.delack_timeout_ns),
                (cfg.ack_ce_at_once, cfg.ecn_quickack),
                cfg.cc == CcKind::Dctcp
                    || crate::cc::bbr_echoes_ce_precisely(&cfg)
                    || crate::cc::prague_echoes_as_dctcp(&cfg),
                cfg.rwnd_bytes,
            ),
            neg: Negotiated {
                mss: cfg.mss,
                sack: false,
                ecn: false,
                fb: EcnFeedback::Off,
                syn_ecn: Ecn::NotEct,
                sent_ecn: Ecn::NotEct,
                wscale: false,
            },
            handshake_fb: None,
            accecn_failure: None,
            ace_check: false,
            cfg,
            role,
            state,
            hs: Handshake::Idle,
            events: VecDeque::new(),
            stats: TcpStats::default(),
            pace_at: None,
            pace_wait: None,
        }
    }

    pub fn on_segment(&mut self, now: Instant, seg: &Segment) {
        if seg.payload_len > 0 {
            self.stats.data_packets_received += 1;
        }
        match self.state {
            State::Closed => {}
            State::Listen => self.on_syn(now, seg),
            State::SynSent => self.on_syn_ack(now, seg),
            State::SynReceived => self.on_handshake_ack(now, seg),
            _ => self.on_segment_open(now, seg),
        }
    }

    /// Server, LISTEN: a SYN opens the connection (RFC 793 §3.4, RFC 3168 §6.1.1).
    fn on_syn(&mut self, now: Instant, seg: &Segment) {
        if !seg.flags.syn() || seg.flags.ack() {
            return;
        }
        // RFC 3168 §6.1.1: an ECN-setup SYN has both ECE and CWR; RFC 9768
        // Table 2: an AccECN SYN has AE too.
        let fb = accecn::server_mode(self.cfg.ecn.enabled(), self.cfg.ecn == EcnMode::AccEcn, seg.flags);
        self.neg = Negotiated {
            mss: effective_mss(self.cfg.mss, seg.mss),
            sack: seg.sack_permitted && self.cfg.recovery == Recovery::Sack,
            ecn: fb != EcnFeedback::Off,
            fb,
            syn_ecn: seg.ecn,
            sent_ecn: Ecn::NotEct,
            wscale: seg.wscale.is_some(),
        };
        self.snd.peer_rwnd = seg.window;
        let acc = AccEcnRecv::new(None, self.cfg.accecn_option, self.cfg.accecn_option_beacon, seg.ecn);
        self.rcv.on_syn(self.neg.mss, self.neg.sack, fb, Some(acc));
        self.state = State::SynReceived;
        self.hs = if self.cfg.delayed_ack && self.cfg.syn_immediate_ack == SynAck::Delayed {
            Handshake::Delayed { until: now + Duration(self.cfg.delack_timeout_ns) }
        } else {
            Handshake::Pending { retransmit: false }
        };
    }

    /// Client, SYN-SENT: the SYN-ACK completes our side.
    fn on_syn_ack(&mut self, now: Instant, seg: &Segment) {
        if !(seg.flags.syn() && seg.flags.ack() && seg.ack == 1) {
            return;
        }
        let sent_ecn = self.neg.sent_ecn;
        let fb = if self.cfg.ecn == EcnMode::AccEcn {
            accecn::client_mode(seg.flags) // RFC 9768 Table 2
        } else if self.cfg.ecn.enabled() && seg.flags.ece() && !seg.flags.cwr() {
            EcnFeedback::Classic // RFC 3168 §6.1.1: an ECN-setup SYN-ACK has ECE and not CWR
        } else {
            EcnFeedback::Off
        };
        self.neg = Negotiated {
            mss: effective_mss(self.cfg.mss, seg.mss),
            sack: seg.sack_permitted && self.cfg.recovery == Recovery::Sack,
            ecn: fb != EcnFeedback::Off,
            fb,
            syn_ecn: Ecn::NotEct,
            sent_ecn,
            wscale: seg.wscale.is_some(),
        };
        self.handshake_rtt_sample(now);
        // RFC 9768 §3.2.2.1: the first ACK encodes the SYN-ACK's IP-ECN field (Table 4).
        let code = Some(accecn::handshake_code(seg.ecn));
        let mut acc = AccEcnRecv::new(code, self.cfg.accecn_option, self.cfg.accecn_option_beacon, seg.ecn);
        acc.on_syn_ack(seg.accecn.is_some());
        self.rcv.on_syn(self.neg.mss, self.neg.sack, fb, Some(acc));
        if self.neg.ecn && seg.ecn == Ecn::Ce && self.cfg.ecn == EcnMode::EcnPlus {
            // RFC 5562 §3.2: a CE SYN-ACK is echoed with ECE on the ACK.
            self.stats.ce_received += 1;
            self.rcv.echo = EcnEcho::SynAckCe;
        }
        self.rcv.ack_now();
        self.establish(now, seg.window);
        if fb == EcnFeedback::AccEcn {
            self.check_syn_ack(seg);
        }
    }

    /// Client: AccECN's tests of the SYN-ACK (`rules/accecn_checks.rs`): the IP-ECN field
    /// the SYN arrived with and the first AccECN option; the ACE test waits for the next ACK.
    fn check_syn_ack(&mut self, seg: &Segment) {
        let checks = self.cfg.accecn_checks;
        if checks.handshake_fails(self.neg.sent_ecn, accecn::handshake_ecn(seg.flags.ace())) {
            self.accecn_fail(AccEcnFailure::HandshakeEcn);
        }
        if let Some(a) = self.snd.accecn.as_mut() {
            a.check_option(checks, seg.accecn.as_ref());
        }
        self.ace_check = true;
    }

    /// Server: AccECN's tests of the segment that completed the handshake.
    fn check_handshake_ack(&mut self, seg: &Segment) {
        let checks = self.cfg.accecn_checks;
        if checks.ace_fails(End::Server, true, seg.flags.ace()) {
            self.accecn_fail(AccEcnFailure::AceZeroed);
        } else if checks.handshake_fails(self.neg.sent_ecn, self.handshake_fb) {
            self.accecn_fail(AccEcnFailure::HandshakeEcn);
        }
    }

    /// AccECN's tests of an ACK (`rules/accecn_checks.rs`): the first ACE counter after
    /// the handshake, the first AccECN option. A call of its own, out of the ACK path of
    /// connections without AccECN.
    #[inline(never)]
    fn check_accecn_ack(&mut self, seg: &Segment) {
        if self.ace_check {
            self.check_first_ace(seg);
        }
        if let Some(a) = self.snd.accecn.as_mut() {
            a.check_option(self.cfg.accecn_checks, seg.accecn.as_ref());
        }
    }

    /// The first ACE counter after the handshake (`rules/accecn_checks.rs`).
    fn check_first_ace(&mut self, seg: &Segment) {
        self.ace_check = false;
        let end = if self.role == Role::Client { End::Client } else { End::Server };
        if self.cfg.accecn_checks.ace_fails(end, false, seg.flags.ace()) {
            self.accecn_fail(AccEcnFailure::AceZeroed);
        }
    }

    /// A failed test: no ECT from now on; after a zeroed ACE field, with the RFC's
    /// reaction, no response to CE feedback either.
    fn accecn_fail(&mut self, why: AccEcnFailure) {
        self.accecn_failure.get_or_insert(why);
        self.snd.codepoint = Ecn::NotEct;
        let answers = self.cfg.accecn_checks.answers_ce_after_ace_failure();
        if let Some(a) = self.snd.accecn.as_mut().filter(|_| why == AccEcnFailure::AceZeroed && !answers) {
            a.ignore_ce = true;
        }
    }

    /// Server, SYN-RECEIVED: the ACK of our SYN-ACK (possibly with data).
    fn on_handshake_ack(&mut self, now: Instant, seg: &Segment) {
        if seg.flags.syn() || !seg.flags.ack() || seg.ack != 1 {
            return; // a retransmitted SYN is ignored: our SYN-ACK timer runs
        }
        let ect = matches!(self.hs, Handshake::Sent { ect: true, .. });
        if let Some(a) = self.rcv.accecn.as_mut() {
            self.handshake_fb = accecn::handshake_ecn(seg.flags.ace());
            a.on_handshake_ack(seg);
        }
        self.handshake_rtt_sample(now);
        self.establish(now, seg.window);
        if self.neg.fb == EcnFeedback::AccEcn {
            self.check_handshake_ack(seg);
        }
        if ect && seg.flags.ece() {
            // RFC 5562 §3.2: the ECN-capable SYN-ACK was marked; start with one segment.
            self.stats.ecn_reductions += 1;
            self.snd.ecn_plus_reduce();
        }
        self.on_segment_open(now, seg);
        self.ace_check = self.neg.fb == EcnFeedback::AccEcn;
    }

    fn handshake_rtt_sample(&mut self, now: Instant) {
        if let Handshake::Sent { at, retransmitted: false, .. } = self.hs {
            self.snd.rtt.sample(at, now);
        }
        self.hs = Handshake::Idle;
    }

    /// The window a SYN or SYN-ACK offers: `rwnd`, or Linux's first window (`rcvbuf.rs`).
    fn handshake_window(&self) -> u32 {
        match self.cfg.rcv_autotune {
            RcvAutotune::Off => self.cfg.rwnd_bytes,
            RcvAutotune::Linux => {
                rcvbuf::initial_window(u64::from(self.cfg.rwnd_bytes), u64::from(self.cfg.mss)) as u32
            }
        }
    }

    fn establish(&mut self, now: Instant, peer_rwnd: u32) {
        let n = self.neg;
        if self.cfg.rcv_autotune == RcvAutotune::Linux {
            self.rcv.start_autotune(now, self.snd.rtt.srtt());
        }
        // `accecn.rs`: with the AccECN option on data segments, the SMSS leaves it room.
        let smss = n.mss - self.rcv.accecn.as_ref().map_or(0, |a| a.data_room()).min(n.mss / 2);
        self.snd.establish(&self.cfg, smss, n.sack, n.fb, peer_rwnd);
        self.state = match self.snd.fin {
            FinState::Queued => State::FinWait,
            FinState::Open => State::Established,
        };
        self.events.push_back(AppEvent::Connected);
    }

    fn on_segment_open(&mut self, now: Instant, seg: &Segment) {
        if seg.flags.syn() {
            self.rcv.ack_now(); // our handshake ACK was lost: acknowledge again
            return;
        }
        if seg.flags.ack() && self.snd.plain_acks {
            self.snd.on_ack_window(now, seg, &mut self.stats);
        } else if seg.flags.ack() {
            self.on_ack_with_extras(now, seg);
        }
        if let Some(a) = self.rcv.accecn.as_mut() {
            a.on_segment(seg); // an AccECN option from the peer makes ours usable
        }
        if seg.payload_len == 0 && !seg.flags.fin() {
            self.rcv.on_control(seg.ecn); // AccECN counts CE on any packet
        } else {
            let d = self.rcv.on_segment(now, seg, &mut self.stats);
            if d.bytes > 0 {
                self.events.push_back(AppEvent::Received(d.bytes));
            }
            if d.fin {
                self.events.push_back(AppEvent::PeerClosed);
            }
        }
        self.update_close_state();
    }

    /// An ACK to a send half with AccECN counters or rate samples (BBR): AccECN's tests
    /// first (the first ACE field, the first option), then the send half's reaction. A call
    /// of its own, out of the ACK path of the other connections.
    #[inline(never)]
    fn on_ack_with_extras(&mut self, now: Instant, seg: &Segment) {
        if self.neg.fb == EcnFeedback::AccEcn {
            self.check_accecn_ack(seg);
        }
        self.snd.on_ack(now, seg, &mut self.stats);
    }

    fn update_close_state(&mut self) {
        let ours = self.snd.fin_acked();
        let theirs = self.rcv.fin == PeerFin::Received;
        let next = match self.state {
            State::Established if theirs => State::CloseWait,
            State::FinWait if theirs && ours => State::Done,
            State::FinWait if theirs => State::Closing,
            State::Closing | State::LastAck if ours => State::Done,
            s => s,
        };
        if next == State::Done && self.state != State::Done {
            self.snd.timer = RtxTimer::Idle;
            self.events.push_back(AppEvent::Closed);
        }
        self.state = next;
    }

    pub fn poll_transmit(&mut self, now: Instant) -> Option<Segment> {
        match (self.state, self.hs) {
            (State::Closed, _) if self.role == Role::Client => {
                self.state = State::SynSent;
                return Some(self.send_handshake(now, false));
            }
            (State::SynSent | State::SynReceived, Handshake::Pending { retransmit }) => {
                return Some(self.send_handshake(now, retransmit));
            }
            (State::Closed | State::Listen | State::SynSent | State::SynReceived, _) => return None,
            _ => {}
        }
        if let Some((ack, ece)) = self.rcv.take_prior_ack() {
            return Some(self.prior_ack(ack, ece));
        }
        // A paced chunk (`tso.rs`) leaves whole: only its first segment waits for the release.
        let chunk = self.snd.tso_chunk_continues(now);
        let held = self.pace_at.filter(|&t| t > now && !chunk);
        self.pace_wait = None;
        if held.is_none() {
            self.snd.restart_if_idle(now);
        }
        if let Some(tx) = self.snd.next_tx() {
            if held.is_some() {
                self.pace_wait = held; // a segment waits for the pacing release
            } else if self.snd.tso_holds(now, &tx) {
                // `tso.rs`: a room smaller than a chunk waits for the next ACK.
            } else {
                let seg = self.send_data(now, tx);
                self.pace(now, &seg, chunk);
                return Some(seg);
            }
        }
        if self.rcv.ack_due() {
            let seg =
                Segment { flags: TcpFlags::ACK, seq: self.snd.nxt, ecn: self.control_ecn(), ..Segment::default() };
            return Some(self.stamp(now, seg));
        }
        None
    }

    /// SYN (Client) or SYN-ACK (Server), RFC 3168 §6.1.1 and RFC 5562.
    fn send_handshake(&mut self, now: Instant, retransmit: bool) -> Segment {
        let mut seg = Segment {
            mss: Some(self.cfg.mss.min(u16::MAX as u32) as u16),
            window: self.handshake_window(),
            retransmit,
            ..Segment::default()
        };
        let mut ect = false;
        match self.role {
            Role::Client => {
                seg.flags = TcpFlags::SYN;
                seg.sack_permitted = self.cfg.recovery == Recovery::Sack;
                // RFC 7323 §2.2: offered when the window needs it.
                seg.wscale = self.cfg.wscale();
                // RFC 3168 §6.1.1.1: a retransmitted SYN may give ECN up (`rules/syn_fallback.rs`).
                let ask = self.cfg.syn_ecn_fallback.asks_for_ecn(retransmit);
                if ask && self.cfg.ecn == EcnMode::AccEcn {
                    seg.flags.insert(accecn::SYN_FLAGS); // RFC 9768 §3.1.1
                } else if ask && self.cfg.ecn.enabled() {
                    seg.flags.insert(TcpFlags::ECE | TcpFlags::CWR);
                }
                if self.cfg.ecn.enabled() && self.cfg.ect_all_packets == EctPackets::All {
                    seg.ecn = self.snd.cc.codepoint(); // Linux tcp_ecn_send_syn with DCTCP
                }
            }
            Role::Server => {
                seg.flags = TcpFlags::SYN | TcpFlags::ACK;
                seg.ack = 1;
                seg.sack_permitted = self.neg.sack;
                // RFC 7323 §2.2: answered only to a SYN that offered it.
                if self.neg.wscale && self.cfg.window_scale {
                    seg.wscale = Some(self.cfg.wscale().unwrap_or(0));
                }
                match self.neg.fb {
                    // RFC 9768 §3.1.1: the SYN's IP-ECN field, Table 4.
                    EcnFeedback::AccEcn => seg.flags = seg.flags.with_ace(accecn::handshake_code(self.neg.syn_ecn)),
                    EcnFeedback::Classic => seg.flags.insert(TcpFlags::ECE),
                    EcnFeedback::Off => {}
                }
                // RFC 9768 §3.2.3.2.1 and §3.2.3.2.2: the option on the first SYN-ACK only.
                if let Some(a) = self.rcv.accecn.as_ref().filter(|_| !retransmit) {
                    seg.accecn = a.syn_ack_option(accecn::MAX_OPTION_BYTES.saturating_sub(seg.options_bytes()));
                }
                // RFC 5562 §3.1: ECT SYN-ACK; a retransmitted one is Not-ECT (§3.2).
                ect = self.neg.ecn && self.cfg.ecn == EcnMode::EcnPlus && !retransmit;
                seg.ecn = if ect { Ecn::Ect0 } else { Ecn::NotEct };
                if self.neg.ecn && self.cfg.ect_all_packets == EctPackets::All {
                    seg.ecn = self.snd.cc.codepoint();
                }
            }
        }
        self.neg.sent_ecn = seg.ecn;
        self.hs = Handshake::Sent { at: now, retransmitted: retransmit, ect };
        self.snd.arm_timer(now);
        self.count(&seg);
        seg
    }

    fn send_data(&mut self, now: Instant, tx: Tx) -> Segment {
        let mut flags = TcpFlags::ACK;
        if tx.fin {
            flags.insert(TcpFlags::FIN);
        }
        // RFC 3168 §6.1.5: retransmissions are Not-ECT; §6.1.4: so are pure ACKs.
        // A FIN without data is sent Not-ECT as well. With `ecn_on_retransmit`
        // (ns-2 `output()`, `SetCWRonRetransmit_`) a retransmission is ECT and
        // may carry the CWR.
        // With `ect_all_packets` (Linux and ns-3 DCTCP) every segment is ECT.
        let rules = self.snd.rules;
        let new_data = rules.retransmit_ect.as_new_data(tx.len, tx.retransmit);
        let ect = new_data || rules.ect_packets == EctPackets::All;
        let ecn = if ect && self.snd.ecn != EcnSend::Disabled { self.snd.codepoint } else { Ecn::NotEct };
        if new_data && self.snd.ecn == EcnSend::CwrPending {
            // RFC 3168 §6.1.2: CWR on the first new data packet after the reduction.
            flags.insert(TcpFlags::CWR);
            self.snd.ecn = EcnSend::Idle;
        }
        let seg =
            Segment { seq: tx.seq, flags, payload_len: tx.len, ecn, retransmit: tx.retransmit, ..Segment::default() };
        self.snd.on_sent(now, tx);
        self.stamp(now, seg)
    }

    /// DCTCP (`recv.rs`): the pure ACK of the data before a CE change, with the old ECE.
    fn prior_ack(&mut self, ack: u64, ece: bool) -> Segment {
        let mut seg = Segment {
            flags: TcpFlags::ACK,
            seq: self.snd.nxt,
            ack,
            window: self.rcv.window(),
            ecn: self.control_ecn(),
            ..Segment::default()
        };
        if ece {
            seg.flags.insert(TcpFlags::ECE);
        }
        self.count(&seg);
        seg
    }

    /// Adds the receive half's ACK, ECE, SACK blocks, window and AccECN option
    /// (leaving at `now`); counts the segment.
    fn stamp(&mut self, now: Instant, mut seg: Segment) -> Segment {
        let (ack, fb, sack) = self.rcv.ack_fields();
        seg.ack = ack;
        seg.flags = fb.apply(seg.flags | TcpFlags::ACK);
        seg.sack = sack;
        seg.window = self.rcv.window();
        if let Some(a) = self.rcv.accecn.as_mut() {
            // RFC 9768 §3.2.3.3 (`accecn.rs`); a data segment keeps payload + option within the MSS.
            let mss_room = if seg.payload_len > 0 { self.neg.mss.saturating_sub(seg.payload_len) } else { u32::MAX };
            a.stamp(&mut seg, now, self.snd.rtt.srtt(), mss_room);
        }
        self.rcv.on_ack_sent();
        self.count(&seg);
        seg
    }

    /// The codepoint of a pure ACK: Not-ECT (RFC 3168 §6.1.4) unless `ect_all_packets`.
    fn control_ecn(&self) -> Ecn {
        if self.snd.rules.ect_packets == EctPackets::All && self.snd.ecn != EcnSend::Disabled {
            self.snd.codepoint
        } else {
            Ecn::NotEct
        }
    }

    fn count(&mut self, seg: &Segment) {
        let st = &mut self.stats;
        let (syn, fin) = (seg.flags.syn(), seg.flags.fin());
        st.packets_sent += 1;
        if seg.payload_len > 0 {
            st.data_packets_sent += 1;
            st.data_bytes_sent += seg.payload_len as u64;
        }
        match (seg.retransmit, syn) {
            (true, true) => st.syn_retransmits += 1,
            (true, false) => st.retransmits += 1,
            _ => {}
        }
        if !syn && self.neg.fb != EcnFeedback::AccEcn {
            st.ece_sent += seg.flags.ece() as u64;
            st.cwr_sent += seg.flags.cwr() as u64;
        }
        if seg.payload_len == 0 && !syn && !fin {
            st.acks_sent += 1;
        }
    }

    /// Seeds the congestion control's own random draws (BBR's PROBE_BW phase);
    /// without it they start from 0. The simulator draws the seed from the flow's stream.
    pub fn seed_cc(&mut self, seed: u64) {
        self.snd.cc.seed(seed);
    }

    /// Earliest pending timer deadline (retransmission / hold, delayed ACK, a delayed SYN-ACK).
    pub fn poll_at(&self) -> Option<Instant> {
        let syn_ack = match self.hs {
            Handshake::Delayed { until } => Some(until),
            _ => None,
        };
        // The earliest deadline, without an iterator: this runs after every input.
        let earlier = |a: Option<Instant>, b: Option<Instant>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // A pacing release matters only while a segment waits for it.
        earlier(earlier(earlier(self.snd.timer.deadline(), self.rcv.poll_at()), syn_ack), self.pace_wait)
    }

    /// With `pacing`: when the segment after `seg` (just sent at `now`) may leave;
    /// `chunk`: `seg` continues a chunk, so the release moves on from the chunk's.
    fn pace(&mut self, now: Instant, seg: &Segment, chunk: bool) {
        if !self.cfg.pacing || seg.payload_len == 0 {
            return;
        }
        let now = if chunk { self.pace_at.map_or(now, |t| t.max(now)) } else { now };
        // Linux's rate is cwnd·mss_cache/srtt: the AccECN option's room (`accecn.rs`),
        // which makes the SMSS smaller than the MSS, does not slow it.
        let (mss, smss) = (u64::from(self.neg.mss), u64::from(self.snd.win.mss.max(1)));
        let in_mss = |b: u32| (u64::from(b) * mss / smss).min(u64::from(u32::MAX)) as u32;
        let (cwnd, ssthresh) = (in_mss(self.snd.win.cwnd), in_mss(self.snd.win.ssthresh));
        if let Some(rate) = self.snd.cc.pacing_rate(now) {
            self.pace_at = Some(crate::pacing::release_at_rate(now, seg.payload_len, rate));
            return;
        }
        let (ss, ca) = (self.cfg.pacing_ss_ratio, self.cfg.pacing_ca_ratio);
        self.pace_at = crate::pacing::next_release(now, seg.payload_len, cwnd, ssthresh, self.snd.rtt.srtt(), ss, ca);
    }

    pub fn on_timer(&mut self, now: Instant) {
        self.rcv.on_timer(now);
        if let Handshake::Delayed { until } = self.hs {
            if until <= now {
                self.hs = Handshake::Pending { retransmit: false };
            }
        }
        if !self.snd.timer.is_due(now) {
            return;
        }
        match self.state {
            State::SynSent | State::SynReceived => {
                // RFC 6298 (5.5)/(5.6) for the SYN / SYN-ACK.
                self.snd.timer = RtxTimer::Idle;
                self.stats.timeouts += 1;
                self.snd.rtt.back_off();
                self.hs = Handshake::Pending { retransmit: true };
            }
            _ => self.snd.on_timer(now, &mut self.stats),
        }
    }

    /// An ICMP Source Quench about this connection arrived (`quench.rs`): halve
    /// the window at most once per window of data, only once established.
    pub fn on_source_quench(&mut self, now: Instant) {
        match self.state {
            State::Closed | State::Listen | State::SynSent | State::SynReceived | State::Done => {
                self.stats.quenches_received += 1;
            }
            _ => self.snd.on_source_quench(now, &mut self.stats),
        }
    }

    /// Queues `bytes` more application bytes (ignored after `close()` or `send_unlimited()`).
    pub fn send(&mut self, bytes: u64) {
        if let (AppData::Bytes(n), FinState::Open) = (self.snd.app, self.snd.fin) {
            self.snd.app = AppData::Bytes(n + bytes);
        }
    }

    /// An infinite source (ignored after `close()`).
    pub fn send_unlimited(&mut self) {
        if self.snd.fin == FinState::Open {
            self.snd.app = AppData::Unlimited;
        }
    }

    /// FIN once all queued data is sent. After `send_unlimited()` the stream
    /// ends at the highest byte already sent.
    pub fn close(&mut self) {
        if self.snd.fin == FinState::Queued {
            return;
        }
        if self.snd.app == AppData::Unlimited {
            self.snd.app = AppData::Bytes(self.snd.max - 1);
        }
        self.snd.fin = FinState::Queued;
        self.state = match self.state {
            State::Established => State::FinWait,
            State::CloseWait => State::LastAck,
            s => s,
        };
    }

    pub fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }
    pub fn bytes_received(&self) -> u64 {
        self.rcv.bytes_received
    }
    pub fn bytes_acked(&self) -> u64 {
        self.snd.bytes_acked()
    }
    pub fn state(&self) -> State {
        self.state
    }
    pub fn ca_state(&self) -> CaState {
        self.snd.win.phase.ca_state()
    }
    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u32 {
        self.snd.win.cwnd
    }
    pub fn ssthresh(&self) -> u32 {
        self.snd.win.ssthresh
    }
    /// Bytes sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd.flight_size()
    }
    /// Effective MSS (min of ours and the peer's) once the handshake is done.
    pub fn mss(&self) -> u32 {
        self.neg.mss
    }
    /// The send half's SMSS (RFC 5681), the size of its full data segments: the
    /// effective MSS, less the AccECN option's room when its data segments may
    /// carry it (`accecn.rs`).
    pub fn smss(&self) -> u32 {
        self.snd.win.mss
    }
    /// Current retransmission timeout (backed off).
    pub fn rto(&self) -> Duration {
        self.snd.rto()
    }
    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Duration> {
        self.snd.rtt.srtt()
    }
    pub fn ecn_negotiated(&self) -> bool {
        self.neg.ecn
    }
    /// The ECN feedback the handshake agreed (`Off` before it ends).
    pub fn ecn_feedback(&self) -> EcnFeedback {
        self.neg.fb
    }
    /// AccECN Server: the IP-ECN field its SYN-ACK arrived with, as the
    /// Client's first ACK encoded it (RFC 9768 §3.2.2.1), if it did.
    pub fn handshake_feedback(&self) -> Option<Ecn> {
        self.handshake_fb
    }
    /// AccECN: the test of the path that failed, if one did (`rules/accecn_checks.rs`).
    pub fn accecn_failure(&self) -> Option<AccEcnFailure> {
        self.accecn_failure
    }
    /// AccECN: whether the peer's AccECN options are ignored (a zeroed first option).
    pub fn accecn_options_ignored(&self) -> bool {
        self.snd.accecn.as_ref().is_some_and(|a| a.ignore_options)
    }
    /// AccECN: (r.cep, s.cep), the receive half's CE packet counter and the send
    /// half's count decoded from the peer's ACE fields (both from 5).
    pub fn accecn_counters(&self) -> Option<(u64, u64)> {
        Some((self.rcv.accecn.as_ref()?.cep, self.snd.accecn.as_ref()?.cep))
    }
    pub fn sack_negotiated(&self) -> bool {
        self.neg.sack
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// True once the connection is `Done` (both FINs exchanged and acknowledged).
    pub fn is_closed(&self) -> bool {
        self.state == State::Done
    }
    pub fn role(&self) -> Role {
        self.role
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// The send half's congestion control probes (`cc::PROBES`): each it
    /// reports, with its value now (`None`: null).
    pub fn probes(&self, report: crate::cc::ProbeReport) {
        self.snd.cc.probes(report)
    }
    /// DCTCP's α (RFC 8257 §3.3; Prague's too) of the send half, its `dctcp_alpha`
    /// probe; `None` for other congestion controls.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        let mut alpha = None;
        self.probes(&mut |name, v| {
            if name == crate::cc::dctcp::ALPHA {
                alpha = v;
            }
        });
        alpha
    }
    /// The congestion control's name (`cc` in results).
    pub fn cc_name(&self) -> &'static str {
        self.snd.cc.name()
    }
}

/// Effective MSS: ours and the peer's option (RFC 1122 §4.2.2.6 default 536 when absent).
fn effective_mss(own: u32, peer: Option<u16>) -> u32 {
    own.min(peer.map_or(536, u32::from)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// A run holds two connections per live flow (two million with a million flows), so
    /// what one congestion control or one option alone uses (BBR, Prague, AccECN's
    /// counters, receive autotuning, HyStart's send times) lives in a box of its own and a
    /// connection stays within 18 cache lines.
    #[test]
    fn test_a_connection_stays_within_its_size_budget() {
        let (conn, snd, rcv) = (size_of::<Connection>(), size_of::<Sender>(), size_of::<Receiver>());
        assert!(conn <= 18 * 64, "Connection {conn} B (Sender {snd} B, Receiver {rcv} B)");
    }
}

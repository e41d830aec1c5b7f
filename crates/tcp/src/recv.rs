//! The receive half: `rcv_nxt`, out-of-order data, delayed ACKs and the ECN echo.
//!
//! ACK policy (RFC 5681 §4.2, RFC 1122 §4.2.3.2):
//! - with `delayed_ack`: ACK once two full-sized segments' worth of bytes are
//!   unacknowledged, otherwise `delack_timeout` after the first unacknowledged
//!   segment (the timer is not restarted by later segments and is not tick-aligned);
//! - immediately for an out-of-order or duplicate segment, for a segment that
//!   fills (part of) a hole, for a FIN, and when a CE segment arrives while no
//!   ECE is being echoed (RFC 3168 §6.1.3; Linux enters quick-ACK mode there;
//!   not with `ack_ce_at_once` off, as ns-2's DelAck sink);
//! - with `ecn_quickack` (Linux, `rules/receiver_ack.rs`), for a data segment
//!   carrying CWR, and for a CE one while no CWR is awaited and the segments of
//!   the two ACKs after it (quick-ACK mode), DCTCP's receiver too;
//! - without `delayed_ack`: every segment is ACKed at once.
//!
//! DCTCP feedback (RFC 8257 §3.2; with `cc = dctcp` on this endpoint, or `cc =
//! prague` with `prague_feedback = "dctcp"`, as Linux's `dctcp_ece_ack_update`
//! and ns-3's `TcpDctcp` tie it to the receiving socket's congestion control;
//! BBRv3's precise echo too): the state DCTCP.CE is the CE bit of the last
//! data segment, and every ACK carries ECE iff it is set; CWR is ignored. "If
//! the CE codepoint is set and DCTCP.CE is false, set DCTCP.CE to true and send
//! an immediate ACK", and the same for the change back. When an ACK is owed for
//! the data before the changing segment, that ACK goes first with the old ECE
//! (Linux: `__tcp_send_ack(sk, prior_rcv_nxt)`), so ECE runs equal CE runs
//! even with delayed ACKs.
//!
//! AccECN feedback (RFC 9768, with `ecn = accecn` negotiated; `accecn.rs`):
//! the ACE counter replaces the echo above, on every segment; its
//! change-triggered and increment-triggered ACKs are immediate ACKs here.
//! Once the peer's data segments carry the AccECN option (and so leave it 12
//! bytes of the MSS), a full-sized segment is one of MSS − 12 bytes.
//!
//! Any segment this endpoint sends carries the ACK and cancels the pending one.

use crate::accecn::{AccEcnRecv, EcnFeedback, DATA_ROOM};
use crate::assembler::Assembler;
use crate::rcvbuf::{Autotune, OutOfOrder};
use crate::rules::receiver_ack::{CeAck, EcnQuickAck, CE_QUICKACKS};
use crate::stats::TcpStats;
use ecnlab_wire::{Duration, Ecn, Instant, SackBlocks, Segment, TcpFlags};

/// Whether (and when) an ACK is owed to the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AckPending {
    None,
    /// Delayed ACK: `bytes` in-order bytes unacknowledged, ACK by `expires_at`.
    Delayed {
        bytes: u64,
        expires_at: Instant,
    },
    Now,
}

/// RFC 3168 §6.1.3 receiver ECN state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EcnEcho {
    /// ECN not negotiated.
    Disabled,
    /// Negotiated; no congestion to report.
    Quiet,
    /// A CE data packet arrived: ECE on every segment until a CWR arrives.
    Echoing,
    /// RFC 5562 §3.2: the SYN-ACK arrived CE; ECE on the handshake ACK only.
    SynAckCe,
}

/// The ECN feedback an outgoing segment carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Feedback {
    None,
    /// RFC 3168 ECN-Echo.
    Ece,
    /// RFC 9768 ACE field, 3 bits.
    Ace(u8),
}

impl Feedback {
    /// `flags` with this feedback applied (ACE replaces AE, CWR and ECE).
    pub(crate) fn apply(self, flags: TcpFlags) -> TcpFlags {
        match self {
            Feedback::None => flags,
            Feedback::Ece => flags | TcpFlags::ECE,
            Feedback::Ace(ace) => flags.with_ace(ace),
        }
    }
}

/// What `ooo` holds above `rcv_nxt`, for the autotuned window (`rcvbuf.rs`).
fn out_of_order(ooo: &Assembler, rcv_nxt: u64) -> OutOfOrder {
    OutOfOrder { span: ooo.right_edge().map_or(0, |r| r - rcv_nxt), bytes: ooo.bytes() }
}

/// The peer's FIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PeerFin {
    NotSeen,
    /// Seen at this sequence number, but data before it is missing.
    At(u64),
    /// Consumed: `rcv_nxt` is past it.
    Received,
}

/// What one segment delivered to the application.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Delivered {
    pub(crate) bytes: u64,
    pub(crate) fin: bool,
}

/// Fields in declaration order (`repr(C)`), the ones every segment reads first.
#[repr(C)]
#[derive(Clone, Debug)]
pub(crate) struct Receiver {
    pub(crate) rcv_nxt: u64,
    pub(crate) ack: AckPending,
    pub(crate) echo: EcnEcho,
    pub(crate) fin: PeerFin,
    sack: bool,
    delayed_ack: bool,
    /// `TcpConfig::ack_ce_at_once` (`rules/receiver_ack.rs`).
    ce_ack: CeAck,
    /// DCTCP feedback (module doc) instead of RFC 3168's latched echo.
    dctcp: bool,
    /// `TcpConfig::ecn_quickack` (`rules/receiver_ack.rs`).
    quickack: EcnQuickAck,
    /// Linux's `TCP_ECN_DEMAND_CWR`: a CE segment arrived, no CWR since.
    cwr_awaited: bool,
    /// Linux's `icsk_ack.quick`: ACKs still to send at once.
    quick: u8,
    delack: Duration,
    mss: u64,
    /// A full-sized segment for the delayed ACK: the MSS, less the AccECN
    /// option's room once the peer's data carries it (`accecn.rs`).
    full: u64,
    pub(crate) bytes_received: u64,
    /// DCTCP: the ACK owed for the data before a CE change, with the old ECE
    /// (ack number, ece), sent before anything else.
    prior: Option<(u64, bool)>,
    ooo: Assembler,
    /// AccECN negotiated: the ACE counter (`accecn.rs`) instead of the echo (boxed: a
    /// pointer's room in every connection without AccECN).
    pub(crate) accecn: Option<Box<AccEcnRecv>>,
    /// The window offered: `rwnd` (`None`) or Linux's autotuning (`rcvbuf.rs`;
    /// boxed: a pointer's room in every connection that does not autotune).
    autotune: Option<Box<Autotune>>,
    rwnd: u32,
}

impl Receiver {
    pub(crate) fn new(delayed_ack: bool, delack: Duration, ack: (CeAck, EcnQuickAck), dctcp: bool, rwnd: u32) -> Self {
        Receiver {
            autotune: None,
            rwnd,
            rcv_nxt: 0,
            ooo: Assembler::default(),
            sack: false,
            fin: PeerFin::NotSeen,
            ack: AckPending::None,
            echo: EcnEcho::Disabled,
            delayed_ack,
            delack,
            ce_ack: ack.0,
            quickack: ack.1,
            cwr_awaited: false,
            quick: 0,
            dctcp,
            prior: None,
            accecn: None,
            mss: 536,
            full: 536,
            bytes_received: 0,
        }
    }

    /// The peer's SYN (sequence 0) was received: data starts at 1. `accecn`:
    /// the AccECN counters when `fb` is AccECN.
    pub(crate) fn on_syn(&mut self, mss: u32, sack: bool, fb: EcnFeedback, accecn: Option<AccEcnRecv>) {
        self.rcv_nxt = 1;
        self.mss = mss as u64;
        self.full = self.mss;
        self.sack = sack;
        self.echo = if fb == EcnFeedback::Off { EcnEcho::Disabled } else { EcnEcho::Quiet };
        self.accecn = accecn.filter(|_| fb == EcnFeedback::AccEcn).map(Box::new);
    }

    /// Linux's window autotuning from now on (`rcvbuf.rs`); `rtt`: the handshake's.
    pub(crate) fn start_autotune(&mut self, now: Instant, rtt: Option<Duration>) {
        let rwnd = u64::from(self.rwnd);
        self.autotune = Some(Box::new(Autotune::new(rwnd, self.mss, self.sack, now, self.rcv_nxt, rtt)));
    }

    /// The window the next ACK offers, bytes.
    pub(crate) fn window(&mut self) -> u32 {
        match self.autotune.as_mut() {
            Some(a) => a.window(self.rcv_nxt, out_of_order(&self.ooo, self.rcv_nxt)).min(u64::from(u32::MAX)) as u32,
            None => self.rwnd,
        }
    }

    /// AccECN: a segment without payload or FIN (`on_segment` takes the others)
    /// counts in r.cep and may call for an ACK (RFC 9768 §3.2.2.5.1).
    pub(crate) fn on_control(&mut self, ecn: Ecn) {
        if let Some(a) = self.accecn.as_mut() {
            if a.on_packet(ecn, 0) {
                self.ack = AckPending::Now;
            }
        }
    }

    /// Processes the sequence-space part (payload and FIN) of a segment.
    pub(crate) fn on_segment(&mut self, now: Instant, seg: &Segment, st: &mut TcpStats) -> Delivered {
        // ns-2's DelAck sink (ack_ce_at_once off) delays a CE segment like any other.
        let mut immediate = if let Some(a) = self.accecn.as_mut() {
            if seg.payload_len > 0 && seg.accecn.is_some() && self.full == self.mss {
                // `accecn.rs`: the peer's data segments leave room for the option.
                self.full = self.mss.saturating_sub(u64::from(DATA_ROOM)).max(1);
            }
            st.ce_received += u64::from(seg.ecn == Ecn::Ce && seg.payload_len > 0);
            a.on_packet(seg.ecn, seg.payload_len)
        } else if self.dctcp {
            self.on_ecn_dctcp(seg, st)
        } else {
            self.on_ecn(seg, st) && self.ce_ack == CeAck::AtOnce
        };
        immediate |= self.linux_quickack(seg);
        let before = self.rcv_nxt;
        if seg.payload_len > 0 {
            immediate |= self.on_payload(seg.seq, seg.seq + seg.payload_len as u64);
            if let Some(a) = self.autotune.as_mut().filter(|_| self.rcv_nxt > before || seg.seq > before) {
                a.on_data(now, self.rcv_nxt, self.rcv_nxt > before, out_of_order(&self.ooo, self.rcv_nxt));
            }
        }
        let mut out = Delivered { bytes: self.rcv_nxt - before, fin: false };
        self.bytes_received += out.bytes;
        if seg.flags.fin() {
            immediate = true; // a FIN (new or repeated) is acknowledged at once
            if self.fin == PeerFin::NotSeen {
                self.fin = PeerFin::At(seg.seq + seg.payload_len as u64);
            }
        }
        if let PeerFin::At(s) = self.fin {
            if s == self.rcv_nxt {
                self.rcv_nxt += 1;
                self.fin = PeerFin::Received;
                out.fin = true;
            }
        }
        self.schedule_ack(now, immediate, out.bytes);
        out
    }

    /// RFC 3168 §6.1.3: a CWR ends the echo, then a CE (re)starts it. Returns
    /// true when the echo starts (an immediate ACK tells the sender at once).
    fn on_ecn(&mut self, seg: &Segment, st: &mut TcpStats) -> bool {
        if matches!(self.echo, EcnEcho::Disabled) || seg.payload_len == 0 {
            return false;
        }
        if seg.flags.cwr() && self.echo == EcnEcho::Echoing {
            self.echo = EcnEcho::Quiet;
        }
        if seg.ecn != Ecn::Ce {
            return false;
        }
        st.ce_received += 1;
        let starts = self.echo != EcnEcho::Echoing;
        self.echo = EcnEcho::Echoing;
        starts
    }

    /// RFC 8257 §3.2 (module doc): DCTCP.CE follows the CE bit of each data
    /// segment; returns true when it changed (an immediate ACK), after owing
    /// the ACK of the earlier data with the old ECE if one was pending.
    fn on_ecn_dctcp(&mut self, seg: &Segment, st: &mut TcpStats) -> bool {
        if matches!(self.echo, EcnEcho::Disabled) || seg.payload_len == 0 {
            return false;
        }
        let ce = seg.ecn == Ecn::Ce;
        st.ce_received += u64::from(ce);
        let was = self.echo == EcnEcho::Echoing;
        if ce == was {
            return false;
        }
        if self.ack != AckPending::None {
            self.prior = Some((self.rcv_nxt, was));
        }
        self.echo = if ce { EcnEcho::Echoing } else { EcnEcho::Quiet };
        true
    }

    /// `ecn_quickack` (`rules/receiver_ack.rs`): Linux's `tcp_ecn_accept_cwr`, then
    /// `tcp_data_ecn_check`, on a data segment with RFC 3168 feedback; true: ACK it at once.
    fn linux_quickack(&mut self, seg: &Segment) -> bool {
        if self.quickack != EcnQuickAck::Linux
            || matches!(self.echo, EcnEcho::Disabled)
            || self.accecn.is_some()
            || seg.payload_len == 0
        {
            return false;
        }
        let cwr = seg.flags.cwr();
        if cwr {
            self.cwr_awaited = false;
        }
        if seg.ecn == Ecn::Ce && !self.cwr_awaited {
            self.cwr_awaited = true;
            self.quick = self.quick.max(CE_QUICKACKS);
        }
        cwr || self.quick > 0
    }

    /// DCTCP: the ACK owed before a CE change (ack number, ECE), once.
    pub(crate) fn take_prior_ack(&mut self) -> Option<(u64, bool)> {
        self.prior.take()
    }

    /// Places `[start, end)`; returns true when it calls for an immediate ACK.
    fn on_payload(&mut self, start: u64, end: u64) -> bool {
        if end <= self.rcv_nxt {
            return true; // duplicate: RFC 5681 §4.2 / RFC 793 re-ACK
        }
        if start > self.rcv_nxt {
            self.ooo.insert(start, end); // RFC 5681 §4.2: out of order, ACK at once
            return true;
        }
        let filled_hole = !self.ooo.is_empty();
        self.rcv_nxt = self.ooo.advance(end);
        filled_hole // RFC 5681 §4.2: a segment that fills a gap is ACKed at once
    }

    fn schedule_ack(&mut self, now: Instant, immediate: bool, new_bytes: u64) {
        if immediate || !self.delayed_ack {
            self.ack = AckPending::Now;
            return;
        }
        if new_bytes == 0 {
            return;
        }
        self.ack = match self.ack {
            AckPending::None if new_bytes >= 2 * self.full => AckPending::Now,
            AckPending::None => AckPending::Delayed { bytes: new_bytes, expires_at: now + self.delack },
            // RFC 5681 §4.2: ACK at least every second full-sized segment.
            AckPending::Delayed { bytes, .. } if bytes + new_bytes >= 2 * self.full => AckPending::Now,
            AckPending::Delayed { bytes, expires_at } => AckPending::Delayed { bytes: bytes + new_bytes, expires_at },
            AckPending::Now => AckPending::Now,
        };
    }

    /// A SYN-ACK (or SYN) arrived again: re-acknowledge it.
    pub(crate) fn ack_now(&mut self) {
        self.ack = AckPending::Now;
    }

    pub(crate) fn ack_due(&self) -> bool {
        self.ack == AckPending::Now
    }

    pub(crate) fn poll_at(&self) -> Option<Instant> {
        match self.ack {
            AckPending::Delayed { expires_at, .. } => Some(expires_at),
            _ => None,
        }
    }

    /// The delayed-ACK timer: an ACK becomes due.
    pub(crate) fn on_timer(&mut self, now: Instant) {
        if matches!(self.ack, AckPending::Delayed { expires_at, .. } if expires_at <= now) {
            self.ack = AckPending::Now;
        }
    }

    /// (ack, ECN feedback flags, sack blocks) for the next outgoing segment:
    /// ECE while echoing (RFC 3168), or the ACE field (AccECN, replacing AE, CWR, ECE).
    pub(crate) fn ack_fields(&self) -> (u64, Feedback, SackBlocks) {
        let fb = match &self.accecn {
            Some(a) => Feedback::Ace(a.ace()),
            None if matches!(self.echo, EcnEcho::Echoing | EcnEcho::SynAckCe) => Feedback::Ece,
            None => Feedback::None,
        };
        let sack = if self.sack { self.ooo.sack_blocks() } else { SackBlocks::EMPTY };
        (self.rcv_nxt, fb, sack)
    }

    /// A segment carrying our ACK left: nothing is owed any more.
    pub(crate) fn on_ack_sent(&mut self) {
        // Linux `tcp_dec_quickack_mode`: an ACK sent while one was owed uses up a quick ACK.
        if self.ack != AckPending::None {
            self.quick = self.quick.saturating_sub(1);
        }
        self.ack = AckPending::None;
        if let Some(a) = self.accecn.as_mut() {
            a.on_ack_sent();
        }
        if self.echo == EcnEcho::SynAckCe {
            self.echo = EcnEcho::Quiet;
        }
    }
}

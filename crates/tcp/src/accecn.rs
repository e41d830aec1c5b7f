//! Accurate ECN feedback in TCP (RFC 9768, "More Accurate Explicit Congestion
//! Notification (AccECN) Feedback in TCP", Proposed Standard): the ACE field
//! and the AccECN option.
//!
//! **The AccECN option** (§3.2.3). Kind 172 (AccECN0: EE0B, ECEB, EE1B) or 174
//! (AccECN1: EE1B, ECEB, EE0B), each field the 24 least significant bits of a
//! payload byte counter of the Data Receiver (§3.2.3.1), whose wire values
//! start at EE0B = EE1B = 1, ECEB = 0 (§3.2.1; Linux `TCP_ACCECN_*_INIT_OFFSET`).
//! ecnlab uses AccECN1 when more ECT(1) than ECT(0) bytes arrived, else AccECN0
//! (§3.2.3 "the Data Receiver can use whichever order is more efficient"; Linux
//! always sends AccECN1). Which segments carry it is `tcp.accecn_option`, Linux's
//! `tcp_ecn_option` (`TcpConfig::accecn_option`):
//!
//! | value | which segments (after AccECN was negotiated) |
//! |---|---|
//! | 0, `off` | none, the SYN-ACK included: the ACE field alone |
//! | 1, `minimum` | the SYN-ACK; later, a segment while Linux's demand asks for one, or the beacon |
//! | 2, `full` (default) | the SYN-ACK and every later segment, data segments included |
//!
//! The rules, each with its source (tests: `tests/accecn.rs`):
//! - SYN-ACK: §3.2.3.2.1 "A TCP Server that confirms its support for AccECN ...
//!   SHOULD include an AccECN TCP Option on the SYN/ACK", with the initial
//!   counters and as many fields as fit beside MSS, SACK-permitted and window
//!   scale; §3.2.3.2.2: a retransmitted SYN-ACK has none ("SHOULD retransmit the
//!   SYN/ACK, but with no AccECN Option"; Linux `tcp_synack_options`, first
//!   transmission only).
//! - Nothing until the peer sent one: §3.2.3.2.3, a Client whose SYN-ACK had no
//!   option (a Server whose handshake-completing segment had none) "assumes
//!   that the AccECN Option is not available"; like Linux (`saw_accecn_opt` in
//!   `tcp_established_options`) ecnlab then sends none either, until an option
//!   arrives (the RFC would go on sending: "it SHOULD continue to send AccECN
//!   Options itself").
//! - Handshake: §3.2.3.2.1 "A TCP Client that has successfully negotiated AccECN
//!   SHOULD include an AccECN Option in the first ACK at the end of the three-way
//!   handshake ... SHOULD also include an AccECN Option on the first data segment
//!   it sends". `minimum`: a SYN-ACK with the option demands it on the Client's
//!   next two segments (Linux `tcp_ecn_rcv_synack`, `accecn_opt_demand = 2`), and
//!   the Server's first segment after the handshake carries it (Linux
//!   `tcp_ecn_openreq_child`, demand 1).
//! - Demand (`minimum`; Linux `tcp_ecn_received_counters`): a packet whose IP-ECN
//!   field differs from the previous packet's, or that is CE, demands the option
//!   on the next two segments — §3.2.3.3 "Change-Triggered AccECN TCP Options: If
//!   an arriving packet increments a different byte counter to that incremented
//!   by the previous packet, the Data Receiver SHOULD feed it back in an AccECN
//!   Option on the next scheduled ACK", "the Data Receiver SHOULD include a
//!   counter that has continued to increment on the next scheduled ACK following
//!   a change-triggered AccECN TCP Option", "It SHOULD always include an AccECN
//!   Option if the r.ceb counter is incrementing"; and a byte counter passing a
//!   multiple of 2^22 demands it once ("It SHOULD include each counter at least
//!   once for every 2^22 bytes incremented"). Each option sent takes one off the
//!   demand (Linux `tcp_options_write`).
//! - Beacon (`minimum`; Linux `tcp_accecn_option_beacon_check`,
//!   `tcp.accecn_option_beacon`, `tcp_ecn_option_beacon`, default 3): the option
//!   also goes out once (now − last option)·beacon ≥ srtt, so at least `beacon`
//!   times per RTT while segments leave; before the first RTT sample, on every
//!   segment. (RFC 9768 §3.2.3.3 has no per-RTT beacon: while a counter keeps
//!   incrementing it "SHOULD include the counter every n ACKs as consistently as
//!   possible, where n can be chosen by the implementer". Linux's documentation
//!   ties the sysctl to `tcp_ecn_option = 2`, but its code consults it only for 1:
//!   with 2 every segment carries the option anyway.)
//! - Length (§3.2.3.3 "Necessary Option Length: ... MAY be truncated to omit one
//!   or two fields from the end of the option ..., provided that the counter(s)
//!   that have changed since the previous AccECN TCP option are not omitted. If
//!   there is insufficient space ..., then the entire AccECN TCP option MUST be
//!   omitted"): as many fields as fit (Linux `tcp_options_fit_accecn` tries 3
//!   first), at least up to the last changed counter in the order used, else no
//!   option; with only 2 bytes the empty option when nothing changed. The room
//!   is the 40 option bytes less the others before their padding (an option's
//!   padding can serve the next, as Linux fits the option into SACK's two NOPs).
//!   If the changed counters do not fit beside more than two SACK blocks, SACK
//!   blocks are dropped from the oldest, never below two, until they do (Linux
//!   "try to fit AccECN option with SACK"; §3.2.3.3 "If SACK has been negotiated
//!   ..., and the smallest recommended AccECN Option would leave insufficient
//!   space for two SACK blocks ..., the Data Receiver MUST give precedence to the
//!   SACK option").
//! - Data segments: the option takes payload room, so that payload plus option
//!   stays within the MSS. Linux cuts each burst at `tcp_current_mss`, which
//!   subtracts the option's bytes when `tcp_established_options` would add it
//!   (11 bytes padded to 12 beside no SACK: 1448-byte payloads for an MSS of 1460,
//!   its cwnd counted in such segments). ecnlab's data segments keep one grid per
//!   connection (`send.rs`: retransmissions re-cut the same segments), so when the
//!   option may go on data (`minimum` or `full`, and the peer's option seen by the
//!   end of the handshake) the sender's SMSS is the MSS less 12 bytes for the whole
//!   connection: cwnd, IW and segments count in it (pacing does not: Linux paces
//!   at cwnd·`mss_cache`/srtt, `mss_cache` without the option). With `full` every
//!   data segment carries the option; with `minimum` those the demand or beacon
//!   pick (Linux would cut the other bursts at the full MSS). A segment whose
//!   payload leaves less room gets the option only if it fits. The receiving end
//!   counts a segment of MSS − 12 as full-sized for its delayed ACK once data
//!   arrives with the option (Linux measures the peer's segments,
//!   `tcp_measure_rcv_mss`).
//! - Not modelled: the option-loss fall-backs beyond the SYN-ACK (§3.2.3.2.2;
//!   Linux 7.0's `TCP_ACCECN_OPTION_PERSIST`), timestamps beside the option. The
//!   tests of the path (the zeroed option, §3.2.3.2.4; ACE zeroed; the handshake's
//!   IP-ECN field) are `tcp.accecn_checks` (`rules/accecn_checks.rs`).
//!
//! The Data Sender reads ECEB on an ACK of new data: d.ceb = (ECEB − s.ceb) mod
//! 2^24 are the CE bytes since the last option, exact where ACE's Δ·SMSS is an
//! estimate; ACKs without the option are estimated from ACE and the next ECEB
//! corrects the estimate (Appendix A.1; Linux's `tcp_accecn_process_option`).
//!
//! **Negotiation** (§3.1.1, Table 2). An AccECN Client's SYN has
//! (AE, CWR, ECE) = 111. The SYN-ACK tells the Client which feedback both use:
//!
//! | SYN-ACK (AE, CWR, ECE) | Server | feedback mode at the Client |
//! |---|---|---|
//! | 010, 011, 100, 110 | AccECN | AccECN; the value also encodes the SYN's IP-ECN (Table 4 below) |
//! | 001 | RFC 3168 | Classic ECN |
//! | 101 | ECN-nonce (RFC 3540) | Classic ECN |
//! | 000 | no ECN | no ECN |
//! | 111 | a "broken" Server reflecting the flags | no ECN |
//!
//! An AccECN Server answers a 111 SYN with the IP-ECN field of that SYN
//! (§3.1.1, the SYN-ACK row of Table 4), a classic ECN-setup SYN (011) with
//! 001 (Classic ECN, §3.1.1 "A TCP Server in AccECN mode ... MUST respond as
//! RFC 3168"), and anything else with 000. Table 4 (§3.2.2.1), the same code
//! on the SYN-ACK (about the SYN) and on the Client's first ACK (about the
//! SYN-ACK):
//!
//! | IP-ECN received | ACE sent (AE, CWR, ECE) |
//! |---|---|
//! | Not-ECT | 010 |
//! | ECT(1) | 011 |
//! | ECT(0) | 100 |
//! | CE | 110 |
//!
//! ecnlab's Client puts that code on the first segment that acknowledges the
//! SYN-ACK, pure ACK or the first data segment; every later segment carries the
//! counter. The Server reads the code off the segment that completes its
//! handshake (`Connection::handshake_feedback`); a value outside the table
//! (the handshake ACK lost and a later segment completing the handshake) tells it
//! nothing. Reacting to a CE SYN-ACK (§3.1.5) is not implemented.
//!
//! **Data Receiver** (§3.2.2.2, §3.2.2.1). Counters start at r.cep = 5 and
//! r.e0b = r.e1b = r.ceb = 0 bytes (the option adds the RFC's initial wire
//! values, 1 for EE0B and EE1B, to distinguish them from zeroing). Every
//! acceptable packet after the handshake that arrives CE adds 1 to r.cep (CE on
//! the SYN or SYN-ACK is fed back by the handshake code instead), and every data
//! packet adds its payload to the counter of its codepoint. Every segment after
//! the handshake carries ACE = r.cep mod 8. There is no ECE latch and CWR means
//! nothing (§3.2.2: "the Data Receiver ... MUST NOT ... use the ECE flag ...
//! as an RFC 3168 echo"; CWR is part of the counter).
//!
//! When an ACK is emitted (§3.2.2.5.1):
//! - "Change-Triggered ACKs: An AccECN Data Receiver SHOULD emit an ACK whenever
//!   a data packet marked CE arrives after the previous packet was not CE." The
//!   previous packet is any packet, data or not.
//! - "Increment-Triggered ACKs: An AccECN receiver of a packet MUST emit an ACK
//!   if 'n' CE marks have arrived since the previous ACK. If there is
//!   unacknowledged data at the receiver, 'n' SHOULD be 2. If there is no
//!   unacknowledged data at the receiver, 'n' SHOULD be 3 and MUST be no less
//!   than 3. In either case, 'n' MUST be no greater than 7." ecnlab: n = 2
//!   after a data packet, 3 after a packet without data (CE-marked pure ACKs
//!   occur only with `ect_all_packets`). So at most 7 CE marks are covered by one
//!   ACK, and the 3-bit counter cannot wrap between two ACKs that both arrive.
//!
//! **Data Sender** (§3.2.2.4, §3.2.2.5.2, Appendix A.2.1). s.cep starts at 5.
//! On an ACK that acknowledges new data (newlyAckedB > 0: the cumulative
//! advance plus newly SACKed bytes; an ACK without new data may be superseded
//! and is ignored, its news comes with the next one as the counter is
//! cumulative), d.cep = (ACE − s.cep) mod 8. Lost ACKs can hide whole cycles of
//! the counter; §3.2.2.5.2: "If the Data Sender has not received AccECN TCP
//! Options ... and it detects that the ACE field could have cycled, it SHOULD
//! deem whether it cycled by taking the safest likely case under the
//! prevailing conditions. It can detect if the counter could have cycled by
//! using the jump in the acknowledgement number since the last ACK". ecnlab
//! applies Appendix A.2.1's conservative rule with newlyAckedPkt =
//! ⌊newlyAckedB / SMSS⌋: "dSafer.cep = newlyAckedPkt - ((newlyAckedPkt -
//! d.cep) % DIVACE)", and d.cep itself when d.cep ≥ newlyAckedPkt (the
//! appendix's "checks ... for (d.cep > newlyAckedPkt)"); then s.cep += dSafer.cep.
//! With every packet CE-marked this is exact; with fewer marks over a jump of
//! 8 or more packets it may overestimate (the "safest likely case").
//!
//! What the congestion control sees (`recovery.rs`): Δ = dSafer.cep > 0 is an
//! ECN-Echo for Reno and CUBIC (a reduction at most once per window, RFC 3168
//! §6.1.2 through the Cwr phase); DCTCP counts Δ·SMSS CE-marked bytes in its α
//! (RFC 8257 §3.3 with marked bytes estimated from packets as Appendix A.3
//! allows, with SMSS as the segment size since ecnlab's data segments are full
//! except the last), carried until the cumulative ACK covers them. The sender
//! never sets CWR as a signal (§3.2.2: CWR is part of ACE).

use crate::config::AccEcnOptionPolicy;
use crate::rules::accecn_checks::AccEcnChecks;
use ecnlab_wire::{AccEcnOption, Duration, Ecn, Instant, SackBlocks, Segment, TcpFlags};

/// The ECN feedback a connection uses, agreed in the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EcnFeedback {
    /// No ECN.
    Off,
    /// RFC 3168: ECE latched until CWR.
    Classic,
    /// RFC 9768: the ACE counter.
    AccEcn,
}

/// RFC 9768 Table 4: the handshake code for a received IP-ECN field.
pub(crate) fn handshake_code(ecn: Ecn) -> u8 {
    match ecn {
        Ecn::NotEct => 0b010,
        Ecn::Ect1 => 0b011,
        Ecn::Ect0 => 0b100,
        Ecn::Ce => 0b110,
    }
}

/// The IP-ECN field a handshake code stands for (`None` outside Table 4).
pub(crate) fn handshake_ecn(code: u8) -> Option<Ecn> {
    match code {
        0b010 => Some(Ecn::NotEct),
        0b011 => Some(Ecn::Ect1),
        0b100 => Some(Ecn::Ect0),
        0b110 => Some(Ecn::Ce),
        _ => None,
    }
}

/// The SYN flags of an AccECN Client: AE, CWR, ECE all set.
pub(crate) const SYN_FLAGS: TcpFlags = TcpFlags(TcpFlags::AE.0 | TcpFlags::CWR.0 | TcpFlags::ECE.0);

/// Server side of Table 2: the feedback mode for a SYN with `syn` flags, the
/// Server supporting AccECN (`accecn`) and/or classic ECN (`ecn`).
pub(crate) fn server_mode(ecn: bool, accecn: bool, syn: TcpFlags) -> EcnFeedback {
    if accecn && syn.ace() == 0b111 {
        EcnFeedback::AccEcn
    } else if ecn && syn.ece() && syn.cwr() {
        EcnFeedback::Classic // RFC 3168 §6.1.1 (a classic Server ignores AE)
    } else {
        EcnFeedback::Off
    }
}

/// Client side of Table 2, after an AccECN SYN: the mode a SYN-ACK's flags select.
pub(crate) fn client_mode(syn_ack: TcpFlags) -> EcnFeedback {
    match syn_ack.ace() {
        0b000 | 0b111 => EcnFeedback::Off,
        0b001 | 0b101 => EcnFeedback::Classic,
        _ => EcnFeedback::AccEcn,
    }
}

/// RFC 9768 Appendix A.2.1: DIVACE.
const DIVACE: u64 = 8;
/// Initial value of r.cep and s.cep (§3.2.2.1).
pub(crate) const CEP_INIT: u64 = 5;
/// Initial wire values of the option's byte counters (§3.2.1: non-zero for ECT(0)
/// and ECT(1), "to be distinct from cases where the fields are incorrectly zeroed").
const E0B_INIT: u64 = 1;
const E1B_INIT: u64 = 1;
const CEB_INIT: u64 = 0;

/// TCP option space (RFC 9293 §3.1: a data offset of at most 15 words).
pub(crate) const MAX_OPTION_BYTES: u32 = 40;
/// The bytes a data segment leaves for the option when it may carry one: the
/// full option, 2 + 3·3 = 11, padded to 12 (module doc; Linux `tcp_current_mss`).
pub(crate) const DATA_ROOM: u32 = 12;

/// The byte counters as bits of `OptionControl::changed`.
const E0: u8 = 1;
const CE: u8 = 2;
const E1: u8 = 4;

/// Which segments get the option (module doc): Linux's send control.
#[derive(Clone, Debug, PartialEq, Eq)]
struct OptionControl {
    policy: AccEcnOptionPolicy,
    beacon: u8,
    /// An option arrived from the peer (Linux `saw_accecn_opt`): none is sent before.
    usable: bool,
    /// Options owed to the next segments (Linux `accecn_opt_demand`, 0 ..= 2).
    demand: u8,
    /// The byte counters changed since the last option (Linux `accecn_minlen`).
    changed: u8,
    /// The IP-ECN field of the previous packet (Linux `prev_ecnfield`).
    prev: Ecn,
    /// When the last option left (Linux `accecn_opt_tstamp`).
    last: Option<Instant>,
}

/// The Data Receiver's counters (§3.2.2.2), ACK triggers (§3.2.2.5.1) and the
/// option it feeds them back in (§3.2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AccEcnRecv {
    /// r.cep: CE-marked packets received, from 5.
    pub(crate) cep: u64,
    /// r.e0b, r.e1b, r.ceb: payload bytes received ECT(0), ECT(1), CE (the
    /// option's counters, less their initial wire values).
    pub(crate) e0b: u64,
    pub(crate) e1b: u64,
    pub(crate) ceb: u64,
    /// CE marks since the last ACK this end sent.
    ce_since_ack: u32,
    /// The previous packet received was CE.
    last_ce: bool,
    /// The Client's handshake code for the SYN-ACK, until a segment carries it.
    pub(crate) handshake: Option<u8>,
    opt: OptionControl,
}

impl AccEcnRecv {
    /// Counters from their initial values; `policy`, `beacon`: the option's
    /// (`TcpConfig`); `prev`: the IP-ECN field of the SYN or SYN-ACK received.
    pub(crate) fn new(handshake: Option<u8>, policy: AccEcnOptionPolicy, beacon: u8, prev: Ecn) -> Self {
        let opt = OptionControl { policy, beacon, usable: false, demand: 0, changed: 0, prev, last: None };
        AccEcnRecv { cep: CEP_INIT, e0b: 0, e1b: 0, ceb: 0, ce_since_ack: 0, last_ce: false, handshake, opt }
    }

    /// A packet after the handshake arrived with `ecn` and `payload` bytes;
    /// returns true when an ACK is due at once (§3.2.2.5.1).
    pub(crate) fn on_packet(&mut self, ecn: Ecn, payload: u32) -> bool {
        let ce = ecn == Ecn::Ce;
        let bytes = u64::from(payload);
        let counter = match ecn {
            Ecn::Ce => Some((&mut self.ceb, CE)),
            Ecn::Ect0 => Some((&mut self.e0b, E0)),
            Ecn::Ect1 => Some((&mut self.e1b, E1)),
            Ecn::NotEct => None,
        };
        if let Some((counter, bit)) = counter.filter(|_| bytes > 0) {
            let before = *counter;
            *counter += bytes;
            self.opt.changed |= bit;
            if before >> 22 != *counter >> 22 {
                self.opt.demand = self.opt.demand.max(1); // §3.2.3.3: once per 2^22 bytes
            }
        }
        if ecn != self.opt.prev || ce {
            self.opt.prev = ecn; // Linux tcp_ecn_received_counters: the next two segments
            self.opt.demand = 2;
        }
        let change = ce && !self.last_ce && payload > 0;
        self.last_ce = ce;
        if !ce {
            return false;
        }
        self.cep += 1;
        self.ce_since_ack += 1;
        let n = if payload > 0 { 2 } else { 3 };
        change || self.ce_since_ack >= n
    }

    /// The (AE, CWR, ECE) of the next segment: the handshake code once, then r.cep mod 8.
    pub(crate) fn ace(&self) -> u8 {
        self.handshake.unwrap_or((self.cep % DIVACE) as u8)
    }

    /// Client: the SYN-ACK arrived, with the option (`option`) or without.
    pub(crate) fn on_syn_ack(&mut self, option: bool) {
        if option {
            self.opt.usable = true;
            self.opt.demand = 2; // Linux tcp_ecn_rcv_synack
        }
    }

    /// Server: `seg` completes the handshake.
    pub(crate) fn on_handshake_ack(&mut self, seg: &Segment) {
        self.opt.demand = 1; // Linux tcp_ecn_openreq_child
        self.on_segment(seg);
    }

    /// Any segment received once negotiated: an option in it makes ours usable.
    pub(crate) fn on_segment(&mut self, seg: &Segment) {
        self.opt.usable |= seg.accecn.is_some();
    }

    /// The payload room this end's data segments leave for the option, fixed when
    /// the handshake ends (module doc): `DATA_ROOM` when it may carry one.
    pub(crate) fn data_room(&self) -> u32 {
        let may = self.opt.usable && self.opt.policy != AccEcnOptionPolicy::Off;
        if may {
            DATA_ROOM
        } else {
            0
        }
    }

    /// §3.2.3.2.1: the SYN-ACK's option, the initial counters in as many fields as
    /// `room` bytes hold (none with `off`).
    pub(crate) fn syn_ack_option(&self, room: u32) -> Option<AccEcnOption> {
        let fields = fit(room)?;
        (self.opt.policy != AccEcnOptionPolicy::Off).then(|| self.option(fields))
    }

    /// Puts the option on `seg`, leaving at `now` with the smoothed RTT `srtt`,
    /// if the policy says so and it fits (module doc); `mss_room`: what the MSS
    /// leaves beside the payload of a data segment.
    pub(crate) fn stamp(&mut self, seg: &mut Segment, now: Instant, srtt: Option<Duration>, mss_room: u32) {
        if !self.due(now, srtt) {
            return;
        }
        let required = self.required();
        let room = |s: &Segment| MAX_OPTION_BYTES.saturating_sub(s.options_bytes()).min(mss_room);
        let mut with = *seg;
        let mut fields = fit(room(&with));
        // Linux "try to fit AccECN option with SACK": the oldest blocks give way, down to two.
        while fields.is_none_or(|f| f < required) && with.sack.len() > 2 {
            with.sack = first_blocks(&with.sack, with.sack.len() - 1);
            fields = fit(room(&with));
        }
        let Some(fields) = fields.filter(|&f| f >= required) else {
            return; // §3.2.3.3: "the entire AccECN TCP option MUST be omitted"
        };
        with.accecn = Some(self.option(fields));
        *seg = with;
        self.opt.changed = 0;
        self.opt.demand = self.opt.demand.saturating_sub(1);
        self.opt.last = Some(now);
    }

    /// Whether the next segment, leaving at `now`, is to carry the option.
    fn due(&self, now: Instant, srtt: Option<Duration>) -> bool {
        let o = &self.opt;
        if !o.usable {
            return false;
        }
        match o.policy {
            AccEcnOptionPolicy::Off => false,
            AccEcnOptionPolicy::Full => true,
            AccEcnOptionPolicy::Minimum => {
                // Linux tcp_accecn_option_beacon_check: (now - last)·beacon >= srtt.
                let srtt = srtt.map_or(0, |d| d.0);
                let beacon = o.beacon > 0
                    && o.last.is_none_or(|t| now.saturating_since(t).0.saturating_mul(u64::from(o.beacon)) >= srtt);
                o.demand > 0 || beacon
            }
        }
    }

    /// AccECN1's order when more ECT(1) than ECT(0) bytes arrived (module doc).
    fn order1(&self) -> bool {
        self.e1b > self.e0b
    }

    /// The fields the next option needs: up to the last counter changed since
    /// the last option, in the order used.
    fn required(&self) -> u8 {
        let c = self.opt.changed;
        let (first, third) = if self.order1() { (E1, E0) } else { (E0, E1) };
        if c & third != 0 {
            3
        } else if c & CE != 0 {
            2
        } else {
            u8::from(c & first != 0)
        }
    }

    /// The option with the first `fields` counters; wire values from r.e0b = r.e1b
    /// = 1, r.ceb = 0 (§3.2.1), 24 bits each.
    fn option(&self, fields: u8) -> AccEcnOption {
        let w = |v: u64| (v as u32) & AccEcnOption::MASK;
        AccEcnOption {
            order1: self.order1(),
            fields,
            ee0b: w(self.e0b + E0B_INIT),
            eceb: w(self.ceb + CEB_INIT),
            ee1b: w(self.e1b + E1B_INIT),
        }
    }

    /// A segment carrying [`Self::ace`] left.
    pub(crate) fn on_ack_sent(&mut self) {
        self.ce_since_ack = 0;
        self.handshake = None;
    }
}

/// The fields an option of at most `room` bytes holds (2 + 3 per field, at most
/// 3); `None` below the 2-byte empty option.
fn fit(room: u32) -> Option<u8> {
    (room >= 2).then(|| ((room - 2) / 3).min(3) as u8)
}

/// The first `n` of `sack`'s blocks (the most recent first, RFC 2018 §4).
fn first_blocks(sack: &SackBlocks, n: usize) -> SackBlocks {
    let mut out = SackBlocks::EMPTY;
    for &(l, r) in sack.as_slice().iter().take(n) {
        out.push(l, r);
    }
    out
}

/// The Data Sender's counters (§3.2.2.4) and the CE bytes DCTCP has still to see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AccEcnSend {
    /// s.cep, from 5.
    pub(crate) cep: u64,
    /// s.ceb: the ECEB last read from an AccECN option (wire value, from 0).
    ceb: u32,
    /// CE bytes learnt from options in all.
    pub(crate) ceb_total: u64,
    /// CE bytes credited from ACE (Δ·SMSS) since the last option's ECEB.
    estimated: u64,
    /// CE bytes not yet handed to the congestion control as marked bytes.
    pub(crate) ce_bytes: u64,
    /// `rules/accecn_checks.rs`: whether the first AccECN option is still to be checked,
    /// whether a failed check made the options (`ignore_options`) or the CE feedback
    /// altogether (`ignore_ce`) untrusted.
    option_unchecked: bool,
    pub(crate) ignore_options: bool,
    pub(crate) ignore_ce: bool,
}

impl AccEcnSend {
    pub(crate) fn new() -> Self {
        AccEcnSend {
            cep: CEP_INIT,
            ceb: CEB_INIT as u32,
            ceb_total: 0,
            estimated: 0,
            ce_bytes: 0,
            option_unchecked: true,
            ignore_options: false,
            ignore_ce: false,
        }
    }

    /// RFC 9768 §3.2.3.2.4 (`rules/accecn_checks.rs`): the first AccECN option received
    /// is checked for zeroing; a zeroed one makes every later option ignored.
    pub(crate) fn check_option(&mut self, checks: AccEcnChecks, option: Option<&AccEcnOption>) {
        if let Some(o) = option.filter(|_| self.option_unchecked) {
            self.option_unchecked = false;
            self.ignore_options = checks.option_fails(o);
        }
    }

    /// An ACK with field `ace` and the ECEB of its AccECN option (`ceb`), that
    /// newly acknowledges `newly_acked` bytes (cumulatively or by SACK): the CE
    /// packets it reports (module doc). The CE bytes come from ECEB when the ACK
    /// has it (correcting what ACE estimated since the last one), else Δ·SMSS.
    pub(crate) fn on_ack(&mut self, ace: u8, ceb: Option<u32>, newly_acked: u64, mss: u32) -> u64 {
        if newly_acked == 0 {
            return 0; // possibly superseded: the next ACK of new data carries the count
        }
        let d = (u64::from(ace) + DIVACE - self.cep % DIVACE) % DIVACE;
        let pkts = newly_acked / u64::from(mss.max(1));
        let safer = if pkts > d { pkts - (pkts - d) % DIVACE } else { d };
        self.cep += safer;
        if self.ignore_ce {
            return 0; // `rules/accecn_checks.rs`: the ACE field failed its test
        }
        let ceb = ceb.filter(|_| !self.ignore_options);
        match ceb {
            Some(c) => self.on_ceb(c),
            None => {
                self.ce_bytes += safer * u64::from(mss);
                self.estimated += safer * u64::from(mss);
            }
        }
        safer
    }

    /// §3.2.3 with Appendix A.1: d.ceb = (ECEB − s.ceb) mod 2^24; what ACE already
    /// credited since the last ECEB is taken back from it.
    fn on_ceb(&mut self, c: u32) {
        let d = u64::from(c.wrapping_sub(self.ceb) & AccEcnOption::MASK);
        self.ceb = c;
        self.ceb_total += d;
        let est = std::mem::take(&mut self.estimated);
        if d >= est {
            self.ce_bytes += d - est;
        } else {
            self.ce_bytes = self.ce_bytes.saturating_sub(est - d);
        }
    }

    /// Of `acked` bytes newly acknowledged cumulatively, those deemed CE-marked.
    pub(crate) fn take_marked(&mut self, acked: u64) -> u64 {
        let m = self.ce_bytes.min(acked);
        self.ce_bytes -= m;
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    /// RFC 9768 Table 4: Not-ECT 010, ECT(1) 011, ECT(0) 100, CE 110, and back.
    #[test]
    fn test_handshake_codes_are_table_4() {
        let t = [(Ecn::NotEct, 0b010), (Ecn::Ect1, 0b011), (Ecn::Ect0, 0b100), (Ecn::Ce, 0b110)];
        for (ecn, code) in t {
            assert_eq!(handshake_code(ecn), code);
            assert_eq!(handshake_ecn(code), Some(ecn));
        }
        for code in [0b000, 0b001, 0b101, 0b111] {
            assert_eq!(handshake_ecn(code), None);
        }
    }

    /// RFC 9768 Table 2, the rows an AccECN Client meets.
    #[test]
    fn test_client_mode_is_table_2() {
        let f = |ace: u8| client_mode(TcpFlags::SYN.with_ace(ace));
        for ace in [0b010, 0b011, 0b100, 0b110] {
            assert_eq!(f(ace), EcnFeedback::AccEcn);
        }
        assert_eq!(f(0b001), EcnFeedback::Classic, "RFC 3168 Server");
        assert_eq!(f(0b101), EcnFeedback::Classic, "ECN-nonce Server");
        assert_eq!(f(0b000), EcnFeedback::Off, "non-ECN Server");
        assert_eq!(f(0b111), EcnFeedback::Off, "a Server that reflects the flags");
    }

    #[test]
    fn test_server_mode() {
        let classic_syn = TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR;
        let acc_syn = TcpFlags::SYN | SYN_FLAGS;
        assert_eq!(server_mode(true, true, acc_syn), EcnFeedback::AccEcn);
        assert_eq!(server_mode(true, true, classic_syn), EcnFeedback::Classic);
        assert_eq!(server_mode(true, false, acc_syn), EcnFeedback::Classic);
        assert_eq!(server_mode(false, false, acc_syn), EcnFeedback::Off);
        assert_eq!(server_mode(true, true, TcpFlags::SYN), EcnFeedback::Off);
    }

    /// §3.2.2.5.1: an ACK at a CE data packet after a non-CE one, and once 2 CE
    /// marks arrived since the last ACK (3 for packets without data).
    #[test]
    fn test_receiver_triggers() {
        let mut r = recv(AccEcnOptionPolicy::Full);
        assert_eq!(r.ace(), 5);
        assert!(!r.on_packet(Ecn::Ect0, 1000));
        assert!(r.on_packet(Ecn::Ce, 1000), "change-triggered");
        r.on_ack_sent();
        assert!(!r.on_packet(Ecn::Ce, 1000), "no change, one mark since the ACK");
        assert!(r.on_packet(Ecn::Ce, 1000), "increment-triggered, n = 2");
        assert_eq!(r.cep, 8);
        assert_eq!(r.ace(), 0, "8 mod 8");
        r.on_ack_sent();
        assert!(!r.on_packet(Ecn::Ect0, 1000));
        assert!(!r.on_packet(Ecn::Ce, 0), "a CE pure ACK: no change trigger");
        assert!(!r.on_packet(Ecn::Ce, 0));
        assert!(r.on_packet(Ecn::Ce, 0), "n = 3 without data");
        assert_eq!((r.e0b, r.ceb, r.e1b), (2000, 3000, 0));
    }

    /// Appendix A.2.1's examples: "if an ACK acknowledges newlyAckedPkt=9 ... and
    /// ACE increments by a minimum of 2 CE marks (d.cep=2) ... it would still be safe
    /// to assume 2 CE marks ... if ACE increases by a minimum of 2 but acknowledges 10
    /// full-sized segments, then it would be necessary to assume that there could
    /// have been 10 CE marks".
    #[test]
    fn test_sender_safety_examples_of_appendix_a2() {
        let mut s = AccEcnSend::new();
        assert_eq!(s.on_ack(7, None, 9 * MSS as u64, MSS), 2);
        let mut s = AccEcnSend::new();
        assert_eq!(s.on_ack(7, None, 10 * MSS as u64, MSS), 10);
        assert_eq!(s.cep, 15);
        assert_eq!(s.on_ack(0, None, 0, MSS), 0, "no new data: ignored");
        assert_eq!(s.on_ack(1, None, 500, MSS), 2, "d.cep > newlyAckedPkt: d.cep");
        assert_eq!(s.cep, 17);
    }

    /// A Data Receiver past the handshake whose peer sent the option.
    fn recv(policy: AccEcnOptionPolicy) -> AccEcnRecv {
        let mut r = AccEcnRecv::new(None, policy, 3, Ecn::NotEct);
        r.on_syn_ack(true);
        r
    }

    /// A pure ACK as `stamp` leaves it, with `sack` blocks of 8 bytes each.
    fn stamped(r: &mut AccEcnRecv, at_ms: u64, sack: usize) -> Segment {
        let mut seg = Segment { flags: TcpFlags::ACK, ..Segment::default() };
        for i in 0..sack as u64 {
            seg.sack.push(100 * i, 100 * i + 50);
        }
        r.stamp(&mut seg, Instant::ZERO + Duration::from_millis(at_ms), Some(Duration::from_millis(30)), u32::MAX);
        seg
    }

    /// §3.2.1 / §3.2.3: the option's wire counters start at EE0B = EE1B = 1 and ECEB
    /// = 0 and count payload bytes mod 2^24; the order follows the codepoint in use;
    /// it is cut to the fields that fit (2 + 3n bytes) and to the empty option.
    #[test]
    fn test_receiver_option_counts_bytes_from_the_initial_offsets() {
        let mut r = recv(AccEcnOptionPolicy::Full);
        let o = r.option(3);
        assert_eq!((o.order1, o.fields, o.ee0b, o.eceb, o.ee1b), (false, 3, 1, 0, 1));
        r.on_packet(Ecn::Ect1, 1000);
        r.on_packet(Ecn::Ce, 1400);
        let o = r.option(3);
        assert!(o.order1, "ECT(1) in use: AccECN1, EE1B first");
        assert_eq!((o.ee0b, o.eceb, o.ee1b), (1, 1400, 1001));
        assert_eq!(
            (fit(40), fit(11), fit(10), fit(8), fit(5), fit(4), fit(2), fit(1)),
            (Some(3), Some(3), Some(2), Some(2), Some(1), Some(0), Some(0), None)
        );
        r.ceb = (1 << 24) + 5;
        assert_eq!(r.option(3).eceb, 5, "24-bit wrap");
    }

    /// §3.2.3.3 "Necessary Option Length": fields may be left off the end, never a
    /// counter changed since the last option; then the option is left out. Beside
    /// four SACK blocks (34 bytes) 6 bytes are left: one field, EE0B, fits; when CE
    /// changed too the oldest SACK block gives way (Linux "try to fit AccECN option
    /// with SACK"), but never below two blocks.
    #[test]
    fn test_option_keeps_the_changed_counters_or_is_left_out() {
        let mut r = recv(AccEcnOptionPolicy::Full);
        r.on_packet(Ecn::Ect0, 1000);
        let seg = stamped(&mut r, 0, 4);
        assert_eq!((seg.sack.len(), seg.accecn.unwrap().fields), (4, 1), "EE0B changed: one field will do");
        assert!(seg.options_len() <= MAX_OPTION_BYTES);
        r.on_packet(Ecn::Ce, 1000);
        let seg = stamped(&mut r, 1, 4);
        assert_eq!((seg.sack.len(), seg.accecn.unwrap().fields), (3, 3), "CE changed: one SACK block gives way");
        let seg = stamped(&mut r, 2, 4);
        assert_eq!((seg.sack.len(), seg.accecn.unwrap().fields), (4, 1), "nothing changed: SACK keeps its room");
        // ECT(1) overtakes ECT(0): AccECN1, whose third field EE0B did not change.
        r.on_packet(Ecn::Ect1, 3000);
        assert!(r.option(3).order1);
        assert_eq!(r.required(), 1);
        r.on_packet(Ecn::Ect0, 10);
        assert_eq!(r.required(), 3, "EE0B is AccECN1's third field");
        let mut seg = Segment { flags: TcpFlags::ACK, ..Segment::default() };
        r.stamp(&mut seg, Instant::ZERO, None, 8);
        assert_eq!(seg.accecn, None, "three fields needed, 8 bytes of room: no option at all");
    }

    /// The SYN-ACK's option (§3.2.3.2.1) holds the initial counters, as many as fit;
    /// `off` sends none.
    #[test]
    fn test_syn_ack_option_is_the_initial_counters() {
        let r = AccEcnRecv::new(None, AccEcnOptionPolicy::Minimum, 3, Ecn::NotEct);
        let o = r.syn_ack_option(30).unwrap();
        assert_eq!((o.fields, o.ee0b, o.eceb, o.ee1b), (3, 1, 0, 1));
        assert_eq!(r.syn_ack_option(7).unwrap().fields, 1);
        let off = AccEcnRecv::new(None, AccEcnOptionPolicy::Off, 3, Ecn::NotEct);
        assert_eq!(off.syn_ack_option(30), None);
    }

    /// Linux `tcp_ecn_received_counters`: a codepoint change or a CE packet demands the
    /// option on the next two segments; a counter passing a multiple of 2^22 bytes on
    /// the next one (§3.2.3.3 "at least once for every 2^22 bytes"); and the beacon
    /// (`tcp_accecn_option_beacon_check`) once srtt/beacon passed since the last one.
    #[test]
    fn test_minimum_demand_and_beacon() {
        let mut r = recv(AccEcnOptionPolicy::Minimum);
        assert!(stamped(&mut r, 0, 0).accecn.is_some(), "SYN-ACK demand 2: first");
        assert!(stamped(&mut r, 0, 0).accecn.is_some(), "and second");
        assert!(stamped(&mut r, 9, 0).accecn.is_none(), "9 ms · 3 < 30 ms srtt");
        assert!(stamped(&mut r, 10, 0).accecn.is_some(), "beacon: 10 ms · 3 >= 30 ms");
        r.on_packet(Ecn::NotEct, 0);
        assert!(stamped(&mut r, 11, 0).accecn.is_none(), "no change");
        r.on_packet(Ecn::Ect0, 1000);
        assert!(stamped(&mut r, 12, 0).accecn.is_some(), "Not-ECT → ECT(0)");
        assert!(stamped(&mut r, 13, 0).accecn.is_some(), "… and the next");
        r.on_packet(Ecn::Ect0, 1000);
        assert!(stamped(&mut r, 14, 0).accecn.is_none(), "ECT(0) again: no demand");
        r.on_packet(Ecn::Ce, 1000);
        r.on_packet(Ecn::Ce, 1000);
        let (a, b) = (stamped(&mut r, 15, 0), stamped(&mut r, 16, 0));
        assert!(a.accecn.is_some() && b.accecn.is_some(), "CE: two");
        assert!(stamped(&mut r, 17, 0).accecn.is_none());
        r.e0b = (1 << 22) - 10;
        r.opt.prev = Ecn::Ect0;
        r.on_packet(Ecn::Ect0, 1000);
        assert!(stamped(&mut r, 18, 0).accecn.is_some(), "2^22 crossed: one");
        assert!(stamped(&mut r, 19, 0).accecn.is_none());
        let mut quiet = AccEcnRecv::new(None, AccEcnOptionPolicy::Minimum, 0, Ecn::NotEct);
        quiet.on_syn_ack(false);
        assert!(stamped(&mut quiet, 0, 0).accecn.is_none(), "no option from the peer: none");
        quiet.on_segment(&Segment { accecn: Some(AccEcnOption::default()), ..Segment::default() });
        assert!(stamped(&mut quiet, 100, 0).accecn.is_none(), "beacon 0: off; demand spent");
    }

    /// §3.2.3 / Appendix A.1: with ECEB the sender counts CE bytes exactly, across the
    /// 24-bit wrap; ACKs without the option are estimated from ACE (Δ·SMSS) and the
    /// next ECEB corrects the estimate, so the total handed over is exact.
    #[test]
    fn test_sender_ceb_is_exact_and_corrects_ace_estimates() {
        let mut s = AccEcnSend::new();
        s.on_ack(6, Some(700), 1000, MSS); // one CE packet of 700 bytes
        assert_eq!(s.take_marked(10_000), 700);
        s.on_ack(7, None, 1000, MSS); // one more CE packet, no option: 1000 estimated
        assert_eq!(s.ce_bytes, 1000);
        s.on_ack(7, Some(700 + 300), 1000, MSS); // ECEB: it was 300 bytes
        assert_eq!(s.take_marked(10_000), 300, "estimate corrected");
        s.ceb = AccEcnOption::MASK - 99;
        s.on_ack(0, Some(100), 1000, MSS);
        assert_eq!(s.take_marked(10_000), 200, "across the 24-bit wrap");
        assert_eq!(s.ceb_total, 700 + 300 + 200);
    }

    /// Without lost ACKs (every ACK covering fewer than 8 packets) the sender's
    /// count follows the receiver's exactly across many wraps.
    #[test]
    fn test_counter_wraps_decode_exactly() {
        let (mut r, mut s) = (recv(AccEcnOptionPolicy::Off), AccEcnSend::new());
        let mut learnt = 0;
        for i in 0..200u64 {
            let ce = i % 3 != 0;
            r.on_packet(if ce { Ecn::Ce } else { Ecn::Ect0 }, MSS);
            if i % 2 == 1 {
                learnt += s.on_ack(r.ace(), None, 2 * MSS as u64, MSS);
                r.on_ack_sent();
            }
        }
        assert_eq!(learnt + CEP_INIT, r.cep);
        assert_eq!(s.cep, r.cep);
    }
}

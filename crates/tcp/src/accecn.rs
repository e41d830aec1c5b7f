//! Accurate ECN feedback in TCP (RFC 9768, "More Accurate Explicit Congestion
//! Notification (AccECN) Feedback in TCP", Proposed Standard): the ACE field
//! and the AccECN option.
//!
//! **The AccECN option** (§3.2.3; `tcp.accecn_option`, Linux's `tcp_ecn_option`):
//! with `full` (Linux's default 2) every segment without data after the
//! handshake carries it, with as many of its three 24-bit counters as fit the
//! option bytes SACK leaves (none below one field; Linux also puts it on data
//! segments, shortening their payload; its beacon and `minimum` policy are
//! not modelled). The counters' wire values start at EE0B = EE1B = 1, ECEB = 0
//! (§3.2.1). The order is AccECN1 (kind 174: EE1B, ECEB, EE0B) when more ECT(1)
//! than ECT(0) bytes arrived, else AccECN0 (172: EE0B, ECEB, EE1B). The Data
//! Sender reads ECEB on an ACK of new data: d.ceb = (ECEB − s.ceb) mod 2^24 are
//! the CE bytes since the last option, exact where ACE's Δ·SMSS is an estimate;
//! ACKs without the option are estimated from ACE and the next ECEB corrects the
//! estimate (Appendix A.1; Linux's `tcp_accecn_process_option`).
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

use ecnlab_wire::{AccEcnOption, Ecn, TcpFlags};

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

/// The Data Receiver's counters (§3.2.2.2) and ACK triggers (§3.2.2.5.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AccEcnRecv {
    /// r.cep: CE-marked packets received, from 5.
    pub(crate) cep: u64,
    /// r.e0b, r.e1b, r.ceb: payload bytes received ECT(0), ECT(1), CE (kept for
    /// the AccECN option, not sent).
    pub(crate) e0b: u64,
    pub(crate) e1b: u64,
    pub(crate) ceb: u64,
    /// CE marks since the last ACK this end sent.
    ce_since_ack: u32,
    /// The previous packet received was CE.
    last_ce: bool,
    /// The Client's handshake code for the SYN-ACK, until a segment carries it.
    pub(crate) handshake: Option<u8>,
}

impl AccEcnRecv {
    pub(crate) fn new(handshake: Option<u8>) -> Self {
        AccEcnRecv { cep: CEP_INIT, e0b: 0, e1b: 0, ceb: 0, ce_since_ack: 0, last_ce: false, handshake }
    }

    /// A packet after the handshake arrived with `ecn` and `payload` bytes;
    /// returns true when an ACK is due at once (§3.2.2.5.1).
    pub(crate) fn on_packet(&mut self, ecn: Ecn, payload: u32) -> bool {
        let ce = ecn == Ecn::Ce;
        let bytes = u64::from(payload);
        match ecn {
            Ecn::Ce => self.ceb += bytes,
            Ecn::Ect0 => self.e0b += bytes,
            Ecn::Ect1 => self.e1b += bytes,
            Ecn::NotEct => {}
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

    /// The AccECN option with every counter, as far as `room` option bytes allow
    /// (§3.2.3; none below one field). Wire values start at r.e0b = r.e1b = 1,
    /// r.ceb = 0 (§3.2.1, Linux's `TCP_ACCECN_*_INIT_OFFSET`); AccECN1's order when
    /// more ECT(1) than ECT(0) bytes arrived, so that the counter in use and CE
    /// come first if the option has to be cut short.
    pub(crate) fn option(&self, room: u32) -> Option<AccEcnOption> {
        let fields = (room.saturating_sub(2) / 3).min(3) as u8;
        if fields == 0 {
            return None;
        }
        let w = |v: u64| (v as u32) & AccEcnOption::MASK;
        Some(AccEcnOption {
            order1: self.e1b > self.e0b,
            fields,
            ee0b: w(self.e0b + E0B_INIT),
            eceb: w(self.ceb + CEB_INIT),
            ee1b: w(self.e1b + E1B_INIT),
        })
    }

    /// A segment carrying [`Self::ace`] left.
    pub(crate) fn on_ack_sent(&mut self) {
        self.ce_since_ack = 0;
        self.handshake = None;
    }
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
}

impl AccEcnSend {
    pub(crate) fn new() -> Self {
        AccEcnSend { cep: CEP_INIT, ceb: CEB_INIT as u32, ceb_total: 0, estimated: 0, ce_bytes: 0 }
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
        let mut r = AccEcnRecv::new(None);
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

    /// §3.2.1 / §3.2.3: the option's wire counters start at EE0B = EE1B = 1 and ECEB
    /// = 0 and count payload bytes mod 2^24; the order follows the codepoint in use;
    /// it is cut to the fields that fit (2 + 3n bytes) and left out below one.
    #[test]
    fn test_receiver_option_counts_bytes_from_the_initial_offsets() {
        let mut r = AccEcnRecv::new(None);
        let o = r.option(40).unwrap();
        assert_eq!((o.order1, o.fields, o.ee0b, o.eceb, o.ee1b), (false, 3, 1, 0, 1));
        r.on_packet(Ecn::Ect1, 1000);
        r.on_packet(Ecn::Ce, 1400);
        let o = r.option(40).unwrap();
        assert!(o.order1, "ECT(1) in use: AccECN1, EE1B first");
        assert_eq!((o.ee0b, o.eceb, o.ee1b), (1, 1400, 1001));
        assert_eq!(r.option(8).unwrap().fields, 2);
        assert_eq!(r.option(5).unwrap().fields, 1);
        assert_eq!(r.option(4), None);
        r.ceb = (1 << 24) + 5;
        assert_eq!(r.option(40).unwrap().eceb, 5, "24-bit wrap");
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
        let (mut r, mut s) = (AccEcnRecv::new(None), AccEcnSend::new());
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

//! A [`Segment`] to and from the bytes of a real IPv4/TCP packet, for pcap
//! traces and for tests against independent readers.
//!
//! - IPv4 header (RFC 791 §3.1): IHL 5, TTL 64, DF set, the ECN field from
//!   `seg.ecn` (RFC 3168 §5), a caller-given identification, and the header
//!   checksum of RFC 1071.
//! - TCP header (RFC 9293 §3.1): sequence and acknowledgment numbers written
//!   modulo 2^32 after adding the per-direction ISNs (RFC 9293 §3.4.1), the
//!   window as given clamped to 65535 (the caller shifts it by the
//!   connection's window scale, RFC 7323 §2.3), ECE/CWR as given (RFC 3168
//!   §6.1), and the checksum over pseudo-header, header and data.
//! - Options: MSS (kind 2, RFC 9293 §3.7.1), SACK-permitted (kind 4, RFC 2018
//!   §2), SACK (kind 5, RFC 2018 §3) and window scale (NOP + kind 3, RFC 7323
//!   §2.2), padded with NOPs to a multiple of four bytes, in exactly
//!   [`Segment::options_len`] bytes. The padding sits
//!   after MSS, so the 2-byte-aligned options end on a word boundary
//!   (`MSS NOP NOP SACK-PERM`, `NOP NOP SACK`, as RFC 2018 §3 suggests).
//! - The payload is `payload_len` copies of a fill byte: the simulator moves
//!   no application data.
//!
//! [`parse_ipv4_tcp`] inverts [`emit_ipv4_tcp`]; sequence numbers come back
//! modulo 2^32, relative to the ISNs.

use crate::ipv4::{self, Ipv4Error, Ipv4Packet};
use crate::tcp::{self, kind, TcpError, TcpOption, TcpPacket};
use crate::{checksum, AccEcnOption, Ecn, SackBlocks, Segment, TcpFlags};
use thiserror::Error;

/// TTL of emitted packets (the Linux default, `net.ipv4.ip_default_ttl`).
pub const DEFAULT_TTL: u8 = 64;
/// Largest IPv4 datagram, bytes (RFC 791 §3.1 "Total Length" is 16 bits).
pub const MAX_IPV4_LEN: u32 = 65535;

/// Addresses, ports and initial sequence numbers of one direction of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Endpoints {
    pub src_addr: [u8; 4],
    pub dst_addr: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    /// Added to `seg.seq`: the sender's ISN (the SYN's wire sequence number).
    pub src_isn: u32,
    /// Added to `seg.ack` and SACK edges: the receiver's ISN.
    pub dst_isn: u32,
}

impl Endpoints {
    /// The same flow seen from the other end (for the ACK direction).
    pub fn reversed(&self) -> Endpoints {
        Endpoints {
            src_addr: self.dst_addr,
            dst_addr: self.src_addr,
            src_port: self.dst_port,
            dst_port: self.src_port,
            src_isn: self.dst_isn,
            dst_isn: self.src_isn,
        }
    }
}

/// Why a segment cannot be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum EmitError {
    #[error("segment needs a {len}-byte IPv4 packet, above the 65535-byte maximum")]
    TooLong { len: u32 },
}

/// Why bytes are not an IPv4/TCP packet this module can turn into a [`Segment`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error(transparent)]
    Ipv4(#[from] Ipv4Error),
    #[error(transparent)]
    Tcp(#[from] TcpError),
    #[error("IP version {0}, expected 4")]
    NotIpv4(u8),
    #[error("IP protocol {0}, expected 6 (TCP)")]
    NotTcp(u8),
    #[error("IPv4 fragment (fragments are not reassembled)")]
    Fragment,
    #[error("bad IPv4 header checksum")]
    BadIpChecksum,
    #[error("bad TCP checksum")]
    BadTcpChecksum,
}

/// Writes `seg` as a complete IPv4/TCP packet of `seg.wire_len()` bytes into
/// `buf` (cleared first, so one buffer serves many packets).
pub fn emit_ipv4_tcp(
    seg: &Segment,
    ep: &Endpoints,
    ident: u16,
    payload_fill: u8,
    buf: &mut Vec<u8>,
) -> Result<(), EmitError> {
    let len = seg.wire_len();
    let total_len = u16::try_from(len).map_err(|_| EmitError::TooLong { len })?;
    buf.clear();
    buf.resize(len as usize, payload_fill);
    let tcp_header_len = tcp::HEADER_LEN + seg.options_len() as usize;
    let mut ip = Ipv4Packet::new_unchecked(&mut buf[..]);
    emit_ipv4_header(&mut ip, seg.ecn, total_len, ident, ep);
    let mut tcp = TcpPacket::new_unchecked(ip.payload_mut());
    emit_tcp_header(&mut tcp, seg, ep, tcp_header_len);
    emit_options(tcp.options_mut(), seg, ep.dst_isn);
    tcp.fill_checksum(ep.src_addr, ep.dst_addr);
    Ok(())
}

fn emit_ipv4_header(ip: &mut Ipv4Packet<&mut [u8]>, ecn: Ecn, total_len: u16, ident: u16, ep: &Endpoints) {
    ip.set_version_and_header_len(4, ipv4::HEADER_LEN);
    ip.set_dscp(0);
    ip.set_ecn(ecn);
    ip.set_total_len(total_len);
    ip.set_ident(ident);
    ip.set_frag(true, false, 0);
    ip.set_ttl(DEFAULT_TTL);
    ip.set_protocol(checksum::PROTO_TCP);
    ip.set_src_addr(ep.src_addr);
    ip.set_dst_addr(ep.dst_addr);
    ip.fill_checksum();
}

fn emit_tcp_header(tcp: &mut TcpPacket<&mut [u8]>, seg: &Segment, ep: &Endpoints, hlen: usize) {
    tcp.set_src_port(ep.src_port);
    tcp.set_dst_port(ep.dst_port);
    tcp.set_seq_number(wire_seq(seg.seq, ep.src_isn));
    // RFC 9293 §3.1: the acknowledgment field is meaningful only with ACK set.
    let ack = if seg.flags.ack() { wire_seq(seg.ack, ep.dst_isn) } else { 0 };
    tcp.set_ack_number(ack);
    tcp.set_header_len(hlen);
    tcp.set_flags(seg.flags);
    tcp.set_window_len(seg.window.min(u32::from(u16::MAX)) as u16);
    tcp.set_checksum(0);
    tcp.set_urgent_at(0);
}

/// `isn + seq` modulo 2^32 (RFC 9293 §3.4: sequence arithmetic is modulo 2^32).
fn wire_seq(seq: u64, isn: u32) -> u32 {
    (seq as u32).wrapping_add(isn)
}

/// Writes the options into `out` (exactly `seg.options_len()` bytes).
fn emit_options(out: &mut [u8], seg: &Segment, ack_isn: u32) {
    let mut w = OptionWriter { out, at: 0 };
    if let Some(mss) = seg.mss {
        let [hi, lo] = mss.to_be_bytes();
        w.put(&[kind::MSS, 4, hi, lo]);
    }
    let accecn_len = seg.accecn.map_or(0, |o| o.len() as usize);
    let unpadded = w.at
        + 2 * usize::from(seg.sack_permitted)
        + sack_option_len(&seg.sack)
        + 4 * usize::from(seg.wscale.is_some())
        + accecn_len;
    for _ in unpadded..w.out.len() {
        w.put(&[kind::NOP]);
    }
    if let Some(o) = seg.accecn {
        w.put(&[o.kind(), o.len() as u8]);
        for v in o.in_order().iter().take(usize::from(o.fields)) {
            w.put(&(v & AccEcnOption::MASK).to_be_bytes()[1..]);
        }
    }
    if seg.sack_permitted {
        w.put(&[kind::SACK_PERMITTED, 2]);
    }
    if !seg.sack.is_empty() {
        w.put(&[kind::SACK, sack_option_len(&seg.sack) as u8]);
        for &(left, right) in seg.sack.as_slice() {
            w.put(&wire_seq(left, ack_isn).to_be_bytes());
            w.put(&wire_seq(right, ack_isn).to_be_bytes());
        }
    }
    if let Some(shift) = seg.wscale {
        w.put(&[kind::NOP, kind::WSCALE, 3, shift]);
    }
    debug_assert_eq!(w.at, w.out.len(), "options must fill Segment::options_len()");
}

fn sack_option_len(sack: &SackBlocks) -> usize {
    if sack.is_empty() {
        0
    } else {
        2 + 8 * sack.len()
    }
}

struct OptionWriter<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl OptionWriter<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Parses an IPv4/TCP packet back into a [`Segment`]: checks the lengths, the
/// version, protocol, both checksums, and that it is not a fragment. `seq`
/// and SACK edges are returned relative to `src_isn`/`dst_isn` as in
/// [`Endpoints`], modulo 2^32; `ack` is 0 unless ACK is set; `retransmit` is
/// false (it is not on the wire). Never panics, whatever the bytes.
pub fn parse_ipv4_tcp(bytes: &[u8], src_isn: u32, dst_isn: u32) -> Result<Segment, ParseError> {
    let ip = Ipv4Packet::new_checked(bytes)?;
    check_ipv4(&ip)?;
    let tcp = TcpPacket::new_checked(ip.payload())?;
    if !tcp.verify_checksum(ip.src_addr(), ip.dst_addr()) {
        return Err(ParseError::BadTcpChecksum);
    }
    let flags: TcpFlags = tcp.flags();
    let mut seg = Segment {
        seq: u64::from(tcp.seq_number().wrapping_sub(src_isn)),
        ack: if flags.ack() { u64::from(tcp.ack_number().wrapping_sub(dst_isn)) } else { 0 },
        flags,
        payload_len: tcp.payload().len() as u32,
        window: u32::from(tcp.window_len()),
        ecn: ip.ecn(),
        ..Segment::default()
    };
    parse_options(&tcp, &mut seg, dst_isn)?;
    Ok(seg)
}

fn check_ipv4(ip: &Ipv4Packet<&[u8]>) -> Result<(), ParseError> {
    if ip.version() != 4 {
        Err(ParseError::NotIpv4(ip.version()))
    } else if ip.protocol() != checksum::PROTO_TCP {
        Err(ParseError::NotTcp(ip.protocol()))
    } else if ip.more_frags() || ip.frag_offset() != 0 {
        Err(ParseError::Fragment)
    } else if !ip.verify_checksum() {
        Err(ParseError::BadIpChecksum)
    } else {
        Ok(())
    }
}

fn parse_options(tcp: &TcpPacket<&[u8]>, seg: &mut Segment, ack_isn: u32) -> Result<(), TcpError> {
    for option in tcp.options() {
        match option? {
            TcpOption::MaxSegmentSize(mss) => seg.mss = Some(mss),
            TcpOption::SackPermitted => seg.sack_permitted = true,
            TcpOption::WindowScale(shift) => seg.wscale = Some(shift),
            TcpOption::Sack(edges) => {
                for &(left, right) in edges.as_slice() {
                    let rel = |edge: u32| u64::from(edge.wrapping_sub(ack_isn));
                    seg.sack.push(rel(left), rel(right));
                }
            }
            TcpOption::Unknown { kind, data }
                if (kind == AccEcnOption::KIND0 || kind == AccEcnOption::KIND1)
                    && data.len() % 3 == 0
                    && data.len() <= 9 =>
            {
                let mut values = [0u32; 3];
                for (v, c) in values.iter_mut().zip(data.chunks_exact(3)) {
                    *v = u32::from_be_bytes([0, c[0], c[1], c[2]]);
                }
                seg.accecn = Some(AccEcnOption::from_wire(kind, &values[..data.len() / 3]));
            }
            TcpOption::EndOfList | TcpOption::NoOperation | TcpOption::Unknown { .. } => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EP: Endpoints = Endpoints {
        src_addr: [10, 0, 0, 1],
        dst_addr: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: 5001,
        src_isn: 0xffff_fff0,
        dst_isn: 1000,
    };

    #[test]
    fn test_options_fill_options_len_for_every_combination() {
        let mut buf = Vec::new();
        for mask in 0..16u8 {
            for nblocks in 0..=4u64 {
                let mut seg = Segment { flags: TcpFlags::ACK, ..Segment::default() };
                seg.mss = (mask & 1 != 0).then_some(1460);
                seg.sack_permitted = mask & 2 != 0;
                // Window scale only on SYNs, which carry no SACK blocks; up to three
                // blocks beside it still fit the 40 option bytes.
                seg.wscale = (mask & 8 != 0 && nblocks < 4).then_some(7);
                for i in 0..nblocks {
                    seg.sack.push(100 * i + 1, 100 * i + 50);
                }
                emit_ipv4_tcp(&seg, &EP, 1, 0, &mut buf).unwrap();
                assert_eq!(buf.len() as u32, seg.wire_len());
                assert_eq!(parse_ipv4_tcp(&buf, EP.src_isn, EP.dst_isn), Ok(seg));
            }
        }
    }

    /// RFC 9768 §3.2.3: AccECN0 (kind 172) carries EE0B, ECEB, EE1B and AccECN1 (174)
    /// EE1B, ECEB, EE0B, 24 bits each, length 2 + 3n with n = 0 … 3; beside SACK blocks
    /// as long as the 40 option bytes hold both, and back the same when parsed.
    #[test]
    fn test_accecn_option_round_trips_in_both_orders_and_every_length() {
        let mut buf = Vec::new();
        for order1 in [false, true] {
            for fields in 0..=3u8 {
                for nblocks in 0..=3u64 {
                    let o = AccEcnOption { order1, fields, ee0b: 0x01_0203, eceb: 0xab_cdef, ee1b: 0xff_fffe };
                    let mut seg = Segment { flags: TcpFlags::ACK, accecn: Some(o), ..Segment::default() };
                    for i in 0..nblocks {
                        seg.sack.push(100 * i + 1, 100 * i + 50);
                    }
                    emit_ipv4_tcp(&seg, &EP, 1, 0, &mut buf).unwrap();
                    assert_eq!(buf.len() as u32, seg.wire_len());
                    let back = parse_ipv4_tcp(&buf, EP.src_isn, EP.dst_isn).unwrap();
                    let v = o.in_order();
                    let want = AccEcnOption::from_wire(o.kind(), &v[..usize::from(fields)]);
                    assert_eq!(back.accecn, Some(want));
                    assert_eq!(back.sack, seg.sack);
                    // On the wire: the kind, then the fields big-endian in their order.
                    let tcp = TcpPacket::new_checked(&buf[20..]).unwrap();
                    let opts = tcp.options_bytes();
                    let at = opts.iter().position(|&b| b == o.kind()).unwrap();
                    assert_eq!(opts[at + 1], 2 + 3 * fields);
                    if fields >= 2 {
                        assert_eq!(&opts[at + 5..at + 8], &[0xab, 0xcd, 0xef], "ECEB second");
                    }
                }
            }
        }
    }

    #[test]
    fn test_sequence_numbers_wrap_modulo_2_32() {
        let seg = Segment { seq: 0x20, flags: TcpFlags::SYN, ..Segment::default() };
        let mut buf = Vec::new();
        emit_ipv4_tcp(&seg, &EP, 1, 0, &mut buf).unwrap();
        let tcp = TcpPacket::new_checked(&buf[20..]).unwrap();
        assert_eq!(tcp.seq_number(), 0x10);
        assert_eq!(tcp.ack_number(), 0, "no ACK flag, ack field zero");
    }

    #[test]
    fn test_oversized_segment_rejected() {
        let seg = Segment { payload_len: 65_500, ..Segment::default() };
        let err = emit_ipv4_tcp(&seg, &EP, 1, 0, &mut Vec::new()).unwrap_err();
        assert_eq!(err, EmitError::TooLong { len: 65_540 });
    }

    #[test]
    fn test_parse_rejects_corruption() {
        let seg = Segment { payload_len: 10, flags: TcpFlags::ACK, ..Segment::default() };
        let mut buf = Vec::new();
        emit_ipv4_tcp(&seg, &EP, 1, 0, &mut buf).unwrap();
        let mut bad = buf.clone();
        bad[8] = 1; // TTL
        assert_eq!(parse_ipv4_tcp(&bad, 0, 0), Err(ParseError::BadIpChecksum));
        let mut bad = buf.clone();
        bad[45] ^= 1; // payload
        assert_eq!(parse_ipv4_tcp(&bad, 0, 0), Err(ParseError::BadTcpChecksum));
        assert!(matches!(parse_ipv4_tcp(&buf[..30], 0, 0), Err(ParseError::Ipv4(_))));
    }
}

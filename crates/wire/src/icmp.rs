//! ICMP Source Quench (RFC 792, "Source Quench Message"): the one ICMP
//! message the simulator sends, as real IPv4/ICMP bytes for pcap traces.
//!
//! Layout (RFC 792): IPv4 header (RFC 791, IHL 5, TTL 64, protocol 1, Not-ECT:
//! RFC 3168 §5 leaves ICMP Not-ECT) from the gateway to the source of the
//! datagram that caused the quench; then type 4, code 0, checksum, 4 unused
//! zero bytes; then the "Internet Header + 64 bits of Original Data Datagram".
//! The checksum is RFC 1071's over the ICMP message from the type field on.
//! With a 20-byte original header the packet is 20 + 8 + 20 + 8 = 56 bytes
//! ([`SOURCE_QUENCH_LEN`]).

use crate::ip_tcp::DEFAULT_TTL;
use crate::ipv4::{self, Ipv4Packet};
use crate::{checksum, Ecn};

/// IP protocol number of ICMP (RFC 790 / IANA).
pub const PROTO_ICMP: u8 = 1;
/// ICMP type of Source Quench (RFC 792); its only code is 0.
pub const SOURCE_QUENCH: u8 = 4;
/// ICMP header: type, code, checksum, 4 unused bytes.
pub const ICMP_HEADER_LEN: usize = 8;
/// Bytes of the original datagram's data quoted after its header (RFC 792: 64 bits).
pub const QUOTED_DATA_LEN: usize = 8;
/// Wire size of a Source Quench quoting a 20-byte IPv4 header: 56 bytes.
pub const SOURCE_QUENCH_LEN: u32 = (ipv4::HEADER_LEN + ICMP_HEADER_LEN + ipv4::HEADER_LEN + QUOTED_DATA_LEN) as u32;

/// Writes into `buf` (cleared first) a Source Quench from `from` to `to` about
/// `original`, the bytes of the datagram that caused it (at least its IPv4
/// header; the header length is read from its IHL). Returns the length.
pub fn emit_source_quench(original: &[u8], from: [u8; 4], to: [u8; 4], ident: u16, buf: &mut Vec<u8>) -> usize {
    let ihl = original.first().map_or(ipv4::HEADER_LEN, |b| usize::from(b & 0x0f) * 4);
    let quoted = &original[..(ihl + QUOTED_DATA_LEN).min(original.len())];
    let len = ipv4::HEADER_LEN + ICMP_HEADER_LEN + quoted.len();
    buf.clear();
    buf.resize(len, 0);
    let mut ip = Ipv4Packet::new_unchecked(&mut buf[..]);
    ip.set_version_and_header_len(4, ipv4::HEADER_LEN);
    ip.set_dscp(0);
    ip.set_ecn(Ecn::NotEct);
    ip.set_total_len(len as u16);
    ip.set_ident(ident);
    ip.set_frag(false, false, 0);
    ip.set_ttl(DEFAULT_TTL);
    ip.set_protocol(PROTO_ICMP);
    ip.set_src_addr(from);
    ip.set_dst_addr(to);
    ip.fill_checksum();
    let icmp = ip.payload_mut();
    icmp[0] = SOURCE_QUENCH;
    icmp[1] = 0;
    icmp[ICMP_HEADER_LEN..].copy_from_slice(quoted);
    let sum = checksum::finish(checksum::sum(icmp));
    icmp[2..4].copy_from_slice(&sum.to_be_bytes());
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{emit_ipv4_tcp, Endpoints, Segment, TcpFlags};

    #[test]
    fn test_source_quench_layout_and_checksums() {
        let seg = Segment { seq: 1, flags: TcpFlags::ACK, payload_len: 960, ..Segment::default() };
        let ep = Endpoints {
            src_addr: [10, 0, 1, 1],
            dst_addr: [10, 0, 2, 1],
            src_port: 10000,
            dst_port: 5000,
            ..Default::default()
        };
        let mut orig = Vec::new();
        emit_ipv4_tcp(&seg, &ep, 7, 0, &mut orig).unwrap();
        let mut buf = Vec::new();
        let n = emit_source_quench(&orig, [10, 0, 9, 1], ep.src_addr, 1, &mut buf);
        assert_eq!((n, buf.len(), n as u32), (56, 56, SOURCE_QUENCH_LEN));
        let ip = Ipv4Packet::new_checked(&buf[..]).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(
            (ip.protocol(), ip.ecn(), ip.src_addr(), ip.dst_addr()),
            (1, Ecn::NotEct, [10, 0, 9, 1], [10, 0, 1, 1])
        );
        let icmp = ip.payload();
        assert_eq!(&icmp[..2], &[4, 0], "type 4 code 0");
        assert_eq!(&icmp[4..8], &[0; 4], "unused");
        assert_eq!(checksum::fold(checksum::sum(icmp)), 0xffff, "ICMP checksum verifies");
        assert_eq!(&icmp[8..], &orig[..28], "original header + 64 bits of data (the ports and sequence number)");
    }
}

//! Golden bytes for two hand-assembled packets (the smoltcp `PACKET_BYTES`
//! idea): a SYN with ECE+CWR, MSS 1460 and SACK-permitted (RFC 3168 §6.1.1
//! ECN-setup SYN, RFC 9293 §3.7.1, RFC 2018 §2), and an ECT(0) data segment.
//!
//! The checksums are computed here by an independent, deliberately naive
//! RFC 1071 §4.1 ones'-complement sum, not by the crate under test.

use ecnlab_wire::{emit_ipv4_tcp, parse_ipv4_tcp, Ecn, Endpoints, Ipv4Packet, Segment, TcpFlags};

const EP: Endpoints = Endpoints {
    src_addr: [192, 168, 0, 1],
    dst_addr: [192, 168, 0, 2],
    src_port: 40000, // 0x9c40
    dst_port: 5001,  // 0x1389
    src_isn: 0x0102_0304,
    dst_isn: 0x0a0b_0c0d,
};

/// RFC 1071 §4.1 "C" reference, transcribed: add 16-bit words into a 32-bit
/// accumulator, add a left-over byte, fold the carries, complement.
fn rfc1071(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut i = 0;
    while i + 1 < data.len() {
        sum += (u32::from(data[i]) << 8) | u32::from(data[i + 1]);
        i += 2;
    }
    if i < data.len() {
        sum += u32::from(data[i]) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Fills both checksums of a 20-byte-IP-header packet whose checksum fields are zero.
fn fill_checksums_independently(pkt: &mut [u8]) {
    let ip_sum = rfc1071(&pkt[..20]);
    pkt[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    let tcp_len = (pkt.len() - 20) as u16;
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&pkt[12..20]); // source, destination
    pseudo.extend_from_slice(&[0, 6]); // zero, protocol TCP
    pseudo.extend_from_slice(&tcp_len.to_be_bytes());
    pseudo.extend_from_slice(&pkt[20..]);
    let tcp_sum = rfc1071(&pseudo);
    pkt[36..38].copy_from_slice(&tcp_sum.to_be_bytes());
}

#[rustfmt::skip]
fn syn_golden() -> Vec<u8> {
    let mut p = vec![
        // IPv4: v4 IHL5, TOS 0 (Not-ECT: RFC 3168 §6.1.1 SYNs are not ECT), len 48
        0x45, 0x00, 0x00, 0x30,
        0x00, 0x01, 0x40, 0x00, // id 1, DF
        0x40, 0x06, 0x00, 0x00, // TTL 64, TCP, checksum (filled below)
        192, 168, 0, 1,
        192, 168, 0, 2,
        // TCP
        0x9c, 0x40, 0x13, 0x89, // 40000 → 5001
        0x01, 0x02, 0x03, 0x04, // seq = ISN
        0x00, 0x00, 0x00, 0x00, // ack (no ACK flag)
        0x70, 0xc2, 0xff, 0xff, // offset 7 words, CWR|ECE|SYN, window 65535
        0x00, 0x00, 0x00, 0x00, // checksum (filled below), urgent
        0x02, 0x04, 0x05, 0xb4, // MSS 1460
        0x01, 0x01, 0x04, 0x02, // NOP NOP SACK-permitted
    ];
    fill_checksums_independently(&mut p);
    p
}

#[rustfmt::skip]
fn data_golden() -> Vec<u8> {
    let mut p = vec![
        0x45, 0x02, 0x00, 0x2c, // TOS ECT(0), len 44
        0x00, 0x02, 0x40, 0x00, // id 2, DF
        0x40, 0x06, 0x00, 0x00,
        192, 168, 0, 1,
        192, 168, 0, 2,
        0x9c, 0x40, 0x13, 0x89,
        0x01, 0x02, 0x03, 0x05, // seq 1 + ISN
        0x0a, 0x0b, 0x0c, 0x0e, // ack 1 + peer ISN
        0x50, 0x10, 0x72, 0x10, // offset 5, ACK, window 29200
        0x00, 0x00, 0x00, 0x00,
        b'a', b'a', b'a', b'a', // 4 payload bytes of fill
    ];
    fill_checksums_independently(&mut p);
    p
}

fn syn_segment() -> Segment {
    Segment {
        flags: TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR,
        window: 65535,
        mss: Some(1460),
        sack_permitted: true,
        ..Segment::default()
    }
}

fn data_segment() -> Segment {
    Segment {
        seq: 1,
        ack: 1,
        flags: TcpFlags::ACK,
        payload_len: 4,
        window: 29200,
        ecn: Ecn::Ect0,
        ..Segment::default()
    }
}

#[test]
fn test_rfc1071_reference_matches_rfc_example() {
    // RFC 1071 §3: the sum of 0001 f203 f4f5 f6f7 is ddf2.
    assert_eq!(rfc1071(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), !0xddf2);
}

#[test]
fn test_syn_ip_checksum_by_hand() {
    // 4500+0030+0001+4000+4006+c0a8+0001+c0a8+0002 = 0x2468a → 0x468c → !0x468c.
    assert_eq!(&syn_golden()[10..12], &[0xb9, 0x73]);
}

#[test]
fn test_emit_syn_ece_cwr_matches_golden() {
    let mut buf = Vec::new();
    emit_ipv4_tcp(&syn_segment(), &EP, 1, 0, &mut buf).unwrap();
    assert_eq!(buf, syn_golden());
}

#[test]
fn test_emit_ect0_data_matches_golden() {
    let mut buf = Vec::new();
    emit_ipv4_tcp(&data_segment(), &EP, 2, b'a', &mut buf).unwrap();
    assert_eq!(buf, data_golden());
}

#[test]
fn test_parse_golden_gives_segments() {
    assert_eq!(parse_ipv4_tcp(&syn_golden(), EP.src_isn, EP.dst_isn), Ok(syn_segment()));
    assert_eq!(parse_ipv4_tcp(&data_golden(), EP.src_isn, EP.dst_isn), Ok(data_segment()));
}

#[test]
fn test_ce_mark_on_golden_data_verifies_independently() {
    let mut pkt = data_golden();
    let mut ip = Ipv4Packet::new_checked(&mut pkt[..]).unwrap();
    assert!(ip.set_ecn_ce_and_fix_checksum());
    assert_eq!(pkt[1], 0x03);
    // RFC 1071: a correct header sums (checksum included) to zero after complement.
    assert_eq!(rfc1071(&pkt[..20]), 0);
    let mut expected = data_golden();
    expected[1] = 0x03;
    expected[10..12].fill(0);
    expected[36..38].fill(0);
    fill_checksums_independently(&mut expected);
    assert_eq!(pkt, expected, "CE changes only the TOS byte and the IP checksum");
}

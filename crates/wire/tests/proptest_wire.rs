//! Property tests of the wire views and the Segment ↔ bytes mapping:
//! emit→parse round-trips (RFC 9293 §3.1, RFC 2018 §3 options, RFC 3168 §5
//! ECN field), the no-panic contract of `new_checked` on arbitrary bytes, and
//! CE marking keeping the RFC 1071 header checksum valid.

use ecnlab_wire::ip_tcp::MAX_IPV4_LEN;
use ecnlab_wire::{emit_ipv4_tcp, parse_ipv4_tcp, Ecn, Endpoints, Ipv4Packet, Segment, TcpFlags, TcpPacket};
use proptest::prelude::*;

fn ecn() -> impl Strategy<Value = Ecn> {
    prop_oneof![Just(Ecn::NotEct), Just(Ecn::Ect1), Just(Ecn::Ect0), Just(Ecn::Ce)]
}

fn endpoints() -> impl Strategy<Value = Endpoints> {
    (any::<[u8; 4]>(), any::<[u8; 4]>(), any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>()).prop_map(
        |(src_addr, dst_addr, src_port, dst_port, src_isn, dst_isn)| Endpoints {
            src_addr,
            dst_addr,
            src_port,
            dst_port,
            src_isn,
            dst_isn,
        },
    )
}

/// Segments whose wire form is exact: 32-bit sequence space, window ≤ 65535,
/// ack 0 without ACK, not a retransmission (metadata that is not on the wire).
fn segment() -> impl Strategy<Value = Segment> {
    let sack = prop::collection::vec((any::<u32>(), any::<u32>()), 0..=4);
    (any::<u32>(), any::<u32>(), 0..=0x1ffu16, 0..=1500u32, any::<u16>())
        .prop_flat_map(move |head| (Just(head), any::<Option<u16>>(), any::<bool>(), sack.clone(), ecn()))
        .prop_map(|((seq, ack, flags, payload_len, window), mss, sack_permitted, blocks, ecn)| {
            let flags = TcpFlags(flags);
            let mut seg = Segment {
                seq: seq.into(),
                ack: if flags.ack() { ack.into() } else { 0 },
                flags,
                payload_len,
                window: window.into(),
                mss,
                sack_permitted,
                ecn,
                ..Segment::default()
            };
            for (l, r) in blocks {
                seg.sack.push(l.into(), r.into());
            }
            seg
        })
}

/// Random bytes, often patched into a plausible IPv4/TCP header so that the
/// checked constructors accept them and the accessors get exercised.
fn packet_bytes() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(any::<u8>(), 0..160), any::<bool>(), 5..=15u8, 0..=15u8).prop_map(
        |(mut b, patch, ihl, doff)| {
            if patch && b.len() >= 20 {
                b[0] = 0x40 | ihl;
                let total = b.len().min(usize::from(u16::MAX)) as u16;
                b[2..4].copy_from_slice(&total.to_be_bytes());
                b[9] = 6;
                let hl = usize::from(ihl) * 4;
                if b.len() > hl + 12 {
                    b[hl + 12] = doff << 4;
                }
            }
            b
        },
    )
}

/// Touches every getter, the option iterator and (on a copy) every setter.
fn exercise_ipv4(bytes: &[u8]) {
    let Ok(ip) = Ipv4Packet::new_checked(bytes) else {
        return;
    };
    let _ = (ip.version(), ip.ihl(), ip.header_len(), ip.dscp(), ip.ecn(), ip.total_len());
    let _ = (ip.ident(), ip.dont_frag(), ip.more_frags(), ip.frag_offset(), ip.ttl());
    let _ = (ip.protocol(), ip.checksum(), ip.src_addr(), ip.dst_addr(), ip.options());
    let _ = (ip.payload(), ip.verify_checksum());
    exercise_tcp(ip.payload(), ip.src_addr(), ip.dst_addr());
    let mut copy = bytes.to_vec();
    let mut ip = Ipv4Packet::new_checked(&mut copy[..]).expect("same bytes");
    let _ = ip.set_ecn_ce_and_fix_checksum();
    ip.set_ecn(Ecn::Ect0);
    ip.set_dscp(0x3f);
    ip.set_ttl(1);
    ip.fill_checksum();
    let _ = ip.payload_mut().len();
}

fn exercise_tcp(bytes: &[u8], src: [u8; 4], dst: [u8; 4]) {
    let Ok(tcp) = TcpPacket::new_checked(bytes) else {
        return;
    };
    let _ = (tcp.src_port(), tcp.dst_port(), tcp.seq_number(), tcp.ack_number());
    let _ = (tcp.data_offset(), tcp.header_len(), tcp.flags(), tcp.window_len());
    let _ = (tcp.checksum(), tcp.urgent_at(), tcp.payload(), tcp.verify_checksum(src, dst));
    assert!(tcp.options().count() <= tcp.options_bytes().len());
    let mut copy = bytes.to_vec();
    let mut tcp = TcpPacket::new_checked(&mut copy[..]).expect("same bytes");
    tcp.set_flags(TcpFlags::ACK);
    tcp.options_mut().fill(1);
    tcp.fill_checksum(src, dst);
    assert!(tcp.verify_checksum(src, dst));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn test_emit_then_parse_roundtrips(seg in segment(), ep in endpoints(), id: u16, fill: u8) {
        let mut buf = Vec::new();
        emit_ipv4_tcp(&seg, &ep, id, fill, &mut buf).unwrap();
        prop_assert_eq!(buf.len() as u32, seg.wire_len());
        prop_assert!(seg.wire_len() <= MAX_IPV4_LEN);
        let ip = Ipv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!((ip.ident(), ip.ttl(), ip.dont_frag()), (id, 64, true));
        prop_assert_eq!((ip.src_addr(), ip.dst_addr()), (ep.src_addr, ep.dst_addr));
        let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
        prop_assert_eq!((tcp.src_port(), tcp.dst_port()), (ep.src_port, ep.dst_port));
        prop_assert!(tcp.payload().iter().all(|&b| b == fill));
        prop_assert_eq!(parse_ipv4_tcp(&buf, ep.src_isn, ep.dst_isn), Ok(seg));
    }

    #[test]
    fn test_window_above_65535_clamped(window in 65536..u32::MAX, ep in endpoints()) {
        let seg = Segment { window, flags: TcpFlags::ACK, ..Segment::default() };
        let mut buf = Vec::new();
        emit_ipv4_tcp(&seg, &ep, 0, 0, &mut buf).unwrap();
        prop_assert_eq!(TcpPacket::new_checked(&buf[20..]).unwrap().window_len(), 65535);
    }

    #[test]
    fn test_checked_views_never_panic(bytes in packet_bytes()) {
        exercise_ipv4(&bytes);
        exercise_tcp(&bytes, [1, 2, 3, 4], [5, 6, 7, 8]);
        let _ = parse_ipv4_tcp(&bytes, 0, 0);
    }

    #[test]
    fn test_ect_marked_ce_keeps_checksums_valid(seg in segment(), ep in endpoints()) {
        let mut buf = Vec::new();
        emit_ipv4_tcp(&seg, &ep, 7, 0, &mut buf).unwrap();
        let mut ip = Ipv4Packet::new_checked(&mut buf[..]).unwrap();
        let marked = ip.set_ecn_ce_and_fix_checksum();
        prop_assert_eq!(marked, seg.ecn.is_ect());
        prop_assert!(ip.verify_checksum());
        let want_ecn = if seg.ecn.is_ect() { Ecn::Ce } else { seg.ecn };
        let parsed = parse_ipv4_tcp(&buf, ep.src_isn, ep.dst_isn); // TCP checksum untouched
        prop_assert_eq!(parsed, Ok(Segment { ecn: want_ecn, ..seg }));
    }
}

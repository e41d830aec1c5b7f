//! Unit tests of the IPv4 view: golden header, checks, setters, CE marking.

use super::*;

/// 10.0.0.1 → 10.0.0.2, TCP, total length 20, id 0x1c46, DF, TTL 64, ECT(0).
/// Checksum by hand: 4502+0014+1c46+4000+4006+0a00+0001+0a00+0002 = f565
/// (no carries), complemented: 0a9a.
fn golden() -> [u8; 20] {
    [0x45, 0x02, 0x00, 0x14, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0x0a, 0x9a, 10, 0, 0, 1, 10, 0, 0, 2]
}

#[test]
fn test_golden_checksum() {
    // Ones'-complement sum of the words with the checksum field zero.
    let words: [u32; 9] = [0x4502, 0x0014, 0x1c46, 0x4000, 0x4006, 0x0a00, 0x0001, 0x0a00, 0x0002];
    let total: u32 = words.iter().sum();
    let folded = (total & 0xffff) + (total >> 16);
    let expected = !(folded as u16);
    assert_eq!(expected, 0x0a9a);
    let mut bytes = golden();
    assert!(Ipv4Packet::new_checked(&bytes[..]).unwrap().verify_checksum());
    let mut p = Ipv4Packet::new_checked(&mut bytes[..]).unwrap();
    p.set_checksum(0);
    assert!(!p.verify_checksum());
    p.fill_checksum();
    assert_eq!(p.checksum(), expected);
}

#[test]
fn test_deconstruct() {
    let bytes = golden();
    let p = Ipv4Packet::new_checked(&bytes[..]).unwrap();
    assert_eq!((p.version(), p.ihl(), p.header_len()), (4, 5, 20));
    assert_eq!((p.dscp(), p.ecn()), (0, Ecn::Ect0));
    assert_eq!((p.total_len(), p.ident(), p.checksum()), (20, 0x1c46, 0x0a9a));
    assert!(p.dont_frag() && !p.more_frags());
    assert_eq!((p.frag_offset(), p.ttl(), p.protocol()), (0, 64, 6));
    assert_eq!((p.src_addr(), p.dst_addr()), ([10, 0, 0, 1], [10, 0, 0, 2]));
    assert!(p.options().is_empty());
    assert!(p.payload().is_empty());
}

#[test]
fn test_check_len_rejects_inconsistent_lengths() {
    let mut b = golden();
    assert_eq!(Ipv4Packet::new_checked(&b[..19]).unwrap_err(), Ipv4Error::Truncated { len: 19, need: 20 });
    b[0] = 0x44; // IHL 4
    assert!(matches!(Ipv4Packet::new_checked(&b[..]), Err(Ipv4Error::BadHeaderLen { .. })));
    b[0] = 0x46; // IHL 6: 24-byte header in a 20-byte buffer
    assert!(matches!(Ipv4Packet::new_checked(&b[..]), Err(Ipv4Error::Truncated { .. })));
    b[0] = 0x45;
    b[3] = 19; // total length below header
    assert!(matches!(Ipv4Packet::new_checked(&b[..]), Err(Ipv4Error::TotalLenBelowHeader { .. })));
    b[3] = 21;
    assert!(matches!(Ipv4Packet::new_checked(&b[..]), Err(Ipv4Error::TotalLenBeyondBuffer { total_len: 21, len: 20 })));
}

#[test]
fn test_payload_excludes_trailing_padding() {
    let mut b = [0u8; 30];
    b[..20].copy_from_slice(&golden());
    b[3] = 24; // 4 bytes of data, 6 bytes of link padding after
    b[20..24].copy_from_slice(&[1, 2, 3, 4]);
    let p = Ipv4Packet::new_checked(&b[..]).unwrap();
    assert_eq!(p.payload(), &[1, 2, 3, 4]);
}

#[test]
fn test_setters_roundtrip() {
    let mut b = [0u8; 20];
    let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
    p.set_version_and_header_len(4, 20);
    p.set_dscp(0x2e);
    p.set_ecn(Ecn::Ect1);
    p.set_total_len(20);
    p.set_ident(7);
    p.set_frag(false, true, 1480);
    p.set_ttl(3);
    p.set_protocol(17);
    p.set_src_addr([1, 2, 3, 4]);
    p.set_dst_addr([5, 6, 7, 8]);
    p.fill_checksum();
    assert_eq!((p.dscp(), p.ecn(), p.ident()), (0x2e, Ecn::Ect1, 7));
    assert!(!p.dont_frag() && p.more_frags());
    assert_eq!((p.frag_offset(), p.ttl(), p.protocol()), (1480, 3, 17));
    assert!(p.verify_checksum());
}

#[test]
fn test_ect_packet_marked_ce_checksum_still_verifies() {
    for ecn in [Ecn::Ect0, Ecn::Ect1] {
        let mut b = golden();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.set_ecn(ecn);
        p.fill_checksum();
        assert!(p.set_ecn_ce_and_fix_checksum());
        assert_eq!(p.ecn(), Ecn::Ce);
        assert!(p.verify_checksum());
        let incremental = p.checksum();
        p.fill_checksum();
        assert_eq!(p.checksum(), incremental);
    }
}

#[test]
fn test_not_ect_and_ce_packets_not_marked() {
    for ecn in [Ecn::NotEct, Ecn::Ce] {
        let mut b = golden();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.set_ecn(ecn);
        p.fill_checksum();
        let before = p.into_inner().to_vec();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        assert!(!p.set_ecn_ce_and_fix_checksum());
        assert_eq!(p.into_inner(), &before[..]);
    }
}

//! Unit tests of the TCP view: fields, length checks, option parsing, checksum.

use super::*;

const SRC: [u8; 4] = [10, 0, 0, 1];
const DST: [u8; 4] = [10, 0, 0, 2];

/// Port 1234 → 80, seq 0x01020304, ack 0x0a0b0c0d, data offset 6, ACK|ECE,
/// window 0x1000, checksum 0, urgent 0, options MSS 1460, payload "ab".
fn sample() -> [u8; 26] {
    [
        0x04, 0xd2, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0x0a, 0x0b, 0x0c, 0x0d, 0x60, 0x50, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x02, 0x04, 0x05, 0xb4, b'a', b'b',
    ]
}

#[test]
fn test_deconstruct() {
    let b = sample();
    let p = TcpPacket::new_checked(&b[..]).unwrap();
    assert_eq!((p.src_port(), p.dst_port()), (1234, 80));
    assert_eq!((p.seq_number(), p.ack_number()), (0x0102_0304, 0x0a0b_0c0d));
    assert_eq!((p.data_offset(), p.header_len()), (6, 24));
    assert_eq!(p.flags(), TcpFlags::ACK | TcpFlags::ECE);
    assert_eq!((p.window_len(), p.urgent_at()), (0x1000, 0));
    let opts: Vec<_> = p.options().collect();
    assert_eq!(opts, vec![Ok(TcpOption::MaxSegmentSize(1460))]);
    assert_eq!(p.payload(), b"ab");
}

#[test]
fn test_check_len_rejects_bad_offsets() {
    let mut b = sample();
    assert_eq!(TcpPacket::new_checked(&b[..19]).unwrap_err(), TcpError::Truncated { len: 19, need: 20 });
    b[12] = 0x40;
    assert_eq!(TcpPacket::new_checked(&b[..]).unwrap_err(), TcpError::BadHeaderLen { header_len: 16 });
    b[12] = 0xf0;
    assert_eq!(TcpPacket::new_checked(&b[..]).unwrap_err(), TcpError::Truncated { len: 26, need: 60 });
}

fn options_of(opts: &[u8]) -> Vec<Result<TcpOption<'_>, TcpError>> {
    TcpOptions { bytes: opts, at: 0 }.collect()
}

#[test]
fn test_options_sack_nop_end() {
    let opts = [1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 9, 4, 2, 0, 99];
    let got = options_of(&opts);
    assert_eq!(got.len(), 5);
    assert_eq!(got[0], Ok(TcpOption::NoOperation));
    match got[2] {
        Ok(TcpOption::Sack(s)) => assert_eq!(s.as_slice(), &[(1, 9)]),
        ref other => panic!("expected SACK, got {other:?}"),
    }
    assert_eq!(got[3], Ok(TcpOption::SackPermitted));
    assert_eq!(got[4], Ok(TcpOption::EndOfList)); // bytes after EOL ignored
}

#[test]
fn test_options_malformed_yield_one_error() {
    for bad in [&[2u8][..], &[2, 1], &[2, 5, 0, 0, 0], &[5, 9, 0, 0, 0, 0, 0, 0, 0], &[8, 40]] {
        let got = options_of(bad);
        assert!(matches!(got.last(), Some(Err(TcpError::BadOption { .. }))), "{bad:?}: {got:?}");
        assert_eq!(got.iter().filter(|r| r.is_err()).count(), 1);
    }
    let unknown = [30, 4, 7, 7];
    assert_eq!(options_of(&unknown), vec![Ok(TcpOption::Unknown { kind: 30, data: &[7, 7] })]);
}

#[test]
fn test_fill_checksum_verifies_and_detects_corruption() {
    let mut b = sample();
    let mut p = TcpPacket::new_checked(&mut b[..]).unwrap();
    p.fill_checksum(SRC, DST);
    assert!(p.verify_checksum(SRC, DST));
    assert!(!p.verify_checksum(SRC, [10, 0, 0, 3]));
    p.payload_mut()[0] ^= 0x40;
    assert!(!p.verify_checksum(SRC, DST));
}

#[test]
fn test_setters_roundtrip() {
    let mut b = [0u8; 24];
    let mut p = TcpPacket::new_unchecked(&mut b[..]);
    p.set_header_len(24);
    p.set_src_port(1);
    p.set_dst_port(2);
    p.set_seq_number(u32::MAX);
    p.set_ack_number(7);
    p.set_flags(TcpFlags::SYN | TcpFlags::CWR);
    p.set_window_len(65535);
    p.set_urgent_at(3);
    p.options_mut().copy_from_slice(&[4, 2, 1, 0]);
    assert_eq!((p.src_port(), p.dst_port(), p.seq_number(), p.ack_number()), (1, 2, u32::MAX, 7));
    assert!(p.flags().syn() && p.flags().cwr() && !p.flags().ece());
    assert_eq!((p.window_len(), p.urgent_at(), p.header_len()), (65535, 3, 24));
    let opts: Vec<_> = p.options().collect();
    assert_eq!(opts[0], Ok(TcpOption::SackPermitted));
}

/// RFC 9768 §3 (Figure 2): AE is bit 7 of header byte 12 counted from the
/// most significant bit, i.e. its lowest bit, beside the data offset; setting
/// the header length keeps it and the flags byte stays CWR..FIN.
#[test]
fn test_ae_flag_is_the_low_bit_of_byte_12() {
    let mut b = [0u8; 20];
    let mut p = TcpPacket::new_unchecked(&mut b[..]);
    p.set_flags(TcpFlags::AE | TcpFlags::CWR | TcpFlags::ACK);
    p.set_header_len(20);
    assert_eq!(p.flags(), TcpFlags::AE | TcpFlags::CWR | TcpFlags::ACK);
    assert_eq!(p.flags().ace(), 0b110);
    assert_eq!(p.header_len(), 20);
    assert_eq!((b[12], b[13]), (0x51, 0x90));
    let mut p = TcpPacket::new_unchecked(&mut b[..]);
    p.set_flags(TcpFlags::ACK);
    assert_eq!((b[12], b[13]), (0x50, 0x10), "AE cleared again");
}

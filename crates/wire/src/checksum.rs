//! The Internet checksum: RFC 1071 §1–§4 (16-bit ones'-complement sum of the
//! data, complemented), the TCP pseudo-header of RFC 9293 §3.1 (RFC 793 §3.1),
//! and the incremental update of RFC 1624 §3 (eqn. 3) used when a router
//! rewrites one header word (RFC 3168 §5: setting CE in the TOS byte).
//!
//! Sums are accumulated unfolded in a `u64` (RFC 1071 §2(C) "deferred
//! carries"), so no input length can overflow them; [`fold`] then adds the
//! carries back in ("end-around carry").

/// IP protocol number of TCP (RFC 791 §3.1 "Protocol", IANA).
pub const PROTO_TCP: u8 = 6;

/// Unfolded ones'-complement sum of `data` as big-endian 16-bit words; an odd
/// trailing byte is padded with a zero octet (RFC 1071 §4.1).
pub fn sum(data: &[u8]) -> u64 {
    let mut words = data.chunks_exact(2);
    let mut acc: u64 = words.by_ref().map(|w| u64::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    if let [last] = words.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

/// Folds the carries of an unfolded sum back into 16 bits (RFC 1071 §2(A)).
pub fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The checksum field value for data whose unfolded sum is `acc`.
pub fn finish(acc: u64) -> u16 {
    !fold(acc)
}

/// Unfolded sum of the IPv4 TCP/UDP pseudo-header (RFC 9293 §3.1: source
/// address, destination address, zero, protocol, segment length).
pub fn pseudo_header(src: [u8; 4], dst: [u8; 4], protocol: u8, len: u32) -> u64 {
    sum(&src) + sum(&dst) + u64::from(protocol) + u64::from(len >> 16) + u64::from(len & 0xffff)
}

/// RFC 1624 §3 eqn. 3: `HC' = ~(~HC + ~m + m')`, the new checksum after one
/// 16-bit word of the covered data changes from `old_word` to `new_word`.
pub fn update(checksum: u16, old_word: u16, new_word: u16) -> u16 {
    let acc = u64::from(!checksum) + u64::from(!old_word) + u64::from(new_word);
    !fold(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_rfc1071_example_sums_to_ddf2() {
        // RFC 1071 §3 "Numerical Examples": 00 01 f2 03 f4 f5 f6 f7 → ddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum(&data)), 0xddf2);
        assert_eq!(finish(sum(&data)), 0x220d);
    }

    #[test]
    fn test_odd_length_pads_with_zero() {
        assert_eq!(sum(&[0xab]), 0xab00);
        assert_eq!(sum(&[0x12, 0x34, 0xab]), 0x1234 + 0xab00);
    }

    #[test]
    fn test_update_matches_recompute() {
        let mut data = [0x45, 0x02, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06];
        let before = finish(sum(&data));
        data[1] = 0x03;
        assert_eq!(update(before, 0x4502, 0x4503), finish(sum(&data)));
    }
}

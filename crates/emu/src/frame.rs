//! `Frame`: one IPv4 packet as read from a TUN device, owned as bytes.
//!
//! Untrusted bytes come in through [`Frame::parse`], which accepts only what
//! `ecnlab_wire::Ipv4Packet::new_checked` accepts (RFC 791 §3.1: IHL ≥ 5,
//! header and total length inside the buffer) and version 4; everything else
//! is a [`Malformed`] reason the router counts and drops. After `parse` no
//! accessor can panic (the `wire` view contract).
//!
//! A `Frame` is the queue's packet type: `AqmQueue<Frame>` is the simulator's
//! queue, unchanged; only `set_ce` differs from the simulator's packet: it
//! rewrites the ECN bits and the header checksum in place (RFC 3168 §5, RFC 1624).

use ecnlab_aqm::QueuedPacket;
use ecnlab_wire::{Ecn, Ipv4Error, Ipv4Packet};
use serde::Serialize;

/// Why bytes read from a TUN device are not a packet the router forwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Malformed {
    /// Shorter than the 20-byte header or than the header its IHL announces.
    Short,
    /// The version nibble is not 4 (IPv6 and garbage).
    NotIpv4,
    /// IHL below 5 words.
    BadIhl,
    /// Total length below the header length or beyond the bytes read.
    BadTotalLen,
}

/// An IPv4 packet whose header passed `new_checked`; `bytes.len()` is its total length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    bytes: Vec<u8>,
}

impl Frame {
    /// Checks `bytes` and trims any padding after the IPv4 total length.
    pub fn parse(mut bytes: Vec<u8>) -> Result<Frame, Malformed> {
        match bytes.first() {
            None => return Err(Malformed::Short),
            Some(b) if b >> 4 != 4 => return Err(Malformed::NotIpv4),
            Some(_) => {}
        }
        let total = match Ipv4Packet::new_checked(&bytes[..]) {
            Ok(p) => usize::from(p.total_len()),
            Err(Ipv4Error::Truncated { .. }) => return Err(Malformed::Short),
            Err(Ipv4Error::BadHeaderLen { .. }) => return Err(Malformed::BadIhl),
            Err(Ipv4Error::TotalLenBelowHeader { .. } | Ipv4Error::TotalLenBeyondBuffer { .. }) => {
                return Err(Malformed::BadTotalLen)
            }
        };
        bytes.truncate(total);
        Ok(Frame { bytes })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, for a rewrite that keeps them a well-formed packet (`impair.rs`).
    pub(crate) fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Destination address (where the router sends it).
    pub fn dst_addr(&self) -> [u8; 4] {
        self.view().dst_addr()
    }

    fn view(&self) -> Ipv4Packet<&[u8]> {
        // `parse` checked the header; the checked view cannot fail here.
        Ipv4Packet::new_unchecked(&self.bytes[..])
    }
}

impl QueuedPacket for Frame {
    /// IP bytes: the rate limiter and `limit_bytes` count the IPv4 total length.
    fn wire_len(&self) -> u32 {
        u32::try_from(self.bytes.len()).unwrap_or(u32::MAX)
    }

    fn ecn(&self) -> Ecn {
        self.view().ecn()
    }

    /// RFC 3168 §5: ECT → CE with the checksum fixed; CE stays CE (true); Not-ECT → false.
    fn set_ce(&mut self) -> bool {
        if self.ecn() == Ecn::Ce {
            return true;
        }
        Ipv4Packet::new_unchecked(&mut self.bytes[..]).set_ecn_ce_and_fix_checksum()
    }

    /// The 5-tuple packed: addresses, protocol and the first four payload
    /// bytes (TCP/UDP ports; zeros for a first fragment too short to hold them).
    fn flow_key(&self) -> u64 {
        let v = self.view();
        let mut ports = [0u8; 4];
        if v.frag_offset() == 0 {
            let n = v.payload().len().min(4);
            ports[..n].copy_from_slice(&v.payload()[..n]);
        }
        let (s, d) = (u32::from_be_bytes(v.src_addr()), u32::from_be_bytes(v.dst_addr()));
        let tuple = (u64::from(s) << 32 | u64::from(d)) ^ u64::from(v.protocol()) << 56;
        tuple.rotate_left(17) ^ u64::from(u32::from_be_bytes(ports))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 40-byte IPv4/TCP-sized packet 10.0.1.1 → 10.0.2.1 with a valid header checksum.
    pub(crate) fn packet(len: u16, ecn: Ecn) -> Vec<u8> {
        let mut b = vec![0u8; usize::from(len)];
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.set_version_and_header_len(4, 20);
        p.set_total_len(len);
        p.set_ttl(64);
        p.set_protocol(6);
        p.set_src_addr([10, 0, 1, 1]);
        p.set_dst_addr([10, 0, 2, 1]);
        p.set_ecn(ecn);
        p.fill_checksum();
        b
    }

    #[test]
    fn test_parse_rejects_each_malformation() {
        assert_eq!(Frame::parse(vec![]), Err(Malformed::Short));
        assert_eq!(Frame::parse(vec![0x45; 10]), Err(Malformed::Short));
        let mut v6 = packet(40, Ecn::NotEct);
        v6[0] = 0x60;
        assert_eq!(Frame::parse(v6), Err(Malformed::NotIpv4));
        let mut ihl = packet(40, Ecn::NotEct);
        ihl[0] = 0x44;
        assert_eq!(Frame::parse(ihl), Err(Malformed::BadIhl));
        let mut long_ihl = packet(40, Ecn::NotEct);
        long_ihl[0] = 0x4f; // 60-byte header in a 40-byte buffer
        assert_eq!(Frame::parse(long_ihl), Err(Malformed::Short));
        let mut over = packet(40, Ecn::NotEct);
        over[2..4].copy_from_slice(&41u16.to_be_bytes());
        assert_eq!(Frame::parse(over), Err(Malformed::BadTotalLen));
        let mut under = packet(40, Ecn::NotEct);
        under[2..4].copy_from_slice(&19u16.to_be_bytes());
        assert_eq!(Frame::parse(under), Err(Malformed::BadTotalLen));
    }

    #[test]
    fn test_parse_trims_padding_and_set_ce_fixes_checksum() {
        let mut b = packet(40, Ecn::Ect0);
        b.extend_from_slice(&[0xee; 6]);
        let mut f = Frame::parse(b).unwrap();
        assert_eq!(f.wire_len(), 40);
        assert!(f.set_ce());
        let view = Ipv4Packet::new_checked(f.bytes()).unwrap();
        assert_eq!(view.ecn(), Ecn::Ce);
        assert!(view.verify_checksum());
        assert!(f.set_ce(), "CE stays CE and counts as marked");
        let mut plain = Frame::parse(packet(40, Ecn::NotEct)).unwrap();
        assert!(!plain.set_ce());
        assert_eq!(plain.ecn(), Ecn::NotEct);
    }
}

//! Zero-copy view of an IPv4 header (RFC 791 §3.1), smoltcp style.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |Version|  IHL  |   DSCP    |ECN|          Total Length         |
//! |         Identification        |Flags|      Fragment Offset    |
//! |  Time to Live |    Protocol   |         Header Checksum       |
//! |                       Source Address                          |
//! |                    Destination Address                        |
//! ```
//!
//! The TOS byte is DSCP (RFC 2474 §3) plus the ECN field (RFC 3168 §5). The
//! header checksum is the RFC 1071 Internet checksum over the header only
//! (RFC 791 §3.1 "Header Checksum"); a router that sets CE updates it
//! incrementally (RFC 1624 §3), see [`Ipv4Packet::set_ecn_ce_and_fix_checksum`].
//!
//! Contract (as smoltcp's): after [`Ipv4Packet::new_checked`] succeeds, no
//! accessor or setter panics, whatever the bytes. Untrusted input (the live
//! emulation router's TUN reads) must come in through `new_checked`;
//! [`Ipv4Packet::new_unchecked`] is for buffers this crate is emitting into.

use crate::checksum;
use crate::Ecn;
use thiserror::Error;

/// Why a buffer is not a well-formed IPv4 header ([`Ipv4Packet::check_len`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum Ipv4Error {
    #[error("IPv4 buffer of {len} bytes is shorter than the {need}-byte header")]
    Truncated { len: usize, need: usize },
    #[error("IPv4 IHL gives a {header_len}-byte header, below the 20-byte minimum")]
    BadHeaderLen { header_len: usize },
    #[error("IPv4 total length {total_len} is below the header length {header_len}")]
    TotalLenBelowHeader { total_len: usize, header_len: usize },
    #[error("IPv4 total length {total_len} exceeds the {len}-byte buffer")]
    TotalLenBeyondBuffer { total_len: usize, len: usize },
}

/// Byte ranges of the fixed header (RFC 791 §3.1).
mod field {
    pub type Field = core::ops::Range<usize>;
    pub const VER_IHL: usize = 0;
    pub const DSCP_ECN: usize = 1;
    pub const LENGTH: Field = 2..4;
    pub const IDENT: Field = 4..6;
    pub const FLG_OFF: Field = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Field = 10..12;
    pub const SRC_ADDR: Field = 12..16;
    pub const DST_ADDR: Field = 16..20;
}

/// Length of the IPv4 header without options, bytes.
pub const HEADER_LEN: usize = field::DST_ADDR.end;

/// RFC 791 §3.1 "Flags": bit 1, Don't Fragment.
const FLAG_DF: u16 = 0x4000;
/// RFC 791 §3.1 "Flags": bit 2, More Fragments.
const FLAG_MF: u16 = 0x2000;
/// RFC 791 §3.1 "Fragment Offset": 13 bits, units of 8 octets.
const FRAG_OFFSET_MASK: u16 = 0x1fff;

/// A read (and, over `AsMut`, write) view of an IPv4 packet in a byte buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

fn be16(b: &[u8], f: field::Field) -> u16 {
    u16::from_be_bytes([b[f.start], b[f.start + 1]])
}

fn addr(b: &[u8], f: field::Field) -> [u8; 4] {
    [b[f.start], b[f.start + 1], b[f.start + 2], b[f.start + 3]]
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps a buffer without checks: accessors may panic on a short buffer.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len): no accessor panics afterwards.
    pub fn new_checked(buffer: T) -> Result<Self, Ipv4Error> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the fixed header, the IHL-given header and the total length
    /// all fit in the buffer and are mutually consistent.
    pub fn check_len(&self) -> Result<(), Ipv4Error> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Ipv4Error::Truncated { len, need: HEADER_LEN });
        }
        let (header_len, total_len) = (self.header_len(), usize::from(self.total_len()));
        if header_len < HEADER_LEN {
            Err(Ipv4Error::BadHeaderLen { header_len })
        } else if len < header_len {
            Err(Ipv4Error::Truncated { len, need: header_len })
        } else if total_len < header_len {
            Err(Ipv4Error::TotalLenBelowHeader { total_len, header_len })
        } else if total_len > len {
            Err(Ipv4Error::TotalLenBeyondBuffer { total_len, len })
        } else {
            Ok(())
        }
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Version field (4 for IPv4; not checked by `check_len`).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }
    /// IHL field: header length in 32-bit words.
    pub fn ihl(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] & 0x0f
    }
    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * 4
    }
    /// Differentiated Services codepoint, the upper six bits of the TOS byte.
    pub fn dscp(&self) -> u8 {
        self.buffer.as_ref()[field::DSCP_ECN] >> 2
    }
    /// ECN field, the lower two bits of the TOS byte (RFC 3168 §5).
    pub fn ecn(&self) -> Ecn {
        Ecn::from_tos(self.buffer.as_ref()[field::DSCP_ECN])
    }
    /// Total length of the datagram (header and data), bytes.
    pub fn total_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }
    pub fn ident(&self) -> u16 {
        be16(self.buffer.as_ref(), field::IDENT)
    }
    pub fn dont_frag(&self) -> bool {
        be16(self.buffer.as_ref(), field::FLG_OFF) & FLAG_DF != 0
    }
    pub fn more_frags(&self) -> bool {
        be16(self.buffer.as_ref(), field::FLG_OFF) & FLAG_MF != 0
    }
    /// Fragment offset in bytes.
    pub fn frag_offset(&self) -> u16 {
        (be16(self.buffer.as_ref(), field::FLG_OFF) & FRAG_OFFSET_MASK) << 3
    }
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }
    /// Protocol number of the payload (6 = TCP).
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn src_addr(&self) -> [u8; 4] {
        addr(self.buffer.as_ref(), field::SRC_ADDR)
    }
    pub fn dst_addr(&self) -> [u8; 4] {
        addr(self.buffer.as_ref(), field::DST_ADDR)
    }

    /// Header bytes (IHL-given, clamped to the buffer).
    pub fn header(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        &b[..self.header_len().min(b.len())]
    }
    /// IP options: the header bytes after the fixed 20.
    pub fn options(&self) -> &[u8] {
        self.header().get(HEADER_LEN..).unwrap_or(&[])
    }
    /// The datagram's data, `header_len..total_len` (clamped to the buffer, so
    /// trailing link padding is excluded and nothing panics).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        let end = usize::from(self.total_len()).min(b.len());
        b.get(self.header_len()..end).unwrap_or(&[])
    }

    /// RFC 1071 §1: the ones'-complement sum over the header, checksum
    /// included, is all ones when the checksum is right.
    pub fn verify_checksum(&self) -> bool {
        checksum::fold(checksum::sum(self.header())) == 0xffff
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    fn set_be16(&mut self, f: field::Field, value: u16) {
        self.buffer.as_mut()[f].copy_from_slice(&value.to_be_bytes());
    }

    /// Sets version and IHL from a header length in bytes (rounded down to words).
    pub fn set_version_and_header_len(&mut self, version: u8, header_len: usize) {
        let ihl = (header_len / 4).min(0x0f) as u8;
        self.buffer.as_mut()[field::VER_IHL] = (version << 4) | ihl;
    }
    pub fn set_dscp(&mut self, dscp: u8) {
        let b = &mut self.buffer.as_mut()[field::DSCP_ECN];
        *b = (*b & 0b11) | (dscp << 2);
    }
    /// Sets the ECN field; the header checksum is left stale (see `fill_checksum`).
    pub fn set_ecn(&mut self, ecn: Ecn) {
        let b = &mut self.buffer.as_mut()[field::DSCP_ECN];
        *b = (*b & !0b11) | ecn.bits();
    }
    pub fn set_total_len(&mut self, len: u16) {
        self.set_be16(field::LENGTH, len);
    }
    pub fn set_ident(&mut self, ident: u16) {
        self.set_be16(field::IDENT, ident);
    }
    /// Sets DF/MF and the fragment offset (bytes, rounded down to 8).
    pub fn set_frag(&mut self, dont_frag: bool, more_frags: bool, offset: u16) {
        let flags = if dont_frag { FLAG_DF } else { 0 } | if more_frags { FLAG_MF } else { 0 };
        self.set_be16(field::FLG_OFF, flags | ((offset >> 3) & FRAG_OFFSET_MASK));
    }
    pub fn set_ttl(&mut self, ttl: u8) {
        self.buffer.as_mut()[field::TTL] = ttl;
    }
    pub fn set_protocol(&mut self, protocol: u8) {
        self.buffer.as_mut()[field::PROTOCOL] = protocol;
    }
    pub fn set_checksum(&mut self, value: u16) {
        self.set_be16(field::CHECKSUM, value);
    }
    pub fn set_src_addr(&mut self, a: [u8; 4]) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a);
    }
    pub fn set_dst_addr(&mut self, a: [u8; 4]) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a);
    }

    /// Recomputes the header checksum (RFC 791 §3.1, RFC 1071).
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let value = checksum::finish(checksum::sum(self.header()));
        self.set_checksum(value);
    }

    /// The datagram's data, mutable (same range as [`payload`](Ipv4Packet::payload)).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (start, end) = (self.header_len(), usize::from(self.total_len()));
        let b = self.buffer.as_mut();
        let end = end.min(b.len());
        b.get_mut(start..end).unwrap_or(&mut [])
    }

    /// A router's congestion mark (RFC 3168 §5, "the router sets the CE
    /// codepoint ... instead of dropping"): on an ECT(0)/ECT(1) packet, sets
    /// CE and updates the header checksum incrementally (RFC 1624 §3); returns
    /// true. A Not-ECT packet (which must be dropped instead) and an
    /// already-CE packet are left untouched; returns false.
    pub fn set_ecn_ce_and_fix_checksum(&mut self) -> bool {
        if !self.ecn().is_ect() {
            return false;
        }
        let word = field::VER_IHL..field::DSCP_ECN + 1;
        let old_word = be16(self.buffer.as_ref(), word.clone());
        self.set_ecn(Ecn::Ce);
        let new_word = be16(self.buffer.as_ref(), word);
        let value = checksum::update(self.checksum(), old_word, new_word);
        self.set_checksum(value);
        true
    }
}

#[cfg(test)]
mod tests;

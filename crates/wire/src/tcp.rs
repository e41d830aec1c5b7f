//! Zero-copy view of a TCP header (RFC 9293 §3.1, formerly RFC 793 §3.1),
//! smoltcp style, with the options of RFC 9293 §3.2 (MSS, kind 2), RFC 2018
//! §2–§3 (SACK-permitted, kind 4; SACK, kind 5) and the ECE/CWR control bits of
//! RFC 3168 §6.1.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |          Source Port          |       Destination Port        |
//! |                        Sequence Number                        |
//! |                    Acknowledgment Number                      |
//! |  Data |       |C|E|U|A|P|R|S|F|                               |
//! | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
//! |           Checksum            |         Urgent Pointer        |
//! |                    Options                    |    Padding    |
//! ```
//!
//! The checksum (RFC 9293 §3.1 "Checksum", RFC 1071) covers a pseudo-header
//! of the IP addresses, protocol and TCP length, then header and data.
//!
//! Contract (as smoltcp's): after [`TcpPacket::new_checked`] succeeds, no
//! accessor or setter panics, whatever the bytes; malformed options come out
//! of [`TcpPacket::options`] as an error item, never a panic.

use crate::checksum;
use crate::segment::{TcpFlags, MAX_SACK_BLOCKS};
use thiserror::Error;

/// Why a buffer is not a well-formed TCP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum TcpError {
    #[error("TCP buffer of {len} bytes is shorter than the {need}-byte header")]
    Truncated { len: usize, need: usize },
    #[error("TCP data offset gives a {header_len}-byte header, below the 20-byte minimum")]
    BadHeaderLen { header_len: usize },
    #[error("malformed TCP option of kind {kind} at option byte {at}")]
    BadOption { kind: u8, at: usize },
}

/// Byte ranges of the fixed header (RFC 9293 §3.1).
mod field {
    pub type Field = core::ops::Range<usize>;
    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const SEQ_NUM: Field = 4..8;
    pub const ACK_NUM: Field = 8..12;
    pub const DATA_OFF: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WIN_SIZE: Field = 14..16;
    pub const CHECKSUM: Field = 16..18;
    pub const URGENT: Field = 18..20;
}

/// Length of the TCP header without options, bytes.
pub const HEADER_LEN: usize = field::URGENT.end;
/// Largest TCP header (data offset 15), bytes.
pub const MAX_HEADER_LEN: usize = 60;

/// Option kinds (RFC 9293 §3.2, RFC 2018 §2–§3).
pub mod kind {
    pub const END: u8 = 0;
    pub const NOP: u8 = 1;
    pub const MSS: u8 = 2;
    pub const WSCALE: u8 = 3;
    pub const SACK_PERMITTED: u8 = 4;
    pub const SACK: u8 = 5;
}

/// Up to four SACK blocks as 32-bit wire edges `[left, right)` (RFC 2018 §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackEdges {
    edges: [(u32, u32); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackEdges {
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.edges[..usize::from(self.len)]
    }
}

/// One parsed TCP option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpOption<'a> {
    /// Kind 0: end of the option list (the iterator stops after it).
    EndOfList,
    /// Kind 1: padding.
    NoOperation,
    /// Kind 2 (RFC 9293 §3.7.1): maximum segment size.
    MaxSegmentSize(u16),
    /// Kind 3 (RFC 7323 §2.2): window scale shift count.
    WindowScale(u8),
    /// Kind 4 (RFC 2018 §2).
    SackPermitted,
    /// Kind 5 (RFC 2018 §3): 1–4 blocks.
    Sack(SackEdges),
    /// Any other kind, with its data (after kind and length).
    Unknown { kind: u8, data: &'a [u8] },
}

/// Iterator over the options of a header; yields `Err` once on a malformed
/// option and then stops.
#[derive(Clone, Debug)]
pub struct TcpOptions<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Iterator for TcpOptions<'a> {
    type Item = Result<TcpOption<'a>, TcpError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.bytes.get(self.at..).filter(|r| !r.is_empty())?;
        let item = match rest[0] {
            kind::END => Ok((TcpOption::EndOfList, rest.len())),
            kind::NOP => Ok((TcpOption::NoOperation, 1)),
            k => parse_tlv(k, rest).ok_or(TcpError::BadOption { kind: k, at: self.at }),
        };
        match item {
            Ok((option, used)) => {
                self.at += used;
                Some(Ok(option))
            }
            Err(e) => {
                self.at = self.bytes.len();
                Some(Err(e))
            }
        }
    }
}

/// Parses a kind-length-data option at the start of `rest`; `None` if malformed.
fn parse_tlv(kind: u8, rest: &[u8]) -> Option<(TcpOption<'_>, usize)> {
    let len = usize::from(*rest.get(1)?);
    let data = rest.get(2..len)?; // also rejects len < 2
    let option = match (kind, data.len()) {
        (kind::MSS, 2) => TcpOption::MaxSegmentSize(u16::from_be_bytes([data[0], data[1]])),
        (kind::WSCALE, 1) => TcpOption::WindowScale(data[0]),
        (kind::SACK_PERMITTED, 0) => TcpOption::SackPermitted,
        (kind::SACK, n) if n > 0 && n % 8 == 0 && n / 8 <= MAX_SACK_BLOCKS => TcpOption::Sack(parse_sack(data)),
        (kind::MSS | kind::SACK_PERMITTED | kind::SACK, _) => return None,
        _ => TcpOption::Unknown { kind, data },
    };
    Some((option, len))
}

fn parse_sack(data: &[u8]) -> SackEdges {
    let mut sack = SackEdges::default();
    for (i, block) in data.chunks_exact(8).take(MAX_SACK_BLOCKS).enumerate() {
        let left = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
        let right = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
        sack.edges[i] = (left, right);
        sack.len = i as u8 + 1;
    }
    sack
}

/// A read (and, over `AsMut`, write) view of a TCP segment in a byte buffer;
/// the buffer is the IP payload, so its length is the TCP length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

fn be16(b: &[u8], f: field::Field) -> u16 {
    u16::from_be_bytes([b[f.start], b[f.start + 1]])
}

fn be32(b: &[u8], f: field::Field) -> u32 {
    u32::from_be_bytes([b[f.start], b[f.start + 1], b[f.start + 2], b[f.start + 3]])
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Wraps a buffer without checks: accessors may panic on a short buffer.
    pub const fn new_unchecked(buffer: T) -> Self {
        TcpPacket { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len): no accessor panics afterwards.
    pub fn new_checked(buffer: T) -> Result<Self, TcpError> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the fixed header and the data-offset-given header fit.
    pub fn check_len(&self) -> Result<(), TcpError> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(TcpError::Truncated { len, need: HEADER_LEN });
        }
        let header_len = self.header_len();
        if header_len < HEADER_LEN {
            Err(TcpError::BadHeaderLen { header_len })
        } else if len < header_len {
            Err(TcpError::Truncated { len, need: header_len })
        } else {
            Ok(())
        }
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }
    /// Sequence number as on the wire (modulo 2^32).
    pub fn seq_number(&self) -> u32 {
        be32(self.buffer.as_ref(), field::SEQ_NUM)
    }
    /// Acknowledgment number as on the wire (modulo 2^32).
    pub fn ack_number(&self) -> u32 {
        be32(self.buffer.as_ref(), field::ACK_NUM)
    }
    /// Data offset field: header length in 32-bit words.
    pub fn data_offset(&self) -> u8 {
        self.buffer.as_ref()[field::DATA_OFF] >> 4
    }
    /// Header length in bytes (data offset × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.data_offset()) * 4
    }
    /// The nine control bits AE (byte 12, bit 0) and CWR ECE URG ACK PSH RST SYN FIN.
    pub fn flags(&self) -> TcpFlags {
        let b = self.buffer.as_ref();
        TcpFlags(u16::from(b[field::DATA_OFF] & 1) << 8 | u16::from(b[field::FLAGS]))
    }
    pub fn window_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::WIN_SIZE)
    }
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn urgent_at(&self) -> u16 {
        be16(self.buffer.as_ref(), field::URGENT)
    }

    /// Option bytes, `20..header_len` (clamped to the buffer).
    pub fn options_bytes(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        b.get(HEADER_LEN..self.header_len().min(b.len())).unwrap_or(&[])
    }
    pub fn options(&self) -> TcpOptions<'_> {
        TcpOptions { bytes: self.options_bytes(), at: 0 }
    }
    /// Segment data after the header (clamped to the buffer).
    pub fn payload(&self) -> &[u8] {
        self.buffer.as_ref().get(self.header_len()..).unwrap_or(&[])
    }

    /// RFC 9293 §3.1: the sum over pseudo-header, header and data is all ones.
    pub fn verify_checksum(&self, src: [u8; 4], dst: [u8; 4]) -> bool {
        checksum::fold(self.checksum_sum(src, dst)) == 0xffff
    }

    fn checksum_sum(&self, src: [u8; 4], dst: [u8; 4]) -> u64 {
        let b = self.buffer.as_ref();
        let len = u32::try_from(b.len()).unwrap_or(u32::MAX);
        checksum::pseudo_header(src, dst, checksum::PROTO_TCP, len) + checksum::sum(b)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    fn set_be16(&mut self, f: field::Field, value: u16) {
        self.buffer.as_mut()[f].copy_from_slice(&value.to_be_bytes());
    }
    fn set_be32(&mut self, f: field::Field, value: u32) {
        self.buffer.as_mut()[f].copy_from_slice(&value.to_be_bytes());
    }

    pub fn set_src_port(&mut self, port: u16) {
        self.set_be16(field::SRC_PORT, port);
    }
    pub fn set_dst_port(&mut self, port: u16) {
        self.set_be16(field::DST_PORT, port);
    }
    pub fn set_seq_number(&mut self, seq: u32) {
        self.set_be32(field::SEQ_NUM, seq);
    }
    pub fn set_ack_number(&mut self, ack: u32) {
        self.set_be32(field::ACK_NUM, ack);
    }
    /// Sets the data offset from a header length in bytes (rounded down to
    /// words); clears the reserved bits and keeps AE (bit 0, RFC 9768).
    pub fn set_header_len(&mut self, header_len: usize) {
        let words = (header_len / 4).min(0x0f) as u8;
        let b = self.buffer.as_mut();
        b[field::DATA_OFF] = words << 4 | (b[field::DATA_OFF] & 1);
    }
    /// Writes byte 13 and the AE bit of byte 12.
    pub fn set_flags(&mut self, flags: TcpFlags) {
        let b = self.buffer.as_mut();
        b[field::FLAGS] = flags.0 as u8;
        b[field::DATA_OFF] = (b[field::DATA_OFF] & !1) | (flags.0 >> 8) as u8 & 1;
    }
    pub fn set_window_len(&mut self, window: u16) {
        self.set_be16(field::WIN_SIZE, window);
    }
    pub fn set_checksum(&mut self, value: u16) {
        self.set_be16(field::CHECKSUM, value);
    }
    pub fn set_urgent_at(&mut self, value: u16) {
        self.set_be16(field::URGENT, value);
    }
    /// Option bytes, mutable (same range as `options_bytes`).
    pub fn options_mut(&mut self) -> &mut [u8] {
        let end = self.header_len();
        let b = self.buffer.as_mut();
        let end = end.min(b.len());
        b.get_mut(HEADER_LEN..end).unwrap_or(&mut [])
    }
    /// Segment data, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        self.buffer.as_mut().get_mut(start..).unwrap_or(&mut [])
    }

    /// Computes the checksum over pseudo-header, header and data (RFC 9293 §3.1).
    pub fn fill_checksum(&mut self, src: [u8; 4], dst: [u8; 4]) {
        self.set_checksum(0);
        let value = checksum::finish(self.checksum_sum(src, dst));
        self.set_checksum(value);
    }
}

#[cfg(test)]
mod tests;

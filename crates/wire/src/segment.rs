//! The high-level form of a TCP segment as ecnlab's TCP produces and consumes it
//! (the smoltcp "Repr" idea): every field that matters to congestion control,
//! with the IP ECN codepoint as a first-class field.
//!
//! Sequence numbers are 64-bit and never wrap inside a run; the byte form in
//! a pcap writes them modulo 2^32. The connection's SYN has sequence number 0
//! (so the first data byte is 1).

use crate::Ecn;
use serde::{Deserialize, Serialize};

/// IPv4 header length without options, bytes.
pub const IPV4_HEADER_LEN: u32 = 20;
/// TCP header length without options, bytes.
pub const TCP_HEADER_LEN: u32 = 20;
/// RFC 2018 §3: at most 4 SACK blocks fit in 40 bytes of options.
pub const MAX_SACK_BLOCKS: usize = 4;

/// TCP control bits (RFC 793 §3.1, ECE/CWR from RFC 3168 §6.1, AE from
/// RFC 9768 §3), bit values as on the wire: the low byte is header byte 13,
/// bit 8 (AE, formerly NS of RFC 3540) the lowest bit of byte 12, beside the
/// data offset. AccECN's 3-bit ACE field is (AE, CWR, ECE), [`TcpFlags::ace`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TcpFlags(pub u16);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const URG: TcpFlags = TcpFlags(0x20);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);
    /// Accurate ECN (RFC 9768 §3), the former ECN-nonce bit NS.
    pub const AE: TcpFlags = TcpFlags(0x100);
    pub const NONE: TcpFlags = TcpFlags(0);

    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
    pub fn insert(&mut self, other: TcpFlags) {
        self.0 |= other.0;
    }
    pub fn remove(&mut self, other: TcpFlags) {
        self.0 &= !other.0;
    }
    pub const fn syn(self) -> bool {
        self.contains(Self::SYN)
    }
    pub const fn fin(self) -> bool {
        self.contains(Self::FIN)
    }
    pub const fn ack(self) -> bool {
        self.contains(Self::ACK)
    }
    pub const fn ece(self) -> bool {
        self.contains(Self::ECE)
    }
    pub const fn cwr(self) -> bool {
        self.contains(Self::CWR)
    }
    pub const fn ae(self) -> bool {
        self.contains(Self::AE)
    }
    /// RFC 9768 §3.2.2: the ACE field, AE·4 + CWR·2 + ECE.
    pub const fn ace(self) -> u8 {
        ((self.0 >> 8) as u8 & 1) << 2 | ((self.0 >> 7) as u8 & 1) << 1 | ((self.0 >> 6) as u8 & 1)
    }
    /// These flags with (AE, CWR, ECE) replaced by the 3-bit `ace`.
    pub const fn with_ace(self, ace: u8) -> TcpFlags {
        let rest = self.0 & !(Self::AE.0 | Self::CWR.0 | Self::ECE.0);
        let a = ace as u16;
        TcpFlags(rest | (a & 4) << 6 | (a & 2) << 6 | (a & 1) << 6)
    }
}

impl core::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.union(rhs)
    }
}

/// Up to four SACK blocks `[left, right)`, most recent first (RFC 2018 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    pub const EMPTY: SackBlocks = SackBlocks { blocks: [(0, 0); MAX_SACK_BLOCKS], len: 0 };

    /// Appends a block; returns false (and ignores it) when four are already held.
    pub fn push(&mut self, left: u64, right: u64) -> bool {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = (left, right);
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The AccECN option (RFC 9768 §3.2.3): the Data Receiver's 24-bit byte
/// counters, in one of two orders, truncated from the end to fit.
///
/// | kind | name | fields, in order |
/// |---|---|---|
/// | 172 | AccECN0 | EE0B, ECEB, EE1B |
/// | 174 | AccECN1 | EE1B, ECEB, EE0B |
///
/// Length 2 + 3·fields (fields 0 … 3); the CE counter is the second field in
/// both orders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AccEcnOption {
    /// AccECN1 (kind 174) instead of AccECN0 (kind 172).
    pub order1: bool,
    /// Fields carried, 0 … 3.
    pub fields: u8,
    /// The counters' wire values, each modulo 2^24.
    pub ee0b: u32,
    pub eceb: u32,
    pub ee1b: u32,
}

impl AccEcnOption {
    /// TCP option kinds (IANA, RFC 9768 §6).
    pub const KIND0: u8 = 172;
    pub const KIND1: u8 = 174;
    /// Counters are 24 bits wide.
    pub const MASK: u32 = (1 << 24) - 1;

    pub fn kind(&self) -> u8 {
        if self.order1 {
            Self::KIND1
        } else {
            Self::KIND0
        }
    }
    /// Option bytes: kind, length and 3 per field.
    pub fn len(&self) -> u32 {
        2 + 3 * u32::from(self.fields)
    }
    pub fn is_empty(&self) -> bool {
        self.fields == 0
    }
    /// The counters in wire order (only the first `fields` are sent).
    pub fn in_order(&self) -> [u32; 3] {
        if self.order1 {
            [self.ee1b, self.eceb, self.ee0b]
        } else {
            [self.ee0b, self.eceb, self.ee1b]
        }
    }
    /// The option of `kind` with the `values` read in wire order (1 … 3 of them).
    pub fn from_wire(kind: u8, values: &[u32]) -> Self {
        let order1 = kind == Self::KIND1;
        let v = |i: usize| values.get(i).copied().unwrap_or(0);
        let (first, third) = (v(0), v(2));
        let (ee0b, ee1b) = if order1 { (third, first) } else { (first, third) };
        AccEcnOption { order1, fields: values.len().min(3) as u8, ee0b, eceb: v(1), ee1b }
    }
    /// ECEB, when carried.
    pub fn ceb(&self) -> Option<u32> {
        (self.fields >= 2).then_some(self.eceb)
    }
}

/// One TCP segment in an IPv4 packet, as the simulator moves it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Segment {
    /// Sequence number of the first octet (of the SYN for a SYN).
    pub seq: u64,
    /// Next sequence number expected from the peer (meaningful when `flags.ack()`).
    pub ack: u64,
    pub flags: TcpFlags,
    /// Payload bytes carried.
    pub payload_len: u32,
    /// Receive window advertised, bytes (unscaled; a pcap writes it shifted
    /// right by the connection's window scale, and clamped to 65535).
    pub window: u32,
    /// MSS option (SYN and SYN-ACK only).
    pub mss: Option<u16>,
    /// SACK-permitted option (SYN and SYN-ACK only).
    pub sack_permitted: bool,
    /// Window-scale option's shift count (RFC 7323 §2; SYN and SYN-ACK only).
    pub wscale: Option<u8>,
    /// SACK option blocks.
    pub sack: SackBlocks,
    /// IP ECN codepoint (set by the sender, rewritten to CE by a router).
    pub ecn: Ecn,
    /// The AccECN option (RFC 9768 §3.2.3), on segments of an AccECN connection
    /// (SYN-ACK, ACKs, data segments) as `tcp.accecn_option` says.
    #[serde(default)]
    pub accecn: Option<AccEcnOption>,
    /// Metadata, not on the wire: the sender sent this sequence range before.
    pub retransmit: bool,
}

impl Segment {
    /// Sequence space consumed: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u64 {
        self.payload_len as u64 + self.flags.syn() as u64 + self.flags.fin() as u64
    }
    /// Length of the TCP options, padded to a multiple of 4 bytes.
    pub fn options_len(&self) -> u32 {
        self.options_bytes().div_ceil(4) * 4
    }
    /// Length of the TCP options before padding (the NOPs that pad one option
    /// can sit beside another, as Linux's AccECN option uses SACK's).
    pub fn options_bytes(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4; // kind 2, len 4
        }
        if self.sack_permitted {
            n += 2; // kind 4, len 2
        }
        if !self.sack.is_empty() {
            n += 2 + 8 * self.sack.len() as u32; // kind 5, len 2+8n
        }
        if self.wscale.is_some() {
            n += 4; // NOP, kind 3, len 3
        }
        if let Some(o) = &self.accecn {
            n += o.len(); // kind 172/174, len 2+3n
        }
        n
    }
    /// IPv4 + TCP header bytes, including options.
    pub fn header_len(&self) -> u32 {
        IPV4_HEADER_LEN + TCP_HEADER_LEN + self.options_len()
    }
    /// Total length of the IPv4 packet carrying this segment.
    pub fn wire_len(&self) -> u32 {
        self.header_len() + self.payload_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_wire_len_counts_padded_options() {
        let mut s = Segment { payload_len: 1000, ..Default::default() };
        assert_eq!(s.wire_len(), 1040);
        s.mss = Some(1460);
        s.sack_permitted = true; // 4 + 2 = 6, padded to 8
        assert_eq!(s.options_len(), 8);
        let mut sack = SackBlocks::EMPTY;
        assert!(sack.push(10, 20));
        let s2 = Segment { sack, ..Default::default() };
        assert_eq!(s2.options_len(), 12); // 2 + 8 = 10, padded to 12
    }

    #[test]
    fn test_seq_len_counts_syn_and_fin() {
        let s = Segment { flags: TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR, ..Default::default() };
        assert_eq!(s.seq_len(), 1);
        assert!(s.flags.ece() && s.flags.cwr() && !s.flags.ack());
    }

    /// RFC 9768 §3.2.2: "the three flags ... AE, CWR and ECE ... the ACE field";
    /// AE is the most significant bit.
    #[test]
    fn test_ace_field_is_ae_cwr_ece() {
        assert_eq!(TcpFlags::AE.ace(), 4);
        assert_eq!(TcpFlags::CWR.ace(), 2);
        assert_eq!(TcpFlags::ECE.ace(), 1);
        for ace in 0..8u8 {
            let f = (TcpFlags::ACK | TcpFlags::FIN).with_ace(ace);
            assert_eq!(f.ace(), ace);
            assert!(f.ack() && f.fin());
            assert_eq!(f.ae(), ace & 4 != 0);
        }
    }

    #[test]
    fn test_sack_blocks_hold_at_most_four() {
        let mut b = SackBlocks::EMPTY;
        for i in 0..4 {
            assert!(b.push(i, i + 1));
        }
        assert!(!b.push(9, 10));
        assert_eq!(b.len(), 4);
    }
}

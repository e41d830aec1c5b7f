//! The simulator's path impairments (`ecnlab_sim::impair`: which packets each
//! action acts on and what it rewrites) on real IPv4/TCP bytes: a [`Frame`]
//! is their [`Header`]. Every write leaves a packet a receiver accepts:
//!
//! - the ECN field: the IPv4 header checksum recomputed (RFC 791 §3.1);
//! - the TCP control bits or option bytes: the TCP checksum recomputed over
//!   the pseudo-header (RFC 9293 §3.1);
//! - stripping the AccECN option (kind 172 or 174, RFC 9768 §3.2.3): its bytes
//!   removed, the options padded back to a 4-byte word with NOPs at the same
//!   place, and the data offset, the IPv4 total length and both checksums
//!   rewritten (the simulator's segment loses the option and its padding).
//!
//! A fragment other than the first, or a TCP header that does not parse, is
//! not a TCP segment here: only the ECN actions act on it.

use ecnlab_sim::impair::Header;
use ecnlab_wire::{AccEcnOption, Ecn, Ipv4Packet, TcpFlags, TcpPacket};

use crate::frame::Frame;

/// IANA protocol number of TCP.
const PROTO_TCP: u8 = 6;
/// Bytes of the fixed TCP header (the options follow).
const TCP_FIXED: usize = 20;
const NOP: u8 = 1;

impl Frame {
    /// Where the TCP header starts in the frame, if the frame is a TCP segment
    /// whose header parses.
    fn tcp_start(&self) -> Option<usize> {
        let ip = Ipv4Packet::new_unchecked(self.bytes());
        if ip.protocol() != PROTO_TCP || ip.frag_offset() != 0 {
            return None;
        }
        TcpPacket::new_checked(ip.payload()).ok()?;
        Some(ip.header_len())
    }

    /// The AccECN option's byte range in the frame.
    fn accecn_range(&self) -> Option<std::ops::Range<usize>> {
        let start = self.tcp_start()?;
        let tcp = TcpPacket::new_unchecked(&self.bytes()[start..]);
        let found = option_at(tcp.options_bytes(), |kind| kind == AccEcnOption::KIND0 || kind == AccEcnOption::KIND1)?;
        let at = start + TCP_FIXED;
        Some(at + found.start..at + found.end)
    }

    /// Recomputes the TCP checksum after a write to the segment.
    fn fix_tcp_checksum(&mut self) {
        let Some(start) = self.tcp_start() else { return };
        let ip = Ipv4Packet::new_unchecked(self.bytes());
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        TcpPacket::new_unchecked(&mut self.bytes_mut()[start..]).fill_checksum(src, dst);
    }
}

/// The range within `options` of the first option whose kind `wanted` accepts.
fn option_at(options: &[u8], wanted: impl Fn(u8) -> bool) -> Option<std::ops::Range<usize>> {
    let mut i = 0;
    while let Some(&kind) = options.get(i) {
        match kind {
            0 => return None, // end of the option list
            NOP => i += 1,
            _ => {
                let len = usize::from(*options.get(i + 1)?);
                if len < 2 || i + len > options.len() {
                    return None;
                }
                if wanted(kind) {
                    return Some(i..i + len);
                }
                i += len;
            }
        }
    }
    None
}

impl Header for Frame {
    fn ecn(&self) -> Ecn {
        Ipv4Packet::new_unchecked(self.bytes()).ecn()
    }

    fn set_ecn(&mut self, ecn: Ecn) {
        let mut ip = Ipv4Packet::new_unchecked(&mut self.bytes_mut()[..]);
        ip.set_ecn(ecn);
        ip.fill_checksum();
    }

    fn tcp_flags(&self) -> Option<TcpFlags> {
        let start = self.tcp_start()?;
        Some(TcpPacket::new_unchecked(&self.bytes()[start..]).flags())
    }

    fn set_tcp_flags(&mut self, flags: TcpFlags) {
        let Some(start) = self.tcp_start() else { return };
        TcpPacket::new_unchecked(&mut self.bytes_mut()[start..]).set_flags(flags);
        self.fix_tcp_checksum();
    }

    fn has_accecn_option(&self) -> bool {
        self.accecn_range().is_some()
    }

    fn strip_accecn_option(&mut self) {
        let (Some(r), Some(start)) = (self.accecn_range(), self.tcp_start()) else { return };
        let removed = r.len();
        let pad = removed % 4; // the options were a whole number of words: so they stay

        let tcp_len = TcpPacket::new_unchecked(&self.bytes()[start..]).header_len() - removed + pad;
        let bytes = self.bytes_mut();
        bytes.splice(r, std::iter::repeat_n(NOP, pad));
        let total = u16::try_from(bytes.len()).unwrap_or(u16::MAX);
        TcpPacket::new_unchecked(&mut bytes[start..]).set_header_len(tcp_len);
        let mut ip = Ipv4Packet::new_unchecked(&mut bytes[..]);
        ip.set_total_len(total);
        ip.fill_checksum();
        self.fix_tcp_checksum();
    }

    fn zero_accecn_option(&mut self) {
        let Some(r) = self.accecn_range() else { return };
        self.bytes_mut()[r.start + 2..r.end].fill(0);
        self.fix_tcp_checksum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_sim::impair::{Effect, ImpairAction};
    use ecnlab_sim::impair_link::{ImpairCount, Impairment, LinkImpairments};
    use ecnlab_wire::{emit_ipv4_tcp, parse_ipv4_tcp, Endpoints, Instant, Segment};

    const ENDS: Endpoints = Endpoints {
        src_addr: [10, 0, 1, 1],
        dst_addr: [10, 0, 2, 1],
        src_port: 40000,
        dst_port: 5201,
        src_isn: 0,
        dst_isn: 0,
    };

    fn frame(seg: &Segment) -> Frame {
        let mut bytes = Vec::new();
        emit_ipv4_tcp(seg, &ENDS, 7, 0xab, &mut bytes).expect("emits");
        Frame::parse(bytes).expect("well formed")
    }

    /// The frame parses back, both checksums right; its segment.
    fn check(f: &Frame) -> Segment {
        let ip = Ipv4Packet::new_checked(f.bytes()).unwrap();
        assert!(ip.verify_checksum(), "IPv4 header checksum");
        assert_eq!(usize::from(ip.total_len()), f.bytes().len());
        let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
        assert!(tcp.verify_checksum(ip.src_addr(), ip.dst_addr()), "TCP checksum");
        parse_ipv4_tcp(f.bytes(), 0, 0).expect("parses")
    }

    fn ack_with_option(fields: u8) -> Segment {
        let accecn = AccEcnOption { order1: true, fields, ee0b: 1, eceb: 2, ee1b: 3 };
        Segment {
            seq: 1,
            ack: 1001,
            flags: TcpFlags::ACK | TcpFlags::ECE | TcpFlags::AE,
            window: 65535,
            accecn: Some(accecn),
            ecn: Ecn::Ect0,
            payload_len: 100,
            ..Segment::default()
        }
    }

    /// Each action does to the bytes what it does to the simulator's segment, checksums right.
    #[test]
    fn test_every_action_rewrites_bytes_as_the_segment() {
        let syn =
            Segment { flags: TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR, mss: Some(1460), ..Segment::default() };
        let synack = Segment { flags: TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE, ..Segment::default() };
        for action in ImpairAction::ALL {
            for fields in [1, 2, 3] {
                for seg in [ack_with_option(fields), syn, synack] {
                    let (mut s, mut f) = (seg, frame(&seg));
                    let (want, got) = (action.apply(&mut s), action.apply(&mut f));
                    assert_eq!(got, want, "{action:?} on {seg:?}");
                    if got != Effect::Dropped {
                        // The rewritten bytes read back as the rewritten segment's own bytes do.
                        let (back, expected) = (check(&f), check(&frame(&s)));
                        assert_eq!(back.ecn, expected.ecn, "{action:?}");
                        assert_eq!(back.flags, expected.flags, "{action:?}");
                        assert_eq!(back.accecn, expected.accecn, "{action:?}");
                        assert_eq!(back.payload_len, expected.payload_len, "{action:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn test_strip_pads_the_options_to_a_word() {
        for fields in [0, 1, 2, 3] {
            let mut f = frame(&ack_with_option(fields));
            let before = f.bytes().len();
            ImpairAction::StripAccecnOption.apply(&mut f);
            let removed = 2 + 3 * usize::from(fields);
            assert_eq!(f.bytes().len(), before - removed + removed % 4, "{fields} fields");
            let back = check(&f);
            assert_eq!((back.accecn, back.payload_len), (None, 100), "the data offset points at the payload");
        }
    }

    #[test]
    fn test_a_non_tcp_packet_is_only_ecn_rewritten() {
        let mut bytes = frame(&ack_with_option(3)).bytes().to_vec();
        let mut ip = Ipv4Packet::new_unchecked(&mut bytes[..]);
        ip.set_protocol(17);
        ip.fill_checksum();
        let mut f = Frame::parse(bytes).unwrap();
        assert_eq!(f.tcp_flags(), None);
        assert_eq!(ImpairAction::ZeroAce.apply(&mut f), Effect::Untouched);
        assert_eq!(ImpairAction::StripAccecnOption.apply(&mut f), Effect::Untouched);
        assert_eq!(ImpairAction::Bleach.apply(&mut f), Effect::Rewritten);
        assert_eq!(f.ecn(), Ecn::NotEct);
        assert!(Ipv4Packet::new_checked(f.bytes()).unwrap().verify_checksum());
    }

    #[test]
    fn test_link_impairments_count_frames() {
        let rule =
            Impairment { action: ImpairAction::CeAll, fraction: 1.0, from: Instant::ZERO, until: None, flows: None };
        let mut m = LinkImpairments::new(1, 0, vec![rule]);
        let mut f = frame(&ack_with_option(3));
        assert!(m.apply(Instant::ZERO, None, &mut f));
        assert_eq!(check(&f).ecn, Ecn::Ce);
        assert_eq!(m.counts(), vec![ImpairCount { action: "ce_all", rewritten: 1, dropped: 0 }]);
    }
}

//! The simulator's packet: a TCP segment plus the addressing the network needs.
//! Plain `Copy` data kept in a slab from the moment a host sends it until it
//! is delivered or discarded; queues and pipes hold only its index
//! (`QueuedRef`), so a packet is written once and not moved hop by hop, and
//! a freed slot, reused first, is still in the cache.
//!
//! An ICMP Source Quench (`quench.rs`) is a `Packet` with `quench` set to the
//! host the quenched segment was going to: `seg` is that segment (what the
//! ICMP message quotes), `src` the gateway, `dst` and `to` the segment's
//! sender; it is 56 bytes on the wire and Not-ECT.

use crate::sched::End;
use ecnlab_aqm::QueuedPacket;
use ecnlab_wire::{Ecn, Instant, Segment, SOURCE_QUENCH_LEN};

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub seg: Segment,
    /// Index of the flow in the spec.
    pub flow: u32,
    /// Connection slot, and the slot's generation when the packet was sent
    /// (a packet for a slot that has since been reused is discarded).
    pub slot: u32,
    pub gen: u32,
    /// Connection number within the flow (0 = first).
    pub conn_no: u32,
    /// The endpoint this packet is addressed to.
    pub to: End,
    /// Source and destination host (node indices).
    pub src: u32,
    pub dst: u32,
    /// When the packet entered its current link's queue.
    pub enqueued_at: Instant,
    /// `Some(host)`: an ICMP Source Quench about `seg`, which was on its way
    /// to `host` (module doc); `None`: the segment itself.
    pub quench: Option<u32>,
}

impl QueuedPacket for Packet {
    fn wire_len(&self) -> u32 {
        if self.quench.is_some() {
            SOURCE_QUENCH_LEN
        } else {
            self.seg.wire_len()
        }
    }
    fn ecn(&self) -> Ecn {
        if self.quench.is_some() {
            Ecn::NotEct
        } else {
            self.seg.ecn
        }
    }
    /// RFC 3168 §5 (`Ecn::set_ce`); a Source Quench is never ECN-capable.
    fn set_ce(&mut self) -> bool {
        self.quench.is_none() && self.seg.ecn.set_ce()
    }
    /// RFC 1812 §4.3.2.7: no ICMP error about an ICMP error.
    fn may_quench(&self) -> bool {
        self.quench.is_none()
    }
}

/// What a packet is, for the per-kind drop counts of a queue (`QueueOut::drops_*`):
/// which packets an AQM's drops fall on decides what they cost (a lost
/// SYN-ACK or data-less FIN waits for a retransmission timer; a lost data
/// segment in a full window is repaired by fast retransmit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// SYN (first or retransmitted).
    Syn,
    /// SYN-ACK (first or retransmitted).
    SynAck,
    /// A segment with payload sent for the first time (a FIN on it included).
    Data,
    /// A segment with payload that its sender sent before.
    Retransmit,
    /// A FIN without payload (first or repeated).
    Fin,
    /// A pure ACK: no payload, no SYN, no FIN.
    Ack,
    /// An ICMP Source Quench.
    Quench,
}

impl PacketKind {
    pub const COUNT: usize = 7;
}

impl Packet {
    pub fn kind(&self) -> PacketKind {
        let s = &self.seg;
        match () {
            _ if self.quench.is_some() => PacketKind::Quench,
            _ if s.flags.syn() => {
                if s.flags.ack() {
                    PacketKind::SynAck
                } else {
                    PacketKind::Syn
                }
            }
            _ if s.payload_len > 0 && s.retransmit => PacketKind::Retransmit,
            _ if s.payload_len > 0 => PacketKind::Data,
            _ if s.flags.fin() => PacketKind::Fin,
            _ => PacketKind::Ack,
        }
    }
}

/// What a link's queue holds for a packet: its slab index, and the two
/// fields the AQM reads or writes. The ECN codepoint here is the packet's
/// while it is queued (a CE mark lands here); `Simulation` copies it back to
/// the slab when the packet leaves the queue.
#[derive(Clone, Copy, Debug)]
pub struct QueuedRef {
    pub idx: u32,
    pub len: u32,
    pub ecn: Ecn,
    /// False for a Source Quench (`Packet::may_quench`).
    pub may_quench: bool,
    /// Bit 0: addressed to the server; bit 1: a Source Quench (`flow_key`).
    dir: u8,
    /// The packet's flow and connection number within it (`flow_key`).
    flow: u32,
    conn_no: u32,
}

impl QueuedRef {
    /// The queue's view of packet `p`, kept at slab index `idx`.
    pub fn of(idx: u32, p: &Packet) -> Self {
        let dir = u8::from(matches!(p.to, End::Server)) | u8::from(p.quench.is_some()) << 1;
        QueuedRef {
            idx,
            len: p.wire_len(),
            ecn: p.ecn(),
            may_quench: p.may_quench(),
            dir,
            flow: p.flow,
            conn_no: p.conn_no,
        }
    }
}

impl QueuedPacket for QueuedRef {
    fn wire_len(&self) -> u32 {
        self.len
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    /// RFC 3168 §5 (`Ecn::set_ce`).
    fn set_ce(&mut self) -> bool {
        self.ecn.set_ce()
    }
    fn may_quench(&self) -> bool {
        self.may_quench
    }
    /// The packet's transport flow: a 32-bit hash of (flow, connection,
    /// direction), as Linux's `skb_get_hash` is 32 bits. Computed when a
    /// queue classifies (FQ-CoDel, DualPI2), not for every packet.
    fn flow_key(&self) -> u64 {
        // One connection is one 5-tuple; a Source Quench is a flow of its own per gateway.
        let tuple = u64::from(self.flow) << 34 | u64::from(self.conn_no) << 2 | u64::from(self.dir);
        tuple.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32 // Fibonacci hashing
    }
}

/// Packets in the network, addressed by index, with a free list (most
/// recently freed first): no allocation per packet once the slab has grown to
/// the number of packets in flight.
#[derive(Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    pub fn insert(&mut self, p: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }
    /// Starts loading packet `i` into the cache (a hint; `prefetch.rs`).
    #[inline]
    pub fn prefetch(&self, i: u32) {
        if let Some(p) = self.slots.get(i as usize) {
            crate::prefetch::lines(p);
        }
    }
    /// Removes and returns the packet; the index may be reused afterwards.
    pub fn take(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.slots[i as usize]
    }
}

#[cfg(test)]
impl Packet {
    /// A segment of flow 0's first connection from node 0 to node 1 (unit tests).
    pub(crate) fn for_test(seg: Segment) -> Packet {
        Packet {
            seg,
            flow: 0,
            slot: 0,
            gen: 0,
            conn_no: 0,
            to: End::Client,
            src: 0,
            dst: 1,
            enqueued_at: Instant::ZERO,
            quench: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnlab_wire::TcpFlags;

    fn pkt(flags: TcpFlags, payload_len: u32, retransmit: bool) -> Packet {
        Packet::for_test(Segment { flags, payload_len, retransmit, ..Segment::default() })
    }

    #[test]
    fn test_kinds() {
        use PacketKind as K;
        let (a, syn, fin) = (TcpFlags::ACK, TcpFlags::SYN, TcpFlags::FIN);
        assert_eq!(pkt(syn, 0, false).kind(), K::Syn);
        assert_eq!(pkt(syn, 0, true).kind(), K::Syn, "a retransmitted SYN is a SYN");
        assert_eq!(pkt(syn | a, 0, true).kind(), K::SynAck);
        assert_eq!(pkt(a, 1000, false).kind(), K::Data);
        assert_eq!(pkt(a | fin, 1000, false).kind(), K::Data, "a FIN on data is data");
        assert_eq!(pkt(a, 1000, true).kind(), K::Retransmit);
        assert_eq!(pkt(a | fin, 0, true).kind(), K::Fin, "a repeated FIN without data is a FIN");
        assert_eq!(pkt(a | fin, 0, false).kind(), K::Fin);
        assert_eq!(pkt(a, 0, false).kind(), K::Ack);
        assert_eq!(Packet { quench: Some(3), ..pkt(a, 1000, false) }.kind(), K::Quench);
    }
}

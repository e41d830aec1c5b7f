//! ICMP Source Quench at a gateway: backward ECN (Floyd 1994 §9.1, which left
//! its dynamics unexplored), for RED queues with `quench` (ecnlab-aqm
//! `queue.rs`, quench mode).
//!
//! When the queue of link `li` admits a packet that RED selected early, the
//! node at the link's input sends an ICMP Source Quench (RFC 792, type 4 code
//! 0, 56 bytes: 20 IP + 8 ICMP + the original IP header + 64 bits of its data)
//! to the packet's source. The quench is an ordinary packet of the flow
//! (counted in the flow's `pkts_*`): it leaves through the node's output queue
//! towards the source and crosses the same queues, delays and losses as any
//! packet on that path, so it can be delayed or dropped. The selected packet
//! goes on unchanged. No quench is sent about a quench (RFC 1812 §4.3.2.7).
//!
//! The rate of quenches is RED's rate of early selections, nothing more: the
//! paper's argument (§2, §9.1) for RED-driven rather than per-drop quenches.
//!
//! Two edge cases: at a host's own output queue the quench is handed to the
//! host's TCP at once, with no link to cross (as BSD's `ip_output` calls
//! `tcp_quench`); a gateway with no route back to the source sends nothing.

use crate::conn::peer;
use crate::net::NO_ROUTE;
use crate::packet::Packet;
use crate::sim::Simulation;
use ecnlab_wire::Instant;

impl Simulation {
    /// Link `li`'s queue asked for a Source Quench about `p`.
    pub(crate) fn send_quench(&mut self, li: u32, p: &Packet, now: Instant) {
        let gateway = self.topo.ends[li as usize].0;
        let q = Packet { src: gateway, dst: p.src, to: peer(p.to), quench: Some(p.dst), enqueued_at: now, ..*p };
        let next = if gateway == p.src { NO_ROUTE } else { self.topo.next_link(gateway, p.src, p.flow) };
        if gateway != p.src && next == NO_ROUTE {
            return;
        }
        self.census.sent += 1;
        self.flow_census[p.flow as usize].sent += 1;
        if gateway == p.src {
            self.deliver(q, now);
        } else {
            self.send_on_link(next, q, now);
        }
    }
}

//! Packet capture of a link: every packet whose transmission starts on the
//! link, as a nanosecond pcap of raw IPv4 packets (LINKTYPE_RAW) with real
//! IPv4/TCP headers, options and checksums (bytes made by `ecnlab-wire`).
//!
//! Addressing, so that tshark/tcptrace can follow connections: node `i` is
//! 10.(i/256).(i%256).1; a connection's client port is 34981 + its number in
//! the flow (mod 9340), its server port 48899 + the flow index (mod 8101):
//! ranges no Wireshark dissector claims (port 5000 decoded as RSL, 10000 as
//! NDMP, and showed hundreds of malformed packets);
//! initial sequence numbers are a fixed hash of (flow, connection, end), so
//! captures are byte-identical run after run.
//!
//! An ICMP Source Quench (`quench.rs`) is written as a real 56-byte IPv4/ICMP
//! packet (type 4, code 0) from the gateway's address to the source's, quoting
//! the IP header and first 8 bytes of the quenched segment as it was sent.

use crate::conn::peer;
use crate::error::Error;
use crate::packet::Packet;
use crate::sched::End;
use ecnlab_wire::{emit_ipv4_tcp, emit_source_quench, Endpoints, Instant, PcapWriter, Segment};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

pub struct PcapTap {
    path: PathBuf,
    writer: PcapWriter<BufWriter<File>>,
    buf: Vec<u8>,
    /// The quenched segment's bytes, when writing a Source Quench.
    orig: Vec<u8>,
    ident: u16,
    error: Option<std::io::Error>,
}

/// (first, count) of the port ranges: gaps in Wireshark's registered TCP ports.
const CLIENT_PORTS: (u16, u16) = (34_981, 9_340);
const SERVER_PORTS: (u16, u16) = (48_899, 8_101);

/// IPv4 address of node `i`.
pub fn node_addr(i: u32) -> [u8; 4] {
    [10, (i >> 8) as u8, i as u8, 1]
}

fn isn(flow: u32, conn_no: u32, end: End) -> u32 {
    let x = (flow as u64) << 33 | (conn_no as u64) << 1 | (end == End::Server) as u64;
    let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 32) as u32
}

/// Addresses, ports and ISNs of the packet's sender (src) and receiver (dst).
fn endpoints(p: &Packet) -> Endpoints {
    let client_port = CLIENT_PORTS.0 + (p.conn_no % u32::from(CLIENT_PORTS.1)) as u16;
    let server_port = SERVER_PORTS.0 + (p.flow % u32::from(SERVER_PORTS.1)) as u16;
    let (src_port, dst_port) = match p.to {
        End::Server => (client_port, server_port),
        End::Client => (server_port, client_port),
    };
    let from = if p.to == End::Server { End::Client } else { End::Server };
    Endpoints {
        src_addr: node_addr(p.src),
        dst_addr: node_addr(p.dst),
        src_port,
        dst_port,
        src_isn: isn(p.flow, p.conn_no, from),
        dst_isn: isn(p.flow, p.conn_no, p.to),
    }
}

impl PcapTap {
    pub fn create(dir: &Path, link: &str) -> Result<Self, Error> {
        let path = dir.join(format!("{}.pcap", sanitize(link)));
        let io = |source| Error::Pcap { path: path.display().to_string(), source };
        let file = File::create(&path).map_err(io)?;
        let writer = PcapWriter::new(BufWriter::new(file)).map_err(io)?;
        Ok(PcapTap { path, writer, buf: Vec::with_capacity(2048), orig: Vec::new(), ident: 0, error: None })
    }

    /// Writes one packet; the first I/O error is kept and reported by `finish`.
    /// `wscale`: the connection's window-scale shift (both ends announced one,
    /// RFC 7323 §2.2): windows of segments other than SYNs go on the wire
    /// shifted right by it (§2.3).
    pub fn record(&mut self, now: Instant, p: &Packet, wscale: Option<u8>) {
        if self.error.is_some() {
            return;
        }
        self.buf.clear();
        self.ident = self.ident.wrapping_add(1);
        if let Some(to) = p.quench {
            // The segment as its sender sent it: from the quench's destination to `to`.
            let seg = Packet { src: p.dst, dst: to, to: peer(p.to), quench: None, ..*p };
            if emit_ipv4_tcp(&p.seg, &endpoints(&seg), 0, 0, &mut self.orig).is_err() {
                return;
            }
            emit_source_quench(&self.orig, node_addr(p.src), node_addr(p.dst), self.ident, &mut self.buf);
        } else if emit_ipv4_tcp(&scaled(&p.seg, wscale), &endpoints(p), self.ident, 0, &mut self.buf).is_err() {
            return; // longer than an IPv4 packet can be: cannot be captured
        }
        if let Err(e) = self.writer.write_packet(now, &self.buf) {
            self.error = Some(e);
        }
    }

    pub fn finish(&mut self) -> Result<(), Error> {
        let io = |source| Error::Pcap { path: self.path.display().to_string(), source };
        if let Some(e) = self.error.take() {
            return Err(io(e));
        }
        self.writer.flush().map_err(io)
    }
}

/// The segment as the wire carries it: its window scaled unless it is a SYN.
fn scaled(seg: &Segment, wscale: Option<u8>) -> Segment {
    match wscale {
        Some(s) if !seg.flags.syn() => Segment { window: seg.window >> s, ..*seg },
        _ => *seg,
    }
}

/// File name for a link name such as "R1->R2" → "R1-R2".
fn sanitize(link: &str) -> String {
    link.replace("->", "-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect()
}

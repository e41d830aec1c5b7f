//! Classic libpcap file writer, nanosecond variant.
//!
//! Format: <https://www.tcpdump.org/manpages/pcap-savefile.5.txt> and
//! draft-ietf-opsawg-pcap §4–§5. The global header is magic, version 2.4,
//! thiszone, sigfigs, snaplen and link type; each record is ts_sec,
//! ts_nsec (with the nanosecond magic `0xa1b23c4d`, the fraction is
//! nanoseconds, not microseconds), caplen and orig_len, then caplen bytes.
//! Every field, magic included, is written little-endian, so a reader
//! recognises the byte order from the magic (`4d 3c b2 a1`) and the file is
//! the same on every host.
//!
//! Link type: `LINKTYPE_RAW` = 101 (<https://www.tcpdump.org/linktypes.html>):
//! each packet begins with its IPv4 header (RFC 791), no link-layer header.
//!
//! A snap length keeps files small: `caplen = min(len, snaplen)` bytes are
//! stored while `orig_len` records the full length, so a reader still sees
//! the true packet size (and reports the TCP checksum as unverified).

use crate::Instant;
use std::io::{self, Write};

/// Magic number of a pcap file with nanosecond timestamps.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
pub const PCAP_VERSION_MAJOR: u16 = 2;
pub const PCAP_VERSION_MINOR: u16 = 4;
/// Link type of packets that start with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// Default and largest snap length, bytes (the largest IPv4 packet).
pub const MAX_SNAPLEN: u32 = 65535;
/// Global header length, bytes.
pub const GLOBAL_HEADER_LEN: usize = 24;
/// Per-record header length, bytes.
pub const RECORD_HEADER_LEN: usize = 16;

const NANOS_PER_SEC: u64 = crate::time::NANOS_PER_SEC;

/// Writes a pcap stream of raw IPv4 packets to any [`Write`].
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header; stores whole packets (snaplen 65535).
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_snaplen(out, MAX_SNAPLEN)
    }

    /// Writes the global header; stores at most `snaplen` bytes of each
    /// packet (clamped to 1..=65535).
    pub fn with_snaplen(mut out: W, snaplen: u32) -> io::Result<Self> {
        let snaplen = snaplen.clamp(1, MAX_SNAPLEN);
        out.write_all(&global_header(snaplen))?;
        Ok(PcapWriter { out, snaplen })
    }

    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Appends one packet (an IPv4 datagram) captured at `ts`.
    pub fn write_packet(&mut self, ts: Instant, bytes: &[u8]) -> io::Result<()> {
        let orig_len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        self.write_packet_with_orig_len(ts, bytes, orig_len)
    }

    /// Appends a packet of which only `captured` is at hand (for example just
    /// the headers) while the packet on the wire was `orig_len` bytes long.
    pub fn write_packet_with_orig_len(&mut self, ts: Instant, captured: &[u8], orig_len: u32) -> io::Result<()> {
        let caplen = captured.len().min(self.snaplen as usize);
        let orig_len = orig_len.max(caplen as u32);
        self.out.write_all(&record_header(ts, caplen as u32, orig_len))?;
        self.out.write_all(&captured[..caplen])
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The 24-byte global header.
pub fn global_header(snaplen: u32) -> [u8; GLOBAL_HEADER_LEN] {
    let mut h = [0u8; GLOBAL_HEADER_LEN];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&PCAP_VERSION_MAJOR.to_le_bytes());
    h[6..8].copy_from_slice(&PCAP_VERSION_MINOR.to_le_bytes());
    // 8..12 thiszone = 0 (UTC), 12..16 sigfigs = 0.
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// The 16-byte record header; seconds saturate at `u32::MAX` (year 2106).
fn record_header(ts: Instant, caplen: u32, orig_len: u32) -> [u8; RECORD_HEADER_LEN] {
    let ns = ts.as_nanos();
    let secs = u32::try_from(ns / NANOS_PER_SEC).unwrap_or(u32::MAX);
    let nanos = (ns % NANOS_PER_SEC) as u32;
    let mut h = [0u8; RECORD_HEADER_LEN];
    h[0..4].copy_from_slice(&secs.to_le_bytes());
    h[4..8].copy_from_slice(&nanos.to_le_bytes());
    h[8..12].copy_from_slice(&caplen.to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_global_header_bytes() {
        let w = PcapWriter::new(Vec::new()).unwrap();
        let expected: [u8; 24] = [
            0x4d, 0x3c, 0xb2, 0xa1, // magic, nanosecond, little-endian
            2, 0, 4, 0, // version 2.4
            0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
            0xff, 0xff, 0, 0, // snaplen 65535
            101, 0, 0, 0, // LINKTYPE_RAW
        ];
        assert_eq!(w.into_inner().unwrap(), expected);
    }

    #[test]
    fn test_record_header_nanoseconds_and_lengths() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_packet(Instant::from_nanos(3_000_000_123), &[0x45, 1, 2]).unwrap();
        let out = w.into_inner().unwrap();
        let rec = &out[GLOBAL_HEADER_LEN..];
        assert_eq!(&rec[0..4], &3u32.to_le_bytes());
        assert_eq!(&rec[4..8], &123u32.to_le_bytes());
        assert_eq!(&rec[8..16], &[3, 0, 0, 0, 3, 0, 0, 0]);
        assert_eq!(&rec[16..], &[0x45, 1, 2]);
    }

    #[test]
    fn test_snaplen_truncates_but_keeps_orig_len() {
        let mut w = PcapWriter::with_snaplen(Vec::new(), 4).unwrap();
        w.write_packet(Instant::ZERO, &[9; 10]).unwrap();
        w.write_packet_with_orig_len(Instant::ZERO, &[7; 2], 1500).unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(&out[16..20], &4u32.to_le_bytes(), "header snaplen");
        let rec1 = &out[GLOBAL_HEADER_LEN..GLOBAL_HEADER_LEN + 20];
        assert_eq!(&rec1[8..16], &[4, 0, 0, 0, 10, 0, 0, 0]);
        assert_eq!(&rec1[16..], &[9; 4]);
        let rec2 = &out[GLOBAL_HEADER_LEN + 20..];
        assert_eq!(&rec2[8..16], &[2, 0, 0, 0, 0xdc, 0x05, 0, 0]);
        assert_eq!(rec2.len(), RECORD_HEADER_LEN + 2);
    }
}

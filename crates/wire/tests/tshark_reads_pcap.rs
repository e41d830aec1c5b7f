//! An independent reader checks our pcap output: tshark decodes a short ECN handshake and data
//! exchange written by `PcapWriter` (nanosecond magic, LINKTYPE_RAW,
//! https://www.tcpdump.org/linktypes.html) and verifies the IPv4 (RFC 791,
//! RFC 1071) and TCP (RFC 9293 §3.1) checksums, the ECN field (RFC 3168 §5),
//! ECE/CWR (RFC 3168 §6.1) and SACK edges (RFC 2018 §3).
//!
//! tshark is required: `make setup` installs it. The test fails, never skips,
//! when it is missing.

use ecnlab_wire::{
    emit_ipv4_tcp, emit_source_quench, Ecn, Endpoints, Instant, PcapWriter, Segment, TcpFlags, SOURCE_QUENCH_LEN,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const CLIENT: Endpoints = Endpoints {
    src_addr: [10, 0, 1, 1],
    dst_addr: [10, 0, 2, 1],
    src_port: 40000,
    dst_port: 5001,
    src_isn: 0xffff_ff00, // the data direction wraps past 2^32
    dst_isn: 0x1234_5678,
};
const MSS: u32 = 1460;

/// tshark fields, in output column order.
const FIELDS: [&str; 12] = [
    "ip.dsfield.ecn",
    "tcp.flags.ece",
    "tcp.flags.cwr",
    "tcp.flags.syn",
    "tcp.options.sack_le",
    "tcp.checksum.status",
    "ip.checksum.status",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "tcp.len",
    "tcp.options.mss_val",
    "frame.time_epoch",
];

/// `(from_client, time ns, segment)` for the seven packets of the trace.
fn trace() -> Vec<(bool, u64, Segment)> {
    let ack = TcpFlags::ACK;
    let syn =
        Segment { flags: TcpFlags::SYN, window: 65535, mss: Some(1460), sack_permitted: true, ..Segment::default() };
    let data = |seq: u64, ecn, extra: TcpFlags| Segment {
        seq,
        ack: 1,
        flags: ack | extra,
        payload_len: MSS,
        window: 65535,
        ecn,
        ..Segment::default()
    };
    let pure_ack = |ack_no: u64, extra: TcpFlags| Segment {
        seq: 1,
        ack: ack_no,
        flags: ack | extra,
        window: 65535,
        ..Segment::default()
    };
    let mut sack_ack = pure_ack(2921, TcpFlags::NONE);
    sack_ack.sack.push(4381, 5841);
    vec![
        (true, 1_000_000_000, Segment { flags: syn.flags | TcpFlags::ECE | TcpFlags::CWR, ..syn }),
        (false, 1_010_000_000, Segment { flags: syn.flags | ack | TcpFlags::ECE, ack: 1, ..syn }),
        (true, 1_020_000_000, data(1, Ecn::Ect0, TcpFlags::NONE)),
        (true, 1_020_001_200, data(1461, Ecn::Ce, TcpFlags::NONE)),
        (false, 1_030_000_000, pure_ack(2921, TcpFlags::ECE)),
        (true, 1_030_500_001, data(2921, Ecn::Ect0, TcpFlags::CWR)),
        (false, 1_040_000_000, sack_ack),
    ]
}

fn write_pcap(path: &Path, snaplen: u32) {
    let file = std::fs::File::create(path).expect("create temp pcap");
    let mut pcap = PcapWriter::with_snaplen(std::io::BufWriter::new(file), snaplen).unwrap();
    let mut buf = Vec::new();
    for (i, (from_client, ns, seg)) in trace().into_iter().enumerate() {
        let ep = if from_client { CLIENT } else { CLIENT.reversed() };
        emit_ipv4_tcp(&seg, &ep, i as u16, 0x5a, &mut buf).unwrap();
        pcap.write_packet(Instant::from_nanos(ns), &buf).unwrap();
    }
    pcap.into_inner().unwrap();
}

fn temp_pcap(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ecnlab-wire-{}-{name}.pcap", std::process::id()))
}

/// Runs tshark on `path` and returns one row of fields per packet.
fn tshark_rows(path: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(path);
    cmd.args(["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-T", "fields"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!("tshark is not installed; `make setup` installs it (apt-get install tshark)")
        }
        Err(e) => panic!("could not run tshark: {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    stdout.lines().map(|l| l.split('\t').map(str::to_owned).collect()).collect()
}

/// Expected `(ecn, ece, cwr, syn, sack_le)` per packet, as tshark prints them.
const EXPECTED: [(&str, &str, &str, &str, &str); 7] = [
    ("0", "1", "1", "1", ""),     // SYN, ECN-setup (RFC 3168 §6.1.1), Not-ECT
    ("0", "1", "0", "1", ""),     // SYN-ACK with ECE only
    ("2", "0", "0", "0", ""),     // data, ECT(0)
    ("3", "0", "0", "0", ""),     // data, CE
    ("0", "1", "0", "0", ""),     // ACK echoing ECE
    ("2", "0", "1", "0", ""),     // data with CWR
    ("0", "0", "0", "0", "4381"), // ACK with one SACK block (relative to client ISN)
];

#[test]
fn test_tshark_decodes_ecn_trace_with_good_checksums() {
    let path = temp_pcap("trace");
    write_pcap(&path, 65535);
    let rows = tshark_rows(&path, &FIELDS);
    std::fs::remove_file(&path).ok();
    assert_eq!(rows.len(), EXPECTED.len(), "rows: {rows:#?}");
    let segs = trace();
    for (i, (row, want)) in rows.iter().zip(EXPECTED).enumerate() {
        let (from_client, ns, seg) = segs[i];
        let ep = if from_client { CLIENT } else { CLIENT.reversed() };
        let got = (&*row[0], &*row[1], &*row[2], &*row[3], &*row[4]);
        assert_eq!(got, want, "packet {i}: {row:?}");
        assert_eq!((&*row[5], &*row[6]), ("1", "1"), "packet {i}: checksum not good: {row:?}");
        let seq = (seg.seq as u32).wrapping_add(ep.src_isn);
        assert_eq!(row[7], seq.to_string(), "packet {i} raw seq");
        let ack = if seg.flags.ack() { (seg.ack as u32).wrapping_add(ep.dst_isn) } else { 0 };
        assert_eq!(row[8], ack.to_string(), "packet {i} raw ack");
        assert_eq!(row[9], seg.payload_len.to_string(), "packet {i} tcp.len");
        let mss = seg.mss.map(|m| m.to_string()).unwrap_or_default();
        assert_eq!(row[10], mss, "packet {i} mss");
        assert_eq!(row[11], format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000));
    }
}

#[test]
fn test_tshark_reads_snapped_pcap_with_orig_len() {
    let path = temp_pcap("snap");
    write_pcap(&path, 64);
    let fields = ["frame.len", "frame.cap_len", "ip.checksum.status", "ip.len"];
    let rows = tshark_rows(&path, &fields);
    std::fs::remove_file(&path).ok();
    assert_eq!(rows.len(), 7, "rows: {rows:#?}");
    for (row, (_, _, seg)) in rows.iter().zip(trace()) {
        let len = seg.wire_len().to_string();
        let cap = seg.wire_len().min(64).to_string();
        assert_eq!(row, &[len.clone(), cap, "1".to_owned(), len]);
    }
}

/// An ICMP Source Quench (RFC 792) about the trace's third packet decodes as
/// type 4 code 0 ("Source quench") with good IP and ICMP checksums, quoting
/// the original header (IP length 1500, its checksum good too) and the TCP ports.
#[test]
fn test_tshark_decodes_source_quench() {
    let path = temp_pcap("quench");
    let (_, ns, seg) = trace()[2];
    let mut orig = Vec::new();
    emit_ipv4_tcp(&seg, &CLIENT, 3, 0, &mut orig).unwrap();
    let mut buf = Vec::new();
    let n = emit_source_quench(&orig, [10, 0, 9, 1], CLIENT.src_addr, 1, &mut buf);
    let file = std::fs::File::create(&path).expect("create temp pcap");
    let mut pcap = PcapWriter::new(std::io::BufWriter::new(file)).unwrap();
    pcap.write_packet(Instant::from_nanos(ns), &buf).unwrap();
    pcap.into_inner().unwrap();
    let fields = ["icmp.type", "icmp.code", "icmp.checksum.status", "ip.checksum.status", "ip.len", "tcp.srcport"];
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(&path).args(["-o", "ip.check_checksum:TRUE"]);
    let summary = String::from_utf8_lossy(&cmd.output().expect("tshark runs").stdout).into_owned();
    let rows = tshark_rows(&path, &fields);
    std::fs::remove_file(&path).ok();
    assert_eq!((n, SOURCE_QUENCH_LEN), (56, 56));
    let want: Vec<String> = ["4", "0", "1", "1,1", "56,1500", "40000"].iter().map(|s| s.to_string()).collect();
    assert_eq!(rows, vec![want], "summary: {summary}");
    assert!(summary.contains("Source quench"), "{summary}");
}

//! `ecnlab-router CONFIG.json [--max-seconds S]`: the live emulation router's
//! IO loop, [`main`]. Two front doors run it: the `ecnlab-router` binary
//! (`src/main.rs`) and `ecnlab._core.router_main` (crates/py), which the
//! wheel carries, so an installed ecnlab runs it as `python -m
//! ecnlab.emu.router` without a separate binary.
//!
//! Opens one TUN device per endpoint (inside its network namespace), prints
//! `{"ready":true}` on stdout, then forwards packets through the sans-IO core
//! (`ecnlab_emu::Net`) with the next link event as the poll timeout (Mahimahi's
//! lazy catch-up). Control channel (stdin/stdout, one JSON line each):
//! the line `stats` prints the counters; `window START_NS WARMUP_NS` (times on
//! CLOCK_MONOTONIC, as Python's `time.monotonic_ns()`) names the traffic's
//! start and the end of its warm-up, which begin the queues' time averages and
//! the sojourn and utilisation windows (`Net::set_window`); stdin EOF, `stop`,
//! SIGINT, SIGTERM, SIGHUP or `--max-seconds` print the final counters and exit 0.
//! The router's clock (`t_s` in reports) counts from its start on CLOCK_MONOTONIC.
//! A bad configuration or a missing privilege: one line on stderr, exit 2.

use std::fs::File;
use std::io::{self, BufWriter, ErrorKind, Read, Write};
use std::os::fd::AsRawFd;

use crate::sys;
use crate::{Frame, Net, RouterConfig, Sink};
use ecnlab_wire::{Instant, PcapWriter};
use serde::Serialize;

/// Largest read from a TUN device (an IPv4 packet is at most 65535 bytes).
const READ_BUF: usize = 65_536;
/// Packets read from one device before the others and the timers get a turn.
const READ_BATCH: usize = 64;

/// IO-side counters (the core counts everything else).
#[derive(Clone, Copy, Debug, Default, Serialize)]
struct IoCounters {
    write_errors: u64,
    read_errors: u64,
    pcap_errors: u64,
}

/// Writes deliveries to the TUN devices and captures to pcap files.
struct Devices {
    tuns: Vec<File>,
    pcaps: Vec<PcapWriter<BufWriter<File>>>,
    /// The capture each link writes to (links naming the same file share it: both directions).
    pcap_of: Vec<Option<usize>>,
    io: IoCounters,
}

impl Sink for Devices {
    fn deliver(&mut self, end: usize, _due: Instant, frame: &Frame) {
        // One write is one packet on a TUN device; a failure loses that packet only.
        if self.tuns[end].write(frame.bytes()).is_err() {
            self.io.write_errors += 1;
        }
    }
    fn tap(&mut self, link: usize, t: Instant, frame: &Frame) {
        if let Some(i) = self.pcap_of[link] {
            if self.pcaps[i].write_packet(t, frame.bytes()).is_err() {
                self.io.pcap_errors += 1;
            }
        }
    }
}

struct Args {
    config: String,
    max_seconds: Option<f64>,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut it = argv.iter().cloned();
    let mut config = None;
    let mut max_seconds = None;
    while let Some(a) = it.next() {
        if a == "--max-seconds" {
            let v = it.next().ok_or("--max-seconds needs a value")?;
            let s: f64 = v.parse().map_err(|_| format!("--max-seconds = {v:?}: must be a number of seconds > 0"))?;
            if !(s > 0.0 && s.is_finite()) {
                return Err(format!("--max-seconds = {v}: must be a number of seconds > 0"));
            }
            max_seconds = Some(s);
        } else if config.is_none() && !a.starts_with('-') {
            config = Some(a);
        } else {
            return Err(format!("unexpected argument {a:?} (usage: ecnlab-router CONFIG.json [--max-seconds S])"));
        }
    }
    Ok(Args { config: config.ok_or("usage: ecnlab-router CONFIG.json [--max-seconds S]")?, max_seconds })
}

/// Runs the router with `argv` (the arguments after the program name) until it
/// is told to stop; returns the process exit status: 0, or 2 after one line
/// `ecnlab-router: error: ...` on stderr (a bad configuration or privilege).
pub fn main(argv: &[String]) -> u8 {
    match run(argv) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("ecnlab-router: error: {msg}");
            2
        }
    }
}

fn run(argv: &[String]) -> Result<(), String> {
    let args = parse_args(argv)?;
    let text = std::fs::read_to_string(&args.config).map_err(|e| format!("{}: {e}", args.config))?;
    let cfg: RouterConfig = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.config))?;
    let mut net = Net::new(&cfg).map_err(|e| format!("{}: {e}", args.config))?;
    if cfg.ends.iter().any(|e| e.netns.is_some()) && !sys::is_root() {
        return Err("needs root (CAP_SYS_ADMIN) to enter the emulation's network namespaces".into());
    }
    let mut dev = open_devices(&cfg)?;
    let signals = sys::signal_fd().map_err(|e| format!("signalfd: {e}"))?;
    // Without it every wake-up is up to 50 µs late; not fatal if refused.
    let _ = sys::set_timer_slack_1ns();
    let origin = sys::monotonic_ns();
    let now = || Instant::from_nanos(sys::monotonic_ns().saturating_sub(origin));
    let stop_at = args.max_seconds.map(|s| Instant::from_nanos((s * 1e9) as u64));
    say(&serde_json::json!({"ready": true}));

    let mut fds: Vec<_> = dev.tuns.iter().map(|f| f.as_raw_fd()).collect();
    fds.push(signals.as_raw_fd());
    fds.push(io::stdin().as_raw_fd());
    let (sig_i, stdin_i) = (dev.tuns.len(), dev.tuns.len() + 1);
    let mut buf = vec![0u8; READ_BUF];
    let mut control = Control::default();
    loop {
        let t = now();
        net.poll(t, &mut dev);
        if stop_at.is_some_and(|s| t >= s) {
            break;
        }
        let deadline = [net.next_deadline(), stop_at].into_iter().flatten().min();
        let timeout = deadline.map(|d| std::time::Duration::from_nanos(d.saturating_since(now()).as_nanos()));
        let ready = sys::poll_readable(&fds, timeout).map_err(|e| format!("poll: {e}"))?;
        let mut gone = false;
        for (end, &rev) in ready[..sig_i].iter().enumerate() {
            if rev != 0 {
                gone |= read_burst(&mut net, &mut dev, end, &mut buf, &now).is_err();
            }
        }
        if gone || ready[sig_i] != 0 {
            break; // a device vanished (its namespace was deleted) or a signal came
        }
        if ready[stdin_i] != 0 {
            let mut stop = false;
            for cmd in control.read() {
                match cmd {
                    Command::Stats => report(&net, &dev, now()),
                    Command::Window(start, warmup) => {
                        let on_clock = |t: u64| Instant::from_nanos(t.saturating_sub(origin));
                        net.set_window(on_clock(start), on_clock(warmup));
                    }
                    Command::Stop => stop = true,
                }
            }
            if stop {
                break;
            }
        }
    }
    report(&net, &dev, now());
    for w in &mut dev.pcaps {
        let _ = w.flush();
    }
    Ok(())
}

fn open_devices(cfg: &RouterConfig) -> Result<Devices, String> {
    let mut tuns = Vec::new();
    for e in &cfg.ends {
        let f = sys::open_tun(e.netns.as_deref(), &e.dev)
            .map_err(|err| format!("ends: cannot open TUN device {} in namespace {:?}: {err}", e.dev, e.netns))?;
        tuns.push(f);
    }
    let (mut pcaps, mut pcap_of, mut paths) = (Vec::new(), Vec::new(), Vec::new());
    for l in &cfg.links {
        pcap_of.push(match &l.pcap {
            None => None,
            Some(p) if paths.contains(p) => paths.iter().position(|q| q == p),
            Some(p) => {
                let f = File::create(p).map_err(|e| format!("links: pcap {}: {e}", p.display()))?;
                pcaps.push(PcapWriter::new(BufWriter::new(f)).map_err(|e| format!("pcap {}: {e}", p.display()))?);
                paths.push(p.clone());
                Some(pcaps.len() - 1)
            }
        });
    }
    Ok(Devices { tuns, pcaps, pcap_of, io: IoCounters::default() })
}

/// Reads up to READ_BATCH packets from end `end`, each stamped with the clock
/// as it is read. `Err`: the device cannot be read any more (it was removed),
/// so polling it again would spin.
fn read_burst(
    net: &mut Net,
    dev: &mut Devices,
    end: usize,
    buf: &mut [u8],
    now: &dyn Fn() -> Instant,
) -> io::Result<()> {
    for _ in 0..READ_BATCH {
        match dev.tuns[end].read(buf) {
            Ok(n) => net.arrive(now(), end, buf[..n].to_vec(), dev),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                dev.io.read_errors += 1;
                return Err(e);
            }
        }
    }
    Ok(())
}

fn report(net: &Net, dev: &Devices, t: Instant) {
    let mut v = serde_json::to_value(net.report(t)).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert("io".into(), serde_json::to_value(dev.io).unwrap_or_default());
    }
    say(&v);
}

/// One JSON line on stdout, flushed (the Python side reads line by line).
fn say(v: &serde_json::Value) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

enum Command {
    Stats,
    /// Traffic start and warm-up end, CLOCK_MONOTONIC nanoseconds.
    Window(u64, u64),
    Stop,
}

/// Line-oriented commands on stdin.
#[derive(Default)]
struct Control {
    pending: Vec<u8>,
}

impl Control {
    /// The complete lines read so far, in order (EOF or a read error: `Stop`). Unknown lines are ignored.
    fn read(&mut self) -> Vec<Command> {
        let mut chunk = [0u8; 256];
        match io::stdin().lock().read(&mut chunk) {
            Ok(0) | Err(_) => return vec![Command::Stop],
            Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
        }
        let mut cmds = Vec::new();
        while let Some(i) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["stats"] => cmds.push(Command::Stats),
                ["stop"] => cmds.push(Command::Stop),
                ["window", a, b] => {
                    if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                        cmds.push(Command::Window(a, b));
                    }
                }
                _ => {}
            }
        }
        cmds
    }
}

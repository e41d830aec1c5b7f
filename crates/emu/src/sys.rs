//! The syscalls std does not wrap: attach to a TUN device inside a network
//! namespace, ppoll with a nanosecond timeout, signals as a file descriptor,
//! timer slack, the monotonic clock in nanoseconds. This is the crate's only unsafe code; each block says why it
//! is sound. Everything returns `io::Result`; nothing here panics.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::time::Duration;

/// `_IOW('T', 202, int)` from `linux/if_tun.h`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (40 bytes in all).
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Opens the existing TUN device `dev` (no packet-info header) inside the
/// network namespace `netns` (`/var/run/netns/NAME`; `None`: the current one),
/// non-blocking. The calling thread returns to its own namespace afterwards,
/// also on error.
pub fn open_tun(netns: Option<&str>, dev: &str) -> io::Result<File> {
    let Some(ns) = netns else { return attach_tun(dev) };
    let home = File::open("/proc/thread-self/ns/net")?;
    let target = File::open(format!("/var/run/netns/{ns}"))?;
    setns(&target)?;
    let tun = attach_tun(dev);
    setns(&home)?;
    tun
}

fn setns(ns: &File) -> io::Result<()> {
    // SAFETY: setns takes a file descriptor we own (kept open by `ns` for the
    // call) and a constant; it changes only this thread's namespace.
    check(unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) }).map(|_| ())
}

fn attach_tun(dev: &str) -> io::Result<File> {
    let name = dev.as_bytes();
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(&0) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad device name {dev:?}")));
    }
    let tun = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
    req.name[..name.len()].copy_from_slice(name);
    // SAFETY: TUNSETIFF reads (and may write back) one `struct ifreq`; `req`
    // is a live, properly sized #[repr(C)] value for the whole call, and the
    // NUL-terminated name fits (checked above).
    check(unsafe { libc::ioctl(tun.as_raw_fd(), TUNSETIFF, &mut req as *mut IfReq) })?;
    Ok(tun)
}

/// Timer slack of this thread: 1 ns (the default 50 µs would add to every wake-up).
pub fn set_timer_slack_1ns() -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches no memory of ours.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) }).map(|_| ())
}

/// `poll` on `fds` (read readiness) with a nanosecond timeout (`None`: wait
/// forever); returns each descriptor's `revents`. EINTR is not an error: all zero.
pub fn poll_readable(fds: &[RawFd], timeout: Option<Duration>) -> io::Result<Vec<libc::c_short>> {
    let mut pfds: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: libc::time_t::try_from(d.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfds` is a live array of `pfds.len()` pollfd structs the kernel
    // may write `revents` into; `ts_ptr` is null or points at `ts`, alive for
    // the call; a null signal mask keeps the current one.
    let ret = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ts_ptr, std::ptr::null()) };
    if ret < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted { Ok(vec![0; fds.len()]) } else { Err(e) };
    }
    Ok(pfds.iter().map(|p| p.revents).collect())
}

/// Blocks SIGINT, SIGTERM and SIGHUP for this (single-threaded) process and
/// returns a non-blocking descriptor that becomes readable when one arrives.
pub fn signal_fd() -> io::Result<OwnedFd> {
    // SAFETY: `mask` is a plain C struct that sigemptyset initialises before
    // any other use; every call gets a valid pointer to it.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        check(libc::sigemptyset(&mut mask))?;
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            check(libc::sigaddset(&mut mask, sig))?;
        }
        let r = libc::pthread_sigmask(libc::SIG_BLOCK, &mask, std::ptr::null_mut());
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        let fd = check(libc::signalfd(-1, &mask, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC))?;
        // The descriptor was just created and is owned by nobody else.
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock Python's `time.monotonic()` reads, so the
/// orchestrator can name times (the traffic's start) on the router's clock.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into `ts`, a live local; CLOCK_MONOTONIC
    // always exists on Linux, so it cannot fail (a failure would leave zeros).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0)
}

/// Whether the effective user is root (the router needs CAP_SYS_ADMIN for setns).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

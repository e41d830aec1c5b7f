"""``TCP_INFO`` of a connected socket (Linux ``struct tcp_info``, include/uapi/linux/tcp.h), and
``TCP_CC_INFO`` of a BBR socket (``struct tcp_bbr_info``, include/uapi/linux/inet_diag.h)."""

from __future__ import annotations

import socket
import struct
from typing import Any, NamedTuple

__all__ = ["tcp_info", "bbr_info", "BbrInfo", "TCPI_OPT_ECN", "TCPI_OPT_ECN_SEEN"]

#: tcpi_options bits: ECN negotiated on the connection; a CE/ECE was seen.
TCPI_OPT_ECN = 8
TCPI_OPT_ECN_SEEN = 16

# (name, struct format, byte offset) of the fields ecnlab reports.
_FIELDS = (
    ("ca_state", "B", 1),
    ("options", "B", 5),
    ("rto_us", "I", 8),
    ("snd_mss", "I", 16),
    ("unacked", "I", 24),
    ("lost", "I", 32),
    ("rtt_us", "I", 68),
    ("rttvar_us", "I", 72),
    ("snd_ssthresh", "I", 76),
    ("snd_cwnd", "I", 80),
    ("total_retrans", "I", 100),
    # bytes per second; ~0 while unlimited (tcp_update_pacing_rate sets it for every congestion control)
    ("pacing_rate", "Q", 104),
    ("bytes_acked", "Q", 120),
    ("bytes_received", "Q", 128),
    ("segs_out", "I", 136),
    ("segs_in", "I", 140),
    ("notsent_bytes", "I", 144),
    ("min_rtt_us", "I", 148),
    ("data_segs_in", "I", 152),
    ("data_segs_out", "I", 156),
    # The sender's chrono stats (tcp_get_info_chrono_stats), µs: time with data outstanding, and of
    # that the time limited by the receiver's window and by the send buffer (the rest: by cwnd).
    ("busy_time_us", "Q", 168),
    ("rwnd_limited_us", "Q", 176),
    ("sndbuf_limited_us", "Q", 184),
    ("delivered", "I", 192),
    ("delivered_ce", "I", 196),
    ("bytes_sent", "Q", 200),
    ("bytes_retrans", "Q", 208),
)
_SIZE = 216
#: (name, format, offset, struct size needed) of fields newer kernels add; None before:
#: tcpi_snd_wnd (u32 at 228: the peer's advertised window, bytes; kernel 5.4 on) and tcpi_total_rto
#: (u16 at 240: retransmission timeouts of the connection, SYN/SYN-ACK ones included; 6.7 on).
_OPTIONAL = (("snd_wnd", "I", 228, 232), ("total_rto", "H", 240, 248))


def tcp_info(sock: socket.socket) -> dict[str, Any]:
    """The fields above, plus ``ecn`` / ``ecn_seen`` decoded from ``options``."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    if len(raw) < _SIZE:
        raise OSError(f"TCP_INFO returned {len(raw)} bytes, need {_SIZE} (kernel too old)")
    info = {name: struct.unpack_from("=" + fmt, raw, off)[0] for name, fmt, off in _FIELDS}
    for name, fmt, off, need in _OPTIONAL:
        info[name] = struct.unpack_from("=" + fmt, raw, off)[0] if len(raw) >= need else None
    info["ecn"] = bool(info["options"] & TCPI_OPT_ECN)
    info["ecn_seen"] = bool(info["options"] & TCPI_OPT_ECN_SEEN)
    return info


#: getsockopt option number of TCP_CC_INFO (include/uapi/linux/tcp.h; Python's socket module lacks it).
TCP_CC_INFO = 26
#: BBR_UNIT: BBR's gains are fixed point with 8 fraction bits (net/ipv4/tcp_bbr.c).
BBR_UNIT = 256


class BbrInfo(NamedTuple):
    """Linux BBR's path model as ``bbr_get_info`` (net/ipv4/tcp_bbr.c) reports it."""

    bw_bps: int  # the bandwidth filter's maximum, bits per second of payload (bbr_bw × mss_cache)
    min_rtt_us: int
    pacing_gain: float
    cwnd_gain: float


def bbr_info(sock: socket.socket) -> BbrInfo:
    """``TCP_CC_INFO`` of a socket whose congestion control is ``bbr``: ``struct tcp_bbr_info``
    (bbr_bw_lo, bbr_bw_hi in bytes per second, bbr_min_rtt in µs, both gains in ``BBR_UNIT``)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    if len(raw) < 20:
        raise OSError(f"TCP_CC_INFO returned {len(raw)} bytes, need 20 (not BBR?)")
    lo, hi, min_rtt, pacing, cwnd = struct.unpack_from("=5I", raw)
    return BbrInfo(((hi << 32) | lo) * 8, min_rtt, pacing / BBR_UNIT, cwnd / BBR_UNIT)

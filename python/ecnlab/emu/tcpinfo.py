"""``TCP_INFO`` of a connected socket (Linux ``struct tcp_info``, include/uapi/linux/tcp.h)."""

from __future__ import annotations

import socket
import struct
from typing import Any

__all__ = ["tcp_info", "TCPI_OPT_ECN", "TCPI_OPT_ECN_SEEN"]

#: tcpi_options bits: ECN negotiated on the connection; a CE/ECE was seen.
TCPI_OPT_ECN = 8
TCPI_OPT_ECN_SEEN = 16

# (name, struct format, byte offset) of the fields ecnlab reports.
_FIELDS = (
    ("ca_state", "B", 1),
    ("options", "B", 5),
    ("rto_us", "I", 8),
    ("snd_mss", "I", 16),
    ("lost", "I", 32),
    ("rtt_us", "I", 68),
    ("rttvar_us", "I", 72),
    ("snd_ssthresh", "I", 76),
    ("snd_cwnd", "I", 80),
    ("total_retrans", "I", 100),
    ("bytes_acked", "Q", 120),
    ("bytes_received", "Q", 128),
    ("segs_out", "I", 136),
    ("segs_in", "I", 140),
    ("min_rtt_us", "I", 148),
    ("data_segs_in", "I", 152),
    ("data_segs_out", "I", 156),
    ("delivered", "I", 192),
    ("delivered_ce", "I", 196),
    ("bytes_sent", "Q", 200),
    ("bytes_retrans", "Q", 208),
)
_SIZE = 216
#: tcpi_total_rto (u16 at 240: retransmission timeouts of the connection, SYN/SYN-ACK ones included),
#: in kernels from 6.7 on, whose struct tcp_info is 248 bytes; None before.
_TOTAL_RTO = ("total_rto", "H", 240, 248)


def tcp_info(sock: socket.socket) -> dict[str, Any]:
    """The fields above, plus ``ecn`` / ``ecn_seen`` decoded from ``options``."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    if len(raw) < _SIZE:
        raise OSError(f"TCP_INFO returned {len(raw)} bytes, need {_SIZE} (kernel too old)")
    info = {name: struct.unpack_from("=" + fmt, raw, off)[0] for name, fmt, off in _FIELDS}
    name, fmt, off, need = _TOTAL_RTO
    info[name] = struct.unpack_from("=" + fmt, raw, off)[0] if len(raw) >= need else None
    info["ecn"] = bool(info["options"] & TCPI_OPT_ECN)
    info["ecn_seen"] = bool(info["options"] & TCPI_OPT_ECN_SEEN)
    return info

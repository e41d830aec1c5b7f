"""ECN codepoints per TCP packet type, read from a capture (kuz-testbed's SYN-ACK probe).

RFC 3168 §6.1.1 forbids ECT on SYN and SYN-ACK (and §6.1.4/§6.1.5 on pure
ACKs and retransmissions); ECN+ (Kuzmanovic 2005 §4, RFC 5562) sets ECT on
the SYN-ACK; ECN++ (draft-ietf-tcpm-generalized-ecn, with AccECN feedback)
on SYN, SYN-ACK and pure ACKs too. The probe
counts what the stack under test actually sent. Captures are ecnlab's own
(the router's and the simulator's taps: pcap, nanosecond, little-endian,
LINKTYPE_RAW = IPv4 packets, crates/wire/src/pcap.rs).
"""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

__all__ = ["ECN_NAMES", "packet_kind", "count_codepoints"]

ECN_NAMES = ("Not-ECT", "ECT(1)", "ECT(0)", "CE")
_MAGIC_NS_LE = b"\x4d\x3c\xb2\xa1"
_LINKTYPE_RAW = 101
_TCP = 6
_FIN, _SYN, _RST, _ACK = 0x01, 0x02, 0x04, 0x10


def packet_kind(flags: int, payload: int) -> str:
    """SYN, SYN-ACK, RST, FIN, data or ACK (a pure acknowledgement)."""
    if flags & _SYN:
        return "SYN-ACK" if flags & _ACK else "SYN"
    if flags & _RST:
        return "RST"
    if payload > 0:
        return "data"
    return "FIN" if flags & _FIN else "ACK"


def count_codepoints(path: Path) -> Counter[tuple[str, str]]:
    """(packet kind, ECN codepoint name) → packets, for every IPv4/TCP packet in ``path``."""
    data = path.read_bytes()
    if data[:4] != _MAGIC_NS_LE or struct.unpack_from("<I", data, 20)[0] != _LINKTYPE_RAW:
        raise ValueError(f"{path}: not an ecnlab capture (nanosecond pcap, LINKTYPE_RAW)")
    counts: Counter[tuple[str, str]] = Counter()
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        pkt = data[off + 16 : off + 16 + caplen]
        off += 16 + caplen
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != _TCP:
            continue
        ihl = (pkt[0] & 0x0F) * 4
        total = struct.unpack_from(">H", pkt, 2)[0]
        if len(pkt) < ihl + 14:
            continue
        doff = (pkt[ihl + 12] >> 4) * 4
        flags = pkt[ihl + 13]
        counts[(packet_kind(flags, total - ihl - doff), ECN_NAMES[pkt[1] & 3])] += 1
    return counts

"""What htsim's dumbbell (``scripts/htsim_dumbbell.cc``) is told, derived from an ecnlab scenario.

:func:`htsim_params` reads the *resolved* scenario (every default filled in) and maps it onto what htsim
(Broadcom/csg-htsim, ``sim/``) can express; anything else raises a one-line
:class:`~ecnlab.errors.ScenarioError` naming the key, its value and what htsim takes:

| ecnlab | htsim |
|---|---|
| `tcp.cc = "dctcp"`, bottleneck `kind = "step"`, `ecn = true` | `DCTCPSrc` through `ECNQueue` (K, below) |
| `tcp.cc = "reno"`, `tcp.ecn = false`, bottleneck `kind = "droptail"` | `TcpSrc` through `Queue` |
| `tcp.recovery = "newreno"`, `limited_transmit = false` | `TcpSrc`'s fast recovery (no SACK, no Limited Transmit) |
| `tcp.delayed_ack = false` | `TcpSink` ACKs every packet, echoing its CE |
| `tcp.min_rto = 250ms` | `TcpSrc::receivePacket`'s floor (`timeFromSec(0.25)`, fixed) |
| `tcp.dctcp_shift_g = 4` | `DCTCPSrc`'s α gain 1/16 (fixed) |
| `tcp.mss` + 40 header bytes | `Packet::set_packet_size` (htsim's sequence numbers count whole packets) |
| `tcp.init_cwnd`, `tcp.rwnd`, `tcp.initial_rto` | `_cwnd`, `_maxcwnd` (and the first `_ssthresh`), `_rto` |
| `tcp.clock_granularity` | the period of `TcpRtxTimerScanner`, which checks every sender's timer |
| queue `limit` (packets) | the queues' `maxsize`: limit × packet size (bytes) |
| step `threshold` (`threshold_bytes`) | ECNQueue's K: threshold × packet size (threshold_bytes) |

The ACK queues hold bytes too, so in packets they take up to 37× as many 40-byte ACKs as ecnlab's.
"""

from __future__ import annotations

from typing import Any

from ecnlab.bench.peerspec import flow_pairs, limit_of, require
from ecnlab.lower import resolved_scenario
from ecnlab.model import Scenario

__all__ = ["htsim_params", "HEADER_BYTES", "HTSIM_MIN_RTO_S"]

WHO = "htsim's dumbbell"
HEADER_BYTES = 40  # IPv4 + TCP without options, as ecnlab's segments carry
HTSIM_MIN_RTO_S = 0.25  # tcp.cpp: `if (_rto<timeFromSec(0.25)) _rto = timeFromSec(.25);`
HTSIM_SHIFT_G = 4  # dctcp.cpp: `_alfa = 15.0/16.0 * _alfa + 1.0/16.0 * f`


def htsim_params(sc: Scenario) -> dict[str, Any]:
    """Flat parameters for ``scripts/htsim_dumbbell.cc``."""
    r = resolved_scenario(sc)
    topo, tcp = r["topology"], r["tcp"]
    require(topo["kind"] == "dumbbell", "topology.kind", topo["kind"], "a dumbbell", WHO)
    require(r["faults"] == [], "faults", r["faults"], "no scripted faults", WHO)
    lossless = topo["access_loss"] == 0 and topo["access_corrupt"] == 0
    require(lossless, "topology.access_loss", topo["access_loss"], "0 (and access_corrupt 0)", WHO)
    packet = tcp["mss"] + HEADER_BYTES
    params = {"cc": tcp["cc"], "packet_bytes": packet, **_bottleneck(topo["bottleneck_queue"], tcp, packet)}
    _check_tcp(tcp)
    pairs, starts = flow_pairs(r, WHO)
    return params | {
        "pairs": topo["pairs"],
        "rate_bps": topo["bottleneck_rate"],
        "delay_s": topo["bottleneck_delay"],
        "access_rate_bps": topo["access_rate"],
        "access_delay_s": topo["access_delay"],
        "access_limit": limit_of(topo["default_queue"], "topology.default_queue", WHO),
        "reverse_limit": limit_of(topo["reverse_queue"], "topology.reverse_queue", WHO),
        "mss": tcp["mss"],
        "init_cwnd": tcp["init_cwnd"],
        "rwnd_pkts": max(1, tcp["rwnd"] // tcp["mss"]),
        "initial_rto": tcp["initial_rto"],
        "rtx_scan_s": tcp["clock_granularity"],
        "duration": r["duration"],
        "warmup": r["warmup"],
        "flow_pairs": pairs,
        "flow_starts": starts,
    }


def _bottleneck(q: dict[str, Any], tcp: dict[str, Any], packet: int) -> dict[str, Any]:
    """The bottleneck queue: DCTCP's step marker, or drop-tail under plain TCP."""
    where = "topology.bottleneck_queue"
    require("limit" in q, f"{where}.limit_bytes", q.get("limit_bytes"), "a limit in packets", WHO)
    if tcp["cc"] == "dctcp":
        require(q["kind"] == "step", f"{where}.kind", q["kind"], "step under tcp.cc = dctcp (htsim's ECNQueue)", WHO)
        require(q["ecn"], f"{where}.ecn", q["ecn"], "true (ECNQueue marks, never drops early)", WHO)
        delay = q.get("threshold_delay")
        require(delay is None, f"{where}.threshold_delay", delay, "threshold or threshold_bytes (a backlog)", WHO)
        k = q["threshold"] * packet if "threshold" in q else q["threshold_bytes"]
        return {"limit": q["limit"], "mark_above_bytes": k}
    require(tcp["cc"] == "reno", "tcp.cc", tcp["cc"], "dctcp (DCTCPSrc) or reno (TcpSrc)", WHO)
    require(q["kind"] == "droptail", f"{where}.kind", q["kind"], "droptail under tcp.cc = reno", WHO)
    require(not tcp["ecn"], "tcp.ecn", tcp["ecn"], "false under tcp.cc = reno (TcpSrc ignores ECN-Echo)", WHO)
    return {"limit": q["limit"], "mark_above_bytes": q["limit"] * packet}


def _check_tcp(tcp: dict[str, Any]) -> None:
    require(tcp["recovery"] == "newreno", "tcp.recovery", tcp["recovery"], "newreno (htsim has no SACK)", WHO)
    require(not tcp["limited_transmit"], "tcp.limited_transmit", True, "false (htsim has none)", WHO)
    require(not tcp["delayed_ack"], "tcp.delayed_ack", True, "false (TcpSink ACKs every packet)", WHO)
    require(tcp["min_rto"] == HTSIM_MIN_RTO_S, "tcp.min_rto", tcp["min_rto"], "0.25 s (fixed in htsim's tcp.cpp)", WHO)
    require(tcp["clock_granularity"] > 0, "tcp.clock_granularity", 0, "> 0 (the timer scanner's period)", WHO)
    require(not tcp["pacing"] and tcp["tso"] == "none", "tcp.pacing", tcp["pacing"], "false, tso none", WHO)
    if tcp["cc"] == "dctcp":
        require(tcp["dctcp_shift_g"] == HTSIM_SHIFT_G, "tcp.dctcp_shift_g", tcp["dctcp_shift_g"], "4 (g = 1/16)", WHO)

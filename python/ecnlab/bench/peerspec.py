"""What the peer simulators are told, derived from an ecnlab scenario.

The peer scripts in ``ecnlab/bench/scripts/`` take every number from :func:`peer_params`,
which reads the *resolved* scenario (every default filled in), so ecnlab and
its peers cannot drift apart; a scenario the peer scripts cannot express
(another topology, flow kind, TCP variant, per-flow TCP, faults, losses)
raises :class:`~ecnlab.errors.ScenarioError` instead of being approximated.
"""

from __future__ import annotations

from typing import Any

from ecnlab.errors import ScenarioError
from ecnlab.lower import resolved_scenario
from ecnlab.model import Scenario
from ecnlab.resolve import flow_tcp

__all__ = ["peer_params", "require", "flow_pairs", "limit_of"]

_PERSONALITY_OF = {"ns-2": "ns2", "ns-3": "ns3"}
# The window an ECN reduction leaves: ns-2 halves cwnd (down to half a
# segment, then waits for its timer: closest is RFC 3168's one segment); ns-3's
# EnterCwr sets cwnd = ssthresh >= 2 segments (docs/performance.md).
_ECN_MIN_CWND_OF = {"ns-2": 1, "ns-3": 2}


def peer_params(sc: Scenario, tool: str) -> dict[str, Any]:
    """Flat parameters for ``tool`` (``ns-2`` or ``ns-3``); the bottleneck RED must have its personality."""
    r = resolved_scenario(sc)
    topo, tcp = r["topology"], r["tcp"]
    require(topo["kind"] == "dumbbell", "topology.kind", topo["kind"], "the peer scripts build a dumbbell")
    q = topo["bottleneck_queue"]
    require(q["kind"] == "red", "topology.bottleneck_queue.kind", q["kind"], "the peers run kind red")
    want = _PERSONALITY_OF[tool]
    require(
        q.get("personality") == want,
        "topology.bottleneck_queue.personality",
        q.get("personality"),
        f"{tool} needs {want}",
    )
    require(q["mode"] == "packet", "topology.bottleneck_queue.mode", q["mode"], "the peer scripts use packet mode")
    require(r["faults"] == [], "faults", r["faults"], "the peers have no scripted faults")
    require(topo["access_loss"] == 0 and topo["access_corrupt"] == 0, "topology.access_loss", topo["access_loss"], "0")
    require(
        tcp["recovery"] == "newreno" and tcp["cc"] == "reno" and not tcp["ecn_plus"],
        "tcp.recovery",
        tcp["recovery"],
        "newreno (Reno congestion control) without ECN+",
    )
    want_floor = _ECN_MIN_CWND_OF[tool]
    require(
        tcp["ecn_min_cwnd"] == want_floor,
        "tcp.ecn_min_cwnd",
        tcp["ecn_min_cwnd"],
        f"{want_floor}: {tool}'s ECN response (docs/performance.md)",
    )
    pairs, starts = flow_pairs(r)
    return {
        "pairs": topo["pairs"],
        "rate_bps": topo["bottleneck_rate"],
        "delay_s": topo["bottleneck_delay"],
        "access_rate_bps": topo["access_rate"],
        "access_delay_s": topo["access_delay"],
        "access_limit": limit_of(topo["default_queue"], "topology.default_queue"),
        "reverse_limit": limit_of(topo["reverse_queue"], "topology.reverse_queue"),
        "limit": q["limit"],
        "min_th": q["min_th"],
        "max_th": q["max_th"],
        "max_p": q["max_p"],
        "wq": q["wq"],
        "gentle": q["gentle"],
        "wait": q["wait"],
        "mean_pkt_size": q["mean_pkt_size"],
        "red_ecn": q["ecn"],
        "red_bytes": False,
        "mark_p": q.get("mark_p", 0.0),
        "mss": tcp["mss"],
        "init_cwnd": tcp["init_cwnd"],
        "rwnd_bytes": tcp["rwnd"],
        "rwnd_pkts": max(1, tcp["rwnd"] // tcp["mss"]),
        "ecn": tcp["ecn"],
        "delayed_ack": tcp["delayed_ack"],
        "delack_timeout": tcp["delack_timeout"],
        "clock_granularity": tcp["clock_granularity"],
        "min_rto": tcp["min_rto"],
        "initial_rto": tcp["initial_rto"],
        "max_rto": tcp["max_rto"],
        "dupack_threshold": tcp["dupack_threshold"],
        "duration": r["duration"],
        "warmup": r["warmup"],
        "seed": r["seed"],
        "flow_pairs": pairs,
        "flow_starts": starts,
    }


def flow_pairs(r: dict[str, Any], who: str = "the peer scripts") -> tuple[list[int], list[float]]:
    """Each flow's host pair (0-based: s1 -> r1 is 0) and start time, from resolved scenario ``r``;
    refuses what is not an unbounded bulk flow with the [tcp] table from s_i to r_i at one start time."""
    pairs, starts = [], []
    for i, f in enumerate(r["flows"]):
        where = f"flows[{i}]"
        require(f["kind"] == "bulk" and "bytes" not in f, f"{where}.kind", f["kind"], "unbounded bulk flows", who)
        require(flow_tcp(r, f) == r["tcp"], f"{where}.tcp", "per-flow tcp", "the [tcp] table for every flow", who)
        require(f["initiator"] == "src", f"{where}.initiator", f["initiator"], "src", who)
        require(isinstance(f["start"], (int, float)), f"{where}.start", f["start"], "one start time", who)
        for src, dst in zip(f["from"], f["to"], strict=True):
            require(src[1:] == dst[1:], f"{where}.to", dst, f"the receiver of {src} (r{src[1:]})", who)
            for _ in range(f["count"]):
                pairs.append(int(src[1:]) - 1)
                starts.append(float(f["start"]))
    return pairs, starts


def limit_of(queue: dict[str, Any], where: str, who: str = "the peer scripts") -> int:
    """The packet limit of a drop-tail queue table."""
    ok = queue["kind"] == "droptail" and "limit" in queue
    require(ok, f"{where}.kind", queue["kind"], "droptail with limit", who)
    return int(queue["limit"])


def require(ok: bool, field: str, value: Any, allowed: str, who: str = "the peer scripts") -> None:
    """Raises the one-line :class:`ScenarioError` naming ``field``, ``value`` and what ``who`` supports."""
    if not ok:
        raise ScenarioError(field, f"not supported by {who}: {allowed}", value)

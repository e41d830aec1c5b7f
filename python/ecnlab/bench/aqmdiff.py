"""Differential AQM runs: one scripted arrival/departure sequence through ecnlab's queue and ns-3's.

The script (``Op`` dicts: ``enq``/``deq`` with times in ns) is replayed by
``ecnlab._core.queue_replay`` (crates/aqm/src/replay.rs) and by
``ecnlab/bench/scripts/ns3_queue_trace.cc`` against Debian's ns-3 (``libns3-dev``,
3.37). Both print the same events: drops before and after enqueue, marks,
departures. Deterministic AQMs (CoDel, FQ-CoDel, the step marker as ns-3's
RED with MinTh = MaxTh = K) must give the same event sequence; randomised
ones (PIE, Adaptive RED) draw from different generators, so their counts
are compared instead (docs/performance.md has the table, ``CASES`` the
parameters).
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.bench.measure import PeerFailed

__all__ = ["CASES", "Case", "overload_script", "run_ecnlab", "run_ns3", "compare", "ns3_missing"]

NS3_TRACE_SOURCE = Path(__file__).resolve().parent / "scripts" / "ns3_queue_trace.cc"
NS3_TRACE_LIBS = ("core", "network", "traffic-control")
MS = 1_000_000


def ns3_missing() -> str | None:
    """Why the ns-3 replay program cannot be built here, or None."""
    from ecnlab.bench.ns3cxx import ns3cxx_missing

    return ns3cxx_missing()


def overload_script(
    *,
    seconds: float,
    arrival_gap_ns: list[int],
    service_gap_ns: int,
    bytes_: int = 1500,
    ecn_cycle: tuple[int, ...] = (2,),
    off: tuple[tuple[float, float], ...] = (),
) -> list[dict[str, Any]]:
    """Flows ``i`` send a packet every ``arrival_gap_ns[i]``; one departure every ``service_gap_ns``.

    The ECN codepoints cycle through ``ecn_cycle`` per flow; no arrivals inside
    the ``off`` windows (seconds). Ops at the same time keep this order:
    arrivals by flow, then the departure.
    """
    end = int(seconds * 1e9)
    ops: list[tuple[int, int, dict[str, Any]]] = []
    next_id = 0
    for flow, gap in enumerate(arrival_gap_ns):
        for k, t in enumerate(range(0, end, gap)):
            if any(a * 1e9 <= t < b * 1e9 for a, b in off):
                continue
            ecn = ecn_cycle[k % len(ecn_cycle)]
            ops.append((t, flow, {"op": "enq", "t_ns": t, "id": 0, "bytes": bytes_, "ecn": ecn, "flow": flow}))
    for t in range(service_gap_ns, end, service_gap_ns):
        ops.append((t, len(arrival_gap_ns), {"op": "deq", "t_ns": t}))
    ops.sort(key=lambda x: (x[0], x[1]))
    out = []
    for _, _, op in ops:
        if op["op"] == "enq":
            op = {**op, "id": next_id}
            next_id += 1
        out.append(op)
    return out


@dataclass(frozen=True)
class Case:
    """One differential case: the same queue in both tools, and how to compare."""

    name: str
    ecnlab: dict[str, Any]  # the engine's QueueConfig JSON
    ns3_kind: str
    ns3_attrs: dict[str, str]
    script: dict[str, Any]  # overload_script keyword arguments
    exact: bool  # the same event sequence expected (deterministic AQMs)


_CODEL = {"target_ns": 5 * MS, "interval_ns": 100 * MS, "ce_threshold_ns": None, "mtu_bytes": 1500}
_NS3_CODEL = {"Target": "5ms", "Interval": "100ms"}
_OVERLOAD = {"seconds": 4.0, "arrival_gap_ns": [1_000_000], "service_gap_ns": 1_200_000, "off": ((1.5, 1.6),)}
_THREE_FLOWS = {"arrival_gap_ns": [1_500_000, 3_000_000, 2_000_000], "service_gap_ns": 1_200_000}


def _codel(name: str, ecn: bool, script: dict[str, Any]) -> Case:
    ours = {"kind": "codel", "limit_pkts": 1000, "limit_bytes": None, "ecn": ecn, "personality": "ns3", **_CODEL}
    ns3 = {"MaxSize": "1000p", "UseEcn": str(ecn).lower(), "MinBytes": "1500", **_NS3_CODEL}
    return Case(name, ours, "ns3::CoDelQueueDisc", ns3, script, True)


def _fq_codel(name: str, script: dict[str, Any], limit: int = 10240, ce_threshold_ms: int | None = None) -> Case:
    ours = {
        "kind": "fq_codel", "limit_pkts": limit, "memory_limit_bytes": 32 << 20, "flows": 1024,
        "quantum_bytes": 1500, "drop_batch": 64, "ecn": True, "ce_threshold_selector": None,
        "perturbation": 0, "personality": "ns3", **_CODEL,
    }  # fmt: skip
    ns3 = {"MaxSize": f"{limit}p", "Flows": "1024", "DropBatchSize": "64", "Perturbation": "0", "UseEcn": "true"}
    if ce_threshold_ms is not None:
        ours["ce_threshold_ns"] = ce_threshold_ms * MS
        ns3["CeThreshold"] = f"{ce_threshold_ms}ms"
    return Case(name, ours, "ns3::FqCoDelQueueDisc", {**ns3, **_NS3_CODEL}, script, True)


_LONG = {"seconds": 20.0, "arrival_gap_ns": [1_000_000], "service_gap_ns": 1_200_000, "ecn_cycle": (2, 2, 0)}
_NS3_STEP = "MinTh=20 MaxTh=20 QW=1 UseEcn=true UseHardDrop=false Gentle=false Wait=false MeanPktSize=1500"
_NS3_ARED = "ARED=true UseEcn=true UseHardDrop=true LinkBandwidth=10Mbps LinkDelay=20ms Bottom=0.01 LInterm=50"
CASES: dict[str, Case] = {
    c.name: c
    for c in [
        Case(
            "step-k20",
            {"kind": "step", "limit_pkts": 1000, "limit_bytes": None, "on": "packets", "threshold": 20, "ecn": True},
            "ns3::RedQueueDisc",
            {"MaxSize": "1000p", **dict(kv.split("=") for kv in _NS3_STEP.split())},
            {**_OVERLOAD, "ecn_cycle": (2, 2, 0)},
            True,
        ),
        _codel("codel-ecn", True, {**_OVERLOAD, "ecn_cycle": (2, 2, 0)}),
        _codel("codel-drop", False, dict(_OVERLOAD)),
        _fq_codel("fq_codel-3flows", {"seconds": 3.0, **_THREE_FLOWS, "ecn_cycle": (2, 0)}),
        _fq_codel(
            "fq_codel-overflow",
            {
                "seconds": 2.0,
                "arrival_gap_ns": [400_000, 1_000_000, 2_000_000],
                "service_gap_ns": 1_200_000,
                "ecn_cycle": (2, 0),
            },  # fmt: skip
            limit=60,
        ),
        _fq_codel("fq_codel-ce-threshold", {"seconds": 2.0, **_THREE_FLOWS, "ecn_cycle": (1, 2, 0)}, ce_threshold_ms=1),
        Case(
            "pie-ecn",
            {
                "kind": "pie",
                "limit_pkts": 1000,
                "limit_bytes": None,
                "target_ns": 15 * MS,
                "tupdate_ns": 15 * MS,
                "alpha": 0.125,
                "beta": 1.25,
                "max_burst_ns": 150 * MS,
                "ecn": True,
                "mark_ecn_threshold": 0.1,
                "bytemode": False,
                "mean_pkt_bytes": 1500,
                "derandomize": False,
                "personality": "ns3",
            },  # fmt: skip
            "ns3::PieQueueDisc",
            {"MaxSize": "1000p", "MeanPktSize": "1500", "UseEcn": "true", "MarkEcnThreshold": "0.1"},
            _LONG,
            False,
        ),
        Case(
            "ared-ecn",
            {
                "kind": "ared",
                "limit_pkts": 1000,
                "limit_bytes": None,
                "target_delay_ns": 5 * MS,
                "interval_ns": 500 * MS,
                "alpha": 0.01,
                "beta": 0.9,
                "bottom": 0.01,
                "top": 0.5,
                "max_p": 0.02,
                "mean_pkt_bytes": 1500,
                "link_rate_bps": 10_000_000,
                "ecn": True,
            },  # fmt: skip
            "ns3::RedQueueDisc",
            {"MaxSize": "1000p", "MeanPktSize": "1500", **dict(kv.split("=") for kv in _NS3_ARED.split())},
            _LONG,
            False,
        ),
    ]
}


def run_ecnlab(case: Case, ops: list[dict[str, Any]], seed: int = 1) -> list[dict[str, Any]]:
    from ecnlab import _core

    events: list[dict[str, Any]] = json.loads(_core.queue_replay(json.dumps(case.ecnlab), json.dumps(ops), seed))
    return events


def run_ns3(case: Case, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same script through ns-3's queue disc (compiled on first use)."""
    from ecnlab.bench.ns3cxx import ns3cxx_binary

    binary = ns3cxx_binary(NS3_TRACE_SOURCE, NS3_TRACE_LIBS)
    lines = [f"kind {case.ns3_kind}", *(f"attr {k} {v}" for k, v in case.ns3_attrs.items())]
    if case.ecnlab["kind"] == "fq_codel":
        lines.append(f"quantum {case.ecnlab['quantum_bytes']}")
    for op in ops:
        if op["op"] == "enq":
            lines.append(f"enq {op['t_ns']} {op['id']} {op['bytes']} {op['ecn']} {op['flow']}")
        else:
            lines.append(f"deq {op['t_ns']}")
    r = subprocess.run([str(binary)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise PeerFailed(f"ns-3 queue replay failed: {r.stderr.strip()[-300:]}")
    return [_ns3_event(line.split()) for line in r.stdout.splitlines() if line.strip()]


def _ns3_event(w: list[str]) -> dict[str, Any]:
    kind, t = w[0], int(w[1])
    if kind == "deq":
        if w[2] == "none":
            return {"event": "deq", "t_ns": t, "id": None, "ecn": None}
        return {"event": "deq", "t_ns": t, "id": int(w[2]), "ecn": int(w[3])}
    return {"event": kind, "t_ns": t, "id": int(w[2])}


def _key(e: dict[str, Any]) -> tuple[Any, ...]:
    return (e["event"], e["t_ns"], e.get("id"), e.get("ecn"))


def compare(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    """Event counts by kind for both, and the first event where the sequences part."""
    ka, kb = [_key(e) for e in a], [_key(e) for e in b]
    first = next((i for i, (x, y) in enumerate(zip(ka, kb, strict=False)) if x != y), None)
    if first is None and len(ka) != len(kb):
        first = min(len(ka), len(kb))
    return {
        "ecnlab": _count(a),
        "ns3": _count(b),
        "identical": first is None,
        "first_difference": None
        if first is None
        else {"index": first, "ecnlab": _at(ka, first), "ns3": _at(kb, first)},
    }


def _count(events: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(e["event"] for e in events))


def _at(keys: list[tuple[Any, ...]], i: int) -> tuple[Any, ...] | None:
    return keys[i] if i < len(keys) else None

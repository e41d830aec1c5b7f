"""``ecnlab bench queues``: each queue's cost per packet, side by side in one run.

Every queue kind runs the same steady backlog (``ecnlab_aqm::replay::churn``:
one arrival and one departure per step, 1500-byte ECT(0) packets from
``flows`` flows round-robin) in the release engine; the cost is wall time per
arrival-and-departure, and the ratio against RED measured in the same run is
what to compare across machines. The best of ``reps`` runs is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ecnlab.bench.aqmdiff import CASES

__all__ = ["QUEUES", "run_queue_bench", "format_queue_bench"]

MS = 1_000_000
_LIM = {"limit_pkts": 100_000, "limit_bytes": None}
_CODEL = {"target_ns": 5 * MS, "interval_ns": 100 * MS, "ce_threshold_ns": None, "mtu_bytes": 1514}
RED = {**_LIM, "kind": "red", "min_th": 5.0, "max_th": 15.0, "max_p": 0.1, "wq": 0.002, "gentle": True,
       "wait": True, "mode": "packet", "mean_pkt_bytes": 1500, "link_rate_bps": 10_000_000, "ecn": True}  # fmt: skip
QUEUES: dict[str, dict[str, Any]] = {
    "droptail": {**_LIM, "kind": "droptail"},
    "red": RED,
    "pi": {**_LIM, "kind": "pi", "q_ref": 50.0, "a": 1.822e-5, "b": 1.816e-5, "sample_hz": 160.0, "ecn": True},
    # PIE and ARED as the ns-3 replay runs them (``aqmdiff.CASES``), with this bench's limit.
    "ared": {**CASES["ared-ecn"].ecnlab, **_LIM},
    "pie": {**CASES["pie-ecn"].ecnlab, **_LIM, "mean_pkt_bytes": 1514, "personality": "linux"},
    "codel": {**_LIM, "kind": "codel", "ecn": True, **_CODEL},
    "step": {**_LIM, "kind": "step", "on": "packets", "threshold": 20, "ecn": True},
    "fq_codel": {
        "kind": "fq_codel",
        "limit_pkts": 100_000,
        "memory_limit_bytes": 1 << 40,
        "flows": 1024,
        "quantum_bytes": 1514,
        "drop_batch": 64,
        "ecn": True,
        **_CODEL,
    },  # fmt: skip
    "dualpi2": {
        "kind": "dualpi2",
        "limit_pkts": 100_000,
        "target_ns": 15 * MS,
        "tupdate_ns": 16 * MS,
        "alpha": 0.16,
        "beta": 3.2,
        "coupling": 2.0,
        "min_qlen_step": 0,
        "classic_protection_pct": 10,
        "ecn_mask": "l4s_ect",
        "drop_on_overload": True,
        "mtu_bytes": 1514,
    },  # fmt: skip
}


def run_queue_bench(
    flows: list[int], *, backlog: int = 100, packets: int = 2_000_000, reps: int = 3, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Rows of (queue, flows, ns per packet, ratio to RED at the same flow count)."""
    from ecnlab import _core

    rows: list[dict[str, Any]] = []
    for n in flows:
        red_ns: float | None = None
        for name, cfg in QUEUES.items():
            ns = min(_core.queue_churn(json.dumps(cfg), n, backlog, packets)[0] for _ in range(reps))
            if name == "red":
                red_ns = ns
            rows.append({"queue": name, "flows": n, "ns_per_packet": ns})
            log(f"  {name:9s} flows={n:<6d} {ns:7.1f} ns/packet")
        for r in rows:
            if r["flows"] == n:
                r["vs_red"] = r["ns_per_packet"] / red_ns if red_ns else None
    return rows


def format_queue_bench(rows: list[dict[str, Any]]) -> str:
    lines = ["| queue | flows | ns per arrival+departure | × RED |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['queue']} | {r['flows']} | {r['ns_per_packet']:.1f} | {r['vs_red']:.2f} |")
    return "\n".join(lines)


# Bottleneck queues for the engine-level comparison (scenario-file form).
ENGINE_QUEUES: dict[str, dict[str, Any] | None] = {
    "red": None,  # the scaling case's own RED (personality ns3, thresholds scaled to 1 Gbit/s)
    "fq_codel": {"kind": "fq_codel"},
    "dualpi2": {"kind": "dualpi2"},
    "codel": {"kind": "codel", "limit": 3000, "ecn": True},
    "pie": {"kind": "pie", "limit": 3000, "ecn": True},
}


def run_engine_bench(
    flows: int = 10_000, seconds: float = 3.0, reps: int = 3, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """The whole engine's wall time per forwarded packet-hop on the scaling dumbbell (1 Gbit/s,
    ``flows`` flows), each bottleneck queue in turn, repeated ``reps`` times interleaved; best kept."""
    import ecnlab
    from ecnlab.bench.cases import scenario_dict
    from ecnlab.bench.scaling import Point, _case

    case = _case(Point("flows", 10**9, flows, seconds))
    best: dict[str, float] = {}
    for rep in range(reps):
        for name, q in ENGINE_QUEUES.items():
            sc = scenario_dict(case, "ns3")
            if q is not None:
                sc["topology"]["bottleneck_queue"] = q
            sim = ecnlab.run(sc).summary["sim"]
            ns = 1e9 * sim["wall_s"] / sim["packets_forwarded"]
            best[name] = min(ns, best.get(name, ns))
            log(f"  rep {rep + 1}: {name:9s} {ns:7.1f} ns per packet-hop ({sim['packets_forwarded']} hops)")
    return [{"queue": k, "flows": flows, "ns_per_hop": v, "vs_red": v / best["red"]} for k, v in best.items()]


def format_engine_bench(rows: list[dict[str, Any]]) -> str:
    lines = ["| bottleneck queue | flows | engine ns per packet-hop | × RED |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['queue']} | {r['flows']} | {r['ns_per_hop']:.0f} | {r['vs_red']:.2f} |")
    return "\n".join(lines)

"""Prague:CUBIC in DualPI2 as two factors, and the coexistence table of Prague v0.7 beside v0.6.

A flow's rate is its window over its RTT, so for the two flows of a cell

    rate_P / rate_C = (W_P / W_C) · (RTT_C / RTT_P).

DualPI2's coupling (RFC 9332 §2.1, k = 2) sets the marking each window answers to; the RTTs differ
by the queues. A flow's RTT here is its base RTT (twice its path's one-way propagation delay: its
two access links and the bottleneck, from the run's resolved scenario) plus the mean sojourn of its
class after the warm-up (Prague's packets in L, CUBIC's in C); the bottleneck's serialisation, the
same for both, is left out. Per cell, from the means over seeds: ``rtt_factor`` = RTT_C / RTT_P and
``window_ratio`` = ratio / rtt_factor. A queue without classes gives no factors (NaN).

The coexistence table: one row per cell (rate, RTT, queue, fallback), Prague:CUBIC with Prague
v0.7 and with v0.6 side by side, and each version's two factors where the queue is DualPI2.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

__all__ = ["VERSIONS", "base_rtt_ms", "factors", "with_factors", "coexistence"]

VERSIONS = ("v0.7", "v0.6")
CELL = ["rate", "rtt", "aqm", "fallback"]
SHOWN = ["ratio", "window_ratio", "rtt_factor"]


def base_rtt_ms(topology: dict[str, Any], flow: dict[str, Any]) -> float:
    """A dumbbell flow's base RTT in ms: twice its access links' and the bottleneck's delays."""
    hosts = topology.get("hosts", {})

    def access(host: str) -> float:
        return float(hosts.get(host, {}).get("access_delay", topology["access_delay"]))

    one_way = access(flow["from"][0]) + float(topology["bottleneck_delay"]) + access(flow["to"][0])
    return 2e3 * one_way


def factors(summary: dict[str, Any], queue: dict[str, Any]) -> dict[str, float]:
    """Each flow's RTT (base + its DualPI2 class's mean sojourn), NaN where the queue has no classes."""
    mean = {c["name"]: c["sojourn"]["mean_ms"] for c in queue.get("classes", [])}
    scenario = summary["scenario"]
    base = {f["name"]: base_rtt_ms(scenario["topology"], f) for f in scenario["flows"]}
    if not {"L", "C"} <= set(mean):
        return {"prague_rtt_ms": math.nan, "cubic_rtt_ms": math.nan}
    return {"prague_rtt_ms": base["prague"] + mean["L"], "cubic_rtt_ms": base["cubic"] + mean["C"]}


def with_factors(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells with ``rtt_factor`` and ``window_ratio`` from their mean RTTs and ratio."""
    out = cells.copy()
    out["rtt_factor"] = out.cubic_rtt_ms / out.prague_rtt_ms
    out["window_ratio"] = out.ratio / out.rtt_factor
    return out


def coexistence(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: each Prague version's ratio, window ratio and RTT factor side by side."""
    out = cells[CELL].drop_duplicates()
    for v in VERSIONS:
        part = cells[cells.version == v][CELL + SHOWN]
        part = part.rename(columns={k: f"{k}_{v.replace('.', '')}" for k in SHOWN})
        out = out.merge(part, on=CELL, how="left", validate="one_to_one")
    order = [f"{k}_{v.replace('.', '')}" for k in SHOWN for v in VERSIONS]
    return out[CELL + order].reset_index(drop=True)

"""``ecnlab bench scaling``: ecnlab's cost per simulated packet as the work grows.

Series, each point one ``ecnlab run`` in its own process:

- ``flows``: the benchmark dumbbell (``cases.scenario_dict`` with personality ``ns3``, RED
  thresholds scaled with the rate) at 1 Gbit/s with 10 … 100 000 flows;
- ``million``: the same at 10 Gbit/s with 10 and 1 000 000 flows;
- ``rate``: 100 flows at 10 Mbit/s … 100 Gbit/s;
- ``entries``: the ``flows`` series' 1 Gbit/s dumbbell with its flows written as separate
  ``[[flows]]`` entries, one per flow (as a generator writes a scenario), so the command's time
  outside the engine shows what the front costs per entry; 10 s simulated, where the front's
  share of the whole command is larger than at the other points' lengths;
- ``fattree``: a k-ary fat tree (k = 4 at 10 Gbit/s, k = 8 at 100 Gbit/s), DCTCP-style step
  marking at K = 20 packets, every host sending one long flow across the core (a pod shift).

The dumbbells' flows are one ``[[flows]]`` entry (a group: ``count`` flows per host pair over
at most ``MAX_PAIRS`` pairs, starts drawn from the first second), so the front stays small
beside the engine at any size. Each point reports the engine's wall time per packet-hop (every
link a packet is sent on counts) and per event, the whole command's wall time and the part of
it outside the engine (start-up, validation, output), and the process's peak memory. Flat
per-packet cost means no super-linear structure; memory should grow with flows and packets in
flight, not with the duration. Durations keep about 2.5 M bottleneck packets per point (0.5 M
with ``--quick``), but for ``entries``. ns-2's ratio on the same dumbbells is ``ecnlab bench peers`` (cases a–d);
ns-2 cannot hold the million-flow point in this machine's time.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomli_w

from ecnlab.bench.cases import CASES, STAGGER_S, Case, scenario_dict
from ecnlab.bench.measure import ECNLAB_WITH_VMHWM, clean_env, run_measured, vmhwm_from_stderr

__all__ = ["Point", "points", "run_scaling", "format_scaling", "scenario"]

SERIES = ("flows", "million", "rate", "entries", "fattree")


@dataclass(frozen=True)
class Point:
    """One measurement: a dumbbell case, or a fat tree of ``k`` pods at ``rate_bps``."""

    series: str
    rate_bps: int
    flows: int
    duration_s: float
    k: int = 0  # fat tree pods (0: the dumbbell)


def _case(p: Point) -> Case:
    # RED thresholds of case (c) scaled with the rate (about 3.6 ms and 10.8 ms of queue).
    k = p.rate_bps / 1e9
    return replace(
        CASES["c"],
        name=f"{p.rate_bps // 1_000_000}M-{p.flows}f",
        label="scaling",
        rate_bps=p.rate_bps,
        flows=p.flows,
        min_th=max(5.0, round(300 * k)),
        max_th=max(15.0, round(900 * k)),
        limit=max(60, round(3000 * k)),
        duration_s=p.duration_s,
        warmup_s=min(1.0, p.duration_s / 2),
    )


def _fat_tree(p: Point) -> dict[str, Any]:
    hosts = p.k**3 // 4
    shift = (p.k // 2) ** 2  # hosts per pod: every flow crosses the core
    return {
        "name": f"bench-fattree-k{p.k}",
        "seed": 1,
        "duration": f"{p.duration_s}s",
        "warmup": f"{p.duration_s / 5}s",
        "topology": {
            "kind": "fat_tree",
            "k": p.k,
            "rate": p.rate_bps,
            "delay": "1us",
            "queue": {"kind": "step", "limit": 1000, "threshold": 20, "ecn": True},
        },
        "tcp": {"recovery": "sack", "cc": "dctcp", "min_rto": "10ms", "initial_rto": "100ms", "rwnd": "16MiB"},
        "flows": [
            {
                "name": "perm",
                "kind": "bulk",
                "from": [f"h{i}" for i in range(1, hosts + 1)],
                "to": [f"h{(i - 1 + shift) % hosts + 1}" for i in range(1, hosts + 1)],
                "start": "0s..100us",
            }
        ],
    }


def scenario(p: Point) -> dict[str, Any]:
    """The scenario of point ``p``."""
    if p.k:
        return _fat_tree(p)
    case = _case(p)
    data = scenario_dict(replace(case, flows=case.pairs), "ns3")  # topology, queue and TCP of the case
    assert p.flows % case.pairs == 0, "flows spread evenly over the host pairs"
    if p.series == "entries":  # one entry per flow, host pairs in turn
        data["flows"] = [
            {"name": f"f{i}", "kind": "bulk", "from": f"s{i % case.pairs + 1}", "to": f"r{i % case.pairs + 1}"}
            | {"start": f"0s..{STAGGER_S}s"}
            for i in range(p.flows)
        ]
        return data
    data["flows"] = [
        {
            "name": "f",
            "kind": "bulk",
            "from": "s*",
            "to": "r*",
            "count": p.flows // case.pairs,
            "start": f"0s..{STAGGER_S}s",
        }
    ]
    return data


def points(quick: bool) -> list[Point]:
    pkts = 0.5e6 if quick else 2.5e6

    def dur(rate: float) -> float:  # about `pkts` bottleneck packets of 1 500 bytes
        return max(2.0, round(pkts / (rate / 12_000), 3))

    flows = (10, 100, 1000) if quick else (10, 100, 1000, 10_000, 100_000)
    rates = (10**7, 10**8, 10**9) if quick else (10**7, 10**8, 10**9, 10**10, 10**11)
    out = [Point("flows", 10**9, n, dur(1e9)) for n in flows]
    if not quick:
        out += [Point("million", 10**10, n, dur(1e10)) for n in (10, 1_000_000)]
    out += [Point("rate", r, 100, dur(r)) for r in rates]
    out.append(Point("entries", 10**9, 1000 if quick else 10_000, 10.0))
    out.append(Point("fattree", 10**10, 16, 0.01, k=4))
    if not quick:
        out.append(Point("fattree", 10**11, 128, 0.002, k=8))
    return out


def run_scaling(
    quick: bool, log: Callable[[str], None], *, only: str | None = None, chosen: list[Point] | None = None
) -> list[dict[str, Any]]:
    """Measures every point (or ``chosen``; ``only``: those of one series)."""
    rows = []
    todo = chosen if chosen is not None else [p for p in points(quick) if only in (None, p.series)]
    with tempfile.TemporaryDirectory(prefix="ecnlab-scaling-") as tmp:
        for i, p in enumerate(todo):
            work = Path(tmp) / f"{i}-{p.series}"
            work.mkdir()
            (work / "s.toml").write_text(tomli_w.dumps(scenario(p)))
            cmd = [sys.executable, "-c", ECNLAB_WITH_VMHWM, "run", "s.toml", "--out", "out", "--quiet"]
            m = run_measured(cmd, cwd=work, timeout_s=3600, env=clean_env())
            sim = json.loads((work / "out" / "summary.json").read_text())["sim"]
            row = {
                "series": p.series,
                "rate_bps": p.rate_bps,
                "flows": p.flows,
                "k": p.k,
                "duration_s": p.duration_s,
                "events": sim["events"],
                "packets": sim["packets_forwarded"],
                "engine_s": sim["wall_s"],
                "command_s": m.wall_s,
                "outside_s": max(0.0, m.wall_s - sim["wall_s"]),
                "ns_per_packet": 1e9 * sim["wall_s"] / max(1, sim["packets_forwarded"]),
                "ns_per_event": 1e9 * sim["wall_s"] / max(1, sim["events"]),
                "peak_rss_mib": vmhwm_from_stderr(m.stderr),
            }
            rows.append(row)
            log(format_scaling([row], header=False))
    return rows


def format_scaling(rows: list[dict[str, Any]], *, header: bool = True) -> str:
    lines = []
    if header:
        lines.append(
            f"{'series':8}{'rate':>10}{'flows':>9}{'packets':>12}{'ns/packet':>11}{'ns/event':>10}"
            f"{'engine s':>10}{'outside s':>10}{'÷ engine':>10}{'peak MiB':>10}"
        )
    for r in rows:
        peak = r["peak_rss_mib"]
        lines.append(
            f"{r['series']:8}{r['rate_bps'] / 1e6:>8.0f}M {r['flows']:>8}{r['packets']:>12}"
            f"{r['ns_per_packet']:>11.0f}{r['ns_per_event']:>10.0f}{r['engine_s']:>10.2f}{r['outside_s']:>10.2f}"
            f"{r['command_s'] / r['engine_s'] if r['engine_s'] else float('nan'):>10.2f}"
            f"{peak if peak is not None else float('nan'):>10.1f}"
        )
    return "\n".join(lines)

"""``ecnlab bench scaling``: ecnlab's cost per simulated packet as the work grows.

Two series on the benchmark dumbbell (``cases.scenario_dict`` with personality
``ns3``, RED thresholds scaled with the rate): flows 10 → 10 000 at 1 Gbit/s,
and rate 10 Mbit/s → 10 Gbit/s with 100 flows. Each point runs ``ecnlab run``
in its own process and reports the engine's wall time per packet forwarded
(every link hop counts) and per event, and the process's peak memory. Flat
per-packet cost means no super-linear structure; memory should grow with
flows and packets in flight, not with the duration.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import tomli_w

from ecnlab.bench.cases import CASES, Case, scenario_dict
from ecnlab.bench.measure import ECNLAB_WITH_VMHWM, clean_env, run_measured, vmhwm_from_stderr

__all__ = ["run_scaling", "format_scaling"]


def _case(rate_bps: int, flows: int, duration_s: float) -> Case:
    # RED thresholds of case (c) scaled with the rate (about 3.6 ms and 10.8 ms of queue).
    k = rate_bps / 1e9
    return replace(
        CASES["c"],
        name=f"{rate_bps // 1_000_000}M-{flows}f",
        label="scaling",
        rate_bps=rate_bps,
        flows=flows,
        min_th=max(5.0, round(300 * k)),
        max_th=max(15.0, round(900 * k)),
        limit=max(60, round(3000 * k)),
        duration_s=duration_s,
        warmup_s=min(1.0, duration_s / 2),
    )


def points(quick: bool) -> list[tuple[str, Case]]:
    flows = (10, 100, 1000) if quick else (10, 100, 1000, 10_000)
    rates = (10**7, 10**8, 10**9) if quick else (10**7, 10**8, 10**9, 10**10)
    # Durations keep about 2.5 M bottleneck packets per point (fewer when quick).
    pkts = 0.5e6 if quick else 2.5e6
    out = [("flows", _case(10**9, n, max(2.0, pkts / 83_000))) for n in flows]
    out += [("rate", _case(r, 100, max(2.0, pkts / (r / 12_000)))) for r in rates]
    return out


def run_scaling(quick: bool, log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ecnlab-scaling-") as tmp:
        for series, case in points(quick):
            work = Path(tmp) / f"{series}-{case.name}"
            work.mkdir()
            (work / "s.toml").write_text(tomli_w.dumps(scenario_dict(case, "ns3")))
            cmd = [sys.executable, "-c", ECNLAB_WITH_VMHWM, "run", "s.toml", "--out", "out", "--quiet"]
            m = run_measured(cmd, cwd=work, timeout_s=3600, env=clean_env())
            sim = json.loads((work / "out" / "summary.json").read_text())["sim"]
            row = {
                "series": series,
                "rate_bps": case.rate_bps,
                "flows": case.flows,
                "duration_s": case.duration_s,
                "events": sim["events"],
                "packets": sim["packets_forwarded"],
                "engine_s": sim["wall_s"],
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
            f"{'series':7}{'rate':>10}{'flows':>8}{'packets':>12}{'ns/packet':>11}{'ns/event':>10}{'peak MiB':>10}"
        )
    for r in rows:
        lines.append(
            f"{r['series']:7}{r['rate_bps'] / 1e6:>8.0f}M {r['flows']:>7}{r['packets']:>12}"
            f"{r['ns_per_packet']:>11.0f}{r['ns_per_event']:>10.0f}{r['peak_rss_mib']:>10.1f}"
        )
    return "\n".join(lines)

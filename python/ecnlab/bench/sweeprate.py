"""``ecnlab bench sweep-rate``: runs per second of a sweep of many small runs.

The sweep: ``--runs N`` one-second runs of the 1.5 Mbit/s RED/ECN dumbbell
(``scenarios/dumbbell-red-ecn.toml``: ten Reno flows, 1.5 Mbit/s / 20 ms, RED
5/15/0.1, ECN, time series every 100 ms, no pcaps), over an axis of five
``max_p`` values and N/5 seeds. Each measurement is one whole ``ecnlab sweep
--jobs J --no-progress`` command in a fresh directory (interpreter start and
the Parquet tables at the end included), repeated ``--reps`` times; the table
gives the median. ``engine`` is the engine call's share of the workers' time:
the runs' ``sim.wall_s`` summed, over the command's wall time x J.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SweepRate", "sweep_file", "measure", "run_sweep_rate", "format_sweep_rate", "MAX_P"]

MAX_P = (0.02, 0.05, 0.1, 0.2, 0.5)

# scenarios/dumbbell-red-ecn.toml, inline so that the benchmark runs from an installed wheel too.
BASE: dict[str, Any] = {
    "name": "dumbbell-red-ecn",
    "description": "10 Reno flows, 1.5 Mbit/s / 20 ms bottleneck, RED 5/15/0.1/0.002, limit 60, ECN",
    "seed": 1,
    "duration": "60s",
    "sample_interval": "100ms",
    "topology": {
        "kind": "dumbbell",
        "pairs": 10,
        "access_rate": "10Mbit",
        "access_delay": "1ms",
        "bottleneck_rate": "1.5Mbit",
        "bottleneck_delay": "20ms",
        "bottleneck_queue": {
            "kind": "red",
            "limit": 60,
            "min_th": 5,
            "max_th": 15,
            "max_p": 0.1,
            "wq": 0.002,
            "gentle": True,
            "ecn": True,
        },
    },
    "tcp": {"variant": "reno", "ecn": True},
    "flows": [{"name": "reno", "kind": "bulk", "from": "s*", "to": "r*"}],
    "output": {"pcap": ["R1->R2"]},
}


@dataclass(frozen=True)
class SweepRate:
    """One ``--jobs`` setting: median wall time of the whole command, and the engine's share."""

    jobs: int
    runs: int
    wall_s: list[float]
    engine_s: float  # sum of the runs' sim.wall_s (median repetition)

    @property
    def median_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def runs_per_s(self) -> float:
        return self.runs / self.median_s

    @property
    def engine_share(self) -> float:
        return self.engine_s / (self.median_s * self.jobs)


def sweep_file(runs: int) -> dict[str, Any]:
    """The sweep as TOML data: ``runs`` runs (a multiple of 5: five max_p values x runs/5 seeds)."""
    if runs < len(MAX_P) or runs % len(MAX_P):
        raise ValueError(f"--runs = {runs}: must be a positive multiple of {len(MAX_P)}")
    return {
        "description": f"{runs} one-second runs of the 1.5 Mbit/s RED/ECN dumbbell",
        "name": "maxp{max_p}-s{seed}",
        "seeds": runs // len(MAX_P),
        "base": BASE,
        "set": {"duration": "1s", "output.pcap": []},
        "axes": {"topology.bottleneck_queue.max_p": list(MAX_P)},
    }


def measure(sweep: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Run ``ecnlab sweep`` once into the new directory ``out``: (wall s, sum of the runs' sim.wall_s)."""
    cmd = [sys.executable, "-m", "ecnlab", "sweep", str(sweep), "--out", str(out), "--jobs", str(jobs), "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"ecnlab sweep --jobs {jobs} failed ({proc.returncode}): {proc.stderr.strip()}")
    engine = sum(json.loads(p.read_text())["sim"]["wall_s"] for p in (out / "runs").glob("*/summary.json"))
    return wall, engine


def run_sweep_rate(
    runs: int, jobs: tuple[int, ...] = (1, 2), reps: int = 1, log: Callable[[str], None] | None = None
) -> list[SweepRate]:
    """Measure each ``jobs`` setting ``reps`` times, the settings interleaved (noise hits them alike)."""
    import tomli_w

    walls: dict[int, list[tuple[float, float]]] = {j: [] for j in jobs}
    with tempfile.TemporaryDirectory(prefix="ecnlab-sweep-rate-") as tmp:
        sweep = Path(tmp) / "sweep-rate.toml"
        sweep.write_text(tomli_w.dumps(sweep_file(runs)), encoding="utf-8")
        for rep in range(reps):
            for j in jobs:
                walls[j].append(measure(sweep, Path(tmp) / f"out-{rep}-j{j}", j))
                if log is not None:
                    log(f"  jobs {j}, repetition {rep + 1}: {walls[j][-1][0]:.2f} s")
    results = []
    for j in jobs:
        ordered = sorted(walls[j])
        results.append(SweepRate(j, runs, [w for w, _ in walls[j]], ordered[len(ordered) // 2][1]))
    return results


def format_sweep_rate(rows: list[SweepRate]) -> str:
    """A Markdown table: jobs, runs, median wall time, runs/s, engine ms per run, engine share."""
    lines = [
        "| jobs | runs | wall (median) | runs/s | engine per run | engine share |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.jobs} | {r.runs} | {r.median_s:.2f} s | {r.runs_per_s:.1f} | "
            f"{1000 * r.engine_s / r.runs:.2f} ms | {100 * r.engine_share:.1f} % |"
        )
    return "\n".join(lines)

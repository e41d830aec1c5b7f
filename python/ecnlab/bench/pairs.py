"""``ecnlab bench pairs SWEEP``: a sweep of senders sharing a bottleneck, as one table of each sender's part.

Runs the sweep file ``SWEEP`` (``ecnlab sweep``'s machinery: into ``--out DIR``, else a
temporary directory) and tabulates, per sweep cell (one set of axis values, means over its
seeds), each sender's throughput share, the mean and p99 sojourn of the part of the bottleneck
queue its packets pass, and its CE marks and drops after the warm-up, as
:mod:`ecnlab.analysis.senders` defines them. A cell's senders share one row, their values in
flow order separated by `` / ``. ``--quick`` runs every cell once (the first seed) for 10 s,
4 s of them warm-up. ``scenarios/sweep-bbr-pairs.toml`` is the sweep of docs/senders.md.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.sweep.spec import Sweep

__all__ = ["QUICK_SET", "load_pairs_sweep", "format_pairs", "pairs_data"]

#: What ``--quick`` sets in every run (besides one seed).
QUICK_SET = {"duration": "10s", "warmup": "4s"}

_COLUMNS = (
    ("share", "share", 2),
    ("sojourn_mean_ms", "mean sojourn (ms)", 1),
    ("sojourn_p99_ms", "p99 sojourn (ms)", 1),
    ("marks", "marks", 0),
    ("drops", "drops", 0),
)


def load_pairs_sweep(path: Path, quick: bool) -> Sweep:
    """The sweep file at ``path``, with ``--quick``'s shorter runs and single seed when asked."""
    from ecnlab.config import read_toml
    from ecnlab.sweep.spec import load_sweep, parse_sweep

    if not quick:
        return load_sweep(path)
    import tomli_w

    data = read_toml(path)
    data["set"] = {**data.get("set", {}), **QUICK_SET}
    seeds = data.get("seeds", 1)
    data["seeds"] = [seeds[0]] if isinstance(seeds, list) and seeds else 1
    return parse_sweep(data, base_dir=path.parent, source=str(path), text=tomli_w.dumps(data))


def format_pairs(cells: pd.DataFrame, axes: list[str]) -> str:
    """A Markdown table: one row per cell, the axis values, then each sender's values joined by `` / ``."""
    heads = [*axes, "senders", *(h for _, h, _ in _COLUMNS)]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(axes) + "---|" + "---:|" * len(_COLUMNS)]
    for key, g in cells.groupby(axes, sort=False, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        row = [str(v) for v in values] + [" / ".join(str(f) for f in g["flow"])]
        row += [" / ".join(_number(v, digits) for v in g[col]) for col, _, digits in _COLUMNS]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def pairs_data(cells: pd.DataFrame) -> list[dict[str, Any]]:
    """The cells as JSON records (NaN, a part of the queue no packet left, as null)."""
    records = cells.to_dict("records")
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in records]


def _number(value: float, digits: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"

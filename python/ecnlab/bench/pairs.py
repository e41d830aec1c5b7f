"""``ecnlab bench pairs SWEEP``: a sweep of senders sharing a bottleneck, as one table of each sender's part.

Runs the sweep file ``SWEEP`` (``ecnlab sweep``'s machinery: into ``--out DIR``, else a
temporary directory) and tabulates, per sweep cell (one set of axis values, means over its
seeds), each sender's throughput share, the mean and p99 sojourn of the part of the bottleneck
queue its packets pass, and its CE marks and drops after the warm-up, as
:mod:`ecnlab.analysis.senders` defines them. A cell's senders share one row, their values in
flow order separated by `` / ``, and the sweep's last axis goes across
(:func:`format_pairs`). ``--quick`` runs every cell once (the first seed) for 10 s,
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
    """A Markdown table of the cells: each sender's values joined by `` / `` in flow order. The last axis's
    values go across (a column per metric and value, e.g. ``share, 4ms``) when the other axes name the same
    senders at each of them; otherwise one row per cell."""
    across = axes[-1] if len(axes) > 1 and _same_senders(cells, axes) else None
    keys = [a for a in axes if a != across]
    values = list(dict.fromkeys(cells[across])) if across else [None]
    metrics = [(col, f"{h}, {v}" if across else h, d, v) for col, h, d in _COLUMNS for v in values]
    heads = [*keys, "senders", *(h for _, h, _, _ in metrics)]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * (len(keys) + 1) + "---:|" * len(metrics)]
    for key, g in cells.groupby(keys, sort=False, dropna=False):
        row = [str(v) for v in (key if isinstance(key, tuple) else (key,))]
        first = g if across is None else g[g[across] == values[0]]
        row.append(" / ".join(str(f) for f in first["flow"]))
        for col, _, digits, v in metrics:
            part = g if across is None else g[g[across] == v]
            row.append(" / ".join(_number(x, digits) for x in part[col]))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _same_senders(cells: pd.DataFrame, axes: list[str]) -> bool:
    """Whether, the last axis aside, each combination of axis values has the same senders at each of its values."""
    flows = cells.groupby(axes, sort=False, dropna=False)["flow"].agg(tuple).reset_index()
    return bool((flows.groupby(axes[:-1], sort=False, dropna=False)["flow"].nunique() == 1).all())


def pairs_data(cells: pd.DataFrame) -> list[dict[str, Any]]:
    """The cells as JSON records (NaN, a part of the queue no packet left, as null)."""
    records = cells.to_dict("records")
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in records]


def _number(value: float, digits: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"

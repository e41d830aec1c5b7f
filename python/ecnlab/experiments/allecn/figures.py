"""Figures of the all-ECN study in the paper's style (Fig. 3-7), from the per-cell table.

Each figure has one panel per client count (the paper shows 10 and 25
clients) and one line per scheme (D: DT, R: RED, E: ECN) against QL; one
figure per bottleneck delay d. PNG and SVG are written; the PNG paths are
returned (the report links the SVG beside each).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.allecn.analysis import SCHEMES
from ecnlab.files import write_figure

__all__ = ["draw_all", "draw_metric"]

STYLE = {"DT": ("tab:red", "o", "D: DT"), "RED": ("tab:blue", "s", "R: RED"), "ECN": ("tab:green", "^", "E: ECN")}
PANEL_N = (10, 25)  # the client counts the paper shows (section 4)

METRICS = {
    "network_overhead_pct": ("network overhead (% of minimum packets)", None),
    "receiver_overhead_pct": ("receiver overhead (% of minimum packets)", None),
    "tt_mean_s": ("transfer time per 100 KB file (s), mean ± std", "tt_std_s"),
    "acks_per_transfer": ("ACKs sent per transfer", None),
    "excess_packets": ("excess packets sent by the server", None),
}


def _panels(cells: pd.DataFrame) -> list[int]:
    """The paper's client counts when the sweep has them, else every client count."""
    have = sorted(int(n) for n in cells.n.unique())
    shown = [n for n in PANEL_N if n in have]
    return shown or have


def draw_metric(cells: pd.DataFrame, metric: str, d_ms: float, out: Path, title: str) -> Path:
    """One figure: ``metric`` against QL, a panel per client count, a line per scheme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label, err = METRICS[metric]
    ns = _panels(cells)
    fig, axes = plt.subplots(1, len(ns), figsize=(4.2 * len(ns), 3.4), squeeze=False, sharey=True)
    for ax, n in zip(axes[0], ns, strict=True):
        sel = cells[(cells.n == n) & (cells.d_ms == d_ms)]
        for s in SCHEMES:
            pts = sel[sel.scheme == s].sort_values("ql")
            if pts.empty:
                continue
            color, marker, name = STYLE[s]
            yerr = pts[err] if err else None
            ax.errorbar(pts.ql, pts[metric], yerr=yerr, color=color, marker=marker, label=name, capsize=3)
        ax.set_xscale("log", base=2)
        qls = sorted(int(q) for q in sel.ql.unique())
        ax.set_xticks(qls, [str(q) for q in qls])
        ax.set_xlabel("QL at router B (packets)")
        ax.set_title(f"{n} clients, d = {d_ms:g} ms")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel(label)
    axes[0][-1].legend()
    fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    png, svg = out.with_suffix(".png"), out.with_suffix(".svg")
    write_figure(fig, png, dpi=110, metadata={"Software": None})
    write_figure(fig, svg, metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return png


def draw_all(cells: pd.DataFrame, outdir: Path, *, prefix: str, metrics: list[str]) -> list[Path]:
    """Every metric of ``metrics`` for every delay in the table."""
    paths = []
    for metric in metrics:
        for d in sorted(cells.d_ms.unique()):
            name = f"{prefix}-{metric.replace('_', '-')}-d{d:g}ms"
            title = f"{prefix}: {METRICS[metric][0].split(' (')[0]}, d = {d:g} ms"
            paths.append(draw_metric(cells, metric, float(d), outdir / name, title))
    return paths

"""Figures in the shape of Floyd 1994's Figures 2, 3, 5 and 6.

One figure per panel set (LAN: per TCP clock; WAN: per load), with one column
per gateway (Drop-Tail, RED, RED+ECN and, beyond the paper, RED+SQ) and one row per metric; x = buffer
size (kB); one line per maximum window x gateway mode (the mean over seeds)
and every seed's value as a point, as the paper draws them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.floyd1994.metrics import GATEWAY_NAMES, GATEWAYS
from ecnlab.files import write_figure

__all__ = ["draw_grid", "LAN_ROWS", "WAN_ROWS"]

LAN_ROWS = (
    ("bulk_frac", "bulk throughput\n(fraction of link)"),
    ("bulk_min_frac", "smallest bulk\n(fraction of link)"),
    ("telnet_max_s", "worst telnet\ndelay (s)"),
    ("telnet_mean_s", "mean telnet\ndelay (s)"),
    ("telnet_over_100ms", "telnet packets\n> 100 ms (fraction)"),
)
WAN_ROWS = (*LAN_ROWS, ("ftp_goodput_bps", "short FTP\nthroughput (bit/s)"))
# window x mode -> (colour, marker, dashes)
_STYLE = {
    (8, "pkt"): ("tab:blue", "o", "-"),
    (8, "byte"): ("tab:cyan", "s", "--"),
    (64, "pkt"): ("tab:red", "^", "-"),
    (64, "byte"): ("tab:orange", "v", "--"),
}


def draw_grid(runs: pd.DataFrame, rows: tuple[tuple[str, str], ...], out: Path, title: str) -> Path:
    """One grid figure from per-run rows (columns gateway, mode, buffer_kb, window, seed, metrics)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = len(GATEWAYS)
    fig, axes = plt.subplots(len(rows), cols, figsize=(3.6 * cols, 2.1 * len(rows) + 0.8), squeeze=False, sharex=True)
    for c, gw in enumerate(GATEWAYS):
        for r, (metric, label) in enumerate(rows):
            ax = axes[r][c]
            _panel(ax, runs[runs.gateway == gw], metric)
            if c == 0:
                ax.set_ylabel(label, fontsize=8)
            if r == 0:
                ax.set_title(GATEWAY_NAMES[gw])
            if r == len(rows) - 1:
                ax.set_xlabel("buffer (kB)")
            ax.tick_params(labelsize=7)
            ax.grid(True, alpha=0.3)
        for r in range(len(rows)):  # share y per row across gateways, as the paper's columns do
            lo = min(a.get_ylim()[0] for a in axes[r])
            hi = max(a.get_ylim()[1] for a in axes[r])
            for a in axes[r]:
                a.set_ylim(lo, hi)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    out.parent.mkdir(parents=True, exist_ok=True)
    png, svg = out.with_suffix(".png"), out.with_suffix(".svg")
    write_figure(fig, png, dpi=100, metadata={"Software": None})
    write_figure(fig, svg, metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return png


def _panel(ax: object, runs: pd.DataFrame, metric: str) -> None:
    for (window, mode), (color, marker, dashes) in _STYLE.items():
        sel = runs[(runs.window.astype(int) == window) & (runs["mode"] == mode)]
        sel = sel[sel[metric].notna()]
        if sel.empty:
            continue
        mean = sel.groupby("buffer_kb")[metric].mean().sort_index()
        ax.plot(mean.index, mean.values, color=color, linestyle=dashes, label=f"{window} pkt window, {mode} mode")  # type: ignore[attr-defined]
        ax.scatter(sel.buffer_kb, sel[metric], color=color, marker=marker, s=10, alpha=0.6)  # type: ignore[attr-defined]

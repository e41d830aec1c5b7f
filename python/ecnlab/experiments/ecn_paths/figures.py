"""The key figure of ``ecnlab reproduce ecn-paths``: per path, what turning ECN on does to each
stack (means over the queues): the 1 kB transfer time (ms, ECN on − off) and the bulk goodput
(ECN on / off, log scale); a stack that never connected on a path is marked "no connection"."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ecnlab.plots import pyplot, save_figure

__all__ = ["effects_figure"]

PANELS = (
    ("d_connect_ms", "1 kB transfer: ECN on − off (ms)", False),
    ("goodput_ratio", "bulk goodput: on / off", True),
)


def effects_figure(e: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    m = e.groupby(["impairment", "stack"], sort=False)[[p[0] for p in PANELS]].mean().reset_index()
    paths = list(dict.fromkeys(m.impairment))
    stacks = list(dict.fromkeys(m["stack"]))
    fig, axes = plt.subplots(1, len(PANELS), figsize=(10, 3.4), squeeze=False)
    width = 0.8 / len(stacks)
    for ax, (col, label, log) in zip(axes[0], PANELS, strict=True):
        for j, stack in enumerate(stacks):
            d = m[m["stack"] == stack].set_index("impairment").reindex(paths)
            xs = [i + j * width for i in range(len(paths))]
            ax.bar(xs, d[col], width, label=stack)
            for x, v in zip(xs, d[col], strict=True):
                if math.isnan(v) or (log and v <= 0):  # the stack never connected on that path
                    ax.text(
                        x,
                        0.35,
                        "no connection",
                        rotation=90,
                        fontsize=6,
                        ha="center",
                        va="bottom",
                        transform=ax.get_xaxis_transform(),
                    )
        ax.axhline(1 if log else 0, color="grey", lw=0.8)
        if log:
            ax.set_yscale("log")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(paths))], paths, fontsize=8)
        ax.set_ylabel(label, fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Turning ECN on, per path (mean over queues)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "ecn-paths")

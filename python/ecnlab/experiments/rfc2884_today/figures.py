"""The key figure of each rfc2884-today part: the part's metric per queue, one bar per stack, with
95 % intervals; one panel per congestion level (bulk, transactional: the 5 KB responses)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.plots import pyplot, save_figure

__all__ = ["metric_figure"]

LABELS = {"fairness": "Jain's index (4 flows)", "bulk": "ECN advantage (20 MB)", "transactional": "ECN gain (tps)"}


def _panels(kind: str, c: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    if kind == "fairness":
        return [(f"background {b}", c[c.background == b]) for b in dict.fromkeys(c.background)]
    if kind == "transactional":
        c = c[c.response == c.response.iloc[0]]
    return [(f"{g} congestion", c[c.congestion == g]) for g in dict.fromkeys(c.congestion)]


def metric_figure(kind: str, metric: str, c: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    panels = _panels(kind, c)
    stacks = list(dict.fromkeys(c["stack"]))
    aqms = list(dict.fromkeys(c.aqm))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.2), squeeze=False, sharey=True)
    width = 0.8 / len(stacks)
    for ax, (title, d) in zip(axes[0], panels, strict=True):
        for j, stack in enumerate(stacks):
            e = d[d["stack"] == stack].set_index("aqm").reindex(aqms)
            scale = 1.0 if kind == "fairness" else 100.0
            xs = [i + j * width for i in range(len(aqms))]
            ax.bar(xs, scale * e[metric], width, yerr=scale * e[f"{metric}_ci95"], label=stack, capsize=2)
        ax.axhline(0 if kind != "fairness" else 1, color="grey", lw=0.8)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(aqms))], aqms, fontsize=8)
        ax.set_title(title, fontsize=9)
    axes[0][0].set_ylabel(LABELS[kind] + ("" if kind == "fairness" else " (%)"))
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"RFC 2884 {kind} today: stack × queue at 1.5 Mbit/s", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, f"{kind}_today")

"""The key figure of the Prague fallback part: Prague's share of the bottleneck, the study's beside ecnlab's.

Left, the reproduce grid (100 Mbit/s, 10 ms): the share against the buffer in BDP. Right, the
extend grid: grouped bars per rate and RTT. Unfixed in blue, with the ×16 fix in orange; the study's
CSV means dashed or hatched, ecnlab's means over seeds solid with their 95 % intervals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ecnlab.plots import pyplot, save_figure

__all__ = ["share_figure"]

COLOURS = {False: "tab:blue", True: "tab:orange"}
NAMES = {False: "unfixed", True: "fixed"}


def _reproduce(ax: Any, c: pd.DataFrame) -> None:
    for fix, colour in COLOURS.items():
        d = c[c.fix == fix].sort_values("bdp")
        ax.plot(d.bdp, d.paper_share, ls="--", marker="x", color=colour, label=f"study, {NAMES[fix]}")
        ax.errorbar(
            d.bdp, d.prague_share, yerr=d.prague_share_ci95, marker="o", color=colour, label=f"ecnlab, {NAMES[fix]}"
        )
    ax.set_xscale("log", base=2)
    ticks = sorted(set(c.bdp))
    ax.set_xticks(ticks, [f"{b:g}" for b in ticks])
    ax.minorticks_off()
    ax.set_xlabel("buffer (BDP)")
    ax.set_title("reproduce: 100 Mbit/s, 10 ms", fontsize=9)


def _extend(ax: Any, c: pd.DataFrame) -> None:
    groups = list(dict.fromkeys(f"{r}M\n{t}ms" for r, t in zip(c.rate_mbit, c.rtt_ms, strict=True)))
    for j, (fix, src) in enumerate(((False, "paper"), (False, "ecnlab"), (True, "paper"), (True, "ecnlab"))):
        d = c[c.fix == fix]
        xs = [groups.index(f"{r}M\n{t}ms") + 0.2 * j for r, t in zip(d.rate_mbit, d.rtt_ms, strict=True)]
        if src == "paper":
            colour, label = COLOURS[fix], f"study, {NAMES[fix]}"
            ax.bar(xs, d.paper_share, 0.2, color="white", edgecolor=colour, hatch="//", label=label)
        else:
            ax.bar(xs, d.prague_share, 0.2, yerr=d.prague_share_ci95, color=COLOURS[fix], label=f"ecnlab, {NAMES[fix]}")
    ax.set_xticks([i + 0.3 for i in range(len(groups))], groups, fontsize=6)
    ax.set_title("extend: 8 BDP", fontsize=9)


def share_figure(c: pd.DataFrame, outdir: Path) -> Path:
    """``fallback-share.png``: Prague's share per cell, the study's and ecnlab's, unfixed and fixed."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 2.4]})
    _reproduce(left, c[c.grid == "reproduce"])
    _extend(right, c[c.grid == "extend"])
    for ax in (left, right):
        ax.axhline(0.5, color="grey", lw=0.8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("Prague's share of the rate")
        ax.legend(fontsize=6)
    fig.suptitle("TCP Prague 0.6 (fallback on) beside CUBIC in DualPI2: unfixed and with the ×16 fix", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "fallback-share")

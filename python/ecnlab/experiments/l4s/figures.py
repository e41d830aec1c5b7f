"""The key figure of ``ecnlab reproduce l4s``: the Prague:CUBIC ratio per queue and RTT (log scale,
1 = equal rates), fallback off and on, Prague v0.7 (solid) and v0.6 (hatched)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.l4s.coexistence import VERSIONS
from ecnlab.plots import pyplot, save_figure

__all__ = ["ratio_figure"]

BARS = tuple((v, fb) for v in VERSIONS for fb in (False, True))
COLOURS = {False: "tab:blue", True: "tab:orange"}
HATCH = {"v0.7": "", "v0.6": "//"}


def ratio_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    rates = list(dict.fromkeys(c.rate))
    fig, axes = plt.subplots(1, len(rates), figsize=(8 * len(rates), 4.2), squeeze=False)
    for ax, rate in zip(axes[0], rates, strict=True):
        d = c[c.rate == rate]
        groups = list(dict.fromkeys(f"{a} {r}" for a, r in zip(d.aqm, d.rtt, strict=True)))
        for j, (version, fb) in enumerate(BARS):
            e = d[(d.version == version) & (d.fallback == fb)]
            xs = [groups.index(f"{a} {r}") + 0.2 * j for a, r in zip(e.aqm, e.rtt, strict=True)]
            label = f"{version}, fallback {'on' if fb else 'off'}"
            style = {"color": COLOURS[fb], "hatch": HATCH[version], "edgecolor": "white", "lw": 0}
            ax.bar(xs, e.ratio, width=0.2, label=label, **style)
        ax.axhline(1, color="grey", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks([i + 0.3 for i in range(len(groups))], groups, fontsize=6, rotation=90)
        ax.set_ylabel("Prague : CUBIC goodput")
        ax.set_title(f"{rate}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("TCP Prague beside CUBIC: rate ratio by queue and RTT", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "ratio")

"""``ecnlab reproduce floyd-today [--quick]``: Floyd 1994's WAN telnet-delay grid with FQ-CoDel.

The seed's WAN (``../floyd1994/wan-base.toml``) with gateways Drop-Tail, RED+ECN (the seed's),
FQ-CoDel and FQ-CoDel+ECN at 60 and 240 packets, two stacks (``reno-1994``: the seed's; and
``cubic-linux``: the ``linux`` personality with CUBIC), windows 8 and 64 packets and both loads.
Sweeps ``wan.toml`` (5 seeds) and ``wan-quick.toml`` (2 seeds). The metrics are the seed's own
(:func:`ecnlab.experiments.floyd1994.metrics.run_metrics`, section 7.1): bulk throughput as a
fraction of the link, the telnet packets' mean and worst delay and the share over 100 ms.

Claims, rules fixed before the runs were read, each counted over the (stack, window, load,
buffer) cells:

- FQ-CoDel+ECN gives telnet a lower mean delay than RED+ECN;
- with FQ-CoDel, ECN leaves no larger share of telnet packets later than 100 ms than dropping does;
- FQ-CoDel+ECN keeps the bulk throughput within 5 % of RED+ECN's (ratio ≥ ``SAME``).

docs/experiments/floyd-today.md has the method and results.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.floyd1994.metrics import WAN, run_metrics
from ecnlab.experiments.framework import Claim, Part, Results, Study, Verdict, cells
from ecnlab.plots import pyplot, save_figure

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["STUDY", "per_run", "per_cell", "claims"]

Tables = list[tuple[str, pd.DataFrame]]
CELL = ["stack", "window", "load", "buffer", "gateway"]
METRICS = ["bulk_frac", "bulk_min_frac", "telnet_mean_s", "telnet_max_s", "telnet_over_100ms", "drops", "marks",
           "telnet_timeouts"]  # fmt: skip
SAME = 0.95


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per run: the axes (gateway split into gateway and buffer) and the seed's WAN metrics."""
    rows = []
    qby = dict(tuple(res.queues.groupby("run", sort=False)))
    for run, f in res.flows.groupby("run", sort=False):
        first = f.iloc[0]
        gateway, _, buffer = str(first["gateway"]).rpartition("-")
        duration = float(res.summary(str(run))["sim"]["sim_time_s"])
        m = run_metrics(f, qby[run], WAN, duration)
        key = {"stack": first["stack"], "window": int(first["window"]), "load": first["load"], "buffer": int(buffer)}
        rows.append({"run": run, "seed": int(first["seed"]), **key, "gateway": gateway, **{k: m[k] for k in METRICS}})
    return pd.DataFrame(rows)


def per_cell(runs: pd.DataFrame) -> pd.DataFrame:
    return cells(runs, CELL, METRICS)


def _wide(c: pd.DataFrame, metric: str) -> pd.DataFrame:
    return c.pivot_table(index=CELL[:-1], columns="gateway", values=metric)


def _count(ok: pd.Series, text: str, detail: str) -> Claim:
    return Claim(text, Verdict.of_share(int(ok.sum()), len(ok)), f"{int(ok.sum())} of {len(ok)} cells; {detail}",
                 "Floyd 1994 §7")  # fmt: skip


def claims(c: pd.DataFrame) -> list[Claim]:
    """The three statements of the module docstring, from the cells."""
    mean, late, bulk = _wide(c, "telnet_mean_s"), _wide(c, "telnet_over_100ms"), _wide(c, "bulk_frac")
    need = {"RED+ECN", "FQ-CoDel", "FQ-CoDel+ECN"}
    if not need <= set(mean.columns):
        return [Claim("FQ-CoDel beside RED+ECN", Verdict.NOT_RUN, f"needs gateways {sorted(need)}")]
    fq, red = mean["FQ-CoDel+ECN"], mean["RED+ECN"]
    late_ok = late["FQ-CoDel+ECN"] <= late["FQ-CoDel"]
    ratio = bulk["FQ-CoDel+ECN"] / bulk["RED+ECN"]
    return [
        _count(fq < red, "FQ-CoDel+ECN gives telnet a lower mean delay than RED+ECN",
               f"mean over cells {1e3 * fq.mean():.1f} ms against {1e3 * red.mean():.1f} ms"),
        _count(late_ok, "With FQ-CoDel, ECN leaves no more telnet packets later than 100 ms than dropping does",
               f"mean share {late['FQ-CoDel+ECN'].mean():.2%} with ECN, {late['FQ-CoDel'].mean():.2%} without"),
        _count(ratio >= SAME, f"FQ-CoDel+ECN keeps the bulk throughput within {1 - SAME:.0%} of RED+ECN's",
               f"throughput ratio {ratio.min():.2f} to {ratio.max():.2f}"),
    ]  # fmt: skip


def answer(c: pd.DataFrame) -> str:
    """Floyd's question asked today in plain words: per gateway, today's CUBIC, means over the grid."""
    d = c[c["stack"] == "cubic-linux"].groupby("gateway", sort=False)[METRICS].mean()
    lines = ["**Do bulk TCPs get the link while telnet keeps a low delay?** With today's Linux CUBIC "
             "(means over windows, loads and buffers):", ""]  # fmt: skip
    for gw, r in d.iterrows():
        lines.append(f"- {gw}: bulk {r.bulk_frac:.0%} of the link, telnet mean {1e3 * r.telnet_mean_s:.1f} ms, "
                     f"worst {1e3 * r.telnet_max_s:.0f} ms, {r.telnet_over_100ms:.1%} later than 100 ms")  # fmt: skip
    return "\n".join(lines)


def tables(r: Results) -> Tables:
    return [("cells", per_cell(r.runs)), ("runs", r.runs)]


def draw(r: Results, outdir: Path) -> list[Path]:
    plt = pyplot()
    c = per_cell(r.runs)
    stacks, loads = list(dict.fromkeys(c["stack"])), list(dict.fromkeys(c.load))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), squeeze=False)
    for ax, metric, label in ((axes[0][0], "telnet_mean_s", "telnet mean delay (ms)"),
                              (axes[0][1], "bulk_frac", "bulk throughput (fraction of link)")):  # fmt: skip
        gws = list(dict.fromkeys(c.gateway))
        for stack in stacks:
            for load in loads:
                d = c[(c["stack"] == stack) & (c.load == load)].groupby("gateway")[metric].mean().reindex(gws)
                scale = 1e3 if metric == "telnet_mean_s" else 1.0
                ax.plot(gws, scale * d, marker="o", label=f"{stack}, {load}")
        ax.set_ylabel(label, fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.legend(fontsize=7)
    fig.suptitle("Floyd 1994 WAN today: FQ-CoDel beside Drop-Tail and RED+ECN", fontsize=9)
    fig.tight_layout()
    return [save_figure(fig, outdir, "telnet_today")]


STUDY = Study(
    name="floyd-today",
    question=(
        "Floyd 1994's question today: with FQ-CoDel beside RED+ECN and today's Linux CUBIC, do bulk TCPs get the "
        "link while telnet keeps a low delay, and does ECN still matter?"
    ),
    package=__name__,
    doc="docs/experiments/floyd-today.md",
    parts=(
        Part(
            name="floyd-today",
            title="Floyd 1994 WAN today: telnet delay and bulk throughput, FQ-CoDel beside Drop-Tail and RED+ECN",
            sweep="wan.toml",
            quick="wan-quick.toml",
            metrics=per_run,
            tables=tables,
            figures=draw,
            section=lambda r, t, f: ("Floyd 1994 WAN today", answer(dict(t)["cells"])),
            claims=lambda r, t: claims(dict(t)["cells"]),
            key_figure="telnet_today.png",
        ),
    ),
).register()

"""``ecnlab reproduce allecn-today [--quick]``: the all-ECN study's question asked of today's ECN.

The seed's set-up (``../allecn/base.toml``; n clients, 11 serial 100 KB downloads each, 1.5 Mbit/s,
here d = 20 ms) with two stacks (``reno-ns2``, the seed's; ``cubic-linux``, the ``linux`` TCP
personality with CUBIC) and nine queues: Drop-Tail, and RED, FQ-CoDel, PIE and DualPI2 each
without and with ECN (``+ECN``: the queue marks and every TCP negotiates ECN), at queue limits 16
and 64 packets. Sweeps ``sweep.toml`` (5 seeds) and ``sweep-quick.toml`` (2 seeds).

Metrics per run are the seed study's own (:func:`ecnlab.experiments.allecn.metrics.run_metrics`:
network and receiver overhead in % of the minimum packets, ACKs per transfer, mean transfer time),
plus the bottleneck's marks and early drops.

Claims, rules fixed before the runs were read: for each AQM, "ECN lowers the network overhead /
ACKs per transfer / mean transfer time": in every (stack, clients, QL) cell the AQM with ECN has a
lower mean than the same AQM without; the verdict counts the cells where it does. The answer
(:func:`answer`) gives, per AQM, today's CUBIC numbers without and with ECN, from the cells.
docs/experiments/allecn-today.md has the method and results.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.allecn.metrics import BOTTLENECK, run_metrics
from ecnlab.experiments.framework import Claim, Part, Results, Study, Verdict, cells
from ecnlab.plots import pyplot, save_figure
from ecnlab.resolve import flow_tcp

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["STUDY", "per_run", "per_cell", "claims", "answer"]

Tables = list[tuple[str, pd.DataFrame]]
AQMS = ("RED", "FQ-CoDel", "PIE", "DualPI2")
CELL = ["stack", "clients", "ql", "scheme"]
METRICS = ["network_overhead_pct", "receiver_overhead_pct", "acks_per_transfer", "tt_mean_s", "timeouts"]
QUEUE = ["marks", "early_drops", "overflow_drops"]
WHAT = {
    "network_overhead_pct": "the network overhead (packets sent beyond the minimum)",
    "acks_per_transfer": "the ACKs per transfer",
    "tt_mean_s": "the mean transfer time",
}
TODAY = "cubic-linux"


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per run: stack, n, queue scheme and limit, the seed's metrics and the bottleneck's counts."""
    rows = []
    queues_of = dict(iter(res.queues.groupby("run", sort=False)))
    for run, flows in res.flows.groupby("run", sort=False):
        scenario = res.summary(str(run))["scenario"]
        first = scenario["flows"][0]
        q = queues_of[run]
        m = run_metrics(flows, q, files=int(first["files"]), file_bytes=int(first["file_size"]),
                        mss=int(flow_tcp(scenario, first)["mss"]))  # fmt: skip
        b = q[q.link == BOTTLENECK].iloc[0]
        f0 = flows.iloc[0]
        scheme, _, ql = str(f0["queue"]).rpartition("-")
        cell = {"stack": f0["stack"], "clients": int(f0["clients"]), "ql": int(ql), "scheme": scheme}
        rows.append({"run": run, "seed": int(f0["seed"]), **cell, **{k: m[k] for k in METRICS},
                     **{k: int(b[k]) for k in QUEUE}})  # fmt: skip
    return pd.DataFrame(rows)


def per_cell(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % interval over seeds per (stack, clients, QL, scheme)."""
    return cells(runs, CELL, [*METRICS, *QUEUE])


def _wide(c: pd.DataFrame, metric: str) -> pd.DataFrame:
    return c.pivot_table(index=["stack", "clients", "ql"], columns="scheme", values=metric)


def claims(c: pd.DataFrame) -> list[Claim]:
    """Per AQM and metric: with ECN below without, cell by cell (module docstring)."""
    out = []
    for metric, what in WHAT.items():
        wide = _wide(c, metric)
        for aqm in AQMS:
            text = f"{aqm} with ECN lowers {what} against {aqm} without"
            if not {aqm, f"{aqm}+ECN"} <= set(wide.columns):
                out.append(Claim(text, Verdict.NOT_RUN, f"needs {aqm} and {aqm}+ECN cells"))
                continue
            ok = wide[f"{aqm}+ECN"] < wide[aqm]
            reason = (f"lower in {int(ok.sum())} of {len(ok)} (stack, clients, QL) cells; mean over cells "
                      f"{wide[f'{aqm}+ECN'].mean():.3g} with ECN, {wide[aqm].mean():.3g} without")  # fmt: skip
            out.append(Claim(text, Verdict.of_share(int(ok.sum()), len(ok)), reason, "all-ECN §4"))
    return out


def answer(c: pd.DataFrame) -> str:
    """The seed's question asked today, per AQM, for today's CUBIC (means over n and QL), from the cells."""
    d = c[c["stack"] == TODAY]
    mean = d.groupby("scheme")[["network_overhead_pct", "acks_per_transfer", "tt_mean_s", "marks"]].mean()
    grid = f"n = {d.clients.min()}–{d.clients.max()} clients and QL {' and '.join(str(q) for q in sorted(set(d.ql)))}"
    lines = ["**Does ECN save packets, ACKs and time for short transfers?** With today's Linux CUBIC "
             f"(means over {grid}):", ""]  # fmt: skip
    for aqm in AQMS:
        if aqm not in mean.index or f"{aqm}+ECN" not in mean.index:
            continue
        a, b = mean.loc[aqm], mean.loc[f"{aqm}+ECN"]
        lines.append(
            f"- {aqm}: overhead {a.network_overhead_pct:.0f} % → {b.network_overhead_pct:.0f} % with ECN, "
            f"ACKs per transfer {a.acks_per_transfer:.1f} → {b.acks_per_transfer:.1f}, transfer time "
            f"{a.tt_mean_s:.2f} → {b.tt_mean_s:.2f} s ({b.marks:.0f} marks per run)"
        )
    if "DT" in mean.index:
        lines.append(f"- Drop-Tail: overhead {mean.loc['DT'].network_overhead_pct:.0f} %")
    return "\n".join(lines)


def tables(r: Results) -> Tables:
    return [("cells", per_cell(r.runs)), ("runs", r.runs)]


def draw(r: Results, outdir: Path) -> list[Path]:
    plt = pyplot()
    c = per_cell(r.runs)
    stacks, qls = list(dict.fromkeys(c["stack"])), sorted(set(c.ql))
    schemes = list(dict.fromkeys(c.scheme))
    fig, axes = plt.subplots(len(stacks), len(qls), figsize=(5 * len(qls), 2.8 * len(stacks)), squeeze=False)
    for i, stack in enumerate(stacks):
        for j, ql in enumerate(qls):
            ax = axes[i][j]
            for n in sorted(set(c.clients)):
                d = c[(c["stack"] == stack) & (c.ql == ql) & (c.clients == n)].set_index("scheme").reindex(schemes)
                ax.plot(schemes, d.network_overhead_pct, marker="o", label=f"n = {n}")
            ax.set_title(f"{stack}, QL {ql}", fontsize=9)
            ax.tick_params(axis="x", labelsize=7, rotation=45)
            ax.set_ylabel("network overhead (%)", fontsize=8)
            ax.legend(fontsize=7)
    fig.suptitle("All-ECN today: packets sent beyond the minimum, per queue (with and without ECN)", fontsize=9)
    fig.tight_layout()
    return [save_figure(fig, outdir, "overhead_today")]


def section(r: Results, t: Tables, figs: list[Path]) -> tuple[str, str]:
    return "All-ECN today", answer(dict(t)["cells"])


STUDY = Study(
    name="allecn-today",
    question=(
        "The all-ECN question today: with Linux CUBIC through RED, FQ-CoDel, PIE and DualPI2, does ECN "
        "save short transfers packets, ACKs and time?"
    ),
    package=__name__,
    doc="docs/experiments/allecn-today.md",
    parts=(
        Part(
            name="allecn-today",
            title="All-ECN today: overheads of short transfers, stack × queue with and without ECN",
            sweep="sweep.toml",
            quick="sweep-quick.toml",
            metrics=per_run,
            tables=tables,
            figures=draw,
            section=section,
            claims=lambda r, t: claims(dict(t)["cells"]),
            key_figure="overhead_today.png",
        ),
    ),
).register()

"""Tables of the all-ECN study, built from a sweep's results store (never by re-running).

- :func:`per_run`: the metrics of every run (:mod:`.metrics`), with the axes
  split into ``n``, ``d_ms``, ``scheme``, ``ql``.
- :func:`per_cell`: means over seeds (and the std over seeds of the key metrics).
- :func:`paper_table`: every number of the paper beside ecnlab's.
- :func:`rule_of_thumb`: ECN at QL against DT at 2·QL (paper section 5).
- :func:`transfer_times`: ECN's and RED's mean transfer time relative to DT.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.experiments.allecn.metrics import run_metrics
from ecnlab.experiments.allecn.paper import PAPER, RELATIVE
from ecnlab.resolve import flow_tcp

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["SCHEMES", "per_run", "per_cell", "paper_table", "rule_of_thumb", "transfer_times", "split_queue"]

SCHEMES = ("DT", "RED", "ECN")
CELL = ["n", "d_ms", "scheme", "ql"]
KEY_METRICS = ["network_overhead_pct", "receiver_overhead_pct", "excess_packets", "acks_per_transfer", "tt_mean_s"]


def split_queue(label: str) -> tuple[str, int]:
    """``"ECN-64"`` → ("ECN", 64)."""
    scheme, _, ql = label.partition("-")
    if scheme not in SCHEMES or not ql.isdigit():
        raise ValueError(f"queue label {label!r} is not SCHEME-QL with SCHEME in {SCHEMES}")
    return scheme, int(ql)


def _delay_ms(value: Any) -> float:
    """An axis value of ``topology.bottleneck_delay`` ("20ms", or seconds as a number) in ms."""
    if isinstance(value, str) and value.endswith("ms"):
        return float(value[:-2])
    return float(value) * 1000.0


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per run: axes, seed and every metric."""
    rows = []
    queues_of = dict(iter(res.queues.groupby("run", sort=False)))
    for run, flows in res.flows.groupby("run", sort=False):
        summary = res.summary(str(run))
        flow0 = summary["scenario"]["flows"][0]
        tcp0 = flow_tcp(summary["scenario"], flow0)
        queues = queues_of[run]
        m = run_metrics(
            flows,
            queues,
            files=int(flow0["files"]),
            file_bytes=int(flow0["file_size"]),
            mss=int(tcp0["mss"]),
        )
        first = flows.iloc[0]
        scheme, ql = split_queue(str(first["queue"]))
        cell = {"n": int(first["clients"]), "d_ms": _delay_ms(first["d"]), "scheme": scheme, "ql": ql}
        rows.append({"run": run, "seed": int(first["seed"]), **cell, **m, "sim_time_s": summary["sim"]["sim_time_s"]})
    return pd.DataFrame(rows)


def per_cell(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds of every numeric metric, plus ``seeds`` and the std over seeds of the key metrics."""
    numeric = [c for c in runs.columns if c not in (*CELL, "run", "seed", "problems")]
    g = runs.groupby(CELL, sort=True)
    out = g[numeric].mean()
    out.insert(0, "seeds", g.size())
    for m in KEY_METRICS:
        out[f"{m}_sd_seeds"] = g[m].std(ddof=1) if len(runs) else math.nan
    out = out.reset_index()
    out["scheme"] = pd.Categorical(out["scheme"], categories=list(SCHEMES), ordered=True)
    return out.sort_values(CELL).reset_index(drop=True)


def _lookup(cells: pd.DataFrame, metric: str, n: int, d_ms: float, scheme: str, ql: int) -> float:
    sel = cells[(cells.n == n) & (cells.d_ms == d_ms) & (cells.scheme == scheme) & (cells.ql == ql)]
    return float(sel[metric].iloc[0]) if len(sel) else math.nan


def paper_table(cells: pd.DataFrame, study: str) -> pd.DataFrame:
    """The paper's numbers for ``study`` beside ecnlab's (NaN where the sweep lacks the cell).

    Where the paper does not say the delay, a row per delay the sweep has.
    """
    rows = []
    delays = sorted(cells.d_ms.unique()) if len(cells) else []
    for p in PAPER:
        if p.study != study:
            continue
        for d in [p.d_ms] if p.d_ms is not None else delays:
            ours = _lookup(cells, p.metric, p.n, d, p.scheme, p.ql)
            rows.append(
                {
                    "metric": p.metric,
                    "n": p.n,
                    "d_ms": d,
                    "scheme": p.scheme,
                    "ql": p.ql,
                    "paper": p.value,
                    "ecnlab": ours,
                    "sd_seeds": _lookup(cells, f"{p.metric}_sd_seeds", p.n, d, p.scheme, p.ql),
                    "paper_where": p.where + ("" if p.d_ms is not None else " (delay not stated)"),
                }
            )
    for st, metric, n, d_ms, ql, reduction, where in RELATIVE:
        if st != study:
            continue
        for d in [d_ms] if d_ms is not None else delays:
            dt, ecn = (_lookup(cells, metric, n, d, s, ql) for s in ("DT", "ECN"))
            rows.append(
                {
                    "metric": f"{metric} ECN vs DT, % reduction",
                    "n": n,
                    "d_ms": d,
                    "scheme": "ECN/DT",
                    "ql": ql,
                    "paper": reduction,
                    "ecnlab": 100.0 * (1 - ecn / dt) if dt else math.nan,
                    "sd_seeds": math.nan,
                    "paper_where": where + ("" if d_ms is not None else " (delay not stated)"),
                }
            )
    return pd.DataFrame(rows)


def rule_of_thumb(cells: pd.DataFrame, metric: str = "network_overhead_pct") -> pd.DataFrame:
    """ECN at QL beside DT at 2·QL (paper 4.2/5: "ECN yields the same or less ... than DT with twice the buffer")."""
    rows = []
    for (n, d), g in cells.groupby(["n", "d_ms"], sort=True):
        for ql in sorted(g.ql.unique()):
            ecn = _lookup(g, metric, n, d, "ECN", ql)
            dt2 = _lookup(g, metric, n, d, "DT", 2 * ql)
            if math.isnan(ecn) or math.isnan(dt2):
                continue
            rows.append(
                {"n": n, "d_ms": d, "ql": ql, "metric": metric, "ECN@QL": ecn, "DT@2QL": dt2, "ECN<=DT@2QL": ecn <= dt2}
            )
    return pd.DataFrame(rows)


def transfer_times(cells: pd.DataFrame) -> pd.DataFrame:
    """Mean transfer time (and std over transfers) per scheme, and RED/ECN relative to DT in %."""
    rows = []
    for (n, d, ql), g in cells.groupby(["n", "d_ms", "ql"], sort=True):
        row: dict[str, Any] = {"n": n, "d_ms": d, "ql": ql}
        for s in SCHEMES:
            row[f"{s}_tt_s"] = _lookup(g, "tt_mean_s", n, d, s, ql)
            row[f"{s}_std_s"] = _lookup(g, "tt_std_s", n, d, s, ql)
        for s in ("RED", "ECN"):
            row[f"{s}_vs_DT_pct"] = 100.0 * (row[f"{s}_tt_s"] / row["DT_tt_s"] - 1.0)
        rows.append(row)
    return pd.DataFrame(rows)

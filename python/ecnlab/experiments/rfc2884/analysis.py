"""Per-run numbers of the RFC 2884 experiments, read from a sweep's results (never re-run).

Each function returns one row per run: the sweep's axes, the seed, the
paper's metric for that run, and the RED region check (mean RED average over
the measuring period and the share of 1 s samples below min_th, inside
[min_th, max_th] and above max_th).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.experiments.rfc2884.metrics import jain_index, relative_advantage, transaction_rate

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["BOTTLENECK", "queue_region", "fairness_runs", "bulk_runs", "transactional_runs"]

BOTTLENECK = "R1->R2"
ECN, NON_ECN = "ecn", "nonecn"  # flow ids of the competing flows in the sweep files


def queue_region(summary: dict[str, Any], series: pd.DataFrame, t0: float, t1: float) -> dict[str, float]:
    """RED thresholds of the bottleneck and where its sampled average (``series``, the run's
    queue time series) sat in [t0, t1]; all NaN when the bottleneck is not RED (rfc2884-today),
    the average's NaN when the run has no queue series (a live emulation: rfc2884-testbed)."""
    link = next(x for x in summary["scenario"]["topology"]["links"] if f"{x['from']}->{x['to']}" == BOTTLENECK)
    keys = ("min_th", "max_th", "avg_queue_pkts", "share_below", "share_inside", "share_above")
    if "min_th" not in link["queue"]:
        return dict.fromkeys(keys, float("nan"))
    lo, hi = float(link["queue"]["min_th"]), float(link["queue"]["max_th"])
    if series.empty:
        return {**dict.fromkeys(keys, float("nan")), "min_th": lo, "max_th": hi}
    s = series[series["link"] == BOTTLENECK]
    avg = [a for t, a in zip(s["t_s"], s["avg_pkts"], strict=True) if t0 <= t <= t1]
    n = len(avg) or 1
    return {
        "min_th": lo,
        "max_th": hi,
        "avg_queue_pkts": sum(avg) / n if avg else float("nan"),
        "share_below": sum(a < lo for a in avg) / n,
        "share_inside": sum(lo <= a <= hi for a in avg) / n,
        "share_above": sum(a > hi for a in avg) / n,
    }


def _by_run(res: SweepResults) -> dict[str, pd.DataFrame]:
    return {str(run): f.set_index("id") for run, f in res.flows.groupby("run", sort=False)}


def _key(res: SweepResults, run: str) -> dict[str, Any]:
    row = res.runs.loc[res.runs["run"] == run].iloc[0]
    return {"run": run, "seed": int(row["seed"]), **{a: row[a] for a in res.axes}}


def fairness_runs(res: SweepResults) -> pd.DataFrame:
    """§5.1: Jain's index over all flows' throughput; non-ECN drops vs ECN marks of the competing pair."""
    rows = []
    for run, f in _by_run(res).items():
        s = res.summary(run)
        start = float(f.loc[ECN, "start_s"])
        rows.append(
            {
                **_key(res, run),
                "fairness": jain_index(f["goodput_bps"].tolist()),
                "goodput_ecn_bps": float(f.loc[ECN, "goodput_bps"]),
                "goodput_nonecn_bps": float(f.loc[NON_ECN, "goodput_bps"]),
                "marks_ecn": int(f.loc[ECN, "ce_received"]),
                "drops_nonecn": int(f.loc[NON_ECN, "pkts_dropped"]),
                **queue_region(s, res.queue_series(run), start, float(s["scenario"]["duration"])),
            }
        )
    return pd.DataFrame(rows)


def bulk_runs(res: SweepResults) -> pd.DataFrame:
    """§5.2: goodput of the two 20 MB transfers, relative ECN advantage, retransmits and timeouts."""
    rows = []
    for run, f in _by_run(res).items():
        s = res.summary(run)
        e, n = f.loc[ECN], f.loc[NON_ECN]
        done = [x for x in (e["completion_time_s"], n["completion_time_s"]) if pd.notna(x)]
        end = max(done) if len(done) == 2 else float(s["scenario"]["duration"])
        rows.append(
            {
                **_key(res, run),
                "goodput_ecn_bps": float(e["goodput_bps"]),
                "goodput_nonecn_bps": float(n["goodput_bps"]),
                "advantage": relative_advantage(float(e["goodput_bps"]), float(n["goodput_bps"])),
                "retransmits_ecn": int(e["retransmits"]),
                "retransmits_nonecn": int(n["retransmits"]),
                "timeouts_ecn": int(e["timeouts"]),
                "timeouts_nonecn": int(n["timeouts"]),
                "dropped_ecn": int(e["pkts_dropped"]),
                "finished": len(done) == 2,
                **queue_region(s, res.queue_series(run), float(e["start_s"]), end),
            }
        )
    return pd.DataFrame(rows)


def transactional_runs(res: SweepResults) -> pd.DataFrame:
    """§5.3: transactions per second of the ECN and non-ECN clients over the run after they start."""
    rows = []
    for run, f in _by_run(res).items():
        s = res.summary(run)
        start, end = float(f.loc[ECN, "start_s"]), float(s["scenario"]["duration"])
        tps_e = transaction_rate(int(f.loc[ECN, "transactions"]), end - start)
        tps_n = transaction_rate(int(f.loc[NON_ECN, "transactions"]), end - start)
        rows.append(
            {
                **_key(res, run),
                "tps_ecn": tps_e,
                "tps_nonecn": tps_n,
                "gain": relative_advantage(tps_e, tps_n),
                "timeouts_ecn": int(f.loc[ECN, "timeouts"]),
                "timeouts_nonecn": int(f.loc[NON_ECN, "timeouts"]),
                "retransmits_ecn": int(f.loc[ECN, "retransmits"]),
                "retransmits_nonecn": int(f.loc[NON_ECN, "retransmits"]),
                "dropped_ecn": int(f.loc[ECN, "pkts_dropped"]),
                **queue_region(s, res.queue_series(run), start, end),
            }
        )
    return pd.DataFrame(rows)

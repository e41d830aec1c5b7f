"""Paper-vs-ecnlab tables of the three RFC 2884 experiments.

Every table has one row per grid point (seeds pooled): ecnlab's mean and the
half-width of its 95 % interval, the paper's number where the text gives one,
and the difference (ecnlab − paper). A ``queue_region`` table per experiment
shows the measured RED average against min_th/max_th at every point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ecnlab.experiments.framework import cells
from ecnlab.experiments.rfc2884 import paper

__all__ = ["aggregate", "fairness_tables", "bulk_tables", "transactional_tables", "queue_table"]

Tables = list[tuple[str, pd.DataFrame]]


def aggregate(runs: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean and 95 % half-width of each metric per grid point (keys in grid order): the framework's cells."""
    return cells(runs, keys, metrics)


def _with_paper(table: pd.DataFrame, keys: Sequence[str], metric: str, numbers: dict[Any, float], name: str) -> None:
    """Add ``paper_NAME`` and ``diff_NAME`` (ecnlab mean − paper) columns."""
    lookup: Callable[[pd.Series], float] = lambda r: numbers.get(tuple(r[k] for k in keys), float("nan"))  # noqa: E731
    table[f"paper_{name}"] = table.apply(lookup, axis=1)
    table[f"diff_{name}"] = table[metric] - table[f"paper_{name}"]


def queue_table(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """The RED region check: thresholds, mean average queue and where the samples sat."""
    t = aggregate(runs, keys, ["avg_queue_pkts", "share_below", "share_inside", "share_above"])
    first = runs.groupby(list(keys), sort=False)[["min_th", "max_th"]].first().reset_index()
    t = t.merge(first, on=list(keys), how="left")
    cols = [*keys, "n", "min_th", "max_th", "avg_queue_pkts", "avg_queue_pkts_ci95"]
    return t[cols + ["share_below", "share_inside", "share_above"]]


def fairness_tables(runs: pd.DataFrame) -> Tables:
    """The paper-vs-ecnlab and queue-region tables from the per-run metrics (``analysis.fairness_runs``)."""
    keys = ["maxp", "background"]
    t = aggregate(runs, keys, ["fairness", "drops_nonecn", "marks_ecn"])
    _with_paper(t, keys[::-1], "fairness", paper.FAIRNESS, "fairness")
    t = t.sort_values(keys, kind="stable")
    cols = ["maxp", "background", "n", "paper_fairness", "fairness", "fairness_ci95", "diff_fairness"]
    return [
        ("fairness", t[cols + ["drops_nonecn", "marks_ecn"]].reset_index(drop=True)),
        ("fairness_queue_region", queue_table(runs, ["background", "maxp"])),
    ]


def bulk_tables(runs: pd.DataFrame) -> Tables:
    """The paper-vs-ecnlab and queue-region tables from the per-run metrics (``analysis.bulk_runs``)."""
    keys = ["variant", "congestion", "maxp"]
    metrics = [
        "advantage",
        "goodput_ecn_bps",
        "goodput_nonecn_bps",
        "retransmits_ecn",
        "retransmits_nonecn",
        "timeouts_ecn",
        "timeouts_nonecn",
        "dropped_ecn",
    ]
    t = aggregate(runs, keys, metrics)
    _with_paper(t, keys, "advantage", paper.BULK_ADVANTAGE, "advantage")
    unfinished = runs.groupby(keys, sort=False)["finished"].apply(lambda s: int((~s.astype(bool)).sum()))
    t = t.merge(unfinished.rename("unfinished").reset_index(), on=keys, how="left")
    cols = [*keys, "n", "paper_advantage", "advantage", "advantage_ci95", "diff_advantage"]
    rest = ["goodput_ecn_bps", "goodput_nonecn_bps", "retransmits_ecn", "retransmits_nonecn"]
    rest += ["timeouts_ecn", "timeouts_nonecn", "dropped_ecn", "unfinished"]
    return [("bulk", t[cols + rest]), ("bulk_queue_region", queue_table(runs, keys))]


def transactional_tables(runs: pd.DataFrame) -> Tables:
    """The paper-vs-ecnlab and queue-region tables from the per-run metrics (``analysis.transactional_runs``)."""
    keys = ["variant", "congestion", "response", "maxp"]
    metrics = ["gain", "tps_ecn", "tps_nonecn", "timeouts_ecn", "timeouts_nonecn", "dropped_ecn"]
    t = aggregate(runs, keys, metrics)
    _with_paper(t, keys, "gain", paper.TRANSACTIONAL_GAIN, "gain")
    _with_paper(t, keys, "tps_ecn", paper.TRANSACTIONAL_TPS_ECN, "tps_ecn")
    cols = [*keys, "n", "paper_gain", "gain", "gain_ci95", "diff_gain", "paper_tps_ecn", "tps_ecn", "tps_ecn_ci95"]
    cols += ["diff_tps_ecn", "tps_nonecn", "tps_nonecn_ci95", "timeouts_ecn", "timeouts_nonecn", "dropped_ecn"]
    return [("transactional", t[cols]), ("transactional_queue_region", queue_table(runs, keys))]

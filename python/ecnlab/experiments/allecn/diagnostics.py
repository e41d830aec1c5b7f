"""The all-ECN study's diagnostics as registered parts: the sensitivity checks and the error direction.

``allecn-sensitivity-red`` and ``allecn-sensitivity-tcp`` vary, one at a
time, what the paper leaves open (the RED implementation; TCP's initial
window, timers and variant) on its section 4.2 cells; ``allecn-direction``
puts the 1 % errors of section 4.4 on the client links towards the clients,
from them, or both (the run's dumbbell rewritten by :mod:`.direction`). Their
sweeps are the ``sensitivity-*.toml`` and ``direction*.toml`` files beside
this module; their results are stored like every other part's. They explain
the report's differences; they are not fits (the study's sweeps keep
base.toml's choices whatever they show).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.experiments.allecn.direction import DIRECTIONS, explicit_scenario
from ecnlab.experiments.allecn.metrics import run_metrics
from ecnlab.experiments.allecn.paper import PAPER
from ecnlab.experiments.allecn.sensitivity import SHOWN
from ecnlab.experiments.framework import Claim, Verdict
from ecnlab.resolve import flow_tcp

if TYPE_CHECKING:
    from ecnlab.experiments.framework import Results
    from ecnlab.store import SweepResults
    from ecnlab.sweep.execute import Outcome
    from ecnlab.sweep.spec import Run

__all__ = ["axis_runs", "means", "direction_compute", "direction_claims", "SENSITIVITY_SHOWN", "DIRECTION_SHOWN"]

SENSITIVITY_SHOWN = SHOWN  # the metrics sensitivity.py's own table shows
DIRECTION_SHOWN = [
    "receiver_overhead_pct",
    "network_overhead_pct",
    "acks_per_transfer",
    "corrupted_received",
    "tt_mean_s",
]
ERROR_RATE = 0.01  # section 4.4


def axis_runs(res: SweepResults) -> pd.DataFrame:
    """One row per run: the sweep's axes as labelled, the seed and every metric of :mod:`.metrics`."""
    rows = []
    queues_of = dict(iter(res.queues.groupby("run", sort=False)))
    for run, flows in res.flows.groupby("run", sort=False):
        scenario = res.summary(str(run))["scenario"]
        flow0 = scenario["flows"][0]
        m = run_metrics(
            flows,
            queues_of[run],
            files=int(flow0["files"]),
            file_bytes=int(flow0["file_size"]),
            mss=int(flow_tcp(scenario, flow0)["mss"]),
        )
        first = flows.iloc[0]
        rows.append({"run": run, "seed": int(first["seed"]), **{a: first[a] for a in res.axes}, **m})
    return pd.DataFrame(rows)


def means(runs: pd.DataFrame, axes: list[str], shown: list[str]) -> pd.DataFrame:
    """Means over seeds per grid point (axes in grid order), with the number of seeds."""
    g = runs.groupby(axes, sort=False)
    out = g[shown].mean()
    out.insert(0, "seeds", g.size())
    return out.reset_index()


def sensitivity_tables(res: Results) -> list[tuple[str, pd.DataFrame]]:
    return [("sensitivity", means(res.runs, res.axes, SENSITIVITY_SHOWN))]


def direction_tables(res: Results) -> list[tuple[str, pd.DataFrame]]:
    return [("direction", means(res.runs, res.axes, DIRECTION_SHOWN))]


def direction_compute(run: Run) -> Outcome:
    """One run of ``allecn-direction``: its dumbbell as one-way links, errors in the labelled direction."""
    from ecnlab.sweep.execute import compute_run

    down, up = DIRECTIONS[str(run.axes["direction"])]
    return compute_run(run.name, explicit_scenario(run.data, rate=ERROR_RATE, to_clients=down, from_clients=up))


def _paper_receiver_overhead() -> dict[str, float]:
    return {p.scheme: p.value for p in PAPER if p.study == "allecn-errors" and p.metric == "receiver_overhead_pct"}


def direction_claims(res: Results, tables: list[tuple[str, pd.DataFrame]]) -> list[Claim]:
    """Which direction's receiver overhead lies nearest the paper's, per scheme (both delays pooled)."""
    t = dict(tables)["direction"]
    t = t.assign(scheme=t["queue"].astype(str).str.partition("-")[0])
    by = t.groupby(["scheme", "direction"]).receiver_overhead_pct.mean()
    nearest, words = [], []
    for scheme, paper in _paper_receiver_overhead().items():
        if scheme not in by.index.get_level_values(0):
            continue
        ours: dict[str, Any] = by[scheme].to_dict()
        best = min(ours, key=lambda d: abs(ours[d] - paper) if not math.isnan(ours[d]) else math.inf)
        nearest.append(best == "from_clients")
        words.append(f"{scheme} paper {paper:.2f} %: " + ", ".join(f"{d} {v:.2f}" for d, v in ours.items()))
    return [
        Claim(
            "The paper's receiver overheads fit errors on the clients' outgoing packets (ACKs) only",
            Verdict.of_share(sum(nearest), len(nearest)),
            f"from_clients nearest the paper for {sum(nearest)} of {len(nearest)} schemes; " + "; ".join(words),
            "§4.4 (Fig. 5), beyond",
        )
    ]

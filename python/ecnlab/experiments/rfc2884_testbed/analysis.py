"""rfc2884-testbed's numbers: rfc2884's per-run metrics, tables and claims, once per engine.

Runs (``testbed.toml``): EXPERIMENT-ENGINE-maxp-seed. Each experiment's runs are
read by rfc2884's own per-run functions (:mod:`ecnlab.experiments.rfc2884.analysis`:
Jain's index, goodput and relative advantage, transactions per second, retransmits,
timeouts, drops) on the sweep's results restricted to that experiment; the
grid's fixed keys of rfc2884's tables are added (variant reno, congestion low,
response 5KB; background from the experiment's name), then rfc2884's tables
(:mod:`ecnlab.experiments.rfc2884.summarize`) and claims
(:mod:`ecnlab.experiments.rfc2884.claims`) are computed per engine.

Added per run, for every engine: the bottleneck's CE marks, drops, utilisation
and time-average queue, and the competing flows' marks (CE packets the client
received) and drops (router per-route counters in an emulation). Timeouts count
both ends of a flow, as the simulator's do: in an emulation the server's
``tcpi_total_rto`` over the flow's connections plus the client's ``nstat``
``TcpExtTCPTimeouts`` (each client host has one flow). The RED average is not
sampled by the router, so the emulated runs' ``queue_region`` shares are NaN.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.experiments.framework import Claim
from ecnlab.experiments.rfc2884 import analysis, claims, summarize

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["ENGINES", "KINDS", "per_run", "tables", "engine_claims", "side_by_side"]

ENGINES = ("emu", "sim-linux", "sim-rfc")
KINDS = ("fairness", "bulk", "transactional")
Tables = list[tuple[str, pd.DataFrame]]
BOTTLENECK = analysis.BOTTLENECK
SOURCES = {"fairness": "§5.1", "bulk": "§5.2", "transactional": "§5.3"}
#: rfc2884's grid keys that this study holds fixed (one value each).
FIXED = {"variant": "reno", "congestion": "low", "response": "5KB"}
RUNS: dict[str, Callable[[SweepResults], pd.DataFrame]] = {
    "fairness": analysis.fairness_runs,
    "bulk": analysis.bulk_runs,
    "transactional": analysis.transactional_runs,
}
TABLES: dict[str, Callable[[pd.DataFrame], Tables]] = {
    "fairness": summarize.fairness_tables,
    "bulk": summarize.bulk_tables,
    "transactional": summarize.transactional_tables,
}


def kind_of(experiment: str) -> str:
    """``fairness-ecnbg`` → ``fairness``."""
    return experiment.split("-", 1)[0]


def subset(res: SweepResults, kind: str) -> SweepResults:
    """The sweep's results restricted to one experiment's runs (rfc2884's functions read all runs)."""
    runs = res.runs[[kind_of(str(x)) == kind for x in res.runs["experiment"]]]
    names = set(runs["run"])
    return dataclasses.replace(
        res,
        runs=runs.reset_index(drop=True),
        flows=res.flows[res.flows["run"].isin(names)].reset_index(drop=True),
        queues=res.queues[res.queues["run"].isin(names)].reset_index(drop=True),
        derived={},
    )


# --- per run -------------------------------------------------------------------------------------


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per run of every experiment: rfc2884's metrics plus the bottleneck's and the flows' counts."""
    frames = []
    for kind in KINDS:
        sub = subset(res, kind)
        if sub.runs.empty:
            continue
        rows = RUNS[kind](sub)
        extra = pd.DataFrame([_counts(sub.summary(str(r))) for r in rows["run"]])
        rows = pd.concat([rows.reset_index(drop=True), extra], axis=1).assign(kind=kind, **FIXED)
        if kind == "fairness":
            rows["background"] = [str(x).split("-", 1)[1].removesuffix("bg") for x in rows["experiment"]]
        frames.append(rows)
    out = pd.concat(frames, ignore_index=True)
    for side in ("ecn", "nonecn"):  # both ends' timeouts (the simulator counts both)
        if f"timeouts_{side}" in out:
            out[f"timeouts_{side}"] = out[f"both_ends_timeouts_{side}"]
    return out


def _counts(s: dict[str, Any]) -> dict[str, Any]:
    """The bottleneck's signals and the competing flows' marks, drops, retransmits and timeouts."""
    emu = s.get("emulation")
    queues = emu["router"]["final_queues"] if emu else s["queues"]  # emulated: once every packet left
    q = next(x for x in queues if x["link"] == BOTTLENECK)
    link = next(x for x in s["links"] if x["name"] == BOTTLENECK)
    flows = {f["id"]: f for f in s["flows"]}
    row: dict[str, Any] = {
        "marks": q["marks"],
        "drops": q["early_drops"] + q["forced_drops"] + q["overflow_drops"],
        "utilization": link["utilization"],
        "avg_qlen_pkts": next(x for x in s["queues"] if x["link"] == BOTTLENECK)["avg_qlen_pkts"],  # [0, end]
    }
    for side in ("ecn", "nonecn"):
        f = flows[side]
        row[f"ce_{side}"] = f["ce_received"]
        row[f"pkts_dropped_{side}"] = f["pkts_dropped"]
        row[f"retransmits_all_{side}"] = f["retransmits"]
        row[f"both_ends_timeouts_{side}"] = _timeouts(s, f)
    row["lateness_p99_us"] = emu["router"]["lateness"]["p99_us"] if emu else None
    row["warnings"] = len(emu["warnings"]) if emu else 0
    return row


def _timeouts(s: dict[str, Any], f: dict[str, Any]) -> int | None:
    """A flow's retransmission timeouts at both ends: the simulator's count; in an emulation the
    server's (summary: its connections' ``tcpi_total_rto``) plus the client host's ``nstat``."""
    if f["timeouts"] is None:
        return None
    emu = s.get("emulation")
    client = emu["nstat"][f["dst"]]["TcpExtTCPTimeouts"] if emu else 0
    return int(f["timeouts"]) + int(client)


# --- tables and claims ---------------------------------------------------------------------------


def tables(runs: pd.DataFrame) -> Tables:
    """rfc2884's tables of each experiment with an ``engine`` column, the claims, the side-by-side table."""
    out: dict[str, list[pd.DataFrame]] = {}
    for kind in KINDS:
        for engine in ENGINES:
            sel = runs[(runs.kind == kind) & (runs.engine == engine)]
            if sel.empty:
                continue
            for name, t in TABLES[kind](sel):
                out.setdefault(name, []).append(t.assign(engine=engine)[["engine", *t.columns]])
    joined = [(name, pd.concat(ts, ignore_index=True)) for name, ts in out.items()]
    claims_t = claims_table(dict(joined))
    return [("claims", claims_t), ("side_by_side", side_by_side(runs)), *joined, ("runs", runs)]


def engine_claims(t: dict[str, pd.DataFrame]) -> list[Claim]:
    """The RFC's three claims (rfc2884's first claim of each experiment, its rule unchanged) per engine."""
    check: dict[str, Callable[[pd.DataFrame], list[Claim]]] = {
        "fairness": claims.fairness_claims,
        "bulk": claims.bulk_claims,
        "transactional": claims.transactional_claims,
    }
    out = []
    for engine in ENGINES:
        for kind in KINDS:
            if kind not in t:
                continue
            sel = t[kind][t[kind].engine == engine].drop(columns="engine")
            if sel.empty:
                continue
            c = check[kind](sel.reset_index(drop=True))[0]
            text = c.text.replace("20 MB bulk transfers", "bulk transfers")  # 2 MB here (real time)
            out.append(Claim(f"{engine}: {text}", c.verdict, c.reason, c.source or SOURCES[kind]))
    return out


def claims_table(t: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The claims as a table (engine, claim, verdict, reason)."""
    rows = [
        {"engine": c.text.split(": ", 1)[0], "claim": c.text.split(": ", 1)[1], "source": c.source,
         "verdict": c.verdict.value, "reason": c.reason}
        for c in engine_claims(t)
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["engine", "claim", "source", "verdict", "reason"])


#: The numbers the report sets side by side, per experiment.
SIDE_BY_SIDE = {
    "fairness": ("fairness", "goodput_ecn_bps", "goodput_nonecn_bps", "marks", "drops", "ce_ecn",
                 "pkts_dropped_nonecn", "retransmits_all_nonecn", "utilization", "avg_qlen_pkts"),
    "bulk": ("advantage", "goodput_ecn_bps", "goodput_nonecn_bps", "marks", "drops", "ce_ecn", "pkts_dropped_ecn",
             "pkts_dropped_nonecn", "retransmits_ecn", "retransmits_nonecn", "timeouts_ecn", "timeouts_nonecn",
             "avg_qlen_pkts"),
    "transactional": ("gain", "tps_ecn", "tps_nonecn", "marks", "drops", "ce_ecn", "pkts_dropped_ecn",
                      "pkts_dropped_nonecn", "timeouts_ecn", "timeouts_nonecn", "avg_qlen_pkts"),
}  # fmt: skip


def side_by_side(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds: one row per (experiment, max_p, metric), one column per engine."""
    rows = []
    for (exp, maxp), g in runs.groupby(["experiment", "maxp"], sort=False):
        for m in SIDE_BY_SIDE[kind_of(str(exp))]:
            row: dict[str, Any] = {"experiment": exp, "maxp": maxp, "metric": m}
            for engine in ENGINES:
                vals = pd.to_numeric(g[g.engine == engine][m], errors="coerce").dropna()
                row[engine] = float(vals.mean()) if len(vals) else None
            rows.append(row)
    return pd.DataFrame(rows, columns=["experiment", "maxp", "metric", *ENGINES])

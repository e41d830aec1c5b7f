"""Each sender's part of a shared bottleneck, per sweep cell: throughput share, queueing delay, marks, drops.

The one definition (``ecnlab report``'s per-sender section and ``ecnlab bench pairs`` use it):

- **Sender**: one flow record of a run (``flows.parquet``), named by its id.
- **Share**: the flow's goodput after ``warmup`` over the sum of the run's flows' goodput, so a
  run's shares sum to 1 (0 for every flow when nothing was delivered).
- **Queueing delay**: the mean and p99 sojourn, after ``warmup``, of the packets that left the
  part of the run's bottleneck queue (``runs.parquet``'s ``bottleneck``) that the flow's packets
  pass through, from ``sojourn.parquet``'s HDR buckets (each bucket counted at its highest value,
  so within 1 %; p99 by nearest rank): a per-flow queue's (FQ-CoDel) histogram of that flow;
  in a DualPI2 queue its class, ``L`` for a flow that sends ECT(1) (TCP Prague, DCTCP with
  ``dctcp_ect = 1``; RFC 9332 §2.5 classifies ECT(1) and CE to L) and ``C`` otherwise; in any
  other queue the whole queue, which every flow's packets share in one FIFO (the engine keeps
  per-flow histograms only where the queue is per flow).
- **Marks** and **drops**: the flow's ``ce_received_after_warmup`` (its data packets that
  arrived CE-marked) and ``pkts_dropped_after_warmup`` (its packets of either direction dropped
  anywhere on the path); NaN where a record lacks them (emulate's).

:func:`sender_rows` gives one row per run and flow; :func:`sender_cells` averages them over
seeds, one row per sweep cell (its axis values) and flow, in grid order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = ["SENDER_METRICS", "sender_rows", "sender_cells", "flow_class", "bucket_mean_p99"]

#: The per-sender columns, in table order.
SENDER_METRICS = ("share", "goodput_bps", "sojourn_mean_ms", "sojourn_p99_ms", "marks", "drops")


def flow_class(tcp: dict[str, Any]) -> str:
    """The DualPI2 class of a flow's data packets from its resolved TCP: ``L`` for ECT(1), else ``C``."""
    ect1 = tcp.get("cc") == "prague" or (tcp.get("cc") == "dctcp" and tcp.get("dctcp_ect") == 1)
    return "L" if ect1 else "C"


def bucket_mean_p99(values_ns: Any, counts: Any) -> tuple[float, float]:
    """(mean, p99) in ms of an HDR histogram's buckets; NaN for an empty one."""
    import numpy as np

    v = np.asarray(values_ns, dtype="float64")
    c = np.asarray(counts, dtype="float64")
    order = np.argsort(v, kind="stable")
    v, c = v[order], c[order]
    total = float(c.sum())
    if total <= 0:
        return float("nan"), float("nan")
    rank = int(np.searchsorted(np.cumsum(c), 0.99 * total, side="left"))
    return float((v * c).sum() / total) / 1e6, float(v[min(rank, len(v) - 1)]) / 1e6


def _flow_tcp(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each flow id's resolved TCP: its ``[[flows]]`` entry's (``distributions._entry_of``)."""
    from ecnlab.distributions import _entry_of

    scenario_flows = summary["scenario"].get("flows", [])
    entries = [e.get("name") for e in scenario_flows]
    tcp = {e.get("name"): e.get("tcp", {}) for e in scenario_flows}
    return {f["id"]: tcp.get(_entry_of(f["id"], entries), {}) for f in summary["flows"]}


def _sojourn(h: pd.DataFrame, flow: str, tcp: dict[str, Any]) -> tuple[float, float]:
    """The (mean, p99) sojourn of the part of a queue (its histograms ``h``) that ``flow``'s packets pass."""
    part = h[h["flow"] == flow]
    if part.empty:
        whole = h[h["flow"].isna()]
        classed = whole["class"].notna().any()
        part = whole[whole["class"] == flow_class(tcp)] if classed else whole[whole["class"].isna()]
    return bucket_mean_p99(part["value_ns"], part["count"])


def sender_rows(res: SweepResults) -> pd.DataFrame:
    """One row per run and flow: run, seed, the axes, ``flow``, ``cc`` and :data:`SENDER_METRICS`."""
    import pandas as pd

    from ecnlab.distributions import read_sojourn
    from ecnlab.store import RUNS_DIR

    rows = []
    bottleneck = dict(zip(res.runs["run"], res.runs["bottleneck"], strict=True))
    for run, flows in res.flows.groupby("run", sort=False):
        summary = res.summary(str(run))
        tcp = _flow_tcp(summary)
        h = read_sojourn(res.path / RUNS_DIR / str(run))
        h = h[h["link"] == bottleneck[run]]
        total = float(flows["goodput_bps"].sum())
        for f in flows.to_dict("records"):
            fid = str(f["id"])
            mean, p99 = _sojourn(h, fid, tcp.get(fid, {}))
            rows.append(
                {
                    "run": run,
                    "seed": f["seed"],
                    **{a: f[a] for a in res.axes},
                    "flow": fid,
                    "cc": f["cc"],
                    "share": float(f["goodput_bps"]) / total if total > 0 else 0.0,
                    "goodput_bps": float(f["goodput_bps"]),
                    "sojourn_mean_ms": mean,
                    "sojourn_p99_ms": p99,
                    "marks": _count(f.get("ce_received_after_warmup")),
                    "drops": _count(f.get("pkts_dropped_after_warmup")),
                }
            )
    return pd.DataFrame(rows, columns=["run", "seed", *res.axes, "flow", "cc", *SENDER_METRICS])


def _count(value: Any) -> float:
    """A counter of a flow record; NaN where the record has none (emulate's records count no marks after warmup)."""
    return float("nan") if value is None else float(value)


def sender_cells(res: SweepResults) -> pd.DataFrame:
    """:func:`sender_rows` averaged over seeds: one row per cell and flow (``n``: its runs), in grid order."""
    rows = sender_rows(res)
    keys = [*res.axes, "flow", "cc"]
    grouped = rows.groupby(keys, sort=False, dropna=False)
    cells = grouped[list(SENDER_METRICS)].mean()
    cells.insert(0, "n", grouped.size())
    return cells.reset_index()

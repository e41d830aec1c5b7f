"""RFC 2884's three questions asked of today's stacks and queues: per-run rows, cells, claims, answer.

Per run (:func:`runs`): the seed study's own metric for the part (``rfc2884.analysis``:
Jain's index, the bulk advantage, transactions per second) plus what the
bottleneck R1 -> R2 did over the run: utilization, mean queue, sojourn p50 / p99,
marks and drops, and the drops of SYN-ACKs (Not-ECT even on ECN connections,
RFC 3168 §6.1.1), which cost a transaction Linux's 1 s initial RTO.

Cells (:func:`cells`): mean and 95 % interval per (stack, aqm[, congestion[, response]]).

Claims: the RFC's statements, with rules fixed before the runs were read:

- *fairness* — "ECN or non-ECN background flows do not bias fairness": per (stack, aqm)
  the two backgrounds' 95 % intervals of Jain's index overlap;
  "the four flows share fairly": Jain's index ≥ ``FAIR`` at every (stack, aqm, background);
- *bulk* — "ECN gives 20 MB transfers more goodput": mean advantage > 0 per grid point,
  once for the seed's stack with RED (the RFC's case) and once for today's stacks with
  today's queues;
- *transactional* — "ECN raises the transactions per second": mean gain > 0 per grid
  point, split the same way.

The answer (:func:`answer`) puts each part's numbers for today's Linux CUBIC in a sentence per
queue; it is generated from the cells, never typed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict
from ecnlab.experiments.framework import cells as framework_cells
from ecnlab.experiments.rfc2884 import analysis as seed

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["KINDS", "METRIC", "runs", "cells", "claims", "answer"]

KINDS = ("fairness", "bulk", "transactional")
#: The part's own metric (the seed study's), and the axes of its grid besides stack and aqm.
METRIC = {"fairness": "fairness", "bulk": "advantage", "transactional": "gain"}
EXTRA_KEYS = {"fairness": ["background"], "bulk": ["congestion"], "transactional": ["congestion", "response"]}
SEED_STACK, SEED_AQM = "reno-1999", "red"
TODAY = "cubic-linux"
FAIR = 0.95  # Jain's index of four flows: one flow at 70 % of the others' rate gives 0.98; half gives 0.91
BOTTLENECK_KEYS = ["utilization", "avg_qlen_pkts", "sojourn_p50_ms", "sojourn_p99_ms", "marks", "drops_synack"]
EXTRA_METRICS = {
    "fairness": ["goodput_ecn_bps", "goodput_nonecn_bps", "marks_ecn", "drops_nonecn"],
    "bulk": ["goodput_ecn_bps", "goodput_nonecn_bps", "timeouts_ecn", "timeouts_nonecn", "dropped_ecn"],
    "transactional": ["tps_ecn", "tps_nonecn", "timeouts_ecn", "timeouts_nonecn", "dropped_ecn"],
}
SEED_RUNS = {"fairness": seed.fairness_runs, "bulk": seed.bulk_runs, "transactional": seed.transactional_runs}


def _bottleneck(res: SweepResults) -> pd.DataFrame:
    q = res.queues[res.queues["link"] == seed.BOTTLENECK].copy()
    q["drops"] = q["early_drops"] + q["forced_drops"] + q["overflow_drops"]  # early_drops counts dequeue drops too
    return q[["run", *BOTTLENECK_KEYS, "drops"]]


def runs(kind: str, res: SweepResults) -> pd.DataFrame:
    """One row per run: the seed's metric for ``kind`` and the bottleneck's numbers."""
    rows = SEED_RUNS[kind](res)
    rows = rows.drop(columns=[c for c in rows.columns if c.startswith("share_") or c in ("min_th", "max_th")])
    return rows.merge(_bottleneck(res), on="run", how="left")


def keys(kind: str) -> list[str]:
    return ["stack", "aqm", *EXTRA_KEYS[kind]]


def cells(kind: str, r: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % interval per grid point of the part's metric, its companions and the bottleneck's."""
    metrics = [METRIC[kind], *EXTRA_METRICS[kind], *BOTTLENECK_KEYS, "drops"]
    return framework_cells(r, keys(kind), metrics)


def _positive(c: pd.DataFrame, metric: str, text: str, source: str, where: str) -> Claim:
    pos = c[metric] > 0
    worst = c.loc[c[metric].idxmin()] if len(c) else None
    reason = f"{where}: mean > 0 at {int(pos.sum())} of {len(pos)} grid points"
    if worst is not None:
        at = ", ".join(str(worst[k]) for k in c.columns[: c.columns.get_loc("n")])
        reason += f"; lowest {100 * worst[metric]:+.0f} % ({at})"
    return Claim(text, Verdict.of_share(int(pos.sum()), len(pos)), reason, source)


def _split(c: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The RFC's own case (the seed's stack through RED) and today's (Linux stacks, today's queues)."""
    seed_case = c[(c["stack"] == SEED_STACK) & (c.aqm == SEED_AQM)]
    today = c[(c["stack"] != SEED_STACK) & (c.aqm != SEED_AQM)]
    return seed_case, today


def _fairness_claims(c: pd.DataFrame) -> list[Claim]:
    both = c.pivot_table(index=["stack", "aqm"], columns="background", values=["fairness", "fairness_ci95"])
    if both["fairness"].shape[1] != 2:
        bias = Claim("ECN or non-ECN background flows do not bias fairness", Verdict.NOT_RUN, "one background only")
    else:
        gap = (both["fairness"].max(axis=1) - both["fairness"].min(axis=1)).abs()
        ok = gap <= both["fairness_ci95"].sum(axis=1)
        worst = gap.idxmax()
        bias = Claim(
            "ECN or non-ECN background flows do not bias fairness",
            Verdict.of_share(int(ok.sum()), len(ok)),
            f"95 % intervals overlap at {int(ok.sum())} of {len(ok)} stack × queue pairs; "
            f"largest gap {gap.max():.3f} ({' / '.join(worst)})",
            "§5.1",
        )
    fair = c.fairness >= FAIR
    low = c.loc[c.fairness.idxmin()]
    share = Claim(
        f"The four flows share the link fairly (Jain's index ≥ {FAIR})",
        Verdict.of_share(int(fair.sum()), len(fair)),
        f"{int(fair.sum())} of {len(fair)} points; lowest {low.fairness:.3f} ({low['stack']}, {low.aqm}, "
        f"background {low.background})",
        "§5.1",
    )
    return [bias, share]


def claims(kind: str, c: pd.DataFrame) -> list[Claim]:
    """The RFC's statement for ``kind`` on the seed's case and on today's (rules: module docstring)."""
    if kind == "fairness":
        return _fairness_claims(c)
    seed_case, today = _split(c)
    text = {
        "bulk": "ECN gives 20 MB bulk transfers more goodput than non-ECN",
        "transactional": "ECN raises the transactions per second of TCP_CRR clients",
    }[kind]
    source = {"bulk": "§5.2", "transactional": "§5.3"}[kind]
    return [
        _positive(seed_case, METRIC[kind], f"{text} (the RFC's Reno through RED)", source, "reno-1999, RED"),
        _positive(today, METRIC[kind], f"{text} (Linux Reno and CUBIC through FQ-CoDel, PIE, DualPI2)", source,
                  "reno-linux and cubic-linux, fq_codel / pie / dualpi2"),
    ]  # fmt: skip


def _pct(x: float, ci: float) -> str:
    return f"{100 * x:+.0f} ± {100 * ci:.0f} %"


def _sentence(kind: str, c: pd.DataFrame, aqm: str) -> str:
    d = c[(c["stack"] == TODAY) & (c.aqm == aqm)]
    if d.empty:
        return f"{aqm}: not run"
    m = METRIC[kind]
    if kind == "fairness":
        vals = ", ".join(f"{b} background {x:.3f}" for b, x in zip(d.background, d[m], strict=True))
        return f"{aqm}: Jain's index {vals}; sojourn p99 {d.sojourn_p99_ms.mean():.0f} ms"
    parts = [f"{' '.join(str(r[k]) for k in EXTRA_KEYS[kind])} {_pct(r[m], r[f'{m}_ci95'])}" for _, r in d.iterrows()]
    pos = int((d[m] > 0).sum())
    verdict = "ECN wins" if pos == len(d) else "ECN loses" if pos == 0 else f"ECN wins at {pos} of {len(d)}"
    t_e, t_n = d.timeouts_ecn.mean(), d.timeouts_nonecn.mean()
    return f"{aqm}: {verdict} ({'; '.join(parts)}); timeouts per run ECN {t_e:.0f}, non-ECN {t_n:.0f}"


def answer(kind: str, c: pd.DataFrame) -> str:
    """The seed's question asked today in plain words: Linux CUBIC through each queue, from the cells."""
    question = {
        "fairness": "Does the choice of ECN or non-ECN background flows bias fairness?",
        "bulk": "Do ECN bulk transfers finish sooner than non-ECN ones?",
        "transactional": "Do ECN clients complete more short transactions per second?",
    }[kind]
    aqms = list(dict.fromkeys(c.aqm))
    lines = [f"**{question}** With today's Linux CUBIC (the `linux` TCP personality) at 1.5 Mbit/s:", ""]
    lines += [f"- {_sentence(kind, c, a)}" for a in aqms]
    return "\n".join(lines)

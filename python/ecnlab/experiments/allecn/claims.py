"""The all-ECN paper's conclusions as the framework's claims, checked on the per-cell table.

Rules fixed before reading results (docs/experiments/allecn.md):

- "ECN wastes less than DT": ECN's mean below DT's in a (clients, delay, QL)
  cell; the verdict counts the cells where it is;
- the rule of thumb (§4.2, §5): ECN at QL no worse than DT at 2·QL, per cell
  of the ``rule_of_thumb_*`` tables;
- a relative reduction the paper prints is matched when ecnlab's is within
  ``REDUCTION_MATCH`` of it (relative).
"""

from __future__ import annotations

import math

import pandas as pd

from ecnlab.experiments.framework import Claim, PaperValue, Verdict

__all__ = ["claims", "REDUCTION_MATCH"]

REDUCTION_MATCH = 0.5

_WHAT = {
    "network_overhead_pct": "packets sent beyond the minimum (network overhead)",
    "receiver_overhead_pct": "duplicate packets reaching the clients (receiver overhead)",
    "acks_per_transfer": "ACKs per transfer",
}


def ecn_below_dt(cells: pd.DataFrame, metric: str, source: str) -> Claim:
    """ECN's mean below DT's in each (n, d, QL) cell that has both."""
    wide = cells.pivot_table(index=["n", "d_ms", "ql"], columns="scheme", values=metric)
    if not {"DT", "ECN"} <= set(wide.columns):
        return Claim(f"ECN lowers {_WHAT[metric]} against Drop-Tail", Verdict.NOT_RUN, "needs DT and ECN cells", source)
    ok = wide.ECN < wide.DT
    reason = (
        f"ECN below DT in {int(ok.sum())} of {len(ok)} cells; mean over cells ECN {wide.ECN.mean():.3g}, "
        f"DT {wide.DT.mean():.3g}"
    )
    return Claim(
        f"ECN lowers {_WHAT[metric]} against Drop-Tail", Verdict.of_share(int(ok.sum()), len(ok)), reason, source
    )


def rule_of_thumb(table: pd.DataFrame, metric: str) -> Claim:
    """ECN at QL no worse than DT at 2·QL (the ``rule_of_thumb_*`` table)."""
    text = f"ECN at a buffer QL gives {_WHAT[metric]} no higher than Drop-Tail at 2·QL"
    if table.empty:
        return Claim(text, Verdict.NOT_RUN, "the grid has no QL with DT at 2·QL", "§4.2, §5")
    ok = table["ECN<=DT@2QL"].astype(bool)
    return Claim(
        text, Verdict.of_share(int(ok.sum()), len(ok)), f"holds in {int(ok.sum())} of {len(ok)} cells", "§4.2, §5"
    )


def reductions(paper: pd.DataFrame) -> Claim:
    """The paper's printed ECN-vs-DT reductions beside ecnlab's."""
    rows = paper[paper.scheme == "ECN/DT"]
    values = [
        PaperValue(f"{r.metric} n={r.n} d={r.d_ms}ms QL={r.ql}", float(r.paper), str(r.paper_where), float(r.ecnlab))
        for r in rows.itertuples(index=False)
    ]
    oks = [v.within(REDUCTION_MATCH) for v in values]
    k, n = sum(bool(x) for x in oks), sum(x is not None for x in oks)
    shown = "; ".join(
        f"{v.name}: paper {v.paper:.0f} %, ecnlab {'n/a' if math.isnan(v.ecnlab) else f'{v.ecnlab:.0f} %'}"
        for v in values[:3]
    )
    return Claim(
        "ECN's reductions against Drop-Tail are as large as the paper prints",
        Verdict.of_share(k, n),
        f"{k} of {n} within {REDUCTION_MATCH:.0%}" + (f"; {shown}" if shown else ""),
        "§4.2–4.6",
    )


def claims(tables: dict[str, pd.DataFrame], study: str) -> list[Claim]:
    """The claims of ``allecn`` (no errors) or ``allecn-errors``, from its tables."""
    cells = tables["cells"]
    out = [
        ecn_below_dt(cells, "network_overhead_pct", "§4.2"),
        rule_of_thumb(tables["rule_of_thumb_overhead"], "network_overhead_pct"),
    ]
    if study == "allecn-errors":
        out += [ecn_below_dt(cells, "receiver_overhead_pct", "§4.4"), ecn_below_dt(cells, "acks_per_transfer", "§4.6")]
    return [*out, reductions(tables["paper_vs_ecnlab"])]

"""RFC 2884's claims in the framework's shape (``framework.Claim``), from the summary tables: the
same numbers ``report.py`` writes about, checked."""

from __future__ import annotations

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict

__all__ = ["claims"]

Tables = list[tuple[str, pd.DataFrame]]


def _fairness(t: pd.DataFrame) -> list[Claim]:
    both = t.pivot_table(index="maxp", columns="background", values="fairness")
    gaps = (both.max(axis=1) - both.min(axis=1)) if both.shape[1] == 2 else pd.Series(dtype=float)
    small = int((gaps <= 0.05).sum())
    drops, marks = float(t["drops_nonecn"].sum()), float(t["marks_ecn"].sum())
    ratio = drops / marks if marks else float("nan")
    return [
        Claim(
            "The kind of background flow (ECN or not) does not bias fairness",
            "§5.1",
            Verdict.of_count(small, len(gaps)),
            "largest Jain-index difference between backgrounds per max_p (≤ 0.05 counts): "
            + ", ".join(f"{m:g}: {g:.3f}" for m, g in gaps.items()),
        ),
        Claim(
            "RED drops as many packets of the non-ECN flow as it marks of the ECN one",
            "§5.1",
            Verdict.HOLDS if 2 / 3 <= ratio <= 3 / 2 else Verdict.DOES_NOT_HOLD,
            f"dropped non-ECN / marked ECN over the grid: {ratio:.2f} (within 2/3–3/2 counts)",
        ),
    ]


def _bulk(t: pd.DataFrame) -> list[Claim]:
    pos = int((t["advantage"] > 0).sum())
    reno = t[(t["variant"] == "reno") & (t["maxp"] == 0.1)]
    by_c = [float(reno[reno["congestion"] == c]["advantage"].mean()) for c in ("low", "moderate", "high")]
    rising = all(b > a for a, b in zip(by_c, by_c[1:], strict=False))
    return [
        Claim(
            "ECN gives a bulk transfer more throughput than a non-ECN one",
            "§5.2",
            Verdict.of_count(pos, len(t)),
            f"relative advantage > 0 in {pos} of {len(t)} cells (mean {t['advantage'].mean():+.0%})",
        ),
        Claim(
            "The advantage grows with congestion (Reno, max_p 0.1: 23 % → 50 %)",
            "§5.2",
            Verdict.HOLDS if rising else Verdict.DOES_NOT_HOLD,
            "Reno at max_p 0.1, low/moderate/high: " + ", ".join(f"{x:+.0%}" for x in by_c),
        ),
    ]


def _transactional(t: pd.DataFrame) -> list[Claim]:
    pos = int((t["gain"] > 0).sum())
    parts, shrinking, variants = [], 0, list(dict.fromkeys(t["variant"]))
    sizes = list(dict.fromkeys(t["response"]))
    for v in variants:
        by_size = [float(t[(t["variant"] == v) & (t["response"] == r)]["gain"].mean()) for r in sizes]
        shrinking += by_size[0] > by_size[-1]
        parts.append(f"{v}: " + ", ".join(f"{r} {g:+.0%}" for r, g in zip(sizes, by_size, strict=True)))
    return [
        Claim(
            "ECN raises the transactions per second of short request/response transfers",
            "§5.3",
            Verdict.of_count(pos, len(t)),
            f"gain > 0 in {pos} of {len(t)} cells (mean {t['gain'].mean():+.0%})",
        ),
        Claim(
            "The gain shrinks as the response grows",
            "§5.3",
            Verdict.of_count(shrinking, len(variants)),
            "mean gain by response size: " + "; ".join(parts),
        ),
    ]


def claims(kind: str, tables: Tables) -> list[Claim]:
    t = dict(tables)[kind]
    return {"fairness": _fairness, "bulk": _bulk, "transactional": _transactional}[kind](t)

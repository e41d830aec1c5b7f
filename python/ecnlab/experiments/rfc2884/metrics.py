"""The metrics RFC 2884 reports, as small pure functions.

- Jain's fairness index (RFC 2884 §5.1, after Jain 1991):
  f(x1..xn) = (Σ xi)² / (n · Σ xi²), over the throughputs of *all* flows.
- Relative ECN advantage (§5.2, §5.3): (g_ECN − g_nonECN) / g_nonECN, of
  goodput (bulk) or of transactions per second (transactional).
- Transaction rate (§5.3): complete request/response transactions per second.
- Mean and 95 % confidence interval over seeds (Student t; the paper repeats
  each point 10 times and reports means): the framework's ``mean_ci95``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ecnlab.experiments.framework import T95, mean_ci95

__all__ = ["jain_index", "relative_advantage", "transaction_rate", "mean_ci95", "T95"]


def jain_index(throughputs: Sequence[float]) -> float:
    """(Σx)² / (n·Σx²); 1 when all are equal, 1/n when one flow has everything."""
    xs = [float(x) for x in throughputs]
    if not xs:
        raise ValueError("jain_index: no throughputs")
    if any(x < 0 or math.isnan(x) for x in xs):
        raise ValueError(f"jain_index: throughputs must be >= 0, got {xs}")
    sq = sum(x * x for x in xs)
    if sq == 0:
        return 1.0  # all zero: nobody is treated worse than anybody else
    return sum(xs) ** 2 / (len(xs) * sq)


def relative_advantage(ecn: float, non_ecn: float) -> float:
    """(g_ECN − g_nonECN) / g_nonECN; +inf when the non-ECN flow got nothing and ECN did."""
    if non_ecn < 0 or ecn < 0:
        raise ValueError(f"relative_advantage: values must be >= 0, got {ecn}, {non_ecn}")
    if non_ecn == 0:
        return 0.0 if ecn == 0 else math.inf
    return (ecn - non_ecn) / non_ecn


def transaction_rate(transactions: int, seconds: float) -> float:
    """Complete transactions per second over a measuring period."""
    if seconds <= 0:
        raise ValueError(f"transaction_rate: seconds = {seconds}: must be > 0")
    return transactions / seconds

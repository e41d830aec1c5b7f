"""The interval a figure draws around a mean over seeds: Student's t, clipped to the quantity's
physical range.

Over the n values of one point (one per seed): the mean m, the sample standard deviation s and
the half-width h = t(0.975, n−1)·s/√n; the interval is [max(m − h, low), min(m + h, high)] with
``low``/``high`` the quantity's physical range (``quantities.py``): a count has no negative
values, a utilisation none above 100 %, so an interval from a few seeds that runs past them is
cut there, and the caption says so. A point from one seed has no interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Interval", "interval", "t_critical", "METHOD"]

METHOD = "95 % Student-t interval"

# Two-sided 95 % Student t critical values t(0.975, df), df = 1..30 (standard tables).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959964


def t_critical(df: int) -> float:
    """t(0.975, df): the table for df ≤ 30, a Cornish-Fisher expansion beyond (error < 1e-4)."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` values, the t half-width ``half`` (NaN for n < 2) and the interval
    [``lo``, ``hi``] after clipping (``lo`` = ``hi`` = mean for n < 2); ``clipped``: a bound cut it."""

    mean: float
    half: float
    lo: float
    hi: float
    n: int
    clipped: bool


def interval(values: Sequence[float], low: float | None = None, high: float | None = None) -> Interval:
    """The mean of ``values`` (NaN ignored) and its t interval clipped to [``low``, ``high``]."""
    vals = [float(v) for v in values if not math.isnan(float(v))]
    n = len(vals)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, 0, False)
    mean = sum(vals) / n
    if n < 2:
        return Interval(mean, math.nan, mean, mean, n, False)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    half = t_critical(n - 1) * sd / math.sqrt(n)
    lo, hi = mean - half, mean + half
    clipped = (low is not None and lo < low) or (high is not None and hi > high)
    if low is not None:
        lo = max(lo, low)
    if high is not None:
        hi = min(hi, high)
    return Interval(mean, half, lo, hi, n, clipped)

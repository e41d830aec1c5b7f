"""What a result column measures, as figures name it: the quantity, its unit, the scale to that
unit, its physical range, and (for a column of ``runs.parquet``) where in the network it was taken.

One label style for every figure: the axis says ``quantity (unit)``, the title adds where
(``at the bottleneck``, ``at R1->R2``, ``of flow reno_1``) and the caption over what (seeds).

Physical ranges (in the stored unit, before scaling): utilisation, fairness, probabilities and
fractions lie in [0, 1]; rates, times, delays, lengths, byte and packet counts are ≥ 0 (a column
whose name ends in ``_bps``, ``_s``, ``_ms``, ``_pkts`` or ``_bytes``); so is every column of
whole numbers (every integer column of the results tables is a counter). Anything else has no
known range.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Quantity", "quantity", "RUN_SCOPE"]


@dataclass(frozen=True)
class Quantity:
    """How a figure shows one column."""

    what: str  # "p99 queue delay"
    unit: str  # "ms"; "" when the quantity has none
    scale: float  # stored value x scale = value in unit
    low: float | None  # physical range in the stored unit; None: unbounded on that side
    high: float | None

    @property
    def label(self) -> str:
        """``quantity (unit)``, the axis label."""
        return f"{self.what} ({self.unit})" if self.unit else self.what

    def range_text(self) -> str:
        """The physical range in the shown unit: ``[0, 100] %``, ``≥ 0``, or '' when unknown."""
        if self.low is None and self.high is None:
            return ""
        lo = _num(self.low * self.scale) if self.low is not None else "−∞"
        if self.high is None:
            return f"≥ {lo}"
        unit = f" {self.unit}" if self.unit in ("%",) else ""
        return f"[{lo}, {_num(self.high * self.scale)}]{unit}"


def _num(v: float) -> str:
    return f"{v:g}"


_UNIT = (0.0, 1.0)
_NONNEG = (0.0, None)

# column -> (quantity, unit, scale, (low, high))
_KNOWN: dict[str, tuple[str, str, float, tuple[float | None, float | None]]] = {
    "goodput_bps": ("goodput", "Mbit/s", 1e-6, _NONNEG),
    "goodput_total_bps": ("total goodput", "Mbit/s", 1e-6, _NONNEG),
    "utilization": ("utilisation", "%", 100.0, _UNIT),
    "marks": ("CE marks", "packets", 1.0, _NONNEG),
    "early_drops": ("early drops", "packets", 1.0, _NONNEG),
    "forced_drops": ("forced drops", "packets", 1.0, _NONNEG),
    "overflow_drops": ("overflow drops", "packets", 1.0, _NONNEG),
    "drops": ("drops", "packets", 1.0, _NONNEG),
    "avg_qlen_pkts": ("mean queue length", "packets", 1.0, _NONNEG),
    "max_qlen_pkts": ("largest queue length", "packets", 1.0, _NONNEG),
    "sojourn_p50_ms": ("median queue delay", "ms", 1.0, _NONNEG),
    "sojourn_p90_ms": ("p90 queue delay", "ms", 1.0, _NONNEG),
    "sojourn_p99_ms": ("p99 queue delay", "ms", 1.0, _NONNEG),
    "sojourn_p999_ms": ("p99.9 queue delay", "ms", 1.0, _NONNEG),
    "sojourn_max_ms": ("largest queue delay", "ms", 1.0, _NONNEG),
    "sojourn_mean_ms": ("mean queue delay", "ms", 1.0, _NONNEG),
    "fairness": ("Jain's fairness index", "", 1.0, _UNIT),
    "retransmits": ("retransmitted packets", "packets", 1.0, _NONNEG),
    "fast_retransmits": ("fast retransmits", "count", 1.0, _NONNEG),
    "timeouts": ("retransmission timeouts", "count", 1.0, _NONNEG),
    "ecn_reductions": ("ECN window reductions", "count", 1.0, _NONNEG),
    "transactions": ("transactions", "count", 1.0, _NONNEG),
    "completion_time_s": ("completion time", "s", 1.0, _NONNEG),
    "bytes_delivered": ("bytes delivered", "MB", 1e-6, _NONNEG),
    "max_p": ("max_p", "probability", 1.0, _UNIT),
    "prob": ("AQM probability", "", 1.0, _UNIT),
    "dctcp_alpha": ("DCTCP α", "", 1.0, _UNIT),
}
_AFTER = "_after_warmup"
_SUFFIXES = (("_bps", "bit/s"), ("_ms", "ms"), ("_s", "s"), ("_pkts", "packets"), ("_bytes", "bytes"))
_FRACTION_WORDS = ("fraction", "share")

# runs.parquet columns taken at one place, or summed over flows: where the title says they come from.
_BOTTLENECK = (
    "utilization marks early_drops forced_drops overflow_drops drops avg_qlen_pkts max_qlen_pkts "
    "sojourn_p50_ms sojourn_p99_ms sojourn_p999_ms marks_after_warmup drops_after_warmup"
).split()
_ALL_FLOWS = (
    "goodput_total_bps retransmits fast_retransmits timeouts ecn_reductions transactions "
    "retransmits_after_warmup timeouts_after_warmup ecn_reductions_after_warmup"
).split()
RUN_SCOPE = {
    **{c: "at the bottleneck" for c in _BOTTLENECK},
    **{c: "over all flows" for c in _ALL_FLOWS},
    "fairness": "over the bulk flows",
    "completion_time_s": "of the last flow",
}


def quantity(column: str, *, integer: bool = False, table: str = "runs") -> Quantity:
    """How to show ``column`` (of ``table``); ``integer``: the column holds whole numbers (a counter).
    A count after the warm-up (``drops_after_warmup``) is its whole-run quantity, ``after warmup``."""
    if column.endswith(_AFTER) and column.removesuffix(_AFTER) in _KNOWN:
        q = quantity(column.removesuffix(_AFTER), integer=integer, table=table)
        return Quantity(f"{q.what} after warmup", q.unit, q.scale, q.low, q.high)
    if column in _KNOWN:
        what, unit, scale, (low, high) = _KNOWN[column]
        if table == "runs" and column == "goodput_bps":
            what = "mean goodput per flow"
        return Quantity(what, unit, scale, low, high)
    if any(w in column for w in _FRACTION_WORDS):
        return Quantity(column, "", 1.0, 0.0, 1.0)
    for suffix, unit in _SUFFIXES:
        if column.endswith(suffix):
            return Quantity(column, unit, 1.0, 0.0, None)
    return Quantity(column, "count" if integer else "", 1.0, 0.0 if integer else None, None)

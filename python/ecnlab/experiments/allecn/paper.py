"""Every number the paper gives for this study, with where it says it: K. Pentikousis and H. Badr, "On the
Resource Efficiency of Explicit Congestion Notification", NETWORKING 2002, LNCS 2345, pp. 588-599.

Each entry names the study (``allecn`` or ``allecn-errors``), the metric (a
column of the per-cell table, see :mod:`.metrics`), the cell (n clients, d in
ms, scheme, QL in packets) and the paper's value. ``None`` in ``d_ms`` means
the paper does not say which of its two delays (2 or 20 ms) the number is for.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PaperNumber", "PAPER", "PAPER_MIN_PACKETS", "RED_TABLE", "red_thresholds"]


@dataclass(frozen=True)
class PaperNumber:
    study: str
    metric: str
    n: int
    d_ms: int | None
    scheme: str
    ql: int
    value: float
    where: str


# The paper's overheads imply 70 packets per transfer: 1960 excess packets are
# 10.18 % of 19 250 = 275 transfers x 70 (and 535 / 19 250 = 2.78 %), so the
# 10.18 / 7.32 / 2.78 % of section 4.2 are the 25-client case. ecnlab counts
# ceil(102 400 / 1460) = 71 (metrics.py).
PAPER_MIN_PACKETS = 70

_S42 = "4.2 (Fig. 4), d = 20 ms"
PAPER: tuple[PaperNumber, ...] = (
    PaperNumber("allecn", "network_overhead_pct", 25, 20, "DT", 64, 10.18, _S42),
    PaperNumber("allecn", "network_overhead_pct", 25, 20, "RED", 64, 7.32, _S42),
    PaperNumber("allecn", "network_overhead_pct", 25, 20, "ECN", 64, 2.78, _S42),
    PaperNumber("allecn", "excess_packets", 10, 20, "DT", 64, 445, _S42),
    PaperNumber("allecn", "excess_packets", 10, 20, "ECN", 64, 149, _S42),
    PaperNumber("allecn", "excess_packets", 25, 20, "DT", 64, 1960, _S42),
    PaperNumber("allecn", "excess_packets", 25, 20, "ECN", 64, 535, _S42),
    PaperNumber("allecn-errors", "receiver_overhead_pct", 25, None, "DT", 128, 3.07, "4.4 (Fig. 5)"),
    PaperNumber("allecn-errors", "receiver_overhead_pct", 25, None, "RED", 128, 0.87, "4.4 (Fig. 5)"),
    PaperNumber("allecn-errors", "receiver_overhead_pct", 25, None, "ECN", 128, 0.56, "4.4 (Fig. 5)"),
    PaperNumber("allecn-errors", "acks_per_transfer", 25, 2, "DT", 128, 54, "4.6 (Fig. 7): 'almost 54'"),
    PaperNumber("allecn-errors", "acks_per_transfer", 25, 2, "ECN", 128, 44, "4.6 (Fig. 7): 'approximately 44'"),
)

# Relative statements (ECN vs DT in the same cell), in % reduction of the metric.
RELATIVE: tuple[tuple[str, str, int, int | None, int, float, str], ...] = (
    ("allecn", "excess_packets", 10, 20, 64, 66.0, "4.2: 445 vs 149"),
    ("allecn", "excess_packets", 25, 20, 64, 72.0, "4.2: 1960 vs 535"),
    ("allecn-errors", "receiver_overhead_pct", 25, None, 128, 82.0, "4.4: 'almost 82%'"),
    ("allecn-errors", "acks_per_transfer", 25, 2, 128, 15.0, "4.6: 54 vs 44, 'a reduction of 15%'"),
    ("allecn-errors", "acks_per_transfer", 25, 2, 64, 10.0, "4.6: 'at QL = 64 ... 10% fewer ACKs'"),
)

# Table 1 of the paper: QL -> (min_th, max_th) in packets.
RED_TABLE = {16: (5, 15), 32: (10, 30), 64: (20, 60), 128: (40, 120)}


def red_thresholds(ql: int) -> tuple[float, float]:
    """Table 1's row for QL, or the rule every row follows: (5/16 QL, 15/16 QL).

    The paper has no row for QL = 8 (section 3.2 lists QL "from 8 to 128");
    every row of Table 1 is min_th = 5·QL/16, max_th = 3·min_th = 15·QL/16, so
    QL = 8 gets 2.5 / 7.5 packets.
    """
    if ql in RED_TABLE:
        return float(RED_TABLE[ql][0]), float(RED_TABLE[ql][1])
    return 5 * ql / 16, 15 * ql / 16

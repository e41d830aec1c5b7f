"""The all-ECN study's claims in the framework's shape (``framework.Claim``), from its cells table."""

from __future__ import annotations

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict

__all__ = ["claims"]


def _ordered(cells: pd.DataFrame, metric: str) -> tuple[int, int, list[str]]:
    """Cells (n, d, QL) where ECN < RED < DT in ``metric``; the count, the total and the numbers."""
    k, n, parts = 0, 0, []
    for (nc, d, ql), g in cells.groupby(["n", "d_ms", "ql"], sort=True, observed=True):
        sel = g.set_index("scheme")[metric]
        if not {"DT", "RED", "ECN"} <= set(map(str, sel.index)):
            continue
        dt, red, ecn = (float(sel[s]) for s in ("DT", "RED", "ECN"))
        n += 1
        k += ecn < red < dt
        parts.append(f"{nc} clients, d {d:g} ms, QL {ql}: {dt:.2f}/{red:.2f}/{ecn:.2f}")
    return k, n, parts


def claims(tables: list[tuple[str, pd.DataFrame]], study: str) -> list[Claim]:
    cells = dict(tables)["cells"]
    where = "§4.2" if study == "allecn" else "§4.3"
    k, n, parts = _ordered(cells, "network_overhead_pct")
    kr, nr, parts_r = _ordered(cells, "receiver_overhead_pct")
    return [
        Claim(
            "Network overhead (packets sent beyond the minimum): ECN < RED < Drop-Tail",
            where,
            Verdict.of_count(k, n),
            "DT/RED/ECN %: " + "; ".join(parts),
        ),
        Claim(
            "Receiver overhead (packets received beyond the minimum): ECN < RED < Drop-Tail",
            where,
            Verdict.of_count(kr, nr),
            "DT/RED/ECN %: " + "; ".join(parts_r),
        ),
    ]

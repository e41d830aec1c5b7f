"""Tables and claims of the Prague fallback part of ``ecnlab reproduce l4s`` (``l4s-fallback``).

After "Reproducing and Solving a Fallback Issue in TCP Prague" (2025): TCP Prague 0.6 with its
classic-ECN fallback on, unfixed and with the ×16 fix, beside CUBIC through DualPI2 on the study's
reproduce and extend grids (``fallback_grid.py``). Per run: each flow's goodput after the warm-up as
a share of the bottleneck rate (the study's iperf3 ``bits_per_second`` over the rate), the L and C
queues' sojourn p99 and the bottleneck's drops. Per cell: means over seeds with 95 % intervals,
beside the study's shares (``fallback_paper.py``).

Claims, their rules fixed before the runs (``n`` the cells run; a share below 0.25 is under half
of the fair share):

1. Unfixed, Prague starves at 100 Mbit/s, 10 ms at every buffer: Prague's share < 0.25, per
   reproduce cell (holds when every cell does, partly when some do).
2. Unfixed, Prague starves across the extend grid: Prague's share < 0.25 in at least 5/6 of the
   extend cells (10 of 12) holds, in some partly, in none does not hold. The study's own
   shares meet it in 11 of 12.
3. The fix raises Prague's share: fixed − unfixed > 0.05, per cell.
4. With the fix, ecnlab's share is the study's: within ±0.1 of its CSV value, per cell.
5. Unfixed, ecnlab's share is the study's: within ±0.1 of its CSV value, per cell.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict
from ecnlab.experiments.framework import cells as mean_cells
from ecnlab.experiments.l4s.fallback_grid import cell
from ecnlab.experiments.l4s.fallback_paper import paper_table

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["per_run", "cells", "claims", "STARVED", "RAISED", "WITHIN"]

BOTTLENECK = "R1->R2"
KEYS = ["grid", "cell", "rate_mbit", "rtt_ms", "bdp", "fix"]
METRICS = ["prague_share", "cubic_share", "l_p99_ms", "c_p99_ms", "drops"]
STARVED = 0.25  # Prague's share below half its fair share
MOST = 5 / 6  # claim 2: 10 of the study's 12 extend cells
RAISED = 0.05  # claim 3: the fix's gain in share
WITHIN = 0.1  # claims 4 and 5: ± share of the study's


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per run: the cell, the fix, each flow's share of the rate, the L/C p99, drops."""
    rows = []
    for r in res.runs.itertuples():
        c = cell(str(r.cell))
        s = res.summary(str(r.run))
        bps = {f["id"]: f["goodput_bps"] for f in s["flows"]}
        (q,) = (q for q in s["queues"] if q["link"] == BOTTLENECK)
        p99 = {k["name"]: k["sojourn"]["p99_ms"] for k in q.get("classes", [])}
        rate = c.rate_mbit * 1e6
        rows.append(
            {
                "grid": c.grid,
                "cell": c.label,
                "rate_mbit": c.rate_mbit,
                "rtt_ms": c.rtt_ms,
                "bdp": c.bdp,
                "fix": bool(r.fix),
                "seed": int(r.seed),
                "prague_share": bps["prague"] / rate,
                "cubic_share": bps["cubic"] / rate,
                "l_p99_ms": p99.get("L", math.nan),
                "c_p99_ms": p99.get("C", math.nan),
                "drops": q["early_drops"] + q["forced_drops"] + q["overflow_drops"],
            }
        )
    return pd.DataFrame(rows)


def cells(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per cell and fix, with the study's shares and ecnlab − study."""
    c = mean_cells(runs, KEYS, METRICS)
    keys = ["grid", "rate_mbit", "rtt_ms", "bdp", "fix"]
    out = c.merge(paper_table(), on=keys, how="left", validate="one_to_one")
    out["diff"] = out.prague_share - out.paper_share
    return out


def _words(c: pd.DataFrame, col: str = "prague_share") -> str:
    return "; ".join(f"{r.cell}: {getattr(r, col):.2f}" for r in c.itertuples())


def _vs_paper(c: pd.DataFrame) -> str:
    return "; ".join(f"{r.cell}: {r.prague_share:.2f} vs {r.paper_share:.2f}" for r in c.itertuples())


def _most(k: int, n: int) -> Verdict:
    """Holds in at least 5/6 of ``n`` cells, partly in some, does not hold in none; not run without cells."""
    if n == 0:
        return Verdict.NOT_RUN
    return Verdict.HOLDS if k >= math.ceil(MOST * n) else Verdict.PARTLY if k else Verdict.DOES_NOT_HOLD


def _starved(c: pd.DataFrame) -> int:
    return int((c.prague_share < STARVED).sum())


def _close(c: pd.DataFrame) -> int:
    return int((c["diff"].abs() <= WITHIN).sum())


def claims(c: pd.DataFrame) -> list[Claim]:
    """The five claims of the module docstring, from the cells table."""
    off, on = c[~c.fix], c[c.fix]
    rep, ext = off[off.grid == "reproduce"], off[off.grid == "extend"]
    pair = off.merge(on, on="cell", suffixes=("_off", "_on"))
    gain = pair.prague_share_on - pair.prague_share_off
    raised = int((gain > RAISED).sum())
    fb = "; ".join(f"{r.cell}: {r.prague_share_off:.2f} → {r.prague_share_on:.2f}" for r in pair.itertuples())
    n_on, n_off = _close(on), _close(off)
    return [
        Claim(
            "Unfixed Prague 0.6 with its fallback on starves beside CUBIC in DualPI2 at 100 Mbit/s, 10 ms, "
            "whatever the buffer",
            Verdict.of_share(_starved(rep), len(rep)),
            f"Prague's share (< {STARVED} counts, {_starved(rep)} of {len(rep)}): {_words(rep)}",
            "§3, Figure 3",
        ),
        Claim(
            "Unfixed, Prague starves across the extend grid (8-256 Mbit/s, 4-128 ms)",
            _most(_starved(ext), len(ext)),
            f"Prague's share (< {STARVED} counts, {_starved(ext)} of {len(ext)}, 5/6 needed): {_words(ext)}",
            "§4, Figure 4",
        ),
        Claim(
            "The ×16 fix raises Prague's share",
            Verdict.of_share(raised, len(pair)),
            f"Prague's share unfixed → fixed (> +{RAISED} counts, {raised} of {len(pair)}): {fb}",
            "§6, Figure 5",
        ),
        Claim(
            "With the fix, Prague's share is the study's",
            Verdict.of_share(n_on, len(on)),
            f"ecnlab vs the study's CSV (±{WITHIN} counts, {n_on} of {len(on)}): {_vs_paper(on)}",
            "data/reproduce.csv, data/extend.csv",
        ),
        Claim(
            "Unfixed, Prague's share is the study's",
            Verdict.of_share(n_off, len(off)),
            f"ecnlab vs the study's CSV (±{WITHIN} counts, {n_off} of {len(off)}): {_vs_paper(off)}",
            "data/reproduce.csv, data/extend.csv",
        ),
    ]

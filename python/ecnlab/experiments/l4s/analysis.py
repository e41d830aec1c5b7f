"""Tables and claims of ``ecnlab reproduce l4s``: TCP Prague beside CUBIC through DualPI2, FQ-CoDel,
a FIFO and single-queue RFC 3168 AQMs, with Prague's classic-ECN fallback off and on, Prague v0.7
and v0.6.

Per run: Prague's version and fallback (read from the run's resolved scenario), each flow's goodput
after the warm-up, the Prague:CUBIC ratio, the bottleneck's sojourn p99 and, for DualPI2, the L and
C queues' p99 and the ratio's two factors (``coexistence.py``). Cells: means over seeds (ratio: of
the runs' ratios). The claims are Prague v0.7's, the default; v0.6 stands beside it in the
coexistence table.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict
from ecnlab.experiments.l4s.coexistence import factors, with_factors


def _claim(text: str, source: str, verdict: Verdict, reason: str) -> Claim:
    return Claim(text=text, verdict=verdict, reason=reason, source=source)


if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["per_run", "cells", "claims", "CLASSIC_AQMS"]

BOTTLENECK = "R1->R2"
CLASSIC_AQMS = ("red", "pie", "codel")
KEYS = ["rate", "rtt", "aqm", "version", "fallback"]
CLAIMED = "v0.7"  # the claims' Prague version (the default)


def per_run(res: SweepResults) -> pd.DataFrame:
    rows = []
    for r in res.runs.itertuples():
        s = res.summary(str(r.run))
        rate = {f["id"]: f["goodput_bps"] / 1e6 for f in s["flows"]}
        (q,) = (q for q in s["queues"] if q["link"] == BOTTLENECK)
        cls = {c["name"]: c["sojourn"]["p99_ms"] for c in q.get("classes", [])}
        (prague,) = (f for f in s["scenario"]["flows"] if f["name"] == "prague")
        rows.append(
            {
                "rate": r.rate,
                "rtt": r.rtt,
                "aqm": r.aqm,
                "version": prague["tcp"]["prague_version"],
                "fallback": bool(prague["tcp"]["prague_classic_fallback"]),
                "seed": r.seed,
                "prague_mbps": rate["prague"],
                "cubic_mbps": rate["cubic"],
                "ratio": rate["prague"] / rate["cubic"] if rate["cubic"] > 0 else math.inf,
                "sojourn_p99_ms": q["sojourn_p99_ms"],
                "l_p99_ms": cls.get("L"),
                "c_p99_ms": cls.get("C"),
                "drops": q["early_drops"] + q["forced_drops"] + q["overflow_drops"],
                "marks": q["marks"],
                **factors(s, q),
            }
        )
    return pd.DataFrame(rows)


def cells(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per cell, the seeds' lowest and highest ratio, and the ratio's two factors."""
    groups = runs.groupby(KEYS, sort=False, dropna=False)
    c = groups.mean(numeric_only=True).reset_index()
    c["seeds"] = groups.size().to_numpy()
    c["ratio_lo"], c["ratio_hi"] = groups.ratio.min().to_numpy(), groups.ratio.max().to_numpy()
    return with_factors(c.drop(columns=["seed"]))


def _ratio_words(c: pd.DataFrame) -> str:
    return "; ".join(f"{r.rate} {r.rtt} {r.aqm}: {r.ratio:.2f}" for r in c.itertuples())


def _factor_words(c: pd.DataFrame) -> str:
    """Each cell's ratio (its seeds' range) as its windows' ratio times its RTTs' (coexistence.py)."""
    return "; ".join(
        f"{r.rate} {r.rtt}: {r.ratio:.2f} ({r.ratio_lo:.2f}–{r.ratio_hi:.2f})"
        f" = {r.window_ratio:.2f} × {r.rtt_factor:.2f}"
        for r in c.itertuples()
    )


def claims(cells: pd.DataFrame) -> list[Claim]:
    c = cells[cells.version == CLAIMED]
    equal = c[(c.aqm == "dualpi2") & (c.rtt != "160v10ms") & ~c.fallback]
    balanced = int(((equal.ratio >= 0.5) & (equal.ratio <= 2)).sum())
    dual = c[(c.aqm == "dualpi2") & ~c.fallback]
    low = int((dual.l_p99_ms <= 0.2 * dual.c_p99_ms).sum())
    lc = "; ".join(f"{r.rate} {r.rtt}: L {r.l_p99_ms:.2f} / C {r.c_p99_ms:.1f}" for r in dual.itertuples())
    classic = c[c.aqm.isin(CLASSIC_AQMS)]
    off = classic[~classic.fallback].set_index(["rate", "rtt", "aqm"])
    on = classic[classic.fallback].set_index(["rate", "rtt", "aqm"])
    starved = int((off.ratio > 2).sum())
    both = [k for k in off.index if k in on.index]
    helps = sum(abs(math.log(on.ratio[k])) < abs(math.log(off.ratio[k])) for k in both)
    fb = "; ".join(f"{' '.join(k)}: {off.ratio[k]:.2f} → {on.ratio[k]:.2f}" for k in both)
    return [
        _claim(
            "DualPI2's coupling (k = 2) gives Prague and CUBIC roughly equal rates at equal RTTs",
            "RFC 9332 §2.1, §4",
            Verdict.of_share(balanced, len(equal)),
            "Prague:CUBIC (seeds; within 0.5–2 counts) = windows' ratio × CUBIC's RTT / Prague's: "
            + _factor_words(equal),
        ),
        _claim(
            "Prague's packets in the L queue wait far less than CUBIC's in the C queue",
            "RFC 9332 §1, §2.4",
            Verdict.of_share(low, len(dual)),
            "sojourn p99 (ms), L / C (≤ 1/5 counts): " + lc,
        ),
        _claim(
            "In a single-queue RFC 3168 AQM Prague takes more than twice CUBIC's rate (fallback off)",
            "RFC 9331 §4.3; draft-ietf-tsvwg-l4sops",
            Verdict.of_share(starved, len(off)),
            "Prague:CUBIC: " + _ratio_words(off.reset_index().assign(fallback=False)),
        ),
        _claim(
            "Prague's classic-ECN fallback brings the ratio closer to 1 there",
            "RFC 9331 §4.3 (SHOULD detect a classic AQM)",
            Verdict.of_share(helps, len(both)),
            "Prague:CUBIC, fallback off → on: " + fb,
        ),
    ]

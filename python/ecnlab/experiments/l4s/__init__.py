"""``ecnlab reproduce l4s``: TCP Prague (RFC 9331 §4) beside CUBIC through DualPI2 (RFC 9332),
FQ-CoDel, a FIFO and the classic single-queue RFC 3168 AQMs (RED, PIE, CoDel with ECN), with
Prague's classic-ECN fallback off and on and Prague v0.7 and v0.6 (``coexistence.py``: the two
side by side), at 10 and 50 Mbit/s and base RTTs of 10, 20, 80 ms and 160 ms (Prague) against
10 ms (CUBIC). ``mixes.toml`` (3-minute runs) and ``mixes-quick.toml``;
docs/experiments/l4s.md gives the method, every choice and the published measurements beside.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.framework import Claim, Part, Results, Study
from ecnlab.experiments.l4s import analysis, coexistence, figures
from ecnlab.experiments.l4s.fallback_part import PART as FALLBACK

Tables = list[tuple[str, pd.DataFrame]]


def _runs(r: Results) -> pd.DataFrame:
    out = r.derive("l4s-runs", analysis.per_run)
    assert isinstance(out, pd.DataFrame)
    return out


def tables(r: Results) -> Tables:
    runs = _runs(r)
    cells = analysis.cells(runs)
    return [("cells", cells), ("coexistence", coexistence.coexistence(cells)), ("runs", runs)]


def claims(r: Results, t: Tables) -> list[Claim]:
    return analysis.claims(dict(t)["cells"])


def draw(r: Results, outdir: Path) -> list[Path]:
    return [figures.ratio_figure(analysis.cells(_runs(r)), outdir)]


STUDY = Study(
    name="l4s",
    question=(
        "Do TCP Prague and CUBIC share a DualPI2 bottleneck fairly with Prague's queue kept short, "
        "and what happens to CUBIC when Prague meets a classic single-queue ECN AQM?"
    ),
    package=__name__,
    parts=(
        Part(
            name="l4s",
            title="L4S: TCP Prague beside CUBIC in DualPI2, FQ-CoDel, a FIFO and classic single-queue AQMs",
            sweep="mixes.toml",
            quick="mixes-quick.toml",
            tables=tables,
            figures=draw,
            claims=claims,
            key_figure="ratio.png",
        ),
        FALLBACK,
    ),
    doc="docs/experiments/l4s.md",
).register()

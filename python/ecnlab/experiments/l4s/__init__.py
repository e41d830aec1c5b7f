"""``ecnlab reproduce l4s``: TCP Prague (RFC 9331 §4) beside CUBIC through DualPI2 (RFC 9332),
FQ-CoDel, a FIFO and the seeds' single-queue RFC 3168 AQMs (RED, PIE, CoDel with ECN), with
Prague's classic-ECN fallback off and on, at 10 and 50 Mbit/s and base RTTs of 10, 20, 80 ms and
160 ms (Prague) against 10 ms (CUBIC). ``mixes.toml`` (3-minute runs) and ``mixes-quick.toml``;
docs/experiments/l4s.md gives the method, every choice and the published measurements beside.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments import Experiment, register
from ecnlab.experiments.framework import Claim
from ecnlab.experiments.l4s import analysis, figures

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

Tables = list[tuple[str, pd.DataFrame]]
HERE = Path(__file__).resolve().parent


def summarize(res: SweepResults) -> Tables:
    runs = analysis.per_run(res)
    return [("cells", analysis.cells(runs)), ("runs", runs)]


def claims(res: SweepResults, tables: Tables) -> list[Claim]:
    return analysis.claims(dict(tables)["cells"])


def draw(res: SweepResults, outdir: Path) -> list[Path]:
    return [figures.ratio_figure(analysis.cells(analysis.per_run(res)), outdir)]


EXPERIMENT = register(
    Experiment(
        name="l4s",
        title="L4S: TCP Prague beside CUBIC in DualPI2, FQ-CoDel, a FIFO and classic single-queue AQMs",
        package=__name__,
        summarize=summarize,
        figures=draw,
        sweep_file=HERE / "mixes.toml",
        quick_file=HERE / "mixes-quick.toml",
        question=(
            "Do TCP Prague and CUBIC share a DualPI2 bottleneck fairly with Prague's queue kept short, "
            "and what happens to CUBIC when Prague meets a classic single-queue ECN AQM?"
        ),
        claims=claims,
        key_figure="ratio",
    ),
    replace=True,
)

"""The ``l4s-fallback`` part of ``ecnlab reproduce l4s``: TCP Prague 0.6's classic-ECN fallback in DualPI2,
unfixed and with the ×16 fix, on the grids of "Reproducing and Solving a Fallback Issue in TCP
Prague" (2025). ``fallback.toml`` (the study's run lengths, 5 seeds) and ``fallback-quick.toml``;
the cells in ``fallback_grid.py``, the study's numbers in ``fallback_paper.py``, the metrics and
claims in ``fallback.py``, the figure in ``fallback_figures.py``; docs/experiments/l4s.md, section
"Prague 0.6's fallback in DualPI2".
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.framework import Claim, Part, Results
from ecnlab.experiments.l4s import fallback, fallback_figures

__all__ = ["PART"]

Tables = list[tuple[str, pd.DataFrame]]
TABLE = "fallback-cells"


def _tables(r: Results) -> Tables:
    return [(TABLE, fallback.cells(r.runs))]


def _claims(r: Results, t: Tables) -> list[Claim]:
    return fallback.claims(dict(t)[TABLE])


def _figures(r: Results, outdir: Path) -> list[Path]:
    return [fallback_figures.share_figure(fallback.cells(r.runs), outdir)]


PART = Part(
    name="l4s-fallback",
    title="TCP Prague 0.6's classic-ECN fallback in DualPI2, unfixed and with the ×16 fix (the 2025 fallback study)",
    sweep="fallback.toml",
    quick="fallback-quick.toml",
    metrics=fallback.per_run,
    tables=_tables,
    figures=_figures,
    claims=_claims,
    key_figure="fallback-share.png",
)

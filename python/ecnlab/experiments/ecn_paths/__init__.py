"""``ecnlab reproduce ecn-paths``: does turning ECN on ever hurt, and what does it buy, on the paths
measurements find? Five paths (clean; ECN-setup SYNs dropped; the ECN field bleached; CE on every
packet; ECT(1) remarked ECT(0)) × Reno and CUBIC with RFC 3168 ECN and without, DCTCP and TCP
Prague with AccECN × a FIFO, RED with ECN, FQ-CoDel and DualPI2; then the per-path effects weighted
by measured prevalence. ``grid.toml`` and ``grid-quick.toml``; docs/experiments/ecn-paths.md gives
the method, every choice and the sources of the shares.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.ecn_paths import analysis, figures
from ecnlab.experiments.framework import Claim, Part, Results, Study

Tables = list[tuple[str, pd.DataFrame]]


def _effects(r: Results) -> pd.DataFrame:
    out = r.derive("ecn-paths-effects", lambda _res: analysis.effects(analysis.grid(r.runs)))
    assert isinstance(out, pd.DataFrame)
    return out


def tables(r: Results) -> Tables:
    e = _effects(r)
    return [("grid", analysis.grid(r.runs)), ("effects", e), ("expected", analysis.expected(e)), ("runs", r.runs)]


def claims(r: Results, t: Tables) -> list[Claim]:
    return analysis.claims(dict(t)["grid"], dict(t)["effects"])


def draw(r: Results, outdir: Path) -> list[Path]:
    return [figures.effects_figure(_effects(r), outdir)]


def section(r: Results, t: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Expected cost and gain for a client population", analysis.answer(dict(t)["expected"])


STUDY = Study(
    name="ecn-paths",
    question="Does turning ECN on ever hurt, and what does it buy, on the paths measurements find today?",
    package=__name__,
    parts=(
        Part(
            name="ecn-paths",
            title="ECN on impaired paths: SYN blackhole, bleaching, CE on everything, ECT(1) remarked",
            sweep="grid.toml",
            quick="grid-quick.toml",
            metrics=analysis.per_run,
            tables=tables,
            figures=draw,
            section=section,
            claims=claims,
            key_figure="ecn-paths.png",
        ),
    ),
    doc="docs/experiments/ecn-paths.md",
).register()

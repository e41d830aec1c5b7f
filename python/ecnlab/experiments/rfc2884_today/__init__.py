"""``ecnlab reproduce rfc2884-today | rfc2884-today-fairness | -bulk | -transactional [--quick]``.

RFC 2884's three experiments (Salim & Ahmed 2000, §5.1–5.3) on the seed's own testbed
(``../rfc2884/testbed.toml``: 1.5 Mbit/s, 20 ms), asked of today's ECN: three stacks
(``reno-1999``: the seed's late-1990s Linux Reno as that study models it; ``reno-linux`` and
``cubic-linux``: the ``linux`` TCP personality with Reno or CUBIC and HyStart) times four
bottleneck queues (the seed's RED with ECN at max_p 0.1; FQ-CoDel, PIE and DualPI2 at their
Linux defaults). Sweeps ``fairness.toml``, ``bulk.toml``, ``transactional.toml`` (10 seeds) and
their ``-quick`` forms (3 seeds). docs/experiments/rfc2884-today.md has the method and results.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Part, Results, Study
from ecnlab.experiments.rfc2884_today import analysis, figures

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["STUDY"]

Tables = list[tuple[str, pd.DataFrame]]


def _cells(kind: str, r: Results) -> pd.DataFrame:
    out = r.derive(f"rfc2884-today-{kind}-cells", lambda _res: analysis.cells(kind, r.runs))
    assert isinstance(out, pd.DataFrame)
    return out


def _part(kind: str, title: str, source: str) -> Part:
    def metrics(res: SweepResults) -> pd.DataFrame:
        return analysis.runs(kind, res)

    def tables(r: Results) -> Tables:
        return [(kind, _cells(kind, r)), ("runs", r.runs)]

    def claims(r: Results, t: Tables) -> list[Claim]:
        return analysis.claims(kind, _cells(kind, r))

    def draw(r: Results, outdir: Path) -> list[Path]:
        return [figures.metric_figure(kind, analysis.METRIC[kind], _cells(kind, r), outdir)]

    def section(r: Results, t: Tables, figs: list[Path]) -> tuple[str, str]:
        return title, f"RFC 2884 {source}, asked again.\n\n{analysis.answer(kind, _cells(kind, r))}"

    return Part(
        name=f"rfc2884-today-{kind}",
        title=title,
        sweep=f"{kind}.toml",
        quick=f"{kind}-quick.toml",
        metrics=metrics,
        tables=tables,
        figures=draw,
        section=section,
        claims=claims,
        key_figure=f"{kind}_today.png",
    )


PARTS: tuple[tuple[str, str, str], ...] = (
    ("fairness", "RFC 2884 §5.1 today: fairness with ECN and non-ECN background flows, stack × queue", "§5.1"),
    ("bulk", "RFC 2884 §5.2 today: 20 MB bulk transfers, ECN vs non-ECN, stack × queue", "§5.2"),
    ("transactional", "RFC 2884 §5.3 today: TCP_CRR transactions, ECN vs non-ECN, stack × queue", "§5.3"),
)


def _diagnostic_15m(bulk: Part) -> Part:
    """The bulk part's sweep at 15 Mbit/s, stored with its tables; no claims or figure (a
    packet takes less than FQ-CoDel's target there: docs page)."""
    return replace(
        bulk,
        name="rfc2884-today-bulk-15M",
        title="RFC 2884 §5.2 today, diagnostic: the bulk transfers with the pipe at 15 Mbit/s",
        sweep="bulk-15M.toml",
        quick="bulk-15M-quick.toml",
        figures=None,
        section=None,
        claims=None,
        key_figure=None,
        diagnostic=True,
    )


_PARTS = tuple(_part(*p) for p in PARTS)

STUDY = Study(
    name="rfc2884-today",
    question=(
        "RFC 2884's questions today: with Linux Reno and CUBIC, through RED, FQ-CoDel, PIE and DualPI2, "
        "does ECN keep flows fair, speed up bulk transfers and raise the rate of short transactions?"
    ),
    package=__name__,
    doc="docs/experiments/rfc2884-today.md",
    parts=(*_PARTS, _diagnostic_15m(_PARTS[1])),
).register()

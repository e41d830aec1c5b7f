"""``ecnlab reproduce dctcp2010 | dctcp2010-queue | dctcp2010-threshold | dctcp2010-incast``.

Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010: the queue DCTCP keeps against TCP
with ECN and TCP with a drop-tail port (1 and 10 Gbit/s, 2 and 20 long flows, K = 20 and 65
packets), throughput against K at 10 Gbit/s, and partition/aggregate incast with a static
100-packet port. Sweep files beside this module (``*-quick.toml`` for the tests and the demo);
docs/experiments/dctcp2010.md gives the method and every choice.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments import Experiment, register, register_group
from ecnlab.experiments.dctcp2010 import analysis, figures
from ecnlab.experiments.framework import Claim

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

Tables = list[tuple[str, pd.DataFrame]]
HERE = Path(__file__).resolve().parent

CELLS: dict[str, Callable[[SweepResults], pd.DataFrame]] = {
    "queue": analysis.queue_cells,
    "threshold": analysis.threshold_cells,
    "incast": analysis.incast_cells,
}
CLAIMS: dict[str, Callable[[pd.DataFrame], list[Claim]]] = {
    "queue": analysis.queue_claims,
    "threshold": analysis.threshold_claims,
    "incast": analysis.incast_claims,
}
FIGURES: dict[str, Callable[[pd.DataFrame, Path], Path]] = {
    "queue": figures.queue_figure,
    "threshold": figures.threshold_figure,
    "incast": figures.incast_figure,
}
TITLES = {
    "queue": "DCTCP 2010 §4.1: the queue of DCTCP, TCP+ECN and drop-tail TCP at 1 and 10 Gbit/s",
    "threshold": "DCTCP 2010 §3.4: throughput against the marking threshold K at 10 Gbit/s",
    "incast": "DCTCP 2010 §4.2.2: partition/aggregate incast, static 100-packet port",
}
QUESTIONS = {
    "queue": "Does DCTCP keep the switch queue near K, with far less buffer than TCP, at full throughput?",
    "threshold": "How small can the marking threshold be before DCTCP, or TCP with ECN, loses throughput?",
    "incast": "Does DCTCP spare an incast the retransmission timeouts that TCP suffers in a shallow port?",
}


def _summarize(kind: str) -> Callable[[SweepResults], Tables]:
    def summarize(res: SweepResults) -> Tables:
        cells = CELLS[kind](res)
        return [("cells", cells)]

    return summarize


def _claims(kind: str) -> Callable[[SweepResults, Tables], list[Claim]]:
    def claims(res: SweepResults, tables: Tables) -> list[Claim]:
        return CLAIMS[kind](dict(tables)["cells"])

    return claims


def _figures(kind: str) -> Callable[[SweepResults, Path], list[Path]]:
    def draw(res: SweepResults, outdir: Path) -> list[Path]:
        return [FIGURES[kind](CELLS[kind](res), outdir)]

    return draw


EXPERIMENTS = [
    Experiment(
        name=f"dctcp2010-{kind}",
        title=title,
        package=__name__,
        summarize=_summarize(kind),
        figures=_figures(kind),
        sweep_file=HERE / f"{kind}.toml",
        quick_file=HERE / f"{kind}-quick.toml",
        question=QUESTIONS[kind],
        claims=_claims(kind),
        key_figure=kind,
    )
    for kind, title in TITLES.items()
]

for _exp in EXPERIMENTS:
    register(_exp, replace=True)
register_group("dctcp2010", [e.name for e in EXPERIMENTS], replace=True)

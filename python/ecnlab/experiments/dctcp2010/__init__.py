"""``ecnlab reproduce dctcp2010 | dctcp2010-queue | dctcp2010-threshold | dctcp2010-incast | dctcp2010-fabric``.

Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010: the queue DCTCP keeps against TCP
with ECN and TCP with a drop-tail port (1 and 10 Gbit/s, 2 and 20 long flows, K = 20 and 65
packets), throughput against K at 10 Gbit/s, partition/aggregate incast with a static
100-packet port, and queries beside long flows on a k = 8 fat tree (queue buildup, §2.3.2).
Sweep files beside this module (``*-quick.toml`` for the tests and the demo);
docs/experiments/dctcp2010.md gives the method and every choice.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.dctcp2010 import analysis, figures
from ecnlab.experiments.framework import Claim, Part, Results, Study

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

Tables = list[tuple[str, pd.DataFrame]]

CELLS: dict[str, Callable[[SweepResults], pd.DataFrame]] = {
    "queue": analysis.queue_cells,
    "threshold": analysis.threshold_cells,
    "incast": analysis.incast_cells,
    "fabric": analysis.fabric_cells,
}
CLAIMS: dict[str, Callable[[pd.DataFrame], list[Claim]]] = {
    "queue": analysis.queue_claims,
    "threshold": analysis.threshold_claims,
    "incast": analysis.incast_claims,
    "fabric": analysis.fabric_claims,
}
FIGURES: dict[str, Callable[[pd.DataFrame, Path], Path]] = {
    "queue": figures.queue_figure,
    "threshold": figures.threshold_figure,
    "incast": figures.incast_figure,
    "fabric": figures.fabric_figure,
}
TITLES = {
    "queue": "DCTCP 2010 §4.1: the queue of DCTCP, TCP+ECN and drop-tail TCP at 1 and 10 Gbit/s",
    "threshold": "DCTCP 2010 §3.4: throughput against the marking threshold K at 10 Gbit/s",
    "incast": "DCTCP 2010 §4.2.2: partition/aggregate incast, static 100-packet port",
    "fabric": "DCTCP 2010 §2.3.2: queries beside long flows on a k = 8 fat tree (queue buildup)",
}


def _cells(kind: str, r: Results) -> pd.DataFrame:
    out = r.derive(f"dctcp2010-{kind}-cells", CELLS[kind])
    assert isinstance(out, pd.DataFrame)
    return out


def _part(kind: str) -> Part:
    def tables(r: Results) -> Tables:
        return [("cells", _cells(kind, r))]

    def claims(r: Results, t: Tables) -> list[Claim]:
        return CLAIMS[kind](dict(t)["cells"])

    def draw(r: Results, outdir: Path) -> list[Path]:
        return [FIGURES[kind](_cells(kind, r), outdir)]

    return Part(
        name=f"dctcp2010-{kind}",
        title=TITLES[kind],
        sweep=f"{kind}.toml",
        quick=f"{kind}-quick.toml",
        tables=tables,
        figures=draw,
        claims=claims,
        key_figure=f"{kind}.png",
    )


STUDY = Study(
    name="dctcp2010",
    question=(
        "Does DCTCP keep a data-centre switch queue near its marking threshold, with far less buffer "
        "than TCP at the same throughput, and spare incast the timeouts TCP suffers?"
    ),
    package=__name__,
    parts=tuple(_part(k) for k in TITLES),
    doc="docs/experiments/dctcp2010.md",
).register()

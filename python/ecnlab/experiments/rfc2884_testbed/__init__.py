"""``ecnlab reproduce rfc2884-testbed [--quick]``: RFC 2884 on its own kind of testbed.

The RFC's fairness (§5.1), bulk (§5.2) and transactional (§5.3) experiments with
real Linux TCP through ecnlab's RED at 1.5 Mbit/s (``ecnlab emulate``: one network
namespace per host, the router holds every link), beside the simulator with the
``linux`` and ``rfc`` TCP personalities, the same testbed
(``../rfc2884/testbed.toml``) for all three. One part, named like the study,
with the axes experiment × engine × max_p (``testbed.toml``; ``testbed-quick.toml``
for ``make demo``). Emulated runs run in this process one after another (real
time, root); simulated ones through the simulator. Without root the study is
skipped with one line (``unavailable``, kuz-testbed's). The analysis is
rfc2884's, once per engine (:mod:`.analysis`); docs/experiments/rfc2884-testbed.md
has the set-up, the full run's claims and where the real stack and the models part.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Part, Results, Study
from ecnlab.experiments.kuzmanovic2005.testbed import emulated, unavailable
from ecnlab.experiments.rfc2884_testbed import analysis

if TYPE_CHECKING:
    from ecnlab.sweep.execute import Outcome
    from ecnlab.sweep.spec import Run

__all__ = ["STUDY", "EXPERIMENTS", "compute", "unavailable"]

Tables = list[tuple[str, pd.DataFrame]]
KEY_FIGURE = "rfc2884-testbed.png"


def compute(run: Run) -> Outcome:
    """One run: ``emu`` through the live router (real time, this process), the others simulated."""
    from ecnlab.sweep.execute import compute_run

    if str(run.axes["engine"]) == "emu":
        return emulated(run)
    return compute_run(run.name, run.data)


def _tables(res: Results) -> Tables:
    return analysis.tables(res.runs)


def _claims(res: Results, tables: Tables) -> list[Claim]:
    return analysis.engine_claims(dict(tables))


def _figures(res: Results, outdir: Path) -> list[Path]:
    from ecnlab.experiments.rfc2884_testbed.report import figure

    return [figure(res.runs, outdir)]


def _section(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    from ecnlab.experiments.rfc2884_testbed.report import section

    return "RFC 2884 on real Linux TCP (emulated) beside the rfc and linux models", section(dict(tables))


STUDY = Study(
    name="rfc2884-testbed",
    question=(
        "RFC 2884 on its own kind of testbed: with real Linux TCP through RED at 1.5 Mbit/s, does ECN keep "
        "fairness, speed bulk transfers and raise transaction rates, and where do the rfc and linux models "
        "part from the real stack?"
    ),
    package=__name__,
    doc="docs/experiments/rfc2884-testbed.md",
    parts=(
        Part(
            name="rfc2884-testbed",
            title="RFC 2884 §5.1–5.3 on real Linux TCP (emulated) beside the rfc and linux models, 1.5 Mbit/s RED",
            sweep="testbed.toml",
            quick="testbed-quick.toml",
            metrics=analysis.per_run,
            tables=_tables,
            figures=_figures,
            section=_section,
            claims=_claims,
            key_figure=KEY_FIGURE,
            compute=compute,
            unavailable=unavailable,
        ),
    ),
).register()
EXPERIMENTS = tuple(STUDY.experiment(p) for p in STUDY.parts)

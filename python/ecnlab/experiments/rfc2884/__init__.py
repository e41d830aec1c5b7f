"""RFC 2884 (Salim & Ahmed, 2000): ECN on a Linux testbed — fairness, bulk and transactional transfers.

``ecnlab reproduce rfc2884-fairness | rfc2884-bulk | rfc2884-transactional |
rfc2884 [--quick]``. The testbed is ``testbed.toml`` beside this file (every
parameter the RFC omits is set there with its reason); the sweeps are
``fairness.toml``, ``bulk.toml``, ``transactional.toml`` and their
``*-quick.toml`` versions (3 seeds instead of 10). The RED thresholds follow
the rule in :mod:`.thresholds`. docs/experiments/rfc2884.md describes it all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ecnlab.experiments import Experiment, register, register_group
from ecnlab.experiments.framework import Claim

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = ["EXPERIMENTS", "HERE"]

HERE = Path(__file__).resolve().parent
Tables = list[tuple[str, "pd.DataFrame"]]


def _summarize(kind: str) -> Callable[[SweepResults], Tables]:
    def summarize(res: SweepResults) -> Tables:
        from ecnlab.experiments.rfc2884 import summarize as s

        return {"fairness": s.fairness_tables, "bulk": s.bulk_tables, "transactional": s.transactional_tables}[kind](
            res
        )

    return summarize


def _figures(kind: str) -> Callable[[SweepResults, Path], list[Path]]:
    def figures(res: SweepResults, outdir: Path) -> list[Path]:
        from ecnlab.experiments.rfc2884 import figures as f

        draw = {"fairness": f.fairness_figures, "bulk": f.bulk_figures, "transactional": f.transactional_figures}
        return draw[kind](_summarize(kind)(res), outdir)

    return figures


def _section(kind: str) -> Callable[[SweepResults, Tables, list[Path]], tuple[str, str]]:
    def report_section(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
        from ecnlab.experiments.rfc2884 import report

        return report.section(kind, tables)

    return report_section


def _claims(kind: str) -> Callable[[SweepResults, Tables], list[Claim]]:
    def claims(res: SweepResults, tables: Tables) -> list[Claim]:
        from ecnlab.experiments.rfc2884 import verdicts

        return verdicts.claims(kind, tables)

    return claims


QUESTIONS = {
    "fairness": "Does ECN change how fairly RED shares the link between ECN and non-ECN flows?",
    "bulk": "Does a bulk transfer finish faster with ECN than without, as congestion and RED's max_p grow?",
    "transactional": "Do short request/response transactions complete more often per second with ECN?",
}

TITLES = {
    "fairness": "RFC 2884 §5.1: fairness with ECN and non-ECN background flows",
    "bulk": "RFC 2884 §5.2: 20 MB bulk transfers, ECN vs non-ECN",
    "transactional": "RFC 2884 §5.3: TCP_CRR transactions, ECN vs non-ECN",
}

EXPERIMENTS = [
    Experiment(
        name=f"rfc2884-{kind}",
        title=title,
        package=__name__,
        summarize=_summarize(kind),
        figures=_figures(kind),
        report_section=_section(kind),
        sweep_file=HERE / f"{kind}.toml",
        quick_file=HERE / f"{kind}-quick.toml",
        question=QUESTIONS[kind],
        claims=_claims(kind),
    )
    for kind, title in TITLES.items()
]

for _exp in EXPERIMENTS:
    register(_exp, replace=True)
register_group("rfc2884", [e.name for e in EXPERIMENTS], replace=True)

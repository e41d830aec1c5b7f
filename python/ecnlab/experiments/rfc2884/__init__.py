"""RFC 2884 (Salim & Ahmed, 2000): ECN on a Linux testbed — fairness, bulk and transactional transfers.

``ecnlab reproduce rfc2884-fairness | rfc2884-bulk | rfc2884-transactional |
rfc2884 [--quick]``. The testbed is ``testbed.toml`` beside this file (every
parameter the RFC omits is set there with its reason); the sweeps are
``fairness.toml``, ``bulk.toml``, ``transactional.toml`` and their
``*-quick.toml`` versions (3 seeds instead of 10); two diagnostics the docs quote are parts
too (``bulk-ecn-min-cwnd2*.toml``, ``transactional-ecn-plus*.toml``). The RED thresholds follow
the rule in :mod:`.thresholds`. docs/experiments/rfc2884.md describes it all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ecnlab.experiments.framework import Claim, Part, Results, Study

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = ["STUDY", "EXPERIMENTS", "HERE"]

HERE = Path(__file__).resolve().parent
Tables = list[tuple[str, "pd.DataFrame"]]
KINDS = ("fairness", "bulk", "transactional")


def _runs(kind: str) -> Callable[[SweepResults], pd.DataFrame]:
    def runs(res: SweepResults) -> pd.DataFrame:
        from ecnlab.experiments.rfc2884 import analysis

        return {
            "fairness": analysis.fairness_runs,
            "bulk": analysis.bulk_runs,
            "transactional": analysis.transactional_runs,
        }[kind](res)

    return runs


def _summarize(kind: str) -> Callable[[Results], Tables]:
    def summarize(res: Results) -> Tables:
        from ecnlab.experiments.rfc2884 import summarize as s

        return {"fairness": s.fairness_tables, "bulk": s.bulk_tables, "transactional": s.transactional_tables}[kind](
            res.runs
        )

    return summarize


def _figures(kind: str) -> Callable[[Results, Path], list[Path]]:
    def figures(res: Results, outdir: Path) -> list[Path]:
        from ecnlab.experiments.rfc2884 import figures as f

        draw = {"fairness": f.fairness_figures, "bulk": f.bulk_figures, "transactional": f.transactional_figures}
        return draw[kind](_summarize(kind)(res), outdir)

    return figures


def _section(kind: str) -> Callable[[Results, Tables, list[Path]], tuple[str, str]]:
    def report_section(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
        from ecnlab.experiments.rfc2884 import report

        return report.section(kind, tables)

    return report_section


def _claims(kind: str) -> Callable[[Results, Tables], list[Claim]]:
    def claims(res: Results, tables: Tables) -> list[Claim]:
        from ecnlab.experiments.rfc2884 import claims as c

        check = {"fairness": c.fairness_claims, "bulk": c.bulk_claims, "transactional": c.transactional_claims}
        return check[kind](dict(tables)[kind])

    return claims


TITLES = {
    "fairness": "RFC 2884 §5.1: fairness with ECN and non-ECN background flows",
    "bulk": "RFC 2884 §5.2: 20 MB bulk transfers, ECN vs non-ECN",
    "transactional": "RFC 2884 §5.3: TCP_CRR transactions, ECN vs non-ECN",
}
KEY_FIGURES = {
    "fairness": "fairness_vs_maxp.png",
    "bulk": "bulk_advantage_vs_maxp.png",
    "transactional": "transactional_gain_vs_maxp_high.png",
}

# Diagnostics the docs quote (docs/experiments/rfc2884.md): one setting changed against a part's sweep,
# stored with the same tables; no claims (they explain the differences, they do not test the RFC).
DIAGNOSTICS = (
    Part(
        name="rfc2884-bulk-ecn-min-cwnd2",
        title="RFC 2884 §5.2 diagnostic: bulk transfers with Linux's ECN window (tcp.ecn_min_cwnd = 2)",
        sweep="bulk-ecn-min-cwnd2.toml",
        quick="bulk-ecn-min-cwnd2-quick.toml",
        metrics=_runs("bulk"),
        tables=_summarize("bulk"),
        diagnostic=True,
    ),
    Part(
        name="rfc2884-transactional-ecn-plus",
        title="RFC 2884 §5.3 diagnostic: transactions with ECN-capable SYN-ACKs (ECN+), Reno, high, max_p 0.1",
        sweep="transactional-ecn-plus.toml",
        quick="transactional-ecn-plus-quick.toml",
        metrics=_runs("transactional"),
        tables=_summarize("transactional"),
        diagnostic=True,
    ),
)

STUDY = Study(
    name="rfc2884",
    question=(
        "RFC 2884: on a Linux testbed with RED, does ECN make TCP fairer, bulk transfers faster and short "
        "transactions more frequent than dropping does?"
    ),
    package=__name__,
    doc="docs/experiments/rfc2884.md",
    parts=tuple(
        Part(
            name=f"rfc2884-{kind}",
            title=TITLES[kind],
            sweep=f"{kind}.toml",
            quick=f"{kind}-quick.toml",
            metrics=_runs(kind),
            tables=_summarize(kind),
            figures=_figures(kind),
            section=_section(kind),
            claims=_claims(kind),
            key_figure=KEY_FIGURES[kind],
        )
        for kind in KINDS
    )
    + DIAGNOSTICS,
).register()
EXPERIMENTS = [STUDY.experiment(p) for p in STUDY.parts if not p.diagnostic]  # the RFC's three experiments

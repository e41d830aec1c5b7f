"""``ecnlab reproduce allecn | allecn-errors``: the all-ECN resource-efficiency study (ns-2 paper).

Files beside this module: ``base.toml`` (one run, every parameter with its
source), ``sweep.toml`` / ``quick.toml`` (the grid without errors) and
``errors.toml`` / ``errors-quick.toml`` (1 % errors on the client access
links). docs/experiments/allecn.md describes the method and the choices.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments import Experiment, register
from ecnlab.experiments.allecn import verdicts
from ecnlab.experiments.allecn.analysis import paper_table, per_cell, per_run, rule_of_thumb, transfer_times
from ecnlab.experiments.allecn.figures import draw_all
from ecnlab.experiments.allecn.report import report_text
from ecnlab.experiments.framework import Claim

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["cells_of", "summarize_clean", "summarize_errors", "EXPERIMENTS"]

_CACHE: dict[tuple[str, int], pd.DataFrame] = {}


def runs_of(res: SweepResults) -> pd.DataFrame:
    """The per-run metrics of a sweep directory (computed once per directory and size)."""
    key = (str(Path(res.path).resolve()), len(res.flows))
    if key not in _CACHE:
        _CACHE[key] = per_run(res)
    return _CACHE[key]


def cells_of(res: SweepResults) -> pd.DataFrame:
    """Means over seeds per (n, d, scheme, QL)."""
    return per_cell(runs_of(res))


def checks(runs: pd.DataFrame) -> pd.DataFrame:
    """Completion and accounting over the whole sweep (one row)."""
    bad = runs[runs.problems != ""]
    return pd.DataFrame(
        [
            {
                "runs": len(runs),
                "transfers": int(runs.transfers.sum()),
                "runs_with_accounting_problems": len(bad),
                "first_problem": bad.problems.iloc[0] if len(bad) else "",
                "drops_outside_router_B": int(runs.drops_elsewhere.sum()),
            }
        ]
    )


def _summarize(res: SweepResults, study: str) -> list[tuple[str, pd.DataFrame]]:
    runs = runs_of(res)
    cells = per_cell(runs)
    shown = ["n", "d_ms", "scheme", "ql", "seeds", "transfers", "tt_mean_s", "tt_std_s", "network_overhead_pct",
             "receiver_overhead_pct", "excess_packets", "acks_per_transfer", "corrupted_received", "marks_B",
             "drops_B", "timeouts"]  # fmt: skip
    return [
        ("paper_vs_ecnlab", paper_table(cells, study)),
        ("rule_of_thumb_overhead", rule_of_thumb(cells, "network_overhead_pct")),
        ("rule_of_thumb_acks", rule_of_thumb(cells, "acks_per_transfer")),
        ("transfer_times", transfer_times(cells)),
        ("cells", cells[shown]),
        ("checks", checks(runs)),
    ]


def summarize_clean(res: SweepResults) -> list[tuple[str, pd.DataFrame]]:
    return _summarize(res, "allecn")


def summarize_errors(res: SweepResults) -> list[tuple[str, pd.DataFrame]]:
    return _summarize(res, "allecn-errors")


def _figures(res: SweepResults, outdir: Path, prefix: str) -> list[Path]:
    metrics = ["network_overhead_pct", "receiver_overhead_pct", "tt_mean_s", "acks_per_transfer"]
    return draw_all(cells_of(res), outdir, prefix=prefix, metrics=metrics)


def figures_clean(res: SweepResults, outdir: Path) -> list[Path]:
    return _figures(res, outdir, "allecn")


def figures_errors(res: SweepResults, outdir: Path) -> list[Path]:
    return _figures(res, outdir, "allecn-errors")


def section_clean(res: SweepResults, tables: list[tuple[str, pd.DataFrame]], figs: list[Path]) -> tuple[str, str]:
    return "All-ECN resource efficiency: ecnlab beside the paper", report_text(dict(tables), "allecn")


def section_errors(res: SweepResults, tables: list[tuple[str, pd.DataFrame]], figs: list[Path]) -> tuple[str, str]:
    return "All-ECN with 1 % errors: ecnlab beside the paper", report_text(dict(tables), "allecn-errors")


def _claims(study: str) -> Callable[[SweepResults, list[tuple[str, pd.DataFrame]]], list[Claim]]:
    def claims(res: SweepResults, tables: list[tuple[str, pd.DataFrame]]) -> list[Claim]:
        return verdicts.claims(tables, study)

    return claims


QUESTION = "Does turning ECN on everywhere cut the packets a network and its receivers spend per transfer?"
QUESTION_ERRORS = "With transmission errors on the client links, does ECN still cut the overheads?"


def _here(name: str) -> Path:
    return Path(str(resources.files(__name__) / name))


EXPERIMENTS = (
    register(
        Experiment(
            name="allecn",
            title="All-ECN resource efficiency: overheads of 100 KB transfers over DT, RED and RED+ECN",
            package=__name__,
            summarize=summarize_clean,
            figures=figures_clean,
            report_section=section_clean,
            question=QUESTION,
            claims=_claims("allecn"),
        )
    ),
    register(
        Experiment(
            name="allecn-errors",
            title="All-ECN resource efficiency with 1 % errors on the client access links",
            package=__name__,
            summarize=summarize_errors,
            figures=figures_errors,
            report_section=section_errors,
            sweep_file=_here("errors.toml"),
            quick_file=_here("errors-quick.toml"),
            question=QUESTION_ERRORS,
            claims=_claims("allecn-errors"),
        )
    ),
)

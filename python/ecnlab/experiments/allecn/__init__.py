"""``ecnlab reproduce allecn | allecn-errors | allecn-sensitivity-red | allecn-sensitivity-tcp | allecn-direction``.

The all-ECN resource-efficiency study (ns-2 paper).

Files beside this module: ``base.toml`` (one run, every parameter with its
source), ``sweep.toml`` / ``quick.toml`` (the grid without errors) and
``errors.toml`` / ``errors-quick.toml`` (1 % errors on the client access
links). The diagnostics the docs quote are parts too (:mod:`.diagnostics`):
``sensitivity-red.toml``, ``sensitivity-tcp.toml`` and ``direction.toml``
(with their ``-quick`` forms). docs/experiments/allecn.md describes the
method and the choices.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.allecn import diagnostics
from ecnlab.experiments.allecn.analysis import paper_table, per_cell, per_run, rule_of_thumb, transfer_times
from ecnlab.experiments.allecn.claims import claims
from ecnlab.experiments.allecn.figures import draw_all
from ecnlab.experiments.allecn.report import report_text
from ecnlab.experiments.framework import Claim, Part, Results, Study

__all__ = ["cells_of", "summarize_clean", "summarize_errors", "STUDY", "EXPERIMENTS"]

Tables = list[tuple[str, pd.DataFrame]]


def cells_of(res: Results) -> pd.DataFrame:
    """Means over seeds per (n, d, scheme, QL)."""
    return per_cell(res.runs)


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


def _summarize(res: Results, study: str) -> Tables:
    runs = res.runs
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


def summarize_clean(res: Results) -> Tables:
    return _summarize(res, "allecn")


def summarize_errors(res: Results) -> Tables:
    return _summarize(res, "allecn-errors")


def _figures(res: Results, outdir: Path, prefix: str) -> list[Path]:
    metrics = ["network_overhead_pct", "receiver_overhead_pct", "tt_mean_s", "acks_per_transfer"]
    return draw_all(cells_of(res), outdir, prefix=prefix, metrics=metrics)


def figures_clean(res: Results, outdir: Path) -> list[Path]:
    return _figures(res, outdir, "allecn")


def figures_errors(res: Results, outdir: Path) -> list[Path]:
    return _figures(res, outdir, "allecn-errors")


def section_clean(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "All-ECN resource efficiency: ecnlab beside the paper", report_text(dict(tables), "allecn")


def section_errors(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "All-ECN with 1 % errors: ecnlab beside the paper", report_text(dict(tables), "allecn-errors")


def claims_clean(res: Results, tables: Tables) -> list[Claim]:
    return claims(dict(tables), "allecn")


def claims_errors(res: Results, tables: Tables) -> list[Claim]:
    return claims(dict(tables), "allecn-errors")


STUDY = Study(
    name="allecn",
    question=(
        "All-ECN (ns-2): if every packet of short 100 KB web transfers is ECN-capable, how many packets, "
        "ACKs and seconds does ECN save against Drop-Tail and RED?"
    ),
    package=__name__,
    doc="docs/experiments/allecn.md",
    group=False,  # "allecn" is also the name of its first part
    parts=(
        Part(
            name="allecn",
            title="All-ECN resource efficiency: overheads of 100 KB transfers over DT, RED and RED+ECN",
            sweep="sweep.toml",
            quick="quick.toml",
            metrics=per_run,
            tables=summarize_clean,
            figures=figures_clean,
            section=section_clean,
            claims=claims_clean,
            key_figure="allecn-network-overhead-pct-d20ms.png",
        ),
        Part(
            name="allecn-errors",
            title="All-ECN resource efficiency with 1 % errors on the client access links",
            sweep="errors.toml",
            quick="errors-quick.toml",
            metrics=per_run,
            tables=summarize_errors,
            figures=figures_errors,
            section=section_errors,
            claims=claims_errors,
            key_figure="allecn-errors-receiver-overhead-pct-d20ms.png",
        ),
        Part(
            name="allecn-sensitivity-red",
            title="All-ECN diagnostics: the RED implementation the paper leaves open (ecnlab, ns-2 mark_p, byte mode)",
            sweep="sensitivity-red.toml",
            quick="sensitivity-red-quick.toml",
            metrics=diagnostics.axis_runs,
            tables=diagnostics.sensitivity_tables,
            diagnostic=True,
        ),
        Part(
            name="allecn-sensitivity-tcp",
            title="All-ECN diagnostics: TCP details the paper leaves open (initial window, timers, NewReno)",
            sweep="sensitivity-tcp.toml",
            quick="sensitivity-tcp-quick.toml",
            metrics=diagnostics.axis_runs,
            tables=diagnostics.sensitivity_tables,
            diagnostic=True,
        ),
        Part(
            name="allecn-direction",
            title="All-ECN diagnostics: 1 % errors towards the clients, from them, or both",
            sweep="direction.toml",
            quick="direction-quick.toml",
            metrics=diagnostics.axis_runs,
            tables=diagnostics.direction_tables,
            claims=diagnostics.direction_claims,
            compute=diagnostics.direction_compute,
            diagnostic=True,
        ),
    ),
).register()
EXPERIMENTS = tuple(STUDY.experiment(p) for p in STUDY.parts if not p.diagnostic)  # the paper's two grids

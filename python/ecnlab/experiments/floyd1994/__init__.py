"""``ecnlab reproduce floyd-lan | floyd-wan | floyd1994``: Floyd 1994, "TCP and Explicit Congestion Notification".

Files beside this module: ``lan-base.toml`` / ``wan-base.toml`` (one run, every
parameter with its source), ``lan.toml`` / ``wan.toml`` (the full grids, 5
seeds) and ``lan-quick.toml`` / ``wan-quick.toml`` (2 seeds). Outputs: per-run
and per-cell tables, the claims of sections 6.2 and 7.2 with ecnlab's verdict,
and figure grids in the paper's shape (Figures 2, 3, 5, 6).
docs/experiments/floyd1994.md describes the method and every choice.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.floyd1994.claims import as_claims, evaluate, lan_claims, wan_claims
from ecnlab.experiments.floyd1994.figures import LAN_ROWS, WAN_ROWS, draw_grid
from ecnlab.experiments.floyd1994.metrics import LAN, WAN, Setting, per_run
from ecnlab.experiments.floyd1994.report import report_text
from ecnlab.experiments.framework import Claim, Part, Results, Study

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["cells", "summarize_lan", "summarize_wan", "STUDY"]

Tables = list[tuple[str, pd.DataFrame]]


def _runs(s: Setting) -> Callable[[SweepResults], pd.DataFrame]:
    """Per-run metrics of a sweep directory in setting ``s`` (the framework keeps them with the runs)."""

    def runs(res: SweepResults) -> pd.DataFrame:
        durations = {str(r): float(res.summary(str(r))["sim"]["sim_time_s"]) for r in res.runs.run}
        return per_run(res.flows, res.queues, s, res.axes, durations)

    return runs


def cells(runs: pd.DataFrame, panel: str) -> pd.DataFrame:
    """Means over seeds per (panel axis, window, gateway, mode, buffer), with the seed count."""
    keys = [panel, "window", "gateway", "mode", "buffer_kb"]
    metrics = [c for c in runs.columns if c not in (*keys, "run", "seed")]
    out = runs.groupby(keys, as_index=False)[metrics].mean()
    out.insert(len(keys), "seeds", runs.groupby(keys).seed.nunique().to_numpy())
    return out


def _checks(runs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "runs": len(runs),
                "telnet_written": int(runs.telnet_written.sum()),
                "telnet_packets": int(runs.telnet_packets.sum()),
                "telnet_per_run": float(runs.telnet_packets.mean()),
                "runs_without_telnet_delivery": int((runs.telnet_packets == 0).sum()),
            }
        ]
    )


def _summarize(res: Results, panel: str, claims: list) -> Tables:  # type: ignore[type-arg]
    return [
        ("claims", evaluate(claims, res.runs)),
        ("cells", cells(res.runs, panel)),
        ("checks", _checks(res.runs)),
    ]


def summarize_lan(res: Results) -> Tables:
    return _summarize(res, "clock", lan_claims())


def summarize_wan(res: Results) -> Tables:
    return _summarize(res, "load", wan_claims())


def figures_lan(res: Results, outdir: Path) -> list[Path]:
    runs = res.runs
    names = {"0.1ms": "Figure 2: 0.1 ms TCP clock", "100ms": "Figure 3: 100 ms TCP clock"}
    return [
        draw_grid(
            runs[runs.clock == clock],
            LAN_ROWS,
            outdir / f"floyd-lan-clock-{clock.replace('.', 'p')}",
            f"LAN, {names.get(clock, clock)}",
        )
        for clock in sorted(runs.clock.unique())
    ]


def figures_wan(res: Results, outdir: Path) -> list[Path]:
    runs = res.runs
    names = {"moderate": "Figure 5: 4 bulk connections each way", "heavy": "Figure 6: 20 bulk connections each way"}
    return [
        draw_grid(
            runs[runs.load == load],
            WAN_ROWS,
            outdir / f"floyd-wan-{load}",
            f"WAN, 100 ms clock, {names.get(load, load)}",
        )
        for load in sorted(runs.load.unique(), reverse=True)
    ]


def section_lan(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Floyd 1994 LAN (section 6): ecnlab beside the paper", report_text(dict(tables), "floyd-lan")


def section_wan(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Floyd 1994 WAN (section 7): ecnlab beside the paper", report_text(dict(tables), "floyd-wan")


def claims_of(res: Results, tables: Tables) -> list[Claim]:
    """The claims table's rows as the framework's claims (the paper's three gateways and §9.1)."""
    return as_claims(dict(tables)["claims"])


STUDY = Study(
    name="floyd1994",
    question=(
        "Floyd 1994: do RED gateways that mark with ECN give bulk TCP high throughput and telnet low delay, "
        "where Drop-Tail and RED that drop do not?"
    ),
    package=__name__,
    doc="docs/experiments/floyd1994.md",
    parts=(
        Part(
            name="floyd-lan",
            title="Floyd 1994 LAN: bulk throughput and telnet delay, Drop-Tail vs RED vs RED+ECN",
            sweep="lan.toml",
            quick="lan-quick.toml",
            metrics=_runs(LAN),
            tables=summarize_lan,
            figures=figures_lan,
            section=section_lan,
            claims=claims_of,
            key_figure="floyd-lan-clock-100ms.png",
        ),
        Part(
            name="floyd-wan",
            title="Floyd 1994 WAN: two-way traffic, telnet delay and throughput across gateways",
            sweep="wan.toml",
            quick="wan-quick.toml",
            metrics=_runs(WAN),
            tables=summarize_wan,
            figures=figures_wan,
            section=section_wan,
            claims=claims_of,
            key_figure="floyd-wan-heavy.png",
        ),
    ),
).register()
EXPERIMENTS = tuple(STUDY.experiment(p) for p in STUDY.parts)

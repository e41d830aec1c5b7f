"""``ecnlab reproduce floyd-lan | floyd-wan | floyd1994``: Floyd 1994, "TCP and Explicit Congestion Notification".

Files beside this module: ``lan-base.toml`` / ``wan-base.toml`` (one run, every
parameter with its source), ``lan.toml`` / ``wan.toml`` (the full grids, 5
seeds) and ``lan-quick.toml`` / ``wan-quick.toml`` (2 seeds). Outputs: per-run
and per-cell tables, the claims of sections 6.2 and 7.2 with ecnlab's verdict,
and figure grids in the paper's shape (Figures 2, 3, 5, 6).
docs/experiments/floyd1994.md describes the method and every choice.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments import Experiment, register, register_group
from ecnlab.experiments.floyd1994.claims import evaluate, lan_claims, wan_claims
from ecnlab.experiments.floyd1994.figures import LAN_ROWS, WAN_ROWS, draw_grid
from ecnlab.experiments.floyd1994.metrics import LAN, WAN, Setting, per_run
from ecnlab.experiments.floyd1994.report import report_text
from ecnlab.experiments.framework import Claim, claims_from_table

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["runs_of", "cells", "summarize_lan", "summarize_wan", "EXPERIMENTS"]

Tables = list[tuple[str, pd.DataFrame]]
_CACHE: dict[tuple[str, int], pd.DataFrame] = {}


def runs_of(res: SweepResults, s: Setting) -> pd.DataFrame:
    """Per-run metrics of a sweep directory (computed once per directory and size)."""
    key = (str(Path(res.path).resolve()), len(res.flows))
    if key not in _CACHE:
        durations = {str(r): float(res.summary(str(r))["sim"]["sim_time_s"]) for r in res.runs.run}
        _CACHE[key] = per_run(res.flows, res.queues, s, res.axes, durations)
    return _CACHE[key]


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


def _summarize(res: SweepResults, s: Setting, panel: str, claims: list) -> Tables:  # type: ignore[type-arg]
    runs = runs_of(res, s)
    return [
        ("claims", evaluate(claims, runs)),
        ("cells", cells(runs, panel)),
        ("checks", _checks(runs)),
    ]


def summarize_lan(res: SweepResults) -> Tables:
    return _summarize(res, LAN, "clock", lan_claims())


def summarize_wan(res: SweepResults) -> Tables:
    return _summarize(res, WAN, "load", wan_claims())


def figures_lan(res: SweepResults, outdir: Path) -> list[Path]:
    runs = runs_of(res, LAN)
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


def figures_wan(res: SweepResults, outdir: Path) -> list[Path]:
    runs = runs_of(res, WAN)
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


def section_lan(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Floyd 1994 LAN (section 6): ecnlab beside the paper", report_text(dict(tables), "floyd-lan")


def section_wan(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Floyd 1994 WAN (section 7): ecnlab beside the paper", report_text(dict(tables), "floyd-wan")


def floyd_claims(res: SweepResults, tables: Tables) -> list[Claim]:
    """The claims table (``claims.py``) in the framework's shape: paper text, section, verdict, numbers."""
    return claims_from_table(dict(tables)["claims"], "Floyd 1994", text="paper", verdict="ecnlab_shows")


QUESTION_LAN = (
    "On a LAN, does RED with ECN give bulk and telnet traffic the throughput of Drop-Tail and RED "
    "with lower telnet delay, whatever the TCP clock?"
)
QUESTION_WAN = "With two-way traffic on a WAN, does ECN keep telnet delay low and throughput up across gateways?"


def _here(name: str) -> Path:
    return Path(str(resources.files(__name__) / name))


EXPERIMENTS = (
    register(
        Experiment(
            name="floyd-lan",
            title="Floyd 1994 LAN: bulk throughput and telnet delay, Drop-Tail vs RED vs RED+ECN",
            package=__name__,
            summarize=summarize_lan,
            figures=figures_lan,
            report_section=section_lan,
            sweep_file=_here("lan.toml"),
            quick_file=_here("lan-quick.toml"),
            question=QUESTION_LAN,
            claims=floyd_claims,
            key_figure="floyd-lan-clock-100ms",
        )
    ),
    register(
        Experiment(
            name="floyd-wan",
            title="Floyd 1994 WAN: two-way traffic, telnet delay and throughput across gateways",
            package=__name__,
            summarize=summarize_wan,
            figures=figures_wan,
            report_section=section_wan,
            sweep_file=_here("wan.toml"),
            quick_file=_here("wan-quick.toml"),
            question=QUESTION_WAN,
            claims=floyd_claims,
            key_figure="floyd-wan-heavy",
        )
    ),
)
register_group("floyd1994", ["floyd-lan", "floyd-wan"])

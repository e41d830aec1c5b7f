"""rfc2884-testbed's figure and report section, drawn from the tables (never re-run).

The figure: one panel per experiment with the RFC's metric (Jain's index, the bulk
ECN advantage, the transactional gain) per max_p, one bar per engine, with 95 %
intervals over seeds. The section: what ran, the claims per engine, and the
side-by-side numbers of emu, sim-linux and sim-rfc.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.framework import cells
from ecnlab.experiments.rfc2884_testbed.analysis import ENGINES
from ecnlab.plots import pyplot, save_figure

__all__ = ["figure", "section"]

PANELS = (
    ("fairness", "fairness", "Jain's index (4 flows)", "§5.1 fairness"),
    ("bulk", "advantage", "(goodput ECN − non-ECN) / non-ECN", "§5.2 bulk"),
    ("transactional", "gain", "(tps ECN − non-ECN) / non-ECN", "§5.3 transactional"),
)
COLORS = {"emu": "tab:red", "sim-linux": "tab:blue", "sim-rfc": "tab:gray"}


def figure(runs: pd.DataFrame, outdir: Path) -> Path:
    """The key figure (``rfc2884-testbed.png``)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(PANELS), figsize=(12, 3.6))
    for ax, (kind, metric, label, title) in zip(axes, PANELS, strict=True):
        sel = runs[runs.kind == kind]
        if sel.empty:
            ax.set_title(f"{title}: not run")
            continue
        c = cells(sel, ["engine", "maxp"], [metric])
        maxps = sorted(c.maxp.unique())
        width = 0.8 / len(ENGINES)
        for k, engine in enumerate(ENGINES):
            e = c[c.engine == engine].set_index("maxp").reindex(maxps)
            xs = [i + (k - 1) * width for i in range(len(maxps))]
            ax.bar(xs, e[metric], width, yerr=e[f"{metric}_ci95"], color=COLORS[engine], label=engine, capsize=2)
        ax.set_xticks(range(len(maxps)), [f"{m:g}" for m in maxps])
        ax.axhline(0, color="black", lw=0.5)
        ax.set(xlabel="RED max_p", ylabel=label, title=title)
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    path = save_figure(fig, outdir, "rfc2884-testbed")
    plt.close(fig)
    return path


def section(tables: dict[str, pd.DataFrame]) -> str:
    """The report's text: the set-up in one paragraph, the claims, the side-by-side numbers."""
    from ecnlab.experiments import to_markdown

    runs = tables["runs"]
    emu = runs[runs.engine == "emu"]
    late = (
        f"Router delivery lateness p99 over the emulated runs: median {emu.lateness_p99_us.median():.0f} µs, "
        f"max {emu.lateness_p99_us.max():.0f} µs; runs with emulation warnings: {int((emu.warnings > 0).sum())}."
        if not emu.empty
        else "No emulated run."
    )
    return "\n\n".join(
        [
            "RFC 2884's testbed (rfc2884's testbed.toml: 1.5 Mbit/s, 20 ms, RED as the RFC's Linux router ran it) "
            "three ways: `emu` is the kernel's Reno through ecnlab's router (`ecnlab emulate`), `sim-linux` the "
            "model with the linux personality on the same scenario, `sim-rfc` the model with the rfc personality "
            "and the RFC's Linux 2.x settings (the rfc2884 study's model). Transfers are smaller and runs shorter "
            "than the RFC's (real time); docs/experiments/rfc2884-testbed.md has the grid and the reasons for "
            "each difference.",
            "Claims (rfc2884's rules, per engine):",
            to_markdown(tables["claims"]),
            "Side by side (means over seeds; marks and drops at the bottleneck; `ce_ecn` = CE packets the ECN "
            "client received, `pkts_dropped_*` = the flow's packets dropped, both directions; timeouts at both "
            "ends):",
            to_markdown(tables["side_by_side"]),
            late,
        ]
    )

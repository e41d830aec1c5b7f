"""Figures of the RFC 2884 experiments, drawn from the summary tables (mean ± 95 % interval over seeds).

The paper's numbers, where the text gives them, are drawn as black crosses at
the same grid points.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ecnlab.files import write_figure

__all__ = ["fairness_figures", "bulk_figures", "transactional_figures", "line_panels"]

Tables = list[tuple[str, pd.DataFrame]]


def _table(tables: Tables, name: str) -> pd.DataFrame:
    return dict(tables)[name]


def line_panels(
    t: pd.DataFrame,
    *,
    panel: str | None,
    hue: str,
    y: str,
    ylabel: str,
    paper_col: str | None = None,
    style: Sequence[tuple[str, str, str]] = (),
    title: str = "",
) -> Any:
    """One panel per value of ``panel``: ``y`` vs maxp, a line per ``hue``; extra (column, label, ls) lines."""
    panels = list(dict.fromkeys(t[panel])) if panel else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False, sharey=True)
    for ax, pv in zip(axes[0], panels, strict=True):
        sub = t if pv is None else t[t[panel] == pv]
        for i, (hv, g) in enumerate(sub.groupby(hue, sort=False)):
            color = f"C{i}"
            for col, label, ls in [(y, "", "-"), *style]:
                ax.errorbar(g["maxp"], g[col], yerr=g.get(f"{col}_ci95"), color=color, ls=ls, marker="o",
                            ms=3, capsize=2, label=f"{hue}={hv}{label}")  # fmt: skip
            if paper_col and g[paper_col].notna().any():
                p = g[g[paper_col].notna()]
                ax.plot(p["maxp"], p[paper_col], "x", color="black", ms=8, mew=2)
        ax.set_xscale("log")
        ax.minorticks_off()  # the log axis's minor labels would overprint the grid values
        ax.set_xticks([0.02, 0.05, 0.1, 0.2, 0.5], ["0.02", "0.05", "0.1", "0.2", "0.5"])
        ax.set_xlabel("RED max_p")
        ax.set_title(f"{panel} = {pv}" if panel else title)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=7, title="× = RFC 2884" if paper_col else None, title_fontsize=7)
    if title and panel:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _save(fig: Any, outdir: Path, name: str) -> Path:
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / f"{name}.png"
    write_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def _queue_figure(q: pd.DataFrame, panel: str | None, hue: str, outdir: Path, name: str) -> Path:
    fig = line_panels(q, panel=panel, hue=hue, y="avg_queue_pkts", ylabel="mean RED average (packets)",
                      title="RED average vs min_th / max_th (dotted)")  # fmt: skip
    for ax in fig.axes:
        for th in ("min_th", "max_th"):
            ax.axhline(float(q[th].iloc[0]), color="grey", ls=":")
    return _save(fig, outdir, name)


def fairness_figures(tables: Tables, outdir: Path) -> list[Path]:
    t = _table(tables, "fairness")
    fig = line_panels(t, panel=None, hue="background", y="fairness", ylabel="Jain's fairness index",
                      paper_col="paper_fairness", title="Fairness, 2 background + 2 competing flows")  # fmt: skip
    return [
        _save(fig, outdir, "fairness_vs_maxp"),
        _queue_figure(_table(tables, "fairness_queue_region"), None, "background", outdir, "fairness_queue_region"),
    ]


def bulk_figures(tables: Tables, outdir: Path) -> list[Path]:
    t = _table(tables, "bulk").copy()
    t["advantage_pct"], t["advantage_pct_ci95"] = 100 * t["advantage"], 100 * t["advantage_ci95"]
    t["paper_pct"] = 100 * t["paper_advantage"]
    fig = line_panels(t, panel="variant", hue="congestion", y="advantage_pct", paper_col="paper_pct",
                      ylabel="ECN relative advantage (%)", title="Bulk: (goodput ECN − non-ECN) / non-ECN")  # fmt: skip
    fig2 = line_panels(t, panel="variant", hue="congestion", y="retransmits_nonecn",
                       style=[("retransmits_ecn", " (ECN)", "--")], ylabel="retransmitted packets per 20 MB",
                       title="Bulk: retransmissions, non-ECN (solid) vs ECN (dashed)")  # fmt: skip
    q = _table(tables, "bulk_queue_region")
    return [
        _save(fig, outdir, "bulk_advantage_vs_maxp"),
        _save(fig2, outdir, "bulk_retransmits_vs_maxp"),
        _queue_figure(q[q["variant"] == q["variant"].iloc[0]], None, "congestion", outdir, "bulk_queue_region"),
    ]


def transactional_figures(tables: Tables, outdir: Path) -> list[Path]:
    t = _table(tables, "transactional").copy()
    t["gain_pct"], t["gain_pct_ci95"] = 100 * t["gain"], 100 * t["gain_ci95"]
    t["paper_pct"] = 100 * t["paper_gain"]
    out = []
    for variant in dict.fromkeys(t["variant"]):
        v = t[t["variant"] == variant]
        fig = line_panels(v, panel="congestion", hue="response", y="tps_ecn", paper_col="paper_tps_ecn",
                          style=[("tps_nonecn", " non-ECN", "--")], ylabel="transactions per second",
                          title=f"Transactional ({variant}): ECN (solid) vs non-ECN (dashed)")  # fmt: skip
        out.append(_save(fig, outdir, f"transactional_tps_vs_maxp_{variant}"))
    fig = line_panels(t[t["congestion"] == "high"], panel="variant", hue="response", y="gain_pct",
                      paper_col="paper_pct", ylabel="ECN relative gain (%)",
                      title="Transactional gain at high congestion")  # fmt: skip
    out.append(_save(fig, outdir, "transactional_gain_vs_maxp_high"))
    q = _table(tables, "transactional_queue_region")
    q = q[(q["variant"] == q["variant"].iloc[0]) & (q["response"] == q["response"].iloc[0])]
    out.append(_queue_figure(q, None, "congestion", outdir, "transactional_queue_region"))
    return out

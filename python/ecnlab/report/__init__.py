"""``ecnlab report DIR``: a static ``DIR/report.html`` of a sweep, built from the results store only.

The page has the sweep definition, versions, a table of means over seeds,
figures of the key metrics and every run. :class:`Report` is the reusable
renderer: experiments (``ecnlab.experiments``) add their own sections to it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.report.page import Report, Section, markdown_to_html

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = [
    "Report",
    "Section",
    "markdown_to_html",
    "sweep_report",
    "report_title",
    "add_sweep_sections",
    "add_sender_section",
    "REPORT_FILE",
    "FIGURE_METRICS",
]

REPORT_FILE = "report.html"
# Counts after the warm-up, beside goodput, utilisation and delays, which count after it too.
FIGURE_METRICS = (
    "goodput_bps",
    "utilization",
    "drops_after_warmup",
    "marks_after_warmup",
    "fairness",
    "avg_qlen_pkts",
    "sojourn_p99_ms",
)
TABLE_METRICS = (
    "goodput_bps",
    "utilization",
    "fairness",
    "marks_after_warmup",
    "drops_after_warmup",
    "avg_qlen_pkts",
    "sojourn_p50_ms",
    "sojourn_p99_ms",
    "retransmits_after_warmup",
    "timeouts_after_warmup",
    "ecn_reductions_after_warmup",
)


def sweep_report(results: SweepResults | str | Path, out: str | Path | None = None) -> Path:
    """Write ``report.html`` (default: in the sweep directory) with figures beside it; return its path."""
    from ecnlab.store import SweepResults, load

    res = results if isinstance(results, SweepResults) else load(results)
    page = Path(out) if out is not None else res.path / REPORT_FILE
    report = Report(report_title(res.manifest))
    add_sweep_sections(report, res, page.parent / "figures")
    return report.write(page)


def report_title(manifest: dict[str, Any]) -> str:
    """The sweep's description (what it asks), else its file's name."""
    description = str(manifest.get("description") or "").strip()
    return description or f"ecnlab sweep: {Path(manifest.get('sweep_file', 'sweep')).name}"


def add_sweep_sections(report: Report, res: SweepResults, figdir: Path) -> None:
    """The standard sections of a sweep: overview, means over seeds, figures, definition, runs."""
    m = res.manifest
    report.add_section("Overview", html_body=_overview(res))
    means = mean_table(res)
    if means is not None:
        report.add_section(
            "Means over seeds",
            "Each row averages the runs that differ only in their seed (`n` runs).",
            tables=[with_units(means)],
        )
    add_sender_section(report, res)
    figures = default_figures(res, figdir)
    if figures:
        report.add_section(
            "Figures",
            "Mean over seeds and its 95 % Student-t interval, clipped to the quantity's physical range "
            "(each figure's caption says which).",
            figures=figures,
        )
    body = f"<p><code>{html.escape(m.get('sweep_file', ''))}</code></p><pre>{html.escape(m.get('sweep', ''))}</pre>"
    if m.get("base_scenario"):
        body += f"<details><summary>base scenario</summary><pre>{html.escape(m['base_scenario'])}</pre></details>"
    report.add_section("Sweep definition", html_body=body)
    cols = [c for c in ["run", "seed", *res.axes, "bottleneck", *TABLE_METRICS] if c in res.runs.columns]
    report.add_section("All runs", "One row per run (`runs.parquet`).", tables=[with_units(res.runs[cols])])


def add_sender_section(report: Report, res: SweepResults) -> None:
    """Each sender's share, queueing delay, marks and drops per cell (``analysis/senders.py``), when some
    run mixes congestion controls: what one sender's numbers become beside another."""
    if res.flows.empty or "cc" not in res.flows or not (res.flows.groupby("run")["cc"].nunique() > 1).any():
        return
    from ecnlab.analysis.senders import sender_cells

    report.add_section(
        "Per sender",
        "Means over seeds, one row per cell and flow: its share of the run's goodput, the mean and p99 sojourn "
        "of the part of the bottleneck queue its packets pass (FQ-CoDel: its own queue; DualPI2: its class; "
        "otherwise the whole queue), and its CE-marked and dropped packets after the warm-up.",
        tables=[with_units(sender_cells(res))],
    )


# Columns shown in other units in the report's tables: name -> (header, scale).
_SHOWN = {
    "goodput_bps": ("goodput per flow (Mbit/s)", 1e-6),
    "goodput_total_bps": ("total goodput (Mbit/s)", 1e-6),
    "utilization": ("utilisation (%)", 100.0),
    "sojourn_p50_ms": ("p50 delay (ms)", 1.0),
    "sojourn_p99_ms": ("p99 delay (ms)", 1.0),
}


def with_units(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for reading: goodput in Mbit/s, utilisation in % (as the figures show them)."""
    out = frame.copy()
    for col, (_header, scale) in _SHOWN.items():
        if col in out.columns:
            out[col] = out[col] * scale
    return out.rename(columns={c: h for c, (h, _) in _SHOWN.items() if c in out.columns})


def _overview(res: SweepResults) -> str:
    m = res.manifest
    runs = m.get("runs", {})
    rows: list[tuple[str, Any]] = [
        ("description", m.get("description") or "–"),
        ("runs", f"{runs.get('complete')} of {runs.get('total')} complete"),
        ("axes", "; ".join(f"{a['column']} = {', '.join(map(_show, a['values']))}" for a in m.get("axes", []))),
        ("seeds", ", ".join(str(s) for s in m.get("seeds", []))),
        ("ecnlab", m.get("ecnlab_version")),
        ("git commit", f"{m.get('git_commit')}{' (with local changes)' if m.get('git_dirty') else ''}"),
        ("written", m.get("created")),
        ("python", m.get("python")),
        ("packages", ", ".join(f"{k} {v}" for k, v in m.get("packages", {}).items())),
    ]
    if runs.get("failed"):
        rows.append(("failed runs", ", ".join(runs["failed"])))
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in rows)
    return f'<dl class="meta">{items}</dl>'


def _show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def mean_table(res: SweepResults) -> pd.DataFrame | None:
    """Key metrics averaged over seeds for each combination of axis values (grid order)."""
    if res.runs.empty:
        return None
    metrics = [c for c in TABLE_METRICS if c in res.runs.columns]
    grouped = res.runs.groupby(res.axes, sort=False, dropna=False)
    table = grouped[metrics].mean()
    table.insert(0, "n", grouped.size())
    return table.reset_index()


def default_figures(res: SweepResults, figdir: Path) -> list[Path]:
    """PNG paths of the key metrics against the sweep's axes (first numeric axis on x).

    Up to three axes are shown (x, hue, facet); further axes are fixed to
    their first value, which the figure file name states.
    """
    from ecnlab.plots import plot

    if res.runs.empty or not res.axes:
        return []
    axes = sorted(res.axes, key=lambda a: not _numeric(res.runs[a]))
    x, hue, facet = (axes + [None, None])[:3]
    fixed = {a: res.runs[a].iloc[0] for a in axes[3:]}
    suffix = "".join(f"-{a}={v}" for a, v in fixed.items())
    paths = []
    for metric in FIGURE_METRICS:
        if metric not in res.runs.columns or res.runs[metric].isna().all():
            continue
        name = f"{metric}-vs-{x}" + (f"-by-{hue}" if hue else "") + (f"-per-{facet}" if facet else "") + suffix
        png, _svg = plot(res, x=str(x), y=metric, hue=hue, facet=facet, where=fixed, out=figdir / name)
        paths.append(png)
    return paths


def _numeric(column: pd.Series) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column))

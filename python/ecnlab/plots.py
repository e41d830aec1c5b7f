"""Figures from a sweep's results: a metric against an axis, mean and 95 % confidence interval over seeds.

Plots read the results store only (``runs.parquet``, ``flows.parquet``,
``queues.parquet``); they never run a simulation. Every figure is written as
PNG and SVG.

The interval is Student's t: mean ± t(0.975, n−1)·s/√n over the n seeds of
each point (s the sample standard deviation); a point from one seed has none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.errors import EcnlabError
from ecnlab.files import write_figure

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = ["plot", "aggregate", "t_critical", "label_for", "PlotError", "save_figure", "pyplot"]

# Two-sided 95 % Student t critical values t(0.975, df), df = 1..30 (standard tables).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959964

# metric -> (what, unit, scale applied to the values)
_METRICS: dict[str, tuple[str, str, float]] = {
    "goodput_bps": ("mean goodput per flow", "Mbit/s", 1e-6),
    "goodput_total_bps": ("total goodput", "Mbit/s", 1e-6),
    "utilization": ("bottleneck utilisation", "%", 100.0),
    "marks": ("CE marks at the bottleneck", "packets", 1.0),
    "early_drops": ("early drops at the bottleneck", "packets", 1.0),
    "forced_drops": ("forced drops at the bottleneck", "packets", 1.0),
    "overflow_drops": ("overflow drops at the bottleneck", "packets", 1.0),
    "drops": ("drops at the bottleneck", "packets", 1.0),
    "avg_qlen_pkts": ("mean queue length", "packets", 1.0),
    "max_qlen_pkts": ("largest queue length", "packets", 1.0),
    "sojourn_p50_ms": ("median queue delay", "ms", 1.0),
    "sojourn_p99_ms": ("p99 queue delay", "ms", 1.0),
    "sojourn_p999_ms": ("p99.9 queue delay", "ms", 1.0),
    "fairness": ("Jain's fairness index", "0-1", 1.0),
    "retransmits": ("retransmitted packets", "packets", 1.0),
    "fast_retransmits": ("fast retransmits", "count", 1.0),
    "timeouts": ("retransmission timeouts", "count", 1.0),
    "ecn_reductions": ("ECN window reductions", "count", 1.0),
    "transactions": ("transactions", "count", 1.0),
    "completion_time_s": ("completion time", "s", 1.0),
    "bytes_delivered": ("bytes delivered", "MB", 1e-6),
    "max_p": ("max_p", "probability", 1.0),
}
_SUFFIX_UNITS = (("_bps", "bit/s"), ("_s", "s"), ("_pkts", "packets"), ("_bytes", "bytes"))


class PlotError(EcnlabError, ValueError):
    """A plot request that the results cannot answer (unknown column, an unplotted varying axis)."""


def t_critical(df: int) -> float:
    """t(0.975, df): the table for df ≤ 30, a Cornish-Fisher expansion beyond (error < 1e-4)."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def label_for(column: str) -> tuple[str, float]:
    """(axis label with unit, scale for the values) of a column."""
    if column in _METRICS:
        what, unit, scale = _METRICS[column]
        return f"{what} ({unit})", scale
    for suffix, unit in _SUFFIX_UNITS:
        if column.endswith(suffix):
            return f"{column} ({unit})", 1.0
    return column, 1.0


def _pick_table(results: SweepResults, y: str, table: str | None) -> pd.DataFrame:
    tables = {"runs": results.runs, "flows": results.flows, "queues": results.queues}
    if table is not None:
        if table not in tables:
            raise PlotError(f"--table {table!r}: must be one of runs, flows, queues")
        if y not in tables[table].columns:
            raise PlotError(f"--y {y!r}: not a column of {table}.parquet")
        return tables[table]
    for name in ("runs", "flows", "queues"):
        if y in tables[name].columns:
            return tables[name]
    raise PlotError(f"--y {y!r}: not a result column (runs.parquet: {', '.join(results.runs.columns)})")


def _check_numeric(frame: pd.DataFrame, y: str) -> None:
    """``y`` must be numbers (not names such as ``id`` or lists such as ``transfer_times_s``)."""
    import pandas as pd

    col = frame[y]
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
        numeric = [c for c in numeric if not pd.api.types.is_bool_dtype(frame[c])]
        raise PlotError(f"--y {y!r}: not a numeric column (numeric columns there: {', '.join(numeric)})")


def aggregate(
    frame: pd.DataFrame, *, y: str, by: Sequence[str], axes: Sequence[str], where: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """Mean, CI half-width and n over seeds of ``y`` for each combination of ``by``.

    Rows of one run (several flows or links) are averaged first. Every other
    axis in ``axes`` must be constant after ``where``, so no point silently
    mixes different settings.
    """
    for col, value in (where or {}).items():
        if col not in frame.columns:
            raise PlotError(f"--where {col}: not a column (columns: {', '.join(frame.columns)})")
        frame = frame[frame[col] == value]
    if frame.empty:
        raise PlotError("no rows left after --where")
    for col in by:
        if col not in frame.columns:
            raise PlotError(f"{col!r}: not a column (axes: {', '.join(axes)})")
    varying = [a for a in axes if a not in by and frame[a].nunique(dropna=False) > 1]
    if varying:
        raise PlotError(
            f"axis {varying[0]!r} varies but is not --x, --hue or --facet; "
            f"plot it or fix it with --where {varying[0]}=VALUE"
        )
    per_run = frame.groupby(["run", *by], sort=False, dropna=False)[y].mean().reset_index()
    rows = []
    for key, group in per_run.groupby(list(by), sort=False, dropna=False):
        values = [float(v) for v in group[y] if v is not None and not math.isnan(float(v))]
        n = len(values)
        mean = sum(values) / n if n else math.nan
        half = math.nan
        if n > 1:
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
            half = t_critical(n - 1) * sd / math.sqrt(n)
        keys = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, keys, strict=True)), "mean": mean, "ci": half, "n": n})
    import pandas as pd

    return pd.DataFrame(rows)


def plot(
    results: SweepResults | str | Path,
    *,
    x: str,
    y: str,
    hue: str | None = None,
    facet: str | None = None,
    where: Mapping[str, Any] | None = None,
    table: str | None = None,
    out: str | Path | None = None,
) -> list[Path]:
    """Draw ``y`` against ``x`` (one line per ``hue``, one panel per ``facet``); return [png, svg].

    ``out`` is the file name without or with a suffix (both PNG and SVG are
    written); by default ``DIR/figures/Y-vs-X[-by-HUE][-per-FACET]``.
    """
    from ecnlab.store import SweepResults, load

    res = results if isinstance(results, SweepResults) else load(results)
    frame = _pick_table(res, y, table)
    _check_numeric(frame, y)
    by = [c for c in (facet, hue, x) if c is not None]
    if len(set(by)) != len(by):
        raise PlotError("--x, --hue and --facet must be different columns")
    points = aggregate(frame, y=y, by=by, axes=res.axes, where=where)
    name = _default_name(x, y, hue, facet, table=table, where=where)
    stem = Path(out) if out is not None else res.path / "figures" / name
    if stem.suffix.lower() in {".png", ".svg"}:
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    rows = table if table in ("flows", "queues") else None
    if rows is None and frame is not res.runs:
        rows = "flows" if frame is res.flows else "queues"
    fig = _draw(points, frame, x=x, y=y, hue=hue, facet=facet, rows=rows, where=where)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    write_figure(fig, paths[0], dpi=120, metadata={"Software": None})
    write_figure(fig, paths[1], metadata={"Date": None, "Creator": None})
    return paths


def _default_name(
    x: str,
    y: str,
    hue: str | None,
    facet: str | None,
    *,
    table: str | None = None,
    where: Mapping[str, Any] | None = None,
) -> str:
    """``Y-vs-X[-by-HUE][-per-FACET][-TABLE][-K=V...]``: a figure of other rows or a subset never
    overwrites the run-level one (which report.html links)."""
    name = f"{y}-vs-{x}"
    if hue:
        name += f"-by-{hue}"
    if facet:
        name += f"-per-{facet}"
    if table and table != "runs":
        name += f"-{table}"
    for k, v in (where or {}).items():
        name += f"-{k}={v}"
    return name.replace("/", "_").replace(">", "")


def _order(frame: pd.DataFrame, column: str) -> list[Any]:
    """Values in the order they first appear (the sweep's grid order)."""
    return list(dict.fromkeys(frame[column].tolist()))


def _draw(
    points: pd.DataFrame,
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    hue: str | None,
    facet: str | None,
    rows: str | None = None,
    where: Mapping[str, Any] | None = None,
) -> Any:
    import textwrap

    from matplotlib.figure import Figure

    facets = _order(frame, facet) if facet else [None]
    hues = _order(frame, hue) if hue else [None]
    xs = _order(frame, x)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in xs)
    ncols = min(len(facets), 3)
    nrows = math.ceil(len(facets) / ncols)
    fig = Figure(figsize=(4.8 * ncols, 3.6 * nrows), layout="constrained")
    axs = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    ylabel, scale = label_for(y)
    if rows is not None:  # per-flow or per-queue rows: the run-level wording ("at the bottleneck") does not apply
        ylabel, scale = _row_label(y, rows)
    xlabel, _ = label_for(x)
    for i, fv in enumerate(facets):
        ax = axs[i // ncols][i % ncols]
        sel = points if facet is None else points[points[facet] == fv]
        for k, hv in enumerate(hues):
            line = sel if hue is None else sel[sel[hue] == hv]
            line = line.set_index(x).reindex(xs).dropna(subset=["mean"])
            pos = list(line.index) if numeric else [xs.index(v) + (k - (len(hues) - 1) / 2) * 0.06 for v in line.index]
            err = [0.0 if math.isnan(c) else c * scale for c in line["ci"]]
            ax.errorbar(
                pos, line["mean"] * scale, yerr=err, marker="o", capsize=3, label=None if hv is None else str(hv)
            )
        if not numeric:
            ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_xlabel(xlabel)
        if facet is not None:
            ax.set_title(f"{facet} = {fv}")
        ax.grid(True, alpha=0.3)
        if hue is not None and i == 0:
            ax.legend(title=hue, fontsize="small")
    for ax in axs[:, 0]:
        ax.set_ylabel(ylabel)
    for j in range(len(facets), nrows * ncols):
        axs[j // ncols][j % ncols].set_visible(False)
    n = points["n"].max()
    subset = "".join(f", {k} = {v}" for k, v in (where or {}).items())
    over = f"mean over {rows} per run, then ± 95 % CI over {n} seed(s)" if rows else f"mean ± 95 % CI over {n} seed(s)"
    title = f"{ylabel.split(' (')[0]} vs {x}{subset}: {over}"
    # Wrapped to the figure's width (about 11 characters per inch at this size), so nothing is clipped.
    fig.suptitle(textwrap.fill(title, width=int(11 * 4.8 * ncols)), fontsize="medium")
    return fig


def _row_label(column: str, rows: str) -> tuple[str, float]:
    """The axis label of a per-flow or per-queue column: its unit, and which rows were averaged."""
    _, scale = label_for(column)
    unit = next((u for sfx, u in _SUFFIX_UNITS if column.endswith(sfx)), None)
    if column in _METRICS:
        unit = _METRICS[column][1]
    what = f"{column} per {'flow' if rows == 'flows' else 'queue'}"
    return (f"{what} ({unit})" if unit else what), scale


def plot_run(run_dir: str | Path, *, out: str | Path | None = None) -> list[Path]:
    """One run over time (``sample_interval`` > 0 records the series, ``timeseries.py``):
    each sampled queue that held packets (length with the AQM's dashed average, the
    oldest packet's sojourn, the AQM's probability, marks and drops per interval),
    then each sampled flow's cwnd and goodput per interval. Returns [png, svg]."""

    from matplotlib.figure import Figure

    from ecnlab.results import read_summary
    from ecnlab.timeseries import read_flows, read_queues

    run = Path(run_dir)
    summary = read_summary(run / "summary.json")
    queues = read_queues(run)
    queues = queues[queues.groupby("link")["qlen_pkts"].transform("max") > 0] if len(queues) else queues
    flows = read_flows(run)
    if not len(queues) and not len(flows):
        raise PlotError(f"{run}: no time series (set sample_interval > 0 in the scenario)")
    panels = _run_panels(queues, flows)
    fig = Figure(figsize=(8.0, 2.2 * len(panels)), layout="constrained")
    axs = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (ylabel, draw) in zip(axs, panels, strict=True):
        draw(ax)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    axs[-1].set_xlabel("time (s)")
    sc = summary["scenario"]
    fig.suptitle(f"{sc['name']}, seed {summary['seed']}: over time", fontsize="medium")
    stem = Path(out) if out is not None else run / "over-time"
    if stem.suffix.lower() in {".png", ".svg"}:
        stem = stem.with_suffix("")
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    write_figure(fig, paths[0], dpi=120, metadata={"Software": None})
    write_figure(fig, paths[1], metadata={"Date": None, "Creator": None})
    return paths


_LEGEND_MAX = 10  # flows or queues beyond this are drawn without a legend


def _run_panels(queues: Any, flows: Any) -> list[tuple[str, Any]]:
    """(y label, draw(ax)) for each panel of ``plot_run`` that has data."""
    panels: list[tuple[str, Any]] = []
    by_link = list(queues.groupby("link", sort=False)) if len(queues) else []
    by_flow = list(flows.groupby("flow", sort=False)) if len(flows) else []

    def per_link(column: str, scale: float = 1.0, diff: bool = False, dashed: str | None = None) -> Any:
        def draw(ax: Any) -> None:
            for name, g in by_link:
                y = g[column].diff().fillna(0) if diff else g[column]
                (line,) = ax.plot(g["t_s"], y * scale, label=name, linewidth=0.9)
                if dashed and g[dashed].notna().any():
                    ax.plot(g["t_s"], g[dashed], color=line.get_color(), linestyle="--", linewidth=0.9)
            if len(by_link) <= _LEGEND_MAX:
                ax.legend(fontsize="small")

        return draw

    def per_flow(column: str, scale: float, rate: bool = False) -> Any:
        def draw(ax: Any) -> None:
            for name, g in by_flow:
                y = g[column].astype("float64")
                if rate:
                    y = y.diff() * 8 / g["t_s"].diff()
                ax.plot(g["t_s"], y * scale, label=name, linewidth=0.8)
            if len(by_flow) <= _LEGEND_MAX:
                ax.legend(fontsize="small", ncols=2)

        return draw

    if by_link:
        panels.append(("queue (packets;\ndashed: AQM average)", per_link("qlen_pkts", dashed="avg_pkts")))
        panels.append(("oldest packet's\nsojourn (ms)", per_link("delay_ms")))
        if queues["prob"].notna().any():
            panels.append(("AQM probability", per_link("prob")))
        if (queues["marks"].max() or 0) > 0:
            panels.append(("CE marks per\ninterval", per_link("marks", diff=True)))
        if (queues["drops"].max() or 0) > 0:
            panels.append(("drops per\ninterval", per_link("drops", diff=True)))
    if by_flow:
        panels.append(("cwnd (kB)", per_flow("cwnd_bytes", 1e-3)))
        panels.append(("goodput (Mbit/s)", per_flow("delivered_bytes", 1e-6, rate=True)))
    return panels


def save_figure(fig: Any, outdir: Path, stem: str, *, dpi: int = 110) -> Path:
    """Write ``fig`` as ``outdir/stem.png`` and ``.svg`` without dates or tool versions (so the
    same results give the same files), close it and return the PNG's path."""
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    png = outdir / f"{stem}.png"
    write_figure(fig, png, dpi=dpi, metadata={"Software": None})
    write_figure(fig, outdir / f"{stem}.svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return png


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt

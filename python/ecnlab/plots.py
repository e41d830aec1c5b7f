"""Figures from a sweep's results: a metric against an axis, mean and interval over seeds.

Plots read the results store only (``runs.parquet``, ``flows.parquet``,
``queues.parquet``); they never run a simulation. Every figure is written as
PNG and SVG. Rules, so that a figure cannot mislead:

- a numeric x axis (max_p, a rate) joins its points with lines; a categorical one (aqm, ecn)
  draws each hue's points side by side at each category, never a line between categories;
- each point is the mean over seeds with the interval of ``intervals.py`` (Student t, clipped
  to the quantity's physical range, ``quantities.py``), and the caption names that method;
- a point is one row per run: nothing is averaged across links, flows or classes. Over
  ``queues.parquet`` without a ``link`` chosen (``--where link=…``, or ``link`` as x, hue or
  facet) each run's bottleneck queue (runs.parquet ``bottleneck``) is taken and the title
  says so; over ``flows.parquet`` with several flows per run the plot refuses, naming the
  ``--where id=…`` it needs;
- one label style: the axis ``quantity (unit)``, the title ``quantity where vs x`` on one
  line (the figure is as wide as it needs), the caption over what and how.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.errors import EcnlabError
from ecnlab.files import write_figure as write_file
from ecnlab.intervals import METHOD, interval, t_critical
from ecnlab.quantities import RUN_SCOPE, Quantity, quantity

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.store import SweepResults

__all__ = [
    "plot",
    "figure",
    "write_figure",
    "aggregate",
    "t_critical",
    "label_for",
    "PlotError",
    "save_figure",
    "pyplot",
]

TABLES = ("runs", "flows", "queues")
_ROW_KEY = {"flows": "id", "queues": "link"}  # the column naming a row of one run
_CHARS_PER_INCH = 11  # of a title at the "medium" font size (a caption at "small" is narrower)


class PlotError(EcnlabError, ValueError):
    """A plot request that the results cannot answer (unknown column, an unplotted varying axis)."""


def label_for(column: str) -> tuple[str, float]:
    """(axis label ``quantity (unit)``, scale to that unit) of a column."""
    q = quantity(column)
    return q.label, q.scale


def _frames(results: SweepResults) -> dict[str, pd.DataFrame]:
    return {"runs": results.runs, "flows": results.flows, "queues": results.queues}


def _pick_table(results: SweepResults, y: str, table: str | None) -> str:
    tables = _frames(results)
    if table is not None:
        if table not in tables:
            raise PlotError(f"--table {table!r}: must be one of runs, flows, queues")
        if y not in tables[table].columns:
            raise PlotError(f"--y {y!r}: not a column of {table}.parquet{_elsewhere(results, y, table)}")
        return table
    for name in TABLES:
        if y in tables[name].columns:
            return name
    raise PlotError(f"--y {y!r}: not a result column (runs.parquet: {', '.join(results.runs.columns)})")


def _elsewhere(results: SweepResults, column: str, table: str) -> str:
    """``; it is a column of flows.parquet: add --table flows`` when another table has it."""
    others = [n for n, f in _frames(results).items() if n != table and column in f.columns]
    return f"; it is a column of {others[0]}.parquet: add --table {others[0]}" if others else ""


def _check_columns(results: SweepResults, table: str, options: Sequence[tuple[str, str | None]]) -> None:
    """Every ``--x``/``--hue``/``--facet``/``--where`` column must be in the table plotted."""
    frame = _frames(results)[table]
    for option, col in options:
        if col is not None and col not in frame.columns:
            hint = _elsewhere(results, col, table) or f" (axes: {', '.join(results.axes)})"
            raise PlotError(f"{option} {col!r}: not a column of {table}.parquet{hint}")


def _check_numeric(frame: pd.DataFrame, y: str) -> None:
    """``y`` must be numbers (not names such as ``id`` or lists such as ``transfer_times_s``)."""
    import pandas as pd

    col = frame[y]
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
        numeric = [c for c in numeric if not pd.api.types.is_bool_dtype(frame[c])]
        raise PlotError(f"--y {y!r}: not a numeric column (numeric columns there: {', '.join(numeric)})")


def _select(frame: pd.DataFrame, where: Mapping[str, Any] | None) -> pd.DataFrame:
    for col, value in (where or {}).items():
        if col not in frame.columns:
            raise PlotError(f"--where {col}: not a column (columns: {', '.join(frame.columns)})")
        frame = frame[frame[col] == value]
    if frame.empty:
        raise PlotError("no rows left after --where")
    return frame


def _rows_per_point(frame: pd.DataFrame, by: Sequence[str]) -> int:
    return int(frame.groupby(["run", *by], sort=False, dropna=False).size().max())


def _at_bottleneck(links: list[Any]) -> str:
    """``at the bottleneck (R1->R2)``; ``at each run's bottleneck`` when the runs' differ."""
    return f"at the bottleneck ({links[0]})" if len(links) == 1 else "at each run's bottleneck"


def one_row_per_run(
    results: SweepResults, table: str, frame: pd.DataFrame, y: str, by: Sequence[str], where: Mapping[str, Any]
) -> tuple[pd.DataFrame, str]:
    """The rows a point is drawn from, one per run, and where they were taken (for the title).
    Over queues without a link chosen: each run's bottleneck; over flows: refused unless one
    flow per run is left."""
    frame = _select(frame, where)
    if table == "runs":
        scope = RUN_SCOPE.get(y, "")
        at_bottleneck = scope == "at the bottleneck" and "bottleneck" in frame.columns
        return frame, _at_bottleneck(list(dict.fromkeys(frame["bottleneck"]))) if at_bottleneck else scope
    key = _ROW_KEY[table]
    if _rows_per_point(frame, by) > 1 and table == "queues":
        bottleneck = results.runs.set_index("run")["bottleneck"]
        frame = frame[frame[key] == frame["run"].map(bottleneck)]
        if frame.empty:
            raise PlotError("no run's bottleneck is among the queues left after --where")
        return frame, _at_bottleneck(list(dict.fromkeys(frame[key])))
    n = _rows_per_point(frame, by)
    if n > 1:
        first = frame[key].iloc[0]
        raise PlotError(
            f"--table {table}: {n} {table} per run would be averaged into one point; pick one with "
            f"--where {key}={first}, draw each with --hue {key}, or plot the run-level column from runs.parquet"
        )
    names = list(dict.fromkeys(frame[key]))
    if len(names) != 1 or key in by:
        return frame, ""
    return frame, f"at {names[0]}" if table == "queues" else f"of flow {names[0]}"


def aggregate(
    frame: pd.DataFrame,
    *,
    y: str,
    by: Sequence[str],
    axes: Sequence[str],
    where: Mapping[str, Any] | None = None,
    low: float | None = None,
    high: float | None = None,
) -> pd.DataFrame:
    """Mean, interval (``intervals.py``: ``lo``, ``hi``, clipped to [``low``, ``high``]; ``ci`` the
    t half-width) and n over seeds of ``y`` for each combination of ``by``.

    Each point takes one row per run (several rows of one run are refused: that would average
    links or flows). Every other axis in ``axes`` must be constant after ``where``, so no point
    silently mixes different settings.
    """
    import pandas as pd

    frame = _select(frame, where)
    for col in by:
        if col not in frame.columns:
            raise PlotError(f"{col!r}: not a column (axes: {', '.join(axes)})")
    varying = [a for a in axes if a not in by and frame[a].nunique(dropna=False) > 1]
    if varying:
        raise PlotError(
            f"axis {varying[0]!r} varies but is not --x, --hue or --facet; "
            f"plot it or fix it with --where {varying[0]}=VALUE"
        )
    n = _rows_per_point(frame, by)
    if n > 1:
        raise PlotError(f"{n} rows of one run would be averaged into one point; choose one with --where")
    rows = []
    for key, group in frame.groupby(list(by), sort=False, dropna=False):
        iv = interval([float("nan") if v is None else float(v) for v in group[y]], low, high)
        keys = key if isinstance(key, tuple) else (key,)
        point = {"mean": iv.mean, "ci": iv.half, "lo": iv.lo, "hi": iv.hi, "n": iv.n, "clipped": iv.clipped}
        rows.append({**dict(zip(by, keys, strict=True)), **point})
    return pd.DataFrame(rows)


def figure(
    results: SweepResults | str | Path,
    *,
    x: str,
    y: str,
    hue: str | None = None,
    facet: str | None = None,
    where: Mapping[str, Any] | None = None,
    table: str | None = None,
) -> Any:
    """The matplotlib Figure :func:`plot` writes (not saved)."""
    import pandas as pd

    from ecnlab.store import SweepResults, load

    res = results if isinstance(results, SweepResults) else load(results)
    name = _pick_table(res, y, table)
    frame = _frames(res)[name]
    _check_numeric(frame, y)
    by = [c for c in (facet, hue, x) if c is not None]
    if len(set(by)) != len(by):
        raise PlotError("--x, --hue and --facet must be different columns")
    where = dict(where or {})
    _check_columns(res, name, [("--x", x), ("--hue", hue), ("--facet", facet), *(("--where", k) for k in where)])
    rows, at = one_row_per_run(res, name, frame, y, by, where)
    q = quantity(y, integer=pd.api.types.is_integer_dtype(frame[y]), table=name)
    points = aggregate(rows, y=y, by=by, axes=res.axes, low=q.low, high=q.high)
    shown = {k: v for k, v in where.items() if not (name != "runs" and k == _ROW_KEY[name] and at)}
    return _draw(points, rows, x=x, hue=hue, facet=facet, q=q, at=at, where=shown)


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
    """Draw ``y`` against ``x`` (one series per ``hue``, one panel per ``facet``); return [png, svg].

    ``out`` is the file name without or with a suffix (both PNG and SVG are
    written); by default ``DIR/figures/Y-vs-X[-by-HUE][-per-FACET]``.
    """
    from ecnlab.store import SweepResults, load

    res = results if isinstance(results, SweepResults) else load(results)
    fig = figure(res, x=x, y=y, hue=hue, facet=facet, where=where, table=table)
    name = _default_name(x, y, hue, facet, table=table, where=where)
    return write_figure(fig, Path(out) if out is not None else res.path / "figures" / name)


def write_figure(fig: Any, stem: Path, *, dpi: int = 120) -> list[Path]:
    """Write ``fig`` as ``stem.png`` and ``stem.svg`` (a ``.png``/``.svg`` suffix of ``stem`` is
    dropped), with no dates or tool versions and the SVG's element ids from a fixed salt, so the
    same results give byte-identical files; return [png, svg]."""
    import matplotlib

    if stem.suffix.lower() in {".png", ".svg"}:
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.parent / f"{stem.name}.png", stem.parent / f"{stem.name}.svg"]  # "max_p=0.1" keeps its ".1"
    with matplotlib.rc_context({"svg.hashsalt": "ecnlab"}):
        write_file(fig, paths[0], dpi=dpi, metadata={"Software": None})  # each written whole
        write_file(fig, paths[1], metadata={"Date": None, "Creator": None})
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


def is_numeric_axis(values: Sequence[Any]) -> bool:
    """Numbers (not booleans) are a numeric axis; anything else is categories."""
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _caption(points: pd.DataFrame, q: Quantity) -> str:
    counts = sorted({int(n) for n in points["n"]})
    seeds = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    if counts[-1] < 2:
        return "points: one run each (one seed: no interval)"
    bounds = q.range_text()
    method = f"{METHOD}, clipped to {bounds}" if bounds else METHOD
    return f"points: mean over {seeds} seeds; bars: {method}"


def _draw(
    points: pd.DataFrame,
    frame: pd.DataFrame,
    *,
    x: str,
    hue: str | None,
    facet: str | None,
    q: Quantity,
    at: str = "",
    where: Mapping[str, Any] | None = None,
) -> Any:
    import math

    from matplotlib.figure import Figure

    facets = _order(frame, facet) if facet else [None]
    hues = _order(frame, hue) if hue else [None]
    xs = _order(frame, x)
    numeric = is_numeric_axis(xs)
    subset = "".join(f", {k} = {v}" for k, v in (where or {}).items())
    title = f"{q.what}{' ' + at if at else ''} vs {x}{subset}"
    caption = _caption(points, q)
    ncols = min(len(facets), 3)
    nrows = math.ceil(len(facets) / ncols)
    width = max(4.8 * ncols, len(title) / _CHARS_PER_INCH + 0.6, len(caption) / (_CHARS_PER_INCH + 2) + 0.6)
    fig = Figure(figsize=(width, 3.6 * nrows), layout="constrained")
    axs = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    for i, fv in enumerate(facets):
        ax = axs[i // ncols][i % ncols]
        sel = points if facet is None else points[points[facet] == fv]
        for k, hv in enumerate(hues):
            series = sel if hue is None else sel[sel[hue] == hv]
            series = series.set_index(x).reindex(xs).dropna(subset=["mean"])
            spread = 0.5 / max(len(hues), 1)  # hues side by side within a category
            pos = (
                list(series.index)
                if numeric
                else [xs.index(v) + (k - (len(hues) - 1) / 2) * spread for v in series.index]
            )
            mean = series["mean"] * q.scale
            below = [0.0 if math.isnan(v) else v for v in (series["mean"] - series["lo"]) * q.scale]
            above = [0.0 if math.isnan(v) else v for v in (series["hi"] - series["mean"]) * q.scale]
            ax.errorbar(
                pos,
                mean,
                yerr=[below, above],
                marker="o",
                linestyle="-" if numeric else "none",
                capsize=3,
                label=None if hv is None else str(hv),
            )
        if not numeric:
            ax.set_xticks(range(len(xs)), [str(v) for v in xs])
            ax.set_xlim(-0.5, len(xs) - 0.5)
        ax.set_xlabel(quantity(x).label)
        if facet is not None:
            ax.set_title(f"{facet} = {fv}")
        ax.grid(True, alpha=0.3)
        if hue is not None and i == 0:
            ax.legend(title=hue, fontsize="small")
    for ax in axs[:, 0]:
        ax.set_ylabel(q.label)
    for j in range(len(facets), nrows * ncols):
        axs[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(title, fontsize="medium")
    fig.supxlabel(caption, fontsize="small")
    return fig


def plot_run(run_dir: str | Path, *, out: str | Path | None = None) -> list[Path]:
    """One run over time (:func:`run_figure`), written beside it as ``over-time``; returns [png, svg]."""
    run = Path(run_dir)
    fig = run_figure(run)
    return write_figure(fig, Path(out) if out is not None else run / "over-time")


def run_figure(run_dir: str | Path) -> Any:
    """One run over time (``sample_interval`` > 0 records the series, ``timeseries.py``): each
    sampled queue that held packets (length with the AQM's dashed average, the oldest packet's
    sojourn, the AQM's probability, marks and drops per interval), then each sampled flow's cwnd
    and goodput per interval; one line per queue or flow, nothing averaged."""
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
    return fig


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

    png, _svg = write_figure(fig, outdir / stem, dpi=dpi)
    plt.close(fig)
    return png


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt

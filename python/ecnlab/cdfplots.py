"""Distribution figures: the CDF or CCDF of queueing delay, RTT samples or flow completion times
(``distributions.py``), several runs or sweep cells on one axis.

Rules, as for ``plots.py``'s figures:

- a line is one distribution: of one run, or of one sweep cell (its runs of one set of axis
  values, every seed) with the seeds' samples pooled (each run's packets or samples counted once,
  never averaged); the caption says how many runs each line pools;
- nothing is merged across queues, classes or flows: a line is one queue (``--where link=…``;
  by default each run's bottleneck, runs.parquet ``bottleneck``, and the title says so), and of a
  queue that keeps a histogram per class (DualPI2) or per flow (FQ-CoDel), one class or flow
  (``--where class=L``, ``--where flow=NAME``, the whole queue with ``--where class=all``) or each
  of them (``--hue class``, ``--hue flow``, or ``--hue part``: each class or flow, whichever the
  queue keeps); RTT samples are per flow, completion times per flow entry: a figure that would
  merge several refuses, naming the ``--where`` it needs;
- one label style: the x axis ``quantity (unit)``, the y axis the fraction of packets, samples or
  flows at or below x (CDF, linear) or above x (CCDF, logarithmic), the title ``quantity CDF
  where`` on one line, each line labelled ``axis = value, …`` then its class or flow, the caption
  over what and how.
- ``--beside METRIC`` adds a panel with each flow's METRIC (flows.parquet, e.g. ``goodput_bps``)
  per line's cell: the mean over seeds of that flow with ``intervals.py``'s interval, one bar
  per flow, never a mean across flows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.plots import PlotError, write_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["KINDS", "distribution_figure", "plot_distribution"]


@dataclass(frozen=True)
class Kind:
    """One distribution a figure can draw."""

    what: str  # "queueing delay"
    unit: str
    samples: str  # what the fraction counts: "packets"
    keys: tuple[str, ...]  # the columns that name one distribution within a run


KINDS = {
    "sojourn": Kind("queueing delay", "ms", "packets", ("link", "class", "flow")),
    "rtt": Kind("smoothed RTT", "ms", "samples", ("flow",)),
    "fct": Kind("flow completion time", "s", "flows", ("entry",)),
}
_WHOLE = "all"  # --where class=all: the whole queue's histogram
_PLURAL = {"flow": "flows", "entry": "entries"}


@dataclass
class Line:
    """One line: its label parts, the runs it pools, its (value, weight) samples."""

    label: list[str]
    runs: int = 0
    values: list[Any] = field(default_factory=list)
    weights: list[Any] = field(default_factory=list)
    cell: dict[str, Any] = field(default_factory=dict)


def _samples(run_dir: Path, kind: str) -> pd.DataFrame:
    """One run's samples: the kind's key columns, ``value`` and ``weight``."""
    from ecnlab import distributions as d
    from ecnlab.results import read_summary
    from ecnlab.timeseries import read_flows

    if kind == "sojourn":
        f = d.read_sojourn(run_dir)
        return f.assign(value=f["value_ns"].astype("float64") / 1e6, weight=f["count"].astype("float64"))
    if kind == "rtt":
        warmup = d._warmup_s(read_summary(run_dir / "summary.json"))
        f = read_flows(run_dir)
        f = f[(f["t_s"] >= warmup) & f["srtt_ms"].notna()] if len(f) else f
        return f.assign(value=f["srtt_ms"].astype("float64"), weight=1.0)[["flow", "value", "weight"]]
    import pandas as pd

    rows = [(e, t, 1.0) for e, times in d.fct_samples(read_summary(run_dir / "summary.json")) for t in times]
    return pd.DataFrame(rows, columns=["entry", "value", "weight"])


def _select_sojourn(f: pd.DataFrame, link: str, where: Mapping[str, Any], hue: str | None) -> pd.DataFrame:
    """The rows of one queue's histograms a figure draws (module rules); refuses merging."""
    q = f[f["link"] == link]
    if q.empty:
        links = ", ".join(dict.fromkeys(f["link"])) or "none"
        raise PlotError(f"--where link={link}: no sojourn histogram there (router queues: {links})")
    whole = q[q["class"].isna() & q["flow"].isna()]
    classes, flows = q[q["class"].notna()], q[q["flow"].notna()]
    wc, wf = where.get("class"), where.get("flow")
    if _WHOLE in (wc, wf):
        return whole
    if wc is not None or wf is not None:
        col, value, part = ("class", wc, classes) if wc is not None else ("flow", wf, flows)
        rows = part[part[col] == value]
        if rows.empty:
            there = ", ".join(str(n) for n in dict.fromkeys(part[col])) or "none"
            raise PlotError(f"--where {col}={value}: queue {link} has no such {col} (histograms there: {there})")
        return rows
    if hue in ("class", "flow", "part"):
        parts = {"class": classes, "flow": flows, "part": classes if len(classes) else flows}[hue]
        if parts.empty:
            raise PlotError(f"--hue {hue}: queue {link} keeps no histogram per {hue} (only the whole queue's)")
        return parts
    for col, part in (("class", classes), ("flow", flows)):
        if len(part):
            found = [str(n) for n in dict.fromkeys(part[col])]
            raise PlotError(
                f"queue {link} keeps a sojourn histogram per {col} ({', '.join(found[:6])}); pick one "
                f"with --where {col}={found[0]}, draw each with --hue {col}, or the whole queue with "
                f"--where class={_WHOLE}"
            )
    return whole


def _select(f: pd.DataFrame, kind: str, where: Mapping[str, Any], hue: str | None, link: str | None) -> pd.DataFrame:
    """The rows of one run a figure draws, with a ``part`` column naming each line's class or flow."""
    if kind == "sojourn":
        assert link is not None
        rows = _select_sojourn(f, link, where, hue)
        part = rows["class"].where(rows["class"].notna(), rows["flow"])
        prefix = rows["class"].notna().map({True: "class ", False: "flow "})
        return rows.assign(part=(prefix + part.astype(str)).where(part.notna(), None))
    key = KINDS[kind].keys[0]
    rows = f
    if key in where:
        rows = f[f[key] == where[key]]
        if rows.empty:
            names = ", ".join(map(str, dict.fromkeys(f[key]))) or "none"
            raise PlotError(f"--where {key}={where[key]}: no such {key} ({_PLURAL[key]} with samples: {names})")
    keys = [str(n) for n in dict.fromkeys(rows[key])]
    if len(keys) > 1 and hue not in (key, "part"):
        raise PlotError(
            f"--cdf {kind}: {len(keys)} {_PLURAL[key]} per run would be merged into one line; pick one with "
            f"--where {key}={keys[0]} or draw each with --hue {key}"
        )
    return rows.assign(part=[f"{key} {v}" for v in rows[key]] if hue in (key, "part") else None)


def _sources(dirs: Sequence[Path], where: Mapping[str, Any]) -> list[tuple[dict[str, Any], list[tuple[Path, str]]]]:
    """(cell's axis values, [(run dir, its bottleneck)]) per line source: each sweep cell, each run."""
    from ecnlab.results import read_summary
    from ecnlab.store import MANIFEST, RUNS_DIR, load, run_metrics

    out: list[tuple[dict[str, Any], list[tuple[Path, str]]]] = []
    for d in dirs:
        if (d / MANIFEST).is_file():
            res = load(d)
            runs = res.runs
            for col, value in where.items():
                if col in res.axes:
                    runs = runs[runs[col] == value]
            if runs.empty:
                raise PlotError(f"{d}: no run left after --where")
            axes = [a for a in res.axes if a != "seed"]
            for key, g in runs.groupby(axes, sort=False, dropna=False) if axes else [((), runs)]:
                keys = key if isinstance(key, tuple) else (key,)
                members = [(d / RUNS_DIR / r, b) for r, b in zip(g["run"], g["bottleneck"], strict=True)]
                out.append((dict(zip(axes, keys, strict=True)), members))
        else:
            summary = read_summary(d / "summary.json")
            out.append(({"run": d.name}, [(d, run_metrics(summary)["bottleneck"])]))
    return out


def _lines(dirs: Sequence[Path], kind: str, where: Mapping[str, Any], hue: str | None) -> tuple[list[Line], list[str]]:
    """The lines to draw and the links they were taken at."""
    sources = _sources(dirs, where)
    known = {*KINDS[kind].keys, *(k for cell, _ in sources for k in cell)} - {"run"}
    for col in where:
        if col not in known:
            raise PlotError(f"--where {col}: not an axis nor one of {', '.join(KINDS[kind].keys)} (--cdf {kind})")
    varying = [
        k for k in dict.fromkeys(k for c, _ in sources for k in c) if len({str(c.get(k)) for c, _ in sources}) > 1
    ]
    lines: dict[tuple[int, Any], Line] = {}
    links: list[str] = []
    for i, (cell, members) in enumerate(sources):
        label = [f"{k} = {cell[k]}" for k in varying if k in cell]
        for run_dir, bottleneck in members:
            link = str(where.get("link", bottleneck)) if kind == "sojourn" else None
            if link is not None and link not in links:
                links.append(link)
            rows = _select(_samples(run_dir, kind), kind, where, hue, link)
            for part, g in rows.groupby("part", sort=False, dropna=False):
                line = lines.setdefault(
                    (i, part), Line(label + ([str(part)] if isinstance(part, str) else []), cell=cell)
                )
                line.runs += 1
                line.values.extend(g["value"])
                line.weights.extend(g["weight"])
    if not lines:
        raise PlotError(f"--cdf {kind}: no samples to draw" + (" (no flow finished)" if kind == "fct" else ""))
    return list(lines.values()), links


def distribution_figure(
    dirs: Sequence[str | Path],
    *,
    kind: str,
    ccdf: bool = False,
    hue: str | None = None,
    where: Mapping[str, Any] | None = None,
    beside: str | None = None,
) -> Any:
    """The matplotlib Figure :func:`plot_distribution` writes (not saved)."""
    from matplotlib.figure import Figure

    from ecnlab.distributions import cdf

    if kind not in KINDS:
        raise PlotError(f"--cdf {kind!r}: must be one of {', '.join(KINDS)}")
    if hue not in (None, "part", *KINDS[kind].keys) or hue == "link":
        allowed = ", ".join(k for k in ("part", *KINDS[kind].keys) if k != "link")
        raise PlotError(f"--hue {hue!r}: a distribution figure draws each of {allowed}")
    where = dict(where or {})
    paths = [Path(d) for d in dirs]
    lines, links = _lines(paths, kind, where, hue)
    k = KINDS[kind]
    panels = 2 if beside else 1
    label = f"{k.what} ({k.unit})"
    title = f"{k.what} {'CCDF' if ccdf else 'CDF'}{_where_text(kind, where, links)}"
    pooled = sorted({line.runs for line in lines})
    runs = f"{pooled[0]}" if len(pooled) == 1 else f"{pooled[0]}–{pooled[-1]}"
    caption = (
        (
            f"each line: one run's {k.samples}"
            if pooled == [1]
            else f"each line: the {k.samples} of {runs} runs (seeds) pooled"
        )
        + (", after warmup" if kind != "fct" else "")
        + "; nothing merged across queues, classes or flows"
    )
    width = max(6.4 * panels, len(title) / 11 + 0.6, len(caption) / 13 + 0.6)
    fig = Figure(figsize=(width, 4.2), layout="constrained")
    axs = fig.subplots(1, panels, squeeze=False)[0]
    ax = axs[0]
    for line in lines:
        c = cdf(line.values, line.weights)
        x, y = c["value"].to_numpy(), c["fraction"].to_numpy()
        if ccdf:
            y = 1.0 - y
            x, y = x[y > 0], y[y > 0]  # the last point (P = 0) has no place on a log axis
        ax.step(x, y, where="post", label=", ".join(line.label) or None, linewidth=1.0)
    ax.set_xlabel(label)
    ax.set_ylabel(f"fraction of {k.samples} {'>' if ccdf else '≤'} x")
    if ccdf:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    if any(line.label for line in lines) and len(lines) <= 16:
        ax.legend(fontsize="small")
    if beside:
        _beside_panel(axs[1], paths, lines, beside, where)
    fig.suptitle(title, fontsize="medium")
    fig.supxlabel(caption, fontsize="small")
    return fig


def _where_text(kind: str, where: Mapping[str, Any], links: list[str]) -> str:
    parts = []
    if kind == "sojourn":
        chosen = "link" in where
        parts.append(f" at {links[0]}" if len(links) == 1 else " at each run's bottleneck")
        if not chosen and len(links) == 1:
            parts[-1] = f" at the bottleneck ({links[0]})"
    for k, v in where.items():
        if k in ("class", "flow") and v == _WHOLE:
            parts.append(", whole queue")
        elif k != "link":
            parts.append(f", {k} = {v}")
    return "".join(parts)


def _beside_panel(ax: Any, dirs: Sequence[Path], lines: list[Line], metric: str, where: Mapping[str, Any]) -> None:
    """Each flow's ``metric`` per cell: the mean over seeds of that flow, with its interval."""
    from ecnlab.intervals import METHOD, interval
    from ecnlab.quantities import quantity
    from ecnlab.store import MANIFEST, load

    sweeps = [d for d in dirs if (d / MANIFEST).is_file()]
    if len(sweeps) != 1 or len(dirs) != 1:
        raise PlotError("--beside needs one sweep directory")
    res = load(sweeps[0])
    flows = res.flows
    if metric not in flows.columns:
        raise PlotError(f"--beside {metric!r}: not a column of flows.parquet")
    for col, value in where.items():
        if col in res.axes:
            flows = flows[flows[col] == value]
    q = quantity(metric, table="flows")
    cells = list({tuple(sorted((k, str(v)) for k, v in line.cell.items())): line.cell for line in lines}.values())
    labels, means, errs, seeds = [], [], [], set()
    for cell in cells:
        sel = flows
        for k, v in cell.items():
            sel = sel[sel[k] == v]
        for fid, g in sel.groupby("id", sort=False):
            iv = interval([float(v) for v in g[metric]], q.low, q.high)
            labels.append(", ".join([*(f"{k} = {v}" for k, v in cell.items() if len(cells) > 1), f"flow {fid}"]))
            means.append(iv.mean * q.scale)
            seeds.add(iv.n)
            errs.append(0.0 if iv.n < 2 else (iv.hi - iv.lo) / 2 * q.scale)
    ax.barh(range(len(labels)), means, xerr=errs, capsize=2)
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(q.label)
    over = "one run each" if max(seeds, default=1) < 2 else f"mean over {max(seeds)} seeds, bars: {METHOD}"
    ax.set_title(f"each flow's {q.what}: {over}", fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)


def plot_distribution(
    dirs: Sequence[str | Path],
    *,
    kind: str,
    ccdf: bool = False,
    hue: str | None = None,
    where: Mapping[str, Any] | None = None,
    beside: str | None = None,
    out: str | Path | None = None,
) -> list[Path]:
    """Draw the distribution figure; return [png, svg]. By default ``DIR/figures/KIND-cdf[-by-HUE][-K=V…]``
    in the first directory."""
    fig = distribution_figure(dirs, kind=kind, ccdf=ccdf, hue=hue, where=where, beside=beside)
    name = f"{kind}-{'ccdf' if ccdf else 'cdf'}" + (f"-by-{hue}" if hue else "")
    name += "".join(f"-{k}={v}" for k, v in (where or {}).items())
    name = name.replace("/", "_").replace(">", "")
    return write_figure(fig, Path(out) if out is not None else Path(dirs[0]) / "figures" / name)

"""The overlay figure of ``ecnlab compare --figure``: runs over time on one set of axes.

Three panels against time, one colour per run (A, B, C, ... as the table names them): one flow's
congestion window (kB) and smoothed RTT (ms) from ``timeseries-flows.parquet``, and one queue's
length (packets) from ``timeseries-queues.parquet``. The flow is ``flow`` if given, else the first
flow every run with flow series sampled; the queue is ``link`` if given, else the first run's
bottleneck (its most utilised link, ``store.run_metrics``). Each line is one run's own series,
nothing averaged. A run without a series for a panel (an emulation has no queue series; a run
without ``sample_interval``) is left out of that panel, and the panel's title says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.results import RunResult

__all__ = ["overlay_figure", "OverlayError"]


class OverlayError(ValueError):
    """The runs cannot be drawn over time (none has time series, or not the flow or link asked for)."""


def _common_flow(frames: Sequence[pd.DataFrame]) -> str | None:
    sampled = [list(dict.fromkeys(f["flow"])) for f in frames if len(f)]
    if not sampled:
        return None
    return next((fid for fid in sampled[0] if all(fid in ids for ids in sampled[1:])), None)


def _check_sampled(option: str, name: str | None, frames: Sequence[pd.DataFrame], key: str) -> None:
    """A flow or queue asked for must have a series in some run."""
    sampled = list(dict.fromkeys(v for f in frames if len(f) for v in f[key]))
    if name is not None and sampled and name not in sampled:
        raise OverlayError(f"{option} {name}: no run has a series of it (sampled: {', '.join(sampled)})")


def _bottleneck(run: RunResult) -> str | None:
    from ecnlab.store import run_metrics

    return run_metrics(run.summary)["bottleneck"]  # type: ignore[no-any-return]


def overlay_figure(
    runs: Sequence[RunResult], names: Sequence[str], *, flow: str | None = None, link: str | None = None
) -> Any:
    """The Figure (not saved) of ``runs`` named ``names`` (see the module doc)."""
    from matplotlib.figure import Figure

    flows = [r.flow_timeseries for r in runs]
    queues = [r.timeseries for r in runs]
    if not any(len(f) for f in flows) and not any(len(q) for q in queues):
        raise OverlayError("no run has time series (run them with sample_interval > 0)")
    flow = flow if flow is not None else _common_flow(flows)
    if flow is None and any(len(f) for f in flows):
        raise OverlayError("no flow is sampled in every run with flow series; name one with --flow")
    link = link if link is not None else _bottleneck(runs[0])
    _check_sampled("--flow", flow, flows, "flow")
    _check_sampled("--link", link, queues, "link")
    panels = [
        ("cwnd (kB)", f"flow {flow}: congestion window", flows, "flow", flow, "cwnd_bytes", 1e-3),
        ("smoothed RTT (ms)", f"flow {flow}: smoothed RTT", flows, "flow", flow, "srtt_ms", 1.0),
        ("queue (packets)", f"queue {link}: length", queues, "link", link, "qlen_pkts", 1.0),
    ]
    fig = Figure(figsize=(8.0, 6.6), layout="constrained")
    axs = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    drawn = 0
    for ax, (ylabel, title, frames, key, name, column, scale) in zip(axs, panels, strict=True):
        missing = []
        for k, (frame, label) in enumerate(zip(frames, names, strict=True)):
            rows = frame[frame[key] == name] if len(frame) else frame
            if not len(rows):
                missing.append(label)
                continue
            ax.plot(rows["t_s"], rows[column].astype("float64") * scale, color=f"C{k}", label=label, linewidth=0.9)
            drawn += 1
        ax.set_title(title + (f" (no series: {', '.join(missing)})" if missing else ""), fontsize="small")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if ax.lines:
            ax.legend(fontsize="small", ncols=min(len(names), 4))
    if drawn == 0:
        raise OverlayError(f"no run has series of flow {flow} or queue {link}")
    axs[-1].set_xlabel("time (s)")
    fig.suptitle("the compared runs over time", fontsize="medium")
    return fig

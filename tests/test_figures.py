"""What each figure of ``ecnlab plot`` shows, read off its matplotlib objects: the x axis's kind
(categories as points side by side, numbers joined by lines), intervals inside the quantity's
physical range, and no mean across links or flows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import texts_outside
from ecnlab.intervals import interval
from ecnlab.plots import PlotError, figure
from ecnlab.store import SweepResults

AQMS = ["red", "pie", "codel"]
SEEDS = [1, 2, 3]


def _results(tmp_path: Path) -> SweepResults:
    """Three AQMs x two ECN settings x two rates x three seeds; two queues per run (the bottleneck
    R1->R2, busy, and the idle R2->R1) and two flows per run."""
    runs, queues, flows = [], [], []
    for a, aqm in enumerate(AQMS):
        for ecn in (False, True):
            for rate in (10, 100):
                for seed in SEEDS:
                    name = f"{aqm}-{ecn}-{rate}-s{seed}"
                    key = {"run": name, "seed": seed, "aqm": aqm, "ecn": ecn, "rate": rate}
                    drops = 9 if seed == 3 else 0  # t interval from 3 seeds: 3 ± 12.9, below zero
                    util = [0.9, 1.0, 1.0][seed - 1]  # 0.967 ± 0.143, above 100 %
                    runs.append({**key, "bottleneck": "R1->R2", "drops": drops, "utilization": util})
                    p99 = 20.0 + a + seed
                    queues.append({**key, "link": "R1->R2", "sojourn_p99_ms": p99, "utilization": util})
                    queues.append({**key, "link": "R2->R1", "sojourn_p99_ms": 0.0, "utilization": 0.01})
                    for fid, goodput in (("f1", 4e6 + seed), ("f2", 6e6)):
                        flows.append({**key, "id": fid, "goodput_bps": goodput})
    manifest = {"axes": [{"column": c} for c in ("aqm", "ecn", "rate")]}
    frames = [pd.DataFrame(rows) for rows in (runs, flows, queues)]
    return SweepResults(tmp_path, manifest, *frames)


@pytest.fixture
def res(tmp_path: Path) -> SweepResults:
    return _results(tmp_path)


def _series(ax: Any) -> list[Any]:
    """The data lines of the errorbars of ``ax`` (one per hue)."""
    return [c.lines[0] for c in ax.containers]


def _bars(ax: Any) -> list[tuple[float, float]]:
    """(low, high) of every interval bar drawn on ``ax``."""
    out = []
    for c in ax.containers:
        for seg in c.lines[2][0].get_segments():
            out.append((float(seg[:, 1].min()), float(seg[:, 1].max())))
    return out


def _caption(fig: Any) -> str:
    return str(fig._supxlabel.get_text())


def test_categorical_axis_draws_points_side_by_side_not_a_line(res: SweepResults) -> None:
    fig = figure(res, x="aqm", y="drops", hue="ecn", where={"rate": 10})
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == AQMS
    lines = _series(ax)
    assert len(lines) == 2 and all(line.get_linestyle() == "None" for line in lines)
    left, right = (list(line.get_xdata()) for line in lines)
    assert all(a < b < a + 1 for a, b in zip(left, right, strict=True))  # beside each other, in one category


def test_numeric_axis_joins_its_points(res: SweepResults) -> None:
    fig = figure(res, x="rate", y="drops", hue="ecn", where={"aqm": "red"})
    lines = _series(fig.axes[0])
    assert [line.get_linestyle() for line in lines] == ["-", "-"]
    assert [list(line.get_xdata()) for line in lines] == [[10, 100], [10, 100]]
    assert min(lo for lo, _ in _bars(fig.axes[0])) == 0.0  # 3 ± 12.9 packets, cut at zero
    queues = figure(res, x="rate", y="utilization", table="queues", where={"aqm": "red", "ecn": True})
    (line,) = _series(queues.axes[0])
    assert list(line.get_ydata()) == pytest.approx([100 * 2.9 / 3] * 2)  # the bottleneck's, not mixed with R2->R1
    assert max(hi for _, hi in _bars(queues.axes[0])) == pytest.approx(100.0)


@pytest.mark.parametrize(
    ("y", "low", "high", "said"),
    [("drops", 0.0, None, "clipped to ≥ 0"), ("utilization", None, 100.0, "clipped to [0, 100] %")],
)
def test_intervals_stay_inside_the_physical_range(
    res: SweepResults, y: str, low: float | None, high: float | None, said: str
) -> None:
    fig = figure(res, x="aqm", y=y, hue="ecn", where={"rate": 10})
    bars = _bars(fig.axes[0])
    assert len(bars) == 6
    raw = interval([0, 0, 9] if y == "drops" else [90.0, 100.0, 100.0])
    if low is not None:
        assert raw.mean - raw.half < low and min(lo for lo, _ in bars) == low
    if high is not None:
        assert raw.mean + raw.half > high and max(hi for _, hi in bars) == pytest.approx(high)
    assert "95 % Student-t interval" in _caption(fig) and said in _caption(fig)


def test_a_queue_figure_without_a_link_is_each_runs_bottleneck_and_says_so(res: SweepResults) -> None:
    fig = figure(res, x="aqm", y="sojourn_p99_ms", table="queues", where={"rate": 10, "ecn": True})
    ax = fig.axes[0]
    (line,) = _series(ax)
    assert list(line.get_ydata()) == [22.0, 23.0, 24.0]  # the bottleneck's own, not halved by the idle queue
    assert fig._suptitle.get_text() == "p99 queue delay at the bottleneck (R1->R2) vs aqm, rate = 10, ecn = True"
    assert ax.get_ylabel() == "p99 queue delay (ms)"


def test_a_queue_figure_of_one_link_or_each_link(res: SweepResults) -> None:
    one = figure(res, x="aqm", y="sojourn_p99_ms", table="queues", where={"rate": 10, "ecn": True, "link": "R2->R1"})
    assert one._suptitle.get_text() == "p99 queue delay at R2->R1 vs aqm, rate = 10, ecn = True"
    assert list(_series(one.axes[0])[0].get_ydata()) == [0.0, 0.0, 0.0]
    each = figure(res, x="aqm", y="sojourn_p99_ms", table="queues", hue="link", where={"rate": 10, "ecn": True})
    assert [c.get_label() for c in each.axes[0].containers] == ["R1->R2", "R2->R1"]


def test_a_flow_figure_refuses_to_average_flows(res: SweepResults) -> None:
    refused = r"2 flows per run would be averaged into one point; pick one with --where id=f1"
    with pytest.raises(PlotError, match=refused):
        figure(res, x="aqm", y="goodput_bps", table="flows", where={"rate": 10, "ecn": True})
    one = figure(res, x="aqm", y="goodput_bps", table="flows", where={"rate": 10, "ecn": True, "id": "f2"})
    assert one._suptitle.get_text() == "goodput of flow f2 vs aqm, rate = 10, ecn = True"
    assert one.axes[0].get_ylabel() == "goodput (Mbit/s)"


def test_facets_are_one_panel_each_with_the_same_rules(res: SweepResults) -> None:
    fig = figure(res, x="aqm", y="drops", hue="ecn", facet="rate")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["rate = 10", "rate = 100"]
    for ax in panels:
        assert all(line.get_linestyle() == "None" for line in _series(ax))
        assert min(lo for lo, _ in _bars(ax)) >= 0


def test_a_column_of_another_table_is_named_with_its_table(res: SweepResults) -> None:
    with pytest.raises(PlotError, match=r"--hue 'id': not a column of runs.parquet; .* add --table flows"):
        figure(res, x="aqm", y="drops", hue="id", where={"rate": 10, "ecn": True})


@pytest.mark.parametrize(
    ("kw"),
    [
        {"x": "aqm", "y": "goodput_bps", "table": "flows", "where": {"rate": 10, "ecn": True, "id": "f1"}},
        {"x": "aqm", "y": "sojourn_p99_ms", "table": "queues", "hue": "ecn", "facet": "rate"},
        {"x": "rate", "y": "utilization", "hue": "aqm", "where": {"ecn": False}},
    ],
)
def test_titles_are_one_line_and_nothing_is_clipped(res: SweepResults, kw: dict[str, Any]) -> None:
    fig = figure(res, **kw)
    assert "\n" not in fig._suptitle.get_text() and "\n" not in _caption(fig)
    assert texts_outside(fig) == []
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.canvas.draw()
    box = fig._supxlabel.get_window_extent(renderer)
    assert box.x0 >= fig.bbox.x0 - 1 and box.x1 <= fig.bbox.x1 + 1


def test_a_run_over_time_draws_one_line_per_queue_and_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import tomllib

    import ecnlab
    from conftest import SMALL
    from ecnlab.plots import run_figure
    from ecnlab.timeseries import read_flows, read_queues
    from fake_core import FakeCore

    core = FakeCore()
    monkeypatch.setitem(sys.modules, "ecnlab._core", core)
    monkeypatch.setattr(ecnlab, "_core", core, raising=False)
    ecnlab.run(tomllib.loads(SMALL), out=tmp_path / "r", overrides=["sample_interval=100ms"])
    fig = run_figure(tmp_path / "r")
    axes = fig.axes
    assert axes[-1].get_xlabel() == "time (s)" and all(not ax.containers for ax in axes)  # no intervals
    queues = read_queues(tmp_path / "r")
    busy = {link for link, g in queues.groupby("link") if g["qlen_pkts"].max() > 0}
    assert [line.get_label() for line in axes[0].lines] == sorted(busy)  # one per queue, none merged
    cwnd = next(ax for ax in axes if ax.get_ylabel() == "cwnd (kB)")
    assert len(cwnd.lines) == read_flows(tmp_path / "r")["flow"].nunique()


def test_points_of_one_seed_have_no_interval_and_say_so(res: SweepResults) -> None:
    fig = figure(res, x="aqm", y="drops", where={"rate": 10, "ecn": True, "seed": 3})
    assert _bars(fig.axes[0]) == [(9.0, 9.0)] * 3
    assert _caption(fig) == "points: one run each (one seed: no interval)"


def test_the_same_figure_gives_the_same_bytes(res: SweepResults, tmp_path: Path) -> None:
    from ecnlab.plots import write_figure

    files = [write_figure(figure(res, x="aqm", y="drops", hue="ecn", where={"rate": 10}), tmp_path / f"f{i}=0.1")
             for i in range(2)]  # fmt: skip
    assert [p.name for p in files[0]] == ["f0=0.1.png", "f0=0.1.svg"]
    assert [p.read_bytes() for p in files[0]] == [p.read_bytes() for p in files[1]]


def test_a_run_level_column_says_where_it_was_taken(res: SweepResults) -> None:
    fig = figure(res, x="aqm", y="utilization", hue="ecn", where={"rate": 10})
    assert fig._suptitle.get_text() == "utilisation at the bottleneck (R1->R2) vs aqm, rate = 10"

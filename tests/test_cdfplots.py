"""Distribution figures (``ecnlab plot --cdf/--ccdf``): one test per figure kind checks its axes
and that nothing is merged across queues, classes or flows; the FQ-CoDel-against-DualPI2
example sweep in its quick form answers its question in one plot command."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import ecnlab
from conftest import SCENARIOS, run_cli
from ecnlab.cdfplots import distribution_figure
from ecnlab.plots import PlotError
from ecnlab.sweep import load_sweep, run_sweep

PRAGUE = SCENARIOS / "dumbbell-prague.toml"
EXAMPLE = SCENARIOS / "sweep-fq-codel-dualpi2.toml"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One DualPI2 run with sampled flows and short transfers, one FQ-CoDel run."""
    tmp = tmp_path_factory.mktemp("cdf")
    short = {"duration": "3s", "warmup": "1s", "sample_interval": "50ms"}
    sized = {"flows.0.bytes": 800_000}  # the Prague flows finish after the warm-up, the CUBIC ones run on
    ecnlab.run(PRAGUE, overrides={**short, **sized}, out=tmp / "dualpi2")
    ecnlab.run(PRAGUE, overrides={**short, "topology.bottleneck_queue": {"kind": "fq_codel"}}, out=tmp / "fq")
    return {"dualpi2": tmp / "dualpi2", "fq": tmp / "fq"}


def _lines(fig) -> list[str]:  # type: ignore[no-untyped-def]
    return [line.get_label() for line in fig.axes[0].get_lines()]


@pytest.mark.engine
def test_sojourn_cdf_is_per_class_on_linear_fraction_axes(runs: dict[str, Path]) -> None:
    fig = distribution_figure([runs["dualpi2"]], kind="sojourn", hue="class")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "queueing delay (ms)" and ax.get_ylabel() == "fraction of packets ≤ x"
    assert ax.get_yscale() == "linear" and ax.get_xscale() == "linear"
    assert _lines(fig) == ["class L", "class C"]
    assert "at the bottleneck (R1->R2)" in fig._suptitle.get_text()
    for line in ax.get_lines():
        assert max(line.get_ydata()) == pytest.approx(1.0)  # each line is one whole distribution


@pytest.mark.engine
def test_sojourn_ccdf_draws_the_tail_on_a_log_axis(runs: dict[str, Path]) -> None:
    fig = distribution_figure([runs["dualpi2"], runs["fq"]], kind="sojourn", ccdf=True, where={"class": "all"})
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "fraction of packets > x"
    assert _lines(fig) == ["run = dualpi2", "run = fq"]  # one line per run, labelled alike
    assert fig._suptitle.get_text() == "queueing delay CCDF at the bottleneck (R1->R2), whole queue"
    for line in ax.get_lines():
        assert 0 < min(line.get_ydata()) and max(line.get_ydata()) < 1


@pytest.mark.engine
def test_a_queue_with_classes_or_flows_is_never_drawn_whole_by_default(runs: dict[str, Path]) -> None:
    with pytest.raises(PlotError, match=r"per class \(L, C\); pick one with --where class=L, draw each with --hue"):
        distribution_figure([runs["dualpi2"]], kind="sojourn")
    with pytest.raises(PlotError, match=r"per flow .*--where flow=prague_1"):
        distribution_figure([runs["fq"]], kind="sojourn")
    fig = distribution_figure([runs["fq"]], kind="sojourn", hue="part")
    assert _lines(fig) == ["flow prague_1", "flow prague_2", "flow cubic_1", "flow cubic_2"]
    with pytest.raises(PlotError, match="no such class"):
        distribution_figure([runs["dualpi2"]], kind="sojourn", where={"class": "X"})


@pytest.mark.engine
def test_rtt_cdf_is_per_flow_and_refuses_to_merge_flows(runs: dict[str, Path]) -> None:
    with pytest.raises(PlotError, match=r"4 flows per run would be merged into one line; pick one with --where flow="):
        distribution_figure([runs["dualpi2"]], kind="rtt")
    fig = distribution_figure([runs["dualpi2"]], kind="rtt", where={"flow": "cubic_1"})
    ax = fig.axes[0]
    assert ax.get_xlabel() == "smoothed RTT (ms)" and ax.get_ylabel() == "fraction of samples ≤ x"
    assert len(ax.get_lines()) == 1 and "flow = cubic_1" in fig._suptitle.get_text()


@pytest.mark.engine
def test_fct_cdf_is_per_flow_entry(runs: dict[str, Path], tmp_path: Path) -> None:
    fig = distribution_figure([runs["dualpi2"]], kind="fct")  # only the Prague entry finished
    ax = fig.axes[0]
    assert ax.get_xlabel() == "flow completion time (s)" and ax.get_ylabel() == "fraction of flows ≤ x"
    assert len(ax.get_lines()) == 1
    both = tmp_path / "both"
    ecnlab.run(
        PRAGUE,
        overrides={"duration": "3s", "warmup": "1s", "flows.0.bytes": 200_000, "flows.1.bytes": 200_000},
        out=both,
    )
    with pytest.raises(
        PlotError, match="2 entries per run would be merged into one line; pick one with --where entry=prague"
    ):
        distribution_figure([both], kind="fct")
    assert _lines(distribution_figure([both], kind="fct", hue="entry")) == ["entry prague", "entry cubic"]


@pytest.mark.engine
def test_cli_distribution_errors_are_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    r = run_cli("plot", str(runs["dualpi2"]), "--cdf", "sojourn", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--where class=L" in r.stderr
    r = run_cli("plot", str(runs["dualpi2"]), str(runs["fq"]), "--x", "aqm", "--y", "marks", cwd=tmp_path)
    assert r.returncode == 2 and "only --cdf and --ccdf draw several" in r.stderr


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example sweep in its quick form: 3 s, one seed."""
    tmp = tmp_path_factory.mktemp("fq-dual")
    text = EXAMPLE.read_text()
    for old, new in (
        ('base = "dumbbell-prague.toml"', f'base = "{PRAGUE}"'),
        ('duration = "20s"', 'duration = "3s"'),
        ('warmup = "5s"', 'warmup = "1s"'),
        ("seeds = 3", "seeds = 1"),
    ):
        assert old in text
        text = text.replace(old, new)
    (tmp / "quick.toml").write_text(text)
    out = tmp / "sweep"
    assert run_sweep(load_sweep(tmp / "quick.toml"), out, jobs=1, progress=False, stream=io.StringIO()).ok
    return out


@pytest.mark.engine
def test_the_example_sweep_answers_fq_codel_against_dualpi2_in_one_plot_command(quick: Path, tmp_path: Path) -> None:
    r = run_cli("plot", str(quick), "--cdf", "sojourn", "--hue", "part", "--beside", "goodput_bps", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (quick / "figures" / "sojourn-cdf-by-part.png").is_file()
    assert (quick / "figures" / "sojourn-cdf-by-part.svg").is_file()
    fig = distribution_figure([quick], kind="sojourn", hue="part", beside="goodput_bps")
    flows = ["prague_1", "prague_2", "cubic_1", "cubic_2"]
    assert _lines(fig) == [
        *(f"aqm = fq_codel, flow {f}" for f in flows),
        "aqm = dualpi2, class L",
        "aqm = dualpi2, class C",
    ]
    bars = fig.axes[1]
    labels = [t.get_text() for t in bars.get_yticklabels()]
    assert labels == [f"aqm = {a}, flow {f}" for a in ("fq_codel", "dualpi2") for f in flows]
    assert bars.get_xlabel() == "goodput (Mbit/s)"
    assert all(p.get_width() > 0 for p in bars.patches)  # every flow's own goodput, none averaged away

"""Figures: the t-interval arithmetic, aggregation over seeds, and ``ecnlab plot`` files (PNG + SVG)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd
import pytest

import ecnlab
from conftest import SCENARIOS, run_cli
from ecnlab.plots import PlotError, aggregate, label_for, t_critical
from ecnlab.sweep import load_sweep, run_sweep

EXAMPLE = SCENARIOS / "sweep-red-ecn.toml"


@pytest.mark.parametrize(
    ("df", "expected"),
    # t(0.975, df) from standard tables
    [(1, 12.706), (2, 4.303), (10, 2.228), (30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980), (10_000, 1.960)],
)
def test_t_critical(df: int, expected: float) -> None:
    assert t_critical(df) == pytest.approx(expected, abs=1.5e-3)


def test_aggregate_mean_and_t_interval_over_seeds() -> None:
    frame = pd.DataFrame(
        {
            "run": ["a1", "a2", "a3", "b1"],
            "seed": [1, 2, 3, 1],
            "q": ["x", "x", "x", "y"],
            "m": [1.0, 2.0, 3.0, 5.0],
        }
    )
    points = aggregate(frame, y="m", by=["q"], axes=["q"])
    x = points.set_index("q").loc["x"]
    assert x["mean"] == 2.0 and x["n"] == 3
    assert x["ci"] == pytest.approx(4.303 * 1.0 / math.sqrt(3))  # sd of 1,2,3 is 1
    y = points.set_index("q").loc["y"]
    assert y["mean"] == 5.0 and y["n"] == 1 and math.isnan(y["ci"])


def test_aggregate_refuses_to_mix_an_unplotted_axis() -> None:
    frame = pd.DataFrame({"run": ["a", "b"], "q": ["x", "x"], "r": [1, 2], "m": [1.0, 2.0]})
    with pytest.raises(PlotError, match="axis 'r' varies but is not --x, --hue or --facet"):
        aggregate(frame, y="m", by=["q"], axes=["q", "r"])
    assert list(aggregate(frame, y="m", by=["q"], axes=["q", "r"], where={"r": 2})["mean"]) == [2.0]


def test_labels_carry_units() -> None:
    assert label_for("goodput_bps") == ("mean goodput per flow (Mbit/s)", 1e-6)
    assert label_for("utilization") == ("utilisation (%)", 100.0)
    assert label_for("rtt_s")[0] == "rtt_s (s)"


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plots") / "sweep"
    assert run_sweep(load_sweep(EXAMPLE), out, jobs=2, progress=False, stream=io.StringIO()).ok
    return out


@pytest.mark.engine
def test_cli_plot_writes_png_and_svg(swept: Path, tmp_path: Path) -> None:
    res = run_cli("plot", str(swept), "--x", "max_p", "--y", "goodput_bps", "--hue", "ecn", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    png = swept / "figures" / "goodput_bps-vs-max_p-by-ecn.png"
    svg = png.with_suffix(".svg")
    assert res.stdout.splitlines() == [f"wrote {png}", f"wrote {svg}"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert "mean goodput per flow (Mbit/s)" in text and "red+ecn" in text and "max_p (probability)" in text


@pytest.mark.engine
def test_python_plot_with_facet_flow_metric_and_out(swept: Path, tmp_path: Path) -> None:
    paths = ecnlab.plot(swept, x="ecn", y="bytes_delivered", facet="max_p", where={"id": "reno_1"}, out=tmp_path / "f")
    assert paths == [tmp_path / "f.png", tmp_path / "f.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert "max_p = 0.5" in paths[1].read_text()  # one panel per facet value


@pytest.mark.engine
def test_row_tables_and_subsets_get_their_own_file_label_and_title(swept: Path, tmp_path: Path) -> None:
    """``--table queues`` takes each run's bottleneck queue (never a mean over every queue) and says
    so; a figure of other rows or a subset has its own file name, ``--where`` shows in the title."""
    figures = swept / "figures"
    base = ["--x", "max_p", "--y", "marks", "--hue", "ecn"]
    runs = run_cli("plot", str(swept), *base, cwd=tmp_path)
    queues = run_cli("plot", str(swept), *base, "--table", "queues", cwd=tmp_path)
    one = run_cli("plot", str(swept), *base, "--table", "queues", "--where", "link=R2->R1", cwd=tmp_path)
    assert (runs.returncode, queues.returncode, one.returncode) == (0, 0, 0), (queues.stderr, one.stderr)
    names = [r.stdout.splitlines()[0].removeprefix("wrote ") for r in (runs, queues, one)]
    assert names == [
        str(figures / "marks-vs-max_p-by-ecn.png"),
        str(figures / "marks-vs-max_p-by-ecn-queues.png"),
        str(figures / "marks-vs-max_p-by-ecn-queues-link=R2-R1.png"),
    ]
    svg = [Path(n).with_suffix(".svg").read_text().replace("&gt;", ">") for n in names]
    assert "CE marks at the bottleneck (R1->R2) vs max_p" in svg[0] and "CE marks (packets)" in svg[0]
    assert "CE marks at the bottleneck (R1->R2) vs max_p" in svg[1]
    assert "CE marks at R2->R1 vs max_p" in svg[2]


@pytest.mark.engine
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--x", "max_p", "--y", "nope"], "--y 'nope': not a result column"),
        (["--x", "max_p", "--y", "goodput_bps"], "axis 'ecn' varies but is not --x, --hue or --facet"),
        (["--x", "nope", "--y", "goodput_bps", "--hue", "ecn"], "--x 'nope': not a column of runs.parquet"),
        (["--x", "max_p", "--y", "goodput_bps", "--hue", "id", "--where", "ecn=red"], "add --table flows"),
        (["--x", "max_p", "--y", "goodput_bps", "--table", "flows", "--hue", "ecn"], "--where id=reno_1"),
        # Names and lists are not plotted as numbers (a pandas TypeError otherwise).
        (["--x", "max_p", "--y", "id", "--hue", "ecn"], "--y 'id': not a numeric column (numeric columns there: "),
        (["--x", "max_p", "--y", "link", "--hue", "ecn"], "--y 'link': not a numeric column"),
        (["--x", "max_p", "--y", "transfer_times_s", "--hue", "ecn"], "--y 'transfer_times_s': not a numeric"),
    ],
)
def test_cli_plot_errors_are_one_line(swept: Path, tmp_path: Path, args: list[str], message: str) -> None:
    res = run_cli("plot", str(swept), *args, "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ecnlab: error: {swept}: ") and message in lines[0]
    assert not list(tmp_path.glob("x*"))


@pytest.mark.engine
def test_plot_of_one_run_draws_its_queues_over_time(tmp_path: Path) -> None:
    """``ecnlab plot RUN_DIR`` shows one run over time (queue, delay, the AQM's probability)."""
    r = run_cli("run", str(SCENARIOS / "dumbbell-pie.toml"), "--out", "r", "-q", "--set", "duration=3s",
                "--set", "warmup=1s", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = run_cli("plot", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["wrote r/over-time.png", "wrote r/over-time.svg"]
    assert (tmp_path / "r" / "over-time.png").stat().st_size > 10_000
    from ecnlab.plots import _run_panels
    from ecnlab.timeseries import read_flows, read_queues

    labels = [label.split("\n")[0] for label, _ in _run_panels(read_queues(tmp_path / "r"), read_flows(tmp_path / "r"))]
    assert labels == ["queue (packets;", "oldest packet's", "AQM probability", "CE marks per", "drops per",
                      "cwnd (kB)", "goodput (Mbit/s)"]  # fmt: skip
    r = run_cli("run", str(SCENARIOS / "dumbbell-pie.toml"), "--out", "n", "-q", "--set", "duration=3s",
                "--set", "warmup=1s", "--set", "sample_interval=0", cwd=tmp_path)  # fmt: skip
    r = run_cli("plot", "n", cwd=tmp_path)
    assert r.returncode == 2 and "set sample_interval > 0" in r.stderr and "Traceback" not in r.stderr


def test_aggregate_refuses_to_average_rows_of_one_run() -> None:
    frame = pd.DataFrame({"run": ["a", "a", "b"], "q": ["x", "x", "x"], "link": ["l1", "l2", "l1"], "m": [1.0, 2, 3]})
    with pytest.raises(PlotError, match="2 rows of one run would be averaged into one point"):
        aggregate(frame, y="m", by=["q"], axes=["q"])
    assert list(aggregate(frame, y="m", by=["q"], axes=["q"], where={"link": "l1"})["mean"]) == [2.0]

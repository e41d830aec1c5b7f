"""``ecnlab compare`` of many runs: one table (a column per run) and one figure of the runs over
time, for two simulations of one scenario under two TCP personalities and a stored emulation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import SCENARIOS, run_cli
from ecnlab import timeseries
from ecnlab.emu.compare import format_comparison
from ecnlab.emu.overlay import overlay_figure
from ecnlab.results import load_result, write_summary

SCENARIO = SCENARIOS / "emulate-reno-ecn.toml"
SHORT = ["--set", "duration=4s", "--set", "warmup=1s", "--set", "sample_interval=100ms"]


def _stored_emulation(sim: Path, out: Path) -> None:
    """An emulation's result directory as ``ecnlab emulate`` leaves it, from a simulated run: its
    summary with the ``emulation`` record compare reads (kernel, the router's lateness, the
    sender's ``TCP_INFO``) and the flow series from ``TCP_INFO`` samples (no engine-only columns,
    no queue series)."""
    out.mkdir()
    summary = json.loads((sim / "summary.json").read_text())
    flows = pd.read_parquet(sim / timeseries.FLOWS_FILE)
    last = flows.groupby("flow").tail(1).set_index("flow")
    summary["emulation"] = {
        "kernel": "6.18.0-test",
        "router": {"lateness": {"p50_us": 40.0, "p99_us": 210.0, "max_us": 900.0, "samples": 12_345}},
        "flows": {fid: {"tcp_info": {"rtt_us": row["srtt_ms"] * 1e3 + 2000}} for fid, row in last.iterrows()},
        "warnings": [],
    }
    write_summary(out, summary)
    rows = {
        str(fid): [[r.t_s, r.cwnd_bytes, r.ssthresh_bytes, r.srtt_ms + 2.0, r.in_flight_bytes, r.delivered_bytes]
                   for r in g.itertuples()]
        for fid, g in flows.groupby("flow", sort=False)
    }  # fmt: skip
    rows = {fid: [[None if pd.isna(v) else v for v in r] for r in rs] for fid, rs in rows.items()}
    timeseries.write(out, timeseries.from_flow_rows(rows))


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``rfc`` and ``linux`` (one scenario, two personalities) and ``emu``, a stored emulation."""
    tmp = tmp_path_factory.mktemp("compare")
    for personality in ("rfc", "linux"):
        r = run_cli("run", str(SCENARIO), "--out", personality, "-q", *SHORT,
                    "--set", f"tcp.personality={personality}", cwd=tmp)  # fmt: skip
        assert r.returncode == 0, r.stderr
    r = run_cli("run", str(SCENARIO), "--out", "base", "-q", *SHORT, "--set", "tcp.personality=linux", "--seed", "2",
                cwd=tmp)  # fmt: skip
    assert r.returncode == 0, r.stderr
    _stored_emulation(tmp / "base", tmp / "emu")
    shutil.rmtree(tmp / "base")
    return tmp


@pytest.mark.engine
def test_compare_of_three_prints_one_table_and_writes_one_figure(three: Path) -> None:
    r = run_cli("compare", "rfc", "linux", "emu", "--figure", "fig/over-time", cwd=three)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:3] == [
        "A: rfc: emulate-reno-ecn, simulated (seed 1)",
        "B: linux: emulate-reno-ecn, simulated (seed 1)",
        "C: emu: emulate-reno-ecn, emulated (seed 2, kernel 6.18.0-test)",
    ]
    assert "note: the resolved scenarios differ in: seed, tcp" in lines
    assert "router delivery lateness: median 40 µs, p99 210 µs, max 900 µs over 12,345 packets" in lines
    tables = [i for i, line in enumerate(lines) if line.split()[:1] == ["metric"]]
    assert len(tables) == 1 and lines[tables[0]].split() == ["metric", "A", "B", "C"]
    rows = {
        " ".join(line.split()[:-3]): line.split()[-3:]
        for line in lines[tables[0] + 1 :]
        if line and "wrote" not in line
    }
    summaries = [load_result(three / d).summary for d in ("rfc", "linux", "emu")]
    goodputs = [float(v) for v in rows["reno goodput_bps"]]
    assert goodputs == pytest.approx([s["flows"][0]["goodput_bps"] for s in summaries], rel=1e-6)
    assert rows["R1->R2 marks"] == [str(s["queues"][[q["link"] for q in s["queues"]].index("R1->R2")]["marks"])
                                    for s in summaries]  # fmt: skip
    assert "reno rtt_ms (sim: model estimate)" in rows
    assert lines[-1] == "wrote fig/over-time.png, fig/over-time.svg"
    assert (three / "fig" / "over-time.png").stat().st_size > 10_000


@pytest.mark.engine
def test_the_overlay_draws_each_runs_own_series(three: Path) -> None:
    runs = [load_result(three / d) for d in ("rfc", "linux", "emu")]
    fig = overlay_figure(runs, ["A: rfc", "B: linux", "C: emu"])
    cwnd, rtt, queue = fig.axes
    assert [line.get_label() for line in cwnd.lines] == ["A: rfc", "B: linux", "C: emu"]
    assert [line.get_label() for line in rtt.lines] == ["A: rfc", "B: linux", "C: emu"]
    assert [line.get_label() for line in queue.lines] == ["A: rfc", "B: linux"]
    assert queue.get_title() == "queue R1->R2: length (no series: C: emu)"
    assert cwnd.get_title() == "flow reno: congestion window"
    emu_rtt = runs[2].flow_timeseries["srtt_ms"].astype("float64")
    assert list(rtt.lines[2].get_ydata()) == pytest.approx(list(emu_rtt), nan_ok=True)
    assert queue.get_xlabel() == "time (s)"


@pytest.mark.engine
def test_compare_of_two_is_as_before(three: Path) -> None:
    r = run_cli("compare", "rfc", "linux", cwd=three)
    assert r.returncode == 0, r.stderr
    a, b = (json.loads((three / d / "summary.json").read_text()) for d in ("rfc", "linux"))
    assert r.stdout == format_comparison(a, b) + "\n"


@pytest.mark.engine
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rfc"], "ecnlab: error: compare: DIR: 1 given, at least two result directories are needed"),
        (["rfc", "nowhere"], "ecnlab: error: nowhere: not a result directory"),
        (["rfc", "linux", "--figure", "f", "--flow", "nope"], "ecnlab: error: --figure f: --flow nope: no run has a"),
    ],
)
def test_compare_bad_input_is_one_line_and_writes_nothing(three: Path, args: list[str], message: str) -> None:
    r = run_cli("compare", *args, cwd=three)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(message), r.stderr
    assert not list(three.glob("f.*"))


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep of two ECN settings x two seeds of the one-flow scenario."""
    import io

    from ecnlab.sweep import load_sweep, run_sweep

    tmp = tmp_path_factory.mktemp("cells")
    (tmp / "s.toml").write_text(
        f'base = "{SCENARIO}"\nname = "ecn{{ecn}}-s{{seed}}"\nseeds = 2\n'
        '[set]\nduration = "3s"\nwarmup = "1s"\nsample_interval = 0\n[axes]\n"tcp.ecn" = [true, false]\n'
    )
    assert run_sweep(load_sweep(tmp / "s.toml"), tmp / "sw", jobs=1, progress=False, stream=io.StringIO()).ok
    return tmp


@pytest.mark.engine
def test_a_sweep_cell_is_the_mean_over_its_seeds(swept: Path) -> None:
    r = run_cli("compare", "sw:ecn=true", "sw:ecn=false", "sw/runs/ecntrue-s1", cwd=swept)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:3] == [
        "A: sw:ecn=true (mean of 2 runs): ecn=true, simulated (seed 1, 2)",
        "B: sw:ecn=false (mean of 2 runs): ecn=false, simulated (seed 1, 2)",
        "C: sw/runs/ecntrue-s1: ecntrue-s1, simulated (seed 1)",
    ]
    rows = {" ".join(line.split()[:-3]): line.split()[-3:] for line in lines if line.startswith(("reno ", "R1->R2 "))}
    runs = {n: json.loads((swept / "sw" / "runs" / n / "summary.json").read_text()) for n in
            ("ecntrue-s1", "ecntrue-s2", "ecnfalse-s1", "ecnfalse-s2")}  # fmt: skip
    goodput = {n: s["flows"][0]["goodput_bps"] for n, s in runs.items()}
    mean_on = (goodput["ecntrue-s1"] + goodput["ecntrue-s2"]) / 2
    mean_off = (goodput["ecnfalse-s1"] + goodput["ecnfalse-s2"]) / 2
    assert [float(v) for v in rows["reno goodput_bps"]] == pytest.approx([mean_on, mean_off, goodput["ecntrue-s1"]])
    assert rows["reno ecn_negotiated"] == ["True", "False", "True"]


@pytest.mark.engine
@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("sw:seed=1", "ecnlab: error: sw:seed=1: seed: not an axis of sw (axes: ecn)"),
        ("sw:ecn=maybe", "ecnlab: error: sw:ecn=maybe: ecn=maybe: no run of sw has it"),
        ("sw:ecn", "ecnlab: error: sw:ecn: 'ecn': expected COL=VALUE"),
        ("sw", "ecnlab: error: sw: a sweep directory: name one of its cells, sw:COL=VALUE,... or a run, sw/runs/NAME"),
    ],
)
def test_a_cell_that_is_not_one_is_refused_in_one_line(swept: Path, cell: str, message: str) -> None:
    r = run_cli("compare", cell, "sw/runs/ecntrue-s1", cwd=swept)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith(message), r.stderr

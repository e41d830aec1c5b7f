"""Results without the engine: summary.json, the report, output directories (with a fake engine)."""

from __future__ import annotations

import json
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import ecnlab
from conftest import SMALL
from ecnlab.lower import engine_tcp_config
from ecnlab.results import FORMAT_VERSION, build_summary, dumps, jain, load_result
from ecnlab.tables import format_report
from ecnlab.timeseries import read_flows, read_queues
from fake_core import FakeCore, fake_output


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeCore:
    core = FakeCore()
    monkeypatch.setitem(sys.modules, "ecnlab._core", core)
    monkeypatch.setattr(ecnlab, "_core", core, raising=False)
    return core


@pytest.mark.parametrize(
    ("values", "index"),
    [([], None), ([0.0, 0.0], None), ([5.0], 1.0), ([1.0, 1.0, 1.0], 1.0), ([1.0, 0.0], 0.5), ([3.0, 1.0], 0.8)],
)
def test_jain(values: list[float], index: float | None) -> None:
    got = jain(values)
    assert got == index if index is None else math.isclose(got or 0.0, index)


def test_summary_layout() -> None:
    scenario = {"seed": 9, "name": "x", "sample_interval": 0}
    engine: dict[str, Any] = {
        "sim": {"sim_time_s": 1.0, "events": 3, "packets_forwarded": 2},
        "flows": [
            {"id": "a", "kind": "bulk", "goodput_bps": 3.0},
            {"id": "b", "kind": "bulk", "goodput_bps": 1.0},
            {"id": "c", "kind": "serial", "goodput_bps": 100.0},
        ],
        "queues": [],
        "links": [],
        "timeseries": {"queue": []},
    }
    s = build_summary(scenario=scenario, engine=engine, wall_s=0.1234567, version="9.9")
    assert list(s) == [
        "format_version",
        "ecnlab_version",
        "git_commit",
        "git_dirty",
        "scenario",
        "seed",
        "sim",
        "flows",
        "queues",
        "links",
        "fairness",
    ]
    assert (s["format_version"], s["ecnlab_version"], s["seed"]) == (FORMAT_VERSION, "9.9", 9)
    assert s["sim"] == {"sim_time_s": 1.0, "events": 3, "packets_forwarded": 2, "wall_s": 0.123457}
    assert math.isclose(s["fairness"], 0.8)  # bulk flows only
    assert isinstance(s["git_commit"], str) and s["git_commit"]
    assert dumps(s) == dumps(json.loads(dumps(s))) and dumps(s).endswith("}\n")


def test_run_writes_summary_and_pcaps_and_nothing_else(tmp_path: Path, fake: FakeCore) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL + '\n[output]\npcap = ["R1->R2"]\n')
    result = ecnlab.run(scenario, out=tmp_path / "deep" / "res", seed=4, overrides={"tcp.variant": "sack"})
    out = tmp_path / "deep" / "res"
    assert sorted(p.name for p in out.iterdir()) == ["R1-R2.pcap", "summary.json"]
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["res"]  # no staging leftovers
    summary = json.loads((out / "summary.json").read_text())
    assert summary == result.summary
    assert summary["seed"] == 4 and summary["scenario"]["tcp"]["recovery"] == "sack"
    assert fake.specs[0]["seed"] == 4 and fake.specs[0]["flows"][0]["tcp"]["recovery"] == "sack"
    assert fake.specs[0]["pcap_dir"] != str(out)  # written beside, renamed at the end
    assert "timeseries" not in summary
    assert result.flows.shape == (10, len(summary["flows"][0]))
    assert list(result.queues["link"])[:2] == ["s1->R1", "R1->s1"]
    assert result.links.set_index("name").loc["R1->R2", "utilization"] == 0.5
    assert list(result.timeseries.columns) == [
        "link",
        "t_s",
        "qlen_pkts",
        "avg_pkts",
        "delay_ms",
        "prob",
        "marks",
        "drops",
    ]
    assert len(result.timeseries) == 0 and len(result.flow_timeseries) == 0  # no sample_interval


def test_same_run_gives_identical_bytes_apart_from_wall_time(tmp_path: Path, fake: FakeCore) -> None:
    texts = []
    for i in range(2):
        ecnlab.run(tomllib.loads(SMALL), out=tmp_path / f"r{i}")
        data = json.loads((tmp_path / f"r{i}" / "summary.json").read_text())
        data["sim"]["wall_s"] = 0
        texts.append(dumps(data))
    assert texts[0] == texts[1]


def test_failed_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    core = FakeCore(fail="boom")
    monkeypatch.setitem(sys.modules, "ecnlab._core", core)
    monkeypatch.setattr(ecnlab, "_core", core, raising=False)
    with pytest.raises(core.EngineError, match="boom"):
        ecnlab.run(tomllib.loads(SMALL + '\n[output]\npcap = ["R1->R2"]\n'), out=tmp_path / "a" / "b" / "out")
    assert list(tmp_path.iterdir()) == []


def test_rerun_replaces_an_earlier_result(tmp_path: Path, fake: FakeCore) -> None:
    out = tmp_path / "res"
    ecnlab.run(tomllib.loads(SMALL), out=out, seed=1)
    (out / "stale.txt").write_text("old")
    ecnlab.run(tomllib.loads(SMALL), out=out, seed=2)
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]
    assert json.loads((out / "summary.json").read_text())["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_timeseries_frame(fake: FakeCore) -> None:
    result = ecnlab.run(tomllib.loads(SMALL), overrides=["sample_interval=100ms"])
    assert result.out is None
    ts = result.timeseries
    assert list(ts["link"]) == ["R1->R2", "R1->R2", "R2->R1", "R2->R1"] and list(ts["qlen_pkts"]) == [0, 2, 0, 2]
    assert ts["prob"].isna().all()
    fs = result.flow_timeseries
    assert len(fs) == 20 and list(fs["cwnd_bytes"][:2].fillna(-1)) == [-1, 2920]


def test_timeseries_are_parquet_beside_the_summary(tmp_path: Path, fake: FakeCore) -> None:
    """Time series never go into summary.json; only the links the scenario names."""
    data = tomllib.loads(SMALL)
    data["sample_interval"] = "100ms"
    data["output"] = {"timeseries_links": ["R1->R2"], "timeseries_flows": ["bulk0_1*"]}
    ecnlab.run(data, out=tmp_path / "r")
    names = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert names == ["summary.json", "timeseries-flows.parquet", "timeseries-queues.parquet"]
    assert "timeseries" not in json.loads((tmp_path / "r" / "summary.json").read_text())
    assert fake.specs[0]["timeseries_links"] == ["R1->R2"]
    assert fake.specs[0]["timeseries_flows"] == ["bulk0_1", "bulk0_10"]
    assert set(read_queues(tmp_path / "r")["link"]) == {"R1->R2"}
    assert set(read_flows(tmp_path / "r")["flow"]) == {"bulk0_1", "bulk0_10"}


def test_report_and_load_result(tmp_path: Path, fake: FakeCore) -> None:
    ecnlab.run(tomllib.loads(SMALL), out=tmp_path / "r")
    loaded = load_result(tmp_path / "r")
    report = format_report(loaded.summary)
    lines = report.splitlines()
    assert lines[0].startswith("scenario: seed 1, 5 s simulated in ")
    assert lines[2].split() == ["flow", "goodput", "Mbit/s", "retransmits", "timeouts", "ECN", "reductions"]
    assert lines[3].split() == ["bulk0_1", "0.100", "0", "0", "2"]
    # 22 router queues have arrivals; only the busy ones are listed, the rest folded into one line
    assert [ln.split()[0] for ln in lines if ln.startswith("R1->R2") or ln.startswith("R2->R1")] == [
        "R1->R2",
        "R2->R1",
        "R1->R2",
        "R2->R1",
    ]
    assert "(+20 other router queues with arrivals but no marks or drops)" in lines
    assert lines[-1] == "Jain fairness (bulk flows): 0.7857"


def test_load_result_rejects_other_format_versions(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text('{"format_version": 99}')
    with pytest.raises(ValueError, match="format_version 99 is not supported"):
        load_result(tmp_path)


def test_cli_run_prints_report(tmp_path: Path, fake: FakeCore, capsys: pytest.CaptureFixture[str]) -> None:
    from ecnlab.cli import main

    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    assert main(["run", str(scenario), "--out", str(tmp_path / "o"), "--set", "tcp.ecn=false"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "bulk0_10" in out and out.rstrip().endswith(f"wrote {tmp_path / 'o' / 'summary.json'}")
    assert engine_tcp_config(fake.specs[0]["flows"][0]["tcp"])["ecn"] == "off"


def test_cli_engine_error_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ecnlab.cli import main

    core = FakeCore(fail="flows[0].tcp: mss too small")
    monkeypatch.setitem(sys.modules, "ecnlab._core", core)
    monkeypatch.setattr(ecnlab, "_core", core, raising=False)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    assert main(["run", str(scenario), "--out", str(tmp_path / "o")]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"ecnlab: error: {scenario}: engine: flows[0].tcp: mss too small\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_fake_output_matches_contract_keys() -> None:
    """The fake must stay in the engine's format (checked against the real one in test_engine.py)."""
    out = fake_output({"duration_ns": 1, "nodes": [], "links": [], "flows": [], "sample_interval_ns": 0})
    assert list(out) == ["sim", "flows", "queues", "links", "timeseries"]


def test_cli_run_says_what_it_ran_with_and_wrote(tmp_path: Path) -> None:
    """The overrides a run used and every file it wrote (the pcaps too) are printed."""
    from conftest import SCENARIOS, run_cli

    out = tmp_path / "o"
    r = run_cli("run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", str(out), "--set", "tcp.ecn=false",
                "--set", "duration=2s", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "with --set tcp.ecn=false --set duration=2s"
    assert lines[-1] == f"wrote {out / 'summary.json'}, {out / 'R1-R2.pcap'}"


def test_compare_any_two_runs(tmp_path: Path) -> None:
    """Compare sets any two runs side by side (here ECN on vs off), not only sim vs emu."""
    from conftest import SCENARIOS, run_cli

    for name, ecn in (("on", "true"), ("off", "false")):
        r = run_cli("run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", name, "-q", "--set", f"tcp.ecn={ecn}",
                    "--set", f"topology.bottleneck_queue.ecn={ecn}", "--set", "duration=5s", cwd=tmp_path)  # fmt: skip
        assert r.returncode == 0, r.stderr
    r = run_cli("compare", "on", "off", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == ["A: dumbbell-red-ecn, simulated (seed 1)", "B: dumbbell-red-ecn, simulated (seed 1)"]
    # The flow entries inherit the scenario's [tcp] (no tcp of their own in the resolved form).
    assert "note: the resolved scenarios differ in: tcp, topology" in lines
    rows = {" ".join(line.split()[:2]): line.split()[2:] for line in lines if line.startswith(("reno_1 ", "R1->R2 "))}
    assert rows["reno_1 ecn_negotiated"][:2] == ["True", "False"]
    assert int(rows["R1->R2 marks"][0]) > 0 and rows["R1->R2 marks"][1] == "0"
    assert "R1->R2 sojourn_p99_ms" in rows


def test_load_result_reads_each_time_series_file(tmp_path: Path, fake: FakeCore) -> None:
    """A result read back holds what its Parquet files hold, as the run that wrote them did."""
    import pandas as pd

    from ecnlab import timeseries

    made = ecnlab.run(tomllib.loads(SMALL), out=tmp_path / "r", overrides=["sample_interval=100ms"])
    loaded = load_result(tmp_path / "r")
    for reader, name in (("timeseries", timeseries.QUEUES_FILE), ("flow_timeseries", timeseries.FLOWS_FILE)):
        stored = pd.read_parquet(tmp_path / "r" / name)
        assert len(stored) > 0
        pd.testing.assert_frame_equal(getattr(loaded, reader), stored)
        pd.testing.assert_frame_equal(getattr(made, reader), stored)


@pytest.mark.engine
def test_load_result_reads_the_engines_time_series(tmp_path: Path) -> None:
    import pandas as pd

    from conftest import SCENARIOS

    ecnlab.run(SCENARIOS / "dumbbell-pie.toml", out=tmp_path / "r", overrides=["duration=2s", "warmup=1s"])
    loaded = load_result(tmp_path / "r")
    pd.testing.assert_frame_equal(loaded.timeseries, pd.read_parquet(tmp_path / "r" / "timeseries-queues.parquet"))
    pd.testing.assert_frame_equal(loaded.flow_timeseries, pd.read_parquet(tmp_path / "r" / "timeseries-flows.parquet"))
    assert len(loaded.flow_timeseries) > 100


def test_result_tables_print_as_markdown(tmp_path: Path, fake: FakeCore) -> None:
    """``DataFrame.to_markdown`` works on a result's tables (tabulate is a dependency)."""
    ecnlab.run(tomllib.loads(SMALL), out=tmp_path / "r")
    text = load_result(tmp_path / "r").flows[["id", "goodput_bps"]].to_markdown(index=False)
    lines = text.splitlines()
    assert [c.strip() for c in lines[0].split("|")[1:3]] == ["id", "goodput_bps"] and len(lines) == 12
    assert lines[2].split("|")[1].strip() == "bulk0_1"

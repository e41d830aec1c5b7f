"""The results store: Parquet tables readable without ecnlab, their contents against the summaries, ``ecnlab.load``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import ecnlab
from conftest import SCENARIOS
from ecnlab.store import RUN_METRICS, run_metrics
from ecnlab.sweep import load_sweep, run_sweep

EXAMPLE = SCENARIOS / "sweep-red-ecn.toml"


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("store") / "sweep"
    assert run_sweep(load_sweep(EXAMPLE), out, jobs=2, progress=False, stream=io.StringIO()).ok
    return out


@pytest.mark.engine
def test_runs_table_columns_and_values_match_the_summaries(swept: Path) -> None:
    table = pq.read_table(swept / "runs.parquet")  # plain pyarrow, no ecnlab
    assert table.column_names == ["run", "seed", "ecn", "max_p", *RUN_METRICS]
    rows = table.to_pylist()
    assert len(rows) == 18
    for row in rows:
        s = json.loads((swept / "runs" / row["run"] / "summary.json").read_text())
        bottleneck = next(link for link in s["links"] if link["name"] == "R1->R2")
        queue = next(q for q in s["queues"] if q["link"] == "R1->R2")
        assert row["bottleneck"] == "R1->R2"
        assert row["utilization"] == bottleneck["utilization"]
        assert row["marks"] == queue["marks"]
        assert row["drops"] == queue["early_drops"] + queue["forced_drops"] + queue["overflow_drops"]
        assert row["goodput_bps"] == pytest.approx(sum(f["goodput_bps"] for f in s["flows"]) / 10)
        assert row["retransmits"] == sum(f["retransmits"] for f in s["flows"])
        assert row["fairness"] == s["fairness"]
        assert row["seed"] == s["seed"]
        assert s["scenario"]["topology"]["bottleneck_queue"]["max_p"] == row["max_p"]
        # behaviour, not bookkeeping: RED marks only when ECN is on; without it, it drops instead
        if row["ecn"] == "red":
            assert row["marks"] == 0 and row["ecn_reductions"] == 0 and row["early_drops"] > 0
        else:
            assert row["marks"] > 0 and row["ecn_reductions"] > 0


@pytest.mark.engine
def test_flows_and_queues_tables(swept: Path) -> None:
    flows = pq.read_table(swept / "flows.parquet").to_pylist()
    assert len(flows) == 18 * 10
    # the flow's own "ecn" field sits beside the axis of the same name as "flow_ecn"
    assert all(f["flow_ecn"] == (f["ecn"] == "red+ecn") for f in flows)
    first = json.loads((swept / "runs" / "red-maxp0.02-s1" / "summary.json").read_text())["flows"][0]
    row = next(f for f in flows if f["run"] == "red-maxp0.02-s1" and f["id"] == first["id"])
    assert row["goodput_bps"] == first["goodput_bps"] and row["timeouts"] == first["timeouts"]
    queues = pq.read_table(swept / "queues.parquet").to_pylist()
    links = {q["link"] for q in queues}
    assert "R1->R2" in links and len(queues) == 18 * len(links)


@pytest.mark.engine
def test_load_returns_frames_and_manifest(swept: Path) -> None:
    res = ecnlab.load(swept)
    assert list(res.runs["run"]) == [r.name for r in load_sweep(EXAMPLE).runs]
    assert res.axes == ["ecn", "max_p"]
    assert len(res.flows) == 180
    m = res.manifest
    assert m["format_version"] == 1 and m["ecnlab_version"] == ecnlab.__version__
    assert m["sweep"] == EXAMPLE.read_text()
    assert m["base_scenario"] == (SCENARIOS / "dumbbell-red-ecn.toml").read_text()
    assert m["runs"] == {"total": 18, "complete": 18, "failed": []}
    assert m["axes"] == [
        {"column": "ecn", "key": "ecn", "values": ["red", "red+ecn"]},
        {"column": "max_p", "key": "topology.bottleneck_queue.max_p", "values": [0.02, 0.1, 0.5]},
    ]
    assert {"git_commit", "created", "python", "packages"} <= set(m)
    assert res.summary("red-maxp0.1-s2")["seed"] == 2


def test_load_refuses_other_directories(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not an ecnlab sweep directory"):
        ecnlab.load(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format_version": 99}))
    with pytest.raises(ValueError, match="format_version 99 is not supported"):
        ecnlab.load(tmp_path)


@pytest.mark.engine
def test_load_of_a_damaged_table_names_the_file(swept: Path, tmp_path: Path) -> None:
    import shutil

    from ecnlab.errors import ResultError

    copy = tmp_path / "copy"
    shutil.copytree(swept, copy)
    table = copy / "flows.parquet"
    table.write_bytes(table.read_bytes()[:100])  # truncated
    with pytest.raises(ResultError, match=r"flows\.parquet: damaged \(.*\); re-run `ecnlab sweep`") as err:
        ecnlab.load(copy)
    assert "\n" not in str(err.value)
    table.unlink()
    with pytest.raises(ResultError, match=r"flows\.parquet: missing"):
        ecnlab.load(copy)
    (copy / "manifest.json").write_text("{truncated")
    with pytest.raises(ResultError, match=r"manifest\.json: damaged"):
        ecnlab.load(copy)


def test_load_result_of_a_foreign_or_truncated_summary_names_the_file(tmp_path: Path) -> None:
    from ecnlab.errors import ResultError

    summary = tmp_path / "summary.json"
    for text, why in [
        ('{"format_version": 1, "results": []}', "not an ecnlab summary: 'scenario' is missing"),
        ("[1, 2]", "not an ecnlab summary (a JSON object is expected)"),
        ('{"format_version": 1, "scen', "damaged: not valid JSON"),
    ]:
        summary.write_text(text)
        with pytest.raises(ResultError) as err:
            ecnlab.load_result(tmp_path)
        assert str(err.value).startswith(f"{summary}: {why}")


def _summary(links: list[tuple[str, float]], flows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "links": [{"name": n, "utilization": u} for n, u in links],
        "queues": [
            {"link": n, "marks": i, "early_drops": 1, "forced_drops": 2, "overflow_drops": 3, "avg_qlen_pkts": 0.5,
             "max_qlen_pkts": 4}
            for i, (n, _) in enumerate(links)
        ],
        "flows": flows,
        "fairness": None,
        "sim": {"events": 10, "packets_forwarded": 5},
    }  # fmt: skip


def _flow(**kw: Any) -> dict[str, Any]:
    base = {"goodput_bps": 100.0, "retransmits": 1, "fast_retransmits": 0, "timeouts": 0, "ecn_reductions": 2}
    return base | {"transactions": None, "completion_time_s": None} | kw


def test_run_metrics_pick_the_most_utilised_link() -> None:
    s = _summary([("a", 0.2), ("b", 0.9), ("c", 0.9)], [_flow(), _flow(goodput_bps=300.0, completion_time_s=4.5)])
    m = run_metrics(s)
    assert m["bottleneck"] == "b" and m["marks"] == 1 and m["drops"] == 6  # tie 0.9: first by name
    assert m["goodput_bps"] == 200.0 and m["goodput_total_bps"] == 400.0
    assert m["ecn_reductions"] == 4 and m["transactions"] is None and m["completion_time_s"] == 4.5
    assert set(m) == set(RUN_METRICS)


def test_run_metrics_transactions_sum() -> None:
    m = run_metrics(_summary([("a", 0.1)], [_flow(transactions=3), _flow(transactions=4), _flow()]))
    assert m["transactions"] == 7 and m["completion_time_s"] is None


@pytest.mark.engine
def test_load_reads_what_each_parquet_file_holds(tmp_path: Path) -> None:
    """``ecnlab.load``: the three tables and each run's time series are the files' rows."""
    import pandas as pd

    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'base = "{SCENARIOS / "dumbbell-pie.toml"}"\nname = "{{ecn}}-s{{seed}}"\n'
        '[set]\nduration = "2s"\nwarmup = "1s"\n[axes]\n"tcp.ecn" = [true, false]\n'
    )
    out = tmp_path / "out"
    assert run_sweep(load_sweep(sweep), out, jobs=1, progress=False, stream=io.StringIO()).ok
    res = ecnlab.load(out)
    for name in ("runs", "flows", "queues"):
        pd.testing.assert_frame_equal(getattr(res, name), pd.read_parquet(out / f"{name}.parquet"))
    for run in res.runs["run"]:
        for reader, file in ((res.queue_series, "timeseries-queues"), (res.flow_series, "timeseries-flows")):
            stored = pd.read_parquet(out / "runs" / run / f"{file}.parquet")
            assert len(stored) > 0
            pd.testing.assert_frame_equal(reader(run), stored)
        loaded = ecnlab.load_result(out / "runs" / run)
        assert len(loaded.flow_timeseries) == len(res.flow_series(run))


def test_every_parquet_reader_names_a_damaged_file(tmp_path: Path) -> None:
    from ecnlab import flowtable, timeseries
    from ecnlab.errors import ResultError

    for name in (timeseries.QUEUES_FILE, timeseries.FLOWS_FILE, flowtable.FLOWS_FILE):
        (tmp_path / name).write_bytes(b"PAR1 not a table")
    for read, name in [
        (timeseries.read_queues, timeseries.QUEUES_FILE),
        (timeseries.read_flows, timeseries.FLOWS_FILE),
        (flowtable.read, flowtable.FLOWS_FILE),
    ]:
        with pytest.raises(ResultError) as err:
            read(tmp_path)
        assert str(err.value).startswith(f"{tmp_path / name}: damaged (")

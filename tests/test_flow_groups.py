"""A front end in proportion: a ``[[flows]]`` entry with ``count`` stays one entry
into the engine, which expands it; an entry of more than ``GROUP_RECORD_LIMIT`` flows gets one
summary in summary.json's ``groups[]`` and every flow's results go to ``flows.parquet`` from the
engine's columns. Here: the Parquet rows are the engine's own per-flow results, the group summary
agrees with them, runs are byte-identical, and groups are validated as entries."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import ecnlab
from ecnlab import _core
from ecnlab.config import load_scenario, parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.flowtable import FLOWS_FILE, GROUP_RECORD_LIMIT
from ecnlab.lower import engine_spec
from ecnlab.schema import keys

N = GROUP_RECORD_LIMIT + 1  # the smallest group


def _scenario(count: int = N, **extra: Any) -> dict[str, Any]:
    """A short 2-pair dumbbell: a group of ``count`` flows on pair 1 (sizes 20 kB, so some finish),
    a telnet flow and a single bulk flow on pair 2."""
    return {
        "name": "group",
        "duration": "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "access_rate": "100Mbit",
            "access_delay": "1ms",
            "bottleneck_rate": "20Mbit",
            "bottleneck_delay": "5ms",
            "bottleneck_queue": {"kind": "red", "limit": 200, "min_th": 20, "max_th": 60, "ecn": True},
        },
        "tcp": {"ecn": True},
        "flows": [
            {"name": "g", "from": "s1", "to": "r1", "count": count, "start": "0s..0.5s", "bytes": "20KB"},
            {"name": "talk", "kind": "telnet", "from": "s2", "to": "r2"},
            {"name": "solo", "from": "s2", "to": "r2"},
        ],
        **extra,
    }


@pytest.fixture(scope="module")
def group_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("group") / "run"
    ecnlab.run(_scenario(), out=out)
    return out, json.loads((out / "summary.json").read_text())


def _engine_records() -> list[dict[str, Any]]:
    """The engine's per-flow results through its full JSON path (``_core.run``: a record per flow)."""
    spec = engine_spec(load_scenario(_scenario()))
    records: list[dict[str, Any]] = json.loads(_core.run(json.dumps(spec)))["flows"]
    return records


def _columns() -> list[str]:
    """The flow record's keys, with ``web`` spread into ``web_*``."""
    web = ["sessions", "objects_started", "objects_completed", "bytes_requested", "response_mean_s"]
    web += ["response_pct_s", "response_hist"]
    return [c for k in keys("flow") for c in ([f"web_{w}" for w in web] if k == "web" else [k])]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


@pytest.mark.engine
def test_flows_parquet_rows_are_the_engines_per_flow_results(group_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = group_run
    table = pq.read_table(out / FLOWS_FILE)
    assert table.column_names == _columns()
    rows = table.to_pylist()
    engine = _engine_records()
    assert len(rows) == len(engine) == N + 2
    assert [r["id"] for r in rows] == [f"g_{k}" for k in range(1, N + 1)] + ["talk", "solo"]
    assert [r["src"] for r in rows] == ["s1"] * N + ["s2", "s2"]
    for row, rec in zip(rows, engine, strict=True):
        for key, value in rec.items():
            if key == "web":
                continue
            assert _same(row[key], value), (rec["id"], key, row[key], value)
        absent = [k for k in keys("flow") if k not in rec and k != "web"]
        assert all(row[k] is None for k in absent), (rec["id"], absent)  # optional keys: null
    assert rows[N]["telnet_delay_hist"] is not None and rows[0]["telnet_delay_hist"] is None
    assert any(r["completion_time_s"] is not None for r in rows[:N]), "some 20 kB transfers finish"
    # summary.json keeps the records of the small entries only.
    assert [f["id"] for f in summary["flows"]] == ["talk", "solo"]
    assert summary["flows"] == [{k: v for k, v in r.items()} for r in engine[N:]]


@pytest.mark.engine
def test_group_summary_agrees_with_the_parquet_rows(group_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = group_run
    (g,) = summary["groups"]
    assert list(g) == list(keys("group"))
    rows = pq.read_table(out / FLOWS_FILE).slice(g["first_row"], g["flows"]).to_pydict()
    assert (g["name"], g["kind"], g["entry"], g["flows"], g["first_row"]) == ("g", "bulk", 0, N, 0)
    assert set(rows["id"]) == {f"g_{k}" for k in range(1, N + 1)}
    for key in ("bytes_delivered", "data_packets_sent", "retransmits", "fast_retransmits", "timeouts",
                "ecn_reductions", "ce_received", "ece_sent", "cwr_sent", "pkts_sent", "pkts_dropped",
                "connections"):  # fmt: skip
        assert g[key] == sum(rows[key]), key
    assert g["ecn_negotiated"] == sum(rows["ecn_negotiated"])
    goodput = np.array(rows["goodput_bps"])
    srt = np.sort(goodput)
    rank = lambda q, v: v[max(1, math.ceil(q / 100 * len(v))) - 1]  # noqa: E731 - nearest rank
    assert math.isclose(g["goodput_bps_mean"], goodput.mean(), rel_tol=1e-12)
    assert (g["goodput_bps_min"], g["goodput_bps_max"]) == (srt[0], srt[-1])
    for q in (10, 50, 90, 99):
        assert g[f"goodput_bps_p{q}"] == rank(q, srt), q
    assert math.isclose(g["jain"], goodput.sum() ** 2 / (len(goodput) * (goodput**2).sum()), rel_tol=1e-12)
    done = np.sort([t for t in rows["completion_time_s"] if t is not None])
    assert g["completed"] == len(done) > 0
    assert math.isclose(g["completion_time_s_mean"], done.mean(), rel_tol=1e-12)
    assert (g["completion_time_s_p50"], g["completion_time_s_p99"]) == (rank(50, done), rank(99, done))
    assert g["completion_time_s_max"] == done[-1]
    # The run's fairness is over every bulk flow, group or not.
    table = pq.read_table(out / FLOWS_FILE).to_pydict()
    bulk = np.array([x for x, k in zip(table["goodput_bps"], table["kind"], strict=True) if k == "bulk"])
    assert math.isclose(summary["fairness"], bulk.sum() ** 2 / (len(bulk) * (bulk**2).sum()), rel_tol=1e-12)


@pytest.mark.engine
def test_group_runs_are_byte_identical_and_read_back(group_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out, summary = group_run
    again = tmp_path / "again"
    result = ecnlab.run(_scenario(), out=again)
    assert (again / FLOWS_FILE).read_bytes() == (out / FLOWS_FILE).read_bytes()
    second = json.loads((again / "summary.json").read_text())
    assert {**second, "sim": {**second["sim"], "wall_s": 0}} == {**summary, "sim": {**summary["sim"], "wall_s": 0}}
    assert len(result.flows) == N + 2 and len(ecnlab.load_result(out).flows) == N + 2
    stored = pd.read_parquet(out / FLOWS_FILE)  # read back, the result holds what the file holds
    pd.testing.assert_frame_equal(ecnlab.load_result(out).flows, stored)
    pd.testing.assert_frame_equal(result.flows, stored)
    assert list(result.groups["name"]) == ["g"]


@pytest.mark.engine
def test_sweep_metrics_count_the_flows_of_groups(group_run: tuple[Path, dict[str, Any]]) -> None:
    from ecnlab.store import run_metrics

    out, summary = group_run
    rows = pq.read_table(out / FLOWS_FILE).to_pylist()
    every_record = {k: v for k, v in summary.items() if k != "groups"} | {"flows": rows}
    got, want = run_metrics(summary), run_metrics(every_record)
    assert got["flows"] == want["flows"] == N + 2
    assert math.isclose(got["goodput_total_bps"], want["goodput_total_bps"], rel_tol=1e-12)
    assert math.isclose(got["goodput_bps"], want["goodput_bps"], rel_tol=1e-12)
    rest = ("goodput_total_bps", "goodput_bps")
    assert {k: v for k, v in got.items() if k not in rest} == {k: v for k, v in want.items() if k not in rest}


@pytest.mark.engine
def test_up_to_the_limit_an_entry_keeps_its_records(tmp_path: Path) -> None:
    result = ecnlab.run(_scenario(count=GROUP_RECORD_LIMIT), out=tmp_path / "r")
    assert "groups" not in result.summary and not (tmp_path / "r" / FLOWS_FILE).exists()
    assert len(result.summary["flows"]) == GROUP_RECORD_LIMIT + 2


def test_a_group_is_one_engine_entry_and_validated_as_one() -> None:
    sc = load_scenario(_scenario(count=100_000))
    spec = engine_spec(sc)
    assert [(f["id"], f["src"], f["dst"], f.get("count", 1)) for f in spec["flows"]] == [
        ("g", "s1", "r1", 100_000), ("talk", "s2", "r2", 1), ("solo", "s2", "r2", 1)
    ]  # fmt: skip
    assert sc.flow_count == 100_002 and "flows" not in vars(sc), "nothing expanded flow by flow"


@pytest.mark.parametrize(
    ("flows", "faults", "message"),
    [
        (
            [{"name": "g", "from": "s1", "to": "r1", "count": 3}, {"name": "g_2", "from": "s2", "to": "r2"}],
            [],
            'flows[1].name: flow id "g_2" is already used by flows[0]',
        ),
        (
            [{"name": "g_3", "from": "s2", "to": "r2"}, {"name": "g", "from": "s1", "to": "r1", "count": 3}],
            [],
            'flows[1].name: flow id "g_3" is already used by flows[0]',
        ),
        (
            [{"name": "g", "from": "s1", "to": "r1", "count": 3}, {"name": "g", "from": "s2", "to": "r2", "count": 2}],
            [],
            'flows[1].name: flow id "g_1" is already used by flows[0]',
        ),
        (
            [{"name": "g", "from": "s1", "to": "r1", "count": 3}],
            [{"link": "R1->R2", "flow": "g_4", "action": "drop", "nth": 1}],
            'faults[0].flow = "g_4": no such flow (did you mean "g_3"?)',
        ),
    ],
)
def test_flow_ids_are_checked_per_entry(flows: list[dict[str, Any]], faults: list[Any], message: str) -> None:
    data = _scenario()
    data["flows"], data["faults"] = flows, faults
    with pytest.raises(ScenarioError) as e:
        parse_scenario(data)
    assert str(e.value) == message


def test_ids_that_only_look_alike_are_accepted() -> None:
    data = _scenario()
    data["flows"] = [
        {"name": "g", "from": "s1", "to": "r1", "count": 3},
        {"name": "g_4", "from": "s2", "to": "r2"},  # beyond g's flows
        {"name": "g_01", "from": "s2", "to": "r2"},  # not a number g makes
        {"name": "g_1_1", "from": "s2", "to": "r2"},
    ]
    data["faults"] = [{"link": "R1->R2", "flow": "g_3", "action": "mark", "nth": 2}]
    sc = parse_scenario(data)
    assert [f.id for f in sc.flows] == ["g_1", "g_2", "g_3", "g_4", "g_01", "g_1_1"]

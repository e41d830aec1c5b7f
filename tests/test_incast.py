"""Partition/aggregate queries: ``kind = "incast"`` from the scenario file to
``summary.json``'s ``queries[]`` and the sweep metrics (``crates/sim/src/incast.rs`` has the rules;
``crates/sim/tests/incast.rs`` checks the completion times and incast against DCTCP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ecnlab
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec
from ecnlab.schema import keys, problems
from ecnlab.store import run_metrics

ROOT = Path(__file__).resolve().parents[1]


def _scenario(**incast: Any) -> dict[str, Any]:
    entry = {"name": "q", "kind": "incast", "from": "s*", "to": "r1", "response_size": "10KB", "interval": "50ms"}
    return {
        "duration": "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 4,
            "bottleneck_rate": "10Mbit",
            "bottleneck_delay": "5ms",
            "access_rate": "100Mbit",
            "access_delay": "1ms",
        },  # fmt: skip
        "tcp": {"delayed_ack": False},
        "flows": [{**entry, **incast}],
    }


def test_an_incast_entry_lowers_to_one_engine_entry() -> None:
    sc = load_scenario(_scenario(arrivals="periodic", queries=10, request_size=200))
    flows = engine_spec(sc)["flows"]
    assert len(flows) == 1 and flows[0]["initiator"] == "dst"
    assert flows[0]["app"] == {
        "kind": "incast",
        "request_bytes": 200,
        "response_bytes": 10_000,
        "interval_ns": 50_000_000,
        "arrivals": "periodic",
        "queries": 10,
    }
    assert sc.groups[0].app.is_finite()
    assert not load_scenario(_scenario()).groups[0].app.is_finite()


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        ({"response_size": None}, "flows[0].response_size", "required"),
        ({"interval": "0s"}, "flows[0].interval", "> 0"),
        ({"arrivals": "bursty"}, "flows[0].arrivals", "poisson"),
        ({"queries": 0}, "flows[0].queries", "1"),
        ({"queries": 100_001}, "flows[0].queries", "100000"),
        ({"bytes": "1MB"}, "flows[0].bytes", "incast"),
    ],
)
def test_bad_incast_keys_are_named(change: dict[str, Any], where: str, what: str) -> None:
    sc = _scenario(**{k: v for k, v in change.items() if v is not None})
    for k, v in change.items():
        if v is None:
            del sc["flows"][0][k]
    with pytest.raises(ScenarioError) as e:
        load_scenario(sc)
    assert e.value.path == where and what in str(e.value), str(e.value)


def test_too_many_queries_in_the_run_are_refused_by_the_engine_check() -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(_scenario(interval="1us"))
    assert "100000 queries" in str(e.value) and "flows[0]" in e.value.path, str(e.value)


def test_a_run_reports_its_queries(tmp_path: Path) -> None:
    s = ecnlab.run(_scenario(arrivals="periodic"), out=tmp_path / "out").summary
    (q,) = s["queries"]
    assert problems("query", q) == [] and list(q) == list(keys("query"))
    assert (q["name"], q["responders"], q["response_bytes"]) == ("q", 4, 10_000)
    assert q["queries_issued"] == 20 and q["queries_completed"] >= 19  # one every 50 ms in 1 s
    assert len(q["qct_s"]) == q["queries_completed"]
    bottleneck = 4 * 10_000 * 8 / 10e6  # every response through 10 Mbit/s
    assert min(q["qct_s"]) > bottleneck and q["qct_p50_s"] < 2 * bottleneck
    assert all(f["responses"] >= 19 for f in s["flows"])
    m = run_metrics(s)
    assert m["qct_p99_s"] == q["qct_p99_s"] and m["queries_with_timeout"] == q["queries_with_timeout"]
    assert m["qct_mean_s"] == pytest.approx(q["qct_mean_s"])
    # The run's report has a row per incast entry.
    from ecnlab.tables import format_report

    row = next(line for line in format_report(s).splitlines() if line.startswith("q "))
    assert row.split()[1:5] == [
        str(q[k]) for k in ("responders", "queries_issued", "queries_completed", "queries_with_timeout")
    ]
    # The resolved scenario loads again to the same run.
    again = ecnlab.run(s["scenario"]).summary
    assert again["queries"] == s["queries"]


def test_runs_without_incast_have_no_query_metrics() -> None:
    s = ecnlab.run(ROOT / "scenarios" / "dumbbell-red-ecn.toml", overrides={"duration": "2s"}).summary
    assert "queries" not in s
    m = run_metrics(s)
    assert m["qct_mean_s"] is None and m["qct_p99_s"] is None and m["queries_with_timeout"] is None


def test_the_fat_tree_example_runs_incast_beside_background_flows() -> None:
    sc = load_scenario(ROOT / "scenarios" / "fat-tree-incast.toml")
    assert len(sc.topology.hosts) == 128 and sc.topology.links[0].rate_bps == 100_000_000_000
    spec = engine_spec(sc)
    assert [f["app"]["kind"] for f in spec["flows"]] == ["incast", "bulk"]
    assert all(f["tcp"]["cc"] == "dctcp" and f["tcp"]["ect_all_packets"] for f in spec["flows"])
    assert json.dumps(spec).count('"kind": "step"') > 0

"""The foundation scenario: 10 Reno flows through a 1.5 Mbit/s RED bottleneck.

With ECN the bottleneck stays busy, RED marks instead of dropping ECT data,
and the flows share fairly; without ECN RED drops early instead of marking.
Each run is done twice to prove byte-identical results.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ecnlab

pytestmark = pytest.mark.engine

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "dumbbell-red-ecn.toml"


def _bottleneck(summary: dict) -> tuple[dict, dict]:
    queue = next(q for q in summary["queues"] if q["link"] == "R1->R2")
    link = next(lk for lk in summary["links"] if lk["name"] == "R1->R2")
    return queue, link


@pytest.fixture(scope="module")
def ecn_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("ecn") / "run"
    ecnlab.run(SCENARIO, out=out)
    return json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def noecn_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("noecn") / "run"
    ecnlab.run(SCENARIO, out=out, overrides=["tcp.ecn=false"])
    return json.loads((out / "summary.json").read_text())


def test_scenario_is_the_documented_one(ecn_run: dict) -> None:
    sc = ecn_run["scenario"]
    q = sc["topology"]["bottleneck_queue"]
    assert (q["kind"], q["min_th"], q["max_th"], q["max_p"], q["wq"], q["limit"]) == ("red", 5, 15, 0.1, 0.002, 60)
    assert q["gentle"] is True  # Floyd 2000 / ns-2 / ns-3 default; see docs/model.md for the 1993 cliff
    assert len(ecn_run["flows"]) == 10
    assert {f["cc"] for f in ecn_run["flows"]} == {"reno"}
    assert ecn_run["sim"]["sim_time_s"] == 60.0


def test_with_ecn_the_bottleneck_is_busy_marked_and_fair(ecn_run: dict) -> None:
    queue, link = _bottleneck(ecn_run)
    assert link["utilization"] >= 0.95
    assert queue["marks"] > 0
    assert queue["early_drops_ect"] == 0  # RED with ECN marks ECT packets, never drops them early
    assert all(f["ecn_negotiated"] for f in ecn_run["flows"])
    assert sum(f["ecn_reductions"] for f in ecn_run["flows"]) > 0
    assert ecn_run["fairness"] >= 0.95


def test_without_ecn_red_drops_instead_of_marking(noecn_run: dict) -> None:
    queue, link = _bottleneck(noecn_run)
    assert queue["marks"] == 0
    assert queue["early_drops"] > 0
    assert sum(f["ecn_reductions"] for f in noecn_run["flows"]) == 0
    assert not any(f["ecn_negotiated"] for f in noecn_run["flows"])
    assert sum(f["retransmits"] for f in noecn_run["flows"]) > 0
    assert link["utilization"] >= 0.9


def test_same_seed_gives_byte_identical_summary(tmp_path: Path) -> None:
    texts = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        ecnlab.run(SCENARIO, out=out, overrides=["duration=20"])
        data = json.loads((out / "summary.json").read_text())
        data["sim"].pop("wall_s")
        texts.append(json.dumps(data, sort_keys=True))
    assert texts[0] == texts[1]

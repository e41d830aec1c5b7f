"""Web traffic (flow kind ``web``): size distributions, offered load, scenario errors, engine behaviour."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ecnlab
from ecnlab import load_scenario
from ecnlab.config import parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, resolved_scenario
from ecnlab.model import ObjectSizeSpec
from ecnlab.web import mean_size, session_gap_ns

WEB = """\
name = "web"
seed = 4
duration = "30s"
sample_interval = "1s"

[topology]
kind = "dumbbell"
pairs = 4
access_rate = "100Mbit"
access_delay = "5ms"
bottleneck_rate = "10Mbit"
bottleneck_delay = "10ms"
[topology.bottleneck_queue]
limit = 200
[topology.reverse_queue]
limit = 200

[[flows]]
kind = "web"
from = "s*"
to = "r*"
offered_load = "1.5Mbit"
pages_per_session = 3
objects_per_page = 2
think = "500ms"
size = { dist = "bounded_pareto", alpha = 1.2, min_size = 1000, max_size = "2MB" }
"""

PARETO = ObjectSizeSpec("bounded_pareto", alpha=1.2, max_bytes=2_000_000, min_bytes=1000)
SURGE = ObjectSizeSpec(
    "lognormal_pareto", alpha=1.1, max_bytes=50_000_000, mu=9.357, sigma=1.318, cut_bytes=133_000, tail_p=0.07
)


def _load(text: str, **flow: Any) -> Any:
    data = tomllib.loads(text)
    data["flows"][0].update(flow)
    return load_scenario(data)


def test_bounded_pareto_mean_by_numerical_integration() -> None:
    x = np.geomspace(1000, 2_000_000, 400_001)
    a = 1.2
    pdf = a * 1000**a * x ** (-a - 1) / (1 - (1000 / 2_000_000) ** a)
    assert mean_size(PARETO) == pytest.approx(np.trapezoid(x * pdf, x), rel=1e-6)


def test_surge_mean_by_numerical_integration() -> None:
    xb = np.geomspace(1.0, 133_000, 400_001)
    dens = np.exp(-((np.log(xb) - 9.357) ** 2) / (2 * 1.318**2)) / (xb * 1.318 * math.sqrt(2 * math.pi))
    body = np.trapezoid(xb * dens, xb) / np.trapezoid(dens, xb)
    xt = np.geomspace(133_000, 50_000_000, 400_001)
    survival = (133_000 / xt) ** 1.1
    tail = 133_000 + np.trapezoid(survival, xt)  # E[min(X, cap)] = scale + ∫ P(X > x) dx
    assert mean_size(SURGE) == pytest.approx(0.93 * body + 0.07 * tail, rel=1e-5)


def test_offered_load_sets_the_session_gap() -> None:
    gap = session_gap_ns(1.5e6, PARETO, 3, 2)
    assert gap == round(8 * 3 * 2 * mean_size(PARETO) / 1.5e6 * 1e9)
    app = engine_spec(_load(WEB))["flows"][0]["app"]
    assert app == {
        "kind": "web",
        "request_bytes": 300,
        "size": {"dist": "bounded_pareto", "alpha": 1.2, "min_bytes": 1000, "max_bytes": 2_000_000},
        "mean_session_gap_ns": gap,
        "pages_per_session": 3.0,
        "objects_per_page": 2.0,
        "mean_think_ns": 500_000_000,
    }
    assert engine_spec(_load(WEB))["flows"][0]["initiator"] == "dst"


def test_web_resolved_round_trip() -> None:
    surge = {"dist": "lognormal_pareto", "mu": 9.357, "sigma": 1.318, "cut_size": "133KB", "tail_p": 0.07}
    for sc in (_load(WEB), _load(WEB, size={**surge, "alpha": 1.1, "max_size": "50MB"})):
        again = parse_scenario(json.loads(json.dumps(resolved_scenario(sc))))
        assert engine_spec(again) == engine_spec(sc)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"size": None}, "flows[0].size: required key is missing"),
        ({"size": {"dist": "zipf", "alpha": 1}}, "flows[0].size.dist"),
        ({"size": {"dist": "bounded_pareto", "alpha": 1.2, "min_size": 10, "max_size": 5}}, "must be > min_size"),
        ({"size": {"dist": "bounded_pareto", "alpha": 1.2, "min_size": 10, "max_size": 50, "mu": 1}}, "mu"),
        ({"mean_session_gap": "1s"}, "not both"),
        ({"offered_load": None}, "web needs mean_session_gap or offered_load"),
        ({"pages_per_session": 0.5}, "flows[0].pages_per_session"),
    ],
)
def test_web_errors_name_the_field(change: dict[str, Any], message: str) -> None:
    data = tomllib.loads(WEB)
    for k, v in change.items():
        if v is None:
            del data["flows"][0][k]
        else:
            data["flows"][0][k] = v
    with pytest.raises(ScenarioError) as e:
        load_scenario(data)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.engine
def test_web_flows_offer_their_load_and_report_response_times(tmp_path: Path) -> None:
    scenario = tmp_path / "web.toml"
    scenario.write_text(WEB)
    ecnlab.run(scenario, out=tmp_path / "a")
    ecnlab.run(scenario, out=tmp_path / "b")
    runs = [json.loads((tmp_path / d / "summary.json").read_text()) for d in "ab"]
    for r in runs:
        r["sim"].pop("wall_s")
    assert runs[0] == runs[1], "same seed, same results"
    flows = runs[0]["flows"]
    assert len(flows) == 4 and all(f["kind"] == "web" for f in flows)
    requested = sum(f["web"]["bytes_requested"] for f in flows)
    # 4 × 1.5 Mbit/s of heavy-tailed objects over 30 s: within 30 % of the target.
    assert 0.7 < requested * 8 / 30 / 6e6 < 1.3, requested * 8 / 30 / 6e6
    for f in flows:
        w = f["web"]
        assert w["objects_completed"] > 20 and w["objects_completed"] <= w["objects_started"]
        assert f["connections"] == w["objects_started"]
        pct = w["response_pct_s"]
        assert pct == sorted(pct) and len(pct) == 7
        # No object beats SYN, SYN-ACK, request, response: two round trips of ≥ 2·(5+10+5) ms.
        assert pct[0] >= 0.08
        assert sum(w["response_hist"]) == w["objects_completed"]

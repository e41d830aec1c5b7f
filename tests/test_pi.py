"""PI AQM (Hollot et al. 2001): design rule, scenario keys and errors, lowering, engine behaviour.

The controller's difference equation itself is pinned in crates/aqm/src/pi_tests.rs.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest

import ecnlab
from ecnlab import load_scenario
from ecnlab.config import parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, resolved_scenario
from ecnlab.pi_design import bilinear, pi_gains

PI = """\
name = "pi"
seed = 3
duration = "40s"
warmup = "10s"
sample_interval = "100ms"

[topology]
kind = "dumbbell"
pairs = 10
access_rate = "10Mbit"
access_delay = "1ms"
bottleneck_rate = "1.5Mbit"
bottleneck_delay = "20ms"

[topology.bottleneck_queue]
kind = "pi"
limit = 100
q_ref = 20
n_flows = 10
rtt = "100ms"
ecn = true

[tcp]
variant = "reno"
ecn = true

[[flows]]
kind = "bulk"
from = "s*"
to = "r*"
"""


def _load(text: str, queue: dict[str, Any] | None = None) -> Any:
    data = tomllib.loads(text)
    if queue is not None:
        data["topology"]["bottleneck_queue"] = queue
    return load_scenario(data)


def _bottleneck_queue(sc: Any) -> dict[str, Any]:
    return next(lk["queue"] for lk in engine_spec(sc)["links"] if lk["name"] == "R1->R2")


def test_bilinear_reproduces_the_papers_example_gains() -> None:
    # Hollot et al. 2001 §V: K = 9.64e-6, z = 0.53, f = 160 Hz → a = 1.822e-5, b = 1.816e-5.
    a, b = bilinear(9.64e-6, 0.53, 160.0)
    assert (round(a, 8), round(b, 8)) == (1.822e-5, 1.816e-5)


def test_design_rule_by_hand() -> None:
    # 15 Mbit/s of 500-byte packets = 3750 pkt/s, N = 60, R = 246 ms.
    c, n, r, f = 3750.0, 60, 0.246, 160.0
    z = 120 / (0.246**2 * 3750)
    k = z * math.sqrt(1 + (z * r) ** 2) * 14400 / (r * c) ** 3
    a, b = pi_gains(15e6, 500, n, r, f)
    assert a == pytest.approx(k * (1 / z + 1 / 320), rel=1e-12)
    assert b == pytest.approx(k * (1 / z - 1 / 320), rel=1e-12)
    assert z == pytest.approx(0.529, abs=1e-3)  # the paper prints 0.53
    assert a > b > 0


def test_pi_lowers_with_derived_gains() -> None:
    q = _bottleneck_queue(_load(PI))
    a, b = pi_gains(1_500_000, 1500, 10, 0.1, 160.0)
    assert q == {"kind": "pi", "limit_pkts": 100, "limit_bytes": None, "q_ref": 20.0, "a": a, "b": b,
                 "sample_hz": 160.0, "ecn": True}  # fmt: skip


def test_pi_lowers_with_given_gains_and_round_trips() -> None:
    queue = {"kind": "pi", "limit": 50, "q_ref": 5, "a": 2e-4, "b": 1.9e-4, "sample_hz": 100}
    sc = _load(PI, queue)
    q = _bottleneck_queue(sc)
    assert (q["a"], q["b"], q["sample_hz"], q["ecn"]) == (2e-4, 1.9e-4, 100.0, False)
    for s in (sc, _load(PI)):
        again = parse_scenario(json.loads(json.dumps(resolved_scenario(s))))
        assert engine_spec(again) == engine_spec(s)


@pytest.mark.parametrize(
    "queue, message",
    [
        ({"kind": "pi", "a": 1e-5, "b": 1e-5}, "q_ref"),
        ({"kind": "pi", "q_ref": 5, "a": 1e-5}, "needs b as well"),
        ({"kind": "pi", "q_ref": 5, "a": 1e-5, "b": 1e-5, "rtt": "100ms"}, "not both"),
        ({"kind": "pi", "q_ref": 5}, "PI needs a and b, or n_flows and rtt"),
        ({"kind": "pi", "q_ref": 5, "n_flows": 10}, "PI needs a and b, or n_flows and rtt"),
        ({"kind": "pi", "q_ref": -1, "n_flows": 10, "rtt": "0.1s"}, "q_ref"),
        ({"kind": "pi", "q_ref": 5, "n_flows": 0, "rtt": "0.1s"}, "n_flows"),
        ({"kind": "pi", "q_ref": 5, "n_flows": 10, "rtt": "0.1s", "sample_hz": 0}, "sample_hz"),
        ({"kind": "pi", "q_ref": 5, "n_flows": 10, "rtt": "0.1s", "min_th": 5}, "min_th"),
    ],
)
def test_pi_errors_name_the_field(queue: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        _load(PI, queue)
    text = str(e.value)
    assert "\n" not in text and message in text and "bottleneck_queue" in text


@pytest.mark.engine
def test_pi_holds_the_queue_near_q_ref_and_marks(tmp_path: Path) -> None:
    """Ten long-lived flows on a 125 pkt/s link: the integral term settles the queue around q_ref."""
    out = tmp_path / "run"
    scenario = tmp_path / "pi.toml"
    scenario.write_text(PI)
    ecnlab.run(scenario, out=out)
    summary = json.loads((out / "summary.json").read_text())
    q = next(x for x in summary["queues"] if x["link"] == "R1->R2")
    link = next(x for x in summary["links"] if x["name"] == "R1->R2")
    assert q["marks"] > 0 and q["early_drops_ect"] == 0 and q["overflow_drops"] == 0
    assert link["utilization"] > 0.95
    assert 10 < q["avg_qlen_pkts"] < 30, q["avg_qlen_pkts"]

"""``--set KEY=VALUE`` parsing and application."""

from __future__ import annotations

from typing import Any

import pytest

from ecnlab.errors import ScenarioError
from ecnlab.overrides import apply_overrides, normalize, parse_set


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("topology.bottleneck_queue.max_p=0.2", ["topology", "bottleneck_queue", "max_p"], 0.2),
        ("tcp.ecn=false", ["tcp", "ecn"], False),
        ('tcp.variant="sack"', ["tcp", "variant"], "sack"),
        ("tcp.variant=sack", ["tcp", "variant"], "sack"),
        ("duration=30s", ["duration"], "30s"),
        ("duration=30", ["duration"], 30),
        ("seed = 7", ["seed"], 7),
        ("topology.bottleneck_rate=1.5Mbit", ["topology", "bottleneck_rate"], "1.5Mbit"),
        ('flows[0].to=["r1", "r2"]', ["flows", 0, "to"], ["r1", "r2"]),
        ("flows.1.count=3", ["flows", 1, "count"], 3),
        (
            'topology.default_queue={kind = "droptail", limit = 50}',
            ["topology", "default_queue"],
            {"kind": "droptail", "limit": 50},
        ),
        ('topology.hosts."s3".access_delay=5ms', ["topology", "hosts", "s3", "access_delay"], "5ms"),
        ("name=a=b", ["name"], "a=b"),
        ("description=", ["description"], ""),
    ],
)
def test_parse_set(text: str, path: list[Any], value: Any) -> None:
    assert parse_set(text) == (path, value)


def test_apply_creates_missing_tables_and_does_not_mutate() -> None:
    data: dict[str, Any] = {"tcp": {"ecn": True}, "flows": [{"from": "s1"}]}
    out = apply_overrides(data, normalize(["tcp.ecn=false", "topology.hosts.s3.access_delay=5ms", "flows[0].count=2"]))
    assert out == {
        "tcp": {"ecn": False},
        "flows": [{"from": "s1", "count": 2}],
        "topology": {"hosts": {"s3": {"access_delay": "5ms"}}},
    }
    assert data == {"tcp": {"ecn": True}, "flows": [{"from": "s1"}]}


def test_mapping_overrides_take_python_values() -> None:
    out = apply_overrides({}, normalize({"tcp.variant": "sack", "seed": 3}))
    assert out == {"tcp": {"variant": "sack"}, "seed": 3}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("duration.x=1", "--set duration.x: duration is not a table"),
        ("flows[2].count=1", "--set flows[2].count: flows has 1 entries (index from 0)"),
        ("tcp[0]=1", "--set tcp[0]: tcp is not an array"),
        ("a..b=1", "--set a..b: bad key path 'a..b' (use dotted keys like topology.bottleneck_queue.max_p)"),
    ],
)
def test_bad_set(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        apply_overrides({"duration": 1, "tcp": {}, "flows": [{}]}, normalize([text]))
    assert str(e.value) == message

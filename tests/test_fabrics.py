"""Data-centre fabrics: the fat tree and leaf-spine generators (``fabrics.py``) and
per-flow ECMP (``crates/sim/src/net.rs``), which spreads a permutation's flows over the core."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from ecnlab import _core
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec


def _fat_tree(k: int = 4, **flows: Any) -> dict[str, Any]:
    hosts = k**3 // 4
    shift = k // 2 * k // 2  # hosts per pod: every flow leaves its pod
    return {
        "duration": "0.2s",
        "topology": {
            "kind": "fat_tree",
            "k": k,
            "rate": "10Gbit",
            "delay": "1us",
            "queue": {"kind": "step", "limit": 200, "threshold": 20},
        },
        "tcp": {"ecn": True, "recovery": "sack", "rwnd": "4MiB"},
        "flows": [
            {
                "kind": "bulk",
                "from": [f"h{i}" for i in range(1, hosts + 1)],
                "to": [f"h{(i - 1 + shift) % hosts + 1}" for i in range(1, hosts + 1)],
                **flows,
            }
        ],
    }


def test_fat_tree_shape() -> None:
    topo = load_scenario(_fat_tree(4)).topology
    kinds = [n.kind for n in topo.nodes]
    assert (kinds.count("host"), kinds.count("router"), len(topo.links)) == (16, 20, 2 * (16 + 16 + 16))
    names = {link.name for link in topo.links}
    assert {"h1->e1_1", "h3->e1_2", "e1_1->a1_2", "a1_1->c1", "a1_1->c2", "a1_2->c3", "c4->a4_2"} <= names
    assert "a1_1->c3" not in names and topo.ecmp
    assert len(load_scenario(_fat_tree(8)).topology.hosts) == 128


def test_leaf_spine_shape_and_oversubscription() -> None:
    base = {"kind": "leaf_spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 8, "host_rate": "10Gbit",
            "delay": "1us"}  # fmt: skip
    flows = [{"kind": "bulk", "from": "h1", "to": "h32"}]
    sc = {"duration": "1s", "topology": {**base, "oversubscription": 4}, "flows": flows}
    topo = load_scenario(sc).topology
    assert len(topo.hosts) == 32 and len(topo.links) == 2 * (32 + 4 * 2)
    fabric = next(link for link in topo.links if link.name == "leaf1->spine2")
    assert fabric.rate_bps == 10_000_000_000 and topo.resolved["oversubscription"] == 4.0  # 8·10 / (2·10)
    sc["topology"] = {**base, "fabric_rate": "40Gbit"}
    assert load_scenario(sc).topology.resolved["oversubscription"] == 1.0


@pytest.mark.parametrize(
    ("topology", "message"),
    [
        ({"kind": "fat_tree", "k": 5, "rate": "1Gbit", "delay": "1us"}, "topology.k = 5: must be even"),
        ({"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_rate": "1Gbit",
          "delay": "1us", "fabric_rate": "1Gbit", "oversubscription": 2}, "give fabric_rate or oversubscription"),
        ({"kind": "fat_tree", "k": 4, "rate": "1Gbit", "delay": "1us", "pairs": 3}, "topology.pairs: unknown key"),
    ],
)  # fmt: skip
def test_fabric_mistakes_are_one_line(topology: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message.replace(".", r"\.")):
        load_scenario({"duration": "1s", "topology": topology, "flows": [{"kind": "bulk", "from": "h1", "to": "h2"}]})


def _core_bytes(spec: dict[str, Any]) -> dict[str, np.ndarray]:
    out = json.loads(_core.run(json.dumps(spec)))
    up = [x["bytes"] for x in out["links"] if x["from"].startswith("a") and x["to"].startswith("c")]
    down = [x["bytes"] for x in out["links"] if x["from"].startswith("c")]
    return {"up": np.array(up, float), "down": np.array(down, float)}


@pytest.mark.engine
def test_ecmp_spreads_a_permutation_over_every_core_link() -> None:
    """k = 4, every host sends 8 flows to the host one pod over: with ECMP each of the 16
    aggregation->core and 16 core->aggregation links carries traffic, as evenly as per-flow
    hashing of 128 equal transfers allows; routed on one path per destination (the lowest
    link index) the same flows use 4 of 16."""
    data = _fat_tree(4, count=8, bytes="200KB")  # equal transfers: a link's bytes count its flows
    sc = load_scenario({**data, "duration": "2s", "stop_when_complete": True})
    spec = engine_spec(sc)
    assert spec["ecmp"] is True
    for direction, v in _core_bytes(spec).items():
        assert len(v) == 16 and (v > 0).all(), direction
        assert v.std() / v.mean() < 0.35 and v.max() < 1.6 * v.mean(), (direction, v / v.mean())
    del spec["ecmp"]
    spec["stop_when_complete"] = False  # on 4 links the transfers time out and back off past the end
    for direction, v in _core_bytes(spec).items():
        assert (v > 0).sum() == 4, direction


@pytest.mark.engine
def test_ecmp_every_core_link_within_20_percent_of_the_mean() -> None:
    """Under a permutation every core link carries within ±20 % of the mean. Per-flow
    hashing balances flows, not bytes, so the spread is that of a multinomial draw: with 8
    flows a host (128 over 16 links) the links differ by up to 50 %; with 64 flows a host
    (1 024 equal transfers, 64 a link on average) every aggregation->core and core->aggregation
    link is within ±20 % (17 % here)."""
    data = _fat_tree(4, count=64, bytes="50KB")
    spec = engine_spec(load_scenario({**data, "duration": "20s", "stop_when_complete": True}))
    for direction, v in _core_bytes(spec).items():
        assert len(v) == 16 and abs(v / v.mean() - 1).max() <= 0.20, (direction, v / v.mean())

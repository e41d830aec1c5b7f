"""Data-centre topologies: ``kind = "fat_tree"`` and ``kind = "leaf_spine"``, expanded to
nodes and duplex links, routed with per-flow ECMP (``net.rs``).

**k-ary fat tree** (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008): k pods, each with k/2 edge and
k/2 aggregation switches; (k/2)² core switches; k/2 hosts per edge switch, k³/4 hosts in all.
Edge switch i of pod p links to every aggregation switch of pod p; aggregation switch j of
every pod links to core switches j·k/2 + 1 … (j + 1)·k/2. Every link has the same rate
(``rate``; ``host_rate`` for the host links if given), so the fabric is not oversubscribed.
Names: hosts ``h1`` … ``h{k³/4}`` (pod by pod, edge by edge), edge ``e{pod}_{i}``,
aggregation ``a{pod}_{j}``, core ``c{i}``, all 1-based.

**Leaf-spine** (two-tier Clos): ``leaves`` leaf switches with ``hosts_per_leaf`` hosts each
at ``host_rate``, every leaf linked to every one of ``spines`` spine switches at
``fabric_rate``. Oversubscription = hosts_per_leaf · host_rate / (spines · fabric_rate);
give ``fabric_rate`` or ``oversubscription`` (default 1: no oversubscription). Names: hosts
``h1`` …, leaves ``leaf1`` …, spines ``spine1`` ….

Every link's queue is ``queue`` (default DropTail 100 packets; e.g. a step marker at K packets
for DCTCP-style marking).
"""

from __future__ import annotations

from typing import Any

from ecnlab._table import Table, integer, number
from ecnlab.errors import ScenarioError
from ecnlab.model import Link, Node, QueueSpec, Topology
from ecnlab.params import default_queue, parse_queue
from ecnlab.resolve import queue_resolved
from ecnlab.units import ns_to_s

__all__ = ["fat_tree", "leaf_spine", "MAX_FABRIC_HOSTS"]

_FAT_TREE_KEYS = ("kind", "k", "rate", "delay", "host_rate", "host_delay", "queue")
_LEAF_SPINE_KEYS = (
    "kind",
    "leaves",
    "spines",
    "hosts_per_leaf",
    "host_rate",
    "fabric_rate",
    "oversubscription",
    "delay",
    "queue",
)
#: Hosts of the largest fabric a scenario may describe (a k = 64 fat tree has 65 536).
MAX_FABRIC_HOSTS = 1_000_000


def _duplex(a: str, b: str, rate: int, delay: int, q: QueueSpec) -> list[Link]:
    return [Link(f"{a}->{b}", a, b, rate, delay, q), Link(f"{b}->{a}", b, a, rate, delay, q)]


def fat_tree(t: Table, mss: int, rate_of: Any, delay_of: Any) -> Topology:
    """``kind = "fat_tree"``; ``rate_of``/``delay_of`` parse a link's rate and delay."""
    t.check_keys(_FAT_TREE_KEYS, context='for kind = "fat_tree"')
    k = t.get("k", integer(2, 64))
    if k % 2:
        raise ScenarioError(t.at("k"), "must be even (k/2 hosts and switches per pod half)", k)
    rate = t.get("rate", rate_of)
    delay = t.get("delay", delay_of)
    host_rate = t.get("host_rate", rate_of, rate)
    host_delay = t.get("host_delay", delay_of, delay)
    q = parse_queue(t.table("queue"), fallback=default_queue(), mss=mss)
    half = k // 2
    hosts: list[str] = []
    switches: list[str] = []
    links: list[Link] = []
    for p in range(1, k + 1):
        for i in range(1, half + 1):
            edge = f"e{p}_{i}"
            switches.append(edge)
            for _ in range(half):
                host = f"h{len(hosts) + 1}"
                hosts.append(host)
                links += _duplex(host, edge, host_rate, host_delay, q)
        for j in range(1, half + 1):
            agg = f"a{p}_{j}"
            switches.append(agg)
            links += [x for i in range(1, half + 1) for x in _duplex(f"e{p}_{i}", agg, rate, delay, q)]
            links += [x for c in range(1, half + 1) for x in _duplex(agg, f"c{(j - 1) * half + c}", rate, delay, q)]
    switches += [f"c{c}" for c in range(1, half * half + 1)]
    resolved = {
        "kind": "fat_tree",
        "k": k,
        "rate": rate,
        "delay": ns_to_s(delay),
        "host_rate": host_rate,
        "host_delay": ns_to_s(host_delay),
        "queue": queue_resolved(q),
    }
    nodes = [Node(h, "host") for h in hosts] + [Node(s, "router") for s in switches]
    return Topology("fat_tree", tuple(nodes), tuple(links), resolved, ecmp=True)


def leaf_spine(t: Table, mss: int, rate_of: Any, delay_of: Any) -> Topology:
    """``kind = "leaf_spine"``."""
    t.check_keys(_LEAF_SPINE_KEYS, context='for kind = "leaf_spine"')
    leaves = t.get("leaves", integer(1, 10_000))
    spines = t.get("spines", integer(1, 10_000))
    per_leaf = t.get("hosts_per_leaf", integer(1, 10_000))
    if leaves * per_leaf > MAX_FABRIC_HOSTS:
        raise ScenarioError(t.path, f"{leaves * per_leaf} hosts: at most {MAX_FABRIC_HOSTS}")
    host_rate = t.get("host_rate", rate_of)
    delay = t.get("delay", delay_of)
    if t.has("fabric_rate") and t.has("oversubscription"):
        raise ScenarioError(t.at("oversubscription"), "give fabric_rate or oversubscription, not both")
    over = t.get("oversubscription", number(0, 1e6, open_lo=True), 1.0)
    fabric = t.get("fabric_rate", rate_of, max(1000, round(per_leaf * host_rate / (spines * over))))
    q = parse_queue(t.table("queue"), fallback=default_queue(), mss=mss)
    hosts: list[str] = []
    links: list[Link] = []
    for leaf in range(1, leaves + 1):
        for _ in range(per_leaf):
            host = f"h{len(hosts) + 1}"
            hosts.append(host)
            links += _duplex(host, f"leaf{leaf}", host_rate, delay, q)
        links += [x for s in range(1, spines + 1) for x in _duplex(f"leaf{leaf}", f"spine{s}", fabric, delay, q)]
    resolved = {
        "kind": "leaf_spine",
        "leaves": leaves,
        "spines": spines,
        "hosts_per_leaf": per_leaf,
        "host_rate": host_rate,
        "fabric_rate": fabric,
        "oversubscription": per_leaf * host_rate / (spines * fabric),
        "delay": ns_to_s(delay),
        "queue": queue_resolved(q),
    }
    nodes = [Node(h, "host") for h in hosts]
    nodes += [Node(f"leaf{i}", "router") for i in range(1, leaves + 1)]
    nodes += [Node(f"spine{j}", "router") for j in range(1, spines + 1)]
    return Topology("leaf_spine", tuple(nodes), tuple(links), resolved, ecmp=True)

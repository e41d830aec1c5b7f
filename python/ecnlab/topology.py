"""The ``[topology]`` table: a ``dumbbell`` shorthand, an ``explicit`` node/link list, or a
data-centre fabric (``fat_tree``, ``leaf_spine``: ``fabrics.py``)."""

from __future__ import annotations

from collections import deque
from typing import Any

from ecnlab._table import Table, boolean, choice, integer, number, string
from ecnlab.errors import ScenarioError
from ecnlab.fabrics import fat_tree, leaf_spine
from ecnlab.model import Link, Node, QueueSpec, Topology
from ecnlab.names import NAME_RE, summarize
from ecnlab.params import default_queue, parse_queue
from ecnlab.resolve import queue_resolved
from ecnlab.units import ns_to_s, parse_duration, parse_rate

__all__ = ["parse_topology", "Reachability"]

TOPOLOGY_KINDS = ("dumbbell", "explicit", "fat_tree", "leaf_spine")
_DUMBBELL_KEYS = (
    "kind",
    "pairs",
    "access_rate",
    "access_delay",
    "access_loss",
    "access_corrupt",
    "bottleneck_rate",
    "bottleneck_delay",
    "hosts",
    "bottleneck_queue",
    "reverse_queue",
    "default_queue",
)
_HOST_KEYS = ("access_rate", "access_delay", "access_loss", "access_corrupt")
_EXPLICIT_KEYS = ("kind", "nodes", "links", "default_queue")
_NODE_KEYS = ("name", "kind")
_LINK_KEYS = ("from", "to", "rate", "delay", "queue", "reverse_queue", "duplex", "loss", "corrupt")
_loss = number(0, 1, open_hi=True)


MAX_LINK_DELAY_NS = 10_000_000_000
MIN_LINK_RATE_BPS = 1000


def _delay(value: Any, path: str) -> int:
    """A link's delay: 0 to 10 s (a bare number is seconds, so ``20`` meant as ms is caught)."""
    ns = parse_duration(value, path)
    if ns > MAX_LINK_DELAY_NS:
        raise ScenarioError(path, 'must be <= 10 s (a bare number is seconds: 20 ms is "20ms")', value)
    return ns


def _rate(value: Any, path: str) -> int:
    """A link's rate: at least 1 kbit/s (a bare number is bit/s, so ``1.5`` meant as Mbit/s is caught)."""
    bps = parse_rate(value, path)
    if bps < MIN_LINK_RATE_BPS:
        raise ScenarioError(path, 'must be >= 1000 bit/s (a bare number is bit/s: 1.5 Mbit/s is "1.5Mbit")', value)
    return bps


def parse_topology(table: Table | None, path: str, *, mss: int) -> Topology:
    """Parse and expand the topology table."""
    if table is None:
        raise ScenarioError(path, 'required table is missing (kind = "dumbbell" or "explicit")')
    kind = table.get("kind", choice(TOPOLOGY_KINDS), required_note='"dumbbell", "explicit", "fat_tree" or "leaf_spine"')
    if kind == "dumbbell":
        return _dumbbell(table, mss)
    if kind == "fat_tree":
        return fat_tree(table, mss, _rate, _delay)
    if kind == "leaf_spine":
        return leaf_spine(table, mss, _rate, _delay)
    return _explicit(table, mss)


def _dumbbell(t: Table, mss: int) -> Topology:
    t.check_keys(_DUMBBELL_KEYS, context='for kind = "dumbbell"')
    pairs = t.get("pairs", integer(1, 100_000))
    rate = t.get("access_rate", _rate)
    delay = t.get("access_delay", _delay)
    loss = t.get("access_loss", _loss, 0.0)
    corrupt = t.get("access_corrupt", _loss, 0.0)
    b_rate = t.get("bottleneck_rate", _rate)
    b_delay = t.get("bottleneck_delay", _delay)
    default_q = parse_queue(t.table("default_queue"), fallback=default_queue(), mss=mss)
    fwd_q = parse_queue(t.table("bottleneck_queue"), fallback=default_q, mss=mss)
    rev_q = parse_queue(t.table("reverse_queue"), fallback=default_q, mss=mss)
    senders = [f"s{i}" for i in range(1, pairs + 1)]
    receivers = [f"r{i}" for i in range(1, pairs + 1)]
    hosts = senders + receivers
    access: dict[str, tuple[int, int, float, float]] = {h: (rate, delay, loss, corrupt) for h in hosts}
    overrides: dict[str, dict[str, Any]] = {}
    hosts_table = t.table("hosts")
    if hosts_table is not None:
        for name in hosts_table.data:
            if name not in access:
                raise ScenarioError(hosts_table.at(name), f"no such host (hosts: {summarize(hosts)})")
            ht = hosts_table.table(name)
            assert ht is not None
            ht.check_keys(_HOST_KEYS)
            h_rate, h_delay, h_loss, h_corrupt = access[name]
            h_rate = ht.get("access_rate", _rate, h_rate)
            h_delay = ht.get("access_delay", _delay, h_delay)
            h_loss = ht.get("access_loss", _loss, h_loss)
            h_corrupt = ht.get("access_corrupt", _loss, h_corrupt)
            access[name] = (h_rate, h_delay, h_loss, h_corrupt)
            overrides[name] = {
                "access_rate": h_rate,
                "access_delay": ns_to_s(h_delay),
                "access_loss": h_loss,
                "access_corrupt": h_corrupt,
            }

    nodes = [Node(h, "host") for h in hosts] + [Node("R1", "router"), Node("R2", "router")]
    links: list[Link] = []
    for s in senders:
        r, d, lo, co = access[s]
        links += [
            Link(f"{s}->R1", s, "R1", r, d, default_q, lo, co),
            Link(f"R1->{s}", "R1", s, r, d, default_q, lo, co),
        ]
    links += [Link("R1->R2", "R1", "R2", b_rate, b_delay, fwd_q), Link("R2->R1", "R2", "R1", b_rate, b_delay, rev_q)]
    for h in receivers:
        r, d, lo, co = access[h]
        links += [
            Link(f"R2->{h}", "R2", h, r, d, default_q, lo, co),
            Link(f"{h}->R2", h, "R2", r, d, default_q, lo, co),
        ]
    resolved = {
        "kind": "dumbbell",
        "pairs": pairs,
        "access_rate": rate,
        "access_delay": ns_to_s(delay),
        "access_loss": loss,
        "access_corrupt": corrupt,
        "bottleneck_rate": b_rate,
        "bottleneck_delay": ns_to_s(b_delay),
        "hosts": {name: overrides[name] for name in hosts if name in overrides},
        "bottleneck_queue": queue_resolved(fwd_q),
        "reverse_queue": queue_resolved(rev_q),
        "default_queue": queue_resolved(default_q),
    }
    return Topology("dumbbell", tuple(nodes), tuple(links), resolved)


def _explicit(t: Table, mss: int) -> Topology:
    t.check_keys(_EXPLICIT_KEYS, context='for kind = "explicit"')
    default_q = parse_queue(t.table("default_queue"), fallback=default_queue(), mss=mss)
    nodes: list[Node] = []
    seen: dict[str, str] = {}
    node_tables = t.tables("nodes")
    if not node_tables:
        raise ScenarioError(t.at("nodes"), "required: at least one [[topology.nodes]] entry")
    for nt in node_tables:
        nt.check_keys(_NODE_KEYS)
        name = _node_name(nt.get("name", string), nt.at("name"))
        if name in seen:
            raise ScenarioError(nt.at("name"), f"duplicate node name (also {seen[name]})", name)
        seen[name] = nt.path
        nodes.append(Node(name, nt.get("kind", choice(("host", "router")))))
    kinds = {n.name: n.kind for n in nodes}
    links: list[Link] = []
    link_paths: dict[str, str] = {}
    resolved_links: list[dict[str, Any]] = []
    for lt in t.tables("links"):
        new, entry = _explicit_link(lt, kinds, default_q, mss)
        for link in new:
            if link.name in link_paths:
                raise ScenarioError(lt.path, f'duplicate link "{link.name}" (also {link_paths[link.name]})')
            link_paths[link.name] = lt.path
        links += new
        resolved_links.append(entry)
    resolved = {
        "kind": "explicit",
        "nodes": [{"name": n.name, "kind": n.kind} for n in nodes],
        "links": resolved_links,
        "default_queue": queue_resolved(default_q),
    }
    return Topology("explicit", tuple(nodes), tuple(links), resolved)


def _node_name(name: str, path: str) -> str:
    if not NAME_RE.match(name):
        raise ScenarioError(path, "must be letters, digits, '_', '.' or '-'", name)
    return name


def _explicit_link(
    lt: Table, kinds: dict[str, str], default_q: QueueSpec, mss: int
) -> tuple[list[Link], dict[str, Any]]:
    lt.check_keys(_LINK_KEYS)
    ends = []
    for key in ("from", "to"):
        name = lt.get(key, string)
        if name not in kinds:
            raise ScenarioError(lt.at(key), f"no such node (nodes: {summarize(kinds)})", name)
        ends.append(name)
    a, b = ends
    if a == b:
        raise ScenarioError(lt.at("to"), "a link needs two different nodes", b)
    rate = lt.get("rate", _rate)
    delay = lt.get("delay", _delay)
    duplex = lt.get("duplex", boolean, True)
    loss = lt.get("loss", _loss, 0.0)
    corrupt = lt.get("corrupt", _loss, 0.0)
    queue = parse_queue(lt.table("queue"), fallback=default_q, mss=mss)
    if lt.has("reverse_queue") and not duplex:
        raise ScenarioError(lt.at("reverse_queue"), "only allowed on a duplex link (duplex = true)")
    rev_queue = parse_queue(lt.table("reverse_queue"), fallback=default_q, mss=mss)
    links = [Link(f"{a}->{b}", a, b, rate, delay, queue, loss, corrupt)]
    entry: dict[str, Any] = {
        "from": a,
        "to": b,
        "rate": rate,
        "delay": ns_to_s(delay),
        "duplex": duplex,
        "loss": loss,
        "corrupt": corrupt,
    }
    entry["queue"] = queue_resolved(queue)
    if duplex:
        links.append(Link(f"{b}->{a}", b, a, rate, delay, rev_queue, loss, corrupt))
        entry["reverse_queue"] = queue_resolved(rev_queue)
    return links, entry


class Reachability:
    """Which hosts can reach which (forwarding only through routers), computed on demand.

    Only routers forward, so a host reaches its neighbours and whatever its
    neighbouring routers reach; that is searched once per router, not once
    per host (a dumbbell of N pairs: one search instead of 2N).
    """

    def __init__(self, topology: Topology) -> None:
        self._kinds = {n.name: n.kind for n in topology.nodes}
        self._out: dict[str, list[str]] = {}
        for link in topology.links:
            self._out.setdefault(link.src, []).append(link.dst)
        self._reached: dict[str, set[str]] = {}

    def ok(self, src: str, dst: str) -> bool:
        """Whether packets can get from ``src`` to ``dst``."""
        if dst == src:
            return True
        for nxt in self._out.get(src, []):
            if nxt == dst or (self._kinds[nxt] == "router" and dst in self._from_router(nxt)):
                return True
        return False

    def _from_router(self, router: str) -> set[str]:
        if router not in self._reached:
            self._reached[router] = self._bfs(router)
        return self._reached[router]

    def _bfs(self, src: str) -> set[str]:
        """Nodes reached from router ``src``, forwarding only through routers."""
        todo, seen = deque([src]), {src}
        while todo:
            node = todo.popleft()
            if self._kinds[node] != "router":
                continue
            for nxt in self._out.get(node, []):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

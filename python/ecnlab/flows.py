"""``[[flows]]`` (expanded to concrete flows), ``[[faults]]`` and ``[output]``."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from ecnlab._table import Table, choice, integer, string
from ecnlab.errors import ScenarioError
from ecnlab.model import AppSpec, Fault, FlowGroup, TcpSpec, Topology
from ecnlab.names import NAME_RE, is_glob, match_glob, summarize
from ecnlab.params import parse_tcp
from ecnlab.topology import Reachability
from ecnlab.units import parse_duration, parse_duration_range, parse_size
from ecnlab.web import WEB_KEYS, parse_web

__all__ = [
    "parse_flows",
    "EntryReader",
    "ENTRY_OWN_KEYS",
    "FlowIds",
    "parse_faults",
    "parse_pcap",
    "pcap_file",
    "pcap_stem",
    "captured_links",
    "FLOW_KINDS",
]

FLOW_KINDS = ("bulk", "serial", "request_response", "telnet", "ftp_arrivals", "web", "incast")
_COMMON_KEYS = ("name", "kind", "from", "to", "count", "start", "initiator", "tcp")
_KIND_KEYS = {
    "bulk": ("bytes",),
    "serial": ("files", "file_size", "gap"),
    "request_response": ("request_size", "response_size", "think", "transactions"),
    "telnet": ("interarrival", "mean_interarrival", "write_size"),
    "ftp_arrivals": ("min_size", "max_size", "mean_gap"),
    "web": WEB_KEYS,
    "incast": ("request_size", "response_size", "interval", "arrivals", "queries"),
}
_DEFAULT_INITIATOR = {"bulk": "src", "serial": "dst", "request_response": "dst", "telnet": "src", "ftp_arrivals": "src"}
_DEFAULT_INITIATOR["web"] = "dst"  # the client downloads
_DEFAULT_INITIATOR["incast"] = "dst"  # the aggregator connects to its responders
#: An incast query's request when ``request_size`` is not given.
INCAST_REQUEST_BYTES = 100
_FAULT_KEYS = ("link", "flow", "action", "nth", "seq")
DUPLEX = "<->"  # [output] pcap = ["A<->B"]: both directions of a path in one capture


#: Flows in one scenario: a single run may have up to a million.
MAX_FLOWS = 1_000_000
#: Queries of one incast entry (``crates/sim/src/incast.rs``, ``MAX_QUERIES``).
MAX_QUERIES = 100_000


def parse_flows(tables: list[Table], topo: Topology, tcp: TcpSpec, duration_ns: int) -> list[FlowGroup]:
    """Every ``[[flows]]`` entry, validated once per entry, never flow by flow: the engine
    expands each into its flows (``crates/sim/src/spec.rs``, ``FlowSpec``); the ids they will
    have are checked unique here from the entries' names and sizes (:class:`FlowIds`)."""
    groups: list[FlowGroup] = []
    ids = FlowIds()
    entries = EntryReader(topo, tcp, duration_ns)
    for index, ft in enumerate(tables):
        group = entries.read(index, ft)
        size = group.size
        total = ids.total + size
        if total > MAX_FLOWS:  # checked before anything per flow: 10^10 flows must not take minutes to refuse
            why = f"makes {total} flows in all; a scenario has at most {MAX_FLOWS}"
            if ft.has("count"):
                raise ScenarioError(ft.at("count"), why, ft.raw("count"))
            raise ScenarioError(ft.path, why)
        clash = ids.take(group, size)
        if clash is not None:
            flow_id, other = clash
            where = ft.at("name") if ft.has("name") else ft.path
            raise ScenarioError(where, f'flow id "{flow_id}" is already used by flows[{other}]')
        groups.append(group)
    if not groups:
        raise ScenarioError("flows", "required: at least one [[flows]] entry")
    return groups


class FlowIds:
    """The flow ids of the entries seen so far, kept per entry: an entry making one flow has
    its name as id, a larger one ``name_1`` … ``name_n`` (``FlowGroup.flow_id``)."""

    def __init__(self) -> None:
        self.single: dict[str, int] = {}  # id -> entry index
        self.numbered: dict[str, tuple[int, int]] = {}  # name -> (entry index, flows)
        self.single_by_stem: dict[str, dict[int, str]] = {}  # "a" -> {3: "a_3"} for single ids shaped name_k
        self.total = 0

    def owner(self, flow_id: str) -> int | None:
        """The entry index that makes flow ``flow_id``, or None."""
        return self._owner(flow_id, *_numbered(flow_id))

    def _owner(self, flow_id: str, stem: str, k: int | None) -> int | None:
        """:meth:`owner`, with ``_numbered(flow_id)`` given."""
        other = self.single.get(flow_id)
        if other is None and k is not None and stem in self.numbered:
            index, n = self.numbered[stem]
            other = index if 1 <= k <= n else None
        return other

    def take(self, g: FlowGroup, size: int) -> tuple[str, int] | None:
        """Add the ids of ``g`` (``size`` flows), or return (an id of ``g`` already made, the entry
        making it) and add nothing."""
        name = g.name
        if size == 1:
            stem, k = _numbered(name)
            other = self._owner(name, stem, k)
            if other is not None:
                return name, other
            self.single[name] = g.index
            if k is not None:
                self.single_by_stem.setdefault(stem, {})[k] = name
        else:
            if name in self.numbered:
                return f"{name}_1", self.numbered[name][0]
            taken = [(k, i) for k, i in self.single_by_stem.get(name, {}).items() if 1 <= k <= size]
            if taken:
                flow_id = min(taken)[1]
                return flow_id, self.single[flow_id]
            self.numbered[name] = (g.index, size)
        self.total += size
        return None

    def add(self, g: FlowGroup) -> None:
        """Add the ids of ``g``, which the caller knows to be new."""
        self.take(g, g.size)


def _numbered(flow_id: str) -> tuple[str, int | None]:
    """``("a", 3)`` for ``"a_3"``; the number is None unless the id ends in ``_`` and a number
    without leading zeros (the shape of a group's ids)."""
    stem, _, k = flow_id.rpartition("_")
    return stem, int(k) if stem and k.isdecimal() and k.isascii() and k[0] != "0" else None


#: The keys read entry by entry. A generator writes thousands of entries that differ only in
#: these; the rest of an entry (its shape: kind, count, initiator, the application's keys, tcp)
#: makes the same values wherever it recurs, so each distinct shape is checked once.
ENTRY_OWN_KEYS = frozenset(("name", "from", "to", "start"))


@dataclass(frozen=True)
class _Shape:
    """What an entry's keys other than :data:`ENTRY_OWN_KEYS` make."""

    kind: str
    app: AppSpec
    count: int
    initiator: str
    tcp: TcpSpec


class EntryReader:
    """``[[flows]]`` entries to :class:`FlowGroup`s. Each distinct shape (``_shape_key``: the
    entry's other keys and values, types included) is checked once and its values shared (one
    ``AppSpec`` and ``TcpSpec`` object per shape); endpoints, host pairs and starts are looked
    up by value once checked. Every error is raised as a first reading raises it: the first
    entry of a shape reads it whole, in the order of the checks, and what is looked up is only
    what has passed."""

    def __init__(self, topo: Topology, base_tcp: TcpSpec, duration_ns: int) -> None:
        self.topo = topo
        self.reach = Reachability(topo)
        self.base_tcp = base_tcp
        self.duration_ns = duration_ns
        self.shapes: dict[Hashable, _Shape] = {}
        self.hosts: dict[Hashable, tuple[str, ...]] = {}  # (key, raw value) -> hosts
        self.pairs: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.starts: dict[Hashable, tuple[int, int]] = {}

    def read(self, index: int, ft: Table) -> FlowGroup:
        """Entry ``index`` (its table ``ft``)."""
        key = _shape_key(ft.data)
        shape = self.shapes.get(key)
        if shape is None:
            kind = ft.get("kind", choice(FLOW_KINDS), "bulk")
            ft.check_keys(_COMMON_KEYS + _KIND_KEYS[kind], context=f'for kind = "{kind}"')
        else:
            kind = shape.kind
        name = ft.data["name"] if ft.has("name") else f"{kind}{index}"
        if type(name) is not str:
            name = string(name, ft.at("name"))  # not a string: raises
        if not NAME_RE.match(name):
            raise ScenarioError(ft.at("name"), "must be letters, digits, '_', '.' or '-'", name)
        src, dst = self._pairs(ft)
        start, spread = self._start(ft)
        if shape is None:
            shape = self.shapes[key] = _parse_shape(ft, kind, self.base_tcp)
        return FlowGroup(
            index=index,
            name=name,
            app=shape.app,
            src=src,
            dst=dst,
            count=shape.count,
            start_ns=start,
            start_spread_ns=spread,
            initiator=shape.initiator,
            tcp=shape.tcp,
        )

    def _hosts(self, ft: Table, key: str) -> tuple[str, ...]:
        raw = ft.raw(key)
        value = (key, raw) if isinstance(raw, str) else (key, tuple(raw)) if _all_str(raw) else None
        hosts = self.hosts.get(value) if value is not None else None
        if hosts is None:
            hosts = tuple(_endpoints(ft, key, self.topo))
            if value is not None:
                self.hosts[value] = hosts
        return hosts

    def _pairs(self, ft: Table) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``from`` and ``to`` as the hosts of each pair, in order (one side's single host paired
        with every host of the other); each pair a route both ways between two hosts."""
        src, dst = self._hosts(ft, "from"), self._hosts(ft, "to")
        paired = self.pairs.get((src, dst))
        if paired is not None:
            return paired
        if len(src) != len(dst) and len(src) != 1 and len(dst) != 1:
            raise ScenarioError(
                ft.at("to"),
                f"names {len(dst)} hosts but from names {len(src)} (lists and globs pair up in order; "
                "give equal lengths or a single host on one side)",
                ft.raw("to"),
            )
        n = max(len(src), len(dst))
        a_side, b_side = (src * n if len(src) == 1 else src), (dst * n if len(dst) == 1 else dst)
        for a, b in zip(a_side, b_side, strict=False):
            if a == b:
                raise ScenarioError(ft.at("to"), f'pairs host "{a}" with itself', ft.raw("to"))
            if not (self.reach.ok(a, b) and self.reach.ok(b, a)):
                raise ScenarioError(ft.path, f'no route between "{a}" and "{b}" in both directions')
        paired = self.pairs[(src, dst)] = (a_side, b_side)
        return paired

    def _start(self, ft: Table) -> tuple[int, int]:
        """``start`` as (start, spread) in ns, before the end of the run."""
        raw = ft.raw("start")
        value = (type(raw), raw) if isinstance(raw, str | int | float) else None
        known = self.starts.get(value) if value is not None else None
        if known is not None:
            return known
        start, spread = ft.get("start", parse_duration_range, (0, 0))
        if start + spread >= self.duration_ns:
            raise ScenarioError(ft.at("start"), "must be before the end of the run (duration)", ft.raw("start"))
        if value is not None:
            self.starts[value] = (start, spread)
        return start, spread


def _parse_shape(ft: Table, kind: str, base_tcp: TcpSpec) -> _Shape:
    """The keys of an entry other than :data:`ENTRY_OWN_KEYS`, in the order they are checked."""
    tcp_table = ft.table("tcp")
    app = _parse_app(kind, ft)
    count = ft.get("count", integer(1, 100_000), 1)
    initiator = ft.get("initiator", choice(("src", "dst")), _DEFAULT_INITIATOR[kind])
    return _Shape(kind=kind, app=app, count=count, initiator=initiator, tcp=parse_tcp(tcp_table, base_tcp))


def _shape_key(data: Mapping[str, Any]) -> Hashable:
    """An entry's keys other than :data:`ENTRY_OWN_KEYS` with their values, in order, each value
    with its type (``1``, ``1.0`` and ``true`` are equal in Python but not as TOML values)."""
    return tuple([(k, _frozen(v)) for k, v in data.items() if k not in ENTRY_OWN_KEYS])


def _frozen(value: Any) -> Hashable:
    """A TOML value as a hashable one that equals another only for the same TOML value."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool:
        return (kind, value)
    if isinstance(value, Mapping):
        return (dict, tuple([(k, _frozen(v)) for k, v in value.items()]))
    if isinstance(value, list):
        return (list, tuple([_frozen(v) for v in value]))
    return (kind, value)


def _all_str(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _parse_app(kind: str, ft: Table) -> AppSpec:
    if kind == "web":
        return parse_web(ft)
    if kind == "telnet":
        return _parse_telnet(ft)
    if kind == "incast":
        return _parse_incast(ft)
    if kind == "ftp_arrivals":
        min_bytes = ft.get("min_size", _positive_size)
        max_bytes = ft.get("max_size", _positive_size)
        if max_bytes < min_bytes:
            raise ScenarioError(ft.at("max_size"), f"must be >= min_size ({min_bytes} bytes)", ft.raw("max_size"))
        mean_gap = ft.get("mean_gap", lambda v, p: parse_duration(v, p, positive=True))
        return AppSpec(kind, min_bytes=min_bytes, max_bytes=max_bytes, mean_gap_ns=mean_gap)
    if kind == "bulk":
        return AppSpec(kind, bytes=ft.get("bytes", parse_size, None))
    if kind == "serial":
        return AppSpec(
            kind,
            files=ft.get("files", integer(1, 2**32 - 1)),
            file_bytes=ft.get("file_size", parse_size),
            gap_ns=ft.get("gap", parse_duration, 0),
        )
    return AppSpec(
        kind,
        request_bytes=ft.get("request_size", parse_size),
        response_bytes=ft.get("response_size", parse_size),
        think_ns=ft.get("think", parse_duration, 0),
        transactions=ft.get("transactions", integer(1, 2**32 - 1), None),
    )


def _parse_incast(ft: Table) -> AppSpec:
    """Partition/aggregate queries (``crates/sim/src/incast.rs``): at each query the aggregator
    (``to``) asks every responder (``from``) for ``response_size`` bytes."""
    return AppSpec(
        "incast",
        request_bytes=ft.get("request_size", _positive_size, INCAST_REQUEST_BYTES),
        response_bytes=ft.get("response_size", _positive_size),
        query_interval_ns=ft.get("interval", lambda v, p: parse_duration(v, p, positive=True)),
        query_arrivals=ft.get("arrivals", choice(("poisson", "periodic")), "poisson"),
        transactions=ft.get("queries", integer(1, MAX_QUERIES), None),
    )


def _parse_telnet(ft: Table) -> AppSpec:
    """Telnet: tcplib interarrivals (default) or exponential ones with ``mean_interarrival``."""
    interarrival = ft.get("interarrival", choice(("tcplib", "exponential")), "tcplib")
    if interarrival == "exponential":
        mean = ft.get(
            "mean_interarrival",
            lambda v, p: parse_duration(v, p, positive=True),
            required_note='interarrival = "exponential" needs its mean',
        )
    elif ft.has("mean_interarrival"):
        raise ScenarioError(
            ft.at("mean_interarrival"), 'only with interarrival = "exponential"', ft.raw("mean_interarrival")
        )
    else:
        mean = 0
    write = ft.get("write_size", integer(1, 65_535), 1)
    return AppSpec("telnet", interarrival=interarrival, mean_interarrival_ns=mean, write_bytes=write)


def _positive_size(value: Any, path: str) -> int:
    n = parse_size(value, path)
    if n <= 0:
        raise ScenarioError(path, "must be > 0", value)
    return n


def _endpoints(ft: Table, key: str, topo: Topology) -> list[str]:
    """Host names from a name, a glob, or a list of names/globs, in order."""
    raw = ft.get(key, _str_or_list)
    items = [raw] if isinstance(raw, str) else raw
    hosts = topo.hosts
    kinds = topo.kinds
    out: list[str] = []
    for i, item in enumerate(items):
        path = ft.at(key) if isinstance(raw, str) else f"{ft.at(key)}[{i}]"
        if is_glob(item):
            matched = match_glob(item, hosts)
            if not matched:
                raise ScenarioError(path, f"matches no host (hosts: {summarize(hosts)})", item)
            out += matched
        elif kinds.get(item) == "router":
            raise ScenarioError(path, f"is a router; flows run between hosts (hosts: {summarize(hosts)})", item)
        elif item not in kinds:
            raise ScenarioError(path, f"no such host (hosts: {summarize(hosts)})", item)
        else:
            out.append(item)
    if not out:
        raise ScenarioError(ft.at(key), "names no host", raw)
    return out


def _str_or_list(value: Any, path: str) -> str | list[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ScenarioError(path, 'must be a host name, a glob like "s*", or a list of them', value)


def parse_faults(tables: list[Table], topo: Topology, groups: list[FlowGroup]) -> list[Fault]:
    """``[[faults]]``: each names an existing link and flow and exactly one of nth / seq."""
    if not tables:  # the ids of a million flows are not gathered for nothing
        return []
    faults = []
    ids = FlowIds()
    for g in groups:
        ids.add(g)
    for ft in tables:
        ft.check_keys(_FAULT_KEYS)
        link = _link(ft, "link", topo)
        flow = _existing_flow(ft, "flow", ids, groups)
        action = ft.get("action", choice(("drop", "mark")))
        nth = ft.get("nth", integer(1, 2**63 - 1), None)
        seq = ft.get("seq", integer(1, 2**63 - 1), None)
        if (nth is None) == (seq is None):
            raise ScenarioError(ft.path, "give exactly one of nth and seq")
        faults.append(Fault(link, flow, action, nth, seq))
    return faults


def _existing_flow(t: Table, key: str, ids: FlowIds, groups: list[FlowGroup]) -> str:
    value = t.get(key, string)
    if ids.owner(value) is not None:
        return value
    # Suggestions from every id of the smaller entries and the ends of the larger ones.
    names = [i for g in groups for i in (g.flow_ids() if g.size <= 1000 else (g.flow_id(0), g.flow_id(g.size - 1)))]
    close = difflib.get_close_matches(value, names, n=1, cutoff=0.5)
    hint = f'did you mean "{close[0]}"?' if close else f"flows: {summarize(names)}"
    raise ScenarioError(t.at(key), f"no such flow ({hint})", value)


def _link(t: Table, key: str, topo: Topology) -> str:
    return check_link(t.get(key, string), t.at(key), topo)


def check_link(name: str, path: str, topo: Topology) -> str:
    """``name`` if it is a link of ``topo``; else an error saying why not."""
    if name in topo.link_names:
        return name
    nodes = {n.name for n in topo.nodes}
    if "->" not in name:
        hint = f'links are named "FROM->TO", e.g. "{topo.link_names[0]}"'
    else:
        a, b = name.split("->", 1)
        unknown = [x for x in (a, b) if x not in nodes]
        if unknown:
            hint = f'no node "{unknown[0]}"'
        else:
            hint = f"{a} has no link to {b}; links from {a}: {summarize(lk.name for lk in topo.links if lk.src == a)}"
    raise ScenarioError(path, f"no such link ({hint})", name)


OUTPUT_KEYS = ("pcap", "timeseries_links", "timeseries_flows")


def default_timeseries_links(topo: Topology) -> list[str]:
    """The queues sampled unless ``[output] timeseries_links`` names them: the links
    between two routers (the core), or every link leaving a router when none joins two."""
    routers = {n.name for n in topo.nodes if n.kind == "router"}
    leaving = [link.name for link in topo.links if link.src in routers]
    core = [link.name for link in topo.links if link.src in routers and link.dst in routers]
    return core or leaving


def parse_timeseries(table: Table | None, topo: Topology, groups: list[FlowGroup]) -> tuple[list[str], list[str]]:
    """``[output] timeseries_links`` (link names) and ``timeseries_flows`` (flow ids or
    glob patterns, default ``["*"]``): what ``sample_interval`` samples."""
    if table is None or not table.has("timeseries_links"):
        links = default_timeseries_links(topo)
    else:
        raw = table.get("timeseries_links", _str_or_list)
        items = [raw] if isinstance(raw, str) else raw
        links = []
        for i, name in enumerate(items):
            path = table.at("timeseries_links") if isinstance(raw, str) else f"{table.at('timeseries_links')}[{i}]"
            check_link(name, path, topo)
            if name not in links:
                links.append(name)
    patterns = ["*"]
    if table is not None and table.has("timeseries_flows"):
        raw = table.get("timeseries_flows", _str_or_list)
        patterns = [raw] if isinstance(raw, str) else list(raw)
        for i, p in enumerate(patterns):
            if not any(fnmatch.fnmatchcase(f, p) for g in groups for f in g.flow_ids()):
                path = table.at("timeseries_flows") if isinstance(raw, str) else f"{table.at('timeseries_flows')}[{i}]"
                raise ScenarioError(path, "matches no flow id", p)
    return links, patterns


def parse_pcap(table: Table | None, topo: Topology) -> list[str]:
    """``[output] pcap``: links to capture, ``"FROM->TO"`` (one direction) or ``"A<->B"`` (both
    directions of the path, one file)."""
    if table is None:
        return []
    table.check_keys(OUTPUT_KEYS)
    raw = table.get("pcap", _str_or_list, [])
    items = [raw] if isinstance(raw, str) else raw
    out: list[str] = []
    for i, name in enumerate(items):
        path = table.at("pcap") if isinstance(raw, str) else f"{table.at('pcap')}[{i}]"
        for link in captured_links(name):
            check_link(link, path, topo)
        if name in out:
            continue
        for other in out:
            if pcap_file(other) == pcap_file(name):
                raise ScenarioError(path, f'would write the same file {pcap_file(name)} as "{other}"', name)
            shared = set(captured_links(other)) & set(captured_links(name))
            if shared:
                raise ScenarioError(path, f'{sorted(shared)[0]} is captured by "{other}" already', name)
        out.append(name)
    return out


def captured_links(entry: str) -> tuple[str, ...]:
    """The links of an ``[output] pcap`` entry: ``"A<->B"`` is ``A->B`` and ``B->A``."""
    if DUPLEX in entry:
        a, b = entry.split(DUPLEX, 1)
        return (f"{a}->{b}", f"{b}->{a}")
    return (entry,)


def pcap_stem(entry: str) -> str:
    """The capture's file name without ``.pcap``: ``R1->R2`` → ``R1-R2``, ``R1<->R2`` → ``R1-R2.both``."""
    link = captured_links(entry)[0]
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in link.replace("->", "-"))
    return f"{safe}.both" if DUPLEX in entry else safe


def pcap_file(entry: str) -> str:
    """The file a capture is written to: ``R1->R2`` → ``R1-R2.pcap``, ``R1<->R2`` → ``R1-R2.both.pcap``."""
    return f"{pcap_stem(entry)}.pcap"

"""A validated Scenario → (a) the resolved scenario dict, (b) the engine's JSON input.

(b) follows ``crates/sim/src/spec.rs`` (``SimSpec``): every node, every
unidirectional link with its queue, every concrete flow with its full TCP
configuration; nanoseconds, bits per second and bytes.
"""

from __future__ import annotations

import fnmatch
import functools
from typing import Any

from ecnlab.flows import captured_links, pcap_stem
from ecnlab.impairments import impairments_engine, impairments_resolved
from ecnlab.lower_tcp import engine_tcp_config, tcp_engine
from ecnlab.model import (
    AppSpec,
    FlowGroup,
    Link,
    PiSpec,
    QueueSpec,
    Scenario,
)
from ecnlab.params import engine_queue
from ecnlab.pi_design import pi_gains
from ecnlab.queues import CLASSIC_KINDS
from ecnlab.resolve import app_resolved, tcp_resolved
from ecnlab.units import ns_to_s

__all__ = ["resolved_scenario", "engine_spec", "tcp_engine", "engine_tcp_config"]


def resolved_scenario(sc: Scenario) -> dict[str, Any]:
    """The scenario in file form with every default filled and units canonical. A flow entry
    carries a ``tcp`` table only where its TCP differs from the scenario's ``[tcp]``
    (:func:`ecnlab.resolve.flow_tcp` reads either)."""
    flows = []
    for g in sc.groups:
        entry: dict[str, Any] = {
            "name": g.name,
            "kind": g.app.kind,
            "from": list(g.src),
            "to": list(g.dst),
            "count": g.count,
            "start": _start(g.start_ns, g.start_spread_ns),
            "initiator": g.initiator,
        }
        entry.update(app_resolved(g.app))
        if g.tcp is not sc.tcp and g.tcp != sc.tcp:  # an entry's own [tcp]; else it is the scenario's
            entry["tcp"] = tcp_resolved(g.tcp)
        flows.append(entry)
    faults = []
    for f in sc.faults:
        fault: dict[str, Any] = {"link": f.link, "flow": f.flow, "action": f.action}
        if f.nth is not None:
            fault["nth"] = f.nth
        else:
            fault["seq"] = f.seq
        faults.append(fault)
    resolved = {
        "name": sc.name,
        "description": sc.description,
        "seed": sc.seed,
        "duration": ns_to_s(sc.duration_ns),
        "warmup": ns_to_s(sc.warmup_ns),
        "sample_interval": ns_to_s(sc.sample_interval_ns),
        "stop_when_complete": sc.stop_when_complete,
        "topology": sc.topology.resolved,
        "tcp": tcp_resolved(sc.tcp),
        "flows": flows,
        "faults": faults,
        "output": {
            "pcap": list(sc.pcap),
            "timeseries_links": list(sc.timeseries_links),
            "timeseries_flows": list(sc.timeseries_flows),
        },
    }
    _add_impairments(resolved, sc, engine=False)
    return resolved


def engine_spec(sc: Scenario, *, pcap_dir: str | None = None) -> dict[str, Any]:
    """The engine's input (``SimSpec``) as a JSON-ready dict."""
    pcap = {link: entry for entry in sc.pcap for link in captured_links(entry)}
    spec: dict[str, Any] = {
        "seed": sc.seed,
        "duration_ns": sc.duration_ns,
        "warmup_ns": sc.warmup_ns,
        "sample_interval_ns": sc.sample_interval_ns,
        "stop_when_complete": sc.stop_when_complete,
        "nodes": [{"name": n.name, "kind": n.kind} for n in sc.topology.nodes],
        "links": [_link(link, pcap.get(link.name)) for link in sc.topology.links],
        "flows": _flow_entries(sc.groups),
        "faults": [{"link": f.link, "flow": f.flow, "action": f.action, "nth": f.nth, "seq": f.seq} for f in sc.faults],
    }
    if sc.sample_interval_ns:
        spec["timeseries_links"] = list(sc.timeseries_links)
        spec["timeseries_flows"] = _sampled_flows(sc)
    if pcap_dir is not None:
        spec["pcap_dir"] = pcap_dir
    if sc.topology.ecmp:  # absent otherwise: older engine JSON stays identical
        spec["ecmp"] = True
    _add_impairments(spec, sc, engine=True)
    return spec


def engine_json(sc: Scenario, *, pcap_dir: str | None = None) -> str:
    """:func:`engine_spec` as the JSON text the engine reads (compact, by the engine's writer:
    ``crates/py/src/json_text.rs``). The last scenario's text is kept, so the check before a run
    (``engine_check.py``) and the run lower a large scenario once."""
    from ecnlab._core import dumps_compact

    last = _LAST_JSON.get("last")
    if last is not None and last[0] is sc and last[1] == pcap_dir:
        return last[2]
    text = dumps_compact(engine_spec(sc, pcap_dir=pcap_dir))
    _LAST_JSON["last"] = (sc, pcap_dir, text)
    return text


#: The last (scenario, pcap_dir, text) of :func:`engine_json`; a Scenario is frozen, so the same
#: object lowers to the same text.
_LAST_JSON: dict[str, tuple[Scenario, str | None, str]] = {}


def _add_impairments(out: dict[str, Any], sc: Scenario, *, engine: bool) -> None:
    """``impairments`` (engine or file form), only in a scenario that has some: the JSON of
    every other scenario stays as it was."""
    if sc.impairments:
        out["impairments"] = (impairments_engine if engine else impairments_resolved)(sc.impairments)


def _flow_entries(groups: tuple[FlowGroup, ...]) -> list[dict[str, Any]]:
    """Every ``[[flows]]`` entry; entries of one shape share its TcpSpec and AppSpec objects
    (``flows.py``, ``EntryReader``), so their engine tables are built once, not once per entry."""
    tcps: dict[int, dict[str, Any]] = {}  # id(TcpSpec) -> its table; the groups keep each alive
    apps: dict[int, dict[str, Any]] = {}  # id(AppSpec) -> its table, likewise
    entries = []
    for g in groups:
        if id(g.tcp) not in tcps:
            tcps[id(g.tcp)] = tcp_engine(g.tcp)
        if id(g.app) not in apps:
            apps[id(g.app)] = _app(g.app)
        entries.append(_flow_entry(g, apps[id(g.app)], tcps[id(g.tcp)]))
    return entries


def _flow_entry(g: FlowGroup, app: dict[str, Any], tcp: dict[str, Any]) -> dict[str, Any]:
    """One ``[[flows]]`` entry as the engine's ``FlowSpec`` (``app``, ``tcp``: its application and
    TCP tables, lowered): the engine expands it into its flows (``count`` per pair, ids ``name_1``
    … when it makes more than one)."""
    entry: dict[str, Any] = {"id": g.name, "src": _hosts(g.src), "dst": _hosts(g.dst)}
    if g.count != 1:  # absent = 1: a single flow's JSON stays as it was
        entry["count"] = g.count
    entry["start_ns"] = g.start_ns
    if g.start_spread_ns:
        entry["start_spread_ns"] = g.start_spread_ns
    entry.update(initiator=g.initiator, app=app, tcp=tcp)
    return entry


def _hosts(names: tuple[str, ...]) -> str | list[str]:
    """One name for a side that is one host (paired with every host of the other), else the list."""
    return names[0] if len(names) == 1 or len(set(names)) == 1 else list(names)


def _sampled_flows(sc: Scenario) -> list[str] | None:
    """The ids ``[output] timeseries_flows`` matches; None for every flow."""
    if "*" in sc.timeseries_flows:
        return None
    ids = [i for g in sc.groups for i in g.flow_ids() if any(fnmatch.fnmatchcase(i, p) for p in sc.timeseries_flows)]
    return None if len(ids) == sc.flow_count else ids


def _link(link: Link, capture: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": link.name,
        "from": link.src,
        "to": link.dst,
        "rate_bps": link.rate_bps,
        "delay_ns": link.delay_ns,
        "queue": _queue(link.queue, link.rate_bps),
        "loss": link.loss,
        "corrupt": link.corrupt,
        "pcap": capture is not None,
    }
    if capture is not None and capture != link.name:  # both directions share one file
        out["pcap_file"] = pcap_stem(capture)
    tail = link.queue.tail_delay_ns
    if tail is not None:  # absent otherwise: older engine JSON stays identical
        out["tail_threshold_bytes"] = tail * link.rate_bps // 8_000_000_000  # tail_delay · rate, in bytes
    return out


def _queue(q: QueueSpec, rate_bps: int) -> dict[str, Any]:
    if q.kind not in CLASSIC_KINDS:
        return engine_queue(q, rate_bps)
    out: dict[str, Any] = {"kind": q.kind, "limit_pkts": q.limit_pkts, "limit_bytes": q.limit_bytes}
    if q.red is not None:
        r = q.red
        out.update(
            min_th=r.min_th,
            max_th=r.max_th,
            max_p=r.max_p,
            wq=r.wq,
            gentle=r.gentle,
            wait=r.wait,
            mode=r.mode,
            mean_pkt_bytes=r.mean_pkt_size,
            link_rate_bps=rate_bps,
            ecn=r.ecn,
        )
        if r.personality != "floyd93":  # absent = floyd93: older engine JSON stays identical
            out.update(personality=r.personality, mark_p=r.mark_p, adaptive=r.adaptive)
        if r.quench:  # absent = false, likewise
            out.update(quench=True)
        if r.ns2_rng_skip is not None:  # absent = the queue's own stream
            out.update(ns2_rng_skip=r.ns2_rng_skip)
    if q.pi is not None:
        out.update(_pi(q.pi, rate_bps))
    return out


def _pi(p: PiSpec, rate_bps: int) -> dict[str, Any]:
    """PI's engine keys; gains by the design rule of ``pi_design`` unless given."""
    if p.a is not None and p.b is not None:
        a, b = p.a, p.b
    else:
        assert p.n_flows is not None and p.rtt_ns is not None
        a, b = pi_gains(rate_bps, p.mean_pkt_size, p.n_flows, p.rtt_ns / 1e9, p.sample_hz)
    return {"q_ref": p.q_ref, "a": a, "b": b, "sample_hz": p.sample_hz, "ecn": p.ecn}


@functools.lru_cache(maxsize=1024)  # entries written by a generator repeat a few starts
def _start(start_ns: int, spread_ns: int) -> float | str:
    """Seconds, or ``"As..Bs"`` for a start drawn per flow from a range."""
    if spread_ns == 0:
        return ns_to_s(start_ns)
    return f"{ns_to_s(start_ns)}s..{ns_to_s(start_ns + spread_ns)}s"


def _app(a: AppSpec) -> dict[str, Any]:
    if a.kind == "telnet":
        return {
            "kind": "telnet",
            "interarrival": a.interarrival,
            "mean_interarrival_ns": a.mean_interarrival_ns,
            "write_bytes": a.write_bytes,
        }
    if a.kind == "web":
        assert a.size is not None
        return {
            "kind": "web",
            "request_bytes": a.request_bytes,
            "size": a.size.engine(),
            "mean_session_gap_ns": a.mean_session_gap_ns,
            "pages_per_session": a.pages_per_session,
            "objects_per_page": a.objects_per_page,
            "mean_think_ns": a.think_ns,
        }
    if a.kind == "ftp_arrivals":
        return {
            "kind": "ftp_arrivals",
            "min_bytes": a.min_bytes,
            "max_bytes": a.max_bytes,
            "mean_gap_ns": a.mean_gap_ns,
        }
    if a.kind == "bulk":
        return {"kind": "bulk", "bytes": a.bytes}
    if a.kind == "incast":
        return {
            "kind": "incast",
            "request_bytes": a.request_bytes,
            "response_bytes": a.response_bytes,
            "interval_ns": a.query_interval_ns,
            "arrivals": a.query_arrivals,
            "queries": a.transactions,
        }
    if a.kind == "serial":
        return {"kind": "serial", "files": a.files, "file_bytes": a.file_bytes, "gap_ns": a.gap_ns}
    return {
        "kind": "request_response",
        "request_bytes": a.request_bytes,
        "response_bytes": a.response_bytes,
        "think_ns": a.think_ns,
        "count": a.transactions,
    }

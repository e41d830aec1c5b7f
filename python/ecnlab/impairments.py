"""``[[impairments]]``: path impairments of the ECN fields at a link, what the middleboxes of
RFC 3168 §6.1.1.1 and RFC 9768 §3.2.3.2 do to the packets they pass. What each action rewrites
or drops is the engine's (``crates/sim/src/impair.rs``); which packets it chooses (time window,
flows, seeded fraction) is ``crates/sim/src/impair_link.rs``. The emulator's router applies the
same code to real packets."""

from __future__ import annotations

from typing import Any

from ecnlab._table import Table, choice, number, string
from ecnlab.errors import ScenarioError
from ecnlab.flows import FlowIds, check_link
from ecnlab.model import FlowGroup, Impairment, Topology
from ecnlab.names import summarize
from ecnlab.units import ns_to_s, parse_duration

__all__ = ["IMPAIR_ACTIONS", "parse_impairments", "impairments_engine", "impairments_resolved"]

#: The actions, in the engine's order (``ImpairAction::ALL``).
IMPAIR_ACTIONS = (
    "bleach",
    "ce_all",
    "ect1_to_ect0",
    "ect0_to_ect1",
    "drop_ecn_syn",
    "drop_ecn_synack",
    "strip_accecn_option",
    "zero_accecn_option",
    "zero_ace",
    "clear_ece",
)
_KEYS = ("link", "action", "fraction", "from", "until", "flows")


def parse_impairments(tables: list[Table], topo: Topology, groups: list[FlowGroup]) -> list[Impairment]:
    """Each ``[[impairments]]`` entry: an existing link, an action, and optionally a fraction, a
    time window and flows."""
    if not tables:  # the ids of a million flows are not gathered for nothing
        return []
    ids = FlowIds()
    for g in groups:
        ids.add(g)
    names = [i for g in groups for i in (g.flow_ids() if g.size <= 1000 else (g.flow_id(0), g.flow_id(g.size - 1)))]
    return [_parse_one(t, topo, ids, names) for t in tables]


def _parse_one(t: Table, topo: Topology, ids: FlowIds, names: list[str]) -> Impairment:
    t.check_keys(_KEYS)
    link = check_link(t.get("link", string), t.at("link"), topo)
    action = t.get("action", choice(IMPAIR_ACTIONS))
    fraction = t.get("fraction", number(0, 1, open_lo=True), 1.0)
    start = t.get("from", parse_duration, 0)
    until = t.get("until", parse_duration, None)
    if until is not None and until <= start:
        raise ScenarioError(t.at("until"), f"must be after from ({ns_to_s(start)} s)", t.raw("until"))
    return Impairment(link, action, fraction, start, until, _flows(t, ids, names))


def _flows(t: Table, ids: FlowIds, names: list[str]) -> tuple[str, ...]:
    """The flow ids (after expansion, e.g. ``reno_3``) whose packets the impairment chooses."""
    value = t.raw("flows", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScenarioError(t.at("flows"), 'must be a list of flow ids, e.g. ["reno_1", "reno_2"]', value)
    for k, flow in enumerate(value):
        if ids.owner(flow) is None:
            raise ScenarioError(f"{t.at('flows')}[{k}]", f"no such flow (flow ids: {summarize(names)})", flow)
    return tuple(value)


def impairments_engine(items: tuple[Impairment, ...]) -> list[dict[str, Any]]:
    """The engine's ``impairments`` (``ImpairSpec``)."""
    out = []
    for m in items:
        entry: dict[str, Any] = {"link": m.link, "action": m.action, "fraction": m.fraction, "from_ns": m.from_ns}
        if m.until_ns is not None:
            entry["until_ns"] = m.until_ns
        if m.flows:
            entry["flows"] = list(m.flows)
        out.append(entry)
    return out


def impairments_resolved(items: tuple[Impairment, ...]) -> list[dict[str, Any]]:
    """The entries in file form, every default filled (``until`` absent: to the end)."""
    out = []
    for m in items:
        entry: dict[str, Any] = {"link": m.link, "action": m.action, "fraction": m.fraction}
        entry["from"] = ns_to_s(m.from_ns)
        if m.until_ns is not None:
            entry["until"] = ns_to_s(m.until_ns)
        entry["flows"] = list(m.flows)
        out.append(entry)
    return out

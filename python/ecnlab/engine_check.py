"""One validator: the engine's own check of the whole lowered scenario, reported in scenario keys.

The front checks types and units while parsing (``config.py`` and the modules it calls) and asks
the engine for the ranges of each queue and TCP table (``_core.check_queue``, ``_core.check_tcp``).
Last, :func:`check_scenario` lowers the scenario and runs the engine's complete check
(``ecnlab_sim::check_json``: topology, links, queues, flows, TCP, applications, faults, time
series) without simulating, so nothing the engine would refuse at run time passes ``validate``,
``run`` or sweep expansion. The engine names its JSON path (``links[3].rate_bps``,
``flows[7].tcp.rwnd_bytes``); :func:`scenario_key` maps it back to what the user wrote.
"""

from __future__ import annotations

import re

from ecnlab.errors import ScenarioError
from ecnlab.model import FlowGroup, Scenario

__all__ = ["check_scenario", "scenario_error", "scenario_key"]

# engine field (a suffix of its JSON path) -> scenario key, where the two differ
_TOP = {"duration_ns": "duration", "warmup_ns": "warmup", "sample_interval_ns": "sample_interval"}
_LINK = {"rate_bps": "rate", "delay_ns": "delay", "from": "from", "to": "to"}
_SIDES = {"src": "from", "dst": "to"}
_UNIT_SUFFIXES = ("_ns", "_bytes", "_bps", "_segments")
_LISTS = "nodes|links|flows|faults|impairments|timeseries_links|timeseries_flows"
_PATH = re.compile(rf"^(?P<list>{_LISTS})\[(?P<i>\d+)\](?:\.(?P<rest>.+))?$")


def check_scenario(sc: Scenario) -> None:
    """Raise :class:`ScenarioError` (in scenario keys) if the engine would refuse ``sc``."""
    from ecnlab import _core
    from ecnlab.lower import engine_json

    # A placeholder directory where there are captures: the check never opens it (captures are
    # written only by a run); without captures the run's own text, lowered once.
    fault = _core.check_spec(engine_json(sc, pcap_dir="." if sc.pcap else None))
    if fault is not None:
        raise scenario_error(sc, fault)


def scenario_error(sc: Scenario, fault: tuple[str, str, str]) -> ScenarioError:
    """The engine's ``(field, value, allowed)`` for ``sc`` (``_core.check_spec``, or the args of
    the ``_core.SpecError`` a run raises) as the error in scenario keys."""
    field, value, allowed = fault
    key = scenario_key(sc, field)
    if ".queue." in field:  # a rule naming another queue field names it as the scenario does
        allowed = allowed.replace("limit_pkts", "limit").replace("mean_pkt_bytes", "mean_pkt_size")
    if field.endswith(_UNIT_SUFFIXES):  # the engine's value is in ns, bytes or bit/s: show it as such
        return ScenarioError(key, f"{allowed} (the engine's rule: {field} = {value})")
    return ScenarioError(key, f"{allowed} (the engine's rule for {field})", _literal(value))


def scenario_key(sc: Scenario, field: str) -> str:
    """The scenario key (with the flow or link it concerns) of the engine's JSON path ``field``."""
    if field in _TOP:
        return _TOP[field]
    m = _PATH.match(field)
    if m is None:
        return field
    i, rest = int(m["i"]), m["rest"] or ""
    kind = m["list"]
    if kind == "links":
        link = sc.topology.links[i]
        sub = _link_key(rest)
        return f'topology link "{link.name}"' + (f" {sub}" if sub else "")
    if kind == "flows":  # the engine's flows[i] is the scenario's entry i
        return f"flows[{i}] ({_entry_flows(sc.groups[i])})" + (f".{_flow_key(rest)}" if rest else "")
    if kind in ("faults", "impairments"):
        rest = {"from_ns": "from", "until_ns": "until"}.get(rest, rest)
        return f"{kind}[{i}]" + (f".{rest}" if rest else "")
    if kind in ("timeseries_links", "timeseries_flows"):
        return f"output.{kind}"
    return f"topology.nodes[{i}]" + (f".{rest}" if rest else "")


def _entry_flows(g: FlowGroup) -> str:
    """The flows of an entry, for context: ``flow "a"`` or ``flows "a_1" … "a_n"``."""
    if g.size == 1:
        return f'flow "{g.flow_id(0)}"'
    return f'flows "{g.flow_id(0)}" … "{g.flow_id(g.size - 1)}"'


def _link_key(rest: str) -> str:
    if rest.startswith("queue."):
        field = rest.removeprefix("queue.")
        return "queue." + {"limit_pkts": "limit"}.get(field, field)
    return _LINK.get(rest, rest)


def _flow_key(rest: str) -> str:
    head, _, field = rest.partition(".")
    side = head.split("[", 1)
    if side[0] in _SIDES:  # src, dst, src[3]
        return _SIDES[side[0]] + (f"[{side[1]}" if len(side) == 2 else "")
    if head == "app":
        return _app_key(field)
    if head == "tcp":
        from ecnlab.params import tcp_scenario_key

        return "tcp." + tcp_scenario_key(field)
    return rest


def _app_key(field: str) -> str:
    """The ``[[flows]]`` key of an application's engine field (the engine's rows, ``app_rows``)."""
    from ecnlab.scenario_schema import app_rows

    keys = (key for rows in app_rows().values() for key, row in rows.items() if row.field == field)
    return next(keys, field)


def _literal(value: str) -> object:
    """The engine's value as the scenario would show it (numbers stay numbers)."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value

"""Parsing the ``[tcp]`` table (and per-flow ``tcp`` overrides) and queue tables."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ecnlab._table import MISSING, Table, choice
from ecnlab.cc_knobs import CC_KNOBS
from ecnlab.errors import ScenarioError
from ecnlab.lower_tcp import tcp_engine
from ecnlab.model import PiSpec, QueueSpec, RedSpec, TcpSpec
from ecnlab.queues import CLASSIC_KINDS, engine_check, own_pkt_limit, parse_modern
from ecnlab.scenario_schema import KeyRow, queue_kinds, queue_rows, tcp_rows
from ecnlab.tcp_personalities import TCP_PERSONALITIES, spec_attr

__all__ = [
    "tcp_keys",
    "tcp_scenario_key",
    "parse_tcp",
    "parse_queue",
    "default_queue",
]

# ``tcp.accecn_option``: which segments carry the AccECN option, Linux's tcp_ecn_option value
# (0, 1, 2) or its name (crates/tcp/src/accecn.rs).
ACCECN_OPTIONS = {"off": 0, "minimum": 1, "full": 2}
NS2_DEFAULT_MARK_P = 0.1  # ns-2 mark_p_


@functools.cache
def tcp_keys() -> dict[str, tuple[str, Callable[[Any, str], Any]]]:
    """Every ``[tcp]`` key (the engine's rows, ``scenario_schema.tcp_rows``) -> (TcpSpec attribute,
    parser). The parser is the row's unit and range, but for the keys whose scenario form is not
    the engine's: ``ecn`` (a boolean or a mode) and ``accecn_option`` (a number or a name)."""
    own: dict[str, Callable[[Any, str], Any]] = {"ecn": _ecn_mode, "accecn_option": _accecn_option}
    return {key: (spec_attr(row.field or key), own.get(key) or row.parser()) for key, row in tcp_rows().items()}


def tcp_scenario_key(field: str) -> str:
    """The ``[tcp]`` key of the engine's TcpConfig ``field`` (its first row: ``recovery``, not
    the older ``variant``)."""
    return next((key for key, row in tcp_rows().items() if row.field == field), field)


def _accecn_option(value: Any, path: str) -> int:
    """``tcp.accecn_option``: Linux's ``tcp_ecn_option`` number, or its name (``off`` = 0,
    ``minimum`` = 1, ``full`` = 2)."""
    if isinstance(value, str):
        return ACCECN_OPTIONS[choice(ACCECN_OPTIONS)(value, path)]
    if isinstance(value, bool) or not isinstance(value, int) or value not in ACCECN_OPTIONS.values():
        raise ScenarioError(path, "must be 0 (off), 1 (minimum) or 2 (full)", value)
    return int(value)


def _ecn_mode(value: Any, path: str) -> str:
    """``tcp.ecn``: true (= classic), false (= off), or a mode name."""
    if isinstance(value, bool):
        return "classic" if value else "off"
    modes = tcp_rows()["ecn"].values
    if not isinstance(value, str):
        raise ScenarioError(path, f"must be true, false or one of {', '.join(modes)}", value)
    return choice(modes)(value, path)


def _ecn_changes(table: Table, changes: dict[str, Any]) -> None:
    """``tcp.ecn`` as the TcpSpec fields ``ecn``, ``ecn_plus`` and ``accecn``: a boolean sets
    ``ecn`` only (``ecn_plus`` keeps its own key, ``accecn`` stays as it was); a mode name sets
    all three, and then ``ecn_plus`` may not disagree."""
    mode = changes["ecn"]
    changes["ecn"] = mode != "off"
    if isinstance(table.raw("ecn"), bool):
        return
    plus = mode == "ecn+"
    if table.has("ecn_plus") and changes["ecn_plus"] != plus:
        raise ScenarioError(table.at("ecn_plus"), f'disagrees with ecn = "{mode}"', table.raw("ecn_plus"))
    changes["ecn_plus"] = plus
    changes["accecn"] = mode == "accecn"


def parse_tcp(table: Table | None, base: TcpSpec) -> TcpSpec:
    """``base`` with the keys of ``table`` applied, then cross-checked."""
    if table is None:
        return base
    keys = tcp_keys()
    table.check_keys(keys)
    if table.has("variant") and table.has("recovery"):
        raise ScenarioError(
            table.at("variant"), "give recovery or variant (the older name), not both", table.raw("variant")
        )
    if table.has("personality"):
        name = table.get("personality", keys["personality"][1])
        base = replace(base, personality=name, **TCP_PERSONALITIES[name])
    changes = {attr: table.get(key, parse) for key, (attr, parse) in keys.items() if table.has(key)}
    if "ecn" in changes:
        _ecn_changes(table, changes)
    if changes.get("cc") in CC_KNOBS:
        CC_KNOBS[changes["cc"]].needs(table, changes, base)
    tcp = replace(base, **changes)
    if tcp.cc == "cubic" and tcp.personality == "linux" and not table.has("hystart"):
        tcp = replace(tcp, hystart="linux")  # Linux's CUBIC leaves slow start by HyStart
    if tcp.min_rto_ns > tcp.max_rto_ns:
        key = "min_rto" if table.has("min_rto") else "max_rto"
        raise ScenarioError(table.at(key), "must satisfy min_rto <= max_rto", table.raw(key))
    if tcp.initial_rto_ns > tcp.max_rto_ns:
        key = "initial_rto" if table.has("initial_rto") else "max_rto"
        raise ScenarioError(table.at(key), "must satisfy initial_rto <= max_rto", table.raw(key))
    _engine_check_tcp(table, tcp)
    return tcp


def _engine_check_tcp(table: Table, tcp: TcpSpec) -> None:
    """The engine's own TcpConfig check, reported against the scenario key (one rule, no drift)."""
    import json

    from ecnlab import _core

    # The engine fills in what the lowering leaves out and checks the whole TcpConfig.
    err = _core.check_tcp(json.dumps(tcp_engine(tcp)))
    if err is None:
        return
    field, value, allowed = err
    key = tcp_scenario_key(field)
    if table.has(key):
        raise ScenarioError(table.at(key), f"must be {allowed}", table.raw(key))
    raise ScenarioError(table.path, f"{key} = {value}: must be {allowed}")


def default_queue() -> QueueSpec:
    """DropTail with the engine's default room (``limit``'s default, 1000 packets)."""
    return QueueSpec(kind="droptail", limit_pkts=queue_rows("droptail")["limit"].default, limit_bytes=None)


def parse_queue(table: Table | None, *, fallback: QueueSpec, mss: int) -> QueueSpec:
    """A queue table; ``fallback`` when the table is absent.

    ``mss`` is the default TCP MSS: RED's ``mean_pkt_size`` defaults to ``mss + 40``.
    """
    if table is None:
        return fallback
    kind = table.get("kind", choice(queue_kinds()), "droptail")
    if kind not in CLASSIC_KINDS:
        return _parse_modern_queue(table, kind, mss)
    rows = queue_rows(kind)
    table.check_keys(("kind", *rows), context=f'for kind = "{kind}"')
    if table.has("limit") and table.has("limit_bytes"):
        raise ScenarioError(table.path, "give limit (packets) or limit_bytes, not both")
    limit_pkts: int | None = _get(table, rows, "limit", None)
    limit_bytes: int | None = _get(table, rows, "limit_bytes", None)
    if limit_pkts is None and limit_bytes is None:
        limit_pkts = rows["limit"].default
    red = _parse_red(table, mss) if kind in ("red", "red_star") else None
    if red is not None and red.quench and kind == "red_star":
        raise ScenarioError(
            table.at("signal"), "is only available with kind red (RED* signals in the forced region)", "quench"
        )
    pi = _parse_pi(table, mss) if kind == "pi" else None
    if red is not None and red.personality == "ns2" and kind == "red_star":
        raise ScenarioError(
            table.at("personality"),
            "is not available with kind red_star (ns-2 RED never marks in a forced region)",
            "ns2",
        )
    tail = _get(table, rows, "tail_delay", None)  # report P(queue > tail_delay · link rate)
    return QueueSpec(kind=kind, limit_pkts=limit_pkts, limit_bytes=limit_bytes, red=red, pi=pi, tail_delay_ns=tail)


def _parse_modern_queue(table: Table, kind: str, mss: int) -> QueueSpec:
    """CoDel, PIE, FQ-CoDel, DualPI2, Adaptive RED, step (``ecnlab.queues``); ranges checked by the engine."""
    rows = queue_rows(kind)
    table.check_keys(("kind", *rows), context=f'for kind = "{kind}"')
    if table.has("limit") and table.has("limit_bytes"):
        raise ScenarioError(table.path, "give limit (packets) or limit_bytes, not both")
    limit_pkts: int | None = _get(table, rows, "limit", None)
    limit_bytes: int | None = _get(table, rows, "limit_bytes", None) if "limit_bytes" in rows else None
    if limit_pkts is None and limit_bytes is None:
        limit_pkts = rows["limit"].default
    fields = parse_modern(table, kind, mss)
    tail = _get(table, rows, "tail_delay", None)
    q = QueueSpec(kind=kind, limit_pkts=limit_pkts, limit_bytes=limit_bytes, tail_delay_ns=tail, fields=fields)
    engine_check(table, kind, engine_queue(q, rate_bps=1_000_000_000))
    return q


def engine_queue(q: QueueSpec, rate_bps: int) -> dict[str, Any]:
    """The engine's JSON of a queue of a modern kind on a link of ``rate_bps``."""
    out: dict[str, Any] = {"kind": q.kind, "limit_pkts": q.limit_pkts}
    if own_pkt_limit(q.kind) is None:
        out["limit_bytes"] = q.limit_bytes
    out.update(q.fields)
    if q.kind == "ared":
        out["link_rate_bps"] = rate_bps
    return out


_PI_GAINS_NOTE = "PI needs a and b, or n_flows and rtt to derive them (docs/scenario.md)"


def _get(table: Table, rows: dict[str, KeyRow], key: str, default: Any = MISSING, note: str = "") -> Any:
    """``key`` parsed by its engine row; ``default`` when absent (the row's own when MISSING and
    the row has one, else required)."""
    row = rows[key]
    if default is MISSING and row.default_from == "field":
        default = row.default
    return table.get(key, row.parser(), default, required_note=note)


def _parse_pi(table: Table, mss: int) -> PiSpec:
    """PI: ``a`` and ``b`` given together, or derived from ``n_flows`` and ``rtt`` (``pi_design``)."""
    rows = queue_rows("pi")
    base = PiSpec(
        q_ref=_get(table, rows, "q_ref", note="PI needs q_ref (packets)"),
        sample_hz=_get(table, rows, "sample_hz"),
        ecn=_get(table, rows, "ecn"),
        mean_pkt_size=_get(table, rows, "mean_pkt_size", mss + 40),
    )
    gains = [k for k in ("a", "b") if table.has(k)]
    design = [k for k in ("n_flows", "rtt") if table.has(k)]
    if len(gains) == 1:
        other = "b" if gains[0] == "a" else "a"
        raise ScenarioError(table.at(gains[0]), f"needs {other} as well ({_PI_GAINS_NOTE})", table.raw(gains[0]))
    if gains and design:
        raise ScenarioError(table.at(design[0]), "give a and b, or n_flows and rtt, not both", table.raw(design[0]))
    if gains:
        return replace(base, a=_get(table, rows, "a"), b=_get(table, rows, "b"))
    return replace(
        base,
        n_flows=_get(table, rows, "n_flows", note=_PI_GAINS_NOTE),
        rtt_ns=_get(table, rows, "rtt", note=_PI_GAINS_NOTE),
    )


def _parse_red(table: Table, mss: int) -> RedSpec:
    """RED and RED*: the engine's RED rows, with the defaults that differ by personality."""
    rows = queue_rows("red")
    min_th = _get(table, rows, "min_th", note="RED needs min_th and max_th")
    max_th = _get(table, rows, "max_th", note="RED needs min_th and max_th")
    if min_th >= max_th:
        raise ScenarioError(table.at("min_th"), f"must be < max_th ({table.raw('max_th')})", table.raw("min_th"))
    who = _get(table, rows, "personality")
    _check_personality_keys(table, who)
    linux = who == "linux"
    wq = _get(table, rows, "wq", 2.0**-9 if linux else MISSING)
    if linux and not any(wq == 2.0**-k for k in range(1, 32)):
        raise ScenarioError(table.at("wq"), "must be 2^-k, 1 <= k <= 31, with personality linux (tc red's Wlog)", wq)
    ecn, signal = _parse_signal(table, rows)
    return RedSpec(
        min_th=min_th,
        max_th=max_th,
        max_p=_get(table, rows, "max_p"),
        wq=wq,
        ecn=ecn,
        quench=signal == "quench",
        # ns-2 and ns-3 default to gentle RED; F&J 1993 and Linux have no gentle region.
        gentle=_get(table, rows, "gentle", True if who in ("ns2", "ns3") else MISSING),
        wait=_get(table, rows, "wait"),
        mode=_get(table, rows, "mode", "byte" if linux else MISSING),
        mean_pkt_size=_get(table, rows, "mean_pkt_size", mss + 40),
        personality=who,
        mark_p=_get(table, rows, "mark_p", NS2_DEFAULT_MARK_P) if who == "ns2" else None,
        adaptive=_get(table, rows, "adaptive"),
        ns2_rng_skip=_get(table, rows, "ns2_rng_skip", None),
    )


def _parse_signal(table: Table, rows: dict[str, KeyRow]) -> tuple[bool, str]:
    """(ecn, signal): ``signal = "mark"`` is ``ecn = true``; both may be given only if they agree."""
    ecn = _get(table, rows, "ecn")
    if not table.has("signal"):
        return ecn, "mark" if ecn else "drop"
    signal = _get(table, rows, "signal")
    if table.has("ecn") and ecn != (signal == "mark"):
        raise ScenarioError(
            table.at("signal"), f'contradicts ecn = {str(ecn).lower()} (signal = "mark" is ecn = true)', signal
        )
    return signal == "mark", signal


def _check_personality_keys(table: Table, who: str) -> None:
    """Options that only some personalities have (docs/performance.md)."""
    only = {"mark_p": "ns2", "ns2_rng_skip": "ns2", "adaptive": "linux"}
    for key, owner in only.items():
        if table.has(key) and who != owner:
            raise ScenarioError(table.at(key), f"only applies to personality {owner}", table.raw(key))
    if who == "linux":
        if table.has("gentle") and table.raw("gentle") is not False:
            raise ScenarioError(
                table.at("gentle"), "must be false with personality linux (no gentle region)", table.raw("gentle")
            )
        for key in ("wait", "mode"):
            if table.has(key):
                raise ScenarioError(
                    table.at(key), "does not apply to personality linux (byte backlog, qcount spacing)", table.raw(key)
                )

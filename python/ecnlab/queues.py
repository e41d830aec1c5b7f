"""Today's queue kinds: CoDel, PIE, FQ-CoDel, DualPI2, Adaptive RED and the step marker.

Each kind's keys are the engine's rows (``scenario_schema.queue_rows``, written beside each
``Params`` struct in ``crates/aqm/src/config.rs``): scenario key -> engine field, unit, range and
default. The parsers check types, units and those ranges; the rules between fields are the
engine's (each AQM's ``validate`` in ``crates/aqm/src/<kind>.rs``), asked through
``ecnlab._core.check_queue`` so that they live in one place. An engine complaint is reported
against the scenario key it came from. Each AQM's module doc in ``crates/aqm/src/`` gives the
sources of the defaults.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ecnlab._table import Table
from ecnlab.errors import ScenarioError
from ecnlab.scenario_schema import queue_kinds, queue_rows
from ecnlab.units import ns_to_s, parse_duration

__all__ = [
    "CLASSIC_KINDS",
    "modern_kinds",
    "modern_keys",
    "own_pkt_limit",
    "parse_modern",
    "resolved_modern",
    "engine_check",
]

MS = 1_000_000
#: The kinds ``params.py`` parses by rules of its own; every other kind the engine lists is parsed here.
CLASSIC_KINDS = ("droptail", "red", "red_star", "pi")
_LIMITS = ("limit", "limit_bytes")


def _dur(value: Any, path: str) -> int:
    return parse_duration(value, path, positive=True)


def _selector(value: Any, path: str) -> list[int]:
    """``"VALUE/MASK"`` on the IP TOS byte (``tc`` syntax, e.g. ``"0x1/0x1"`` = ECT(1))."""
    note = 'must be "VALUE/MASK" with two numbers in 0..255, e.g. "0x1/0x1" (ECT(1))'
    if not isinstance(value, str) or value.count("/") != 1:
        raise ScenarioError(path, note, value)
    try:
        v, m = (int(part.strip(), 0) for part in value.split("/"))
    except ValueError:
        raise ScenarioError(path, note, value) from None
    if not (0 <= v <= 255 and 0 <= m <= 255):
        raise ScenarioError(path, note, value)
    return [v, m]


@dataclass(frozen=True)
class Key:
    """One scenario key of a queue kind that becomes one engine field."""

    engine: str
    parse: Callable[[Any, str], Any]
    default: Any  # engine value; None = absent unless given
    is_duration: bool = False


def modern_kinds() -> tuple[str, ...]:
    """The engine's queue kinds parsed here, in its order."""
    return tuple(k for k in queue_kinds() if k not in CLASSIC_KINDS)


@functools.cache
def modern_keys(kind: str) -> dict[str, Key]:
    """The keys of ``kind`` that are engine fields (limits aside), in the engine's order."""
    out: dict[str, Key] = {}
    for key, row in queue_rows(kind).items():
        if row.field is None or key in _LIMITS:
            continue
        parse = _selector if key == "ce_threshold_selector" else row.parser()
        default = row.default if row.default_from == "field" else None
        out[key] = Key(row.field, parse, default, is_duration=row.unit == "duration")
    return out


def own_pkt_limit(kind: str) -> int | None:
    """The packet limit of a kind whose limit is its own (no ``limit_bytes``), else None."""
    rows = queue_rows(kind)
    return None if "limit_bytes" in rows else int(rows["limit"].default)


_STEP_KEYS = {"threshold": "packets", "threshold_bytes": "bytes", "threshold_delay": "sojourn"}
_DUALPI2_RTT_KEYS = ("typical_rtt", "max_rtt")


def parse_modern(table: Table, kind: str, mss: int) -> tuple[tuple[str, Any], ...]:
    """The engine fields of a queue of a modern ``kind`` (limits excluded), in schema order."""
    keys = modern_keys(kind)
    fields: dict[str, Any] = {}
    for key, spec in keys.items():
        if table.has(key):
            fields[spec.engine] = table.get(key, spec.parse)
        elif spec.default is not None and spec.engine not in fields:
            fields[spec.engine] = spec.default
    if "mean_pkt_bytes" in {k.engine for k in keys.values()}:
        fields.setdefault("mean_pkt_bytes", mss + 40)
    if kind == "step":
        fields = _step(table, fields)
    if kind == "dualpi2":
        fields = _dualpi2(table, fields)
    return tuple(fields.items())


def _step(table: Table, fields: dict[str, Any]) -> dict[str, Any]:
    given = [k for k in _STEP_KEYS if table.has(k)]
    if len(given) != 1:
        where = table.at(given[1]) if len(given) > 1 else table.path
        raise ScenarioError(where, "give exactly one of threshold (packets), threshold_bytes, threshold_delay")
    return {"on": _STEP_KEYS[given[0]], **fields}


def _dualpi2(table: Table, fields: dict[str, Any]) -> dict[str, Any]:
    """The step default (1 ms unless a packet step or a ramp is given), and iproute2's RTT helper."""
    ramp = table.has("ramp_min") or table.has("ramp_range")
    linux = fields.get("personality") == "linux"
    if linux and not (table.has("step_thresh_pkts") or ramp or "step_thresh_ns" in fields):
        fields["step_thresh_ns"] = 1 * MS  # sch_dualpi2's step; personality rfc has the ramp instead
    if not any(table.has(k) for k in _DUALPI2_RTT_KEYS):
        return fields
    # tc-dualpi2(8): typical_rtt / max_rtt set target, tupdate, alpha and beta (q_dualpi2.c, RTT_TYP_TO_MAX = 6).
    for key in ("target", "tupdate", "alpha", "beta"):
        if table.has(key):
            raise ScenarioError(
                table.at(key), "cannot be given with typical_rtt or max_rtt (they set it)", table.raw(key)
            )
    typ = table.get("typical_rtt", _dur, None)
    mx = table.get("max_rtt", _dur, None)
    if typ is not None and mx is not None and typ > mx:
        raise ScenarioError(
            table.at("typical_rtt"), f"must be <= max_rtt ({table.raw('max_rtt')})", table.raw("typical_rtt")
        )
    typ = typ if typ is not None else (mx or 0) // 6
    mx = mx if mx is not None else 6 * typ
    tupdate = min(typ, mx // 3)
    max_rtt_s = mx / 1e9
    fields.update(
        target_ns=typ,
        tupdate_ns=tupdate,
        alpha=0.1 * (tupdate / 1e9) / max_rtt_s**2,
        beta=0.3 / max_rtt_s,
    )
    return fields


def resolved_modern(kind: str, fields: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """The scenario keys of ``fields``, every one present (durations in seconds)."""
    by_engine: dict[str, tuple[str, Key]] = {}
    for key, spec in modern_keys(kind).items():
        by_engine.setdefault(spec.engine, (key, spec))
    out: dict[str, Any] = {}
    values = dict(fields)
    if kind == "step":
        key = {v: k for k, v in _STEP_KEYS.items()}[values.pop("on")]
        thr = values.pop("threshold")
        out[key] = ns_to_s(thr) if key == "threshold_delay" else thr
    for engine, value in values.items():
        key, spec = by_engine[engine]
        if engine == "ce_threshold_selector":
            value = f"{value[0]:#x}/{value[1]:#x}"
        out[key] = ns_to_s(value) if spec.is_duration else value
    return out


def engine_check(table: Table, kind: str, queue: dict[str, Any]) -> None:
    """Ask the engine whether ``queue`` (engine JSON) is valid; raise against the scenario key."""
    from ecnlab import _core

    err = _core.check_queue(json.dumps(queue))
    if err is None:
        return
    field, value, allowed = err
    allowed = allowed.replace("limit_pkts", "limit")  # the scenario's name for the packet limit
    for k, spec in modern_keys(kind).items():  # the rule in scenario keys, not engine fields
        allowed = allowed.replace(spec.engine, k) if spec.engine.endswith(("_ns", "_pct", "_bytes")) else allowed
    given = [k for k, spec in modern_keys(kind).items() if spec.engine == field and table.has(k)]
    key = given[0] if given else _scenario_key(kind, field)  # threshold_bytes, not threshold
    if key is not None and table.has(key):
        raise ScenarioError(table.at(key), allowed, table.raw(key))
    where = table.at(key) if key is not None else table.path
    raise ScenarioError(where, f"{allowed} (engine field {field} = {value})")


def _scenario_key(kind: str, engine_field: str) -> str | None:
    if engine_field in ("limit_pkts",):
        return "limit"
    if engine_field == "limit_bytes":
        return "limit_bytes"
    for key, spec in modern_keys(kind).items():
        if spec.engine == engine_field:
            return key
    return None

"""Today's queue kinds: CoDel, PIE, FQ-CoDel, DualPI2, Adaptive RED and the step marker.

Each kind is one schema entry here: scenario key -> (engine field, parser,
default). The parsers check types and units only; the ranges are the
engine's (each AQM's ``validate`` in ``crates/aqm/src/<kind>.rs``), asked
through ``ecnlab._core.check_queue`` so that the rules live in one place.
An engine complaint is reported against the scenario key it came from.

Defaults follow Linux (``tc-codel(8)``, ``tc-fq_codel(8)``, ``tc-pie(8)``,
``sch_dualpi2.c``) unless a row says otherwise; each AQM's module doc in
``crates/aqm/src/`` and docs/scenario.md give the sources.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ecnlab._table import Table, boolean, choice, integer, number
from ecnlab.errors import ScenarioError
from ecnlab.units import ns_to_s, parse_duration, parse_size

__all__ = ["MODERN_KINDS", "MODERN_KEYS", "parse_modern", "resolved_modern", "engine_check"]

MS = 1_000_000
PERSONALITIES = ("linux", "rfc", "ns3")


def _dur(value: Any, path: str) -> int:
    return parse_duration(value, path, positive=True)


def _size(value: Any, path: str) -> int:
    return parse_size(value, path)


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
    """One scenario key of a queue kind."""

    engine: str
    parse: Callable[[Any, str], Any]
    default: Any  # engine value; None = absent unless given
    is_duration: bool = False


def _d(engine: str, default_ns: int | None) -> Key:
    return Key(engine, _dur, default_ns, is_duration=True)


_CODEL_COMMON = {
    "target": _d("target_ns", 5 * MS),
    "interval": _d("interval_ns", 100 * MS),
    "ce_threshold": _d("ce_threshold_ns", None),
    "mtu": Key("mtu_bytes", integer(1, 65535), 1514),
    "personality": Key("personality", choice(PERSONALITIES), "linux"),
}

MODERN_KEYS: dict[str, dict[str, Key]] = {
    "codel": {**_CODEL_COMMON, "ecn": Key("ecn", boolean, False)},
    "fq_codel": {
        **_CODEL_COMMON,
        "ecn": Key("ecn", boolean, True),
        "memory_limit": Key("memory_limit_bytes", _size, 32 * 1024 * 1024),
        "flows": Key("flows", integer(1, 65536), 1024),
        "quantum": Key("quantum_bytes", _size, 1514),
        "drop_batch": Key("drop_batch", integer(1, 65536), 64),
        "ce_threshold_selector": Key("ce_threshold_selector", _selector, None),
        "perturbation": Key("perturbation", integer(0, 2**32 - 1), None),
    },
    "pie": {
        "target": _d("target_ns", 15 * MS),
        "tupdate": _d("tupdate_ns", 15 * MS),
        "alpha": Key("alpha", number(0), 0.125),
        "beta": Key("beta", number(0), 1.25),
        "max_burst": _d("max_burst_ns", 150 * MS),
        "ecn": Key("ecn", boolean, False),
        "mark_ecn_threshold": Key("mark_ecn_threshold", number(0, 1, open_lo=True), 0.1),
        "bytemode": Key("bytemode", boolean, False),
        "mean_pkt_size": Key("mean_pkt_bytes", integer(1, 65535), None),  # default mss + 40
        "derandomize": Key("derandomize", boolean, False),
        "personality": Key("personality", choice(PERSONALITIES), "linux"),
    },
    "dualpi2": {
        "target": _d("target_ns", 15 * MS),
        "tupdate": _d("tupdate_ns", 16 * MS),
        "alpha": Key("alpha", number(0), 0.16),
        "beta": Key("beta", number(0), 3.2),
        "coupling": Key("coupling", number(0, open_lo=True), 2.0),
        "step_thresh": _d("step_thresh_ns", None),  # default 1 ms unless step_thresh_pkts or a ramp
        "step_thresh_pkts": Key("step_thresh_pkts", integer(1, 2**32 - 1), None),
        "min_qlen_step": Key("min_qlen_step", integer(0, 2**32 - 1), 0),
        "ramp_min": _d("ramp_min_ns", None),
        "ramp_range": _d("ramp_range_ns", None),
        "classic_protection": Key("classic_protection_pct", integer(0, 100), 10),
        "ecn_mask": Key("ecn_mask", choice(("l4s_ect", "cla_ect", "any_ect")), "l4s_ect"),
        "drop_on_overload": Key("drop_on_overload", boolean, True),
        "drop_early": Key("drop_early", boolean, None),  # engine default false (sch_dualpi2: drop at dequeue)
        "mtu": Key("mtu_bytes", integer(1, 65535), 1514),
        "memory_limit": Key("memory_limit_bytes", _size, None),  # default none
        "personality": Key("personality", choice(("linux", "rfc")), "linux"),
    },
    "ared": {
        "target_delay": _d("target_delay_ns", 5 * MS),
        "interval": _d("interval_ns", 500 * MS),
        "alpha": Key("alpha", number(0, open_lo=True), 0.01),
        "beta": Key("beta", number(0, 1, open_lo=True), 0.9),
        "bottom": Key("bottom", number(0, 1, open_lo=True), 0.01),
        "top": Key("top", number(0, 1, open_lo=True), 0.5),
        "max_p": Key("max_p", number(0, 1, open_lo=True), 0.02),
        "min_th": Key("min_th", number(0), None),
        "max_th": Key("max_th", number(0, open_lo=True), None),
        "wq": Key("wq", number(0, 1, open_lo=True), None),
        "mean_pkt_size": Key("mean_pkt_bytes", integer(1, 65535), None),  # default mss + 40
        "ecn": Key("ecn", boolean, False),
    },
    "step": {
        "threshold": Key("threshold", integer(0, 2**63 - 1), None),  # packets
        "threshold_bytes": Key("threshold", _size, None),
        "threshold_delay": _d("threshold", None),
        "ecn": Key("ecn", boolean, True),
    },
}
MODERN_KINDS = tuple(MODERN_KEYS)
# Kinds whose limit is a packet count of their own (no limit_bytes), with its default.
OWN_PKT_LIMIT = {"fq_codel": 10240, "dualpi2": 10000}
_STEP_KEYS = {"threshold": "packets", "threshold_bytes": "bytes", "threshold_delay": "sojourn"}
_DUALPI2_RTT_KEYS = ("typical_rtt", "max_rtt")


def parse_modern(table: Table, kind: str, mss: int) -> tuple[tuple[str, Any], ...]:
    """The engine fields of a queue of a modern ``kind`` (limits excluded), in schema order."""
    keys = MODERN_KEYS[kind]
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


def allowed_keys(kind: str) -> tuple[str, ...]:
    extra = _DUALPI2_RTT_KEYS if kind == "dualpi2" else ()
    return tuple(MODERN_KEYS[kind]) + extra


def resolved_modern(kind: str, fields: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """The scenario keys of ``fields``, every one present (durations in seconds)."""
    by_engine: dict[str, tuple[str, Key]] = {}
    for key, spec in MODERN_KEYS[kind].items():
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
    for k, spec in MODERN_KEYS[kind].items():  # the rule in scenario keys, not engine fields
        allowed = allowed.replace(spec.engine, k) if spec.engine.endswith(("_ns", "_pct", "_bytes")) else allowed
    given = [k for k, spec in MODERN_KEYS[kind].items() if spec.engine == field and table.has(k)]
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
    for key, spec in MODERN_KEYS[kind].items():
        if spec.engine == engine_field:
            return key
    return None

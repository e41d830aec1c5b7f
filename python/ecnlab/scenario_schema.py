"""The scenario keys the engine accepts, read from the engine (``_core.scenario_schema``).

Each row is written once, beside the engine struct it fills: ``TcpConfig``'s keys in
``crates/tcp/src/config.rs``, each congestion control's knobs in its ``cc/<name>.rs``, each queue
kind's keys and defaults in ``crates/aqm/src/config.rs``, each application's keys in
``crates/sim/src/spec.rs``; ``crates/sim/src/scenario_schema.rs``
joins them with the engine's own defaults. A row names the scenario key, the engine field it
becomes (``None``: the front turns it into other fields), its unit, the values it allows, its
default and one line of doc. ``params.py`` and ``queues.py`` parse ``[tcp]`` and queue tables
from these rows, and ``docs_schema.py`` writes the key tables of docs/scenario.md from them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from ecnlab._table import Parser, boolean, choice, integer, number
from ecnlab.units import parse_duration, parse_size

__all__ = ["KeyRow", "tcp_rows", "tcp_knobs", "queue_kinds", "queue_rows", "queue_kind_doc", "app_rows"]


@dataclass(frozen=True)
class KeyRow:
    """One scenario key as the engine describes it."""

    key: str
    field: str | None
    unit: str  # duration, size, integer, number, boolean, choice, text
    allowed: dict[str, Any] | None  # {"lo", "hi", "open_lo"} or {"values"}
    default: Any  # the engine value; None: none, required or derived
    default_from: str  # field, required, derived
    derived: str | None
    doc: str
    personality: bool  # TCP: a personality sets it

    @property
    def values(self) -> tuple[str, ...]:
        """The allowed names of a choice."""
        return tuple(self.allowed["values"]) if self.allowed and "values" in self.allowed else ()

    def parser(self) -> Parser[Any]:
        """The parser of this key's scenario value: its unit, checked against its range."""
        a = self.allowed or {}
        lo, hi, open_lo = a.get("lo"), a.get("hi"), bool(a.get("open_lo"))
        if self.unit == "duration":
            positive = lo is not None and lo >= 0 and (open_lo or lo > 0)
            return lambda v, p: parse_duration(v, p, positive=positive)
        if self.unit == "size":
            if hi is None:
                return lambda v, p: parse_size(v, p)
            return lambda v, p: parse_size(v, p, max_bytes=int(hi))
        if self.unit == "integer":
            return integer(lo, hi)
        if self.unit == "number":
            return number(lo, hi, open_lo=open_lo)
        if self.unit == "boolean":
            return boolean
        if self.unit == "choice":
            return choice(self.values)
        raise ValueError(f"{self.key}: a {self.unit} key has a parser of its own")


@functools.cache
def _schema() -> dict[str, Any]:
    from ecnlab import _core

    data: dict[str, Any] = json.loads(_core.scenario_schema())
    return data


def _row(raw: dict[str, Any]) -> KeyRow:
    return KeyRow(
        key=raw["key"],
        field=raw["field"],
        unit=raw["unit"],
        allowed=raw["allowed"],
        default=raw["default"],
        default_from=raw["default_from"],
        derived=raw.get("derived"),
        doc=raw["doc"],
        personality=bool(raw.get("personality", False)),
    )


@functools.cache
def tcp_rows() -> dict[str, KeyRow]:
    """Every ``[tcp]`` key, in the engine's order (``TcpConfig``'s, then each control's knobs)."""
    return {raw["key"]: _row(raw) for raw in _schema()["tcp"]["keys"]}


@functools.cache
def tcp_knobs() -> dict[str, tuple[str, ...]]:
    """Each congestion control's knob keys, by its ``tcp.cc`` name."""
    return {cc: tuple(keys) for cc, keys in _schema()["tcp"]["knobs"].items()}


@functools.cache
def queue_kinds() -> tuple[str, ...]:
    """Every queue ``kind``, in the engine's order."""
    return tuple(k["name"] for k in _schema()["queue"]["kinds"])


@functools.cache
def queue_rows(kind: str) -> dict[str, KeyRow]:
    """The keys of a queue of ``kind`` (its limits first), ``kind`` itself aside."""
    for k in _schema()["queue"]["kinds"]:
        if k["name"] == kind:
            return {raw["key"]: _row(raw) for raw in k["keys"]}
    raise KeyError(kind)


def queue_kind_doc(kind: str) -> str:
    """One line: what a queue of ``kind`` is."""
    return next(str(k["doc"]) for k in _schema()["queue"]["kinds"] if k["name"] == kind)


@functools.cache
def app_rows() -> dict[str, dict[str, KeyRow]]:
    """Each application kind's own keys (``[[flows]]`` ``kind``), by kind."""
    return {k["name"]: {raw["key"]: _row(raw) for raw in k["keys"]} for k in _schema()["app"]["kinds"]}

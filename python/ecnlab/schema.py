"""The summary's record keys, written down once: by the engine's output structs.

``crates/sim/src/output.rs`` defines what a run's ``sim``, flow, queue and link records hold;
``crates/sim/src/schema.rs`` reads their keys off those structs (and which are skipped when
empty), and ``_core.summary_schema`` hands them here. The emulator's summary
(``emu/summary.py``), the sweep store's ``RUN_METRICS`` (``store.py``) and the test fake build
or check their records with :func:`record` and :func:`problems`, so none of them keeps a list
of its own that could drift.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, Literal

__all__ = ["KINDS", "keys", "optional", "record", "problems"]

Kind = Literal["sim", "flow", "queue", "link", "group", "query"]
KINDS: tuple[Kind, ...] = ("sim", "flow", "queue", "link")


@functools.cache
def _schema() -> dict[str, Any]:
    from ecnlab import _core

    data: dict[str, Any] = json.loads(_core.summary_schema())
    return data


def keys(kind: Kind) -> tuple[str, ...]:
    """Every key of a ``kind`` record, in the order the engine writes them."""
    return tuple(_schema()[kind]["keys"])


def optional(kind: Kind) -> frozenset[str]:
    """The keys a ``kind`` record may leave out (telnet-only counters, DualPI2 classes, ...)."""
    return frozenset(_schema()[kind]["optional"])


def record(kind: Kind, values: Mapping[str, Any]) -> dict[str, Any]:
    """A ``kind`` record in the engine's key order: ``values``, ``None`` for every other
    key that is always present, optional keys only where given. An unknown key is a bug."""
    unknown = set(values) - set(keys(kind))
    if unknown:
        raise KeyError(f"not in the summary's {kind} records: {sorted(unknown)}")
    opt = optional(kind)
    return {k: values.get(k) for k in keys(kind) if k in values or k not in opt}


def problems(kind: Kind, rec: Mapping[str, Any]) -> list[str]:
    """What makes ``rec`` differ from the schema (missing, unknown or misordered keys)."""
    want = keys(kind)
    out = [f"{kind} record lacks {k!r}" for k in want if k not in rec and k not in optional(kind)]
    out += [f"{kind} record has unknown key {k!r}" for k in rec if k not in want]
    present = [k for k in want if k in rec]
    if not out and list(rec) != present:
        out.append(f"{kind} record keys out of order: {list(rec)}")
    return out

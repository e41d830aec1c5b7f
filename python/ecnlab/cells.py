"""A sweep cell as one result: the runs of a sweep that share every axis value (one per seed),
and their summaries averaged into one.

Named on the command line as ``SWEEP_DIR:COL=VALUE[,COL=VALUE...]``: a sweep directory
(``manifest.json``) and a value for each of its axes that varies (values as in ``--where``:
``aqm=red``, ``max_p=0.1``, ``ecn=true``). A selection that leaves an axis varying is refused,
naming the axis, as ``ecnlab plot`` refuses one: a cell never mixes settings.

The mean summary: numbers (not booleans) are the mean over the cell's runs; records of lists
(``flows[]``, ``queues[]``, ``links[]``) are matched by ``id``, ``link`` or ``name`` and averaged
field by field; any other value is kept when every run has it, else null (as a record only some
runs have). ``seed`` lists the seeds; the scenario is the first run's, named after the cell and
with those seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["CellError", "is_cell", "load_cell", "mean_summary"]

_RECORD_KEYS = ("id", "link", "name")


class CellError(ValueError):
    """A cell that names no sweep, an unknown axis or value, or leaves an axis varying."""


def is_cell(arg: str) -> bool:
    """``SWEEP_DIR:...`` with a sweep directory before the last ``:``."""
    head, sep, _ = arg.rpartition(":")
    return bool(sep) and (Path(head) / "manifest.json").is_file()


def _selection(text: str) -> dict[str, Any]:
    from ecnlab.sweep.spec import parse_label_text

    out = {}
    for item in text.split(","):
        col, eq, value = item.partition("=")
        if not eq or not col.strip():
            raise CellError(f"{item!r}: expected COL=VALUE")
        out[col.strip()] = parse_label_text(value.strip())
    return out


def load_cell(arg: str) -> tuple[dict[str, Any], list[str]]:
    """(the mean summary, the names of the runs averaged) of the cell ``arg``."""
    from ecnlab.store import load

    head, _, text = arg.rpartition(":")
    res = load(head)
    runs = res.runs
    for col, value in _selection(text).items():
        if col not in res.axes:
            raise CellError(f"{col}: not an axis of {head} (axes: {', '.join(res.axes)})")
        runs = runs[runs[col] == value]
        if runs.empty:
            raise CellError(f"{col}={value}: no run of {head} has it with the values before it")
    varying = [a for a in res.axes if runs[a].nunique(dropna=False) > 1]
    if varying:
        raise CellError(f"axis {varying[0]!r} varies in the cell: fix it with {varying[0]}=VALUE")
    names = list(runs["run"])
    summary = mean_summary([res.summary(n) for n in names])
    summary["scenario"] = {**summary["scenario"], "name": text}
    return summary, names


def mean_summary(summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summaries' mean (see the module doc)."""
    out: dict[str, Any] = _mean(list(summaries))
    out["seed"] = ", ".join(str(s["seed"]) for s in summaries)
    out["scenario"] = {**summaries[0]["scenario"], "seed": out["seed"]}
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _record_key(items: list[Any]) -> str | None:
    """The key naming the records of a list of dicts (``id``, ``link`` or ``name``), if any."""
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    return next((k for k in _RECORD_KEYS if all(k in i for i in items)), None)


def _mean(values: list[Any]) -> Any:
    if all(isinstance(v, dict) for v in values):
        keys = dict.fromkeys(k for v in values for k in v)
        return {k: _mean([v.get(k) for v in values]) for k in keys}
    if all(_is_number(v) for v in values):
        return sum(values) / len(values)
    if all(isinstance(v, list) for v in values):
        key = _record_key(values[0])
        if key is not None and all(_record_key(v) == key for v in values):
            return _mean_records(values, key)
    return values[0] if all(v == values[0] for v in values) else None


def _mean_records(lists: list[list[dict[str, Any]]], key: str) -> list[Any]:
    """Records matched by ``key``, averaged; a record some runs lack is left out."""
    by_key = [{r[key]: r for r in records} for records in lists]
    out = []
    for record in lists[0]:
        same = [b.get(record[key]) for b in by_key]
        if all(s is not None for s in same):
            out.append(_mean(same))
    return out

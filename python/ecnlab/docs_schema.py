"""The key tables of the docs, written from the engine's schema: ``python -m ecnlab.docs_schema [--check | --write]``.

A page shows a table of scenario keys between two marker lines::

    <!-- keys: tcp -->
    …
    <!-- /keys -->

``tcp`` is every ``[tcp]`` key, ``queue`` every queue kind's keys in one table (a key that
several kinds share with the same meaning is one line, its default per kind). The lines between
the markers are the table rendered from :mod:`ecnlab.scenario_schema`, and nothing else. The
markers are read as :mod:`ecnlab.docs_results` reads its own (``blocks``); ``--check`` (the
default) names every table that differs from the schema and exits 1 if one does, ``--write``
rewrites them. A marker naming another table, or without its end, is one error line (exit 2).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from ecnlab.docs_results import ResultError, blocks, page_command
from ecnlab.scenario_schema import KeyRow, queue_kind_doc, queue_kinds, queue_rows, tcp_rows

__all__ = ["TABLES", "render", "rewrite", "stale", "main"]

BEGIN = re.compile(r"^<!-- keys: (\S+) -->$")
END = "<!-- /keys -->"


def _duration(ns: int) -> str:
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns and ns % scale == 0:
            return f"{ns // scale}{unit}"
    return f"{ns}ns" if ns else "0"


def _size(n: int) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _name(v: str) -> str:
    return v if v.isdigit() else f'"{v}"'


def _bound(row: KeyRow, x: float) -> str:
    if row.unit == "duration":
        return _duration(int(x))
    return str(int(x)) if float(x).is_integer() else str(x)


def values(row: KeyRow) -> str:
    """What a key allows, in words: its unit and range, or its names."""
    if row.unit == "choice":
        return ", ".join(f"`{_name(v)}`" for v in row.values)
    if row.unit in ("boolean", "text") or row.allowed is None:
        return row.unit
    lo, hi, open_lo = row.allowed["lo"], row.allowed.get("hi"), row.allowed["open_lo"]
    if hi is None:
        return f"{row.unit} {'>' if open_lo else '≥'} {_bound(row, lo)}"
    if open_lo:
        return f"{row.unit} in ({_bound(row, lo)}, {_bound(row, hi)}]"
    return f"{row.unit}, {_bound(row, lo)} … {_bound(row, hi)}"


def default(row: KeyRow) -> str:
    """A key's default as a scenario writes it, or how it is found."""
    if row.default_from == "required":
        return "required"
    if row.default_from == "derived":
        return str(row.derived)
    v: Any = row.default
    if v is None:
        return "none"
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if isinstance(v, str):
        return f"`{_name(v)}`"
    if row.unit == "duration":
        return f'`"{_duration(v)}"`' if v else "`0`"
    if row.unit == "size":
        return f'`"{_size(v)}"`' if _size(v) != str(v) else f"`{v}`"
    return f"`{v}`"


def tcp_table() -> str:
    """Every ``[tcp]`` key, one line each; † marks a key a personality sets."""
    lines = ["| key | values | default | meaning |", "|---|---|---|---|"]
    for key, row in tcp_rows().items():
        mark = " †" if row.personality else ""
        lines.append(f"| `{key}`{mark} | {values(row)} | {default(row)} | {row.doc} |")
    return "\n".join(lines)


def queue_table() -> str:
    """Every queue kind's keys in one table: a key several kinds share with one meaning and one
    set of values is one line, its default per kind (the most common first)."""
    kinds = queue_kinds()
    groups: dict[tuple[str, str, str], list[tuple[str, KeyRow]]] = {}
    for kind in kinds:
        for key, row in queue_rows(kind).items():
            groups.setdefault((key, row.doc, values(row)), []).append((kind, row))
    every = "; ".join(f"`{k}` {queue_kind_doc(k)}" for k in kinds)
    names = ", ".join(f'`"{k}"`' for k in kinds)
    lines = [
        "| key | kinds | values | default | meaning |",
        "|---|---|---|---|---|",
        f'| `kind` | all | {names} | `"droptail"` | {every} |',
    ]
    for (key, doc, vals), members in groups.items():
        used = [k for k, _ in members]
        where = "all" if used == list(kinds) else ", ".join(used)
        lines.append(f"| `{key}` | {where} | {vals} | {_defaults(members)} | {doc} |")
    return "\n".join(lines)


def _defaults(members: list[tuple[str, KeyRow]]) -> str:
    by_value: dict[str, list[str]] = {}
    for kind, row in members:
        by_value.setdefault(default(row), []).append(kind)
    ordered = sorted(by_value.items(), key=lambda item: -len(item[1]))
    first, *rest = ordered
    return "; ".join([first[0], *(f"{', '.join(ks)}: {d}" for d, ks in rest)])


TABLES = {"tcp": tcp_table, "queue": queue_table}


def render(name: str) -> str:
    """The lines of table ``name`` (without the markers)."""
    if name not in TABLES:
        raise ResultError(f"keys: {name}: no such table (tables: {', '.join(TABLES)})")
    return TABLES[name]()


def rewrite(page: str, name: str = "page") -> str:
    """``page`` with every key table rendered from the schema."""
    lines = page.split("\n")
    for b in reversed(blocks(page, name, begin=BEGIN, end=END)):
        lines[b.start + 1 : b.end] = [_render_at(b.result, name, b.start)]
    return "\n".join(lines)


def stale(page: str, name: str = "page") -> list[str]:
    """The key tables of ``page`` that differ from the schema, as ``NAME:LINE: table``."""
    return [
        f"{name}:{b.start + 1}: keys: {b.result}"
        for b in blocks(page, name, begin=BEGIN, end=END)
        if _render_at(b.result, name, b.start) != b.body
    ]


def _render_at(table: str, name: str, start: int) -> str:
    try:
        return render(table)
    except ResultError as e:
        raise ResultError(f"{name}:{start + 1}: {e}") from None


def main(argv: Sequence[str] | None = None) -> int:
    return page_command(
        argv,
        "python -m ecnlab.docs_schema",
        "the key tables that pages show between <!-- keys: TABLE --> and <!-- /keys --> from the engine's schema",
        lambda text, _root, name: stale(text, name),
        lambda text, _root, name: rewrite(text, name),
        "every key table matches the engine's schema",
    )


if __name__ == "__main__":
    sys.exit(main())

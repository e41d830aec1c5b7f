"""Pages that include stored results: ``python -m ecnlab.docs_results [--check | --write]``.

A stored result (``docs/results/NAME.json``, written by ``ecnlab bench … --record``; see
:mod:`ecnlab.bench.record`) appears on a page between two marker lines::

    <!-- result: docs/results/NAME.json -->
    …
    <!-- /result -->

The lines between the markers are the result's rendering, and nothing else: its table (a
``text`` table fenced), a blank line, and one line naming the command, the commit, the machine,
the date and the load average (and, where the result has ``details``, that they are in the
file). The marker's path is relative to the checkout's root; markers inside a fenced code
block (outside any result) are examples, not includes. ``--check`` (the default)
prints every block that differs from its stored result and exits 1 if one does; ``--write``
rewrites those blocks from the stored results and leaves the rest of each page as it is. A
marker without its end, a nested marker or a missing or unreadable result file is one error
line (exit 2), and no page is written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Block", "ResultError", "blocks", "render", "rewrite", "stale", "pages", "page_command", "main"]

BEGIN = re.compile(r"^<!-- result: (\S+) -->$")
END = "<!-- /result -->"


class ResultError(ValueError):
    """A page's markers or a stored result that cannot be used."""


@dataclass(frozen=True)
class Block:
    """One included result: the page's lines ``start`` … ``end`` (the markers) and the file named."""

    result: str
    start: int
    end: int
    body: str


def render(stored: dict[str, Any]) -> str:
    """The lines a page shows for a stored result (without the markers)."""
    try:
        table, command, commit = stored["table"], stored["command"], stored["commit"]
        machine, date, fmt = stored["machine"], stored["date"], stored["format"]
    except (KeyError, TypeError) as e:
        raise ResultError(f"missing key {e}") from None
    if fmt not in ("markdown", "text"):
        raise ResultError(f"format = {fmt!r}: must be markdown or text")
    shown = table if fmt == "markdown" else f"```text\n{table}\n```"
    load = f" (load average {stored['load']})" if "load" in stored else ""
    more = " Each run and the run-to-run spread: the stored file's `details`." if stored.get("details") else ""
    return f"{shown}\n\nRecorded by `{command}` at ecnlab commit `{commit}` on {machine}, {date}{load}.{more}"


def blocks(page: str, name: str = "page", *, begin: re.Pattern[str] = BEGIN, end: str = END) -> list[Block]:
    """The included results of ``page`` in order; ResultError on a broken marker. Another pair of
    markers (``begin`` naming its subject as group 1, ``end``) reads other generated blocks
    (``ecnlab.docs_schema``'s key tables)."""
    lines = page.split("\n")
    out: list[Block] = []
    open_at: int | None = None
    result = ""
    fenced = False  # inside a code block outside any result: markers there are examples
    what = "result" if begin is BEGIN else "keys"
    for i, line in enumerate(lines):
        if open_at is None and line.startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        m = begin.match(line)
        if m:
            if open_at is not None:
                raise ResultError(f"{name}:{i + 1}: a {what} marker inside the one of line {open_at + 1}")
            open_at, result = i, m.group(1)
        elif line == end:
            if open_at is None:
                raise ResultError(f"{name}:{i + 1}: {end} without a {what} marker before it")
            out.append(Block(result, open_at, i, "\n".join(lines[open_at + 1 : i])))
            open_at = None
    if open_at is not None:
        raise ResultError(f"{name}:{open_at + 1}: {what} marker without {end}")
    return out


def load(root: Path, result: str) -> dict[str, Any]:
    """The stored result a marker names, relative to ``root``."""
    path = root / result
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ResultError(f"{result}: cannot be read ({e.__class__.__name__})") from None
    if not isinstance(stored, dict):
        raise ResultError(f"{result}: not a JSON object")
    return stored


def rewrite(page: str, root: Path, name: str = "page") -> str:
    """``page`` with every included result rendered from its stored file."""
    lines = page.split("\n")
    for b in reversed(blocks(page, name)):
        try:
            body = render(load(root, b.result))
        except ResultError as e:
            raise ResultError(f"{name}:{b.start + 1}: {e}") from None
        lines[b.start + 1 : b.end] = [body]
    return "\n".join(lines)


def stale(page: str, root: Path, name: str = "page") -> list[Block]:
    """The included results of ``page`` whose lines differ from their stored file's rendering."""
    out = []
    for b in blocks(page, name):
        try:
            body = render(load(root, b.result))
        except ResultError as e:
            raise ResultError(f"{name}:{b.start + 1}: {e}") from None
        if body != b.body:
            out.append(b)
    return out


def pages(root: Path) -> list[Path]:
    """The Markdown pages that may include results: README.md and everything under docs/."""
    return sorted([*root.glob("*.md"), *(root / "docs").rglob("*.md")])


def page_command(
    argv: Sequence[str] | None,
    prog: str,
    blocks_are: str,
    differs: Callable[[str, Path, str], list[str]],
    fresh: Callable[[str, Path, str], str],
    all_match: str,
) -> int:
    """``PROG [--check | --write] [--root DIR]`` over every page: ``differs(text, root, name)`` lists
    a page's generated blocks that are stale, ``fresh`` rewrites them; one error line (exit 2) on a
    broken page, nothing written then. Shared by this module and ``ecnlab.docs_schema``."""
    p = argparse.ArgumentParser(prog=prog, description=f"check (default) or rewrite {blocks_are}")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--check", action="store_true", help="list the blocks that differ (exit 1 if any)")
    how.add_argument("--write", action="store_true", help="rewrite the blocks")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout's root (default: here)")
    args = p.parse_args(argv)
    if not (args.root / "docs").is_dir():
        print(f"ecnlab: error: --root = {str(args.root)!r}: has no docs/ directory", file=sys.stderr)
        return 2
    new: dict[Path, str] = {}
    differ: list[str] = []
    try:
        for path in pages(args.root):
            text = path.read_text()
            name = str(path.relative_to(args.root))
            differ += differs(text, args.root, name)
            rewritten = fresh(text, args.root, name)
            if rewritten != text:
                new[path] = rewritten
    except ResultError as e:
        print(f"ecnlab: error: {e}", file=sys.stderr)
        return 2
    if not args.write:
        print("\n".join(differ) if differ else all_match)
        return 1 if differ else 0
    for path, text in new.items():
        path.write_text(text)
        print(f"rewrote {path.relative_to(args.root)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return page_command(
        argv,
        "python -m ecnlab.docs_results",
        "the stored results that pages include between <!-- result: FILE --> and <!-- /result -->",
        lambda text, root, name: [f"{name}:{b.start + 1}: differs from {b.result}" for b in stale(text, root, name)],
        rewrite,
        "every included result matches its stored file",
    )


if __name__ == "__main__":
    sys.exit(main())

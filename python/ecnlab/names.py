"""Node names: natural sorting, compact listings and glob matching."""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable

__all__ = ["natural_key", "natural_sorted", "summarize", "is_glob", "match_glob", "unknown_name", "NAME_RE"]

NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
_DIGITS = re.compile(r"(\d+)")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key under which ``s2`` comes before ``s10``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(name) if part)


def natural_sorted(names: Iterable[str]) -> list[str]:
    """``names`` in natural order: s1, s2, ..., s10."""
    return sorted(names, key=natural_key)


def summarize(names: Iterable[str]) -> str:
    """A compact listing: ``r1..r10, s1..s10`` (runs of 3 or more consecutive numbers fold)."""
    parts: list[str] = []
    run: list[tuple[str, int, str]] = []  # (prefix, number, name)

    def flush() -> None:
        if len(run) >= 3:
            parts.append(f"{run[0][2]}..{run[-1][2]}")
        else:
            parts.extend(item[2] for item in run)
        run.clear()

    for name in natural_sorted(set(names)):
        m = _NUMBERED.match(name)
        if m and not m.group(2).startswith("0"):
            prefix, num = m.group(1), int(m.group(2))
            if run and run[-1][0] == prefix and run[-1][1] + 1 == num:
                run.append((prefix, num, name))
                continue
            flush()
            run.append((prefix, num, name))
        else:
            flush()
            parts.append(name)
    flush()
    return ", ".join(parts) if parts else "none"


def is_glob(pattern: str) -> bool:
    """Whether ``pattern`` uses glob characters (``*``, ``?``, ``[``)."""
    return any(c in pattern for c in "*?[")


def match_glob(pattern: str, names: Iterable[str]) -> list[str]:
    """Names matching the glob, in natural order."""
    return natural_sorted(n for n in names if fnmatch.fnmatchcase(n, pattern))


def unknown_name(option: str, name: str, known: Iterable[str], what: str = "unknown name") -> str:
    """The one-line error for a name that is none of ``known`` (as the scenario parser words an
    unknown key): ``--cases = "e": unknown name, did you mean "a"? (allowed: a, b, c, d)``."""
    from ecnlab.errors import fmt_value

    allowed = list(known)
    close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
    hint = f', did you mean "{close[0]}"?' if close else ""
    return f"{option} = {fmt_value(name)}: {what}{hint} (allowed: {', '.join(allowed) if allowed else 'none'})"

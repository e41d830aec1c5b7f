"""Reading nested TOML tables with field paths, type checks and unknown-key checks."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ecnlab.errors import ScenarioError, fmt_path

__all__ = ["Table", "MISSING", "integer", "number", "boolean", "string", "choice", "type_name"]

T = TypeVar("T")
Parser = Callable[[Any, str], T]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def type_name(value: Any) -> str:
    """The TOML name of a value's type."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


class Table:
    """One TOML table being read.

    ``path`` is the table's field path (``topology.bottleneck_queue``).
    Call :meth:`check_keys` with the allowed keys before reading values, so a
    typo is reported before the "missing key" it causes.
    """

    def __init__(self, data: Any, path: str) -> None:
        if type(data) is not dict and not isinstance(data, Mapping):  # a dict skips the ABC check
            raise ScenarioError(path, f"must be a table, not {type_name(data)}", data)
        self.data: Mapping[str, Any] = data
        self.path = path

    def at(self, key: str | int) -> str:
        """The field path of ``key`` in this table."""
        return fmt_path(self.path, key)

    def check_keys(self, allowed: Iterable[str], context: str = "") -> None:
        """Raise on the first key (in file order) not in ``allowed``."""
        allowed_set = set(allowed)
        for key in self.data:
            if key not in allowed_set:
                raise unknown_key(self.at(key), key, sorted(allowed_set), context)

    def has(self, key: str) -> bool:
        """Whether the key is present."""
        return key in self.data

    def get(self, key: str, parse: Parser[T], default: Any = MISSING, *, required_note: str = "") -> T:
        """The value of ``key`` parsed by ``parse``; ``default`` when absent (required if MISSING)."""
        if key not in self.data:
            if default is MISSING:
                note = f" ({required_note})" if required_note else ""
                raise ScenarioError(self.at(key), f"required key is missing{note}")
            return default  # type: ignore[no-any-return]
        return parse(self.data[key], self.at(key))

    def raw(self, key: str, default: Any = None) -> Any:
        """The unparsed value of ``key``."""
        return self.data.get(key, default)

    def table(self, key: str) -> Table | None:
        """The sub-table ``key``, or None when absent."""
        if key not in self.data:
            return None
        return Table(self.data[key], self.at(key))

    def tables(self, key: str) -> list[Table]:
        """The array of tables ``key`` (``[[key]]``), empty when absent."""
        if key not in self.data:
            return []
        items = self.data[key]
        if not isinstance(items, list):
            raise ScenarioError(self.at(key), f"must be an array of tables, not {type_name(items)}", items)
        prefix = self.at(key)
        return [Table(item, f"{prefix}[{i}]") for i, item in enumerate(items)]  # fmt_path of an index


def unknown_key(path: str, key: str, allowed: list[str], context: str = "") -> ScenarioError:
    """The error for a key that is not allowed at ``path``."""
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    hint = f', did you mean "{close[0]}"?' if close else ""
    where = f" {context}" if context else ""
    shown = ", ".join(allowed) if allowed else "none"
    return ScenarioError(path, f"unknown key{where}{hint} (allowed: {shown})")


# --- value parsers: (value, path) -> parsed ---------------------------------------------


def integer(lo: int | None = None, hi: int | None = None) -> Parser[int]:
    """An integer in [lo, hi] (floats with an integral value are not accepted)."""

    def parse(value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScenarioError(path, f"must be an integer, not {type_name(value)}", value)
        _check_range(value, path, lo, hi, closed_lo=True, closed_hi=True)
        return int(value)

    return parse


def number(
    lo: float | None = None, hi: float | None = None, *, open_lo: bool = False, open_hi: bool = False
) -> Parser[float]:
    """A finite number in [lo, hi] (ends excluded by ``open_lo``/``open_hi``), returned as float."""

    def parse(value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(path, f"must be a number, not {type_name(value)}", value)
        if not math.isfinite(value):
            raise ScenarioError(path, "must be a finite number", value)
        _check_range(value, path, lo, hi, closed_lo=not open_lo, closed_hi=not open_hi)
        return float(value)

    return parse


def _check_range(
    value: float, path: str, lo: float | None, hi: float | None, *, closed_lo: bool, closed_hi: bool
) -> None:
    lo_ok = lo is None or (value >= lo if closed_lo else value > lo)
    hi_ok = hi is None or (value <= hi if closed_hi else value < hi)
    if lo_ok and hi_ok:
        return
    if lo is not None and hi is not None:
        left, right = "[" if closed_lo else "(", "]" if closed_hi else ")"
        raise ScenarioError(path, f"must be in {left}{_num(lo)}, {_num(hi)}{right}", value)
    if lo is not None:
        raise ScenarioError(path, f"must be {'>=' if closed_lo else '>'} {_num(lo)}", value)
    raise ScenarioError(path, f"must be {'<=' if closed_hi else '<'} {_num(hi)}", value)


def _num(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else str(x)


def boolean(value: Any, path: str) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise ScenarioError(path, f"must be true or false, not {type_name(value)}", value)
    return value


def string(value: Any, path: str) -> str:
    """Any string."""
    if not isinstance(value, str):
        raise ScenarioError(path, f"must be a string, not {type_name(value)}", value)
    return value


def choice(options: Iterable[str]) -> Parser[str]:
    """One of the given strings."""
    opts = list(options)

    def parse(value: Any, path: str) -> str:
        if not isinstance(value, str) or value not in opts:
            close = difflib.get_close_matches(value, opts, n=1) if isinstance(value, str) else []
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise ScenarioError(path, f"must be one of {', '.join(opts)}{hint}", value)
        return value

    return parse

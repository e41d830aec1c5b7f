"""Units in scenario files: durations, rates and sizes, to integer canonical units.

* Durations → integer nanoseconds. A number is seconds; a string is a number
  followed by ``ns``, ``us`` (or ``µs``), ``ms`` or ``s``: ``"20ms"``, ``"1.5s"``.
* Rates → integer bits per second. A number is bit/s; a string is a number
  followed by ``bit``/``bps`` with an optional ``k``, ``M``, ``G`` or ``T``
  prefix (powers of 1000, any case): ``"1.5Mbit"``, ``"10Mbps"``, ``"100kbit"``.
  Note ``bps`` means *bits* per second (unlike ``tc``, where it means bytes).
* Sizes → integer bytes. A number is bytes; a string is a number followed by
  ``B``, ``KB``, ``MB``, ``GB`` (powers of 1000) or ``KiB``, ``MiB``, ``GiB``
  (powers of 1024): ``"20MB"`` = 20 000 000, ``"64KiB"`` = 65 536.

Every parser takes ``(value, path)`` and raises :class:`ScenarioError` naming
``path`` when the value is not acceptable. A string must be exactly one of these
forms and a whole number of the canonical unit (``"1.5ns"`` and ``"0.5B"`` are
refused, not rounded); a duration range ``"A..B"`` (a flow's ``start``) is two
durations around exactly two dots (``"0s...2s"`` is refused, not read as
0 s to 0.2 s).
"""

from __future__ import annotations

import math
import re
from typing import Any

from ecnlab.errors import ScenarioError

__all__ = [
    "parse_duration",
    "parse_duration_range",
    "parse_rate",
    "parse_size",
    "ns_to_s",
    "DURATION_UNITS",
    "RATE_PREFIXES",
    "SIZE_UNITS",
]

DURATION_UNITS: dict[str, int] = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
RATE_PREFIXES: dict[str, int] = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
SIZE_UNITS: dict[str, int] = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}

_NUMBER = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
_DURATION_RE = re.compile(rf"^\s*(-?){_NUMBER}\s*(ns|us|µs|ms|s)\s*$")
_RATE_RE = re.compile(rf"^\s*(-?){_NUMBER}\s*([kmgt]?)(bit|bps|bit/s)\s*$", re.IGNORECASE)
_SIZE_RE = re.compile(rf"^\s*(-?){_NUMBER}\s*(b|kb|mb|gb|kib|mib|gib)\s*$", re.IGNORECASE)

U64_MAX = 2**64 - 1


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: float, path: str, raw: Any) -> None:
    if not math.isfinite(value):
        raise ScenarioError(path, "must be a finite number", raw)


def parse_duration(value: Any, path: str, *, positive: bool = False) -> int:
    """A duration in integer nanoseconds (>= 0, or > 0 when ``positive``)."""
    hint = 'a number of seconds or a string like "20ms", "1.5s", "100us"'
    if _is_number(value):
        _finite(float(value), path, value)
        ns = round(value * 1_000_000_000) if isinstance(value, float) else value * 1_000_000_000
    elif isinstance(value, str):
        m = _DURATION_RE.match(value)
        if not m:
            raise ScenarioError(path, f"not a duration (use {hint}; units: ns, us, ms, s)", value)
        sign, number, unit = m.groups()
        ns = _scale(sign, number, DURATION_UNITS[unit], path, value, "nanoseconds")
    else:
        raise ScenarioError(path, f"must be a duration ({hint})", value)
    if ns < 0:
        raise ScenarioError(path, "must be >= 0", value)
    if positive and ns == 0:
        raise ScenarioError(path, "must be > 0", value)
    if ns > U64_MAX:
        raise ScenarioError(path, f"must be at most {U64_MAX} ns (about 584 years)", value)
    return int(ns)


def parse_rate(value: Any, path: str) -> int:
    """A link rate in integer bits per second (> 0)."""
    hint = 'a number of bit/s or a string like "1.5Mbit", "10Mbps", "100kbit", "1Gbit"'
    if _is_number(value):
        _finite(float(value), path, value)
        bps = round(value)
    elif isinstance(value, str):
        m = _RATE_RE.match(value)
        if not m:
            raise ScenarioError(path, f"not a rate (use {hint})", value)
        sign, number, prefix, _unit = m.groups()
        bps = _scale(sign, number, RATE_PREFIXES[prefix.lower()], path, value, "bit/s")
    else:
        raise ScenarioError(path, f"must be a rate ({hint})", value)
    if bps <= 0:
        raise ScenarioError(path, "must be > 0 bit/s", value)
    if bps > U64_MAX:
        raise ScenarioError(path, f"must be at most {U64_MAX} bit/s", value)
    return int(bps)


def parse_size(value: Any, path: str, *, positive: bool = True, max_bytes: int = U64_MAX) -> int:
    """A size in integer bytes (> 0 unless ``positive`` is false)."""
    hint = 'a number of bytes or a string like "1500B", "64KB", "20MB", "1MiB"'
    if _is_number(value):
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise ScenarioError(path, "must be a whole number of bytes", value)
            value_b = int(value)
        else:
            value_b = value
    elif isinstance(value, str):
        m = _SIZE_RE.match(value)
        if not m:
            raise ScenarioError(path, f"not a size (use {hint})", value)
        sign, number, unit = m.groups()
        value_b = _scale(sign, number, SIZE_UNITS[unit.lower()], path, value, "bytes")
    else:
        raise ScenarioError(path, f"must be a size ({hint})", value)
    if value_b < 0 or (positive and value_b == 0):
        raise ScenarioError(path, "must be > 0 bytes" if positive else "must be >= 0 bytes", value)
    if value_b > max_bytes:
        raise ScenarioError(path, f"must be <= {max_bytes} bytes", value)
    return int(value_b)


def parse_duration_range(value: Any, path: str) -> tuple[int, int]:
    """A duration, or ``"A..B"``: (A, B - A) in nanoseconds, with A <= B; a plain duration is (A, 0)."""
    if not (isinstance(value, str) and ".." in value):
        return parse_duration(value, path), 0
    parts = [part.strip() for part in value.split("..")]
    if len(parts) != 2 or parts[0].endswith(".") or parts[1].startswith("."):
        raise ScenarioError(path, 'not a range (use "A..B": two durations around two dots, e.g. "0s..2s")', value)
    lo, hi = parse_duration(parts[0], path), parse_duration(parts[1], path)
    if hi < lo:
        raise ScenarioError(path, 'a range "A..B" needs A <= B', value)
    return lo, hi - lo


def _scale(sign: str, number: str, factor: int, path: str, raw: str, unit: str) -> int:
    """``number × factor`` exactly (decimal input); a fraction of the canonical unit is refused."""
    from decimal import Decimal

    parsed = Decimal(number)
    if parsed.adjusted() > 40:  # keep absurd exponents from building huge ints
        return -(U64_MAX + 1) if sign else U64_MAX + 1
    scaled = parsed * factor
    if scaled != scaled.to_integral_value():
        raise ScenarioError(path, f"must be a whole number of {unit}", raw)
    result = int(scaled)
    return -result if sign else result


def ns_to_s(ns: int) -> float | int:
    """Nanoseconds as seconds for the resolved scenario (an int when whole)."""
    return ns // 1_000_000_000 if ns % 1_000_000_000 == 0 else ns / 1e9

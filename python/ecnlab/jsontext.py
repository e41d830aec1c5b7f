"""Indented JSON text, fast: the same characters as the standard library's
``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``.

With ``indent`` set, the standard library encodes in pure Python (its C encoder serves only
compact output), which costs about as much as the engine on a summary of ten thousand flows.
This writer walks containers itself and hands each string to the C ``encode_basestring``;
numbers are written as ``json`` writes them (``int.__repr__``, ``float.__repr__``). The rules
it keeps, as ``json.encoder`` has them:

- objects ``{`` newline, two spaces more per level, ``"key": value`` items joined by ``,``
  newline, ``}`` at the parent's indent; arrays likewise; an empty object or array is ``{}``
  or ``[]``; tuples are arrays;
- keys: strings as they are; ``True``/``False``/``None`` as ``true``/``false``/``null``;
  integers and floats as their text; anything else raises ``TypeError``;
- NaN and ±infinity raise ``ValueError`` (``allow_nan=False``);
- subclasses of ``str``, ``int``, ``float``, ``list`` and ``dict`` are written as their base
  type; anything else raises ``TypeError``;
- a value that contains itself is not detected (``json`` raises ``ValueError``; this recurses
  until Python's recursion limit): ecnlab's records never do.

``tests/test_jsontext.py`` holds it equal to ``json.dumps`` on generated values.
"""

from __future__ import annotations

import functools
import json
import math
from json.encoder import encode_basestring
from typing import Any

__all__ = ["dumps_indented"]

_INDENT = "  "


def dumps_indented(value: Any) -> str:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)`` writes it."""
    out: list[str] = []
    _value(value, out, "\n")
    return "".join(out)


def _scalar(v: Any) -> str | None:
    """The text of a scalar, or None for a container (or anything else)."""
    if isinstance(v, str):
        return str(encode_basestring(v))
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return _float(v)
    return None


def _float(v: float) -> str:
    if math.isfinite(v):
        return float.__repr__(v)
    raise ValueError(f"Out of range float values are not JSON compliant: {v!r}")


def _key(k: Any) -> str:
    if isinstance(k, str):
        return str(encode_basestring(k))
    text = _scalar(k)
    if text is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")
    return str(encode_basestring(text))


def _value(v: Any, out: list[str], nl: str) -> None:
    """Append ``v``'s text; ``nl`` is a newline and the indent of the line ``v`` starts on."""
    text = _scalar(v)
    if text is not None:
        out.append(text)
    elif isinstance(v, dict):
        _object(v, out, nl)
    elif isinstance(v, list | tuple):
        _array(v, out, nl)
    else:
        raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")


def _object(d: dict[Any, Any], out: list[str], nl: str) -> None:
    if not d:
        out.append("{}")
        return
    inner = nl + _INDENT
    sep = "{" + inner
    run: dict[Any, Any] = {}  # consecutive items whose values are plain scalars
    for k, v in d.items():
        if type(v) in _FLAT:
            run[k] = v
            continue
        if run:
            sep = _flat_run(run, out, sep, inner)
            run = {}
        out.append(sep + _key(k) + ": ")
        sep = "," + inner
        _value(v, out, inner)
    if run:
        _flat_run(run, out, sep, inner)
    out.append(nl + "}")


def _flat_run(run: dict[Any, Any], out: list[str], sep: str, inner: str) -> str:
    """Append items of plain scalars in one call of the C encoder, whose item separator carries
    the newline and the indent (most of a summary: flow records, TCP tables); the next separator."""
    text = _flat_encoder(inner).encode(run)
    out.append(sep + text[1:-1])
    return "," + inner


_FLAT = frozenset((str, int, float, bool, type(None)))


@functools.lru_cache(maxsize=64)
def _flat_encoder(inner: str) -> json.JSONEncoder:
    """The C encoder of a flat object whose items start at ``inner`` (a newline and an indent)."""
    return json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=("," + inner, ": "))


def _array(items: list[Any] | tuple[Any, ...], out: list[str], nl: str) -> None:
    if not items:
        out.append("[]")
        return
    inner = nl + _INDENT
    sep = "[" + inner
    for v in items:
        out.append(sep)
        sep = "," + inner
        _value(v, out, inner)
    out.append(nl + "]")

"""The one exception a bad scenario raises, and how values are shown in it."""

from __future__ import annotations

import functools
import math
from typing import Any

__all__ = ["ScenarioError", "fmt_value", "fmt_path"]

_NO_VALUE: Any = object()


def fmt_value(value: Any) -> str:
    """Show a scenario value the way it would be written in TOML (one line, short)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(fmt_value(v) for v in value) + "]"
        return text if len(text) <= 60 else text[:56] + " ...]"
    if isinstance(value, dict):
        text = "{" + ", ".join(f"{fmt_key(k)} = {fmt_value(v)}" for k, v in value.items()) + "}"
        return text if len(text) <= 60 else text[:56] + " ...}"
    return f"<{type(value).__name__}> {value}"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in escaped)
    return f'"{escaped}"'


@functools.lru_cache(maxsize=4096)
def fmt_key(key: str) -> str:
    """A table key as TOML writes it: bare when possible, quoted otherwise."""
    if key and all(c.isalnum() and c.isascii() or c in "_-" for c in key):
        return key
    return _quote(key)


def fmt_path(parent: str, key: str | int) -> str:
    """The path of `key` inside `parent`: ``a.b``, ``flows[2]``, ``hosts."x y"``."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{fmt_key(key)}" if parent else fmt_key(key)


class ScenarioError(ValueError):
    """A scenario (file, dict or ``--set`` override) is not valid.

    ``str(err)`` is one line that names the field path, the value and what is
    allowed, e.g. ``topology.bottleneck_queue.max_p = 1.5: must be in (0, 1]``.
    """

    def __init__(self, path: str, message: str, value: Any = _NO_VALUE) -> None:
        self.path = path
        self.message = message
        self.value = value
        super().__init__(self._line())

    def _line(self) -> str:
        if not self.path and self.value is _NO_VALUE:  # about the file as a whole
            return self.message
        head = self.path or "scenario"
        if self.value is not _NO_VALUE:
            head = f"{head} = {fmt_value(self.value)}"
        return f"{head}: {self.message}"

    @property
    def has_value(self) -> bool:
        """Whether the message shows an offending value."""
        return self.value is not _NO_VALUE

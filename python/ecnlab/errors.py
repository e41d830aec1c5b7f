"""ecnlab's own errors (a bad scenario, a damaged result, a file the system would not write), and how
values and files are shown in their one-line messages."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

__all__ = ["EcnlabError", "ScenarioError", "ResultError", "fmt_value", "fmt_path", "os_error_line", "shown_path"]

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
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in repr(value))  # one line, whatever it is
    return f"<{type(value).__name__}> " + (text if len(text) <= 60 else text[:56] + " ...")


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else repr(c)[1:-1] for c in escaped)
    return f'"{escaped}"'


@functools.lru_cache(maxsize=4096)
def fmt_key(key: str) -> str:
    """A table key as TOML writes it: bare when possible, quoted otherwise."""
    if not isinstance(key, str):  # a dict from Python may have any key; TOML's are strings
        return fmt_value(key)
    if key and all(c.isalnum() and c.isascii() or c in "_-" for c in key):
        return key
    return _quote(key)


def set_option(key: str) -> str:
    """Where an override's key is named in an error: ``--set a.b``, the key quoted when it holds a
    character that cannot be shown on one line."""
    return f"--set {key}" if key.isprintable() else f"--set {key!r}"


def fmt_path(parent: str, key: str | int) -> str:
    """The path of `key` inside `parent`: ``a.b``, ``flows[2]``, ``hosts."x y"``."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{fmt_key(key)}" if parent else fmt_key(key)


class EcnlabError(Exception):
    """The base of every error ecnlab raises on purpose; ``str(err)`` is one line."""


class ScenarioError(EcnlabError, ValueError):
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


class ResultError(EcnlabError, ValueError):
    """A result file (``summary.json``, ``manifest.json``, a Parquet table) is missing, damaged or
    not ecnlab's; ``str(err)`` names the file and what is wrong with it."""

    def __init__(self, path: object, message: str) -> None:
        self.path = str(path)
        super().__init__(f"{shown_path(self.path)}: {message}")


class MissingResultError(ResultError, FileNotFoundError):
    """A result file or directory that is not there."""


# Staging names of files being written (runner.atomic_out_dir, sweep/execute.py, atomic_write):
# ``.NAME.partial-PID-XXXX`` directories and ``.NAME.XXXX`` temporary files, shown as NAME.
_STAGING_DIR = re.compile(r"(^|/)\.([^/]+?)\.partial-[^/]*")
_STAGING_FILE = re.compile(r"(^|/)\.([^/]+?\.[A-Za-z0-9]+)\.[A-Za-z0-9_]{8}$")


def shown_path(path: str) -> str:
    """A path as the user knows it: a staging directory or temporary file named as what it becomes,
    on one line (characters that do not print, a newline among them, as escapes)."""
    path = _STAGING_FILE.sub(r"\1\2", _STAGING_DIR.sub(r"\1\2", path))
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


def os_error_line(e: OSError) -> str:
    """One line for an operating-system error on a file: the file (as :func:`shown_path`) and the
    cause, e.g. ``out/x/summary.json: cannot write: No space left on device``."""
    cause = e.strerror or str(e) or type(e).__name__
    name = e.filename if e.filename is not None else e.filename2
    if name is None:
        return cause
    text = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    return f"{shown_path(text)}: {cause}"

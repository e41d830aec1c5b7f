"""The public Python API's checks at the door (``ecnlab.run``, ``validate``, ``load_scenario``,
``load_result``, ``load``, ``plot``).

A value of the wrong type raises :class:`~ecnlab.errors.ScenarioError` with the one-line message the
command line would give (``seed = "1": must be an integer in [0, 2^64 - 1], or None``) before
anything deeper sees it; in particular an integer is never taken for a file descriptor, and a
scenario given as a dict holds only what a TOML file can (strings, integers, floats, booleans,
dates and times, arrays, tables with string keys).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ecnlab.errors import ScenarioError, fmt_path, set_option

__all__ = ["as_path", "optional_path", "scenario_source", "overrides", "seed", "toml_data"]

_TOML_SCALARS = (str, int, float, bool, _dt.datetime, _dt.date, _dt.time)
SEED_MAX = 2**64 - 1


def as_path(value: object, what: str) -> Path:
    """``value`` as a file path: a non-empty str or os.PathLike without NUL characters."""
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if isinstance(text, str) and text and "\0" not in text:
            return Path(text)
    raise ScenarioError(what, "must be a file path (a non-empty str or pathlib.Path)", value)


def optional_path(value: object, what: str) -> Path | None:
    """:func:`as_path`, or None for None."""
    return None if value is None else as_path(value, what)


def scenario_source(value: object) -> Path | dict[str, Any]:
    """A scenario: a TOML file's path, or TOML data as a dict (checked by :func:`toml_data`)."""
    if isinstance(value, Mapping):
        return toml_data(value, "")
    if isinstance(value, (str, os.PathLike)):
        return as_path(value, "scenario")
    raise ScenarioError("scenario", "must be a TOML file's path (str or pathlib.Path) or a dict of TOML data", value)


def toml_data(table: Mapping[Any, Any], path: str) -> dict[str, Any]:
    """A copy-free check that ``table`` holds only TOML values; returns it as a dict."""
    for key, value in table.items():
        if not isinstance(key, str):
            raise ScenarioError(path or "scenario", "table keys must be strings", key)
        _toml_value(value, fmt_path(path, key))
    return dict(table)


def _toml_value(value: object, path: str) -> None:
    if isinstance(value, Mapping):
        toml_data(value, path)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _toml_value(item, fmt_path(path, i))
    elif not isinstance(value, _TOML_SCALARS):
        raise ScenarioError(path, "is not a TOML value (string, number, boolean, date, array or table)", value)


def overrides(value: object) -> Mapping[str, Any] | list[str] | None:
    """Overrides: ``{"a.b": value}`` (TOML values), a list of ``"KEY=VALUE"`` strings, one such string, or None."""
    rule = 'must be a dict {"key.path": value}, a list of "KEY=VALUE" strings, or None'
    if value is None:
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScenarioError("overrides", rule, key)
            _toml_value(item, set_option(key))
        return value
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        items = list(value)
        for item in items:
            if not isinstance(item, str):
                raise ScenarioError("overrides", rule, item)
        return items
    raise ScenarioError("overrides", rule, value)


def seed(value: object) -> int | None:
    """A run seed: an integer in [0, 2^64 - 1], or None."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SEED_MAX:
        return value
    raise ScenarioError("seed", "must be an integer in [0, 2^64 - 1], or None", value)

"""``--set a.b=value`` overrides, applied to the raw TOML data before validation.

A value is parsed as a TOML literal (``0.2``, ``false``, ``"sack"``,
``[1, 2]``, ``{kind = "droptail"}``); anything that is not a TOML literal is
taken as a bare string (``sack``, ``30s``, ``1.5Mbit``). Paths are dotted
keys; array entries are addressed as ``flows[0].count`` (or ``flows.0.count``).
Missing tables on the way are created.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ecnlab.errors import ScenarioError, set_option

__all__ = ["parse_set", "apply_overrides", "Override"]

Override = tuple[list[str | int], Any]

_SEGMENT = re.compile(r"^([A-Za-z0-9_-]+|\"[^\"]*\")((?:\[\d+\])*)$")


def parse_value(text: str) -> Any:
    """A TOML literal, or the text itself when it is not one."""
    import tomllib  # here: a run without --set does not import it

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_path(text: str, what: str) -> list[str | int]:
    """``a.b[0].c`` → ``["a", "b", 0, "c"]``."""
    out: list[str | int] = []
    for part in _split_dots(text):
        m = _SEGMENT.match(part)
        if not m:
            raise ScenarioError(what, f"bad key path {text!r} (use dotted keys like topology.bottleneck_queue.max_p)")
        key, indices = m.groups()
        key = key[1:-1] if key.startswith('"') else key
        out.append(int(key) if key.isdigit() and out else key)
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", indices))
    return out


def _split_dots(text: str) -> list[str]:
    parts, cur, quoted = [], "", False
    for c in text:
        if c == '"':
            quoted = not quoted
        if c == "." and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def parse_set(text: str) -> Override:
    """One ``--set KEY=VALUE`` argument."""
    if "=" not in text:
        raise ScenarioError("--set", f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    return parse_path(key.strip(), set_option(key.strip())), parse_value(value.strip())


def normalize(overrides: Mapping[str, Any] | Iterable[str] | None) -> list[Override]:
    """Overrides given as ``{"a.b": value}`` (Python values) or ``["a.b=value", ...]``."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(parse_path(k, set_option(k)), v) for k, v in overrides.items()]
    if isinstance(overrides, str):
        return [parse_set(overrides)]
    return [parse_set(item) for item in overrides]


def apply_overrides(data: dict[str, Any], overrides: list[Override]) -> dict[str, Any]:
    """A deep copy of ``data`` with each override set."""
    out = copy.deepcopy(data)
    for path, value in overrides:
        _set(out, path, value)
    return out


def _set(root: dict[str, Any], path: list[str | int], value: Any) -> None:
    shown = _show(path)
    node: Any = root
    for i, key in enumerate(path):
        last = i == len(path) - 1
        where = _show(path[:i]) or "the scenario"
        if isinstance(key, int):
            if not isinstance(node, list):
                raise ScenarioError(f"--set {shown}", f"{where} is not an array")
            if key >= len(node):
                raise ScenarioError(f"--set {shown}", f"{where} has {len(node)} entries (index from 0)")
        elif not isinstance(node, dict):
            raise ScenarioError(f"--set {shown}", f"{where} is not a table")
        if last:
            node[key] = copy.deepcopy(value)  # a value shared by many runs (a sweep's [set]) must not alias
        else:
            if isinstance(key, str) and key not in node:
                node[key] = {}
            node = node[key]


def _show(path: list[str | int]) -> str:
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text

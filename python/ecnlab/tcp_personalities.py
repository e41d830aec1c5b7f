"""TCP personalities: named bundles of TCP defaults (``tcp.personality``), read from the engine.

The table lives in one place, the engine's ``crates/tcp/src/personality.rs`` (its header gives
each field's value per personality and the RFC section, ns-2.35 variable or Linux function it
comes from); ``_core.tcp_personalities`` hands it over. A personality sets those fields before
the scenario's own ``[tcp]`` keys are applied, so any single key overrides it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["TCP_PERSONALITIES", "DEFAULT_PERSONALITY", "spec_attr"]

DEFAULT_PERSONALITY = "rfc"

#: The engine's TcpConfig field -> the TcpSpec attribute, where the names differ.
_ATTRS = {"init_cwnd_segments": "init_cwnd", "ecn_min_cwnd_segments": "ecn_min_cwnd"}


def spec_attr(field: str) -> str:
    """The TcpSpec attribute of the engine's TcpConfig ``field``."""
    return _ATTRS.get(field, field)


@functools.cache
def _table() -> dict[str, dict[str, Any]]:
    from ecnlab import _core

    engine: list[tuple[str, dict[str, Any]]] = json.loads(_core.tcp_personalities())
    return {name: {_ATTRS.get(k, k): v for k, v in rules.items()} for name, rules in engine}


class _Personalities(Mapping[str, dict[str, Any]]):
    """personality -> {TcpSpec attribute: value}, asked of the engine on first use (importing the
    scenario layer does not load the extension)."""

    def __getitem__(self, name: str) -> dict[str, Any]:
        return _table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_table())

    def __len__(self) -> int:
        return len(_table())


TCP_PERSONALITIES: Mapping[str, dict[str, Any]] = _Personalities()

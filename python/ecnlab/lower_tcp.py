"""A flow's TCP (:class:`~ecnlab.model.TcpSpec`) as the engine's ``TcpConfig`` JSON.

The engine fills in every field the JSON leaves out from the personality it names
(``crates/tcp/src/personality.rs``, ``_core.default_tcp_config``), so a TcpSpec is lowered as its
personality and the fields that differ. Both the scenario's parsing (``params.py``, which asks the
engine to check each ``[tcp]`` table) and the lowering of a whole scenario (``lower.py``) use it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ecnlab.cc_knobs import PRAGUE_RTT_TRANSITION, knob_keys
from ecnlab.model import ACCECN_KEYS, NS2_RULE_KEYS, TcpSpec

__all__ = ["ecn_mode", "tcp_engine", "engine_tcp_config", "engine_tcp_defaults"]


def ecn_mode(t: TcpSpec) -> str:
    """The engine's ``EcnMode`` of ``t``: off, classic (RFC 3168), ecn+ (RFC 5562) or accecn (RFC 9768)."""
    if not t.ecn:
        return "off"
    if t.accecn:
        return "accecn"
    return "ecn+" if t.ecn_plus else "classic"


def tcp_engine(t: TcpSpec) -> dict[str, Any]:
    """The engine's TcpConfig JSON of ``t``: its personality and the fields that differ from what
    that personality gives (the engine fills in the rest: ``crates/tcp/src/personality.rs``)."""
    defaults = engine_tcp_defaults(t.personality)
    return {"personality": t.personality, **{k: v for k, v in _tcp_fields(t).items() if v != defaults[k]}}


def engine_tcp_config(tcp: dict[str, Any]) -> dict[str, Any]:
    """Every field of a lowered TcpConfig (``tcp_engine``'s output), as the engine reads it."""
    given = dict(tcp)
    return {**engine_tcp_defaults(given.pop("personality", "rfc")), **given}


@functools.cache
def engine_tcp_defaults(personality: str) -> dict[str, Any]:
    """The engine's TcpConfig of ``personality`` with no field set."""
    from ecnlab import _core

    defaults: dict[str, Any] = json.loads(_core.default_tcp_config(personality))
    return defaults


def _tcp_fields(t: TcpSpec) -> dict[str, Any]:
    """Every TcpConfig field of ``t``, by the engine's names."""
    return {**_tcp_fields_as_given(t), "prague_rtt_transition": _prague_rtt_transition(t)}


def _prague_rtt_transition(t: TcpSpec) -> int | None:
    """Prague's RTT transition for the engine: ``None`` (the version's default, which the engine
    knows) when it is that default, so that a resolved scenario, which names it, lowers alike."""
    rounds = t.prague_rtt_transition
    return None if rounds == PRAGUE_RTT_TRANSITION[t.prague_version] else rounds


def _tcp_fields_as_given(t: TcpSpec) -> dict[str, Any]:
    """Every TcpConfig field of ``t`` as the scenario gives it, by the engine's names."""
    return {
        "recovery": t.recovery,
        "cc": t.cc,
        "mss": t.mss,
        "init_cwnd_segments": t.init_cwnd,
        "rwnd_bytes": t.rwnd_bytes,
        "delayed_ack": t.delayed_ack,
        "delack_timeout_ns": t.delack_timeout_ns,
        "ecn": ecn_mode(t),
        "ecn_min_cwnd_segments": t.ecn_min_cwnd,
        "clock_granularity_ns": t.clock_granularity_ns,
        "min_rto_ns": t.min_rto_ns,
        "initial_rto_ns": t.initial_rto_ns,
        "max_rto_ns": t.max_rto_ns,
        "dupack_threshold": t.dupack_threshold,
        "abc": t.abc,
        "limited_transmit": t.limited_transmit,
        "abe": t.abe,
        "newreno_timer": t.newreno_timer,
        "window_scale": t.window_scale,
        "ecn_on_retransmit": t.ecn_on_retransmit,
        "recover_guard_all": t.recover_guard_all,
        "window_arith": t.window_arith,
        "syn_immediate_ack": t.syn_immediate_ack,
        "rto_arith": t.rto_arith,
        "clock_phase_ns": t.clock_phase_ns,
        **{k: getattr(t, k) for k in (*NS2_RULE_KEYS, *knob_keys(), *ACCECN_KEYS)},
    }

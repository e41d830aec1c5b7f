"""Each congestion control's knobs on the Python side, in one table (``CC_KNOBS``).

An entry's ``keys`` are the ``TcpSpec`` fields that belong to one ``tcp.cc``, read from the engine
(its knob rows, ``scenario_schema.tcp_knobs``: the engine keeps them, flat, in that control's
``<Name>Knobs`` struct, ``crates/tcp/src/cc/<cc>.rs``); the entry says what choosing that ``cc``
turns on unless the same table says otherwise (``needs``), and what the resolved scenario keeps
of them (``resolved``: with that ``cc`` only, or always). ``params.py`` applies ``needs``,
``lower_tcp.py`` lowers ``keys`` and ``resolve.py`` writes ``resolved``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ecnlab._table import Table
from ecnlab.model import TcpSpec
from ecnlab.scenario_schema import tcp_knobs, tcp_rows
from ecnlab.tcp_personalities import spec_attr
from ecnlab.units import ns_to_s

__all__ = ["CC_KNOBS", "CcKnobs", "knob_keys", "knobs_resolved"]


def _nothing(table: Table, changes: dict[str, Any], base: TcpSpec) -> None:
    """A congestion control that needs nothing of the other fields."""


@dataclass(frozen=True)
class CcKnobs:
    """One congestion control's knobs (the module doc)."""

    cc: str
    needs: Callable[[Table, dict[str, Any], TcpSpec], None] = _nothing
    #: The knobs in the resolved scenario: ``None`` copies ``keys`` as they are.
    resolve: Callable[[TcpSpec], dict[str, Any]] | None = None
    #: Resolved whatever the ``cc`` (the engine refuses other values than the defaults).
    resolved_always: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        """The TcpSpec fields of this control's knobs, in the engine's order."""
        rows = tcp_rows()
        return tuple(spec_attr(rows[key].field or key) for key in tcp_knobs()[self.cc])

    def resolved(self, t: TcpSpec) -> dict[str, Any]:
        """These knobs of ``t`` as the resolved scenario writes them."""
        return self.resolve(t) if self.resolve is not None else {k: getattr(t, k) for k in self.keys}


def _dctcp_needs(table: Table, changes: dict[str, Any], base: TcpSpec) -> None:
    """``cc = "dctcp"`` turns on what DCTCP needs unless the same table says otherwise: ECN
    (classic negotiation, RFC 8257 §3) and a window floor of two segments after an ECN
    reduction (Linux ``dctcp_ssthresh``), both refused otherwise by the engine with cc = dctcp; and
    ECT on every packet, SYN, ACKs and retransmissions included, as Linux and ns-3 send DCTCP's
    (``ect_all_packets``: a DCTCP switch drops Not-ECT packets above K)."""
    changes.setdefault("ecn", True)
    changes.setdefault("ecn_min_cwnd", 2)
    changes.setdefault("ect_all_packets", True)


def _prague_needs(table: Table, changes: dict[str, Any], base: TcpSpec) -> None:
    """``cc = "prague"`` turns on what TCP Prague needs unless the same table says otherwise
    (crates/tcp/src/cc/prague.rs): AccECN feedback (RFC 9331 §4.2), a minimum window of two
    segments (§4.3), ECT(1) on every packet (the reference's ECN++), and pacing at 100 % of
    cwnd/srtt after slow start and 200 % in it (the reference's ``prague_update_pacing_rate``). With
    ``prague_feedback = "dctcp"`` (this table's or the one it refines, ``base``) the feedback is classic
    ECN (RFC 3168) instead."""
    if not table.has("ecn"):
        accecn = changes.get("prague_feedback", base.prague_feedback) == "accecn"
        changes.update(ecn=True, ecn_plus=False, accecn=accecn)
    changes.setdefault("ecn_min_cwnd", 2)
    changes.setdefault("ect_all_packets", True)
    changes.setdefault("pacing", True)
    changes.setdefault("pacing_ca_ratio", 100)


#: Rounds of RTT transition when ``prague_rtt_transition`` is not set: each reference module's
#: ``DEFAULT_RTT_TRANSITION``, as the engine's ``PragueKnobs::transition`` (crates/tcp/src/cc/prague.rs).
PRAGUE_RTT_TRANSITION = {"v0.7": 4, "v0.6": 500}


def prague_rtt_transition(t: TcpSpec) -> int:
    """The rounds of RTT transition ``t`` runs: its own, or its version's."""
    return PRAGUE_RTT_TRANSITION[t.prague_version] if t.prague_rtt_transition is None else t.prague_rtt_transition


def _prague_resolved(t: TcpSpec) -> dict[str, Any]:
    """TCP Prague's knobs, its RTT target in seconds and the RTT transition it runs."""
    return {
        "prague_rtt_target": ns_to_s(t.prague_rtt_target_ns),
        "prague_rtt_transition": prague_rtt_transition(t),
        "prague_classic_fallback": t.prague_classic_fallback,
        "prague_version": t.prague_version,
        "prague_fallback_fix": t.prague_fallback_fix,
        "prague_feedback": t.prague_feedback,
    }


def _bbr_needs(table: Table, changes: dict[str, Any], base: TcpSpec) -> None:
    """``cc = "bbr"`` paces unless the same table says otherwise: Linux's ``bbr_init`` asks for
    pacing (``SK_PACING_NEEDED``), and the engine refuses BBR without it (crates/tcp/src/cc/bbr.rs)."""
    changes.setdefault("pacing", True)


#: By ``tcp.cc``; Reno has no knobs.
CC_KNOBS: dict[str, CcKnobs] = {
    "dctcp": CcKnobs("dctcp", _dctcp_needs, resolved_always=True),
    "prague": CcKnobs("prague", _prague_needs, _prague_resolved),
    "bbr": CcKnobs("bbr", _bbr_needs),
    "cubic": CcKnobs("cubic"),
}


def knob_keys() -> tuple[str, ...]:
    """Every congestion control's knobs, in the table's order."""
    return tuple(k for knobs in CC_KNOBS.values() for k in knobs.keys)


def knobs_resolved(t: TcpSpec) -> dict[str, Any]:
    """The knobs the resolved scenario keeps of ``t``: its own congestion control's, and those
    resolved whatever the ``cc``."""
    out: dict[str, Any] = {}
    for cc, knobs in CC_KNOBS.items():
        if knobs.resolved_always or t.cc == cc:
            out.update(knobs.resolved(t))
    return out

"""Parsing the ``[tcp]`` table (and per-flow ``tcp`` overrides) and queue tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ecnlab._table import Table, boolean, choice, integer, number
from ecnlab.cc_knobs import CC_KNOBS
from ecnlab.errors import ScenarioError
from ecnlab.lower_tcp import tcp_engine
from ecnlab.model import PiSpec, QueueSpec, RedSpec, TcpSpec
from ecnlab.queues import MODERN_KINDS, OWN_PKT_LIMIT, allowed_keys, engine_check, parse_modern
from ecnlab.tcp_personalities import TCP_PERSONALITIES
from ecnlab.units import parse_duration, parse_size

__all__ = [
    "TCP_VARIANTS",
    "TCP_RECOVERIES",
    "TCP_CCS",
    "TCP_ECN_MODES",
    "QUEUE_KINDS",
    "DEFAULT_QUEUE_LIMIT",
    "TCP_KEYS",
    "parse_tcp",
    "parse_queue",
    "default_queue",
]

# Loss recovery (crates/tcp/src/recovery.rs); ``variant``, the older key, means the same.
TCP_RECOVERIES = ("tahoe", "reno", "newreno", "sack")
TCP_VARIANTS = TCP_RECOVERIES
# Congestion controls: one per file in crates/tcp/src/cc/ (the registry in cc/mod.rs).
TCP_CCS = ("reno", "cubic", "dctcp", "prague", "bbr")
BBR_VERSIONS = ("v1", "v3")  # mainline tcp_bbr.c, google/bbr v3
PRAGUE_VERSIONS = ("v0.7", "v0.6")  # the reference tcp_prague.c by its MODULE_VERSION
IDLE_RESTARTS = ("off", "rfc5681", "linux")
# RFC 6582 §4: restart the retransmission timer on the first partial ACK only, or on every one.
NEWRENO_TIMERS = ("impatient", "slow_but_steady")
WINDOW_ARITHS = ("rfc5681", "ns2")  # TcpConfig::window_arith
RTO_ARITHS = ("rfc6298", "ns2", "linux")  # TcpConfig::rto_arith
GROWTH_ARITHS = ("rfc5681", "linux")  # TcpConfig::growth_arith
TSO_MODES = ("none", "linux")  # TcpConfig::tso (crates/tcp/src/tso.rs)
#: TcpConfig::syn_ecn_fallback (crates/tcp/src/rules/syn_fallback.rs): RFC 3168 §6.1.1.1
SYN_ECN_FALLBACKS = ("off", "retransmissions")
#: TcpConfig::accecn_checks (crates/tcp/src/rules/accecn_checks.rs): RFC 9768's tests of the path
ACCECN_CHECKS = ("off", "rfc9768", "linux")
RCV_AUTOTUNE_MODES = ("off", "linux")  # TcpConfig::rcv_autotune (crates/tcp/src/rcvbuf.rs)
SSTHRESH_BASES = ("flight", "cwnd")  # TcpConfig::ssthresh_basis
# ``tcp.ecn``: a boolean (true = classic) or one of these modes.
TCP_ECN_MODES = ("off", "classic", "ecn+", "accecn")
# ``tcp.accecn_option``: which segments carry the AccECN option, Linux's tcp_ecn_option value
# (0, 1, 2) or its name (crates/tcp/src/accecn.rs).
ACCECN_OPTIONS = {"off": 0, "minimum": 1, "full": 2}
# ``tcp.hystart``: how CUBIC leaves slow start (crates/tcp/src/cc/hystart.rs).
HYSTARTS = ("off", "linux", "hystart++")
# ``tcp.cubic_arith``: CUBIC's arithmetic (crates/tcp/src/cc/cubic.rs, cubic_linux.rs).
CUBIC_ARITHS = ("rfc9438", "linux")
# ``tcp.dctcp_arith``: DCTCP's arithmetic (crates/tcp/src/cc/dctcp.rs).
DCTCP_ARITHS = ("rfc8257", "linux")
QUEUE_KINDS = ("droptail", "red", "red_star", "pi", *MODERN_KINDS)
RED_MODES = ("packet", "byte")
# What RED does to a packet it selects early: drop it, CE-mark it (= ecn = true), or forward it
# and send an ICMP Source Quench to its source (Floyd 1994 §9.1 backward ECN).
RED_SIGNALS = ("drop", "mark", "quench")
RED_PERSONALITIES = ("floyd93", "ns2", "ns3", "linux")
NS2_DEFAULT_MARK_P = 0.1  # ns-2 mark_p_
DEFAULT_QUEUE_LIMIT = 1000
U32_MAX = 2**32 - 1


def _dur(positive: bool) -> Callable[[Any, str], int]:
    return lambda v, p: parse_duration(v, p, positive=positive)


# scenario key -> (TcpSpec attribute, parser)
TCP_KEYS: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
    "personality": ("personality", lambda v, p: _personality(v, p)),
    "recovery": ("recovery", choice(TCP_RECOVERIES)),
    "variant": ("recovery", choice(TCP_RECOVERIES)),
    "cc": ("cc", choice(TCP_CCS)),
    "mss": ("mss", integer(64, 65495)),  # the engine's 64..=65535, and an IPv4 packet's 65535 bytes
    "init_cwnd": ("init_cwnd", integer(1, 100)),  # the engine's TcpConfig::validate
    "rwnd": ("rwnd_bytes", lambda v, p: parse_size(v, p, max_bytes=U32_MAX)),
    "delayed_ack": ("delayed_ack", boolean),
    "delack_timeout": ("delack_timeout_ns", _dur(True)),
    "ecn": ("ecn", lambda v, p: _ecn_mode(v, p)),
    "ecn_plus": ("ecn_plus", boolean),
    "ecn_min_cwnd": ("ecn_min_cwnd", integer(1, 2)),
    "clock_granularity": ("clock_granularity_ns", _dur(True)),
    "min_rto": ("min_rto_ns", _dur(False)),
    "initial_rto": ("initial_rto_ns", _dur(True)),
    "max_rto": ("max_rto_ns", _dur(True)),
    "dupack_threshold": ("dupack_threshold", integer(1, 1000)),
    "abc": ("abc", integer(0, 100)),
    "limited_transmit": ("limited_transmit", boolean),
    "abe": ("abe", boolean),
    "newreno_timer": ("newreno_timer", choice(NEWRENO_TIMERS)),
    "window_scale": ("window_scale", boolean),
    "ecn_on_retransmit": ("ecn_on_retransmit", boolean),
    "recover_guard_all": ("recover_guard_all", boolean),
    "window_arith": ("window_arith", choice(WINDOW_ARITHS)),
    "syn_immediate_ack": ("syn_immediate_ack", boolean),
    "rto_arith": ("rto_arith", choice(RTO_ARITHS)),
    "growth_arith": ("growth_arith", choice(GROWTH_ARITHS)),
    "tso": ("tso", choice(TSO_MODES)),
    "rcv_autotune": ("rcv_autotune", choice(RCV_AUTOTUNE_MODES)),
    "clock_phase": ("clock_phase_ns", _dur(False)),
    "ecn_backoff": ("ecn_backoff", boolean),
    "ack_ce_at_once": ("ack_ce_at_once", boolean),
    "sack_is_lost": ("sack_is_lost", boolean),
    "rtx_restart_on_fr": ("rtx_restart_on_fr", boolean),
    "limited_transmit_all": ("limited_transmit_all", boolean),
    "guard_after_timeout": ("guard_after_timeout", boolean),
    "timer_before_sample": ("timer_before_sample", boolean),
    "dctcp_shift_g": ("dctcp_shift_g", integer(0, 16)),
    "dctcp_ect": ("dctcp_ect", integer(0, 1)),
    "dctcp_arith": ("dctcp_arith", choice(DCTCP_ARITHS)),
    "ssthresh_basis": ("ssthresh_basis", choice(SSTHRESH_BASES)),
    "sack_after_rto": ("sack_after_rto", boolean),
    "rto_keeps_recovery_ssthresh": ("rto_keeps_recovery_ssthresh", boolean),
    "prr": ("prr", boolean),
    "dupacks_as_sacks": ("dupacks_as_sacks", boolean),
    "fin_with_data": ("fin_with_data", boolean),
    "rack": ("rack", boolean),
    "tlp": ("tlp", boolean),
    "sack_recover_guard": ("sack_recover_guard", boolean),
    "ect_all_packets": ("ect_all_packets", boolean),
    "idle_restart": ("idle_restart", choice(IDLE_RESTARTS)),
    "syn_ecn_fallback": ("syn_ecn_fallback", choice(SYN_ECN_FALLBACKS)),
    "accecn_checks": ("accecn_checks", choice(ACCECN_CHECKS)),
    "pacing": ("pacing", boolean),
    "pacing_ss_ratio": ("pacing_ss_ratio", integer(1, 1000)),
    "pacing_ca_ratio": ("pacing_ca_ratio", integer(1, 1000)),
    "prague_rtt_target": ("prague_rtt_target_ns", _dur(False)),
    "prague_rtt_transition": ("prague_rtt_transition", integer(0, 1000)),
    "prague_classic_fallback": ("prague_classic_fallback", boolean),
    "prague_version": ("prague_version", choice(PRAGUE_VERSIONS)),
    "prague_fallback_fix": ("prague_fallback_fix", boolean),
    "bbr_version": ("bbr_version", choice(BBR_VERSIONS)),
    "bbr_ecn_low": ("bbr_ecn_low", boolean),
    "accecn_option": ("accecn_option", lambda v, p: _accecn_option(v, p)),
    "accecn_option_beacon": ("accecn_option_beacon", integer(0, 3)),
    "hystart": ("hystart", choice(HYSTARTS)),
    "cubic_arith": ("cubic_arith", choice(CUBIC_ARITHS)),
}


def _accecn_option(value: Any, path: str) -> int:
    """``tcp.accecn_option``: Linux's ``tcp_ecn_option`` number, or its name (``off`` = 0,
    ``minimum`` = 1, ``full`` = 2)."""
    if isinstance(value, str):
        return ACCECN_OPTIONS[choice(ACCECN_OPTIONS)(value, path)]
    if isinstance(value, bool) or not isinstance(value, int) or value not in ACCECN_OPTIONS.values():
        raise ScenarioError(path, "must be 0 (off), 1 (minimum) or 2 (full)", value)
    return int(value)


def _ecn_mode(value: Any, path: str) -> str:
    """``tcp.ecn``: true (= classic), false (= off), or a mode name."""
    if isinstance(value, bool):
        return "classic" if value else "off"
    if not isinstance(value, str):
        raise ScenarioError(path, f"must be true, false or one of {', '.join(TCP_ECN_MODES)}", value)
    return choice(TCP_ECN_MODES)(value, path)


def _ecn_changes(table: Table, changes: dict[str, Any]) -> None:
    """``tcp.ecn`` as the TcpSpec fields ``ecn``, ``ecn_plus`` and ``accecn``: a boolean sets
    ``ecn`` only (``ecn_plus`` keeps its own key, ``accecn`` stays as it was); a mode name sets
    all three, and then ``ecn_plus`` may not disagree."""
    mode = changes["ecn"]
    changes["ecn"] = mode != "off"
    if isinstance(table.raw("ecn"), bool):
        return
    plus = mode == "ecn+"
    if table.has("ecn_plus") and changes["ecn_plus"] != plus:
        raise ScenarioError(table.at("ecn_plus"), f'disagrees with ecn = "{mode}"', table.raw("ecn_plus"))
    changes["ecn_plus"] = plus
    changes["accecn"] = mode == "accecn"


def _personality(value: Any, path: str) -> str:
    """One of the engine's personalities (asked of it when first read)."""
    return choice(TCP_PERSONALITIES)(value, path)


def parse_tcp(table: Table | None, base: TcpSpec) -> TcpSpec:
    """``base`` with the keys of ``table`` applied, then cross-checked."""
    if table is None:
        return base
    table.check_keys(TCP_KEYS)
    if table.has("variant") and table.has("recovery"):
        raise ScenarioError(
            table.at("variant"), "give recovery or variant (the older name), not both", table.raw("variant")
        )
    if table.has("personality"):
        name = table.get("personality", _personality)
        base = replace(base, personality=name, **TCP_PERSONALITIES[name])
    changes = {attr: table.get(key, parse) for key, (attr, parse) in TCP_KEYS.items() if table.has(key)}
    if "ecn" in changes:
        _ecn_changes(table, changes)
    if changes.get("cc") in CC_KNOBS:
        CC_KNOBS[changes["cc"]].needs(table, changes)
    tcp = replace(base, **changes)
    if tcp.cc == "cubic" and tcp.personality == "linux" and not table.has("hystart"):
        tcp = replace(tcp, hystart="linux")  # Linux's CUBIC leaves slow start by HyStart
    if tcp.min_rto_ns > tcp.max_rto_ns:
        key = "min_rto" if table.has("min_rto") else "max_rto"
        raise ScenarioError(table.at(key), "must satisfy min_rto <= max_rto", table.raw(key))
    if tcp.initial_rto_ns > tcp.max_rto_ns:
        key = "initial_rto" if table.has("initial_rto") else "max_rto"
        raise ScenarioError(table.at(key), "must satisfy initial_rto <= max_rto", table.raw(key))
    _engine_check_tcp(table, tcp)
    return tcp


def _engine_check_tcp(table: Table, tcp: TcpSpec) -> None:
    """The engine's own TcpConfig check, reported against the scenario key (one rule, no drift)."""
    import json

    from ecnlab import _core

    # The engine fills in what the lowering leaves out and checks the whole TcpConfig.
    err = _core.check_tcp(json.dumps(tcp_engine(tcp)))
    if err is None:
        return
    field, value, allowed = err
    engine_keys = {v: k for k, v in TCP_ENGINE_FIELDS.items()}
    key = engine_keys.get(field, field)
    if table.has(key):
        raise ScenarioError(table.at(key), f"must be {allowed}", table.raw(key))
    raise ScenarioError(table.path, f"{key} = {value}: must be {allowed}")


# scenario key -> the engine's TcpConfig field, where the names differ
TCP_ENGINE_FIELDS = {
    "init_cwnd": "init_cwnd_segments",
    "prague_rtt_target": "prague_rtt_target_ns",
    "rwnd": "rwnd_bytes",
    "delack_timeout": "delack_timeout_ns",
    "ecn_min_cwnd": "ecn_min_cwnd_segments",
    "clock_granularity": "clock_granularity_ns",
    "min_rto": "min_rto_ns",
    "initial_rto": "initial_rto_ns",
    "max_rto": "max_rto_ns",
    "clock_phase": "clock_phase_ns",
}


_LIMIT_KEYS = ("kind", "limit", "limit_bytes", "tail_delay")
_RED_KEYS = (
    "min_th",
    "max_th",
    "max_p",
    "wq",
    "ecn",
    "gentle",
    "wait",
    "mode",
    "mean_pkt_size",
    "personality",
    "mark_p",
    "adaptive",
    "ns2_rng_skip",
    "signal",
)


def default_queue() -> QueueSpec:
    """DropTail with room for ``DEFAULT_QUEUE_LIMIT`` packets."""
    return QueueSpec(kind="droptail", limit_pkts=DEFAULT_QUEUE_LIMIT, limit_bytes=None)


def parse_queue(table: Table | None, *, fallback: QueueSpec, mss: int) -> QueueSpec:
    """A queue table; ``fallback`` when the table is absent.

    ``mss`` is the default TCP MSS: RED's ``mean_pkt_size`` defaults to ``mss + 40``.
    """
    if table is None:
        return fallback
    kind = table.get("kind", choice(QUEUE_KINDS), "droptail")
    if kind in MODERN_KINDS:
        return _parse_modern_queue(table, kind, mss)
    allowed = _LIMIT_KEYS + {"red": _RED_KEYS, "red_star": _RED_KEYS, "pi": _PI_KEYS}.get(kind, ())
    table.check_keys(allowed, context=f'for kind = "{kind}"')
    if table.has("limit") and table.has("limit_bytes"):
        raise ScenarioError(table.path, "give limit (packets) or limit_bytes, not both")
    limit_pkts: int | None = table.get("limit", integer(1, U32_MAX), None)
    limit_bytes: int | None = table.get("limit_bytes", parse_size, None)
    if limit_pkts is None and limit_bytes is None:
        limit_pkts = DEFAULT_QUEUE_LIMIT
    red = _parse_red(table, mss) if kind in ("red", "red_star") else None
    if red is not None and red.quench and kind == "red_star":
        raise ScenarioError(
            table.at("signal"), "is only available with kind red (RED* signals in the forced region)", "quench"
        )
    pi = _parse_pi(table, mss) if kind == "pi" else None
    if red is not None and red.personality == "ns2" and kind == "red_star":
        raise ScenarioError(
            table.at("personality"),
            "is not available with kind red_star (ns-2 RED never marks in a forced region)",
            "ns2",
        )
    tail = table.get("tail_delay", _dur(True), None)  # report P(queue > tail_delay · link rate)
    return QueueSpec(kind=kind, limit_pkts=limit_pkts, limit_bytes=limit_bytes, red=red, pi=pi, tail_delay_ns=tail)


def _parse_modern_queue(table: Table, kind: str, mss: int) -> QueueSpec:
    """CoDel, PIE, FQ-CoDel, DualPI2, Adaptive RED, step (``ecnlab.queues``); ranges checked by the engine."""
    own = OWN_PKT_LIMIT.get(kind)
    limit_keys = ("kind", "limit", "tail_delay") if own else _LIMIT_KEYS
    table.check_keys(limit_keys + allowed_keys(kind), context=f'for kind = "{kind}"')
    if table.has("limit") and table.has("limit_bytes"):
        raise ScenarioError(table.path, "give limit (packets) or limit_bytes, not both")
    limit_pkts: int | None = table.get("limit", integer(1, U32_MAX), None)
    limit_bytes: int | None = None if own else table.get("limit_bytes", parse_size, None)
    if limit_pkts is None and limit_bytes is None:
        limit_pkts = own or DEFAULT_QUEUE_LIMIT
    fields = parse_modern(table, kind, mss)
    tail = table.get("tail_delay", _dur(True), None)
    q = QueueSpec(kind=kind, limit_pkts=limit_pkts, limit_bytes=limit_bytes, tail_delay_ns=tail, fields=fields)
    engine_check(table, kind, engine_queue(q, rate_bps=1_000_000_000))
    return q


def engine_queue(q: QueueSpec, rate_bps: int) -> dict[str, Any]:
    """The engine's JSON of a queue of a modern kind on a link of ``rate_bps``."""
    out: dict[str, Any] = {"kind": q.kind, "limit_pkts": q.limit_pkts}
    if q.kind not in OWN_PKT_LIMIT:
        out["limit_bytes"] = q.limit_bytes
    out.update(q.fields)
    if q.kind == "ared":
        out["link_rate_bps"] = rate_bps
    return out


_PI_KEYS = ("q_ref", "a", "b", "sample_hz", "ecn", "n_flows", "rtt", "mean_pkt_size")
_PI_GAINS_NOTE = "PI needs a and b, or n_flows and rtt to derive them (docs/scenario.md)"


def _parse_pi(table: Table, mss: int) -> PiSpec:
    """PI: ``a`` and ``b`` given together, or derived from ``n_flows`` and ``rtt`` (``pi_design``)."""
    q_ref = table.get("q_ref", number(0), required_note="PI needs q_ref (packets)")
    base = PiSpec(
        q_ref=q_ref,
        sample_hz=table.get("sample_hz", number(0, 1e9, open_lo=True), 160.0),  # Hollot et al. 2001 §V example
        ecn=table.get("ecn", boolean, False),
        mean_pkt_size=table.get("mean_pkt_size", integer(1, 65535), mss + 40),
    )
    gains = [k for k in ("a", "b") if table.has(k)]
    design = [k for k in ("n_flows", "rtt") if table.has(k)]
    if len(gains) == 1:
        other = "b" if gains[0] == "a" else "a"
        raise ScenarioError(table.at(gains[0]), f"needs {other} as well ({_PI_GAINS_NOTE})", table.raw(gains[0]))
    if gains and design:
        raise ScenarioError(table.at(design[0]), "give a and b, or n_flows and rtt, not both", table.raw(design[0]))
    if gains:
        return replace(base, a=table.get("a", number(0)), b=table.get("b", number(0)))
    return replace(
        base,
        n_flows=table.get("n_flows", integer(1, 10**9), required_note=_PI_GAINS_NOTE),
        rtt_ns=table.get("rtt", _dur(True), required_note=_PI_GAINS_NOTE),
    )


def _parse_red(table: Table, mss: int) -> RedSpec:
    min_th = table.get("min_th", number(0), required_note="RED needs min_th and max_th")
    max_th = table.get("max_th", number(0, open_lo=True), required_note="RED needs min_th and max_th")
    if min_th >= max_th:
        raise ScenarioError(table.at("min_th"), f"must be < max_th ({table.raw('max_th')})", table.raw("min_th"))
    who = table.get("personality", choice(RED_PERSONALITIES), "floyd93")
    _check_personality_keys(table, who)
    wq = table.get("wq", number(0, 1, open_lo=True), 0.002 if who != "linux" else 2.0**-9)
    if who == "linux" and not any(wq == 2.0**-k for k in range(1, 32)):
        raise ScenarioError(table.at("wq"), "must be 2^-k, 1 <= k <= 31, with personality linux (tc red's Wlog)", wq)
    ecn, signal = _parse_signal(table)
    return RedSpec(
        min_th=min_th,
        max_th=max_th,
        max_p=table.get("max_p", number(0, 1, open_lo=True), 0.1),
        wq=wq,
        ecn=ecn,
        quench=signal == "quench",
        # ns-2 and ns-3 default to gentle RED; F&J 1993 and Linux have no gentle region.
        gentle=table.get("gentle", boolean, who in ("ns2", "ns3")),
        wait=table.get("wait", boolean, True),
        mode=table.get("mode", choice(RED_MODES), "packet" if who != "linux" else "byte"),
        mean_pkt_size=table.get("mean_pkt_size", integer(1, 65535), mss + 40),
        personality=who,
        mark_p=table.get("mark_p", number(0, open_lo=True), NS2_DEFAULT_MARK_P) if who == "ns2" else None,
        adaptive=table.get("adaptive", boolean, False),
        ns2_rng_skip=table.get("ns2_rng_skip", integer(0, 10**9), None),
    )


def _parse_signal(table: Table) -> tuple[bool, str]:
    """(ecn, signal): ``signal = "mark"`` is ``ecn = true``; both may be given only if they agree."""
    ecn = table.get("ecn", boolean, False)
    if not table.has("signal"):
        return ecn, "mark" if ecn else "drop"
    signal = table.get("signal", choice(RED_SIGNALS))
    if table.has("ecn") and ecn != (signal == "mark"):
        raise ScenarioError(
            table.at("signal"), f'contradicts ecn = {str(ecn).lower()} (signal = "mark" is ecn = true)', signal
        )
    return signal == "mark", signal


def _check_personality_keys(table: Table, who: str) -> None:
    """Options that only some personalities have (docs/performance.md)."""
    only = {"mark_p": "ns2", "ns2_rng_skip": "ns2", "adaptive": "linux"}
    for key, owner in only.items():
        if table.has(key) and who != owner:
            raise ScenarioError(table.at(key), f"only applies to personality {owner}", table.raw(key))
    if who == "linux":
        if table.has("gentle") and table.raw("gentle") is not False:
            raise ScenarioError(
                table.at("gentle"), "must be false with personality linux (no gentle region)", table.raw("gentle")
            )
        for key in ("wait", "mode"):
            if table.has(key):
                raise ScenarioError(
                    table.at(key), "does not apply to personality linux (byte backlog, qcount spacing)", table.raw(key)
                )

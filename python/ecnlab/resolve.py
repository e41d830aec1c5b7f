"""Typed parts back to scenario-file form with every default filled (the *resolved* scenario).

The resolved form uses the scenario file's keys in canonical units: durations
in seconds, rates in bit/s, sizes in bytes. Loading it again gives the same
run (tests check this round trip).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ecnlab.cc_knobs import knobs_resolved
from ecnlab.model import ACCECN_KEYS, NS2_RULE_KEYS, AppSpec, QueueSpec, TcpSpec
from ecnlab.queues import resolved_modern
from ecnlab.units import ns_to_s

__all__ = ["queue_resolved", "tcp_resolved", "app_resolved", "flow_tcp"]


def flow_tcp(resolved: Mapping[str, Any], entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """The TCP table of a resolved flow entry: its own, else the scenario's ``[tcp]``."""
    own: Mapping[str, Any] | None = entry.get("tcp")
    return own if own is not None else resolved["tcp"]


def queue_resolved(q: QueueSpec) -> dict[str, Any]:
    """A queue table with every key present."""
    out: dict[str, Any] = {"kind": q.kind}
    if q.limit_bytes is not None:
        out["limit_bytes"] = q.limit_bytes
    else:
        out["limit"] = q.limit_pkts
    if q.red is not None:
        r = q.red
        out.update(
            min_th=r.min_th,
            max_th=r.max_th,
            max_p=r.max_p,
            wq=r.wq,
            ecn=r.ecn,
            gentle=r.gentle,
            wait=r.wait,
            mode=r.mode,
            mean_pkt_size=r.mean_pkt_size,
            personality=r.personality,
        )
        if r.personality == "linux":
            del out["wait"], out["mode"]  # no such options in tc red
            out["adaptive"] = r.adaptive
        if r.mark_p is not None:
            out["mark_p"] = r.mark_p
        if r.ns2_rng_skip is not None:
            out["ns2_rng_skip"] = r.ns2_rng_skip
        if r.quench:  # signal = "drop" / "mark" are spelled by ecn
            out["signal"] = "quench"
    if q.fields:
        out.update(resolved_modern(q.kind, q.fields))
    if q.tail_delay_ns is not None:
        out["tail_delay"] = ns_to_s(q.tail_delay_ns)
    if q.pi is not None:
        p = q.pi
        out.update(q_ref=p.q_ref, sample_hz=p.sample_hz, ecn=p.ecn, mean_pkt_size=p.mean_pkt_size)
        if p.a is not None:
            out.update(a=p.a, b=p.b)
        else:
            out.update(n_flows=p.n_flows, rtt=ns_to_s(p.rtt_ns or 0))
    return out


def tcp_resolved(t: TcpSpec) -> dict[str, Any]:
    """A ``[tcp]`` table with every key present."""
    return {
        "personality": t.personality,
        "recovery": t.recovery,
        "cc": t.cc,
        "mss": t.mss,
        "init_cwnd": t.init_cwnd,
        "rwnd": t.rwnd_bytes,
        "delayed_ack": t.delayed_ack,
        "delack_timeout": ns_to_s(t.delack_timeout_ns),
        # A boolean as before unless AccECN (the mode name, so the table parses back to it).
        "ecn": "accecn" if t.ecn and t.accecn else t.ecn,
        "ecn_plus": t.ecn_plus,
        "ecn_min_cwnd": t.ecn_min_cwnd,
        "clock_granularity": ns_to_s(t.clock_granularity_ns),
        "min_rto": ns_to_s(t.min_rto_ns),
        "initial_rto": ns_to_s(t.initial_rto_ns),
        "max_rto": ns_to_s(t.max_rto_ns),
        "dupack_threshold": t.dupack_threshold,
        "abc": t.abc,
        "abe": t.abe,
        "limited_transmit": t.limited_transmit,
        "newreno_timer": t.newreno_timer,
        "window_scale": t.window_scale,
        "ecn_on_retransmit": t.ecn_on_retransmit,
        "recover_guard_all": t.recover_guard_all,
        "window_arith": t.window_arith,
        "syn_immediate_ack": t.syn_immediate_ack,
        "rto_arith": t.rto_arith,
        "clock_phase": ns_to_s(t.clock_phase_ns),
        **{k: getattr(t, k) for k in NS2_RULE_KEYS},
        **knobs_resolved(t),
        **({k: getattr(t, k) for k in ACCECN_KEYS} if t.accecn else {}),
    }


def app_resolved(a: AppSpec) -> dict[str, Any]:
    """The kind-specific keys of a ``[[flows]]`` entry (optional ones only when set)."""
    if a.kind == "bulk":
        return {} if a.bytes is None else {"bytes": a.bytes}
    if a.kind == "serial":
        return {"files": a.files, "file_size": a.file_bytes, "gap": ns_to_s(a.gap_ns)}
    if a.kind == "telnet":
        telnet: dict[str, Any] = {"interarrival": a.interarrival, "write_size": a.write_bytes}
        if a.interarrival == "exponential":
            telnet["mean_interarrival"] = ns_to_s(a.mean_interarrival_ns)
        return telnet
    if a.kind == "web":
        from ecnlab.web import size_resolved  # web imports model; resolve is imported by lower

        assert a.size is not None
        return {
            "request_size": a.request_bytes,
            "size": size_resolved(a.size),
            "mean_session_gap": ns_to_s(a.mean_session_gap_ns),
            "pages_per_session": a.pages_per_session,
            "objects_per_page": a.objects_per_page,
            "think": ns_to_s(a.think_ns),
        }
    if a.kind == "ftp_arrivals":
        return {"min_size": a.min_bytes, "max_size": a.max_bytes, "mean_gap": ns_to_s(a.mean_gap_ns)}
    if a.kind == "incast":
        incast: dict[str, Any] = {
            "request_size": a.request_bytes,
            "response_size": a.response_bytes,
            "interval": ns_to_s(a.query_interval_ns),
            "arrivals": a.query_arrivals,
        }
        if a.transactions is not None:
            incast["queries"] = a.transactions
        return incast
    out: dict[str, Any] = {
        "request_size": a.request_bytes,
        "response_size": a.response_bytes,
        "think": ns_to_s(a.think_ns),
    }
    if a.transactions is not None:
        out["transactions"] = a.transactions
    return out

"""Raw emulation measurements → ``summary.json`` in the simulator's schema.

Same top-level keys and the same per-flow, per-queue and per-link keys as
``ecnlab run`` writes; a value no real source provides is ``null`` (listed in
docs/emulation.md). Sources: the data sink's byte counts (goodput, delivered
bytes), the data sender's ``TCP_INFO`` (retransmits, segments, ECN
negotiated, RTT, cwnd), each namespace's ``nstat`` (CE packets received,
fast retransmits, timeouts), and the router's counters (queues and links).
The extra key ``emulation`` holds what only an emulation has. A ``web``
flow's ``web`` result comes from the client (the engine's own ``WebOut``
code over the measured response times).
"""

from __future__ import annotations

import platform
from typing import Any

from ecnlab import __version__
from ecnlab.bottleneck import signal_warnings
from ecnlab.emu.plan import Plan, flow_start_ns
from ecnlab.emu.steal import PEAK_WARN_S
from ecnlab.model import Flow, Scenario
from ecnlab.results import FORMAT_VERSION, git_commit, jain
from ecnlab.schema import keys, record

__all__ = ["build_emu_summary", "utilization", "warnings"]

#: Router delivery lateness (p99) above which the emulation says it may not have kept up.
LATENESS_WARN_US = 1000.0

SOJOURN_KEYS = ("p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms")
# Keys the simulator has and the router does not measure (the drops by packet kind, ...) are
# null: every record is built by ``schema.record`` from the engine's own key list.


def build_emu_summary(sc: Scenario, resolved: dict[str, Any], plan: Plan, raw: dict[str, Any]) -> dict[str, Any]:
    commit, dirty = git_commit()
    router = raw["router"]
    end_links = {link["link"]: link for link in router["end"]["links"]}
    flows = [_flow(sc, k, f, raw) for k, f in enumerate(sc.flows)]
    forwarded = sum(link["packets"] for link in end_links.values())
    summary: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "ecnlab_version": __version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "scenario": resolved,
        "seed": sc.seed,
        "sim": {
            **record("sim", {"sim_time_s": sc.duration_ns / 1e9, "packets_forwarded": forwarded}),
            "wall_s": round(raw["wall_s"], 6),
        },
        "flows": flows,
        "queues": [record("queue", {"link": name, **_queue(link)}) for name, link in end_links.items()],
        "links": [_link(link, router) for link in plan.links],
        "fairness": jain([float(f["goodput_bps"]) for f in flows if f["kind"] == "bulk"]),
        "emulation": {
            "kernel": platform.release(),
            # CPU time the hypervisor took from this machine between the traffic's start and its
            # end, seconds summed over CPUs, and the most within one second (steal.py); null
            # without /proc/stat.
            "cpu_steal": raw.get("cpu_steal"),
            "hosts": {h.name: h.addr for h in plan.hosts},
            "router": {
                # The router's clock (s since it started): the traffic's start (queue averages from
                # there), the warm-up's end (sojourn times, utilisation), the end's and the final report.
                "window": {**router["end"]["window"], "end_s": router["end"]["t_s"], "final_s": router["final"]["t_s"]},
                "lateness": router["final"]["lateness"],
                "ends": router["final"]["ends"],
                "io": router["final"]["io"],
                # Queue counters once every packet has left the router (after the run's end; the
                # receivers' nstat counters are read after this, so they match these).
                "final_queues": [{"link": q["link"], **_queue(q)} for q in router["final"]["links"]],
                # Per route (host to host): packets in, out and delivered CE, once every packet has left.
                "routes": router["final"].get("routes", []),
                # Links with impairments only: what each did, once every packet has left.
                **_final_impairments(router["final"]["links"]),
                # Each queue's CE marks and drops between the end of the warm-up and the run's end.
                "after_warmup": {
                    q["link"]: {"marks": q["marks"] - q["marks_at_warmup"], "drops": _drops(q) - q["drops_at_warmup"]}
                    for q in router["end"]["links"]
                },
            },
            "flows": {f.id: _flow_extra(f, raw) for f in sc.flows},
            "nstat": {h: _nstat_subset(c) for h, c in raw["nstat"].items()},
            "tun": raw["tun"],
            "delivered_ip_bps": _delivered_rates(raw["tun_window"]),
        },
    }
    summary["emulation"]["warnings"] = warnings(sc, summary)
    return summary


def _final_impairments(links: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"final_impairments": {link: counts}}``, or nothing for a scenario without impairments."""
    found = {q["link"]: q["impairments"] for q in links if "impairments" in q}
    return {"final_impairments": found} if found else {}


#: The note an emulation with ``tcp.cc = "prague"`` carries: what Linux ran instead.
PRAGUE_LIKE_NOTE = (
    "tcp.cc = prague ran as ecnlab's Prague-like (flows {flows}; ecnlab_prague_like.bpf.c): TCP Prague's "
    "congestion response over classic ECN negotiation and DCTCP's ECE feedback, sending ECT(0) (this kernel has "
    "no AccECN and cannot send ECT(1)); the simulator's Prague uses AccECN and ECT(1), or with "
    "prague_feedback = dctcp this feedback and ECT(1)"
)


def warnings(sc: Scenario, summary: dict[str, Any]) -> list[str]:
    """What suggests the emulation did not keep up: drops at links that touch
    a host, where the scenario's bottleneck is between routers, a router delivery
    lateness whose p99 exceeds ``LATENESS_WARN_US``, and CPU steal beyond
    :data:`~ecnlab.emu.steal.PEAK_WARN_S` within one second; and, as ``ecnlab run`` says it,
    congestion signals that happened away from the configured bottleneck (``bottleneck.py``); and
    what ``tcp.cc = "prague"`` ran as (:data:`PRAGUE_LIKE_NOTE`)."""
    prague = [f.id for f in sc.flows if f.tcp.cc == "prague"]
    out = [PRAGUE_LIKE_NOTE.format(flows=", ".join(prague))] if prague else []
    hosts = {n.name for n in sc.topology.nodes if n.kind == "host"}
    access = {link.name for link in sc.topology.links if link.src in hosts or link.dst in hosts}
    core = any(link.name not in access for link in sc.topology.links)
    drops = {
        q["link"]: q["early_drops"] + q["forced_drops"] + q["overflow_drops"]
        for q in summary["queues"]
        if q["link"] in access
    }
    dropped = {k: v for k, v in drops.items() if v}
    if core and dropped:
        where = ", ".join(f"{k} ({v})" for k, v in sorted(dropped.items()))
        out.append(
            f"{sum(dropped.values())} packets were dropped at links that touch a host ({where}), not at the "
            "queues between routers: bursts from the hosts' TUN devices, not the scenario's bottleneck"
        )
    out += signal_warnings(sc.topology, summary["queues"])
    lat = summary["emulation"]["router"]["lateness"]
    if (lat.get("p99_us") or 0) > LATENESS_WARN_US:
        out.append(
            f"the router delivered packets late (p99 {lat['p99_us']:.0f} µs > {LATENESS_WARN_US:.0f} µs): "
            "it may not have kept up with the configured rates"
        )
    steal = summary["emulation"].get("cpu_steal")
    if steal and steal["peak_s"] > PEAK_WARN_S:
        out.append(
            f"the hypervisor took {steal['total_s']:.2f} s of CPU time from this machine during the run "
            f"(up to {steal['peak_s']:.2f} s within one second > {PEAK_WARN_S:g} s): router and hosts stopped "
            "together, so RTTs, bursts and the queue's signals may not be the network's; rerun when the host is quiet"
        )
    return out


def _drops(q: dict[str, Any]) -> int:
    """Every drop a queue made (the engine's ``marks_drops``: early, forced, overflow, at dequeue)."""
    return int(q["early_drops"] + q["forced_drops"] + q["overflow_drops"])


def _queue(link: dict[str, Any]) -> dict[str, Any]:
    """A router queue's counters as the simulator names them (sojourn percentiles flattened)."""
    out = {k: link[k] for k in keys("queue") if k in link and k != "link"}
    sojourn = link.get("sojourn") or {}
    out.update({f"sojourn_{k}": sojourn.get(k) for k in SOJOURN_KEYS})
    if link.get("classes"):
        out["classes"] = link["classes"]
    return out


def _per_host(sc: Scenario, f: Flow, host: str, counters: dict[str, int], key: str) -> int | None:
    """A namespace counter, attributed to ``f`` only when ``f`` is the host's only flow."""
    if sum(1 for g in sc.flows if host in (g.src, g.dst)) != 1:
        return None
    return int(counters.get(key, 0))


def _flow(sc: Scenario, k: int, f: Flow, raw: dict[str, Any]) -> dict[str, Any]:
    snd, rcv = raw["ends"][(f.id, "src")], raw["ends"][(f.id, "dst")]
    infos = snd["infos"]
    span = (sc.duration_ns - sc.warmup_ns) / 1e9
    start = flow_start_ns(sc.seed, k, f) / 1e9  # as the run started it (emu/run.py)
    done = _completion(f, snd, rcv)
    if done is not None and done > start:  # the simulator's: a finished flow's bytes over its own time
        goodput = rcv["bytes_at_end"] * 8 / (done - start)
    else:
        goodput = (rcv["bytes_at_end"] - rcv["bytes_at_warmup"]) * 8 / span
    nst_src, nst_dst = raw["nstat"][f.src], raw["nstat"][f.dst]
    return record("flow", {
        "id": f.id,
        "kind": f.app.kind,
        "src": f.src,
        "dst": f.dst,
        "ecn": f.tcp.ecn,
        "ecn_negotiated": bool(infos) and all(i["ecn"] for i in infos),
        "cc": f.tcp.cc,  # the kernel's, set per socket (traffic.py)
        "recovery": f.tcp.recovery,
        "start_s": start,
        "connections": max(snd["connections"], rcv["connections"]),
        "connect_time_s": (snd if f.initiator == "src" else rcv).get("connect_s"),
        "syn_retransmits": _syn_retransmits(sc, f, raw),
        "bytes_delivered": rcv["bytes_at_end"],
        "goodput_bps": goodput,
        "bytes_delivered_after_warmup": rcv["bytes_at_end"] - rcv["bytes_at_warmup"],
        "data_packets_sent": sum(i["data_segs_out"] for i in infos),
        "retransmits": sum(i["total_retrans"] for i in infos),
        "fast_retransmits": _per_host(sc, f, f.src, nst_src, "TcpExtTCPFastRetrans"),
        "timeouts": _timeouts(sc, f, nst_src, infos),
        "ecn_reductions": None,
        "ce_received": _per_host(sc, f, f.dst, nst_dst, "IpExtInCEPkts"),
        "ece_sent": None,
        "cwr_sent": None,
        "acks_sent": None,
        "completion_time_s": done,
        "transfer_times_s": [],
        "transactions": rcv["transactions"] if f.app.kind == "request_response" else None,
        "pkts_dropped": _route_drops(sc, f, raw["router"]["final"].get("routes")),
        **({"web": rcv["web"]} if f.app.kind == "web" else {}),
    })  # fmt: skip


def _syn_retransmits(sc: Scenario, f: Flow, raw: dict[str, Any]) -> int:
    """SYN and SYN-ACK retransmissions of the flow: both hosts' ``TcpExtTCPSynRetrans`` when the flow
    is each one's only flow (connections never established included), else the ends' ``TCP_INFO`` as
    each connection was established (traffic.py)."""
    counts = [_per_host(sc, f, h, raw["nstat"][h], "TcpExtTCPSynRetrans") for h in (f.src, f.dst)]
    if all(c is not None for c in counts):
        return sum(c for c in counts if c is not None)
    return sum(int(raw["ends"][(f.id, side)].get("syn_retransmits", 0)) for side in ("src", "dst"))


def _timeouts(sc: Scenario, f: Flow, nst_src: dict[str, int], infos: list[dict[str, Any]]) -> int | None:
    """The sender's retransmission timeouts: its host's ``nstat`` when the flow is the host's only one,
    else the sum of ``tcpi_total_rto`` over the sender's connections (kernels from 6.7 on; else null)."""
    own = _per_host(sc, f, f.src, nst_src, "TcpExtTCPTimeouts")
    if own is not None or not infos or any(i.get("total_rto") is None for i in infos):
        return own
    return sum(int(i["total_rto"]) for i in infos)


def _route_drops(sc: Scenario, f: Flow, routes: list[dict[str, Any]] | None) -> int | None:
    """Packets of the flow (both directions) the router dropped, from its per-route counters once idle
    (``packets_in − packets_out``); only when the flow is the only one between its two hosts."""
    pair = {f.src, f.dst}
    if routes is None or sum(1 for g in sc.flows if {g.src, g.dst} == pair) != 1:
        return None
    return sum(int(r["packets_in"] - r["packets_out"]) for r in routes if {r["from"], r["to"]} == pair)


def _completion(f: Flow, snd: dict[str, Any], rcv: dict[str, Any]) -> float | None:
    """When a flow that finished got its last byte at the sink (run time, as the simulator's)."""
    if f.app.kind == "web":  # sessions until the end, as in the simulator
        return None
    if f.app.kind == "bulk":
        done = f.app.bytes is not None and rcv["bytes_total"] >= f.app.bytes
        return float(rcv["last_byte_s"]) if done and rcv["last_byte_s"] is not None else None
    n = f.app.files if f.app.kind == "serial" else f.app.transactions
    comps = rcv["completions"]
    return float(comps[-1]) if n is not None and len(comps) >= n else None


def _flow_extra(f: Flow, raw: dict[str, Any]) -> dict[str, Any]:
    """What only the real stack shows: last TCP_INFO and `ss -tino` of the data sender."""
    snd = raw["ends"][(f.id, "src")]
    last = snd.get("last_info") or (snd["infos"][-1] if snd["infos"] else {})
    keep = (
        "rtt_us",
        "min_rtt_us",
        "snd_mss",
        "snd_cwnd",
        "snd_ssthresh",
        "delivered_ce",
        "bytes_retrans",
        "ecn_seen",
        # What limited the sender (µs of the connection's life): data outstanding at all, and of
        # that the receiver's window and the send buffer (the rest is cwnd); the peer's window.
        "busy_time_us",
        "rwnd_limited_us",
        "sndbuf_limited_us",
        "snd_wnd",
    )
    return {"ss": snd["ss"], "tcp_info": {k: last[k] for k in keep if k in last}}


def _delivered_rates(window: dict[str, Any]) -> dict[str, float]:
    """IP bit/s the router wrote into each host's TUN device between warm-up and
    the end, measured by the kernel's device counters (independent of the
    router's own accounting)."""
    out = {}
    for host, end in window["end"].items():
        start = window["warmup"][host]
        dt = end["t"] - start["t"]
        out[host] = (end["rx_bytes"] - start["rx_bytes"]) * 8 / dt if dt > 0 else 0.0
    return out


def _nstat_subset(c: dict[str, int]) -> dict[str, int]:
    keys = (
        "IpExtInCEPkts",
        "IpExtInECT0Pkts",
        "IpExtInNoECTPkts",
        "TcpRetransSegs",
        "TcpExtTCPFastRetrans",
        "TcpExtTCPTimeouts",
        "TcpExtTCPSynRetrans",
        "TcpActiveOpens",
        "TcpPassiveOpens",
        "TcpExtTCPDeliveredCE",
        "TcpOutSegs",
        "TcpInSegs",
    )
    return {k: int(c.get(k, 0)) for k in keys}


def utilization(link: dict[str, Any], rate_bps: int, stats: dict[str, Any]) -> float:
    """The simulator's utilisation from a router report: IP bytes whose transmission started
    between the end of the warm-up (the router's ``window.warmup_s``, where it noted
    ``bytes_at_warmup``) and the report (``t_s``), over that time at ``rate_bps``."""
    since = stats["window"]["warmup_s"]
    span = stats["t_s"] - since if since is not None else 0.0
    if span <= 0:
        return 0.0
    return min(1.0, float(link["bytes"] - link["bytes_at_warmup"]) * 8 / (rate_bps * span))


def _link(link: dict[str, Any], router: dict[str, Any]) -> dict[str, Any]:
    end = next(x for x in router["end"]["links"] if x["link"] == link["name"])
    return record("link", {
        "name": link["name"],
        "from": link["from"],
        "to": link["to"],
        "rate_bps": link["rate_bps"],
        "delay_s": link["delay_ns"] / 1e9,
        "packets": end["packets"],
        "bytes": end["bytes"],
        "utilization": utilization(end, link["rate_bps"], router["end"]),
        "random_losses": end["random_losses"],
        "fault_drops": 0,
        "fault_marks": 0,
        **({"impairments": end["impairments"]} if "impairments" in end else {}),
    })  # fmt: skip

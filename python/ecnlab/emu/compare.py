"""Side-by-side text of a simulated and an emulated run of one scenario, and
the short report ``ecnlab emulate`` prints. Both read summaries only.

Rows: per flow goodput, delivered bytes, retransmissions, timeouts, CE
packets received, ECN negotiated, RTT; per queue that saw traffic arrivals,
marks, drops by kind, average and maximum queue; utilisation of links
between routers. RTT: the emulation reports the sender's smoothed RTT at
the end of the run (``TCP_INFO``); the simulator reports no RTT, so its row
is the model's estimate, twice the path's propagation delay plus the
queueing delay of each link's average queue (Little: bytes / rate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ecnlab.tables import _table

__all__ = ["format_comparison", "format_emu_report"]

FLOW_ROWS = ("goodput_bps", "bytes_delivered", "retransmits", "timeouts", "ce_received", "ecn_negotiated")
QUEUE_ROWS = ("arrivals", "marks", "early_drops", "forced_drops", "overflow_drops", "avg_qlen_pkts", "max_qlen_pkts")


#: A queue is shown only if it marked or dropped, or held at least this many packets on average.
QUIET_AVG_PKTS = 0.5


def _busy(q: dict[str, Any]) -> bool:
    signals = q["marks"] + q["early_drops"] + q["forced_drops"] + q["overflow_drops"]
    return bool(signals > 0 or q["avg_qlen_pkts"] >= QUIET_AVG_PKTS)


def _diff(a: Any, b: Any) -> str:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return ""
    if a == 0:
        return "" if b == 0 else "new"
    return f"{(b - a) / abs(a) * 100:+.1f}%"


def _links_by_name(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {link["name"]: link for link in summary["links"]}


def _path(summary: dict[str, Any], src: str, dst: str) -> list[str]:
    """Links of the dumbbell-style path src → dst found in the summary (by BFS over link names)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for link in summary["links"]:
        out.setdefault(link["from"], []).append((link["to"], link["name"]))
    prev: dict[str, tuple[str, str]] = {}
    todo = [src]
    while todo:
        node = todo.pop(0)
        for nxt, name in out.get(node, []):
            if nxt not in prev and nxt != src:
                prev[nxt] = (node, name)
                todo.append(nxt)
    path, node = [], dst
    while node in prev and node != src:
        node, name = prev[node]
        path.append(name)
    return path[::-1]


def _model_rtt_ms(summary: dict[str, Any], flow: dict[str, Any]) -> float | None:
    links = _links_by_name(summary)
    queues = {q["link"]: q for q in summary["queues"]}
    names = _path(summary, flow["src"], flow["dst"]) + _path(summary, flow["dst"], flow["src"])
    if not names:
        return None
    total = 0.0
    for n in names:
        link = links[n]
        q = queues.get(n, {})
        total += link["delay_s"] + q.get("avg_qlen_bytes", 0.0) * 8 / link["rate_bps"]
    return total * 1e3


def _emu_rtt_ms(summary: dict[str, Any], flow_id: str) -> float | None:
    info = summary.get("emulation", {}).get("flows", {}).get(flow_id, {}).get("tcp_info", {})
    return info["rtt_us"] / 1e3 if "rtt_us" in info else None


def _rtt_ms(summary: dict[str, Any], flow: dict[str, Any]) -> float | None:
    if "emulation" in summary:
        return _emu_rtt_ms(summary, flow["id"])
    return _model_rtt_ms(summary, flow)


def format_comparison(sim: dict[str, Any], emu: dict[str, Any]) -> str:
    """The side-by-side table; ValueError if the runs are not of one scenario."""
    a, b = sim["scenario"], emu["scenario"]
    if a["name"] != b["name"]:
        raise ValueError(f"different scenarios: {a['name']!r} and {b['name']!r}")
    if "emulation" not in emu:
        raise ValueError("the second directory is not an emulated run (no 'emulation' key in summary.json)")
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    rows: list[Sequence[Any]] = []
    emu_flows = {f["id"]: f for f in emu["flows"]}
    for f in sim["flows"]:
        g = emu_flows.get(f["id"])
        if g is None:
            continue
        for key in FLOW_ROWS:
            rows.append([f"{f['id']} {key}", f[key], g[key], _diff(f[key], g[key])])
        ra, rb = _rtt_ms(sim, f), _rtt_ms(emu, g)
        rows.append([f"{f['id']} rtt_ms (sim: model estimate)", ra, rb, _diff(ra, rb)])
    emu_queues = {q["link"]: q for q in emu["queues"]}
    quiet = []
    for q in sim["queues"]:
        r = emu_queues.get(q["link"])
        if r is None:
            continue
        if not (_busy(q) or _busy(r)):
            quiet.append(q["link"])
            continue
        for key in QUEUE_ROWS:
            rows.append([f"{q['link']} {key}", q[key], r[key], _diff(q[key], r[key])])
    emu_links = _links_by_name(emu)
    for link in sim["links"]:
        other = emu_links.get(link["name"])
        if other is not None and link["name"][0].isupper() and link["name"].split("->")[1][:1].isupper():
            rows.append([f"{link['name']} utilization", link["utilization"], other["utilization"], ""])
    head = [
        f"{a['name']}: simulated (seed {sim['seed']}) vs emulated (seed {emu['seed']}, kernel "
        f"{emu['emulation'].get('kernel', '?')})"
    ]
    if quiet:
        head.append(f"queues with no marks or drops and an average below {QUIET_AVG_PKTS} packets: {', '.join(quiet)}")
    if differ:
        head.append(f"note: the resolved scenarios differ in: {', '.join(differ)}")
    lat = emu["emulation"]["router"]["lateness"]
    head.append(
        f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs, "
        f"max {lat['max_us']:.0f} µs over {lat['samples']:,} packets"
    )
    return "\n".join([*head, "", *_table(["metric", "simulated", "emulated", "emu vs sim"], rows)])


def format_emu_report(summary: dict[str, Any]) -> str:
    """The short report of one emulated run."""
    sc = summary["scenario"]
    rows: list[Sequence[Any]] = [
        [f["id"], f["cc"], f["goodput_bps"] / 1e6, f["retransmits"], f["ce_received"], f["ecn_negotiated"]]
        for f in summary["flows"]
    ]
    out = [f"{sc['name']}: emulated {summary['sim']['sim_time_s']:g} s in {summary['sim']['wall_s']:.1f} s", ""]
    out += _table(["flow", "cc", "goodput Mbit/s", "retransmits", "CE received", "ECN"], rows)
    qrows: list[Sequence[Any]] = [
        [
            q["link"],
            q["arrivals"],
            q["marks"],
            q["early_drops"] + q["forced_drops"],
            q["overflow_drops"],
            q["avg_qlen_pkts"],
        ]
        for q in summary["queues"]
        if q["arrivals"]
    ]
    out += ["", *_table(["queue", "arrivals", "marks", "AQM drops", "overflow", "avg pkts"], qrows)]
    lat = summary["emulation"]["router"]["lateness"]
    out += ["", f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs"]
    return "\n".join(out)

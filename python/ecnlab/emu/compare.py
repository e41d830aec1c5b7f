"""Side-by-side text of two runs — a simulated and an emulated run of one
scenario, or any two (ECN on vs off, two queues) — and the short report
``ecnlab emulate`` prints. Both read summaries only.

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

from ecnlab.tables import CLASS_HEADS, _table, class_rows

__all__ = ["format_comparison", "format_emu_report"]

FLOW_ROWS = ("goodput_bps", "bytes_delivered", "retransmits", "timeouts", "ce_received", "ecn_negotiated")
QUEUE_ROWS = ("arrivals", "marks", "early_drops", "forced_drops", "overflow_drops", "avg_qlen_pkts", "max_qlen_pkts")
SOJOURN_ROWS = ("sojourn_p50_ms", "sojourn_p99_ms")


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


def _kind(summary: dict[str, Any]) -> str:
    return "emulated" if "emulation" in summary else "simulated"


def format_comparison(a_run: dict[str, Any], b_run: dict[str, Any]) -> str:
    """Two runs side by side: a simulation beside an emulation of one scenario, or any two runs
    (ECN on against off, two seeds, two queues); rows for the flows and queues both have."""
    a, b = a_run["scenario"], b_run["scenario"]
    ka, kb = _kind(a_run), _kind(b_run)
    sim_vs_emu = (ka, kb) == ("simulated", "emulated") and a["name"] == b["name"]
    cols = ["simulated", "emulated", "emu vs sim"] if sim_vs_emu else ["A", "B", "B vs A"]
    rows: list[Sequence[Any]] = []
    b_flows = {f["id"]: f for f in b_run["flows"]}
    rtt_note = " (sim: model estimate)" if "simulated" in (ka, kb) else ""
    for f in a_run["flows"]:
        g = b_flows.get(f["id"])
        if g is None:
            continue
        for key in FLOW_ROWS:
            rows.append([f"{f['id']} {key}", f[key], g[key], _diff(f[key], g[key])])
        ra, rb = _rtt_ms(a_run, f), _rtt_ms(b_run, g)
        rows.append([f"{f['id']} rtt_ms{rtt_note}", ra, rb, _diff(ra, rb)])
    b_queues = {q["link"]: q for q in b_run["queues"]}
    quiet = []
    for q in a_run["queues"]:
        r = b_queues.get(q["link"])
        if r is None:
            continue
        if not (_busy(q) or _busy(r)):
            quiet.append(q["link"])
            continue
        for key in QUEUE_ROWS:
            rows.append([f"{q['link']} {key}", q[key], r[key], _diff(q[key], r[key])])
        for key in SOJOURN_ROWS:
            if q.get(key) is not None or r.get(key) is not None:
                rows.append([f"{q['link']} {key}", q.get(key), r.get(key), _diff(q.get(key), r.get(key))])
    b_links = _links_by_name(b_run)
    for link in a_run["links"]:
        other = b_links.get(link["name"])
        if other is not None and link["name"][0].isupper() and link["name"].split("->")[1][:1].isupper():
            rows.append([f"{link['name']} utilization", link["utilization"], other["utilization"], ""])
    if sim_vs_emu:
        head = [
            f"{a['name']}: simulated (seed {a_run['seed']}) vs emulated (seed {b_run['seed']}, kernel "
            f"{b_run['emulation'].get('kernel', '?')})"
        ]
    else:
        head = [f"A: {a['name']}, {ka} (seed {a_run['seed']})", f"B: {b['name']}, {kb} (seed {b_run['seed']})"]
    if quiet:
        head.append(f"queues with no marks or drops and an average below {QUIET_AVG_PKTS} packets: {', '.join(quiet)}")
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and k != "name")
    if differ:
        head.append(f"note: the resolved scenarios differ in: {', '.join(differ)}")
    for run in (a_run, b_run):
        if "emulation" in run:
            lat = run["emulation"]["router"]["lateness"]
            head.append(
                f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs, "
                f"max {lat['max_us']:.0f} µs over {lat['samples']:,} packets"
            )
    return "\n".join([*head, "", *_table(["metric", *cols], rows)])


def format_emu_report(summary: dict[str, Any]) -> str:
    """The short report of one emulated run: flows, each queue that saw arrivals (marks, drops, the
    average queue, mean, p99 and peak sojourn), DualPI2's classes, the router's lateness."""
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
            q["sojourn_mean_ms"],
            q["sojourn_p99_ms"],
            q["sojourn_max_ms"],
        ]
        for q in summary["queues"]
        if q["arrivals"]
    ]
    qheads = ["queue", "arrivals", "marks", "AQM drops", "overflow", "avg pkts", "mean delay ms", "p99", "max"]
    out += ["", *_table(qheads, qrows)]
    classes = class_rows([q for q in summary["queues"] if q["arrivals"]])
    out += ["", *_table(CLASS_HEADS, classes)] if classes else []
    lat = summary["emulation"]["router"]["lateness"]
    out += ["", f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs"]
    return "\n".join(out)

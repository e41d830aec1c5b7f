"""Side-by-side text of runs — a simulated and an emulated run of one scenario, or any others
(ECN on vs off, two queues, two TCP personalities) — and the short report ``ecnlab emulate``
prints. Both read summaries only; docs/emulation.md, "Comparing runs", defines every row.

Rows: per flow every run has, goodput, delivered bytes, retransmissions, timeouts, CE packets
received, ECN negotiated, RTT; per queue every run has that saw traffic, arrivals, marks, drops
by kind, average and maximum queue, sojourn percentiles; utilisation of links between routers.
Two runs get a column of B against A; more get a column each (A, B, C, ...). RTT: the emulation
reports the sender's smoothed RTT at the end of the run (``TCP_INFO``); the simulator's summary
has no RTT, so its row is the model's estimate, twice the path's propagation delay plus the
queueing delay of each link's average queue (Little: bytes / rate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ecnlab.tables import CLASS_HEADS, _table, class_rows

__all__ = ["format_comparison", "format_comparisons", "column_names", "format_emu_report"]

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


def _each(records: Sequence[dict[str, dict[str, Any]]], key: str) -> list[dict[str, Any]] | None:
    """The record named ``key`` of every run, or None when a run has none."""
    found = [r.get(key) for r in records]
    return None if any(f is None for f in found) else [f for f in found if f is not None]


def _rows(runs: Sequence[dict[str, Any]]) -> tuple[list[Sequence[Any]], list[str]]:
    """(rows ``[metric, value per run...]``, queues left out as quiet): the flows and queues every
    run has, the queues only where one of the runs marked, dropped or queued."""
    first = runs[0]
    rows: list[Sequence[Any]] = []
    flows = [{f["id"]: f for f in run["flows"]} for run in runs]
    rtt_note = " (sim: model estimate)" if any(_kind(r) == "simulated" for r in runs) else ""
    for f in first["flows"]:
        same = _each(flows, f["id"])
        if same is None:
            continue
        for key in FLOW_ROWS:
            rows.append([f"{f['id']} {key}", *(g[key] for g in same)])
        rows.append([f"{f['id']} rtt_ms{rtt_note}", *(_rtt_ms(r, g) for r, g in zip(runs, same, strict=True))])
    queues = [{q["link"]: q for q in run["queues"]} for run in runs]
    quiet = []
    for q in first["queues"]:
        same = _each(queues, q["link"])
        if same is None:
            continue
        if not any(_busy(r) for r in same):
            quiet.append(q["link"])
            continue
        for key in QUEUE_ROWS:
            rows.append([f"{q['link']} {key}", *(r[key] for r in same)])
        for key in SOJOURN_ROWS:
            if any(r.get(key) is not None for r in same):
                rows.append([f"{q['link']} {key}", *(r.get(key) for r in same)])
    links = [_links_by_name(run) for run in runs]
    for link in first["links"]:
        same = _each(links, link["name"])
        if same is not None and _between_routers(link["name"]):
            rows.append([f"{link['name']} utilization", *(o["utilization"] for o in same)])
    return rows, quiet


def _between_routers(name: str) -> bool:
    """A link between routers (``R1->R2``: routers are named with a capital letter)."""
    return name[0].isupper() and name.split("->")[1][:1].isupper()


def _notes(runs: Sequence[dict[str, Any]], quiet: list[str]) -> list[str]:
    """The lines under the runs' names: quiet queues, differing scenario keys, router lateness."""
    out = []
    if quiet:
        out.append(f"queues with no marks or drops and an average below {QUIET_AVG_PKTS} packets: {', '.join(quiet)}")
    scenarios = [r["scenario"] for r in runs]
    keys = dict.fromkeys(k for sc in scenarios for k in sc)
    differ = sorted(k for k in keys if k != "name" and any(sc.get(k) != scenarios[0].get(k) for sc in scenarios))
    if differ:
        out.append(f"note: the resolved scenarios differ in: {', '.join(differ)}")
    for run in runs:
        if "emulation" in run:
            lat = run["emulation"]["router"]["lateness"]
            out.append(
                f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs, "
                f"max {lat['max_us']:.0f} µs over {lat['samples']:,} packets"
            )
    return out


def format_comparison(a_run: dict[str, Any], b_run: dict[str, Any]) -> str:
    """Two runs side by side: a simulation beside an emulation of one scenario, or any two runs
    (ECN on against off, two seeds, two queues); rows for the flows and queues both have."""
    a, b = a_run["scenario"], b_run["scenario"]
    ka, kb = _kind(a_run), _kind(b_run)
    sim_vs_emu = (ka, kb) == ("simulated", "emulated") and a["name"] == b["name"]
    cols = ["simulated", "emulated", "emu vs sim"] if sim_vs_emu else ["A", "B", "B vs A"]
    rows, quiet = _rows([a_run, b_run])
    rows = [[*row, "" if row[0].endswith(" utilization") else _diff(row[1], row[2])] for row in rows]
    if sim_vs_emu:
        head = [
            f"{a['name']}: simulated (seed {a_run['seed']}) vs emulated (seed {b_run['seed']}, kernel "
            f"{b_run['emulation'].get('kernel', '?')})"
        ]
    else:
        head = [f"A: {a['name']}, {ka} (seed {a_run['seed']})", f"B: {b['name']}, {kb} (seed {b_run['seed']})"]
    head += _notes([a_run, b_run], quiet)
    return "\n".join([*head, "", *_table(["metric", *cols], rows)])


def column_names(n: int) -> list[str]:
    """A, B, C, ... for the runs compared (AA, AB, ... past Z)."""
    letters = [chr(ord("A") + i) for i in range(26)]
    return [letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26] for i in range(n)]


def format_comparisons(runs: Sequence[dict[str, Any]], sources: Sequence[str]) -> str:
    """Any number of runs (simulations, emulations, runs of sweeps) as one table, a column each,
    named A, B, C, ... in the lines above it (with the directory each came from)."""
    names = column_names(len(runs))
    head = [
        f"{n}: {src}: {r['scenario']['name']}, {_kind(r)} (seed {r['seed']}"
        + (f", kernel {r['emulation'].get('kernel', '?')})" if "emulation" in r else ")")
        for n, src, r in zip(names, sources, runs, strict=True)
    ]
    rows, quiet = _rows(runs)
    head += _notes(runs, quiet)
    return "\n".join([*head, "", *_table(["metric", *names], rows)])


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
    classes = class_rows([q for q in summary["queues"] if q["arrivals"]], after_warmup=False)
    out += ["", *_table(CLASS_HEADS, classes)] if classes else []
    lat = summary["emulation"]["router"]["lateness"]
    out += ["", f"router delivery lateness: median {lat['p50_us']:.0f} µs, p99 {lat['p99_us']:.0f} µs"]
    return "\n".join(out)

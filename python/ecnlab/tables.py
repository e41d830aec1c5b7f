"""The short text report ``ecnlab run`` prints, made from a summary dict (and the node kinds, where known)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ecnlab.bottleneck import signals

__all__ = ["format_report", "class_rows"]

MAX_QUEUE_ROWS = 12
#: The DualPI2 per-class table (``classes`` of a queue record): its headings.
CLASS_HEADS = ("class", "dequeued", "marks", "step marks", "drops", "mean delay ms", "p99 delay ms", "max delay ms")
#: Every count the report prints is the summary's ``*_after_warmup`` value (docs/scenario.md, "The warm-up rule"),
#: beside goodput and delays, which count after the warm-up too.
AFTER = "_after_warmup"


def _after(record: Mapping[str, Any], key: str) -> Any:
    """``record``'s count of ``key`` after the warm-up (None where the summary has none: emulated runs)."""
    return record.get(key + AFTER)


def _table(headers: Sequence[str], rows: list[Sequence[Any]]) -> list[str]:
    """Aligned text rows: the first column left-aligned, the others right-aligned, two spaces apart."""
    return _column_table(headers, list(zip(*rows, strict=True)) if rows else [() for _ in headers])


def _column_table(headers: Sequence[str], values: Sequence[Sequence[Any]]) -> list[str]:
    """:func:`_table` of its columns, built column by column (a run's flow table has a row per flow)."""
    columns = [[str(h), *_cells(column)] for h, column in zip(headers, values, strict=True)]
    widths = [max(map(len, column)) for column in columns]
    padded = [[c.ljust(widths[0]) for c in columns[0]]]
    padded += [[c.rjust(w) for c in column] for column, w in zip(columns[1:], widths[1:], strict=True)]
    return ["  ".join(cells).rstrip() for cells in zip(*padded, strict=True)]


def _cells(values: Sequence[Any]) -> list[str]:
    """A column's cells: ``-`` for None, floats to 3 decimals, anything else as ``str``."""
    return ["-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v) for v in values]


def _node_kinds(summary: dict[str, Any]) -> dict[str, str]:
    """Node kinds, from the resolved scenario stored in the summary."""
    from ecnlab.config import parse_scenario

    try:
        sc = parse_scenario(summary["scenario"])
    except Exception:  # an older or hand-edited summary: fall back to names
        return {}
    return {n.name: n.kind for n in sc.topology.nodes}


def _groups(groups: list[dict[str, Any]]) -> list[str]:
    """Large flow groups, one line each (their flows are in flows.parquet)."""
    if not groups:
        return []
    rows: list[Sequence[Any]] = [
        [
            g["name"],
            g["flows"],
            g["goodput_bps_mean"] / 1e6,
            g["goodput_bps_p10"] / 1e6,
            g["goodput_bps_p90"] / 1e6,
            _after(g, "retransmits"),
            _after(g, "timeouts"),
            _after(g, "ecn_reductions"),
        ]
        for g in groups
    ]
    heads = ["group", "flows", "mean Mbit/s", "p10", "p90", "retransmits", "timeouts", "ECN reductions"]
    return [*_table(heads, rows), "(each flow of a group: flows.parquet)"]


def _on_report(q: dict[str, Any], links: Mapping[str, dict[str, Any]], is_router: Callable[[str], bool]) -> bool:
    """A hop of the report: a router's queue that saw arrivals, or a host's that marked or dropped."""
    if not q["arrivals"] or q["link"] not in links:
        return False
    return is_router(links[q["link"]]["from"]) or signals(q) > 0


def _queue_table(queues: list[dict[str, Any]]) -> list[str]:
    """One row per hop: arrivals, marks and drops by reason, the average queue, and the sojourn of the
    packets that left (mean, p99, peak; ``-`` where none is recorded: a host's queue, no departure)."""
    # A "quenches" column only when a queue sent ICMP Source Quenches (RED signal = "quench").
    quench = any(q.get("quenches") for q in queues)
    heads = [
        "queue",
        "arrivals",
        "marks",
        *(["quenches"] if quench else []),
        "early drops",
        "forced drops",
        "overflow drops",
        "avg qlen pkts",
        "mean delay ms",
        "p99 delay ms",
        "max delay ms",
    ]
    rows: list[Sequence[Any]] = [
        [
            q["link"],
            _after(q, "arrivals"),
            _after(q, "marks"),
            *([_after(q, "quenches")] if quench else []),
            _after(q, "early_drops"),
            _after(q, "forced_drops"),
            _after(q, "overflow_drops"),
            q["avg_qlen_pkts"],
            q.get("sojourn_mean_ms"),
            q.get("sojourn_p99_ms"),
            q.get("sojourn_max_ms"),
        ]
        for q in queues
    ]
    return _table(heads, rows)


def class_rows(queues: list[dict[str, Any]], *, after_warmup: bool = True) -> list[Sequence[Any]]:
    """Rows of :data:`CLASS_HEADS`, one per class of each queue that has classes (DualPI2: L, then C):
    the counts after the warm-up, or (``after_warmup=False``: the emulator's report, whose router
    counts over the run) the whole run's."""
    rows: list[Sequence[Any]] = []
    for q in queues:
        for c in q.get("classes") or []:
            sojourn = c.get("sojourn") or {}
            suffix = AFTER if after_warmup else ""
            rows.append([
                f"{q['link']} {c['name']}",
                c.get("dequeued" + suffix),
                c.get("marks" + suffix),
                c.get("step_marks" + suffix),
                c.get("drops" + suffix),
                sojourn.get("mean_ms"),
                sojourn.get("p99_ms"),
                sojourn.get("max_ms"),
            ])  # fmt: skip
    return rows


def _impairments(links: list[dict[str, Any]]) -> list[str]:
    """What each path impairment did (links with ``[[impairments]]`` only; nothing without)."""
    rows: list[Sequence[Any]] = [
        [lk["name"], m["action"], m["rewritten"], m["dropped"]] for lk in links for m in lk.get("impairments", [])
    ]
    return ["", *_table(["impaired link", "action", "rewritten", "dropped"], rows)] if rows else []


def format_report(summary: dict[str, Any], node_kinds: Mapping[str, str] | None = None) -> str:
    """Flows, each hop (router queues with arrivals, host queues that marked or dropped; DualPI2's
    classes), the warnings the run carries (``bottleneck.py``), router-to-router link utilisation,
    incast queries, fairness.

    ``node_kinds`` (node name → ``"host"``/``"router"``) comes from the scenario when the caller has
    it; without it the resolved scenario stored in the summary is parsed again for them."""
    sc = summary["scenario"]
    sim = summary["sim"]
    kinds = _node_kinds(summary) if node_kinds is None else node_kinds
    links = {link["name"]: link for link in summary["links"]}

    def is_router(name: str) -> bool:
        return kinds.get(name) == "router"

    out = [
        f"{sc['name']}: seed {summary['seed']}, {sim['sim_time_s']:g} s simulated in {sim['wall_s']:.2f} s "
        f"({sim['events']:,} events, {sim['packets_forwarded']:,} packets forwarded)",
        "",
    ]
    warmup = float(sc.get("warmup") or 0)
    if warmup > 0:
        note = "goodput, counts and sojourn times (whole-run counts in summary.json)"
        out.append(f"after the {warmup:g} s warm-up: {note}")
        out.append("")
    flows = summary["flows"]
    if flows:  # none when every flow is in a large group
        counts = [[f.get(key + AFTER) for f in flows] for key in ("retransmits", "timeouts", "ecn_reductions")]
        out += _column_table(
            ["flow", "goodput Mbit/s", "retransmits", "timeouts", "ECN reductions"],
            [[f["id"] for f in flows], [f["goodput_bps"] / 1e6 for f in flows], *counts],
        )
    groups = _groups(summary.get("groups", []))
    out += ([""] if groups and summary["flows"] else []) + groups
    queues = [q for q in summary["queues"] if _on_report(q, links, is_router)]
    quiet: list[dict[str, Any]] = []
    if len(queues) > MAX_QUEUE_ROWS:  # keep the report short: fold queues that neither marked nor dropped
        busy = [bool(signals(q)) or is_router(links[q["link"]]["to"]) for q in queues]
        quiet = [q for q, b in zip(queues, busy, strict=True) if not b]
        queues = [q for q, b in zip(queues, busy, strict=True) if b]
    if queues:
        out += ["", *_queue_table(queues)]
    if quiet:
        out.append(f"(+{len(quiet)} other router queues with arrivals but no marks or drops)")
    classes = class_rows(queues)
    if classes:
        out += ["", *_table(CLASS_HEADS, classes)]
    warnings = summary.get("warnings", [])
    out += [""] * bool(warnings) + [f"warning: {w}" for w in warnings]
    core = [link for link in summary["links"] if is_router(link["from"]) and is_router(link["to"])]
    if core:
        out.append("")
        out += _table(["link", "utilisation"], [[link["name"], link["utilization"]] for link in core])
    out += _impairments(summary["links"])
    queries = summary.get("queries", [])
    if queries:
        out.append("")
        out += _table(
            [
                "incast",
                "responders",
                "queries",
                "completed",
                "with timeout",
                "QCT mean ms",
                "p50 ms",
                "p99 ms",
                "max ms",
            ],
            [
                [
                    q["name"],
                    q["responders"],
                    q["queries_issued"],
                    q["queries_completed"],
                    q["queries_with_timeout"],
                    *(
                        None if q[k] is None else q[k] * 1e3
                        for k in ("qct_mean_s", "qct_p50_s", "qct_p99_s", "qct_max_s")
                    ),
                ]
                for q in queries
            ],
        )
    fairness = summary.get("fairness")
    out += ["", f"Jain fairness (bulk flows): {'-' if fairness is None else f'{fairness:.4f}'}"]
    return "\n".join(out)

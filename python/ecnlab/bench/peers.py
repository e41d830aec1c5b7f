"""``ecnlab bench peers``: ecnlab, ns-2 and ns-3 on the same cases, side by side.

For every case the tools run in turn, the order rotating each repetition so
that no tool always runs on a warm or cold machine; each tool runs ``reps``
times and the table shows medians. ecnlab runs twice per case, once with the
``ns2`` RED personality (compared with ns-2) and once with ``ns3`` (compared
with ns-3: the PyPI bindings, ns-3.44, and the same scenario in C++ against
Debian's ns-3.37). Ratios are ecnlab / peer: wall time (ecnlab's whole
process against ns-2's whole process; ecnlab's run against ns-3's
``Simulator::Run``, its set-up reported apart), bottleneck packets per
wall-second, and peak memory.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecnlab.bench.cases import CASES, QUICK, Case, scenario_dict
from ecnlab.bench.ecnlab_peer import compile_bytecode, run_ecnlab
from ecnlab.bench.measure import PeerFailed
from ecnlab.bench.ns2 import ns_binary, run_ns2
from ecnlab.bench.ns3 import ns3_available, run_ns3
from ecnlab.bench.ns3cxx import ns3cxx_binary, run_ns3cxx
from ecnlab.bench.peerspec import peer_params
from ecnlab.bench.record import machine_name
from ecnlab.config import load_scenario

__all__ = ["run_bench", "machine_name", "format_case"]

TOOLS = ("ecnlab[ns2]", "ns-2", "ecnlab[ns3]", "ns-3", "ns-3 C++")
# (ecnlab column, peer, the time they are compared on)
PAIRINGS = (("ecnlab[ns2]", "ns-2", "wall_s"), ("ecnlab[ns3]", "ns-3", "run_s"), ("ecnlab[ns3]", "ns-3 C++", "run_s"))
# The slow peers stop repeating a case after one run longer than this.
SLOW_RUN_S = 300.0


@dataclass
class CaseResult:
    case: Case
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def _runners(case: Case, work: Path, tools: tuple[str, ...]) -> dict[str, Callable[[int], dict[str, Any]]]:
    sc = {p: scenario_dict(case, p) for p in ("ns2", "ns3")}
    params = {
        "ns-2": peer_params(load_scenario(sc["ns2"]), "ns-2"),
        "ns-3": peer_params(load_scenario(sc["ns3"]), "ns-3"),
    }
    runners: dict[str, Callable[[int], dict[str, Any]]] = {
        "ecnlab[ns2]": lambda rep: run_ecnlab(sc["ns2"], work / f"ecnlab-ns2-{rep}"),
        "ns-2": lambda rep: run_ns2(params["ns-2"], work / f"ns2-{rep}"),
        "ecnlab[ns3]": lambda rep: run_ecnlab(sc["ns3"], work / f"ecnlab-ns3-{rep}"),
        "ns-3": lambda rep: run_ns3(params["ns-3"], work / f"ns3-{rep}"),
        "ns-3 C++": lambda rep: run_ns3cxx(params["ns-3"], work / f"ns3cxx-{rep}"),
    }
    return {t: runners[t] for t in tools}


def run_case(case: Case, reps: int, tools: tuple[str, ...], log: Callable[[str], None]) -> CaseResult:
    res = CaseResult(case)
    with tempfile.TemporaryDirectory(prefix=f"ecnlab-bench-{case.name}-") as tmp:
        runners = _runners(case, Path(tmp), tools)
        for rep in range(reps):
            order = list(runners)[rep % len(runners) :] + list(runners)[: rep % len(runners)]
            for tool in order:
                if tool in res.skipped:
                    continue
                try:
                    r = runners[tool](rep)
                except PeerFailed as e:
                    res.skipped[tool] = str(e)
                    log(f"  case {case.name} {tool}: {e}")
                    continue
                res.runs.setdefault(tool, []).append(r)
                log(f"  case {case.name} rep {rep + 1} {tool}: wall {r['wall_s']:.2f} s")
                if r["wall_s"] > SLOW_RUN_S and tool.startswith("ns"):
                    res.skipped[tool] = f"one run took {r['wall_s']:.0f} s; not repeated"
    return res


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    vals = [float(r[key]) for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarise(res: CaseResult) -> dict[str, Any]:
    """Medians per tool plus the ecnlab/peer ratios."""
    keys = ("wall_s", "run_s", "setup_s", "peak_rss_mib", "bottleneck_packets", "utilisation", "jain") + (
        "marks",
        "early_drops",
        "forced_drops",
        "overflow_drops",
        "retransmits",
        "timeouts",
    )
    tools: dict[str, dict[str, Any]] = {}
    for tool, runs in res.runs.items():
        med = {k: _median(runs, k) for k in keys}
        pk, wall = med["bottleneck_packets"], med["wall_s"]
        med["pkts_per_wall_s"] = pk / wall if pk and wall else None
        med["reps"] = len(runs)
        tools[tool] = med
    ratios: dict[str, dict[str, float | None]] = {}
    for mine, peer, time_key in PAIRINGS:
        if mine in tools and peer in tools:
            a, b = tools[mine], tools[peer]
            ratios[f"ecnlab/{peer}"] = {
                "time": _ratio(a[time_key], b[time_key]),
                "speedup": _ratio(b[time_key], a[time_key]),
                "pkts_per_wall_s": _ratio(a["pkts_per_wall_s"], b["pkts_per_wall_s"]),
                "peak_memory": _ratio(a["peak_rss_mib"], b["peak_rss_mib"]),
            }
    return {"case": res.case.name, "label": res.case.label, "tools": tools, "ratios": ratios, "skipped": res.skipped}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _fmt(v: Any, nd: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.{nd}g}" if abs(v) < 1e4 else f"{v:.0f}"
    return f"{int(v)}"


def format_case(s: dict[str, Any]) -> str:
    """A plain-text table of one case (what the command prints)."""
    rows = [
        ("wall s (whole process)", "wall_s"),
        ("set-up s (ns-3 import + build)", "setup_s"),
        ("run s (ns-3 Simulator::Run)", "run_s"),
        ("bottleneck packets", "bottleneck_packets"),
        ("packets / wall-s", "pkts_per_wall_s"),
        ("peak memory MiB", "peak_rss_mib"),
        *BEHAVIOUR,
    ]
    tools = list(s["tools"])
    lines = [f"case ({s['case']}) {s['label']}"]
    lines.append(f"  {'':32}" + "".join(f"{t:>14}" for t in tools))
    for title, key in rows:
        lines.append(f"  {title:32}" + "".join(f"{_fmt(s['tools'][t].get(key)):>14}" for t in tools))
    for name, r in s["ratios"].items():
        lines.append(
            f"  {name}: speed-up {_fmt(r['speedup'])}x, packets/wall-s ratio {_fmt(r['pkts_per_wall_s'])}, "
            f"memory ratio {_fmt(r['peak_memory'])}"
        )
    for tool, why in s["skipped"].items():
        lines.append(f"  {tool}: {why}")
    return "\n".join(lines)


def run_bench(
    cases: list[str] | None, quick: bool, reps: int, log: Callable[[str], None], *, with_ns3: bool = True
) -> dict[str, Any]:
    """Runs the cases and returns a JSON-able report (machine, per-case summaries)."""
    names = cases or list(QUICK if quick else CASES)
    tools = tuple(t for t in TOOLS if with_ns3 or not (t.endswith("ns3]") or t.startswith("ns-3")))
    if ns_binary() is None:
        log("ns-2 is not installed (Debian package ns2): its column is skipped")
        tools = tuple(t for t in tools if t != "ns-2")
    if with_ns3 and not ns3_available():
        log("ns-3 Python bindings are not installed: its column is skipped (ecnlab bench peers installs ecnlab[peers])")
        tools = tuple(t for t in tools if t != "ns-3")
    if "ns-3 C++" in tools:
        try:
            ns3cxx_binary()  # compile before anything is timed; says why it cannot (ns3cxx_missing)
        except PeerFailed as e:
            log(f"ns-3 C++ column skipped: {e}")
            tools = tuple(t for t in tools if t != "ns-3 C++")
    compile_bytecode()
    out: dict[str, Any] = {"machine": machine_name(), "reps": reps, "cases": []}
    for name in names:
        log(f"case ({name}) {CASES[name].label}")
        summary = summarise(run_case(CASES[name], reps, tools, log))
        out["cases"].append(summary)
        log(format_case(summary))
    return out


def format_markdown(report: dict[str, Any]) -> str:
    """The README tables: speed (medians, ecnlab/peer speed-ups), then behaviour side by side."""
    speed = [
        "| case | ecnlab wall s | ns-2 wall s | speed-up vs ns-2 | ecnlab run s | ns-3 run s (set-up s) "
        "| speed-up vs ns-3 run | ns-3 C++ run s (wall s) | speed-up vs ns-3 C++ run "
        "| packets/wall-s ecnlab / ns-2 / ns-3 / ns-3 C++ | peak MiB ecnlab / ns-2 / ns-3 / ns-3 C++ |",
        "|" + "---|" * 11,
    ]
    for c in report["cases"]:
        t, r = c["tools"], c["ratios"]
        e2, n2, e3, n3, nc = (t.get(k, {}) for k in ("ecnlab[ns2]", "ns-2", "ecnlab[ns3]", "ns-3", "ns-3 C++"))
        sp2, sp3, spc = (r.get(f"ecnlab/{k}", {}).get("speedup") for k in ("ns-2", "ns-3", "ns-3 C++"))
        n3_run = f"{_fmt(n3.get('run_s'))} ({_fmt(n3.get('setup_s'))})" if n3 else "-"
        nc_run = f"{_fmt(nc.get('run_s'))} ({_fmt(nc.get('wall_s'))})" if nc else "-"
        pps = " / ".join(_fmt(x.get("pkts_per_wall_s")) for x in (e2, n2, n3, nc))
        mem = " / ".join(_fmt(x.get("peak_rss_mib")) for x in (e2, n2, n3, nc))
        speed.append(
            f"| ({c['case']}) | {_fmt(e2.get('wall_s'))} | {_fmt(n2.get('wall_s'))} | {_fmt(sp2)}x "
            f"| {_fmt(e3.get('run_s'))} | {n3_run} | {_fmt(sp3)}x | {nc_run} | {_fmt(spc)}x | {pps} | {mem} |"
        )
    return "\n".join(speed) + "\n\n" + format_behaviour(report)


BEHAVIOUR = (
    ("utilisation", "utilisation"),
    ("Jain", "jain"),
    ("marks", "marks"),
    ("early drops", "early_drops"),
    ("forced drops", "forced_drops"),
    ("overflow drops", "overflow_drops"),
    ("retransmits", "retransmits"),
    ("timeouts", "timeouts"),
)


def format_behaviour(report: dict[str, Any]) -> str:
    """One row per case and metric: ecnlab[ns2] / ns-2 | ecnlab[ns3] / ns-3 / ns-3 C++."""
    lines = [
        "| case | metric | ecnlab[ns2] / ns-2 | ecnlab[ns3] / ns-3 / ns-3 C++ |",
        "|---|---|---|---|",
    ]
    for c in report["cases"]:
        t = c["tools"]
        for title, key in BEHAVIOUR:
            left = " / ".join(_fmt(t.get(k, {}).get(key)) for k in ("ecnlab[ns2]", "ns-2"))
            right = " / ".join(_fmt(t.get(k, {}).get(key)) for k in ("ecnlab[ns3]", "ns-3", "ns-3 C++"))
            lines.append(f"| ({c['case']}) | {title} | {left} | {right} |")
    return "\n".join(lines) + "\n"


def dump(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n")

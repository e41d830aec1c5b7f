"""``ecnlab bench htsim``: ecnlab and htsim (Broadcom/csg-htsim) on the same DCTCP dumbbells.

Each case is one ecnlab scenario (:func:`scenario`): N long-lived DCTCP flows (NewReno recovery, an ACK
per packet, min RTO 250 ms: htsim's fixed floor) through a step marker at K = 300 packets (about
0.15 × the bandwidth-delay product, above DCTCP's C·RTT/7), limit 3 000, at 1 Gbit/s and 10 ms, access
links 10 Gbit/s and 1 ms, flow i starting at i·(1 s / N) on host pair i mod 100. htsim gets the same
numbers through :func:`~ecnlab.bench.htsimspec.htsim_params`. The tools run in turn, the order alternating
each repetition; the table shows medians: each whole process's wall time, the engine's own time (ecnlab
``sim.wall_s``; htsim: the driver's clock around its event loop), the engine's ns per bottleneck packet,
peak memory (VmHWM), and what both computed: utilisation and Jain's index after the warm-up, the
bottleneck's mean queue and marks over the whole run, timeouts and fast recoveries.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.bench.cases import MAX_PAIRS, STAGGER_S
from ecnlab.bench.ecnlab_peer import compile_bytecode, run_ecnlab
from ecnlab.bench.htsim import run_htsim
from ecnlab.bench.htsimspec import htsim_params
from ecnlab.config import load_scenario

__all__ = ["HtsimCase", "CASES", "QUICK", "scenario", "run_case", "summarise", "format_table", "jain"]

TOOLS = ("ecnlab", "htsim")


@dataclass(frozen=True)
class HtsimCase:
    """N DCTCP flows for ``duration_s`` seconds (counted after ``warmup_s``)."""

    flows: int
    duration_s: float
    warmup_s: float

    @property
    def name(self) -> str:
        return str(self.flows)


CASES = {c.name: c for c in (HtsimCase(10, 10.0, 3.0), HtsimCase(1000, 10.0, 3.0), HtsimCase(10_000, 10.0, 3.0))}
QUICK = {c.name: c for c in (HtsimCase(10, 3.0, 1.0), HtsimCase(1000, 3.0, 1.0))}


def scenario(case: HtsimCase) -> dict[str, Any]:
    """The ecnlab scenario of ``case`` (both tools run it)."""
    pairs = min(case.flows, MAX_PAIRS)
    flows = [
        {
            "name": f"f{i + 1}",
            "kind": "bulk",
            "from": f"s{i % pairs + 1}",
            "to": f"r{i % pairs + 1}",
            "start": f"{i * STAGGER_S / case.flows:.9f}s",
        }
        for i in range(case.flows)
    ]
    return {
        "name": f"bench-htsim-{case.name}",
        "description": f"{case.flows} DCTCP flows, 1 Gbit/s / 10 ms, step marker K = 300 packets",
        "seed": 1,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "access_rate": "10Gbit",
            "access_delay": "1ms",
            "bottleneck_rate": "1Gbit",
            "bottleneck_delay": "10ms",
            "bottleneck_queue": {"kind": "step", "limit": 3000, "threshold": 300, "ecn": True},
        },
        "tcp": {
            "cc": "dctcp",
            "recovery": "newreno",
            "delayed_ack": False,
            "limited_transmit": False,
            "min_rto": "250ms",
            "init_cwnd": 10,
            "rwnd": "16MiB",
        },
        "flows": flows,
    }


def run_case(case: HtsimCase, binary: Path, reps: int, log: Callable[[str], None]) -> dict[str, list[dict[str, Any]]]:
    """Every run of both tools on ``case``, interleaved."""
    sc = scenario(case)
    params = htsim_params(load_scenario(sc))
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in TOOLS}
    with tempfile.TemporaryDirectory(prefix=f"ecnlab-htsim-{case.name}-") as tmp:
        work = Path(tmp)
        for rep in range(reps):
            for tool in TOOLS if rep % 2 == 0 else reversed(TOOLS):
                if tool == "ecnlab":
                    r = run_ecnlab(sc, work / f"ecnlab-{rep}")
                else:
                    r = run_htsim(binary, params, work / f"htsim-{rep}")
                runs[tool].append(r)
                log(f"  case {case.name} rep {rep + 1} {tool}: wall {r['wall_s']:.2f} s, engine {r['run_s']:.2f} s")
    return runs


def jain(goodputs: list[float]) -> float | None:
    """Jain's fairness index of ``goodputs`` (None when nothing was delivered)."""
    total = sum(goodputs)
    return total * total / (len(goodputs) * sum(g * g for g in goodputs)) if total > 0 else None


KEYS = ("wall_s", "run_s", "peak_rss_mib", "bottleneck_packets", "utilisation", "jain", "avg_qlen_pkts", "marks",
        "timeouts", "fast_recoveries")  # fmt: skip


def summarise(case: HtsimCase, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians per tool, the engine's ns per bottleneck packet and the speed-up (htsim / ecnlab engine time)."""
    tools: dict[str, dict[str, Any]] = {}
    for tool, rs in runs.items():
        for r in rs:
            r.setdefault("jain", jain(r["goodput_bps"]))
        med: dict[str, Any] = {k: _median([r.get(k) for r in rs]) for k in KEYS}
        med["ns_per_packet"] = 1e9 * med["run_s"] / med["bottleneck_packets"] if med["bottleneck_packets"] else None
        med["reps"] = len(rs)
        tools[tool] = med
    e, h = tools["ecnlab"]["run_s"], tools["htsim"]["run_s"]
    return {"case": case.name, "flows": case.flows, "duration_s": case.duration_s, "tools": tools,
            "speedup": h / e if e else None}  # fmt: skip


def _median(vals: list[Any]) -> float | None:
    got = [float(v) for v in vals if v is not None]
    return statistics.median(got) if got else None


def run_bench(names: list[str], cases: dict[str, HtsimCase], binary: Path, reps: int,
              log: Callable[[str], None]) -> list[dict[str, Any]]:  # fmt: skip
    """Runs ``names`` of ``cases``; one summary per case."""
    compile_bytecode()
    out = []
    for n in names:
        log(f"case {n}: {cases[n].flows} flows, {cases[n].duration_s:g} s")
        out.append(summarise(cases[n], run_case(cases[n], binary, reps, log)))
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    return f"{int(v)}"


def _pair(t: dict[str, Any], key: str) -> str:
    return f"{_fmt(t['ecnlab'][key])} / {_fmt(t['htsim'][key])}"


COLUMNS = (
    ("wall s", "wall_s"),
    ("engine s", "run_s"),
    ("engine ns / bottleneck packet", "ns_per_packet"),
    ("bottleneck packets", "bottleneck_packets"),
    ("peak MiB", "peak_rss_mib"),
    ("utilisation", "utilisation"),
    ("Jain", "jain"),
    ("mean queue (packets)", "avg_qlen_pkts"),
    ("marks", "marks"),
    ("timeouts", "timeouts"),
    ("fast recoveries", "fast_recoveries"),
)


def format_table(rows: list[dict[str, Any]]) -> str:
    """Markdown, one line per case: each cell ecnlab / htsim; the engine speed-up is htsim's time / ecnlab's."""
    head = ["flows", "s", *(title for title, _ in COLUMNS[:2]), "engine speed-up", *(t for t, _ in COLUMNS[2:])]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * 2 + "---|" * 2 + "---:|" + "---|" * (len(COLUMNS) - 2)]
    for r in rows:
        t = r["tools"]
        cells = [str(r["flows"]), f"{r['duration_s']:g}", *(_pair(t, k) for _, k in COLUMNS[:2])]
        cells += [f"{_fmt(r['speedup'])}x", *(_pair(t, k) for _, k in COLUMNS[2:])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)

"""``ecnlab bench dctcp-ns3``: DCTCP in ecnlab and ns-3's ``TcpDctcp`` side by side.

The step-marked dumbbell of ``scenarios/dumbbell-dctcp.toml`` (10 long flows,
RTT about 100 µs without queueing, access links 10x the bottleneck) at 1 and
10 Gbit/s with K = 20 and 65 packets (Linux ``dctcp.rst``: "20 packets (30KB)
at 1Gbps, and 65 packets (~100KB) at 10Gbps"). ecnlab runs the scenario; ns-3
runs ``scripts/ns3_dctcp.cc`` (Debian libns3-dev, ns-3.37) built from the same
resolved settings, with ecnlab's realised flow start times. Compared, after
the warm-up: the bottleneck's average queue (ecnlab: its length sampled every
100 µs; ns-3: time-weighted), the senders' α (sampled every 100 µs, averaged
over flows and samples), CE marks per delivered packet, the total goodput
and Jain's index. docs/senders.md ("DCTCP against ns-3's TcpDctcp") has the table and why the numbers differ.

Durations: 2 s (0.5 s warm-up) at 1 Gbit/s, 1 s (0.3 s warm-up) at 10 Gbit/s;
ns-3 moves ~70k packets per second of run time here, so the 10 Gbit/s cases
take about half a minute each in ns-3 (``--quick`` halves every duration).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.bench.measure import clean_env, last_json_line, run_measured
from ecnlab.bench.ns3cxx import NS3_LIBS, ns3cxx_binary, ns3cxx_missing, params_text

__all__ = [
    "CASES",
    "Case",
    "scenario",
    "run_ecnlab",
    "run_ns3",
    "compare",
    "format_table",
    "format_echo",
    "ns3_missing",
]

NS3_DCTCP_SOURCE = Path(__file__).resolve().parent / "scripts" / "ns3_dctcp.cc"
SAMPLE_S = 0.0001  # ecnlab's time series and ns-3's α samples


@dataclass(frozen=True)
class Case:
    rate_bps: float
    k: int
    duration_s: float
    warmup_s: float

    @property
    def name(self) -> str:
        return f"{self.rate_bps / 1e9:g}G-K{self.k}"


CASES = {
    c.name: c
    for c in (
        Case(1e9, 20, 2.0, 0.5),
        Case(1e9, 65, 2.0, 0.5),
        Case(10e9, 20, 1.0, 0.3),
        Case(10e9, 65, 1.0, 0.3),
    )
}


def ns3_missing() -> str | None:
    """Why ns-3's C++ peer cannot run here, or None."""
    return ns3cxx_missing()


def scenario(case: Case, quick: bool = False) -> dict[str, Any]:
    """The example scenario (scenarios/dumbbell-dctcp.toml) at this case's rate and K."""
    scale = 0.5 if quick else 1.0
    return {
        "name": f"dctcp-{case.name}",
        "seed": 1,
        "duration": case.duration_s * scale,
        "warmup": case.warmup_s * scale,
        "sample_interval": f"{SAMPLE_S * 1e6:g}us",
        "topology": {
            "kind": "dumbbell",
            "pairs": 10,
            "access_rate": f"{case.rate_bps * 10 / 1e9:g}Gbit",
            "access_delay": "10us",
            "bottleneck_rate": f"{case.rate_bps / 1e9:g}Gbit",
            "bottleneck_delay": "20us",
            "bottleneck_queue": {"kind": "step", "limit": 1000, "threshold": case.k, "ecn": True},
        },
        # PRR off: ns-3 runs TcpClassicRecovery, cwnd = ssthresh at once after ECE (as ecnlab without PRR).
        # RFC 8257's arithmetic: ns-3's TcpDctcp cuts the window in bytes (a double α), not Linux's segments.
        # No TSO bursts: ns-3's TcpSocketBase sends segment by segment.
        "tcp": {
            "personality": "linux",
            "recovery": "sack",
            "cc": "dctcp",
            "rwnd": "4MiB",
            "prr": False,
            "dctcp_arith": "rfc8257",
            "tso": "none",
        },
        "output": {"timeseries_links": ["R1->R2"]},
        "flows": [{"name": "dctcp", "kind": "bulk", "from": "s*", "to": "r*", "start": "0s..200us"}],
    }


def _bottleneck(summary: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    queue = next(q for q in summary["queues"] if q["link"] == "R1->R2")
    link = next(lk for lk in summary["links"] if lk["name"] == "R1->R2")
    return queue, link


def run_ecnlab(case: Case, quick: bool = False) -> dict[str, Any]:
    """ecnlab's numbers for one case, and the resolved settings ns-3 is given."""
    import ecnlab

    sc = scenario(case, quick)
    res = ecnlab.run(sc)
    flows = res.summary["flows"]
    # After the warm-up, as ns-3 measures (the summary's queue average spans the whole run).
    q = res.timeseries[res.timeseries["t_s"] > sc["warmup"]]
    alpha = res.flow_timeseries[res.flow_timeseries["t_s"] > sc["warmup"]]["dctcp_alpha"].dropna()
    return {
        "goodput_bps": [f["goodput_bps"] for f in flows],
        "avg_qlen_pkts": float(q["qlen_pkts"].mean()),
        "alpha_mean": float(alpha.mean()),
        "marks": int(q["marks"].iloc[-1] - q["marks"].iloc[0]),
        "drops": int(q["drops"].iloc[-1] - q["drops"].iloc[0]),
        "starts_s": [f["start_s"] for f in flows],
        "tcp": res.summary["scenario"]["tcp"],
        "duration_s": sc["duration"],
        "warmup_s": sc["warmup"],
    }


def ns3_params(case: Case, ours: dict[str, Any]) -> dict[str, Any]:
    """PARAMS.txt for scripts/ns3_dctcp.cc from ecnlab's resolved [tcp] and the case."""
    t = ours["tcp"]
    return {
        "pairs": 10,
        "rate_bps": case.rate_bps,
        "delay_s": 20e-6,
        "access_rate_bps": case.rate_bps * 10,
        "access_delay_s": 10e-6,
        "k": case.k,
        "limit": 1000,
        "mss": t["mss"],
        "init_cwnd": t["init_cwnd"],
        "delack_timeout": t["delack_timeout"],
        "rwnd_bytes": t["rwnd"],
        "initial_rto": t["initial_rto"],
        "min_rto": t["min_rto"],
        "clock_granularity": t["clock_granularity"],
        "g": 2.0 ** -t["dctcp_shift_g"],
        "seed": 1,
        "duration": ours["duration_s"],
        "warmup": ours["warmup_s"],
        "alpha_sample_s": SAMPLE_S,
        "flow_starts": ours["starts_s"],
        "ssthresh_floor_segments": 0,  # stock TcpDctcp (the program's diagnostic floor off)
    }


def run_ns3(case: Case, ours: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """ns-3's numbers for one case (raises PeerFailed when it cannot run)."""
    binary = ns3cxx_binary(NS3_DCTCP_SOURCE, NS3_LIBS)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.txt").write_text(params_text(ns3_params(case, ours)))
    m = run_measured([str(binary), "params.txt"], cwd=workdir, timeout_s=1800, env=clean_env())
    return last_json_line(m.stdout, "ns-3 TcpDctcp")


def _summary(r: dict[str, Any], case: Case, span_s: float, mss: int) -> dict[str, float]:
    g = r["goodput_bps"]
    total = sum(g)
    jain = total * total / (len(g) * sum(x * x for x in g)) if total > 0 else math.nan
    delivered_pkts = total * span_s / (8 * mss)
    return {
        "avg_qlen_pkts": r["avg_qlen_pkts"],
        "alpha": r["alpha_mean"],
        "mark_frac": r["marks"] / delivered_pkts if delivered_pkts else math.nan,
        "goodput_frac": total / case.rate_bps,
        "jain": jain,
    }


def compare(case: Case, ours: dict[str, Any], ns3: dict[str, Any]) -> dict[str, Any]:
    """Per metric: ecnlab, ns-3 and the relative difference (ecnlab − ns-3) / ns-3."""
    span, mss = ours["duration_s"] - ours["warmup_s"], ours["tcp"]["mss"]
    a, b = _summary(ours, case, span, mss), _summary(ns3, case, span, mss)
    return {k: (a[k], b[k], (a[k] - b[k]) / b[k] if b[k] else math.nan) for k in a}


METRICS = (("avg_qlen_pkts", "avg queue (pkts)"), ("alpha", "mean α"), ("mark_frac", "marks / packet"),
           ("goodput_frac", "goodput / rate"), ("jain", "Jain"))  # fmt: skip


def format_echo(name: str, ns3: dict[str, Any]) -> str:
    """ns-3's DCTCP feedback on the wire: the share of bytes acknowledged by ACKs with ECE,
    beside the share of packets the queue marked (equal under RFC 8257 §3.2's exact echo,
    which ecnlab's receiver keeps: crates/tcp/tests/dctcp.rs)."""
    echoed = ns3["ece_bytes"] / ns3["acked_bytes"] if ns3["acked_bytes"] else math.nan
    marked = ns3["marks"] / ns3["arrivals"] if ns3["arrivals"] else math.nan
    return f"{name}: ns-3 echoes ECE on {echoed:.3f} of the bytes acknowledged; its queue marked {marked:.3f}"


def format_table(rows: list[tuple[Case, dict[str, Any]]]) -> str:
    """Markdown: one line per case and metric."""
    out = ["| case | metric | ecnlab | ns-3 TcpDctcp | difference |", "|---|---|---|---|---|"]
    for case, cmp in rows:
        for key, label in METRICS:
            a, b, d = cmp[key]
            out.append(f"| {case.name} | {label} | {a:.3f} | {b:.3f} | {100 * d:+.1f} % |")
    return "\n".join(out)

"""``ecnlab bench bbr-ns3``: BBRv1 in ecnlab and ns-3's ``TcpBbr`` side by side.

Each point is a dumbbell both simulators express alike: ``flows`` bulk BBR flows (1 or
2, started at draws from [0, 0.5] s that ns-3 is given), fast zero-delay access links
(1 Gbit/s), a bottleneck of 10 or 50 Mbit/s whose one-way delay is half the base RTT (20
or 80 ms), and at its head either a drop-tail FIFO of one BDP (⌈rate·RTT / 1500 bytes⌉
packets) or FQ-CoDel with Linux's defaults, ECN off (BBRv1 does not answer marks, so the
queues drop). ecnlab runs the ``linux`` personality with ``cc = "bbr"`` (``tcp_bbr.c``,
paced), SACK and no TSO bursts (ns-3 sends segment by segment); ns-3 runs
``scripts/ns3_bbr.cc`` (Debian libns3-dev, ns-3.37): ``TcpBbr`` with its defaults,
pacing on, SACK, timestamps off, with ecnlab's resolved MSS, initial window, delayed-ACK
timeout, RTO bounds and receive window, and ecnlab's realised start times. ns-3 runs each
point twice: stock, and with the program's ``ack_elapsed_fix``, which hands TcpBbr each
delivery-rate sample with its ACK phase measured as Linux's ``tcp_rate_gen`` does (ns-3.37's
``TcpRateLinux`` measures it from the previous sample's stamp, zero after an invalid sample,
so after a loss a sample can span all the simulated time before it: ns-3 bug 1026, fixed in
ns-3.41).

Measured on both sides after the same warm-up: each flow's goodput and their sum, Jain's
index, the bottleneck's drops, and its packets' sojourn, mean and 99th percentile, from
entering the queue to the start of their transmission (ecnlab's summary; ns-3: the queue
disc's enqueue stamp to the device's ``PhyTxBegin``, so the one-packet device queue is
inside, and the ns-3 FIFO is one packet shorter to hold the same ``limit``). Also kept,
not tabled: retransmitted segments and each sender's mean cwnd (sampled every 10 ms).
docs/model.md ("BBR against ns-3's TcpBbr") has the table and why the numbers differ.

Runs: 40 s, 10 s of warm-up (PROBE_RTT comes every 10 s, so each run measures two or three);
``--quick``: two 10 Mbit/s, 20 ms points, 10 s with 3 s of warm-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.bench.measure import clean_env, last_json_line, run_measured
from ecnlab.bench.ns3cxx import NS3_LIBS, ns3cxx_binary, ns3cxx_missing, params_text

__all__ = [
    "Point",
    "POINTS",
    "QUICK",
    "bdp_packets",
    "scenario",
    "run_ecnlab",
    "ns3_params",
    "run_ns3",
    "jain",
    "side",
    "SIDES",
    "compare",
    "format_table",
    "ns3_missing",
]

NS3_BBR_SOURCE = Path(__file__).resolve().parent / "scripts" / "ns3_bbr.cc"
BOTTLENECK = "R1->R2"
PACKET_BYTES = 1500
CWND_SAMPLE_S = 0.01
START_SPREAD_S = 0.5
ACCESS_BPS = 1e9
#: The columns of each cell: ecnlab, stock ns-3, ns-3 with ack_elapsed_fix.
SIDES = ("ecnlab", "ns3", "ns3_fixed")
#: (duration, warm-up) in seconds: the full grid and --quick.
FULL_RUN = (40.0, 10.0)
QUICK_RUN = (10.0, 3.0)


@dataclass(frozen=True)
class Point:
    rate_mbit: int
    rtt_ms: int
    flows: int
    queue: str  # "fifo" (drop-tail, one BDP) or "fq_codel"

    @property
    def name(self) -> str:
        return f"{self.rate_mbit}M-{self.rtt_ms}ms-{self.flows}f-{self.queue}"


POINTS = {
    p.name: p
    for p in (Point(r, d, n, q) for r in (10, 50) for d in (20, 80) for n in (1, 2) for q in ("fifo", "fq_codel"))
}
QUICK = ("10M-20ms-1f-fifo", "10M-20ms-2f-fq_codel")


def ns3_missing() -> str | None:
    """Why ns-3's C++ peer cannot run here, or None."""
    return ns3cxx_missing()


def bdp_packets(p: Point) -> int:
    """One bandwidth-delay product in 1500-byte packets, rounded up."""
    return math.ceil(p.rate_mbit * 1e6 * p.rtt_ms / 1e3 / (8 * PACKET_BYTES))


def _queue(p: Point) -> dict[str, Any]:
    if p.queue == "fifo":
        return {"kind": "droptail", "limit": bdp_packets(p)}
    return {"kind": "fq_codel", "ecn": False}


def scenario(p: Point, quick: bool = False) -> dict[str, Any]:
    """The ecnlab scenario of point ``p`` (the module doc)."""
    duration, warmup = QUICK_RUN if quick else FULL_RUN
    return {
        "name": f"bbr-ns3-{p.name}",
        "seed": 1,
        "duration": duration,
        "warmup": warmup,
        "sample_interval": CWND_SAMPLE_S,
        "topology": {
            "kind": "dumbbell",
            "pairs": p.flows,
            "access_rate": f"{ACCESS_BPS / 1e9:g}Gbit",
            "access_delay": "0s",
            "bottleneck_rate": f"{p.rate_mbit}Mbit",
            "bottleneck_delay": f"{p.rtt_ms / 2:g}ms",
            "bottleneck_queue": _queue(p),
        },
        "tcp": {
            "personality": "linux",
            "recovery": "sack",
            "cc": "bbr",
            "ecn": False,
            "rwnd": "16MiB",
            "tso": "none",
        },
        "output": {"timeseries_flows": ["*"]},
        "flows": [{"name": "bbr", "kind": "bulk", "from": "s*", "to": "r*", "start": f"0s..{START_SPREAD_S}s"}],
    }


def run_ecnlab(p: Point, quick: bool = False) -> dict[str, Any]:
    """ecnlab's numbers for one point, and the resolved settings ns-3 is given."""
    import ecnlab

    sc = scenario(p, quick)
    res = ecnlab.run(sc)
    flows = res.summary["flows"]
    q = next(x for x in res.summary["queues"] if x["link"] == BOTTLENECK)
    drops = sum(q[f"{k}_after_warmup"] for k in ("early_drops", "forced_drops", "overflow_drops", "dequeue_drops"))
    s = res.flow_timeseries
    s = s[s["t_s"] > sc["warmup"]]
    mss = res.summary["scenario"]["tcp"]["mss"]
    cwnd = [float(s[s["flow"] == f["id"]]["cwnd_bytes"].mean()) / mss for f in flows]
    return {
        "goodput_bps": [f["goodput_bps"] for f in flows],
        "sojourn_mean_ms": q["sojourn_mean_ms"],
        "sojourn_p99_ms": q["sojourn_p99_ms"],
        "drops": drops,
        "departures": q["dequeued_after_warmup"],
        "retransmits": [f["retransmits_after_warmup"] for f in flows],
        "cwnd_mean_segments": cwnd,
        "starts_s": [f["start_s"] for f in flows],
        "tcp": res.summary["scenario"]["tcp"],
        "queue": res.summary["scenario"]["topology"]["bottleneck_queue"],
        "duration_s": sc["duration"],
        "warmup_s": sc["warmup"],
    }


def ns3_params(p: Point, ours: dict[str, Any], fix: bool = False) -> dict[str, Any]:
    """PARAMS.txt for scripts/ns3_bbr.cc from ecnlab's resolved [tcp], queue and the point;
    ``fix``: the program's ack_elapsed_fix (the module doc)."""
    t, q = ours["tcp"], ours["queue"]
    params: dict[str, Any] = {
        "pairs": p.flows,
        "rate_bps": p.rate_mbit * 1e6,
        "delay_s": p.rtt_ms / 2e3,
        "access_rate_bps": ACCESS_BPS,
        "access_delay_s": 0.0,
        "access_limit": 1000,
        "reverse_limit": 1000,
        "queue": p.queue,
        "limit": q["limit"],
        "mss": t["mss"],
        "init_cwnd": t["init_cwnd"],
        "delack_timeout": t["delack_timeout"],
        "rwnd_bytes": t["rwnd"],
        "initial_rto": t["initial_rto"],
        "min_rto": t["min_rto"],
        "clock_granularity": t["clock_granularity"],
        "seed": 1,
        "duration": ours["duration_s"],
        "warmup": ours["warmup_s"],
        "cwnd_sample_s": CWND_SAMPLE_S,
        "flow_starts": ours["starts_s"],
        "ack_elapsed_fix": fix,
    }
    if p.queue == "fq_codel":
        params.update(fq_flows=q["flows"], quantum=q["quantum"], target_s=q["target"], interval_s=q["interval"])
    return params


def run_ns3(p: Point, ours: dict[str, Any], workdir: Path, fix: bool = False) -> dict[str, Any]:
    """ns-3's numbers for one point, stock or with ``fix`` (raises PeerFailed when it cannot run)."""
    binary = ns3cxx_binary(NS3_BBR_SOURCE, NS3_LIBS)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.txt").write_text(params_text(ns3_params(p, ours, fix)))
    m = run_measured([str(binary), "params.txt"], cwd=workdir, timeout_s=1800, env=clean_env())
    return last_json_line(m.stdout, "ns-3 TcpBbr")


def jain(goodputs: list[float]) -> float:
    """Jain's fairness index of the flows' goodputs (NaN when nothing was delivered)."""
    total = sum(goodputs)
    return total * total / (len(goodputs) * sum(g * g for g in goodputs)) if total > 0 else math.nan


def side(r: dict[str, Any]) -> dict[str, Any]:
    """One simulator's compared numbers: goodputs in Mbit/s, Jain, sojourn (ms), drops."""
    g = [x / 1e6 for x in r["goodput_bps"]]
    return {
        "goodput_mbit": sum(g),
        "flows_mbit": g,
        "jain": jain(g),
        "sojourn_mean_ms": float(r["sojourn_mean_ms"]),
        "sojourn_p99_ms": float(r["sojourn_p99_ms"]),
        "drops": int(r["drops"]),
    }


def compare(ours: dict[str, Any], ns3: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any]:
    """Each side's numbers (``SIDES``) and, per scalar metric, the ratios ecnlab / ns-3 (``ratio``)
    and ecnlab / ns-3 with the fix (``ratio_fixed``); NaN where the divisor is 0."""
    a, b, c = side(ours), side(ns3), side(fixed)

    def ratios(x: dict[str, Any]) -> dict[str, float]:
        return {k: a[k] / x[k] if x[k] else math.nan for k in a if k != "flows_mbit"}

    return {"ecnlab": a, "ns3": b, "ns3_fixed": c, "ratio": ratios(b), "ratio_fixed": ratios(c)}


def _goodput_cell(s: dict[str, Any]) -> str:
    total = f"{s['goodput_mbit']:.2f}"
    return total if len(s["flows_mbit"]) == 1 else f"{total} ({' + '.join(f'{g:.2f}' for g in s['flows_mbit'])})"


def format_table(rows: list[tuple[Point, dict[str, Any]]]) -> str:
    """Markdown: one line per point, each cell ``ecnlab / ns-3 / ns-3 with the fix``."""
    out = [
        "| point | goodput Mbit/s (per flow) | Jain | sojourn mean (ms) | sojourn p99 (ms) | drops |",
        "|---|---|---|---|---|---|",
    ]
    for p, cmp in rows:
        sides = [cmp[k] for k in SIDES]
        cells = [
            " / ".join(_goodput_cell(s) for s in sides),
            " / ".join(f"{s['jain']:.2f}" for s in sides),
            " / ".join(f"{s['sojourn_mean_ms']:.1f}" for s in sides),
            " / ".join(f"{s['sojourn_p99_ms']:.1f}" for s in sides),
            " / ".join(str(s["drops"]) for s in sides),
        ]
        out.append(f"| {p.name} | " + " | ".join(cells) + " |")
    return "\n".join(out)

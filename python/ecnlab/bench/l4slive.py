"""``ecnlab bench l4s-live``: real Linux senders through ecnlab's DualPI2, beside the simulator.

Each point is a dumbbell of two pairs: a fast zero-delay access link per host and a bottleneck
of ``rate`` whose one-way delay is half the base ``rtt``, queued by DualPI2 with its default
parameters (``crates/aqm/src/dualpi2.rs``). ``s1 → r1`` is CUBIC with classic ECN (RFC 3168),
in DualPI2's C queue; ``s2 → r2`` is one scalable sender: (a) DCTCP, Linux running the kernel's
or ecnlab's BPF DCTCP (``ecnlab.emu.bpf``); (b) the Prague-like, Linux running ecnlab's BPF
Prague-like (``ecnlab_prague_like.bpf.c``, ``tcp.cc = "prague"`` in emulate). Both senders of
this kernel send ECT(0), so the scalable flow reaches the L queue by the path: the
``ect0_to_ect1`` impairment on its access link ``s2->R1`` re-marks its packets to ECT(1), which
DualPI2 classifies to L (``cla_ect``, RFC 9332 §2.3). The simulator runs the same scenario, the
same impairment included, with the ``linux`` personality; its scalable sender is the nearest
model: DCTCP for (a); for (b) its Prague over classic ECN with DCTCP's echo at the receiver
(``prague_feedback = "dctcp"``, ``crates/tcp/src/cc/prague.rs``), as the Prague-like has it, with
the options nearest the program's rules: ``prague_version = "v0.6"`` (no rate-based mode, which the
Prague-like lacks too; pacing from the window) and ``prague_rtt_transition = 4`` (0.7's, the
program's). Differences that remain in (b): α starts at 1 (v0.6) where the program starts it at 0
and halves the window at the first mark (a start-up difference, before the warm-up ends); α counts
bytes, the program segments; cwnd is set at once, the program walks it one segment per ACK; the
simulator paces at cwnd/srtt (cwnd at least 2 segments), the program at max(frac_cwnd, packets in
flight, 2)/srtt; above about 24 Mbit/s of pacing Linux sends 1 ms of it per GSO burst (the program's
bound, prague_tso_segs as a minimum, holds below that only). Points: (a) and (b) × 10 and 50
Mbit/s × 10 and 40 ms; ``quick``: 10 Mbit/s, 10 ms.

Measured on both sides alike from the summaries: each flow's goodput after the warm-up; the L
and C queues' 99th-percentile sojourn after the warm-up (the bottleneck queue record's
``classes``); their CE marks over the whole run (the router counts classes over its life, which
starts with the traffic). Several runs (seeds 1 … N: the queue's random stream; Linux's timing
differs anyway) are compared by their means; a Linux run the hypervisor disturbed can be run
again (``redo``, :func:`ecnlab.bench.fidelity.linux_run`).

Targets: each flow's goodput within 10 % and each queue's p99 sojourn within 2× (sim / Linux);
marks are shown, not judged. A point with no packet in the L queue on a side fails: the
classification did not happen. The verdict names what missed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ecnlab.bench.fidelity import _ratio, _say, _spread, linux_run
from ecnlab.emu.steal import PEAK_WARN_S, Steal

__all__ = [
    "Point",
    "Measure",
    "points",
    "scenario",
    "measure",
    "verdict",
    "run_l4s_live",
    "format_row",
    "format_table",
    "HEADER",
]

BOTTLENECK = "R1->R2"
CLASSIC, SCALABLE = "classic", "scalable"
GOODPUT_TOL = 0.10
SOJOURN_RATIO = 2.0
#: The simulator's Prague nearest the BPF Prague-like (the module doc).
SIM_PRAGUE_LIKE = {"cc": "prague", "prague_feedback": "dctcp", "prague_version": "v0.6", "prague_rtt_transition": 4}
#: The scalable senders: the point's name for it → (the simulator's tcp table, Linux's tcp.cc, its label).
SENDERS: dict[str, tuple[dict[str, Any], str, str]] = {
    "dctcp": ({"cc": "dctcp"}, "dctcp", "DCTCP"),
    "prague-like": (SIM_PRAGUE_LIKE, "prague", "Prague-like"),
}


@dataclass(frozen=True)
class Point:
    rate_mbit: int
    rtt_ms: int
    sender: str  # a key of SENDERS

    @property
    def name(self) -> str:
        return f"cubic+{self.sender}-{self.rate_mbit}M-{self.rtt_ms}ms"


def points(quick: bool = False) -> list[Point]:
    rates, rtts = ((10,), (10,)) if quick else ((10, 50), (10, 40))
    return [Point(r, d, s) for s in SENDERS for r in rates for d in rtts]


@dataclass(frozen=True)
class Measure:
    """One side's numbers of a point: a run, or the means of several (``runs``)."""

    goodput_bps: dict[str, float]  # by flow: CLASSIC, SCALABLE
    p99_ms: dict[str, float | None]  # by DualPI2 class: "L", "C" (None: no packet left it)
    marks: dict[str, float]  # by class, the whole run
    dequeued: dict[str, float]  # by class, the whole run
    steal: Steal | None = None  # a Linux run's CPU steal; None: simulated, a mean, unknown
    runs: tuple[Measure, ...] = ()
    set_aside: tuple[Measure, ...] = ()  # a Linux run's disturbed attempts run again

    @staticmethod
    def mean(runs: list[Measure]) -> Measure:
        if len(runs) == 1:
            return runs[0]

        def avg(key: str, k: str) -> float:
            return float(sum(getattr(m, key)[k] for m in runs)) / len(runs)

        p99: dict[str, float | None] = {}
        for k in ("L", "C"):
            known = [m.p99_ms[k] for m in runs]
            p99[k] = None if any(v is None for v in known) else sum(v or 0.0 for v in known) / len(runs)
        return Measure(
            {f: avg("goodput_bps", f) for f in (CLASSIC, SCALABLE)},
            p99,
            {k: avg("marks", k) for k in ("L", "C")},
            {k: avg("dequeued", k) for k in ("L", "C")},
            runs=tuple(runs),
        )


def scenario(p: Point, seconds: float, warmup: float, seed: int, side: str) -> dict[str, Any]:
    """The scenario of ``side`` ("sim" or "linux"): the same but for the scalable flow's ``tcp``."""
    sim_tcp, linux_cc, _ = SENDERS[p.sender]
    return {
        "name": f"l4s-live-{p.name}",
        "seed": seed,
        "duration": seconds,
        "warmup": warmup,
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "access_rate": "1Gbit",
            "access_delay": "0s",
            "bottleneck_rate": f"{p.rate_mbit}Mbit",
            "bottleneck_delay": f"{p.rtt_ms / 2}ms",
            "bottleneck_queue": {"kind": "dualpi2"},
        },
        "tcp": {"personality": "linux", "rwnd": "16MiB"},
        "impairments": [{"link": "s2->R1", "action": "ect0_to_ect1"}],
        "flows": [
            {"name": CLASSIC, "from": "s1", "to": "r1", "tcp": {"cc": "cubic", "ecn": True}},
            {"name": SCALABLE, "from": "s2", "to": "r2", "tcp": dict(sim_tcp) if side == "sim" else {"cc": linux_cc}},
        ],
    }


def measure(summary: dict[str, Any]) -> Measure:
    """A run's numbers from its summary (the simulator's and the emulator's have the same keys)."""
    flows = {f["id"]: f for f in summary["flows"]}
    q = next(x for x in summary["queues"] if x["link"] == BOTTLENECK)
    classes = {c["name"]: c for c in q.get("classes") or []}
    p99 = {k: (classes[k].get("sojourn") or {}).get("p99_ms") for k in ("L", "C")}
    cpu = (summary.get("emulation") or {}).get("cpu_steal")
    return Measure(
        {f: float(flows[f]["goodput_bps"]) for f in (CLASSIC, SCALABLE)},
        {k: None if v is None else float(v) for k, v in p99.items()},
        {k: float(classes[k]["marks"]) for k in ("L", "C")},
        {k: float(classes[k]["dequeued"]) for k in ("L", "C")},
        steal=None if cpu is None else Steal(cpu["total_s"], cpu["peak_s"]),
    )


def measure_sim(p: Point, seconds: float, warmup: float, seed: int) -> Measure:
    from ecnlab.runner import run

    return measure(run(scenario(p, seconds, warmup, seed, "sim")).summary)


def measure_emu(p: Point, seconds: float, warmup: float, seed: int, _keep: Path | None = None) -> Measure:
    from ecnlab.emu.run import emulate

    with tempfile.TemporaryDirectory(prefix="ecnlab-l4s-live-") as tmp:
        return measure(emulate(scenario(p, seconds, warmup, seed, "linux"), out=Path(tmp) / "out").summary)


def verdict(sim: Measure, emu: Measure) -> str:
    """ "ok" or what missed: a flow's goodput beyond 10 %, a queue's p99 sojourn beyond 2× either
    way or known on one side only, no packet in the L queue on a side."""
    miss = [
        f"no L-queue packets on the {side} side" for side, m in (("sim", sim), ("Linux", emu)) if not m.dequeued["L"]
    ]
    for f, what in ((CLASSIC, "CUBIC"), (SCALABLE, "L-flow")):
        g = _ratio(sim.goodput_bps[f], emu.goodput_bps[f]) - 1
        if abs(g) > GOODPUT_TOL:
            miss.append(f"{what} goodput {g:+.0%}")
    for k in ("L", "C"):
        a, b = sim.p99_ms[k], emu.p99_ms[k]
        if (a is None) != (b is None):
            miss.append(f"{k} p99 on the {'Linux' if a is None else 'sim'} side only")
        elif a is not None and b is not None and not 1 / SOJOURN_RATIO <= _ratio(a, b) <= SOJOURN_RATIO:
            miss.append(f"{k} p99 ×{_ratio(a, b):.2f}")
    return "ok" if not miss else "; ".join(miss)


def run_l4s_live(
    quick: bool,
    log: Callable[[str], None],
    *,
    seconds: float,
    warmup: float,
    runs: int,
    redo: int = 0,
    only: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Each point's row (both sides' measures and the verdict) as it finishes; ``only``: the points
    whose name contains it."""
    for p in points(quick):
        if only is not None and only not in p.name:
            continue
        sims, emus = [], []
        for seed in range(1, runs + 1):
            log(f"  {p.name}: simulating, then emulating {seconds:g} s (seed {seed} of {runs})")
            sims.append(measure_sim(p, seconds, warmup, seed))
            one = partial(measure_emu, p, seconds, warmup, seed)
            emus.append(linux_run(one, None, redo, partial(_say, log, p.name)))
        sim, emu = Measure.mean(sims), Measure.mean(emus)
        yield {"point": p, "sim": sim, "emu": emu, "verdict": verdict(sim, emu), "runs": runs, "seconds": seconds}


HEADER = (
    "| L sender (Linux) | rate | RTT | CUBIC goodput sim / Linux (Mbit/s) | Δ | L-flow goodput sim / Linux "
    "(Mbit/s) | Δ | L sojourn p99 sim / Linux (ms) | ratio | C sojourn p99 sim / Linux (ms) | ratio | "
    "L marks sim / Linux | C marks sim / Linux | verdict |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def _pair_ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{_ratio(a, b):.2f}"


def _count(x: float) -> str:
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def format_row(row: dict[str, Any]) -> str:
    p: Point = row["point"]
    sim: Measure = row["sim"]
    emu: Measure = row["emu"]
    cells = [SENDERS[p.sender][2], f"{p.rate_mbit}M", f"{p.rtt_ms} ms"]
    for f in (CLASSIC, SCALABLE):
        a, b = sim.goodput_bps[f], emu.goodput_bps[f]
        cells += [f"{a / 1e6:.2f} / {b / 1e6:.2f}", f"{_ratio(a, b) - 1:+.1%}"]
    for k in ("L", "C"):
        a99, b99 = sim.p99_ms[k], emu.p99_ms[k]
        cells += [f"{_ms(a99)} / {_ms(b99)}", _pair_ratio(a99, b99)]
    cells += [f"{_count(sim.marks[k])} / {_count(emu.marks[k])}" for k in ("L", "C")]
    return "| " + " | ".join([*cells, row["verdict"]]) + " |"


def _per_run(m: Measure, what: str) -> float | None:
    """A flow's goodput (Mbit/s) or a class's p99 sojourn (ms) of one run."""
    return m.goodput_bps[what] / 1e6 if what in m.goodput_bps else m.p99_ms[what]


def format_spread(rows: list[dict[str, Any]]) -> str:
    """Run to run, for rows of several runs: each run's goodputs and p99 sojourns per side and how
    far they lie apart (largest / smallest − 1); Linux against Linux is the repeatability."""
    multi = [r for r in rows if r["sim"].runs and r["emu"].runs]
    if not multi:
        return ""
    heads = [
        f"{what} {side}"
        for what in ("CUBIC Mbit/s", "L-flow Mbit/s", "L p99 ms", "C p99 ms")
        for side in ("sim", "Linux")
    ]
    lines = [
        "Run to run (seeds 1 … N on each side; spread = largest / smallest − 1):",
        "",
        "| point | "
        + " | ".join(f"{h} | spread" for h in heads)
        + " | CPU stolen per Linux run, most in one second (s) |",
        "|---|" + "---|---|" * len(heads) + "---|",
    ]
    for r in multi:
        cells = []
        for what, fmt in ((CLASSIC, ".2f"), (SCALABLE, ".2f"), ("L", ".1f"), ("C", ".1f")):
            cells += [_spread([_per_run(m, what) for m in side.runs], fmt) for side in (r["sim"], r["emu"])]
        cells.append(", ".join("—" if m.steal is None else f"{m.steal.peak_s:.2f}" for m in r["emu"].runs))
        lines.append(f"| {r['point'].name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def format_disturbed(rows: list[dict[str, Any]]) -> str:
    """The Linux runs the hypervisor disturbed (more than ``PEAK_WARN_S`` of CPU stolen within one
    second), and the attempts set aside and run again (empty if none)."""
    runs = [(r["point"].name, k, m) for r in rows for k, m in enumerate(r["emu"].runs or (r["emu"],), start=1)]
    hits = [f"{n} (seed {k}): {m.steal.peak_s:.2f} s" for n, k, m in runs if m.steal is not None and m.steal.disturbed]
    aside = [f"{n} (seed {k}): {len(m.set_aside)}" for n, k, m in runs if m.set_aside]
    lines = []
    if hits:
        lines.append(f"Linux runs the machine disturbed (CPU stolen within one second, more than {PEAK_WARN_S:g} s): "
                     + "; ".join(hits) + ".")  # fmt: skip
    if aside:
        lines.append(
            "Linux runs set aside as disturbed and run again (attempts; not in the table): " + "; ".join(aside) + "."
        )
    return "\n\n".join(lines)


def format_table(rows: list[dict[str, Any]], *, spread: bool = True) -> str:
    """The table, the count within targets, the disturbed runs and (``spread``) the run-to-run
    table; a stored result keeps the last as its ``details``."""
    ok = sum(r["verdict"] == "ok" for r in rows)
    runs = rows[0]["runs"] if rows else 0
    secs = rows[0]["seconds"] if rows else 0
    lines = [
        HEADER,
        *(format_row(r) for r in rows),
        "",
        f"{ok} of {len(rows)} points within their targets; {runs} run(s) of {secs:g} s per point and side "
        "(seeds 1 … N), means shown. L sender: the same on both sides; for the Prague-like the simulator "
        "runs its Prague over classic ECN with DCTCP's echo (prague_feedback = dctcp, v0.6, 4 rounds of "
        "RTT transition).",
    ]
    extra = [x for x in (format_disturbed(rows), format_spread(rows) if spread else "") if x]
    return "\n".join(lines + [y for x in extra for y in ("", x)])

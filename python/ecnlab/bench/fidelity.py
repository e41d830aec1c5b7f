"""``ecnlab bench fidelity``: the simulator's ``linux`` TCP personality against real
Linux TCP, both through ecnlab's queue (``ecnlab run`` beside ``ecnlab emulate``).

Each point is a dumbbell: one sender host, one receiver host, ``flows`` bulk
flows between them, fast zero-delay access links and a bottleneck of ``rate``
whose one-way delay is half the base ``rtt`` (both directions), so the base
RTT is ``rtt``. The same scenario runs in the simulator (``tcp.personality =
"linux"``) and through the live router, where the kernel's TCP sends: the
emulator sets the namespaces' ``tcp_sack``, ``tcp_ecn``, the congestion control
per socket, the route's ``initcwnd`` and ``rto_min`` from the same keys
(docs/emulation.md).

Measured after the warm-up, on both sides alike:

- goodput: payload bytes delivered to the receiving applications;
- congestion signals at the bottleneck queue: CE marks when the flows use ECN,
  drops when they do not (the simulator's queue time series sampled at the
  warm-up's end; the router's counters noted at the same moment);
- retransmitted segments and timeouts (whole run; Linux's from ``nstat``);
- the time to regain W_max after a window reduction (``ecnlab.analysis.regain``: its one
  definition), from each flow's cwnd sampled every ``SAMPLE_S`` (the simulator's flow time
  series; Linux's ``TCP_INFO`` in the sending program, ``timeseries-flows.parquet``): the
  median over the reductions after the warm-up that regained, with how many did; and, for
  the simulator, that median against RFC 9438's closed form (K = ∛(W_max·(1 − β)/C), §4.2).

The grids:

- ``reno``: 10 and 50 Mbit/s × 20 and 80 ms × 1 and 4 flows × RED without
  and with ECN, SACK; and the same RED points without ECN with NewReno and
  no SACK.
- ``cubic``: 10 and 50 Mbit/s × 20 and 80 ms × 1 and 4 flows × RED+ECN,
  FQ-CoDel and DualPI2 (classic ECN flows in its C queue), SACK; and 100
  Mbit/s, 100 ms, 1 flow.
- ``dctcp``: the same rates, RTTs and flow counts through a step
  marker at K = max(20, ⌈BDP/7⌉) packets (RFC 8257 §4.1's guideline K > C·RTT/7),
  Linux running ecnlab's BPF DCTCP (``ecnlab.emu.bpf``) where it has none.
- ``bbr``: BBRv1 (the simulator's ``bbr_version = "v1"``, the kernel's ``tcp_bbr.c``, each
  pacing itself; the simulator's sender paces Linux's GSO chunks, ``tso = "linux"``) at 10
  and 50 Mbit/s × 20 and 80 ms × 1 and 2 flows through the CUBIC grid's queues: RED+ECN,
  FQ-CoDel with ECN and DualPI2 (classic ECN flows in its C queue). Below its table: Linux
  BBR's own bandwidth estimate and min_rtt at each run's end (``ss``) over the path's.

Each row also shows the bottleneck's mean queue (packets) and the mean and 99th percentile
of its packets' sojourn (ms), all after the warm-up: the simulator's summary and the router's
own measurement of the same queue (over several runs, the means of each run's values). Each Linux
run's CPU steal is measured (``ecnlab.emu.steal``: time the hypervisor gave this machine's
vCPUs to others); the runs it disturbed are named under the table and judged all the same.
With ``redo`` > 0 a disturbed Linux run is set aside and run again with the same seed, up to
``redo`` times; the first undisturbed attempt is kept (else the least disturbed), decided by
the steal alone, before any of its numbers is compared, and every attempt set aside is named
under the table with its steal and goodput.

Targets: with SACK, goodput within 5 % and signals within 1.5× at
every point; NewReno without SACK, goodput within 10 %; CUBIC also the
median regain time within 10 % (not judged where neither side regained W_max after
the warm-up). BBR: goodput within 10 % and the queue delay, mean and 99th percentile
each, within 1.5×; its signals are shown, not judged (BBRv1 does not answer CE marks: its
window is its model's, ``bbr_set_cwnd``; losses it does answer, and they show in the
retransmissions). The verdict of a point names what missed.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ecnlab.analysis.regain import Reduction, frame_reductions, median_regain_s
from ecnlab.emu.steal import PEAK_WARN_S, Steal

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Point",
    "Measure",
    "grid",
    "scenario",
    "measure_sim",
    "measure_emu",
    "verdict",
    "run_fidelity",
    "format_table",
    "format_spread",
    "format_disturbed",
]

BOTTLENECK = "R1->R2"
GOODPUT_TOL = 0.05
GOODPUT_TOL_NOSACK = 0.10
GOODPUT_TOL_BBR = 0.10
SIGNAL_RATIO = 1.5
#: BBR's target for the bottleneck's mean and 99th-percentile sojourn, sim / Linux.
DELAY_RATIO = 1.5
REGAIN_TOL = 0.10
#: Sampling interval of the queue and flow time series, seconds (each regain time is measured
#: to within one interval at either end).
SAMPLE_S = 0.01

# RED as in scenarios/emulate-reno-ecn.toml: 30/90 packets, max_p 0.1, wq 2^-5 (Linux
# `tc red`'s weight for its recommended burst), gentle, a limit well above max_th.
_RED = {"kind": "red", "limit": 1000, "min_th": 30, "max_th": 90, "max_p": 0.1, "wq": 0.03125, "gentle": True}


@dataclass(frozen=True)
class Point:
    rate_mbit: int
    rtt_ms: int
    flows: int
    queue: str  # "red", "fq_codel", "dualpi2", "step"
    ecn: bool
    cc: str = "reno"
    recovery: str = "sack"
    k_pkts: int = 0  # the step marker's threshold

    @property
    def name(self) -> str:
        q = f"{self.queue}{'+ecn' if self.ecn else ''}"
        return f"{self.cc}-{self.recovery}-{q}-{self.rate_mbit}M-{self.rtt_ms}ms-{self.flows}f"

    @property
    def goodput_tol(self) -> float:
        if self.cc == "bbr":
            return GOODPUT_TOL_BBR
        return GOODPUT_TOL if self.recovery == "sack" else GOODPUT_TOL_NOSACK


@dataclass(frozen=True)
class BbrEstimate:
    """A Linux BBR sender's own path model as ``ss -ti`` prints it (``bbr:(bw:…,mrtt:…)``,
    ``bbr_get_info``): its bandwidth estimate (payload bit/s: packets · MSS) and its min_rtt."""

    bw_bps: float
    min_rtt_ms: float

    @staticmethod
    def parse(ss: str | None) -> list[BbrEstimate]:
        """Every BBR socket's estimates in one ``ss -ti`` output."""
        scale = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
        found = re.findall(r"bbr:\(bw:([0-9.]+)([KMG]?)bps,mrtt:([0-9.]+)", ss or "")
        return [BbrEstimate(float(bw) * scale[unit], float(rtt)) for bw, unit, rtt in found]

    @staticmethod
    def mean(xs: list[BbrEstimate | None]) -> BbrEstimate | None:
        known = [x for x in xs if x is not None]
        if not known:
            return None
        n = len(known)
        return BbrEstimate(sum(x.bw_bps for x in known) / n, sum(x.min_rtt_ms for x in known) / n)


@dataclass(frozen=True)
class Measure:
    goodput_bps: float
    signals: float  # marks after the warm-up when ECN is on, else drops
    retransmits: float
    timeouts: float
    avg_qlen_pkts: float  # the bottleneck's mean queue after the warm-up
    reductions: tuple[Reduction, ...] = ()  # every flow's window reductions after the warm-up
    runs: tuple[Measure, ...] = ()  # a mean's runs, in seed order (empty for one run)
    steal: Steal | None = None  # a Linux run's CPU steal (emu/steal.py); None: simulated, a mean, unknown
    set_aside: tuple[Measure, ...] = ()  # a Linux run's disturbed attempts run again (``redo``)
    sojourn_mean_ms: float | None = None  # the bottleneck's packets' mean sojourn after the warm-up
    sojourn_p99_ms: float | None = None  # and its 99th percentile (None: no packet left the queue)
    bbr: BbrEstimate | None = None  # Linux BBR's own model at the end of the run (``ss``); None: not BBR, simulated

    @property
    def regain_s(self) -> float | None:
        """Median time to regain W_max over the reductions that regained it (None: none did)."""
        return median_regain_s(self.reductions)

    @property
    def regained(self) -> int:
        return sum(r.regain_s is not None for r in self.reductions)

    @property
    def closed_form_ratio(self) -> float | None:
        """Median of regain time / RFC 9438's closed form over the reductions that regained."""
        import statistics

        ratios = [r.regain_s / r.closed_form_s for r in self.reductions if r.regain_s and r.closed_form_s]
        return statistics.median(ratios) if ratios else None

    @staticmethod
    def mean(runs: list[Measure]) -> Measure:
        """Several runs of one point: the means of the counts, every run's reductions, and
        the runs themselves (:func:`format_spread` shows them one by one); one run is itself."""
        n = len(runs)
        if n == 1:
            return runs[0]
        return Measure(
            sum(m.goodput_bps for m in runs) / n,
            sum(m.signals for m in runs) / n,
            sum(m.retransmits for m in runs) / n,
            sum(m.timeouts for m in runs) / n,
            sum(m.avg_qlen_pkts for m in runs) / n,
            tuple(r for m in runs for r in m.reductions),
            tuple(runs),
            sojourn_mean_ms=_mean_known([m.sojourn_mean_ms for m in runs]),
            sojourn_p99_ms=_mean_known([m.sojourn_p99_ms for m in runs]),
            bbr=BbrEstimate.mean([m.bbr for m in runs]),
        )


def _mean_known(values: list[float | None]) -> float | None:
    """The mean of per-run values, None unless every run has one."""
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def step_k(rate_mbit: int, rtt_ms: int) -> int:
    """K = max(20, ⌈C·RTT/7⌉) packets of 1500 bytes (RFC 8257 §4.1; DCTCP 2010 §3.4)."""
    bdp = rate_mbit * 1e6 * rtt_ms / 1e3 / (1500 * 8)
    return max(20, math.ceil(bdp / 7))


#: The queues of the CUBIC and BBR grids: (kind, ECN).
_MODERN_QUEUES = (("red", True), ("fq_codel", True), ("dualpi2", True))


def grid(kind: str, quick: bool = False) -> list[Point]:
    """The points of ``kind`` ("reno", "cubic", "dctcp" or "bbr"); ``quick``: the 10 Mbit/s, 20 ms ones."""
    rates, rtts = ((10,), (20,)) if quick else ((10, 50), (20, 80))
    counts = (1, 2) if kind == "bbr" else (1, 4)
    base = [(r, d, n) for r in rates for d in rtts for n in counts]
    if kind == "bbr":
        return [Point(r, d, n, q, ecn, cc="bbr") for (r, d, n) in base for q, ecn in _MODERN_QUEUES]
    if kind == "reno":
        pts = [Point(r, d, n, "red", ecn) for (r, d, n) in base for ecn in (False, True)]
        return pts + [Point(r, d, n, "red", False, recovery="newreno") for (r, d, n) in base]
    if kind == "cubic":
        pts = [Point(r, d, n, q, ecn, cc="cubic") for (r, d, n) in base for q, ecn in _MODERN_QUEUES]
        return pts if quick else pts + [Point(100, 100, 1, "red", True, cc="cubic")]
    if kind == "dctcp":
        return [Point(r, d, n, "step", True, cc="dctcp", k_pkts=step_k(r, d)) for (r, d, n) in base]
    raise ValueError(f"grid kind {kind!r}: must be reno, cubic, dctcp or bbr")


def _queue(p: Point) -> dict[str, Any]:
    if p.queue == "red":
        return {**_RED, "ecn": p.ecn}
    if p.queue == "fq_codel":
        return {"kind": "fq_codel", "ecn": p.ecn}
    if p.queue == "step":
        return {"kind": "step", "limit": 1000, "threshold": p.k_pkts, "ecn": True}
    return {"kind": p.queue}


def scenario(p: Point, seconds: float, warmup: float, seed: int = 1, stagger: float = 0.0) -> dict[str, Any]:
    """The scenario both sides run (see the module doc); ``seed``: the queues' random streams and
    the flows' starts; ``stagger`` > 0: each flow starts at a uniform draw from [0, stagger] s
    (the same draws on both sides), else all at 0."""
    return {
        "name": f"fidelity-{p.name}",
        "seed": seed,
        "duration": seconds,
        "warmup": warmup,
        "sample_interval": SAMPLE_S,  # the queue's marks and drops at the warm-up's end; cwnd
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "access_rate": "1Gbit",
            "access_delay": "0s",
            "bottleneck_rate": f"{p.rate_mbit}Mbit",
            "bottleneck_delay": f"{p.rtt_ms / 2}ms",
            "bottleneck_queue": _queue(p),
        },
        "tcp": _tcp(p),
        "output": {"timeseries_links": [BOTTLENECK], "timeseries_flows": ["*"]},
        "flows": [{"name": "bulk", "from": "s1", "to": "r1", "count": p.flows, "start": _start(stagger)}],
    }


def _tcp(p: Point) -> dict[str, Any]:
    """The flows' ``[tcp]``: the linux personality; BBR paces Linux's GSO chunks (``tso = "linux"``:
    Linux's BBR always sends them, and its min_rtt samples carry a chunk's serialisation)."""
    tcp = {"personality": "linux", "recovery": p.recovery, "cc": p.cc, "ecn": p.ecn, "rwnd": "16MiB"}
    return tcp | {"tso": "linux"} if p.cc == "bbr" else tcp


def _start(stagger: float) -> float | str:
    return f"0s..{stagger}s" if stagger > 0 else 0.0


def _flow_totals(summary: dict[str, Any]) -> tuple[float, int, int]:
    """Goodput, retransmitted segments and timeouts of every flow; live flows sharing a
    host have no counters of their own, so there the sending host's ``nstat`` counts."""
    flows = summary["flows"]
    goodput = float(sum(f["goodput_bps"] for f in flows))
    if any(f["retransmits"] is None or f["timeouts"] is None for f in flows):
        nstat = summary["emulation"]["nstat"]["s1"]
        return goodput, nstat["TcpRetransSegs"], nstat["TcpExtTCPTimeouts"]
    return goodput, int(sum(f["retransmits"] for f in flows)), int(sum(f["timeouts"] for f in flows))


def _reductions(flows: pd.DataFrame, mss: float, warmup: float, keep: Path | None) -> tuple[Reduction, ...]:
    """The window reductions after the warm-up; ``keep``: also write the flow series there."""
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        flows.to_parquet(keep, index=False)
    return tuple(frame_reductions(flows, mss=mss, after_s=warmup))


def measure_sim(
    p: Point, seconds: float, warmup: float, keep: Path | None = None, seed: int = 1, stagger: float = 0.0
) -> Measure:
    """The simulator's side; ``keep``: write its flow time series to this Parquet file."""
    from ecnlab.config import load_scenario
    from ecnlab.runner import run
    from ecnlab.timeseries import QUEUES_FILE

    sc = scenario(p, seconds, warmup, seed, stagger)
    res = run(sc)
    q = next(x for x in res.summary["queues"] if x["link"] == BOTTLENECK)
    series = res.series[QUEUES_FILE].to_pydict()
    at = next(i for i, t in enumerate(series["t_s"]) if t >= warmup - 1e-9)
    key = "marks" if p.ecn else "drops"
    total = q["marks"] if p.ecn else q["early_drops"] + q["forced_drops"] + q["overflow_drops"]
    goodput, rtx, tos = _flow_totals(res.summary)
    reds = _reductions(res.flow_timeseries, load_scenario(sc).flows[0].tcp.mss, warmup, keep)
    m = Measure(goodput, int(total - series[key][at]), rtx, tos, float(q["avg_qlen_pkts"]), reds)
    return _with_sojourn(m, q)


def _with_sojourn(m: Measure, q: dict[str, Any]) -> Measure:
    """``m`` with the queue record's mean and 99th-percentile sojourn (the simulator's summary and
    the router's use the same keys, both measured after the warm-up)."""
    return replace(m, sojourn_mean_ms=_ms(q.get("sojourn_mean_ms")), sojourn_p99_ms=_ms(q.get("sojourn_p99_ms")))


def _ms(x: Any) -> float | None:
    return None if x is None else float(x)


def measure_emu(
    p: Point, seconds: float, warmup: float, keep: Path | None = None, seed: int = 1, stagger: float = 0.0
) -> Measure:
    """Real Linux's side; ``keep``: write its flow time series (``TCP_INFO`` samples) there."""
    from ecnlab.emu.run import emulate

    sc = scenario(p, seconds, warmup, seed, stagger)
    # The live router samples no queue series (it notes the counters at the warm-up); the
    # senders sample their TCP_INFO.
    sc["output"] = {"timeseries_flows": ["*"]}
    with tempfile.TemporaryDirectory(prefix="ecnlab-fidelity-") as tmp:
        res = emulate(sc, out=Path(tmp) / "out")
    s = res.summary
    after = s["emulation"]["router"]["after_warmup"][BOTTLENECK]
    goodput, rtx, tos = _flow_totals(s)
    q = next(x for x in s["queues"] if x["link"] == BOTTLENECK)
    # cwnd_bytes = tcpi_snd_cwnd · tcpi_snd_mss (1448 with timestamps): back to segments by the same MSS.
    mss = next(iter(s["emulation"]["flows"].values()))["tcp_info"]["snd_mss"]
    reds = _reductions(res.flow_timeseries, mss, warmup, keep)
    signals = int(after["marks" if p.ecn else "drops"])
    cpu = s["emulation"].get("cpu_steal")
    steal = None if cpu is None else Steal(cpu["total_s"], cpu["peak_s"])
    # Flows to one peer share their sender's `ss` output: each socket once.
    outputs = {f.get("ss") for f in s["emulation"]["flows"].values()}
    est = BbrEstimate.mean([e for out in outputs for e in BbrEstimate.parse(out)])
    m = Measure(goodput, signals, rtx, tos, float(q["avg_qlen_pkts"]), reds, steal=steal, bbr=est)
    return _with_sojourn(m, q)


class Disturbable(Protocol):
    """A Linux run's measure as :func:`linux_run` handles it: a dataclass with its CPU steal and
    a ``set_aside`` field (:class:`Measure`, ``l4slive.Measure``)."""

    @property
    def steal(self) -> Steal | None: ...


M = TypeVar("M", bound=Disturbable)


def linux_run(measure: Callable[[Path | None], M], keep: Path | None, redo: int, log: Callable[[str], None]) -> M:
    """One Linux run by ``measure(series_path)``; while the hypervisor disturbed it
    (:attr:`Steal.disturbed`) and ``redo`` allows, it is set aside and run again. Kept: the
    first undisturbed attempt, else the least disturbed; chosen by the steal alone. The kept
    one's series is written to ``keep``, a set-aside one's to ``keep`` with ``-set-aside-J``
    before the suffix; the attempts set aside ride on the kept measure (``set_aside``)."""
    tries: list[tuple[M, Path | None]] = []
    for attempt in range(redo + 1):
        path = None if keep is None else keep.with_name(f"{keep.stem}-attempt-{attempt}{keep.suffix}")
        m = measure(path)
        tries.append((m, path))
        if m.steal is None or not m.steal.disturbed:
            break
        again = ", running it again" if attempt < redo else ""
        log(f"warning: the hypervisor took {m.steal.peak_s:.2f} s of CPU in one second of this run{again}")
    best = min(range(len(tries)), key=lambda i: _peak(tries[i][0]))
    aside = [t for i, t in enumerate(tries) if i != best]
    if keep is not None:
        for j, (_, path) in enumerate(aside, start=1):
            _move(path, keep.with_name(f"{keep.stem}-set-aside-{j}{keep.suffix}"))
        _move(tries[best][1], keep)
    return replace(tries[best][0], set_aside=tuple(m for m, _ in aside))  # type: ignore[type-var]  # M is a dataclass (Disturbable)


def _say(log: Callable[[str], None], name: str, msg: str) -> None:
    log(f"  {name}: {msg}")


def _peak(m: Disturbable) -> float:
    """The most CPU stolen in one second of a Linux run (0 where unknown)."""
    return 0.0 if m.steal is None else m.steal.peak_s


def _move(src: Path | None, dst: Path) -> None:
    if src is not None and src.exists():
        src.replace(dst)


def _ratio(a: float, b: float) -> float:
    """a/b, with 0/0 = 1 and a/0 = inf."""
    if b == 0:
        return 1.0 if a == 0 else float("inf")
    return a / b


def verdict(p: Point, sim: Measure, emu: Measure) -> str:
    """ "ok" or what missed its target (goodput beyond tolerance, signals beyond 1.5× but for BBR,
    BBR's queue delay beyond 1.5×, CUBIC's regain time beyond 10 % or measured on one side only)."""
    miss = []
    g = _ratio(sim.goodput_bps, emu.goodput_bps)
    if abs(g - 1) > p.goodput_tol:
        miss.append(f"goodput {g - 1:+.1%}")
    s = _ratio(sim.signals, emu.signals)
    if p.recovery == "sack" and p.cc != "bbr" and not 1 / SIGNAL_RATIO <= s <= SIGNAL_RATIO:
        miss.append(f"signals ×{s:.2f}")
    if p.cc == "bbr":
        miss += _delay_misses(sim, emu)
    if p.cc == "cubic":
        a, b = sim.regain_s, emu.regain_s
        if a is not None and b is not None and abs(a / b - 1) > REGAIN_TOL:
            miss.append(f"regain {a / b - 1:+.0%}")
        elif (a is None) != (b is None):
            miss.append(f"regain on the {'Linux' if a is None else 'simulator'} side only")
    return "ok" if not miss else "; ".join(miss)


def _delay_misses(sim: Measure, emu: Measure) -> list[str]:
    """The queue delays (mean, p99 sojourn) beyond ``DELAY_RATIO`` either way, or known on one side only."""
    miss = []
    for what, a, b in (
        ("mean", sim.sojourn_mean_ms, emu.sojourn_mean_ms),
        ("p99", sim.sojourn_p99_ms, emu.sojourn_p99_ms),
    ):
        if (a is None) != (b is None):
            miss.append(f"{what} delay on the {'Linux' if a is None else 'simulator'} side only")
        elif a is not None and b is not None and not 1 / DELAY_RATIO <= _ratio(a, b) <= DELAY_RATIO:
            miss.append(f"{what} delay ×{_ratio(a, b):.2f}")
    return miss


def run_length(seconds: float | None, quick: bool) -> tuple[float, float]:
    """A run's length and warm-up, seconds: ``seconds`` (default 30; 10 with ``quick``), the
    warm-up a third of it, at most 5 s."""
    secs = seconds if seconds is not None else (10.0 if quick else 30.0)
    return secs, min(5.0, secs / 3)


def run_fidelity(
    kind: str,
    quick: bool,
    log: Callable[[str], None],
    *,
    seconds: float | None = None,
    only: str | None = None,
    series: Path | None = None,
    runs: int = 1,
    stagger: float = 0.0,
    redo: int = 0,
) -> Iterator[dict[str, Any]]:
    """Each point's row (both sides' measures, the ratios and the verdict), as it finishes;
    ``only``: the points whose name contains it; ``series``: a directory for each point's flow
    time series (``NAME-sim.parquet``, ``NAME-linux.parquet``, ``-K`` before the suffix for
    run K when ``runs`` > 1); ``runs``: runs per side, seeds 1 … runs (the queues' random
    streams; Linux's timing differs run to run anyway), compared by their means; ``stagger``: the
    flows' starts drawn from [0, stagger] s by each seed (:func:`scenario`); ``redo``: how many
    times a Linux run the hypervisor disturbed is run again (:func:`linux_run`)."""
    secs, warm = run_length(seconds, quick)
    for p in grid(kind, quick):
        if only is not None and only not in p.name:
            continue
        sims, emus = [], []
        for seed in range(1, runs + 1):
            of = f" (seed {seed} of {runs})" if runs > 1 else ""
            log(f"  {p.name}: simulating, then emulating {secs:g} s{of}")
            tag = "" if runs == 1 else f"-{seed}"
            keep = {
                side: None if series is None else series / f"{p.name}-{side}{tag}.parquet" for side in ("sim", "linux")
            }
            sims.append(measure_sim(p, secs, warm, keep["sim"], seed, stagger))
            one = partial(measure_emu, p, secs, warm, seed=seed, stagger=stagger)
            emus.append(linux_run(one, keep["linux"], redo, partial(_say, log, p.name)))
        sim, emu = Measure.mean(sims), Measure.mean(emus)
        row = {"point": p, "sim": sim, "emu": emu, "verdict": verdict(p, sim, emu), "seconds": secs, "warmup": warm}
        yield {**row, "runs": runs}


HEADER = (
    "| cc | recovery | queue | rate | RTT | flows | goodput sim / Linux (Mbit/s) | Δ | "
    "signals sim / Linux | ratio | queue sim / Linux (pkts) | sojourn mean sim / Linux (ms) | "
    "sojourn p99 sim / Linux (ms) | rtx sim / Linux | timeouts sim / Linux | "
    "regain W_max sim / Linux (s; regained/reductions) | Δ | ÷ RFC 9438 sim / Linux | verdict |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _regain_cells(sim: Measure, emu: Measure) -> str:
    def side(m: Measure) -> str:
        med = "—" if m.regain_s is None else f"{m.regain_s:.2f}"
        return f"{med} ({m.regained}/{len(m.reductions)})"

    def ratio(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    a, b = sim.regain_s, emu.regain_s
    delta = "—" if a is None or b is None else f"{a / b - 1:+.0%}"
    rfc = f"{ratio(sim.closed_form_ratio)} / {ratio(emu.closed_form_ratio)}"
    return f"{side(sim)} / {side(emu)} | {delta} | {rfc}"


def _sojourn_cells(sim: Measure, emu: Measure) -> str:
    """The mean and p99 sojourn cells, "sim / Linux" each (— where a side has none)."""

    def ms(x: float | None) -> str:
        return "—" if x is None else f"{x:.1f}"

    mean = f"{ms(sim.sojourn_mean_ms)} / {ms(emu.sojourn_mean_ms)}"
    return f"{mean} | {ms(sim.sojourn_p99_ms)} / {ms(emu.sojourn_p99_ms)}"


def _count(x: float) -> str:
    """A count, or a mean of counts over several runs (one decimal)."""
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def format_row(row: dict[str, Any]) -> str:
    p: Point = row["point"]
    sim: Measure = row["sim"]
    emu: Measure = row["emu"]
    q = f"{p.queue}{'+ECN' if p.ecn else ''}" + (f" K={p.k_pkts}" if p.queue == "step" else "")
    kind = "marks" if p.ecn else "drops"
    g = _ratio(sim.goodput_bps, emu.goodput_bps) - 1
    return (
        f"| {p.cc} | {p.recovery} | {q} | {p.rate_mbit}M | {p.rtt_ms} ms | {p.flows} | "
        f"{sim.goodput_bps / 1e6:.2f} / {emu.goodput_bps / 1e6:.2f} | {g:+.1%} | "
        f"{_count(sim.signals)} / {_count(emu.signals)} {kind} | {_ratio(sim.signals, emu.signals):.2f} | "
        f"{sim.avg_qlen_pkts:.1f} / {emu.avg_qlen_pkts:.1f} | {_sojourn_cells(sim, emu)} | "
        f"{_count(sim.retransmits)} / {_count(emu.retransmits)} | "
        f"{_count(sim.timeouts)} / {_count(emu.timeouts)} | {_regain_cells(sim, emu)} | {row['verdict']} |"
    )


def format_bbr_estimates(rows: list[dict[str, Any]]) -> str:
    """Linux BBR's own model at each run's end beside the path, one line per number of flows: the flows'
    bandwidth estimates together over the bottleneck's payload rate (MSS 1448 of each 1500-byte packet)
    and min_rtt over the base RTT, as ranges over the points; empty unless a Linux side was BBR."""
    by_flows: dict[int, list[tuple[float, float]]] = {}
    for r in rows:
        p, est = r["point"], r["emu"].bbr
        if est is not None:
            rate = p.rate_mbit * 1e6 * 1448 / 1500
            by_flows.setdefault(p.flows, []).append((est.bw_bps * p.flows / rate, est.min_rtt_ms / p.rtt_ms))
    parts = []
    for n, xs in sorted(by_flows.items()):
        bw, rtt = [x for x, _ in xs], [y for _, y in xs]
        parts.append(
            f"{n} flow{'s' if n > 1 else ''}: bandwidth estimate{'s together' if n > 1 else ''} "
            f"{min(bw):.3f}–{max(bw):.3f}× the payload rate, min_rtt {min(rtt):.3f}–{max(rtt):.3f}× the base RTT"
        )
    return f"Linux BBR at each run's end (`ss -ti`), {'; '.join(parts)}." if parts else ""


def format_table(rows: list[dict[str, Any]], *, spread: bool = True) -> str:
    """The grid's table, the count within targets, Linux BBR's estimates, the disturbed runs and
    (``spread``) the run-to-run table; a stored result keeps the last as its ``details``."""
    ok = sum(r["verdict"] == "ok" for r in rows)
    lines = [HEADER, *(format_row(r) for r in rows), "", f"{ok} of {len(rows)} points within their targets."]
    if est := format_bbr_estimates(rows):
        lines += ["", est]
    disturbed = format_disturbed(rows)
    runs = format_spread(rows) if spread else ""
    return "\n".join(lines + (["", disturbed] if disturbed else []) + (["", runs] if runs else []))


def _labelled_linux_runs(row: dict[str, Any]) -> list[tuple[str, Measure]]:
    """Each Linux run of a row with its name: the point's, and "(seed K)" when there are several."""
    emu: Measure = row["emu"]
    name = row["point"].name
    if not emu.runs:
        return [(name, emu)]
    return [(f"{name} (seed {k})", m) for k, m in enumerate(emu.runs, start=1)]


def format_disturbed(rows: list[dict[str, Any]]) -> str:
    """The Linux runs during which the hypervisor took more than ``PEAK_WARN_S`` of CPU
    within one second (empty if none): their timing was not the network's alone; then the
    attempts set aside as disturbed and run again (``redo``), each with its goodput."""
    runs = [(label, m) for r in rows for label, m in _labelled_linux_runs(r)]
    hits = [f"{label}: {m.steal.peak_s:.2f} s" for label, m in runs if m.steal is not None and m.steal.disturbed]
    aside = [
        f"{label}: " + ", ".join(f"{_peak(a):.2f} s, {a.goodput_bps / 1e6:.2f} Mbit/s" for a in m.set_aside)
        for label, m in runs
        if m.set_aside
    ]
    lines = []
    if hits:
        lines.append(
            f"Linux runs the machine disturbed (CPU stolen by the hypervisor within one second, more than "
            f"{PEAK_WARN_S:g} s): " + "; ".join(hits) + "."
        )
    if aside:
        lines.append(
            "Linux runs set aside as disturbed and run again (most stolen in one second, goodput; "
            "not in the table): " + "; ".join(aside) + "."
        )
    return "\n\n".join(lines)


def _spread(values: list[float | None], fmt: str) -> str:
    """Per-run values, and the largest over the smallest − 1 when every run has one."""
    cells = ", ".join("—" if v is None else format(v, fmt) for v in values)
    known = [v for v in values if v is not None]
    if len(known) < 2 or len(known) < len(values) or min(known) <= 0:
        return f"{cells} | —"
    return f"{cells} | {max(known) / min(known) - 1:.0%}"


def format_spread(rows: list[dict[str, Any]]) -> str:
    """Run to run, for the rows compared by means of several runs (empty if none): each
    run's goodput and median regain time on each side, and how far each side's runs lie
    apart (largest / smallest − 1) — Linux against Linux is the repeatability that a
    simulator-against-Linux difference is to be read beside."""
    multi = [r for r in rows if r["sim"].runs and r["emu"].runs]
    if not multi:
        return ""
    lines = [
        "Run to run (seeds 1 … N on each side; spread = largest / smallest − 1):",
        "",
        "| point | goodput per run sim (Mbit/s) | spread | goodput per run Linux | spread | "
        "regain per run sim (s) | spread | regain per run Linux (s) | spread | CPU stolen per Linux run, "
        "most in one second (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in multi:
        cells = [_spread([m.goodput_bps / 1e6 for m in side.runs], ".2f") for side in (r["sim"], r["emu"])] + [
            _spread([m.regain_s for m in side.runs], ".2f") for side in (r["sim"], r["emu"])
        ]
        cells.append(", ".join("—" if m.steal is None else f"{m.steal.peak_s:.2f}" for m in r["emu"].runs))
        lines.append(f"| {r['point'].name} | {' | '.join(cells)} |")
    return "\n".join(lines)

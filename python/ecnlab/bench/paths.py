"""``ecnlab bench paths``: real Linux TCP through the path impairments, beside the simulator's
``linux`` personality (``ecnlab run`` beside ``ecnlab emulate``, as ``bench fidelity``).

Each point is one Reno flow with ECN (SACK) from s1 to r1 on a dumbbell: 1 Gbit/s zero-delay
access links, a 10 Mbit/s bottleneck of 10 ms each way (RTT 20 ms) with ``bench fidelity``'s
RED+ECN queue (30/90 packets, max_p 0.1, wq 2⁻⁵, gentle), and one impairment on the client's
access link ``s1->R1`` for the whole run (docs/scenario.md, "Impairments"):

- ``syn-blackhole``: ``drop_ecn_syn``, a box that drops ECN-setup SYNs (RFC 3168 §6.1.1.1),
  once with ``tcp.syn_ecn_fallback = "retransmissions"`` (Linux ``net.ipv4.tcp_ecn_fallback =
  1``, its default: the retransmitted SYN carries no ECE/CWR and passes) and once with ``"off"``
  (``tcp_ecn_fallback = 0``: every SYN asks for ECN and is dropped);
- ``bleach``: ``bleach``, ECT → Not-ECT before the RED+ECN queue, which then drops where it
  would have marked;
- ``ce-all``: ``ce_all``, CE on every ECT packet, classic ECN (RFC 3168): the sender halves its
  window once per round trip for the whole run.

The AccECN points (the same SYN blackhole and bleaching with ``tcp.ecn = "accecn"``) run in the
simulator only: a kernel whose ``net.ipv4.tcp_ecn`` stops at 2 cannot negotiate AccECN, and
``ecnlab emulate`` refuses it.

Measured per run, on both sides alike, over the whole run (no warm-up): the flow's connection
time (its first SYN to the connection established at the client: the simulator's
``connect_time_s``; around Linux's ``connect()``), SYN and SYN-ACK retransmissions, goodput from
the flow's start, and the bottleneck's CE marks and drops. ``runs`` runs per point and side (seeds
1 … runs), compared by their means; a connection time is the mean over the runs that connected.

The verdict, decided by these rules before any run:

- SYN blackhole with the fallback: every run connects on both sides and the mean connection
  times agree within 10 % (timer arithmetic: both wait one initial RTO of 1 s, Linux's
  ``TCP_TIMEOUT_INIT``, then one RTT);
- SYN blackhole without the fallback: no run connects on either side within the run (Linux gives
  up only after ``tcp_syn_retries`` + ``tcp_syn_linear_timeouts`` = 10 retransmissions, about two
  minutes: ``tcp_write_timeout`` in ``net/ipv4/tcp_timer.c``);
- bleaching: no CE mark on either side, drops on both, goodput within 10 %;
- CE on every packet: every run negotiates ECN on both sides, goodput within 10 %.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Point",
    "Measure",
    "Side",
    "POINTS",
    "scenario",
    "measure",
    "verdict",
    "run_paths",
    "format_row",
    "format_table",
    "HEADER",
]

BOTTLENECK = "R1->R2"
#: Where every point's impairment sits: the client's access link.
IMPAIRED = "s1->R1"
CONNECT_TOL = 0.10
GOODPUT_TOL = 0.10
SECONDS = 5.0


@dataclass(frozen=True)
class Point:
    name: str
    #: The impairment's action (docs/scenario.md, "Impairments").
    action: str
    #: ``tcp.syn_ecn_fallback``: "retransmissions" (``tcp_ecn_fallback`` = 1) or "off" (0).
    fallback: str = "retransmissions"
    #: ``tcp.ecn``: True (RFC 3168) or "accecn" (simulator only).
    ecn: bool | str = True

    @property
    def live(self) -> bool:
        """Whether real Linux runs it (this kernel has no AccECN)."""
        return self.ecn is True

    @property
    def kind(self) -> str:
        return self.name.split("/")[0]


POINTS = (
    Point("syn-blackhole/fallback", "drop_ecn_syn", "retransmissions"),
    Point("syn-blackhole/no-fallback", "drop_ecn_syn", "off"),
    Point("bleach", "bleach"),
    Point("ce-all", "ce_all"),
    Point("syn-blackhole/fallback/accecn", "drop_ecn_syn", "retransmissions", "accecn"),
    Point("bleach/accecn", "bleach", ecn="accecn"),
)


@dataclass(frozen=True)
class Measure:
    """One run of one side."""

    connect_s: float | None  # None: never connected within the run
    syn_retransmits: int
    goodput_bps: float
    marks: int
    drops: int
    ecn_negotiated: bool


@dataclass(frozen=True)
class Side:
    """A point's runs on one side and their means."""

    runs: tuple[Measure, ...]

    @property
    def connected(self) -> int:
        return sum(m.connect_s is not None for m in self.runs)

    @property
    def connect_s(self) -> float | None:
        """Mean connection time over the runs that connected (None: none did)."""
        times = [m.connect_s for m in self.runs if m.connect_s is not None]
        return sum(times) / len(times) if times else None

    def mean(self, key: str) -> float:
        return sum(float(getattr(m, key)) for m in self.runs) / len(self.runs)


def scenario(p: Point, seconds: float, seed: int = 1) -> dict[str, Any]:
    """The scenario both sides run (the module doc)."""
    from ecnlab.bench.fidelity import Point as FidelityPoint
    from ecnlab.bench.fidelity import scenario as fidelity_scenario

    sc = fidelity_scenario(FidelityPoint(10, 20, 1, "red", True), seconds, 0.0, seed)
    sc["name"] = f"paths-{p.name.replace('/', '-')}"
    sc["tcp"].update(ecn=p.ecn, syn_ecn_fallback=p.fallback)
    sc["output"] = {}
    sc["impairments"] = [{"link": IMPAIRED, "action": p.action}]
    del sc["sample_interval"]
    return sc


def _measure(summary: dict[str, Any]) -> Measure:
    f = summary["flows"][0]
    q = next(x for x in summary["queues"] if x["link"] == BOTTLENECK)
    drops = q["early_drops"] + q["forced_drops"] + q["overflow_drops"]
    return Measure(
        f["connect_time_s"], int(f["syn_retransmits"]), float(f["goodput_bps"]), int(q["marks"]), int(drops),
        bool(f["ecn_negotiated"]),
    )  # fmt: skip


def measure(p: Point, seconds: float, seed: int, live: bool) -> Measure:
    """One run: the simulator's (``live`` False) or real Linux's through the router."""
    sc = scenario(p, seconds, seed)
    if not live:
        from ecnlab.runner import run

        return _measure(run(sc).summary)
    from ecnlab.emu.run import emulate

    with tempfile.TemporaryDirectory(prefix="ecnlab-paths-") as tmp:
        return _measure(emulate(sc, out=Path(tmp) / "out").summary)


def _within(a: float, b: float, tol: float) -> bool:
    return b > 0 and abs(a / b - 1) <= tol


def _connected(sim: Side, linux: Side) -> str:
    return f"connected in {sim.connected}/{len(sim.runs)} sim, {linux.connected}/{len(linux.runs)} Linux runs"


def _goodput(sim: Side, linux: Side) -> list[str]:
    a, b = sim.mean("goodput_bps"), linux.mean("goodput_bps")
    return [] if _within(a, b, GOODPUT_TOL) else [f"goodput {a / b - 1:+.0%}" if b > 0 else "no Linux goodput"]


def _blackhole(p: Point, sim: Side, linux: Side) -> list[str]:
    everyone = sim.connected == len(sim.runs) and linux.connected == len(linux.runs)
    if p.fallback == "off":
        return [_connected(sim, linux)] if sim.connected or linux.connected else []
    a, b = sim.connect_s, linux.connect_s
    if not everyone or a is None or b is None:
        return [_connected(sim, linux)]
    return [] if _within(a, b, CONNECT_TOL) else [f"connection time {a / b - 1:+.0%}"]


def _bleach(p: Point, sim: Side, linux: Side) -> list[str]:
    miss = ["CE marks despite bleaching"] if sim.mean("marks") or linux.mean("marks") else []
    miss += [] if sim.mean("drops") and linux.mean("drops") else ["no drops on one side"]
    return miss + _goodput(sim, linux)


def _ce_all(p: Point, sim: Side, linux: Side) -> list[str]:
    miss = [] if all(m.ecn_negotiated for m in sim.runs + linux.runs) else ["ECN not negotiated in every run"]
    return miss + _goodput(sim, linux)


#: The module doc's rule of each impairment: what missed (empty: as expected).
RULES: dict[str, Callable[[Point, Side, Side], list[str]]] = {
    "drop_ecn_syn": _blackhole,
    "bleach": _bleach,
    "ce_all": _ce_all,
}


def verdict(p: Point, sim: Side, linux: Side | None) -> str:
    """``ok`` (for the blackhole without the fallback, ``ok: neither side connects within the
    run``), what missed, or why there is no Linux side."""
    if linux is None:
        return "simulator only (no AccECN in this kernel)"
    miss = RULES[p.action](p, sim, linux)
    if miss:
        return "; ".join(miss)
    return "ok: neither side connects within the run" if p.fallback == "off" else "ok"


def run_paths(
    log: Callable[[str], None], *, runs: int = 3, seconds: float = SECONDS, only: str | None = None
) -> Iterator[dict[str, Any]]:
    """Each point's row (``point``, ``sim``, ``linux`` (None for AccECN), ``verdict``) as it finishes."""
    for p in POINTS:
        if only is not None and only not in p.name:
            continue
        log(f"  {p.name}: {runs} run(s) of {seconds:g} s" + (", simulated then emulated" if p.live else ", simulated"))
        sim = Side(tuple(measure(p, seconds, seed, live=False) for seed in range(1, runs + 1)))
        linux = Side(tuple(measure(p, seconds, seed, live=True) for seed in range(1, runs + 1))) if p.live else None
        yield {"point": p, "sim": sim, "linux": linux, "verdict": verdict(p, sim, linux), "seconds": seconds}


HEADER = (
    "| point | impairment on s1->R1 | ECN | `tcp_ecn_fallback` | connection time sim / Linux (s; runs connected) | "
    "SYN retransmissions sim / Linux | goodput sim / Linux (Mbit/s) | marks / drops sim | marks / drops Linux | "
    "verdict |\n|---|---|---|---|---|---|---|---|---|---|"
)


def _num(x: float) -> str:
    """A count, or a mean of counts over several runs (one decimal)."""
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def _connect_cell(s: Side) -> str:
    t = s.connect_s
    return f"{'never' if t is None else f'{t:.3f}'} ({s.connected}/{len(s.runs)})"


def _goodput_cell(s: Side) -> str:
    return f"{s.mean('goodput_bps') / 1e6:.2f}"


def format_row(row: dict[str, Any]) -> str:
    p: Point = row["point"]
    sim: Side = row["sim"]
    linux: Side | None = row["linux"]
    fallback = "1" if p.fallback == "retransmissions" else "0"
    ecn = "AccECN" if p.ecn == "accecn" else "RFC 3168"

    def pair(f: Callable[[Side], str]) -> str:
        return f"{f(sim)} / {'—' if linux is None else f(linux)}"

    def signals(s: Side | None) -> str:
        return "—" if s is None else f"{_num(s.mean('marks'))} / {_num(s.mean('drops'))}"

    return (
        f"| {p.name} | `{p.action}` | {ecn} | {fallback} | {pair(_connect_cell)} | "
        f"{pair(lambda s: _num(s.mean('syn_retransmits')))} | {pair(_goodput_cell)} | "
        f"{signals(sim)} | {signals(linux)} | {row['verdict']} |"
    )


def format_table(rows: list[dict[str, Any]]) -> str:
    live = [r for r in rows if r["linux"] is not None]
    ok = sum(r["verdict"].startswith("ok") for r in live)
    runs = len(rows[0]["sim"].runs) if rows else 0
    secs = rows[0]["seconds"] if rows else SECONDS
    foot = (
        f"{ok} of {len(live)} points with a Linux side as the rules expect; {runs} run(s) of {secs:g} s per point "
        "and side (seeds 1 … N), means shown."
    )
    return "\n".join([HEADER, *(format_row(r) for r in rows), "", foot])

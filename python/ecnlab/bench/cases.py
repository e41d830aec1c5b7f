"""The benchmark cases (a)–(d) of docs/performance.md as ecnlab scenarios.

Each case is a dumbbell of N NewReno bulk flows through one RED bottleneck
(rate R, delay D) with ECN; access links 10×R, 1 ms. Flows start evenly
spread over the first second (flow i at i·1 s/N) so they do not synchronise;
the same start list goes to every peer. Goodput and utilisation count only
after the warm-up. With more flows than ``MAX_PAIRS`` the flows share
``MAX_PAIRS`` host pairs round-robin (10 000 host pairs would measure ns-2's
node set-up, not its packet handling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Case", "CASES", "QUICK", "scenario_dict", "MAX_PAIRS", "STAGGER_S"]

MAX_PAIRS = 100
STAGGER_S = 1.0


@dataclass(frozen=True)
class Case:
    """One benchmark case; ``label`` is the issue's wording."""

    name: str
    label: str
    rate_bps: int
    delay_s: float
    flows: int
    min_th: float
    max_th: float
    max_p: float
    limit: int
    duration_s: float
    warmup_s: float

    @property
    def pairs(self) -> int:
        return min(self.flows, MAX_PAIRS)


CASES: dict[str, Case] = {
    c.name: c
    for c in (
        Case(
            "a",
            "1.5 Mbit/s, 20 ms, 10 flows, RED 5/15/0.1 limit 60, 60 s",
            1_500_000,
            0.020,
            10,
            5,
            15,
            0.1,
            60,
            60,
            10,
        ),
        Case(
            "b",
            "100 Mbit/s, 10 ms, 100 flows, RED 30/90/0.1 limit 300, 20 s",
            100_000_000,
            0.010,
            100,
            30,
            90,
            0.1,
            300,
            20,
            5,
        ),
        Case(
            "c",
            "1 Gbit/s, 10 ms, 100 flows, RED 300/900/0.1 limit 3000, 30 s",
            10**9,
            0.010,
            100,
            300,
            900,
            0.1,
            3000,
            30,
            5,
        ),
        Case(
            "d",
            "1 Gbit/s, 10 ms, 10 000 flows, RED 300/900/0.1 limit 3000, 10 s",
            10**9,
            0.010,
            10_000,
            300,
            900,
            0.1,
            3000,
            10,
            3,
        ),
    )
}
QUICK = ("a", "b")


def _tcp(personality: str) -> dict[str, Any]:
    """The TCP of the ecnlab side. Against ns-2, the ns2 TCP personality (ns-2.35's
    ``Agent/TCP`` rules; the peer script sets only what the scenario names, so every other
    rule is ns-2's default, which the personality models); against ns-3, the settings the
    ns-3 peer was measured with (docs/performance.md)."""
    tcp: dict[str, Any] = {
        "variant": "newreno",
        "ecn": True,
        "rwnd": 1 << 20,
        "min_rto": "200ms",
        "initial_rto": "1s",
        "window_scale": False,
    }
    if personality == "ns2":
        return {"personality": "ns2", **tcp}
    # Growth per ACK, no Limited Transmit, the timer restarted on every partial ACK, and the
    # window an ECN reduction leaves as ns-3's (ecn_min_cwnd 2).
    return {**tcp, "ecn_min_cwnd": 2, "abc": 0, "limited_transmit": False, "newreno_timer": "slow_but_steady"}


def scenario_dict(case: Case, personality: str, *, seed: int = 1) -> dict[str, Any]:
    """The ecnlab scenario of ``case`` with RED of ``personality`` (``ns2`` or ``ns3``)."""
    queue: dict[str, Any] = {
        "kind": "red",
        "limit": case.limit,
        "min_th": case.min_th,
        "max_th": case.max_th,
        "max_p": case.max_p,
        "wq": 0.002,
        "gentle": True,
        "wait": True,
        "ecn": True,
        "personality": personality,
    }
    # personality ns2 keeps ns-2's default mark_p_ 0.1 (docs/performance.md): ECT
    # packets chosen while RED's probability is >= 0.1 (the gentle region) are
    # dropped, as in every ns-2 run that does not change it.
    flows = [
        {
            "name": f"f{i + 1}",
            "kind": "bulk",
            "from": f"s{i % case.pairs + 1}",
            "to": f"r{i % case.pairs + 1}",
            "start": f"{i * STAGGER_S / case.flows:.9f}s",
        }
        for i in range(case.flows)
    ]
    return {
        "name": f"bench-{case.name}",
        "description": case.label,
        "seed": seed,
        "duration": f"{case.duration_s}s",
        "warmup": f"{case.warmup_s}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": case.pairs,
            "access_rate": 10 * case.rate_bps,
            "access_delay": "1ms",
            "bottleneck_rate": case.rate_bps,
            "bottleneck_delay": f"{case.delay_s}s",
            "bottleneck_queue": queue,
        },
        "tcp": _tcp(personality),
        "flows": flows,
    }

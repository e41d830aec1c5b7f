"""RED min_th / max_th for the RFC 2884 testbed, derived from the paper's goal.

RFC 2884 §4.4 gives no thresholds. It says the RED queue "degenerates into a
simple Tail Drop queue" when the average exceeds max_th, and that the
parameters were tuned so that "the average queue zones around the RED region"
at low, moderate and high congestion. We turn that goal into a rule, decided
before any run and never adjusted toward the paper's results:

1. Equilibrium (the "queue law", Firoiu & Borden, INFOCOM 2000, §III): N
   long-lived TCP flows through a link of C packets/s with base RTT R0 keep
   ``N · W(p) = C·R0 + q`` packets in flight, where q is the average queue and
   W(p) the window a TCP holds at congestion-signal probability p. W is the
   Mathis et al. 1997 (CCR 27(3), eq. 3) window ``sqrt(3 / (2·b·p))`` with
   b = 2 packets per ACK (delayed ACKs). ECN flows halve on a mark as Reno
   halves on a drop (RFC 2481 §6.1.2), so one law covers both.
2. RED's signal probability at average q is ``pb = max_p·(q − min_th)/(max_th
   − min_th)``; with marks spaced uniformly by the count since the last one
   (F&J 1993 §7, Linux ``sch_red``) the per-packet rate is ≈ 2·pb.
3. The average stays below max_th exactly when the queue the flows need at
   the largest signal rate (2·max_p) is below max_th:
   ``q_needed(N, max_p) = N·W(2·max_p) − C·R0 < max_th``. It is largest for
   the most flows and the smallest max_p of the grid, so that point sets
   max_th, with a 1.5× margin for the fluctuation of the average around the
   fluid equilibrium (slow start of new flows, timeouts), rounded up to a
   multiple of 5 packets.
4. min_th = max_th / 3 (Floyd, "RED: discussions of setting parameters",
   1997: max_th at least twice min_th, three times recommended).
5. The average stays above min_th while the flows can fill the pipe plus
   min_th without any signal: ``N_min · rwnd > C·R0 + min_th`` (checked).

One (min_th, max_th) serves every point of the grid, so moving along the
congestion or max_p axis changes only that axis. The runs record the RED
average every second; the report prints its mean and the share of samples
inside [min_th, max_th] at every point, so a reader sees whether the rule held.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Bottleneck", "Thresholds", "window_pkts", "queue_needed", "derive", "TESTBED"]


@dataclass(frozen=True)
class Bottleneck:
    """The bottleneck as the rule sees it."""

    rate_bps: float
    base_rtt_s: float
    pkt_bytes: int
    rwnd_pkts: float
    acks_per_pkt: float = 0.5  # delayed ACKs: b = 2 packets per ACK

    @property
    def bdp_pkts(self) -> float:
        """C·R0 in packets."""
        return self.rate_bps * self.base_rtt_s / (8 * self.pkt_bytes)


@dataclass(frozen=True)
class Thresholds:
    min_th: int
    max_th: int
    limit: int
    worst_queue_pkts: float  # q_needed at the most flows and the smallest max_p


def window_pkts(p: float, b: float = 2.0) -> float:
    """Mathis et al. 1997 eq. 3: the average window at signal probability p."""
    if not 0 < p <= 1:
        raise ValueError(f"p = {p}: must be in (0, 1]")
    return math.sqrt(3.0 / (2.0 * b * p))


def queue_needed(path: Bottleneck, flows: int, max_p: float) -> float:
    """Average queue N flows need when RED signals at its largest rate, 2·max_p (step 3)."""
    b = 1.0 / path.acks_per_pkt
    return flows * window_pkts(min(1.0, 2.0 * max_p), b) - path.bdp_pkts


def derive(path: Bottleneck, flow_counts: list[int], max_ps: list[float], margin: float = 1.5) -> Thresholds:
    """The rule of the module docstring: one (min_th, max_th) for the whole grid."""
    worst = max(queue_needed(path, n, p) for n in flow_counts for p in max_ps)
    max_th = 5 * math.ceil(margin * worst / 5)
    min_th = max_th // 3
    fewest = min(flow_counts)
    if fewest * path.rwnd_pkts <= path.bdp_pkts + min_th:  # step 5
        raise ValueError(f"{fewest} flows with rwnd {path.rwnd_pkts} pkts cannot reach min_th {min_th}")
    return Thresholds(min_th=min_th, max_th=max_th, limit=2 * max_th, worst_queue_pkts=worst)


# The testbed of testbed.toml: 1.5 Mbit/s; RTT = 2·20 ms (R1–R2) + 4·0.1 ms (LAN)
# + serialisation of a 1500 B packet at 1.5 Mbit/s (8 ms) and at 10 Mbit/s
# twice (2·1.2 ms) + a 40 B ACK back (≈0.1 ms); rwnd 32767 B ≈ 22 segments.
TESTBED = Bottleneck(rate_bps=1.5e6, base_rtt_s=0.0509, pkt_bytes=1500, rwnd_pkts=32767 / 1460)
# Flow counts on the bottleneck: background 2/5/10 plus the two competing flows.
GRID_FLOWS = [4, 7, 12]
GRID_MAX_P = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5]


def for_testbed() -> Thresholds:
    return derive(TESTBED, GRID_FLOWS, GRID_MAX_P)


if __name__ == "__main__":  # python -m ecnlab.experiments.rfc2884.thresholds
    t = for_testbed()
    print(f"BDP {TESTBED.bdp_pkts:.2f} pkts; worst q_needed {t.worst_queue_pkts:.1f} pkts")
    print(f"min_th {t.min_th}, max_th {t.max_th}, limit {t.limit}")
    for n in GRID_FLOWS:
        row = "  ".join(f"{p}: {queue_needed(TESTBED, n, p):6.1f}" for p in GRID_MAX_P)
        print(f"N={n:2d} q_needed  {row}")

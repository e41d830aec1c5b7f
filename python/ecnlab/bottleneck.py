"""Where a run's congestion signals happened, against the queue the scenario meant as its bottleneck.

A common reason an AQM experiment measures something other than the AQM: the bottleneck is not where
the scenario put the AQM. A slower access link, or a short drop-tail queue before the AQM, marks and
drops first, and the configured queue never builds a standing queue.

Definitions (docs/scenario.md, "Where the signals happen"):

- A queue's **congestion signals** are its CE marks, ICMP Source Quenches and drops (early, forced,
  overflow; drops and marks at dequeue are in these counts), counted after the warm-up as every
  count of the report (the emulator's records, which have no such counts: over the run). A link's
  random losses and fault injections are not the queue's and are not counted.
- The **configured bottleneck** is, for a dumbbell, the bottleneck link in both directions
  (``R1->R2`` with ``bottleneck_queue``, ``R2->R1`` with ``reverse_queue``); for every other
  topology, the links whose queue is not plain ``droptail`` (the AQMs the scenario placed). A
  topology whose queues are all drop-tail has no configured bottleneck, and no warning.
- A run gets a **warning** when it made at least ``MIN_SIGNALS`` congestion signals and at least
  ``AWAY_SHARE`` of them happened at queues outside the configured bottleneck. The warning names the
  hops that signalled (the busiest first) and the configured queue that carried the most packets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ecnlab.model import Topology

__all__ = ["AWAY_SHARE", "MIN_SIGNALS", "configured_bottleneck", "signal_warnings", "signals"]

#: The share of a run's congestion signals away from the configured bottleneck that warns.
AWAY_SHARE = 0.9
#: Fewer signals than this in the whole run (a handshake's drop, a burst) never warn.
MIN_SIGNALS = 10
#: Hops named in the warning, the busiest first; the rest are counted.
NAMED_HOPS = 3


_SIGNALS = ("marks", "quenches", "early_drops", "forced_drops", "overflow_drops")


def signals(q: Mapping[str, Any]) -> int:
    """A queue record's congestion signals: marks, Source Quenches and drops of every reason, counted
    after the warm-up (``*_after_warmup``, as the report's table) where the record has those counts,
    else over the run (the emulator's records)."""
    after = [q.get(f"{k}_after_warmup") for k in _SIGNALS]
    if all(v is not None for v in after[:1] + after[2:]):
        return int(sum(v or 0 for v in after))
    return int(sum(q.get(k) or 0 for k in _SIGNALS))


def configured_bottleneck(topology: Topology) -> dict[str, str]:
    """The queues the scenario meant as its bottleneck: link name → queue kind (see the module doc)."""
    if topology.kind == "dumbbell":
        return {link.name: link.queue.kind for link in topology.links if link.name in ("R1->R2", "R2->R1")}
    return {link.name: link.queue.kind for link in topology.links if link.queue.kind != "droptail"}


def signal_warnings(topology: Topology, queues: Iterable[Mapping[str, Any]]) -> list[str]:
    """The warning (at most one) when the run's signals happened away from the configured bottleneck."""
    records = list(queues)
    total = sum(signals(q) for q in records)
    meant = configured_bottleneck(topology) if total >= MIN_SIGNALS else {}
    if not meant:
        return []
    away = sorted(
        ((signals(q), q["link"]) for q in records if q["link"] not in meant and signals(q)), key=lambda x: (-x[0], x[1])
    )
    n_away = sum(n for n, _ in away)
    if n_away < AWAY_SHARE * total:
        return []
    kinds = {link.name: link.queue.kind for link in topology.links}
    share = 100 * n_away / total
    named = [f"{link} ({kinds.get(link, '?')}: {n})" for n, link in away[:NAMED_HOPS]]
    if len(away) > NAMED_HOPS:
        named.append(f"{len(away) - NAMED_HOPS} other queues")
    hops = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    arrivals = {q["link"]: q["arrivals"] for q in records}
    target = max(sorted(meant), key=lambda link: arrivals.get(link, 0))
    return [
        f"{int(share)} % of the congestion signals ({n_away} of {total} marks and drops) happened at {hops}, "
        f"not at the configured bottleneck {target} ({meant[target]})"
    ]

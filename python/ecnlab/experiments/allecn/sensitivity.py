"""Sensitivity checks behind the report's explanations: what the paper leaves open, varied one at a time.

``python -m ecnlab.experiments.allecn.sensitivity`` runs the paper's section
4.2 cells (10 and 25 clients, d = 20 ms, QL = 64) with

- RED as ecnlab models it (Floyd & Jacobson 1993 + gentle), as ns-2.35 does
  (``personality = "ns2"``: ECT packets are dropped, not marked, once the
  RED probability exceeds ``mark_p`` = 0.1) and ns-2.35's byte-mode default
  (queue averaged in 500-byte units);
- TCP details the paper does not give: initial window 1, RFC 6298 timers
  (1 s minimum RTO, 1 ms tick) instead of ns-2's, and NewReno instead of Reno.

It is an explanation tool, not a fit: the study's sweep files keep the
choices documented in base.toml whatever these tables show.

The registered parts ``allecn-sensitivity-red`` and ``allecn-sensitivity-tcp``
(:mod:`.diagnostics`, ``sensitivity-*.toml``) run the same variants as sweeps and
store their results; ``python -m`` prints the tables without storing them.
"""

from __future__ import annotations

import sys
from typing import Any

import pandas as pd

from ecnlab.experiments.allecn.metrics import run_metrics
from ecnlab.experiments.allecn.paper import red_thresholds

__all__ = ["queue_overrides", "variant_table", "RED_VARIANTS", "TCP_VARIANTS"]

SHOWN = [
    "network_overhead_pct",
    "excess_packets",
    "receiver_overhead_pct",
    "acks_per_transfer",
    "timeouts",
    "tt_mean_s",
]

RED_VARIANTS: dict[str, dict[str, Any]] = {
    "ecnlab (F&J 1993, gentle)": {},
    "ns-2 mark_p rule": {"personality": "ns2"},
    "ns-2 mark_p + byte mode, 500 B": {"personality": "ns2", "mode": "byte", "mean_pkt_size": 500},
}
TCP_VARIANTS: dict[str, list[str]] = {
    "base.toml (ns-2 timers)": [],
    "init_cwnd 1": ["tcp.init_cwnd=1"],
    "RFC 6298 timers": ["tcp.min_rto=1s", "tcp.initial_rto=1s", "tcp.clock_granularity=1ms"],
    "NewReno": ["tcp.variant=newreno"],
}


def queue_overrides(scheme: str, ql: int, red_extra: dict[str, Any] | None = None) -> list[str]:
    """``--set`` overrides of base.toml for router B's queue (as sweep.toml's labels set it)."""
    if scheme == "DT":
        return [f"topology.bottleneck_queue={{kind = 'droptail', limit = {ql}}}", "tcp.ecn=false"]
    lo, hi = red_thresholds(ql)
    fields = {"kind": "red", "limit": ql, "min_th": lo, "max_th": hi, "max_p": 0.1, "wq": 0.002, "gentle": True}
    fields |= red_extra or {}
    fields["ecn"] = scheme == "ECN"
    text = ", ".join(f"{k} = {_toml(v)}" for k, v in fields.items())
    return [f"topology.bottleneck_queue={{{text}}}", f"tcp.ecn={_toml(scheme == 'ECN')}"]


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"'{v}'"
    return str(v)


def variant_table(
    cells: list[tuple[int, str, str, int]], variants: dict[str, list[str]], *, seeds: list[int]
) -> pd.DataFrame:
    """Metrics (means over ``seeds``) of each (clients, d, scheme, QL) cell under each variant."""
    from importlib import resources

    import ecnlab

    base = resources.files(__package__) / "base.toml"
    rows = []
    for clients, d, scheme, ql in cells:
        for name, extra in variants.items():
            for seed in seeds:
                overrides = [f"topology.pairs={clients}", f"topology.bottleneck_delay={d}", *extra]
                r = ecnlab.run(str(base), seed=seed, overrides=overrides)
                m = run_metrics(r.flows, r.queues, files=11, file_bytes=102_400, mss=1460)
                rows.append({"clients": clients, "d": d, "ql": ql, "variant": name, "scheme": scheme,
                             **{k: m[k] for k in SHOWN}})  # fmt: skip
    frame = pd.DataFrame(rows)
    return frame.groupby(["clients", "d", "ql", "variant", "scheme"], sort=False)[SHOWN].mean().reset_index()


def main(argv: list[str]) -> int:
    seeds = [1, 2, 3]
    red_cells: dict[tuple[int, str, str], list[str]] = {}
    tcp_cells: dict[tuple[int, str, str], list[str]] = {}
    for clients in (10, 25):
        for scheme in ("RED", "ECN"):
            for name, red in RED_VARIANTS.items():
                red_cells[(clients, scheme, name)] = queue_overrides(scheme, 64, red)
        for scheme in ("DT", "RED", "ECN"):
            for name, tcp in TCP_VARIANTS.items():
                tcp_cells[(clients, scheme, name)] = queue_overrides(scheme, 64) + tcp
    for title, table in (("RED implementation", red_cells), ("TCP details", tcp_cells)):
        frames = [variant_table([(c, "20ms", s, 64)], {name: ov}, seeds=seeds) for (c, s, name), ov in table.items()]
        print(f"# {title}: d = 20 ms, QL = 64, means over seeds {seeds}")
        print(pd.concat(frames).to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

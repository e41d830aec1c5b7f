"""Which direction did the paper corrupt? Errors on the client links towards the clients, from them, or both.

The paper (4.4) puts "a Bernoulli trials error model on the links connecting
the clients with router A" without a direction; ``errors.toml`` corrupts both.
Its receiver overheads (ECN 0.56 % at 1 % errors) are below what 1 % errors on
the data direction give by themselves (every damaged data packet reaches the
client, counts as received and is sent again: at least ~1 % excess), which
suggests ns-2 corrupted only the clients' outgoing packets (ACKs), as
``$ns lossmodel $em $client $routerA`` does. This module runs that check.

The dumbbell's ``access_corrupt`` covers both directions of a link, so the
base scenario is rewritten as the identical explicit topology (same nodes,
links in the same order, hence the same random streams) with one-way links
whose ``corrupt`` is set per direction. ``python -m
ecnlab.experiments.allecn.direction`` prints the comparison.

The registered part ``allecn-direction`` (:mod:`.diagnostics`, ``direction.toml``)
runs it as a sweep and stores its results; ``python -m`` prints the table only.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import pandas as pd

from ecnlab.config import read_toml
from ecnlab.experiments.allecn.metrics import run_metrics

__all__ = ["DIRECTIONS", "explicit_scenario", "direction_table"]

# direction -> (corruption towards the clients R2->r_i, corruption from the clients r_i->R2)
DIRECTIONS = {"both": (True, True), "to_clients": (True, False), "from_clients": (False, True)}


def _oneway(a: str, b: str, rate: Any, delay: Any, corrupt: float, queue: Any = None) -> dict[str, Any]:
    link = {"from": a, "to": b, "rate": rate, "delay": delay, "duplex": False, "corrupt": corrupt}
    if queue is not None:
        link["queue"] = queue
    return link


def explicit_scenario(data: dict[str, Any], *, rate: float, to_clients: bool, from_clients: bool) -> dict[str, Any]:
    """The dumbbell scenario ``data`` as an explicit topology with client-link errors in chosen directions.

    Nodes and links come in the dumbbell's order (docs/scenario.md), so with
    both directions on the result equals the dumbbell run with ``access_corrupt = rate``.
    """
    out = copy.deepcopy(data)
    t = out["topology"]
    n = int(t["pairs"])
    ar, ad = t["access_rate"], t["access_delay"]
    senders, clients = [f"s{i}" for i in range(1, n + 1)], [f"r{i}" for i in range(1, n + 1)]
    nodes = [{"name": h, "kind": "host"} for h in senders + clients]
    nodes += [{"name": "R1", "kind": "router"}, {"name": "R2", "kind": "router"}]
    links = []
    for s in senders:
        links += [_oneway(s, "R1", ar, ad, 0.0), _oneway("R1", s, ar, ad, 0.0)]
    br, bd = t["bottleneck_rate"], t["bottleneck_delay"]
    links += [
        _oneway("R1", "R2", br, bd, 0.0, t.get("bottleneck_queue")),
        _oneway("R2", "R1", br, bd, 0.0, t.get("reverse_queue")),
    ]
    for r in clients:
        links += [
            _oneway("R2", r, ar, ad, rate if to_clients else 0.0),
            _oneway(r, "R2", ar, ad, rate if from_clients else 0.0),
        ]
    out["topology"] = {"kind": "explicit", "nodes": nodes, "links": links, "default_queue": t["default_queue"]}
    return out


def direction_table(
    base: dict[str, Any], cells: list[tuple[int, str, dict[str, Any], bool]], *, rate: float, seeds: list[int]
) -> pd.DataFrame:
    """Run every (clients, d, queue, ecn) cell for each direction and seed; metrics averaged over seeds.

    ``cells``: (clients, bottleneck delay, bottleneck queue table, tcp.ecn).
    """
    import ecnlab

    rows = []
    for clients, d, queue, ecn in cells:
        for direction, (down, up) in DIRECTIONS.items():
            for seed in seeds:
                data = copy.deepcopy(base)
                data["topology"].update(pairs=clients, bottleneck_delay=d, bottleneck_queue=queue)
                data["tcp"]["ecn"] = ecn
                sc = explicit_scenario(data, rate=rate, to_clients=down, from_clients=up)
                r = ecnlab.run(sc, seed=seed)
                m = run_metrics(r.flows, r.queues, files=11, file_bytes=102_400, mss=1460)
                scheme = "DT" if queue["kind"] == "droptail" else ("ECN" if ecn else "RED")
                rows.append({"clients": clients, "d": d, "scheme": scheme, "ql": queue["limit"],
                             "direction": direction, "seed": seed, **m})  # fmt: skip
    frame = pd.DataFrame(rows)
    keys = ["clients", "d", "ql", "direction", "scheme"]
    shown = ["receiver_overhead_pct", "network_overhead_pct", "acks_per_transfer", "corrupted_received", "tt_mean_s"]
    return frame.groupby(keys, sort=False)[shown].mean().reset_index()


def main(argv: list[str]) -> int:
    """The paper's 4.4 cell (25 clients, QL 128) at d = 2 and 20 ms, 3 seeds."""
    from importlib import resources

    base = read_toml(resources.files(__package__) / "base.toml")  # type: ignore[arg-type]
    red = {"kind": "red", "limit": 128, "min_th": 40, "max_th": 120, "max_p": 0.1, "wq": 0.002, "gentle": True}
    cells = []
    for d in ("2ms", "20ms"):
        cells += [
            (25, d, {"kind": "droptail", "limit": 128}, False),
            (25, d, red, False),
            (25, d, {**red, "ecn": True}, True),
        ]
    table = direction_table(base, cells, rate=0.01, seeds=[1, 2, 3])
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

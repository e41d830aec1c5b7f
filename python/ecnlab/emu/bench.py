"""Router benchmark (root; not a test): ``python -m ecnlab.emu.bench [--seconds S]``.

1. Shaping accuracy: two Reno flows saturate a 10 Mbit/s and a 100 Mbit/s
   DropTail bottleneck (20 ms each way); the IP bit rate the receiving kernel
   saw arrive on its TUN device between warm-up and the end (its own device
   counters, not the router's) is compared with the configured rate, and the
   router's median / p99 delivery lateness is reported.
2. Forwarding capacity without shaping: every link 100 Gbit/s with no delay,
   so the router's per-packet work, the TUN writes and the two TCP stacks
   are the only limits; reports delivered IP Mbit/s and packets/s.
Prints a Markdown table (the README's numbers come from it).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from ecnlab.emu.run import emulate


def scenario(rate: str, delay: str, access: str, seconds: float) -> dict[str, Any]:
    return {
        "name": f"bench-{rate}",
        "duration": seconds,
        "warmup": min(2.0, seconds / 3),
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "access_rate": access,
            "access_delay": "0s",
            "bottleneck_rate": rate,
            "bottleneck_delay": delay,
            "bottleneck_queue": {"kind": "droptail", "limit": 1000},
        },
        "tcp": {"variant": "sack", "rwnd": "16MiB", "min_rto": "200ms"},
        "flows": [{"name": "bulk", "from": "s1", "to": "r1", "count": 2}],
    }


def measure(sc: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ecnlab-bench-") as tmp:
        s = emulate(sc, out=Path(tmp) / "out").summary
    emu = s["emulation"]
    span = sc["duration"] - sc["warmup"]
    bottleneck = next(link for link in s["links"] if link["name"] == "R1->R2")
    delivered = next(link for link in s["links"] if link["name"] == "R2->r1")
    return {
        "delivered_bps": emu["delivered_ip_bps"]["r1"],
        "router_bps": bottleneck["utilization"] * bottleneck["rate_bps"],
        "pps": delivered["packets"] / sc["duration"],
        "goodput_bps": sum(f["goodput_bps"] for f in s["flows"]),
        "lateness": emu["router"]["lateness"],
        "span": span,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    print("| case | configured | delivered IP (kernel) | error | goodput | median / p99 lateness |")
    print("|---|---|---|---|---|---|")
    for rate, bps in (("10Mbit", 10e6), ("100Mbit", 100e6)):
        m = measure(scenario(rate, "20ms", "1Gbit", args.seconds))
        err = (m["delivered_bps"] - bps) / bps * 100
        lat = m["lateness"]
        print(
            f"| shaping | {bps / 1e6:g} Mbit/s | {m['delivered_bps'] / 1e6:.2f} Mbit/s | {err:+.2f} % | "
            f"{m['goodput_bps'] / 1e6:.2f} Mbit/s | {lat['p50_us']:.0f} / {lat['p99_us']:.0f} µs |"
        )
    m = measure(scenario("100Gbit", "0s", "100Gbit", args.seconds))
    lat = m["lateness"]
    print(
        f"| no shaping | — | {m['delivered_bps'] / 1e6:.0f} Mbit/s ({m['pps'] / 1e3:.0f} k packets/s) | — | "
        f"{m['goodput_bps'] / 1e6:.0f} Mbit/s | {lat['p50_us']:.0f} / {lat['p99_us']:.0f} µs |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``ecnlab bench peers [--quick]``: the command-line side of :mod:`ecnlab.bench.peers`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "add_parsers", "dispatch"]

COMMANDS = ("bench",)


def add_parsers(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks (ecnlab bench peers: side by side with ns-2 and ns-3)")
    bsub = bench.add_subparsers(dest="bench_command", metavar="BENCHMARK", required=True)
    peers = bsub.add_parser("peers", help="run ecnlab, ns-2 and ns-3 on the cases of docs/peers.md")
    peers.add_argument("--quick", action="store_true", help="cases (a) and (b) only")
    peers.add_argument("--cases", help="comma-separated case names (a,b,c,d); default: all, or a,b with --quick")
    peers.add_argument("--reps", type=int, default=None, help="repetitions per tool (default 3; 2 with --quick)")
    peers.add_argument("--no-ns3", action="store_true", help="leave out ns-3 (and its ecnlab column)")
    peers.add_argument("--no-install", action="store_true", help="do not pip-install the ns-3 bindings if missing")
    peers.add_argument("--json", type=Path, metavar="FILE", help="also write the full report as JSON")
    peers.add_argument("--markdown", type=Path, metavar="FILE", help="also write the summary table (README format)")
    scaling = bsub.add_parser("scaling", help="ecnlab's cost per packet: flows 10 -> 10 000, rate 10M -> 10G")
    scaling.add_argument("--quick", action="store_true", help="smaller grid and shorter runs")


def dispatch(args: argparse.Namespace) -> int:
    if args.bench_command == "scaling":
        from ecnlab.bench.scaling import format_scaling, run_scaling

        print(format_scaling([]))
        run_scaling(args.quick, print)
        return 0
    from ecnlab.bench.cases import CASES
    from ecnlab.bench.ns3 import install_ns3, ns3_available
    from ecnlab.bench.peers import dump, format_markdown, run_bench

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if msg.startswith("  case") else sys.stdout, flush=True)

    names = [c.strip() for c in args.cases.split(",")] if args.cases else None
    for n in names or []:
        if n not in CASES:
            print(f"ecnlab: error: --cases = {n!r}: must be one of {', '.join(CASES)}", file=sys.stderr)
            return 2
    reps = args.reps if args.reps is not None else (2 if args.quick else 3)
    if reps < 1:
        print(f"ecnlab: error: --reps = {reps}: must be >= 1", file=sys.stderr)
        return 2
    with_ns3 = not args.no_ns3
    if with_ns3 and not ns3_available() and not args.no_install:
        install_ns3(log)
    report = run_bench(names, args.quick, reps, log, with_ns3=with_ns3)
    print(f"machine: {report['machine']}")
    if args.json:
        dump(report, args.json)
    if args.markdown:
        args.markdown.write_text(f"Machine: {report['machine']}; medians of {reps} runs.\n\n" + format_markdown(report))
    return 0

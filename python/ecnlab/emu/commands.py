"""``ecnlab emulate SCENARIO --out DIR`` and ``ecnlab compare DIR_A DIR_B``.

Errors follow the CLI's rule: one line ``ecnlab: error: WHAT: message``,
exit status 2, no output directory.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parsers", "dispatch", "COMMANDS"]

COMMANDS = ("emulate", "compare")
EXIT_ERROR = 2


def add_parsers(sub: Any) -> None:
    em = sub.add_parser(
        "emulate",
        help="run a scenario on real Linux TCP through ecnlab's queues (root) and write DIR/summary.json",
        description="Run a scenario on real Linux TCP through ecnlab's queues (root). The router: "
        "$ECNLAB_ROUTER (an ecnlab-router binary) if set, else the one built into ecnlab._core "
        "(python -m ecnlab.emu.router; every Linux build and wheel has it).",
    )
    em.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (a dumbbell; see docs/emulation.md)")
    em.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="as for run")
    em.add_argument("--seed", type=int, help="run seed (the queues' random streams)")
    em.add_argument("--out", required=True, metavar="DIR", help="result directory (created only on success)")
    em.add_argument("--quiet", "-q", action="store_true", help="do not print the report")
    cmp = sub.add_parser(
        "compare", help="show two runs side by side (a simulation beside its emulation, ECN on vs off, ...)"
    )
    cmp.add_argument("sim", metavar="DIR_A", help="a result directory (`ecnlab run`, or `ecnlab emulate`)")
    cmp.add_argument("emu", metavar="DIR_B", help="another; a simulation then its emulation gives sim/emu columns")


def dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "emulate":
            return _emulate(args)
        return _compare(args)
    except KeyboardInterrupt:
        print("ecnlab: interrupted (everything the emulation created was removed)", file=sys.stderr)
        return 130


def _fail(what: str, message: str) -> int:
    print(f"ecnlab: error: {what}: {message}", file=sys.stderr)
    return EXIT_ERROR


def _emulate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ecnlab.config import load_scenario
    from ecnlab.emu.compare import format_emu_report
    from ecnlab.emu.netns import EmulationError
    from ecnlab.emu.run import PrivilegeError, emulate_scenario
    from ecnlab.errors import ScenarioError

    try:
        sc = load_scenario(args.scenario, args.overrides, seed=args.seed)
        result = emulate_scenario(sc, Path(args.out))
    except (ScenarioError, PrivilegeError, EmulationError) as e:
        return _fail(args.scenario, str(e))
    for w in result.summary["emulation"].get("warnings", []):
        print(f"ecnlab: warning: {w}", file=sys.stderr)
    if not args.quiet:
        print(format_emu_report(result.summary))
        print(f"\nwrote {Path(args.out) / 'summary.json'}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from ecnlab.emu.compare import format_comparison
    from ecnlab.results import load_result

    runs = []
    for d in (args.sim, args.emu):
        try:
            runs.append(load_result(d).summary)
        except (OSError, ValueError) as e:
            return _fail(d, f"not a result directory ({e})")
    try:
        print(format_comparison(runs[0], runs[1]))
    except ValueError as e:
        return _fail(f"{args.sim} vs {args.emu}", str(e))
    return 0

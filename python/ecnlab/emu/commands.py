"""``ecnlab emulate SCENARIO --out DIR`` and ``ecnlab compare DIR_A DIR_B [DIR_C ...]``.

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
        "compare",
        help="show runs side by side (a simulation beside its emulation, ECN on vs off, ...), "
        "optionally over time in one figure",
        description="Show runs side by side as one table: results of `ecnlab run` or `ecnlab emulate`, "
        "runs of a sweep (SWEEP_DIR/runs/NAME), or a sweep's cell, the mean over its seeds "
        "(SWEEP_DIR:COL=VALUE,...; a value for each axis). Two runs get a third column, B against A (a "
        "simulation then its emulation: simulated, emulated, emu vs sim); more get a column each, "
        "A, B, C, ... The rows are defined in docs/emulation.md, 'Comparing runs'.",
    )
    cmp.add_argument(
        "dirs", nargs="+", metavar="DIR", help="result directories or sweep cells SWEEP_DIR:COL=VALUE,... (two or more)"
    )
    cmp.add_argument(
        "--figure",
        metavar="FILE",
        help="also write one figure (PNG and SVG) of the runs over time: a flow's cwnd and RTT, a queue's length",
    )
    cmp.add_argument("--flow", metavar="ID", help="the flow of the figure (default: the first every run sampled)")
    cmp.add_argument("--link", metavar="LINK", help="the queue of the figure (default: the first run's bottleneck)")


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
    from pathlib import Path

    from ecnlab.cells import is_cell, load_cell
    from ecnlab.emu.compare import column_names, format_comparison, format_comparisons
    from ecnlab.results import RunResult, load_result

    if len(args.dirs) < 2:
        return _fail("compare", f"DIR: {len(args.dirs)} given, at least two result directories are needed")
    runs, sources = [], []
    for d in args.dirs:
        if is_cell(d):
            try:
                summary, names = load_cell(d)
            except (OSError, ValueError) as e:  # CellError is a ValueError
                return _fail(d, str(e))
            runs.append(RunResult(summary))
            sources.append(f"{d} (mean of {len(names)} runs)")
            continue
        if (Path(d) / "manifest.json").is_file():
            return _fail(d, f"a sweep directory: name one of its cells, {d}:COL=VALUE,... or a run, {d}/runs/NAME")
        try:
            runs.append(load_result(d))
        except (OSError, ValueError) as e:
            return _fail(d, f"not a result directory ({e})")
        sources.append(d)
    summaries = [r.summary for r in runs]
    names = column_names(len(runs))
    try:
        if len(runs) == 2:
            text = format_comparison(summaries[0], summaries[1])
        else:
            text = format_comparisons(summaries, sources)
    except ValueError as e:
        return _fail(" vs ".join(args.dirs), str(e))
    written = []
    if args.figure is not None:
        from ecnlab.emu.overlay import OverlayError, overlay_figure

        labels = [f"{n}: {d}" for n, d in zip(names, sources, strict=True)]
        try:
            fig = overlay_figure(runs, labels, flow=args.flow, link=args.link)
        except OverlayError as e:
            return _fail(f"--figure {args.figure}", str(e))
        from ecnlab.plots import write_figure

        written = write_figure(fig, Path(args.figure))
    print(text)
    if written:
        print("\nwrote " + ", ".join(str(p) for p in written))
    return 0

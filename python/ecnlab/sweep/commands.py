"""The ``sweep``, ``plot``, ``report`` and ``reproduce`` subcommands of ``ecnlab``.

Exit status: 0 when everything succeeded, 1 when some run failed, 2 for bad
input (one line ``ecnlab: error: WHAT: message``; nothing run or written),
130 when interrupted (complete runs stay; nothing half-written remains).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "add_parsers", "dispatch"]

COMMANDS = ("sweep", "plot", "report", "reproduce")
EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 1, 2, 130


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return n


def _runner_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", "-j", type=_positive, metavar="N", help="worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask cluster instead (ecnlab[dask])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (failures are still reported)")


def add_parsers(sub: Any) -> None:
    """Add the four subcommands to ``ecnlab``'s subparsers."""
    sw = sub.add_parser("sweep", help="run a sweep (axes x seeds) into DIR; re-running skips complete runs")
    sw.add_argument("sweep", metavar="SWEEP.toml", help="sweep file (see docs/sweeps.md)")
    sw.add_argument("--out", required=True, metavar="DIR", help="sweep directory (runs/, *.parquet, manifest.json)")
    _runner_options(sw)

    pl = sub.add_parser(
        "plot",
        help="plot a metric of a sweep against an axis, one run's queues over time, or the CDF of queueing "
        "delay, RTT or completion times of runs or sweep cells (PNG and SVG)",
    )
    pl.add_argument(
        "dir",
        metavar="DIR",
        nargs="+",
        help="sweep directory, or a run's result directory (its time series); with --cdf/--ccdf several of them",
    )
    dist = pl.add_mutually_exclusive_group()
    dist.add_argument(
        "--cdf",
        choices=("sojourn", "rtt", "fct"),
        help="draw the CDF of queueing delay (sojourn), smoothed RTT samples (rtt) or flow completion times (fct): "
        "one line per run or sweep cell",
    )
    dist.add_argument("--ccdf", choices=("sojourn", "rtt", "fct"), help="as --cdf, the complementary CDF (log scale)")
    pl.add_argument(
        "--beside", metavar="METRIC", help="with --cdf/--ccdf of a sweep: a panel of each flow's METRIC (flows table)"
    )
    pl.add_argument("--x", metavar="AXIS", help="axis on the x axis (sweeps)")
    pl.add_argument("--y", metavar="METRIC", help="result column (runs, flows or queues table; sweeps)")
    pl.add_argument(
        "--hue",
        metavar="AXIS",
        help="one line per value of this axis (--cdf: class, flow, entry, or part: each class or flow a queue keeps)",
    )
    pl.add_argument("--facet", metavar="AXIS", help="one panel per value of this axis")
    pl.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="COL=VALUE",
        help="keep rows with COL = VALUE (an axis; a queue: link=R1->R2; a flow: id=NAME; "
        "--cdf: class=L, class=all, flow=NAME, entry=NAME)",
    )
    pl.add_argument(
        "--table",
        choices=("runs", "flows", "queues"),
        help="table of METRIC (default: first having it); queues: each run's bottleneck unless a link is chosen",
    )
    pl.add_argument("--out", metavar="FILE", help="output file (PNG and SVG; default DIR/figures/Y-vs-X...)")

    rp = sub.add_parser("report", help="write DIR/report.html (figures, tables, the sweep, versions)")
    rp.add_argument("dir", metavar="DIR", help="sweep directory")
    rp.add_argument("--out", metavar="FILE", help="report file (default DIR/report.html)")

    rr = sub.add_parser("reproduce", help="run a named experiment and write its tables, figures and report")
    rr.add_argument("experiment", metavar="NAME", nargs="?", help="experiment or group (omit to list them)")
    rr.add_argument("--quick", action="store_true", help="the short version (seconds; what CI runs)")
    rr.add_argument("--out", metavar="DIR", help="output directory (default out/NAME)")
    _runner_options(rr)


def dispatch(args: argparse.Namespace) -> int:
    """Run one of COMMANDS; errors become one line and exit status 2."""
    from ecnlab.errors import EcnlabError, ResultError

    dirs = getattr(args, "dir", None)
    directory = (dirs[0] if len(dirs) == 1 else None) if isinstance(dirs, list) else dirs  # plot takes several
    what = getattr(args, "sweep", None) or directory or getattr(args, "experiment", None) or "ecnlab"
    try:
        return _COMMANDS[args.command](args)
    except ResultError as e:  # names its file already
        print(f"ecnlab: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except (EcnlabError, ValueError) as e:  # an OSError goes to cli.main: one line naming the file
        print(f"ecnlab: error: {what}: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\necnlab: interrupted; complete runs are kept, re-run to finish", file=sys.stderr)
        return EXIT_INTERRUPTED


def _sweep(args: argparse.Namespace) -> int:
    from ecnlab.sweep import load_sweep, run_sweep

    sweep = load_sweep(args.sweep)
    outcome = run_sweep(sweep, Path(args.out), jobs=args.jobs, scheduler=args.scheduler, progress=not args.no_progress)
    if outcome.failed:  # each failure was reported with its error as it happened
        names = ", ".join(name for name, _ in outcome.failed[:10]) + (", ..." if len(outcome.failed) > 10 else "")
        print(f"ecnlab: failed runs: {names}", file=sys.stderr)
    state = "all runs complete" if outcome.ok else f"{len(outcome.failed)} of {outcome.total} runs failed"
    print(f"{args.out}: {state} ({outcome.ran} run now, {outcome.skipped} already complete)")
    return 0 if outcome.ok else EXIT_FAILED


def _plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ecnlab.plots import PlotError, plot, plot_run
    from ecnlab.sweep.spec import parse_label_text

    where = {}
    for item in args.where:
        if "=" not in item:
            raise ValueError(f"--where {item!r}: expected COL=VALUE")
        col, value = item.split("=", 1)
        where[col.strip()] = parse_label_text(value.strip())
    if args.cdf or args.ccdf:
        return _plot_distribution(args, where)
    if len(args.dir) > 1:
        raise PlotError(f"{len(args.dir)} directories: only --cdf and --ccdf draw several on one axis")
    if args.beside is not None:
        raise PlotError("--beside goes with --cdf or --ccdf")
    (directory,) = args.dir
    if (Path(directory) / "summary.json").is_file() and not (Path(directory) / "manifest.json").is_file():
        for p in plot_run(directory, out=args.out):
            print(f"wrote {p}")
        return 0
    if args.x is None or args.y is None:
        raise PlotError("--x and --y are required for a sweep directory")
    paths = plot(
        directory, x=args.x, y=args.y, hue=args.hue, facet=args.facet, where=where, table=args.table, out=args.out
    )
    for p in paths:
        print(f"wrote {p}")
    return 0


def _plot_distribution(args: argparse.Namespace, where: dict[str, Any]) -> int:
    from ecnlab.cdfplots import plot_distribution
    from ecnlab.plots import PlotError

    for option in ("x", "y", "facet", "table"):
        if getattr(args, option) is not None:
            raise PlotError(f"--{option} does not go with --cdf/--ccdf (lines: runs or cells; --hue, --where)")
    for d in args.dir:
        if not (Path(d) / "summary.json").is_file() and not (Path(d) / "manifest.json").is_file():
            what = f"{d}: " if len(args.dir) > 1 else ""  # one DIR: the error line names it already
            raise PlotError(f"{what}neither a run's result directory nor a sweep directory")
    paths = plot_distribution(
        args.dir,
        kind=args.cdf or args.ccdf,
        ccdf=args.ccdf is not None,
        hue=args.hue,
        where=where,
        beside=args.beside,
        out=args.out,
    )
    for p in paths:
        print(f"wrote {p}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from ecnlab.report import sweep_report

    print(f"wrote {sweep_report(args.dir, args.out)}")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from ecnlab import experiments

    if args.experiment is None:
        listed = experiments.names()
        print("\n".join(listed) if listed else "no experiments registered yet")
        return 0
    out = Path(args.out) if args.out else Path("out") / args.experiment
    outcome = experiments.reproduce(
        args.experiment,
        out=out,
        quick=args.quick,
        jobs=args.jobs,
        scheduler=args.scheduler,
        progress=not args.no_progress,
    )
    for name, d in outcome.dirs.items():
        print(f"{name}: wrote {d / 'report.html'}")
    return 0 if outcome.ok else EXIT_FAILED


_COMMANDS = {"sweep": _sweep, "plot": _plot, "report": _report, "reproduce": _reproduce}

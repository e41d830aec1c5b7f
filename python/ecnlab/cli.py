"""Command line: ``ecnlab run`` and ``ecnlab validate`` (and ``sweep``, ``plot``, ``report``, ``reproduce``:
:mod:`ecnlab.sweep.commands`; ``emulate``, ``compare``: :mod:`ecnlab.emu.commands`; ``bench``:
:mod:`ecnlab.bench.commands`).

Errors print one line, ``ecnlab: error: FILE: <message>``, and exit with
status 2; a failed run leaves no output directory behind. An operating-system
error on a file (a full disk, a quota, a read-only directory) is one line
naming the file and the cause, status 2 (``files.py`` writes every result file
whole, so what was written before stays). Output is UTF-8 whatever the
terminal's encoding (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``): names outside
ASCII never stop a command after its results were written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from ecnlab.model import Scenario

__all__ = ["main", "entry", "command_process", "exit_with"]

EXIT_ERROR = 2
# Commands that need none of the other commands' modules: `main` builds only
# their parsers, which keeps `ecnlab run`'s start-up short (docs/performance.md).
CORE_COMMANDS = ("run", "validate")


def _parser(core_only: bool = False) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ecnlab", description="Packet-level ECN/AQM simulator.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (see docs/scenario.md)")
        sp.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override a field; VALUE is a TOML literal or a bare string (repeatable)",
        )
        sp.add_argument("--seed", type=int, help="run seed (same as --set seed=N)")

    run = sub.add_parser("run", help="run a scenario and write DIR/summary.json")
    common(run)
    run.add_argument("--out", required=True, metavar="DIR", help="result directory (created only on success)")
    run.add_argument("--quiet", "-q", action="store_true", help="do not print the report")
    val = sub.add_parser("validate", help="check a scenario file without running it")
    common(val)
    val.add_argument(
        "--show",
        choices=("resolved", "engine"),
        help="print the resolved scenario (as TOML, every default filled) or the engine input (JSON)",
    )
    if core_only:
        return p
    from ecnlab.sweep.commands import add_parsers as add_sweep_parsers

    add_sweep_parsers(sub)  # sweep, plot, report, reproduce
    from ecnlab.emu.commands import add_parsers as add_emu_parsers

    add_emu_parsers(sub)  # emulate, compare
    from ecnlab.bench.commands import add_parsers as add_bench_parsers

    add_bench_parsers(sub)  # bench peers
    return p


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it


def entry() -> NoReturn:
    """The ``ecnlab`` command (``[project.scripts]``, ``python -m ecnlab``): :func:`main` in a process
    set up for it (:func:`command_process`), then :func:`exit_with` its status."""
    command_process()
    exit_with(main())


def command_process() -> None:
    """Set up a process that runs one ``run`` or ``validate`` (``sys.argv``) and ends. No cyclic
    garbage collection: such a command makes next to no cyclic garbage, and the collector's passes
    over a heap growing by ten thousand flow entries' tables, groups and records cost tens of
    milliseconds. No BLAS thread pool: nothing does linear algebra, and numpy's OpenBLAS (imported
    for the Parquet output while the engine runs) would start threads, one per core, that spin
    after the import and take CPU from the engine (``OPENBLAS_NUM_THREADS=1``; a value the user set
    is kept). Other commands (pools, Dask, live emulation) run as Python does."""
    import gc
    import os

    if sys.argv[1:2] and sys.argv[1] in CORE_COMMANDS:
        gc.disable()
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def exit_with(status: int) -> NoReturn:
    """End the ``ecnlab`` process with ``status``. After ``run`` and ``validate``, whose files are
    written and closed by then, at once (``os._exit``, stdout and stderr flushed): the interpreter's
    teardown (every object of the run freed, every module's finalizers) costs tens of milliseconds
    of CPU after a run of ten thousand flow entries. Other commands (pools, Dask, live emulation)
    exit as Python does."""
    import os

    if sys.argv[1:2] and sys.argv[1] in CORE_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # left to the interpreter's exit, which reports it as it always has
            sys.exit(status)
        os._exit(status)
    sys.exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ecnlab`` command; returns the exit status."""
    _utf8_output()
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`ecnlab run ... | head`): stop printing, quietly. Python would
        # otherwise report the pipe again when it flushes stdout at exit.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as e:  # a file the system would not read or write (ENOSPC, EACCES, EROFS, ...)
        from ecnlab.errors import os_error_line

        print(f"ecnlab: error: {os_error_line(e)}", file=sys.stderr)
        return EXIT_ERROR


def _utf8_output() -> None:
    """Write stdout and stderr as UTF-8 whatever the locale says; a file name that is not valid
    UTF-8 (``surrogateescape``) is shown with backslash escapes instead of stopping the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(encoding="utf-8", errors="backslashreplace")


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _sigterm_as_interrupt()
    core = bool(argv) and argv[0] in CORE_COMMANDS
    args = _parser(core_only=core).parse_args(argv)
    args.argv = argv  # as typed: a stored result names the command that wrote it (bench --record)
    if args.version:
        from ecnlab import __version__

        print(f"ecnlab {__version__}")
        return 0
    if args.command is None:
        _parser().print_help(sys.stderr)  # the commands and what each does, not just a usage line
        return EXIT_ERROR
    if not core:
        status = _dispatch_other(args)
        if status is not None:
            return status
    from ecnlab.errors import ScenarioError

    try:
        if args.command == "validate":
            return _validate(args)
        return _run(args)
    except ScenarioError as e:
        return _fail(args.scenario, str(e))
    except KeyboardInterrupt:
        print("ecnlab: interrupted", file=sys.stderr)
        return 130


def _sigterm_as_interrupt() -> None:
    """SIGTERM (``kill``, ``timeout``) stops a command as Ctrl-C does, so the same cleanup runs."""
    import signal
    import threading

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def _dispatch_other(args: argparse.Namespace) -> int | None:
    """Runs a command another module defines (sweep, emu, bench); None if it is none of those."""
    from ecnlab.sweep.commands import COMMANDS as SWEEP_COMMANDS

    if args.command in SWEEP_COMMANDS:
        from ecnlab.sweep.commands import dispatch

        return dispatch(args)
    from ecnlab.emu.commands import COMMANDS as EMU_COMMANDS

    if args.command in EMU_COMMANDS:
        from ecnlab.emu.commands import dispatch as emu_dispatch

        return emu_dispatch(args)
    from ecnlab.bench.commands import COMMANDS as BENCH_COMMANDS

    if args.command in BENCH_COMMANDS:
        from ecnlab.bench.commands import dispatch as bench_dispatch

        return bench_dispatch(args)
    return None


def _fail(scenario: str, message: str) -> int:
    print(f"ecnlab: error: {scenario}: {message}", file=sys.stderr)
    return EXIT_ERROR


def _load(args: argparse.Namespace, *, engine_check: bool = True) -> Scenario:
    from ecnlab.config import load_scenario

    return load_scenario(args.scenario, args.overrides, seed=args.seed, engine_check=engine_check)


def _validate(args: argparse.Namespace) -> int:
    from ecnlab.lower import engine_spec, resolved_scenario

    sc = _load(args)
    if args.show == "resolved":
        import tomli_w

        print(tomli_w.dumps(resolved_scenario(sc)), end="")
    elif args.show == "engine":
        print(json.dumps(engine_spec(sc), indent=2, ensure_ascii=False))
    else:
        topo = sc.topology
        print(
            f"{args.scenario}: ok ({len(topo.nodes)} nodes, {len(topo.links)} links, "
            f"{sc.flow_count} flows, {len(sc.faults)} faults)"
        )
    return 0


def _run(args: argparse.Namespace) -> int:
    from ecnlab.runner import check_out_dir, run_scenario
    from ecnlab.tables import format_report

    sc = _load(args, engine_check=False)  # the run makes the engine's check before it runs
    out = Path(args.out)
    check_out_dir(out)
    try:
        from ecnlab import _core
    except ImportError as e:
        return _fail(args.scenario, f"the engine extension ecnlab._core is not built ({e}); run scripts/setup.sh")
    try:
        result = run_scenario(sc, out=out)
    except _core.EngineError as e:  # a pcap it could not write names the file as the user knows it
        from ecnlab.errors import shown_path

        return _fail(args.scenario, f"engine: {shown_path(str(e))}")
    if not args.quiet:
        if args.overrides:
            print("with " + " ".join(f"--set {o}" for o in args.overrides))
        print(format_report(result.summary, sc.topology.kinds))
        written = [out / "summary.json", *sorted(out.glob("*.pcap"))]
        print("\nwrote " + ", ".join(str(p) for p in written))
    else:  # the report carries the warnings; a quiet run still says them
        for w in result.summary.get("warnings", []):
            print(f"ecnlab: warning: {w}", file=sys.stderr)
    return 0

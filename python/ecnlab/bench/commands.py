"""``ecnlab bench peers [--quick]``: the command-line side of :mod:`ecnlab.bench.peers`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ecnlab.bench.record import add_record_option, check_record_path, write_record
from ecnlab.names import unknown_name

__all__ = ["COMMANDS", "add_parsers", "dispatch"]

#: The congestion controls whose grids `bench fidelity` runs.
FIDELITY_CCS = ("reno", "cubic", "dctcp", "bbr")

COMMANDS = ("bench",)


def add_parsers(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks (ecnlab bench peers: side by side with ns-2 and ns-3)")
    bsub = bench.add_subparsers(dest="bench_command", metavar="BENCHMARK", required=True)
    peers = bsub.add_parser("peers", help="run ecnlab, ns-2 and ns-3 on the cases of docs/performance.md")
    peers.add_argument("--quick", action="store_true", help="cases (a) and (b) only")
    peers.add_argument("--cases", help="comma-separated case names (a,b,c,d); default: all, or a,b with --quick")
    peers.add_argument("--reps", type=int, default=None, help="repetitions per tool (default 3; 2 with --quick)")
    peers.add_argument("--no-ns3", action="store_true", help="leave out ns-3 (and its ecnlab column)")
    peers.add_argument("--no-install", action="store_true", help="do not pip-install the ns-3 bindings if missing")
    peers.add_argument("--json", type=Path, metavar="FILE", help="also write the full report as JSON")
    peers.add_argument("--markdown", type=Path, metavar="FILE", help="also write the summary table (README format)")
    add_record_option(peers)
    htsim = bsub.add_parser("htsim", help="ecnlab and htsim (Broadcom/csg-htsim, built from your checkout), DCTCP")
    htsim.add_argument(
        "--htsim-src",
        type=Path,
        metavar="DIR",
        help="an htsim checkout (its root or sim/); default: $ECNLAB_HTSIM_SRC",
    )
    htsim.add_argument("--quick", action="store_true", help="10 and 1 000 flows, 3 s each (under two minutes)")
    htsim.add_argument("--cases", help="comma-separated flow counts (10,1000,10000; default: all)")
    htsim.add_argument("--reps", type=int, default=None, help="repetitions per tool (default 3; 2 with --quick)")
    htsim.add_argument("--json", type=Path, metavar="FILE", help="also write the numbers as JSON")
    add_record_option(htsim)
    queues = bsub.add_parser("queues", help="each queue's cost per packet, side by side (ratios to RED)")
    queues.add_argument("--flows", default="10,10000", help="comma-separated flow counts (default 10,10000)")
    queues.add_argument("--packets", type=int, default=2_000_000, help="arrivals per measurement (default 2000000)")
    queues.add_argument("--engine", action="store_true", help="also the whole engine per packet-hop, 10 000 flows")
    add_record_option(queues)
    aqmdiff = bsub.add_parser("aqm-diff", help="replay scripted arrivals through ecnlab's and ns-3's queue discs")
    aqmdiff.add_argument("--cases", help="comma-separated case names (default: all)")
    add_record_option(aqmdiff)
    ns2ecn = bsub.add_parser("ns2-ecn", help="ns-2's ECN validation suite (test-suite-ecn.tcl) run in ns-2 and ecnlab")
    ns2ecn.add_argument("--tests", nargs="+", metavar="NAME", help="tests to run (default: all 84)")
    ns2ecn.add_argument("--out", type=Path, metavar="DIR", help="also write DIR/ns2-ecn.json and DIR/ns2-ecn.md")
    ns2ecn.add_argument("--jobs", type=int, default=2, help="tests run at once (default 2)")
    add_record_option(ns2ecn)
    dctcp = bsub.add_parser("dctcp-ns3", help="DCTCP in ecnlab and ns-3's TcpDctcp on a step-marked dumbbell")
    dctcp.add_argument("--cases", help="comma-separated case names (1G-K20,1G-K65,10G-K20,10G-K65; default: all)")
    dctcp.add_argument("--quick", action="store_true", help="half the durations")
    dctcp.add_argument("--json", type=Path, metavar="FILE", help="also write the numbers as JSON")
    add_record_option(dctcp)
    bbr = bsub.add_parser("bbr-ns3", help="BBRv1 in ecnlab and ns-3's TcpBbr on a dumbbell (drop-tail FIFO, FQ-CoDel)")
    bbr.add_argument("--points", help="comma-separated point names (e.g. 10M-20ms-2f-fifo; default: all 16)")
    bbr.add_argument("--quick", action="store_true", help="two 10 Mbit/s, 20 ms points, 10 s runs")
    bbr.add_argument("--json", type=Path, metavar="FILE", help="also write the numbers as JSON")
    add_record_option(bbr)
    fidelity = bsub.add_parser("fidelity", help="the linux TCP personality against real Linux through emulate (root)")
    fidelity.add_argument("--cc", default="reno", metavar="CC", help="grid: reno (default), cubic, dctcp or bbr")
    fidelity.add_argument("--quick", action="store_true", help="10 Mbit/s, 20 ms points only, 10 s runs")
    fidelity.add_argument("--seconds", type=float, default=None, help="run length (default 30; 10 with --quick)")
    fidelity.add_argument("--markdown", type=Path, metavar="FILE", help="also write the table to FILE")
    fidelity.add_argument("--points", metavar="TEXT", help="only the points whose name contains TEXT (e.g. 50M-80ms)")
    fidelity.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        metavar="S",
        help="start each flow at a draw from [0, S] seconds, the same on both sides (default 0: all at once)",
    )
    fidelity.add_argument(
        "--series", type=Path, metavar="DIR", help="write each point's flow time series (sim and Linux) into DIR"
    )
    fidelity.add_argument(
        "--runs", type=int, default=1, metavar="N", help="runs per point and side (seeds 1..N), compared by means"
    )
    fidelity.add_argument(
        "--redo-disturbed",
        type=int,
        default=0,
        metavar="K",
        help="run a Linux run again, up to K times, while the hypervisor disturbed it (CPU steal); "
        "the runs set aside are listed under the table (default 0: keep every run)",
    )
    add_record_option(fidelity)
    l4s = bsub.add_parser(
        "l4s-live",
        help="real CUBIC beside a real DCTCP or Prague-like sender through ecnlab's DualPI2, and the simulator (root)",
    )
    l4s.add_argument("--quick", action="store_true", help="10 Mbit/s, 10 ms points only, one 10 s run each")
    l4s.add_argument(
        "--runs", type=int, default=None, metavar="N", help="runs per point and side (default 3; 1 with --quick)"
    )
    l4s.add_argument("--seconds", type=float, default=None, help="run length (default 30; 10 with --quick)")
    l4s.add_argument("--points", metavar="TEXT", help="only the points whose name contains TEXT (e.g. prague-like)")
    l4s.add_argument(
        "--redo-disturbed",
        type=int,
        default=0,
        metavar="K",
        help="run a Linux run again, up to K times, while the hypervisor disturbed it (CPU steal)",
    )
    add_record_option(l4s)
    paths = bsub.add_parser(
        "paths", help="real Linux through path impairments (SYN blackhole, bleaching, CE on all), beside the simulator"
    )
    paths.add_argument("--quick", action="store_true", help="one run per point and side (default 3)")
    paths.add_argument("--runs", type=int, default=None, metavar="N", help="runs per point and side (seeds 1..N)")
    paths.add_argument("--seconds", type=float, default=5.0, help="run length (default 5)")
    paths.add_argument("--points", metavar="TEXT", help="only the points whose name contains TEXT (e.g. blackhole)")
    add_record_option(paths)
    scaling = bsub.add_parser(
        "scaling", help="ecnlab's cost per packet: flows 10 -> 1 000 000, rate 10M -> 100G, fat trees"
    )
    scaling.add_argument("--quick", action="store_true", help="smaller grid and shorter runs")
    scaling.add_argument("--only", metavar="SERIES", help="one series only: flows, million, rate, entries or fattree")
    add_record_option(scaling)
    rate = bsub.add_parser("sweep-rate", help="runs/s of a sweep of many small runs, --jobs 1 and 2")
    rate.add_argument("--runs", type=int, default=1000, help="runs in the sweep, a multiple of 5 (default 1000)")
    rate.add_argument("--reps", type=int, default=1, help="repetitions per --jobs setting (median; default 1)")
    rate.add_argument("--jobs", default="1,2", help="comma-separated --jobs settings (default 1,2)")
    add_record_option(rate)
    pairs = bsub.add_parser(
        "pairs", help="run a sweep of senders sharing a bottleneck; each sender's share, sojourn, marks and drops"
    )
    pairs.add_argument("sweep", type=Path, metavar="SWEEP.toml", help="the sweep (e.g. scenarios/sweep-bbr-pairs.toml)")
    pairs.add_argument("--quick", action="store_true", help="one seed, 10 s runs (4 s warm-up)")
    pairs.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    pairs.add_argument("--out", type=Path, metavar="DIR", help="keep the sweep directory here (default: temporary)")
    add_record_option(pairs)


def dispatch(args: argparse.Namespace) -> int:
    bad = check_record_path(args.record)
    if bad is not None:
        print(f"ecnlab: error: {bad}", file=sys.stderr)
        return 2
    if args.bench_command == "queues":
        return _queues(args)
    if args.bench_command == "htsim":
        return _htsim(args)
    if args.bench_command == "aqm-diff":
        return _aqm_diff(args)
    if args.bench_command == "ns2-ecn":
        return _ns2_ecn(args)
    if args.bench_command == "dctcp-ns3":
        return _dctcp_ns3(args)
    if args.bench_command == "bbr-ns3":
        return _bbr_ns3(args)
    if args.bench_command == "fidelity":
        return _fidelity(args)
    if args.bench_command == "paths":
        return _paths(args)
    if args.bench_command == "l4s-live":
        return _l4s_live(args)
    if args.bench_command == "sweep-rate":
        return _sweep_rate(args)
    if args.bench_command == "pairs":
        return _pairs(args)
    if args.bench_command == "scaling":
        from ecnlab.bench.scaling import SERIES, format_scaling, run_scaling

        if args.only is not None and args.only not in SERIES:
            print(f"ecnlab: error: {unknown_name('--only', args.only, SERIES)}", file=sys.stderr)
            return 2
        print(format_scaling([]))
        rows = run_scaling(args.quick, print, only=args.only)
        _record(args, format_scaling(rows), rows, markdown=False)
        return 0
    from ecnlab.bench.cases import CASES
    from ecnlab.bench.ns3 import install_ns3, ns3_available
    from ecnlab.bench.peers import dump, format_markdown, run_bench

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if msg.startswith("  case") else sys.stdout, flush=True)

    names = _case_names(args.cases, CASES) if args.cases else None
    if args.cases and names is None:
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
    _record(args, f"Medians of {reps} runs.\n\n" + format_markdown(report), report)
    return 0


def _htsim(args: argparse.Namespace) -> int:
    import json
    import os

    from ecnlab.bench import htsimbench
    from ecnlab.bench.htsim import ENV_VAR, compiler_version, htsim_binary, htsim_commit
    from ecnlab.bench.measure import PeerFailed

    cases = htsimbench.QUICK if args.quick else htsimbench.CASES
    names = _case_names(args.cases, cases)
    if names is None:
        return 2
    reps = args.reps if args.reps is not None else (2 if args.quick else 3)
    src = args.htsim_src or (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else None)
    bad = None
    if reps < 1:
        bad = f"--reps = {reps}: must be >= 1"
    elif args.json is not None and not args.json.parent.is_dir():
        bad = f"--json = {str(args.json)!r}: the directory {str(args.json.parent)!r} does not exist"
    elif src is None:
        bad = (f"bench htsim needs an htsim checkout (https://github.com/Broadcom/csg-htsim): "
               f"--htsim-src DIR or {ENV_VAR}=DIR")  # fmt: skip
    if bad is not None:
        print(f"ecnlab: error: {bad}", file=sys.stderr)
        return 2
    assert src is not None
    try:
        commit = htsim_commit(src)  # names a directory that is not htsim's in one line
    except PeerFailed as e:
        print(f"ecnlab: error: {e}", file=sys.stderr)
        return 2
    print(f"building htsim {commit} from {src} (cached after the first build)", file=sys.stderr, flush=True)
    try:
        binary = htsim_binary(src)
    except PeerFailed as e:
        print(f"ecnlab: error: {e}", file=sys.stderr)
        return 1

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        rows = htsimbench.run_bench(names, cases, binary, reps, log)
    except PeerFailed as e:
        print(f"ecnlab: error: {e}", file=sys.stderr)
        return 1
    built = f"htsim commit `{commit}` (Broadcom/csg-htsim), `-O3`, {compiler_version()}"
    table = f"Medians of {reps} runs; {built}.\n\n" + htsimbench.format_table(rows)
    print(table)
    data = {"htsim_commit": commit, "compiler": compiler_version(), "reps": reps, "cases": rows}
    if args.json:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    _record(args, table, data)
    return 0


def _queues(args: argparse.Namespace) -> int:
    from ecnlab.bench.queues import format_queue_bench, run_queue_bench

    try:
        flows = [int(x) for x in args.flows.split(",")]
    except ValueError:
        flows = []
    if not flows or min(flows) < 1 or args.packets < 1000:
        print(f"ecnlab: error: --flows = {args.flows!r} / --packets = {args.packets}: "
              "need integers >= 1 and packets >= 1000", file=sys.stderr)  # fmt: skip
        return 2
    rows = run_queue_bench(flows, packets=args.packets)
    table = format_queue_bench(rows)
    print(table)
    data: dict[str, Any] = {"queues": rows}
    if args.engine:
        from ecnlab.bench.queues import format_engine_bench, run_engine_bench

        data["engine"] = run_engine_bench()
        engine = format_engine_bench(data["engine"])
        print()
        print(engine)
        table += "\n\n" + engine
    _record(args, table, data, markdown=table.startswith("|"))
    return 0


def _aqm_diff(args: argparse.Namespace) -> int:
    from ecnlab.bench import aqmdiff
    from ecnlab.bench.measure import PeerFailed

    names = _case_names(args.cases, aqmdiff.CASES)
    if names is None:
        return 2
    if _missing(aqmdiff.ns3_missing()):
        return 2
    lines = ["| case | compared | ecnlab events | ns-3 events | result |", "|---|---|---|---|---|"]
    print("\n".join(lines))
    status = 0
    for n in names:
        case = aqmdiff.CASES[n]
        ops = aqmdiff.overload_script(**case.script)
        try:
            r = aqmdiff.compare(aqmdiff.run_ecnlab(case, ops), aqmdiff.run_ns3(case, ops))
        except PeerFailed as e:
            lines.append(f"| {n} | - | - | - | failed: {e} |")
            print(lines[-1])
            status = 1
            continue
        how = "event for event" if case.exact else "counts (different random streams)"
        if case.exact:
            result = "identical" if r["identical"] else f"first difference at event {r['first_difference']['index']}"
        else:
            a, b = _signals(r["ecnlab"]), _signals(r["ns3"])
            result = f"marks + drops {a} vs {b} ({100 * (a - b) / max(b, 1):+.1f} %)"
        lines.append(f"| {n} | {how} | {_counts(r['ecnlab'])} | {_counts(r['ns3'])} | {result} |")
        print(lines[-1])
    if status == 0:
        _record(args, "\n".join(lines), None)
    return status


def _sweep_rate(args: argparse.Namespace) -> int:
    import os
    import platform

    from ecnlab.bench.sweeprate import MAX_P, format_sweep_rate, run_sweep_rate

    try:
        jobs = tuple(int(j) for j in args.jobs.split(","))
    except ValueError:
        jobs = ()
    if args.runs < len(MAX_P) or args.runs % len(MAX_P) or args.reps < 1 or not jobs or min(jobs) < 1:
        print(f"ecnlab: error: --runs = {args.runs} / --reps = {args.reps} / --jobs = {args.jobs!r}: need runs a "
              f"positive multiple of {len(MAX_P)}, reps >= 1 and jobs integers >= 1", file=sys.stderr)  # fmt: skip
        return 2

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows = run_sweep_rate(args.runs, jobs, args.reps, log)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(format_sweep_rate(rows))
    _record(args, format_sweep_rate(rows), rows, markdown=format_sweep_rate(rows).startswith("|"))
    return 0


def _pairs(args: argparse.Namespace) -> int:
    import tempfile

    from ecnlab.analysis.senders import sender_cells
    from ecnlab.bench.pairs import format_pairs, load_pairs_sweep, pairs_data
    from ecnlab.errors import EcnlabError
    from ecnlab.store import load
    from ecnlab.sweep import run_sweep

    if args.jobs is not None and args.jobs < 1:
        print(f"ecnlab: error: --jobs = {args.jobs}: must be >= 1", file=sys.stderr)
        return 2
    try:
        sweep = load_pairs_sweep(args.sweep, args.quick)
        with tempfile.TemporaryDirectory(prefix="ecnlab-pairs-") as tmp:
            out = args.out if args.out is not None else Path(tmp) / "sweep"
            outcome = run_sweep(sweep, out, jobs=args.jobs, progress=False)
            if not outcome.ok:
                print(f"ecnlab: error: {args.sweep}: {len(outcome.failed)} runs failed", file=sys.stderr)
                return 1
            res = load(out)
            cells = sender_cells(res)
    except (EcnlabError, ValueError) as e:
        print(f"ecnlab: error: {args.sweep}: {e}", file=sys.stderr)
        return 2
    table = format_pairs(cells, res.axes)
    print(table)
    _record(args, table, pairs_data(cells))
    return 0


def _record(args: argparse.Namespace, table: str, data: Any, *, markdown: bool = True, details: str = "") -> None:
    """``--record FILE``: the table stored with its command, commit, machine and date."""
    if args.record is not None:
        argv = getattr(args, "argv", sys.argv[1:])
        write_record(args.record, argv, table, data, markdown=markdown, details=details)
        print(f"recorded {args.record}", file=sys.stderr)


def _case_names(arg: str | None, known: Mapping[str, Any], option: str = "--cases") -> list[str] | None:
    """``--cases a,b`` (or ``option``) checked against ``known`` (all of them when absent); None after the error."""
    names = [c.strip() for c in arg.split(",")] if arg else list(known)
    for n in names:
        if n not in known:
            print(f"ecnlab: error: {unknown_name(option, n, known)}", file=sys.stderr)
            return None
    return names


def _missing(why: str | None) -> bool:
    """Reports why a peer cannot run (``why``); False when it can."""
    if why is not None:
        print(f"ecnlab: error: {why}", file=sys.stderr)
    return why is not None


def _signals(c: dict[str, int]) -> int:
    return c.get("mark", 0) + c.get("drop_before", 0) + c.get("drop_after", 0)


def _counts(c: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(c.items()))


def _ns2_ecn(args: argparse.Namespace) -> int:
    import json

    from ecnlab.bench import ns2ecn
    from ecnlab.bench.ns2 import ns_binary

    suite = ns2ecn.suite_file()
    if suite is None or ns_binary() is None:
        print(f"ecnlab: error: needs ns-2 and {ns2ecn.SUITE_DIR / ns2ecn.SUITE_NAME} "
              "(Debian packages ns2 and ns2-examples)", file=sys.stderr)  # fmt: skip
        return 2
    known = ns2ecn.list_tests(suite.read_text())
    bad = [t for t in args.tests or [] if t not in known]
    if bad or args.jobs < 1:
        what = (
            unknown_name("--tests", bad[0], known, f"not a test of {ns2ecn.SUITE_NAME}")
            if bad
            else f"--jobs = {args.jobs}: must be >= 1"
        )
        print(f"ecnlab: error: {what}", file=sys.stderr)
        return 2
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"ecnlab: error: --out {str(args.out)!r}: exists and is not a directory", file=sys.stderr)
        return 2
    results = ns2ecn.run_suite(suite, args.tests, jobs=args.jobs)
    table = ns2ecn.format_table(results)
    print(table)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        n, m = ns2ecn.counts(results)
        doc = {"suite": str(suite), "tests": len(results), "reactions_same": n, "trace_same": m, "results": results}
        (args.out / "ns2-ecn.json").write_text(json.dumps(doc, indent=1) + "\n")
        (args.out / "ns2-ecn.md").write_text(table + "\n")
    _record(args, table, results)
    return 0


def _dctcp_ns3(args: argparse.Namespace) -> int:
    import json
    import tempfile

    from ecnlab.bench import dctcp
    from ecnlab.bench.measure import PeerFailed

    names = _case_names(args.cases, dctcp.CASES)
    if names is None:
        return 2
    if _missing(dctcp.ns3_missing()):
        return 2
    rows, raw = [], {}
    with tempfile.TemporaryDirectory(prefix="ecnlab-dctcp-") as tmp:
        for n in names:
            case = dctcp.CASES[n]
            ours = dctcp.run_ecnlab(case, args.quick)
            try:
                theirs = dctcp.run_ns3(case, ours, Path(tmp) / n)
            except PeerFailed as e:
                print(f"ecnlab: error: case {n}: {e}", file=sys.stderr)
                return 1
            rows.append((case, dctcp.compare(case, ours, theirs)))
            raw[n] = {"ecnlab": {k: v for k, v in ours.items() if k != "tcp"}, "ns3": theirs}
            print(f"  case {n}: ns-3 ran {theirs['run_s']:.1f} s", file=sys.stderr, flush=True)
    print(dctcp.format_table(rows))
    print()
    for n in names:
        print(dctcp.format_echo(n, raw[n]["ns3"]))
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1) + "\n")
    echoes = "\n".join("- " + dctcp.format_echo(n, raw[n]["ns3"]) for n in names)
    _record(args, dctcp.format_table(rows) + "\n\n" + echoes, raw)
    return 0


def _bbr_ns3(args: argparse.Namespace) -> int:
    import json
    import tempfile

    from ecnlab.bench import bbr
    from ecnlab.bench.measure import PeerFailed

    default = ",".join(bbr.QUICK) if args.quick else None
    names = _case_names(args.points or default, bbr.POINTS, "--points")
    if names is None:
        return 2
    if args.json is not None and not args.json.parent.is_dir():
        print(f"ecnlab: error: --json = {str(args.json)!r}: the directory {str(args.json.parent)!r} does not exist",
              file=sys.stderr)  # fmt: skip
        return 2
    if _missing(bbr.ns3_missing()):
        return 2
    rows, raw = [], {}
    with tempfile.TemporaryDirectory(prefix="ecnlab-bbr-") as tmp:
        for n in names:
            point = bbr.POINTS[n]
            ours = bbr.run_ecnlab(point, args.quick)
            try:
                theirs = bbr.run_ns3(point, ours, Path(tmp) / n)
                fixed = bbr.run_ns3(point, ours, Path(tmp) / f"{n}-fixed", fix=True)
            except PeerFailed as e:
                print(f"ecnlab: error: point {n}: {e}", file=sys.stderr)
                return 1
            rows.append((point, bbr.compare(ours, theirs, fixed)))
            mine = {k: v for k, v in ours.items() if k not in ("tcp", "queue")}
            raw[n] = {"ecnlab": mine, "ns3": theirs, "ns3_fixed": fixed}
            print(f"  point {n}: ns-3 ran {theirs['run_s']:.1f} s and {fixed['run_s']:.1f} s", file=sys.stderr,
                  flush=True)  # fmt: skip
    table = bbr.format_table(rows)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1) + "\n")
    _record(args, table, raw)
    return 0


def _fidelity(args: argparse.Namespace) -> int:
    import os

    from ecnlab.bench.fidelity import (
        HEADER,
        format_disturbed,
        format_row,
        format_spread,
        format_table,
        grid,
        run_fidelity,
        run_length,
    )

    if args.cc not in FIDELITY_CCS:
        print(f"ecnlab: error: {unknown_name('--cc', args.cc, FIDELITY_CCS)}", file=sys.stderr)
        return 2
    if args.seconds is not None and not 3 <= args.seconds <= 3600:
        print(f"ecnlab: error: --seconds = {args.seconds}: must be between 3 and 3600", file=sys.stderr)
        return 2
    _, warm = run_length(args.seconds, args.quick)
    if not 0 <= args.stagger < warm:
        print(
            f"ecnlab: error: --stagger = {args.stagger}: must be at least 0 and below the warm-up ({warm:g} s)",
            file=sys.stderr,
        )
        return 2
    if not 1 <= args.runs <= 100:
        print(f"ecnlab: error: --runs = {args.runs}: must be between 1 and 100", file=sys.stderr)
        return 2
    if not 0 <= args.redo_disturbed <= 10:
        print(f"ecnlab: error: --redo-disturbed = {args.redo_disturbed}: must be between 0 and 10", file=sys.stderr)
        return 2
    names = [p.name for p in grid(args.cc, args.quick)]
    if args.points is not None and not any(args.points in n for n in names):
        what = f"matches no point of --cc {args.cc}" + (" --quick" if args.quick else "")
        print(f"ecnlab: error: {unknown_name('--points', args.points, names, what)}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("ecnlab: error: bench fidelity emulates through network namespaces: run it as root", file=sys.stderr)
        return 2
    print(HEADER, flush=True)
    rows = []

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    points = run_fidelity(
        args.cc,
        args.quick,
        log,
        seconds=args.seconds,
        only=args.points,
        series=args.series,
        runs=args.runs,
        stagger=args.stagger,
        redo=args.redo_disturbed,
    )
    for row in points:
        rows.append(row)
        print(format_row(row), flush=True)
    table = format_table(rows)
    ok = sum(r["verdict"] == "ok" for r in rows)
    print(f"{ok} of {len(rows)} points within their targets.")
    disturbed = format_disturbed(rows)
    if disturbed:
        print(f"\n{disturbed}")
    spread = format_spread(rows)
    if spread:
        print(f"\n{spread}")
    if args.markdown:
        args.markdown.write_text(table + "\n")
    _record(args, format_table(rows, spread=False), rows, details=spread)
    return 0


def _paths(args: argparse.Namespace) -> int:
    import os

    from ecnlab.bench.paths import HEADER, POINTS, format_row, format_table, run_paths

    runs = args.runs if args.runs is not None else (1 if args.quick else 3)
    if not 1 <= runs <= 100:
        print(f"ecnlab: error: --runs = {runs}: must be between 1 and 100", file=sys.stderr)
        return 2
    if not 3 <= args.seconds <= 60:
        print(f"ecnlab: error: --seconds = {args.seconds}: must be between 3 and 60", file=sys.stderr)
        return 2
    names = [p.name for p in POINTS]
    if args.points is not None and not any(args.points in n for n in names):
        print(f"ecnlab: error: {unknown_name('--points', args.points, names, 'matches no point')}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("ecnlab: error: bench paths emulates through network namespaces: run it as root", file=sys.stderr)
        return 2
    print(HEADER, flush=True)
    rows = []
    for row in run_paths(lambda msg: print(msg, file=sys.stderr, flush=True), runs=runs, seconds=args.seconds,
                         only=args.points):  # fmt: skip
        rows.append(row)
        print(format_row(row), flush=True)
    table = format_table(rows)
    print(table.rsplit("\n", 1)[-1])
    _record(args, table, rows)
    return 0


def _l4s_live(args: argparse.Namespace) -> int:
    import os

    from ecnlab.bench.fidelity import run_length
    from ecnlab.bench.l4slive import HEADER, format_row, format_spread, format_table, points, run_l4s_live

    runs = args.runs if args.runs is not None else (1 if args.quick else 3)
    bad = None
    if not 1 <= runs <= 100:
        bad = f"--runs = {runs}: must be between 1 and 100"
    elif args.seconds is not None and not 5 <= args.seconds <= 3600:
        bad = f"--seconds = {args.seconds}: must be between 5 and 3600"
    elif not 0 <= args.redo_disturbed <= 10:
        bad = f"--redo-disturbed = {args.redo_disturbed}: must be between 0 and 10"
    names = [p.name for p in points(args.quick)]
    if bad is None and args.points is not None and not any(args.points in n for n in names):
        bad = unknown_name("--points", args.points, names, "matches no point" + (" of --quick" if args.quick else ""))
    if bad is None and os.geteuid() != 0:
        bad = "bench l4s-live emulates through network namespaces: run it as root"
    if bad is not None:
        print(f"ecnlab: error: {bad}", file=sys.stderr)
        return 2
    secs, warm = run_length(args.seconds, args.quick)
    print(HEADER, flush=True)
    rows = []
    for row in run_l4s_live(args.quick, lambda msg: print(msg, file=sys.stderr, flush=True), seconds=secs,
                            warmup=warm, runs=runs, redo=args.redo_disturbed, only=args.points):  # fmt: skip
        rows.append(row)
        print(format_row(row), flush=True)
    table = format_table(rows)
    print(table.split("\n\n", 1)[1] if "\n\n" in table else "")
    _record(args, format_table(rows, spread=False), rows, details=format_spread(rows))
    return 0

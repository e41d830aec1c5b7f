"""``ecnlab sweep``: run a sweep's runs that are not complete yet, then (re)build the results store.

Order of events: everything that can be wrong with the sweep or ``--out`` is
checked first (nothing is written when it is); then the directory is locked,
staging leftovers of a killed sweep are removed, the pending runs go to the
local pool or the Dask cluster, each finished run is written whole, and the
Parquet tables and manifest are rebuilt from the complete runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ecnlab.errors import ScenarioError
from ecnlab.results import SUMMARY_FILE
from ecnlab.store import MANIFEST, RUNS_DIR, RunRows, run_rows, write_manifest, write_store
from ecnlab.sweep.execute import Outcome, damage, remove_partials, store_run, stored_scenario
from ecnlab.sweep.progress import Progress
from ecnlab.sweep.spec import Run, Sweep

__all__ = ["SweepOutcome", "run_sweep", "check_sweep_dir"]

LOCK = ".lock"


@dataclass
class SweepOutcome:
    """How an invocation went: runs skipped (already complete), run now, and failures."""

    out: Path
    total: int
    skipped: int
    ran: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every run of the sweep is complete."""
        return not self.failed and self.skipped + self.ran == self.total


def check_sweep_dir(out: Path, sweep: Sweep, damaged: dict[str, str] | None = None) -> list[Run]:
    """Refuse an ``out`` that is not (yet) this sweep's directory; return the runs still to do.
    A stored run found damaged (``execute.damage``) is to do again; ``damaged`` collects why."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ScenarioError("--out", "exists and is not a directory", str(out))
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise ScenarioError("--out", f"exists and is not an ecnlab sweep directory (no {MANIFEST})", str(out))
    runs_dir = out / RUNS_DIR
    pending = []
    for run in sweep.runs:
        stored = (runs_dir / run.name).is_dir()
        problem = damage(runs_dir, run.name) if stored else None
        if problem is not None and damaged is not None:
            damaged[run.name] = problem
        if not stored or problem is not None:
            pending.append(run)
        elif stored_scenario(runs_dir, run.name) != run.resolved:
            raise ScenarioError(
                f'run "{run.name}"',
                f"{runs_dir / run.name} holds a result of a different scenario (the sweep changed?); "
                "remove it or use another --out",
            )
    return pending


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold ``DIR/.lock`` so two sweeps never write one directory at once."""
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ScenarioError("--out", "another ecnlab sweep is writing to this directory", str(out)) from None
        yield
    finally:
        os.close(fd)


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    stream: TextIO | None = None,
    compute: Callable[[Run], Outcome] | None = None,
) -> SweepOutcome:
    """Run what is missing of ``sweep`` into ``out``; see the module docstring.

    ``jobs`` worker processes (default: all cores), or the Dask cluster at
    ``scheduler``. Raises ScenarioError before writing anything if ``out``
    cannot hold this sweep; KeyboardInterrupt stops cleanly (complete runs
    stay, nothing half-written remains). ``compute`` (live emulation) runs
    each run in this process, one after another, instead of the simulator.
    """
    out = Path(out)
    stream = stream if stream is not None else sys.stderr
    damaged: dict[str, str] = {}
    pending = check_sweep_dir(out, sweep, damaged)
    client = None
    if scheduler is not None and pending and compute is None:
        from ecnlab.sweep.cluster import connect

        client = connect(scheduler)
    try:
        try:
            (out / RUNS_DIR).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ScenarioError("--out", f"cannot be written ({e.strerror or e})", str(out)) from None
        with _locked(out):
            remove_partials(out / RUNS_DIR)
            result = SweepOutcome(out, len(sweep.runs), len(sweep.runs) - len(pending))
            write_manifest(out, sweep, complete=result.skipped, failed=[])
            where = f"the Dask cluster at {scheduler}" if client else f"{_jobs(jobs)} worker processes"
            where = "this process, one after another" if compute is not None else where
            for name, problem in damaged.items():
                print(f"ecnlab: run {name} is damaged, running it again: {problem}", file=stream)
            print(
                f"ecnlab: sweep {sweep.source}: {result.total} runs, {result.skipped} already complete, "
                f"{len(pending)} to run" + (f" on {where}" if pending else ""),
                file=stream,
            )
            stored: dict[str, RunRows] = {}
            _execute(
                sweep,
                out,
                pending,
                result,
                jobs,
                client,
                Progress(result.total, skipped=result.skipped, stream=stream, enabled=progress),
                compute,
                stored,
            )
            write_store(out, sweep, failed=[name for name, _ in result.failed], known=stored)
    finally:
        if client is not None:
            client.close()
    return result


def _jobs(jobs: int | None) -> int:
    return jobs if jobs is not None else (os.cpu_count() or 1)


def _execute(
    sweep: Sweep,
    out: Path,
    pending: list[Run],
    result: SweepOutcome,
    jobs: int | None,
    client: object,
    bar: Progress,
    compute: Callable[[Run], Outcome] | None = None,
    stored: dict[str, RunRows] | None = None,
) -> None:
    """Compute the pending runs and store each as it comes; ``stored`` collects their table rows
    (made while the workers compute, so the tables at the end need not read them back)."""
    if not pending:
        return
    tasks = [(run.name, run.data) for run in pending]
    by_name = {run.name: run for run in pending}
    # the local pool runs each run's Scenario, validated when the sweep was loaded (no parsing per run)
    local_tasks = [(run.name, run.scenario if run.scenario is not None else run.data) for run in pending]
    outcomes: Generator[Outcome, None, None]
    if compute is not None:
        outcomes = (compute(run) for run in pending)
    elif client is not None:
        from ecnlab.sweep.cluster import run_dask

        outcomes = run_dask(tasks, client)
    else:
        from ecnlab.sweep.local import run_local

        outcomes = run_local(local_tasks, min(_jobs(jobs), len(tasks)))
    with contextlib.closing(outcomes):
        try:
            for outcome in outcomes:
                if outcome.files is not None:
                    store_run(out / RUNS_DIR, outcome.name, outcome.files)
                    result.ran += 1
                    if stored is not None:
                        summary = json.loads(outcome.files[SUMMARY_FILE].decode("utf-8"))
                        stored[outcome.name] = run_rows(by_name[outcome.name], summary)
                else:
                    result.failed.append((outcome.name, outcome.error or "unknown error"))
                bar.advance(outcome.name, outcome.error)
        finally:
            bar.finish()

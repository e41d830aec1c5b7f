"""The local backend: runs in a pool of worker processes on this machine.

Workers ignore SIGINT (the terminal sends Ctrl-C to the whole process group);
the parent handles it, and SIGTERM the same way: it stops submitting, cancels
what is queued and terminates the workers (SIGTERM, at its default action in
a worker). A worker also dies with its parent (Linux ``PR_SET_PDEATHSIG``), so
a SIGKILLed sweep leaves no worker computing on. Workers only compute, so
stopping them can never leave a half-written result.

Workers persist: the pool's processes are forked once and compute run after
run with ecnlab, numpy, pyarrow and the engine loaded. Small runs are sent in
**chunks** (several runs per task) so that the queue, pickling and future
bookkeeping do not cost more than the runs: the first tasks hold one run
each; then each chunk holds about ``CHUNK_TARGET_S`` of work at the mean time
per run seen so far (at most ``MAX_CHUNK`` runs, and small enough to keep
every worker busy to the end). Runs that take longer than that go one per
task as before. Chunking changes only which process computes a run, never
its result: each run is computed alone from its own scenario, and the caller
writes and tabulates runs by name in grid order.
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import time
from collections.abc import Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ecnlab.model import Scenario
from ecnlab.sweep.execute import Outcome, compute_run

__all__ = ["run_local", "compute_chunk", "chunk_size", "CHUNK_TARGET_S", "MAX_CHUNK"]

Task = tuple[str, dict[str, Any] | Scenario]
CHUNK_TARGET_S = 0.25  # work per task once runs are known to be small
MAX_CHUNK = 32


def compute_chunk(tasks: list[Task]) -> tuple[list[Outcome], float]:
    """Compute runs one after another in this worker; their Outcomes and the seconds they took."""
    t0 = time.perf_counter()
    outcomes = [compute_run(name, data) for name, data in tasks]
    return outcomes, time.perf_counter() - t0


def chunk_size(mean_run_s: float | None, left: int, jobs: int) -> int:
    """Runs in the next task: 1 until a run's time is known, then about ``CHUNK_TARGET_S`` of work,
    at most ``MAX_CHUNK`` and at most a share of what is left that keeps all ``jobs`` busy."""
    if mean_run_s is None or left <= 0:
        return 1
    by_time = CHUNK_TARGET_S / mean_run_s if mean_run_s > 0 else MAX_CHUNK
    share = math.ceil(left / (4 * jobs))
    return max(1, min(int(by_time), MAX_CHUNK, share))


def _worker_init(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler would turn it into an exception
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere)."""
    import ctypes
    import os
    import sys

    if not sys.platform.startswith("linux"):
        return
    pr_set_pdeathsig = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    import os

    # fork: workers start at once with ecnlab already imported (`python -m ecnlab` cannot be re-imported).
    ctx = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),))


def run_local(tasks: list[Task], jobs: int, *, chunking: bool = True) -> Generator[Outcome, None, None]:
    """Yield each task's Outcome as its chunk finishes; at most ``2 * jobs`` chunks are queued at a time.

    ``chunking=False`` sends one run per task (chunks of one)."""
    pool = _new_pool(jobs)
    queue = list(reversed(tasks))
    running: dict[Future[tuple[list[Outcome], float]], list[str]] = {}
    finished = False
    seconds, counted = 0.0, 0  # worker time and runs computed so far: the mean sets the chunk size

    def submit_next() -> bool:
        if not queue:
            return False
        mean = seconds / counted if counted and chunking else None
        n = chunk_size(mean, len(queue), jobs)
        chunk = [queue.pop() for _ in range(min(n, len(queue)))]
        running[pool.submit(compute_chunk, chunk)] = [name for name, _ in chunk]
        return True

    try:
        while len(running) < 2 * jobs and submit_next():
            pass
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in sorted(done, key=lambda f: running[f][0]):
                names = running.pop(fut)
                try:
                    outcomes, took = fut.result()
                    seconds, counted = seconds + took, counted + len(outcomes)
                except BrokenProcessPool:
                    broken = True
                    outcomes = [Outcome(name, None, "a worker process died (killed or crashed)") for name in names]
                yield from outcomes
            if broken and queue:  # a broken pool fails every queued future; start a fresh one for the rest
                pool.shutdown(wait=False, cancel_futures=True)
                pool = _new_pool(jobs)
            while len(running) < 2 * jobs and submit_next():
                pass
        finished = True
    finally:
        _stop(pool, graceful=finished)


def _stop(pool: ProcessPoolExecutor, *, graceful: bool) -> None:
    """Shut the pool down; when interrupted, cancel the queue and terminate running workers."""
    if graceful:
        pool.shutdown(wait=True)
        return
    processes = list(getattr(pool, "_processes", {}).values())  # CPython keeps the workers here
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(timeout=5)
    # Only then shut down, waiting for the executor's manager thread: it sees the workers gone and
    # ends while its pipes are still open. Shut down first without waiting, it could still be
    # running at interpreter exit and print "OSError: [Errno 9] Bad file descriptor" after the
    # interrupted message (seen once under load in test_ctrl_c_stops_cleanly_then_resume).
    pool.shutdown(wait=True, cancel_futures=True)

"""The local backend: runs in a pool of worker processes on this machine.

Workers ignore SIGINT (the terminal sends Ctrl-C to the whole process group);
the parent handles it, and SIGTERM the same way: it stops submitting, cancels
what is queued and terminates the workers (SIGTERM, at its default action in
a worker). A worker also dies with its parent (Linux ``PR_SET_PDEATHSIG``), so
a SIGKILLed sweep leaves no worker computing on. Workers only compute, so
stopping them can never leave a half-written result.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ecnlab.sweep.execute import Outcome, compute_run

__all__ = ["run_local"]

Task = tuple[str, dict[str, Any]]


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


def run_local(tasks: list[Task], jobs: int) -> Generator[Outcome, None, None]:
    """Yield each task's Outcome as it finishes; at most ``2 * jobs`` are queued at a time."""
    pool = _new_pool(jobs)
    queue = list(reversed(tasks))
    running: dict[Future[Outcome], str] = {}
    finished = False

    def submit_next() -> bool:
        if not queue:
            return False
        name, data = queue.pop()
        running[pool.submit(compute_run, name, data)] = name
        return True

    try:
        while len(running) < 2 * jobs and submit_next():
            pass
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in sorted(done, key=lambda f: running[f]):
                name = running.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    broken = True
                    outcome = Outcome(name, None, "a worker process died (killed or crashed)")
                yield outcome
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
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(timeout=5)

"""Child processes of an emulation: started in their own session, always ended.

Every process is tracked from the moment it starts; leaving the ``with``
block sends SIGTERM, waits, then SIGKILLs the process group, whatever
happened inside the block (error, Ctrl-C, SIGTERM to ecnlab).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Sequence
from types import FrameType

__all__ = ["Processes", "read_line", "terminate_on_sigterm"]

GRACE_S = 3.0


class Processes:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end_all()

    def start(self, argv: Sequence[str]) -> subprocess.Popen[str]:
        """Start ``argv`` with pipes on stdin and stdout, stderr captured to a pipe too."""
        p = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.procs.append(p)
        return p

    def end_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                _signal_group(p, signal.SIGTERM)
        limit = time.monotonic() + GRACE_S
        for p in self.procs:
            try:
                p.wait(timeout=max(0.0, limit - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(p, signal.SIGKILL)
                p.wait(timeout=GRACE_S)
        for p in self.procs:
            for f in (p.stdin, p.stdout, p.stderr):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
        self.procs.clear()


def _signal_group(p: subprocess.Popen[str], sig: int) -> None:
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def read_line(p: subprocess.Popen[str], timeout: float, what: str) -> str:
    """The next line ``p`` prints, waiting at most ``timeout`` seconds."""
    from ecnlab.emu.netns import EmulationError

    assert p.stdout is not None
    ready, _, _ = select.select([p.stdout], [], [], max(0.0, timeout))
    line = p.stdout.readline() if ready else ""
    if not line:
        err = ""
        if p.poll() is not None and p.stderr is not None:
            lines = p.stderr.read().strip().splitlines()
            err = lines[-1].strip() if lines else f"exit status {p.returncode}"  # one line: the last
        raise EmulationError(f"{what}: no answer within {timeout:.0f} s" + (f" ({err})" if err else ""))
    return line


class terminate_on_sigterm:
    """Within the block, SIGTERM raises KeyboardInterrupt so cleanup runs (main thread only)."""

    def __enter__(self) -> terminate_on_sigterm:
        self.old: object = None
        try:
            self.old = signal.signal(signal.SIGTERM, self._raise)
        except ValueError:  # not the main thread: leave signals alone
            self.old = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)  # type: ignore[arg-type]

    @staticmethod
    def _raise(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

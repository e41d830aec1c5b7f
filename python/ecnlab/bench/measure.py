"""Running one simulator process and measuring it from outside: wall time and peak memory."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Measured", "run_measured", "last_json_line", "PeerFailed", "ECNLAB_WITH_VMHWM", "vmhwm_from_stderr"]


class PeerFailed(RuntimeError):
    """A simulator process failed; the message carries the tail of its output."""


@dataclass(frozen=True)
class Measured:
    stdout: str
    stderr: str
    wall_s: float


def vmhwm_from_stderr(stderr: str) -> float | None:
    """The ``N kB VmHWM`` line :data:`ECNLAB_WITH_VMHWM` prints last, in MiB.

    Peak memory is ``VmHWM`` (peak resident set of the address space, read by
    the process itself), not ``wait4``'s ``ru_maxrss``: Linux carries the
    pre-``exec`` peak (the forked copy of the parent) into a child's
    ``ru_maxrss``, so a big benchmark driver would inflate every child it
    measures. ``VmHWM`` starts afresh at ``exec``. The peer scripts report it too.
    """
    lines = [x for x in stderr.splitlines() if x.endswith(" kB VmHWM")]
    return int(lines[-1].split()[0]) / 1024.0 if lines else None


# Runs `ecnlab ARGS` as the command does (`cli.entry`: `main` in a process set up for it, then
# `exit_with` its status) and prints its VmHWM to stderr as the last line before it exits.
ECNLAB_WITH_VMHWM = (
    "import sys\n"
    "from ecnlab import cli\n"
    "sys.argv = ['ecnlab'] + sys.argv[1:]\n"
    "cli.command_process()\n"
    "try:\n"
    "    status = cli.main()\n"
    "finally:\n"
    "    print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0], 'kB VmHWM', file=sys.stderr)\n"
    "cli.exit_with(status)\n"
)


def run_measured(cmd: list[str], *, cwd: Path, timeout_s: float, env: dict[str, str] | None = None) -> Measured:
    """Runs ``cmd``; wall time from fork to exit (the process reports its own peak memory)."""
    out_path, err_path = cwd / ".stdout", cwd / ".stderr"
    with open(out_path, "w") as out_f, open(err_path, "w") as err_f:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out_f, stderr=err_f, env=env)
        timer = threading.Timer(timeout_s, proc.kill)
        timer.start()
        try:
            _, status, _ = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    out, err = out_path.read_text(), err_path.read_text()
    if proc.returncode != 0:
        if wall >= timeout_s:
            raise PeerFailed(f"{Path(cmd[0]).name}: no result after {timeout_s:.0f} s")
        tail = (err or out).strip().splitlines()[-3:]
        raise PeerFailed(f"{Path(cmd[0]).name} exited with {proc.returncode}: {' | '.join(tail)}")
    return Measured(stdout=out, stderr=err, wall_s=wall)


def last_json_line(text: str, what: str) -> dict[str, Any]:
    """The last line of ``text`` that parses as a JSON object."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    raise PeerFailed(f"{what}: no JSON result line in its output")


def clean_env() -> dict[str, str]:
    """The environment for peers: no Python path tricks from the caller, but the same ecnlab.

    A child ``ecnlab run`` must import the ecnlab that runs the bench (a stored result names
    its commit). When the caller's ``PYTHONPATH`` chose it (a checkout run with
    ``PYTHONPATH=python``), the child's ``PYTHONPATH`` is that one entry; nothing else of
    ``PYTHONPATH`` or ``PYTHONHOME`` is passed on.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    here = ECNLAB_ROOT.resolve()
    chosen = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e and Path(e).resolve() == here]
    if chosen:
        env["PYTHONPATH"] = str(here)
    return env


ECNLAB_ROOT = Path(__file__).resolve().parents[2]  # the directory holding this ecnlab package

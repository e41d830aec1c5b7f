"""A stored result: a bench's table with the command, commit, machine and date that produced it.

``ecnlab bench … --record FILE`` ends by writing ``FILE`` (JSON, keys sorted) with:

- ``command``: the command line as typed, ``ecnlab bench …`` (the ``--record FILE`` included, so
  running it again rewrites the same file);
- ``commit``: the ecnlab checkout's ``git rev-parse --short=12 HEAD``, ``-dirty`` appended when
  tracked files outside ``docs/`` differ from it (pages do not change a result), ``unknown``
  outside a git checkout;
- ``machine``: CPU model, cores, memory, OS and release, and the host name (``uname -n``);
- ``date``: the UTC day the command finished (``YYYY-MM-DD``);
- ``load``: the one-minute load average when the command started and when it finished (a
  shared machine's load moves timings; the ratios of interleaved runs move less);
- ``format``: ``markdown`` (the table is Markdown) or ``text`` (fixed-width, shown fenced);
- ``table``: what the bench prints as its result;
- ``details`` (where a bench has them): what it prints below the table that pages leave out
  (``bench fidelity``: each run of a point and the run-to-run spread);
- ``data``: the bench's numbers behind the table (JSON), for other tools.

The file is written whole (a temporary file beside it, then renamed), so an interrupted bench
leaves the previous result in place. ``check_record_path`` is asked before the bench starts:
a path whose directory does not exist or that does not end in ``.json`` is one error line.
Pages include stored results through :mod:`ecnlab.docs_results`.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_record_option", "check_record_path", "machine_name", "provenance", "write_record"]

CHECKOUT = Path(__file__).resolve().parents[3]
LOAD_AT_START = os.getloadavg()[0]  # this module is imported as the bench command starts


def add_record_option(parser: Any) -> None:
    """``--record FILE`` on a bench's parser."""
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="also store the table with this command, the commit, the machine and the date as JSON "
        "(docs/results/*.json; pages include it: python -m ecnlab.docs_results --write)",
    )


def check_record_path(path: Path | None) -> str | None:
    """Why ``--record path`` cannot be written (one line), or None."""
    if path is None:
        return None
    if path.suffix != ".json":
        return f"--record = {str(path)!r}: must end in .json"
    if not path.parent.is_dir():
        return f"--record = {str(path)!r}: the directory {str(path.parent)!r} does not exist"
    if path.exists() and not path.is_file():
        return f"--record = {str(path)!r}: exists and is not a file"
    return None


def machine_name() -> str:
    """CPU model, cores, memory, OS and release, e.g. ``Intel(R) Xeon(R) Processor, 2 cores, 8 GiB, Linux 6.18``."""
    cpu = platform.processor() or platform.machine()
    mem_kib = 0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_kib = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return f"{cpu}, {os.cpu_count()} cores, {mem_kib / 2**20:.0f} GiB, {platform.system()} {platform.release()}"


def _commit(checkout: Path) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise OSError(done.stderr.strip())
        return done.stdout.strip()

    try:
        head = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def provenance(argv: Sequence[str], checkout: Path = CHECKOUT) -> dict[str, str]:
    """The command, commit, machine, date and load of a result written now by ``ecnlab ARGV``."""
    return {
        "command": shlex.join(["ecnlab", *argv]),
        "commit": _commit(checkout),
        "machine": f"{machine_name()}, host {platform.node()}",
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "load": f"{LOAD_AT_START:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
    }


def write_record(
    path: Path, argv: Sequence[str], table: str, data: Any, *, markdown: bool = True, details: str = ""
) -> None:
    """Stores ``table`` (``details``, ``data``) with its provenance at ``path``, whole or not at all."""
    doc = {**provenance(argv), "format": "markdown" if markdown else "text", "table": table.strip("\n"), "data": data}
    if details:
        doc["details"] = details.strip("\n")
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(doc, indent=1, sort_keys=True, default=_plain) + "\n")
    os.replace(part, path)


def _plain(value: Any) -> Any:
    """JSON for what a bench keeps in dataclasses (and paths); anything else is a bug."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} in a stored result's data")

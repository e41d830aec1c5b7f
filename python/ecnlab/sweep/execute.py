"""One run of a sweep: computed in a worker (local process or Dask), written whole by the caller.

Workers never touch the sweep directory. :func:`compute_run` runs the
scenario and returns the files ``ecnlab.run`` would write, as bytes (built in
memory; a run with pcaps runs in a private temporary directory, read back);
:func:`store_run` writes them into ``DIR/runs/.NAME.partial-*``, then, last,
``checksums.sha256`` (the SHA-256 of every other file, as ``sha256sum`` writes
and checks them), and renames that to ``DIR/runs/NAME``. A crash at any point
leaves either a whole result or none (only a hidden staging directory, removed
next time). A run is complete when its files match its checksums (a run stored
without them, by an earlier ecnlab, when its summary.json reads back whole);
a run damaged since (a truncated file, a disk error) is named and run again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.files import naming
from ecnlab.model import Scenario
from ecnlab.results import SUMMARY_FILE

__all__ = ["Outcome", "compute_run", "store_run", "damage", "is_complete", "stored_scenario", "remove_partials"]

PARTIAL = ".partial-"
CHECKSUMS = "checksums.sha256"


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back: the run's files, or the error that stopped it."""

    name: str
    files: dict[str, bytes] | None
    error: str | None


def compute_run(name: str, data: dict[str, Any] | Scenario) -> Outcome:
    """Validate and run one scenario (TOML data, or a Scenario validated already); never raises
    (errors come back in the Outcome)."""
    from ecnlab.config import load_scenario
    from ecnlab.runner import run_scenario_files

    try:
        files = run_scenario_files(data if isinstance(data, Scenario) else load_scenario(data))
        return Outcome(name, files, None)
    except Exception as e:  # reported per run; the sweep goes on
        kind = "engine" if type(e).__name__ == "EngineError" else type(e).__name__
        return Outcome(name, None, f"{kind}: {e}")


def store_run(runs_dir: Path, name: str, files: dict[str, bytes]) -> Path:
    """Write a run's files into ``runs_dir/NAME`` all at once (stage, then rename)."""
    if SUMMARY_FILE not in files:
        raise ValueError(f"run {name!r} produced no {SUMMARY_FILE}")
    staging = Path(tempfile.mkdtemp(prefix=f".{name}{PARTIAL}", dir=runs_dir))
    try:
        for rel, content in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with naming(runs_dir / name / rel):
                target.write_bytes(content)
        with naming(runs_dir / name / CHECKSUMS):  # last: the run's completion marker
            (staging / CHECKSUMS).write_text(_checksums(files), encoding="utf-8")
        os.chmod(staging, 0o755 & ~_umask())
        final = runs_dir / name
        if final.exists():  # an incomplete or damaged leftover, never a complete run
            shutil.rmtree(final)
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def _checksums(files: dict[str, bytes]) -> str:
    """``sha256sum``'s lines for ``files`` (by relative path), in path order."""
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {rel}\n" for rel, data in sorted(files.items()))


def damage(runs_dir: Path, name: str) -> str | None:
    """What is wrong with a stored run (``runs_dir/NAME`` exists), or None when it is whole."""
    from ecnlab.errors import ResultError
    from ecnlab.results import read_summary

    d = runs_dir / name
    sums = d / CHECKSUMS
    if not sums.is_file():  # stored by an ecnlab without checksums: its summary must read back
        try:
            read_summary(d / SUMMARY_FILE)
        except ResultError as e:
            return str(e)
        return None
    try:
        lines = sums.read_text(encoding="utf-8").splitlines()
        for line in lines:
            want, rel = line.split("  ", 1)
            if hashlib.sha256((d / rel).read_bytes()).hexdigest() != want:
                return f"{d / rel}: damaged (its checksum in {CHECKSUMS} differs)"
    except (OSError, ValueError) as e:
        return f"{d}: damaged ({e})"
    if SUMMARY_FILE not in {line.split("  ", 1)[1] for line in lines}:
        return f"{sums}: damaged (no {SUMMARY_FILE} listed)"
    return None


def is_complete(runs_dir: Path, name: str) -> bool:
    """A run is complete when it was stored and is not damaged (:func:`damage`)."""
    return (runs_dir / name).is_dir() and damage(runs_dir, name) is None


def stored_scenario(runs_dir: Path, name: str) -> Any:
    """The resolved scenario recorded in a complete run's summary.json."""
    from ecnlab.results import read_summary

    return read_summary(runs_dir / name / SUMMARY_FILE).get("scenario")


def remove_partials(runs_dir: Path) -> int:
    """Remove staging directories a killed sweep left behind; return how many."""
    n = 0
    for p in runs_dir.iterdir():
        if p.name.startswith(".") and PARTIAL in p.name and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
            n += 1
    return n


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

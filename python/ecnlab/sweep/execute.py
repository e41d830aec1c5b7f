"""One run of a sweep: computed in a worker (local process or Dask), written whole by the caller.

Workers never touch the sweep directory. :func:`compute_run` runs the
scenario and returns the files ``ecnlab.run`` would write, as bytes (built in
memory; a run with pcaps runs in a private temporary directory, read back);
:func:`store_run` writes them into ``DIR/runs/.NAME.partial-*`` and renames
that to ``DIR/runs/NAME``. A run is complete exactly when
``DIR/runs/NAME/summary.json`` exists, so a crash at any point leaves either
a whole result or none (only a hidden staging directory, removed next time).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecnlab.model import Scenario
from ecnlab.results import SUMMARY_FILE

__all__ = ["Outcome", "compute_run", "store_run", "is_complete", "stored_scenario", "remove_partials"]

PARTIAL = ".partial-"


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
            target.write_bytes(content)
        os.chmod(staging, 0o755 & ~_umask())
        final = runs_dir / name
        if final.exists():  # an incomplete leftover (no summary.json), never a complete run
            shutil.rmtree(final)
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def is_complete(runs_dir: Path, name: str) -> bool:
    """A run is complete when its summary.json exists."""
    return (runs_dir / name / SUMMARY_FILE).is_file()


def stored_scenario(runs_dir: Path, name: str) -> Any:
    """The resolved scenario recorded in a complete run's summary.json."""
    return json.loads((runs_dir / name / SUMMARY_FILE).read_text(encoding="utf-8")).get("scenario")


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

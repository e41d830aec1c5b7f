"""``ecnlab.run``: validate, lower, run the engine with the GIL released, write results.

Output directories appear only for runs that succeed: results are written into
a temporary directory beside ``out`` and renamed into place at the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ecnlab import distributions, flowtable, timeseries
from ecnlab.arguments import optional_path
from ecnlab.bottleneck import signal_warnings
from ecnlab.config import Overrides, ScenarioSource, load_scenario
from ecnlab.engine_check import scenario_error
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_json, resolved_scenario
from ecnlab.model import Scenario
from ecnlab.results import SUMMARY_FILE, RunResult, build_summary, git_commit, summary_bytes, write_summary

if TYPE_CHECKING:
    import pyarrow as pa

    from ecnlab._core import RecordsText

__all__ = ["run", "run_scenario", "run_scenario_files", "check_out_dir"]


class Engine(Protocol):
    """What the runner needs from ``ecnlab._core``."""

    def run(self, spec_json: str) -> str: ...

    def run_split(
        self, spec_json: str
    ) -> tuple[
        dict[str, Any],
        dict[str, Any],
        dict[str, Any],
        list[tuple[str, str, bytes, bytes | None, bytes | None]] | None,
        RecordsText | None,
    ]: ...

    def version(self) -> str: ...


def check_out_dir(out: Path) -> None:
    """Refuse an ``out`` that exists and is not an earlier ecnlab result directory."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ScenarioError("--out", "exists and is not a directory", str(out))
    if out.is_dir() and any(out.iterdir()) and not (out / SUMMARY_FILE).is_file():
        raise ScenarioError("--out", "exists and is not an ecnlab result directory (no summary.json)", str(out))


def run(
    scenario: ScenarioSource,
    *,
    seed: int | None = None,
    overrides: Overrides = None,
    out: str | Path | None = None,
) -> RunResult:
    """Validate ``scenario`` (path or dict), run it, and return its results.

    With ``out``, also write ``out/summary.json`` and any pcaps; an existing
    result directory there is replaced only once the new run has succeeded.
    """
    target = optional_path(out, "out")
    sc = load_scenario(scenario, overrides, seed=seed, engine_check=False)  # the run makes it
    return run_scenario(sc, out=target)


def run_scenario(sc: Scenario, *, out: Path | None = None) -> RunResult:
    """Run an already validated scenario."""
    from ecnlab import _core

    if out is None:
        with tempfile.TemporaryDirectory(prefix="ecnlab-") as tmp:
            summary, series, table, _ = _run_engine(_core, sc, Path(tmp) if sc.pcap else None)
        return RunResult(summary, None, series, table)
    with atomic_out_dir(out) as staging:
        summary, series, table, records = _run_engine(_core, sc, staging if sc.pcap else None)
        write_summary(staging, summary, records)
        timeseries.write(staging, series)
        flowtable.write(staging, table)
    return RunResult(summary, out, series, table)


def run_scenario_files(sc: Scenario) -> dict[str, bytes]:
    """Run an already validated scenario and return the files ``run_scenario(sc, out=DIR)`` would
    write into DIR, by relative path, as bytes (the same bytes). Without pcaps nothing touches the
    disk: a sweep worker sends these to the sweep process, which writes them."""
    from ecnlab import _core

    if sc.pcap:  # the engine writes pcaps itself: run into a private directory and read it back
        with tempfile.TemporaryDirectory(prefix="ecnlab-run-") as tmp:
            out = Path(tmp) / "run"
            run_scenario(sc, out=out)
            return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    summary, series, table, records = _run_engine(_core, sc, None)
    files = {SUMMARY_FILE: summary_bytes(summary, records), **timeseries.encode(series), **flowtable.encode(table)}
    return dict(sorted(files.items()))


@contextlib.contextmanager
def atomic_out_dir(out: Path) -> Iterator[Path]:
    """Yield a staging directory beside ``out`` that becomes ``out`` when the block
    succeeds; on any failure (Ctrl-C included) remove it and the parents it created,
    so a failed run leaves nothing behind."""
    check_out_dir(out)
    created: list[Path] = []
    try:
        created = _make_parents(out.parent)
        remove_stale_partials(out)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-{os.getpid()}-", dir=out.parent))
    except OSError as e:
        _remove_created(created)
        raise ScenarioError("--out", f"cannot be written ({e.strerror or e})", str(out)) from None
    try:
        yield staging
        _replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_created(created)
        raise


def remove_stale_partials(out: Path) -> None:
    """Remove staging directories of ``out`` left by runs that were killed (SIGKILL, power loss):
    ``.NAME.partial-PID-*`` whose process is gone (no live process has that pid)."""
    for p in out.parent.glob(f".{out.name}.partial-*"):
        pid = p.name.removeprefix(f".{out.name}.partial-").split("-", 1)[0]
        if p.is_dir() and not p.is_symlink() and (not pid.isdigit() or not pid_alive(int(pid))):
            shutil.rmtree(p, ignore_errors=True)


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_created(created: list[Path]) -> None:
    """Remove the parent directories a failed run created (innermost first)."""
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:
            break


def _run_engine(
    core: Engine, sc: Scenario, pcap_dir: Path | None
) -> tuple[dict[str, Any], dict[str, Any], pa.Table | None, RecordsText | None]:
    """The summary, the time series and sojourn histogram tables (``timeseries.py``,
    ``distributions.py``) by file name, the per-flow table when the run has a large group
    (``flowtable.py``), and the engine's text of the summary's ``flows`` (for writing it)."""
    from ecnlab._core import SpecError

    spec = engine_json(sc, pcap_dir=str(pcap_dir) if pcap_dir is not None else None)
    prep = _OutputPrep(sc)
    t0 = time.perf_counter()
    try:
        engine, queues, flows, columns, records = core.run_split(spec)
    except SpecError as e:  # the engine's check, made before anything runs (load_scenario's, left to it)
        raise scenario_error(sc, e.args) from None
    finally:
        wall = time.perf_counter() - t0
        prep.thread.join()  # also when the run failed: nothing of it outlives the call
    resolved = prep.result()
    series = timeseries.from_columns(queues, flows) if sc.sample_interval_ns else {}
    series.update(distributions.from_engine(engine.pop("sojourn_histograms", [])))
    table = flowtable.from_engine(columns) if columns is not None else None
    summary = build_summary(scenario=resolved, engine=engine, wall_s=wall, version=core.version(), flows=table)
    warnings = signal_warnings(sc.topology, summary["queues"])
    if warnings:  # only then: a run whose signals happened where the scenario meant has no such key
        summary["warnings"] = warnings
    return summary, series, table, records


class _OutputPrep:
    """The output work that does not depend on the run's results, on another thread, where it
    overlaps the engine (which releases the GIL): the resolved scenario the summary carries
    (``lower.resolved_scenario``, 5 ms for ten thousand flow entries), asking git for the source
    tree's commit, and, when the run writes Parquet (router queues' sojourn histograms, time
    series, a large group's flows), importing numpy and pyarrow (0.2–0.3 s) and writing one small
    table to memory (pyarrow's first Parquet write in a process costs 5–10 ms more than the next)."""

    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.resolved: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._work, name="ecnlab-output-prep", daemon=True)
        self.thread.start()

    def result(self) -> dict[str, Any]:
        """The resolved scenario, once the thread is done; what it raised, raised here."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.resolved is not None
        return self.resolved

    def _work(self) -> None:
        try:
            self.resolved = resolved_scenario(self.sc)
            git_commit()  # cached for build_summary
            if _writes_parquet(self.sc):
                timeseries.warm_writer()
        except BaseException as e:  # handed to the caller's thread by result()
            self.error = e


def _writes_parquet(sc: Scenario) -> bool:
    if sc.sample_interval_ns or any(n.kind == "router" for n in sc.topology.nodes):
        return True
    return any(g.size > flowtable.GROUP_RECORD_LIMIT for g in sc.groups)


def _make_parents(parent: Path) -> list[Path]:
    """Create missing parent directories; return those created (outermost first)."""
    missing = []
    p = parent.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    missing.reverse()
    for d in missing:
        d.mkdir()
    return missing


def _replace(staging: Path, out: Path) -> None:
    """Move ``staging`` to ``out``, replacing an earlier result directory there."""
    os.chmod(staging, 0o755 & ~_umask())
    if not out.exists():
        staging.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    old.rmdir()
    out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

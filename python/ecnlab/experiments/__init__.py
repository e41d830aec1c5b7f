"""Experiments: named, reproducible studies (``ecnlab reproduce NAME``), each a sweep plus its analysis.

The seed studies are written on :mod:`ecnlab.experiments.framework` (a ``Study`` of ``Part``s
declared as data, per-run metrics kept with the runs, ``Claim``s with verdicts); its
``Study.register`` makes the ``Experiment`` entries below. This module is the registry
and the reproduce driver underneath it.

An experiment module lives in ``ecnlab/experiments/<name>/__init__.py`` beside
its sweep files ``sweep.toml`` (the full study) and ``quick.toml`` (a few
seconds, for CI), and registers itself on import::

    from ecnlab.experiments import Experiment, register

    register(Experiment(
        name="rfc2884-bulk",
        title="RFC 2884 §5.1: bulk transfers with and without ECN",
        package=__name__,                      # sweep files are found beside this module
        summarize=summarize,                   # (SweepResults) -> list[(name, DataFrame)]
        figures=figures,                       # (SweepResults, outdir) -> list[Path]
        report_section=report_section,         # (SweepResults, tables, figures) -> (title, markdown)
    ))

``reproduce`` runs the sweep (local pool or Dask), then writes each table as
``tables/NAME.csv`` and ``tables/NAME.md``, the figures, and ``report.html``
(the experiment's own section first, then the standard sweep sections).
A *group* (``register_group("rfc2884", [...])``) reproduces several
experiments, each into ``OUT/<experiment>/``.

Two optional hooks serve live emulation (kuz-testbed): ``compute`` runs each
sweep run in the reproducing process, one after another, instead of the
simulator's worker pool (``--jobs``/``--scheduler`` do not apply), returning
the same ``Outcome`` as the simulator's workers; ``unavailable`` says why the
experiment cannot run on this machine, and reproduce then writes that one
line as its report and goes on with the rest of the group.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.errors import ScenarioError
from ecnlab.files import write_atomic, write_text

if TYPE_CHECKING:
    import pandas as pd

    from ecnlab.experiments.framework import Claim
    from ecnlab.store import SweepResults
    from ecnlab.sweep.execute import Outcome
    from ecnlab.sweep.spec import Run

__all__ = [
    "Experiment",
    "register",
    "register_group",
    "resolve",
    "names",
    "reproduce",
    "to_markdown",
    "ReproduceOutcome",
]

Tables = list[tuple[str, "pd.DataFrame"]]


@dataclass(frozen=True)
class Experiment:
    """A registered study; see the module docstring."""

    name: str
    title: str
    package: str | None = None  # module whose directory holds sweep.toml / quick.toml
    summarize: Callable[[SweepResults], Tables] | None = None
    figures: Callable[[SweepResults, Path], list[Path]] | None = None
    report_section: Callable[[SweepResults, Tables, list[Path]], tuple[str, str]] | None = None
    sweep_file: Path | None = None  # explicit paths (tests); default: files beside ``package``
    quick_file: Path | None = None
    # Live emulation: run each sweep run in this process, one after another, with this function
    # instead of the simulator's worker pool (kuz-testbed).
    compute: Callable[[Run], Outcome] | None = None
    # Why the experiment cannot run on this machine (None: it can); reproduce then writes a
    # report saying so in one line and goes on with the other experiments.
    unavailable: Callable[[], str | None] | None = None
    # The framework's hooks (experiments/framework.py): the part's claims, its per-run metrics (written
    # as metrics.parquet beside the runs), the figure the index page shows, the study it belongs to.
    claims: Callable[[SweepResults, Tables], list[Claim]] | None = None
    run_metrics: Callable[[SweepResults], pd.DataFrame] | None = None
    key_figure: str | None = None
    study: str | None = None
    diagnostic: bool = False  # a sensitivity check: not a golden engine case (bench/golden.py)

    def sweep_path(self, quick: bool) -> Path:
        """The sweep file to run (``quick.toml`` with ``quick``)."""
        explicit = self.quick_file if quick else self.sweep_file
        if explicit is not None:
            return explicit
        if self.package is None:
            raise ValueError(f"experiment {self.name!r} has neither a package nor sweep files")
        return Path(str(resources.files(self.package) / ("quick.toml" if quick else "sweep.toml")))


_REGISTRY: dict[str, Experiment] = {}
_GROUPS: dict[str, tuple[str, ...]] = {}
_discovered = False
_BROKEN: dict[str, str] = {}  # experiment modules that failed to import: name -> error


def register(exp: Experiment, *, replace: bool = False) -> Experiment:
    """Add an experiment to the registry (names are unique)."""
    if not replace and (exp.name in _REGISTRY or exp.name in _GROUPS):
        raise ValueError(f"experiment {exp.name!r} is already registered")
    _REGISTRY[exp.name] = exp
    return exp


def register_group(name: str, members: Sequence[str], *, replace: bool = False) -> None:
    """Name a list of experiments (reproduced together)."""
    if not replace and (name in _REGISTRY or name in _GROUPS):
        raise ValueError(f"experiment group {name!r} is already registered")
    _GROUPS[name] = tuple(members)


def unregister(name: str) -> None:
    """Remove an experiment or group (tests register temporary ones)."""
    _REGISTRY.pop(name, None)
    _GROUPS.pop(name, None)


def _discover() -> None:
    """Import every experiment sub-package once, so each registers itself."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for info in pkgutil.iter_modules(__path__):
        try:
            importlib.import_module(f"{__name__}.{info.name}")
        except Exception as e:  # one broken study must not hide the others; resolve() reports it
            _BROKEN[info.name] = f"{type(e).__name__}: {e}"


ALL = "all"
"""The name that stands for every registered experiment (the main job reproduces it)."""


def names() -> list[str]:
    """Every registered experiment and group name (and ``all``)."""
    _discover()
    return sorted([*_REGISTRY, *_GROUPS, ALL])


def resolve(name: str) -> list[Experiment]:
    """The experiments a name stands for (one, or a group's members)."""
    _discover()
    if name in _REGISTRY:
        return [_REGISTRY[name]]
    if name in _GROUPS:
        return [e for member in _GROUPS[name] for e in resolve(member)]
    if name == ALL:
        return [_REGISTRY[n] for n in sorted(_REGISTRY)]
    known = ", ".join(names()) or "none registered yet"
    broken = "".join(f"; {m} failed to import: {err}" for m, err in sorted(_BROKEN.items()))
    raise ScenarioError("experiment", f"unknown (known: {known}){broken}", name)


@dataclass
class ReproduceOutcome:
    """Where each experiment's results went and whether all of its runs completed."""

    dirs: dict[str, Path]
    ok: bool


def reproduce(
    name: str,
    *,
    out: str | Path,
    quick: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> ReproduceOutcome:
    """Run an experiment (or group) and write its tables, figures and report."""
    from ecnlab.sweep import load_sweep, run_sweep

    exps = resolve(name)
    root = Path(out)
    sweeps = {e.name: load_sweep(e.sweep_path(quick)) for e in exps}  # every sweep validated first
    dirs, ok = {}, True
    for e in exps:
        d = root if len(exps) == 1 else root / e.name
        why = e.unavailable() if e.unavailable is not None else None
        if why is not None:
            write_skipped(e, d, why)
            dirs[e.name] = d
            continue
        outcome = run_sweep(sweeps[e.name], d, jobs=jobs, scheduler=scheduler, progress=progress, compute=e.compute)
        ok = ok and outcome.ok
        dirs[e.name] = d
        if len(outcome.failed) == outcome.total:  # nothing to analyse: say so instead of failing in the analysis
            write_skipped(e, d, f"all {outcome.total} runs failed (the first: {outcome.failed[0][1]})")
            continue
        write_outputs(e, d)
    if len(exps) > 1:
        write_index(name, root, exps, quick=quick)
    return ReproduceOutcome(dirs, ok)


def write_index(name: str, root: Path, exps: Sequence[Experiment], *, quick: bool) -> Path:
    """``root/report.html``: the index page (``experiments/index.py``)."""
    from ecnlab.experiments.index import write_index as write

    return write(name, root, exps, quick=quick)


def write_skipped(exp: Experiment, d: Path, why: str) -> Path:
    """``d/report.html`` of an experiment that cannot run here: one line saying why."""
    import sys

    from ecnlab.report import REPORT_FILE, Report

    print(f"ecnlab: {exp.name} skipped: {why}", file=sys.stderr)
    report = Report(f"{exp.name}: {exp.title}")
    report.add_section(exp.title, f"Skipped on this machine: {why}.")
    d.mkdir(parents=True, exist_ok=True)
    return report.write(d / REPORT_FILE)


def write_outputs(exp: Experiment, d: Path) -> Path:
    """Tables (CSV + Markdown), figures and report.html of an experiment's sweep directory."""
    from ecnlab.report import Report, add_sweep_sections
    from ecnlab.store import load

    res = load(d)
    tables = exp.summarize(res) if exp.summarize else []
    tdir = d / "tables"
    for tname, frame in tables:
        tdir.mkdir(parents=True, exist_ok=True)
        write_text(tdir / f"{tname}.csv", frame.to_csv(index=False))
        write_text(tdir / f"{tname}.md", to_markdown(frame))
    figs = exp.figures(res, d / "figures") if exp.figures else []
    _write_framework_outputs(exp, res, d, tables, figs)
    report = Report(f"{exp.name}: {exp.title}")
    if exp.report_section is not None:
        title, text = exp.report_section(res, tables, figs)
        report.add_section(title, text, figures=figs, tables=tables)
    elif figs or tables:
        report.add_section(exp.title, figures=figs, tables=tables)
    add_sweep_sections(report, res, d / "figures")
    from ecnlab.report import REPORT_FILE

    return report.write(d / REPORT_FILE)


def _write_framework_outputs(exp: Experiment, res: SweepResults, d: Path, tables: Tables, figs: list[Path]) -> None:
    """``metrics.parquet`` (the per-run metrics) and ``claims.json`` (claims, key figure) of a framework part."""
    from ecnlab.experiments.framework import METRICS_FILE, write_claims

    if exp.run_metrics is not None:
        metrics = exp.run_metrics(res)
        write_atomic(d / METRICS_FILE, lambda tmp: metrics.to_parquet(tmp, index=False))
    if exp.study is None and exp.claims is None and exp.key_figure is None:
        return
    claims = exp.claims(res, tables) if exp.claims is not None else []
    key = next((f for f in figs if f.name == exp.key_figure), None)
    write_claims(d, claims, key)


def to_markdown(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (floats to 4 significant digits)."""
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v).replace("|", "\\|")

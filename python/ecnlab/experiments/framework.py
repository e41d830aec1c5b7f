"""One shape for every study: parts declared as data, per-run metrics kept with the runs, claims.

A *study* (one paper: ``rfc2884``, ``floyd1994``, ...) asks one question and
is made of *parts* (sub-experiments), each one sweep with its analysis. A
study module declares them as data and registers them in one call::

    from ecnlab.experiments.framework import Part, Study

    STUDY = Study(
        name="floyd1994",
        question="Does ECN give bulk TCP high throughput and telnet low delay where RED and Drop-Tail do not?",
        package=__name__,
        parts=(
            Part(name="floyd-lan", title="...", sweep="lan.toml", quick="lan-quick.toml",
                 metrics=lan_runs,          # (SweepResults) -> per-run DataFrame, computed once
                 tables=lan_tables,         # (Results) -> [(name, DataFrame)]
                 figures=lan_figures,       # (Results, outdir) -> [Path]
                 section=lan_section,       # (Results, tables, figures) -> (title, markdown)
                 claims=lan_claims,         # (Results, tables) -> [Claim]
                 key_figure="floyd-lan-clock-0p1ms.png"),
            ...
        ),
    ).register()

``register`` turns every part into an :class:`~ecnlab.experiments.Experiment`
(``ecnlab reproduce PART``) and the study into a group of its parts that are
not diagnostics (``ecnlab reproduce STUDY``) unless a part is named like the
study; ``ecnlab reproduce all`` runs every part, diagnostics included. A part's analysis
functions receive a :class:`Results`: the sweep's results with the part's
per-run metrics (``results.runs``) computed on first use and kept with that
results object — never in a module-level cache, so two sweep directories (or
two settings of one) cannot share an entry. After the tables, the framework
also writes the per-run metrics beside the runs (``metrics.parquet``) and the
claims (``claims.json``) that the index page of ``reproduce`` shows.

Shared pieces: :func:`mean_ci95` and :func:`cells` (means with 95 % intervals
per grid point), :class:`PaperValue` (a paper's number, where it is printed,
and ecnlab's) and :class:`Claim` (a paper's statement, ecnlab's
:class:`Verdict` and a one-line reason, always computed from results).
docs/experiments/README.md describes how to write a study.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.files import write_text

if TYPE_CHECKING:
    from ecnlab.experiments import Experiment
    from ecnlab.store import SweepResults

__all__ = [
    "Verdict",
    "Claim",
    "PaperValue",
    "Results",
    "Part",
    "Study",
    "mean_ci95",
    "T95",
    "cells",
    "claims_from_table",
    "read_claims",
    "write_claims",
    "studies",
    "study_of",
    "CLAIMS_FILE",
    "METRICS_FILE",
]

CLAIMS_FILE = "claims.json"
METRICS_FILE = "metrics.parquet"
Tables = list[tuple[str, pd.DataFrame]]


class Verdict(str, Enum):
    """What ecnlab's runs say about a paper's claim."""

    HOLDS = "holds"
    PARTLY = "partly"
    DOES_NOT_HOLD = "does not hold"
    NOT_RUN = "not run"

    @classmethod
    def of_share(cls, k: int, n: int) -> Verdict:
        """Holds in all ``n`` cases, in none, in some; ``not run`` without cases."""
        if n == 0:
            return cls.NOT_RUN
        return cls.HOLDS if k == n else cls.DOES_NOT_HOLD if k == 0 else cls.PARTLY

    @classmethod
    def of_bool(cls, ok: bool | None) -> Verdict:
        """True holds, False does not hold, None (no data) not run."""
        return cls.NOT_RUN if ok is None else cls.HOLDS if ok else cls.DOES_NOT_HOLD

    @classmethod
    def of_all(cls, oks: Iterable[bool | None]) -> Verdict:
        """Over several checks (None ones ignored): all hold, none, some."""
        known = [bool(x) for x in oks if x is not None]
        return cls.of_share(sum(known), len(known))


@dataclass(frozen=True)
class Claim:
    """A paper's statement with ecnlab's verdict and a one-line reason (numbers from the runs)."""

    text: str
    verdict: Verdict
    reason: str
    source: str = ""  # the paper's section or figure
    part: str = ""  # the sub-experiment that checked it

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        if "\n" in self.reason:
            raise ValueError(f"a claim's reason is one line: {self.reason!r}")

    def to_json(self) -> dict[str, str]:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        return d


@dataclass(frozen=True)
class PaperValue:
    """A number a paper prints, where it prints it, and ecnlab's number for the same point."""

    name: str
    paper: float
    source: str
    ecnlab: float = float("nan")
    ci95: float = float("nan")

    @property
    def diff(self) -> float:
        """ecnlab − paper (NaN where ecnlab has no number)."""
        return self.ecnlab - self.paper

    def within(self, rel: float) -> bool | None:
        """Whether ecnlab's number is within ``rel`` (a fraction) of the paper's; None if not run."""
        if math.isnan(self.ecnlab):
            return None
        return abs(self.diff) <= rel * abs(self.paper)


# Two-sided 97.5 % quantiles of Student's t for 1..30 degrees of freedom.
T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95 % confidence interval (Student t; 0 for a single value)."""
    xs = [float(x) for x in values]
    n = len(xs)
    if n == 0:
        raise ValueError("mean_ci95: no values")
    mean = sum(xs) / n
    if n == 1:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    t = T95[n - 2] if n - 1 <= len(T95) else 1.96
    return mean, t * math.sqrt(var / n)


def cells(runs: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per grid point (keys in first-seen order): ``n`` runs, each metric's mean and ``_ci95``."""
    rows = []
    for point, g in runs.groupby(list(keys), sort=False):
        point = point if isinstance(point, tuple) else (point,)
        row: dict[str, Any] = dict(zip(keys, point, strict=True))
        row["n"] = len(g)
        for m in metrics:
            mean, ci = mean_ci95(g[m].astype(float).tolist())
            row[m] = mean
            row[f"{m}_ci95"] = ci
        rows.append(row)
    return pd.DataFrame(rows)


class Results:
    """A part's sweep results with its per-run metrics, computed on first use and kept here."""

    def __init__(self, res: SweepResults, metrics: Callable[[SweepResults], pd.DataFrame] | None) -> None:
        self.res = res
        self._metrics = metrics
        self._runs: pd.DataFrame | None = None
        self._derived: dict[str, Any] = {}

    @property
    def runs(self) -> pd.DataFrame:
        """The part's per-run metrics (one row per run)."""
        if self._runs is None:
            if self._metrics is None:
                raise ValueError("this part declares no per-run metrics")
            self._runs = self._metrics(self.res)
        return self._runs

    def derive(self, key: str, fn: Callable[[SweepResults], Any]) -> Any:
        """Any other result derived from the runs (``fn(res)``), computed once and kept here."""
        if key not in self._derived:
            self._derived[key] = fn(self.res)
        return self._derived[key]

    def __getattr__(self, name: str) -> Any:  # the SweepResults' own fields: path, flows, summary(), ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.res, name)


def results_of(res: SweepResults | Results, part: Part) -> Results:
    """``res`` as ``part``'s :class:`Results`, made once and kept with the runs (``res.derived``)."""
    if isinstance(res, Results):
        return res
    if part.name not in res.derived:
        res.derived[part.name] = Results(res, part.metrics)
    out = res.derived[part.name]
    assert isinstance(out, Results)
    return out


TablesFn = Callable[[Results], Tables]
FiguresFn = Callable[[Results, Path], list[Path]]
SectionFn = Callable[[Results, Tables, list[Path]], tuple[str, str]]
ClaimsFn = Callable[[Results, Tables], list[Claim]]


@dataclass(frozen=True)
class Part:
    """One sub-experiment of a study: a sweep and its analysis, declared as data."""

    name: str
    title: str
    sweep: str  # file beside the study's module
    quick: str
    metrics: Callable[[SweepResults], pd.DataFrame] | None = None
    tables: TablesFn | None = None
    figures: FiguresFn | None = None
    section: SectionFn | None = None
    claims: ClaimsFn | None = None
    key_figure: str | None = None  # file name of the figure the index page shows
    compute: Callable[..., Any] | None = None  # live emulation hook (Experiment.compute)
    unavailable: Callable[[], str | None] | None = None
    # A diagnostic explains a difference from the paper (a sensitivity check); it is reproduced and
    # stored like any part, but it is not one of the golden engine cases (crates/sim/tests/golden).
    diagnostic: bool = False


@dataclass(frozen=True)
class Study:
    """A paper's study: its question and its parts."""

    name: str
    question: str
    package: str
    parts: tuple[Part, ...]
    doc: str = ""  # docs/experiments/<name>.md
    group: bool = True  # register the study's name as a group of its parts

    def experiment(self, part: Part) -> Experiment:
        """The registry entry that runs one part."""
        from ecnlab.experiments import Experiment

        here = resources.files(self.package)
        return Experiment(
            name=part.name,
            title=part.title,
            package=self.package,
            summarize=_bind_tables(part),
            figures=_bind_figures(part),
            report_section=_bind_section(part),
            sweep_file=Path(str(here / part.sweep)),
            quick_file=Path(str(here / part.quick)),
            compute=part.compute,
            unavailable=part.unavailable,
            claims=_bind_claims(part),
            run_metrics=_bind_metrics(part),
            key_figure=part.key_figure,
            study=self.name,
            diagnostic=part.diagnostic,
        )

    def part_experiment(self, part: str, **changes: Any) -> Experiment:
        """The experiment of the part named ``part``, with fields changed (tests run parts on tiny sweeps)."""
        import dataclasses

        found = next((p for p in self.parts if p.name == part), None)
        if found is None:
            raise KeyError(f"{self.name} has no part {part!r}")
        return dataclasses.replace(self.experiment(found), **changes)

    def register(self) -> Study:
        """Register every part (and the study as a group of them); returns the study."""
        from ecnlab.experiments import register, register_group

        for p in self.parts:
            register(self.experiment(p), replace=True)
        if self.group and self.name not in {p.name for p in self.parts}:
            register_group(self.name, [p.name for p in self.parts if not p.diagnostic], replace=True)
        _STUDIES[self.name] = self
        return self


_STUDIES: dict[str, Study] = {}


def studies() -> list[Study]:
    """Every registered study (after the experiments were discovered)."""
    from ecnlab.experiments import names

    names()
    return list(_STUDIES.values())


def study_of(experiment: str) -> Study | None:
    """The study an experiment (part) belongs to."""
    return next((s for s in studies() if experiment in {p.name for p in s.parts}), None)


def _bind_tables(part: Part) -> Callable[[SweepResults], Tables] | None:
    if part.tables is None:
        return None
    fn = part.tables
    return lambda res: fn(results_of(res, part))


def _bind_figures(part: Part) -> Callable[[SweepResults, Path], list[Path]] | None:
    if part.figures is None:
        return None
    fn = part.figures
    return lambda res, outdir: fn(results_of(res, part), outdir)


def _bind_section(part: Part) -> Callable[[SweepResults, Tables, list[Path]], tuple[str, str]] | None:
    if part.section is None:
        return None
    fn = part.section
    return lambda res, tables, figs: fn(results_of(res, part), tables, figs)


def _bind_metrics(part: Part) -> Callable[[SweepResults], pd.DataFrame] | None:
    if part.metrics is None:
        return None
    return lambda res: results_of(res, part).runs


def _bind_claims(part: Part) -> Callable[[SweepResults, Tables], list[Claim]] | None:
    if part.claims is None:
        return None
    fn, name = part.claims, part.name

    def claims(res: SweepResults, tables: Tables) -> list[Claim]:
        out = fn(results_of(res, part), tables)
        return [c if c.part else Claim(c.text, c.verdict, c.reason, c.source, name) for c in out]

    return claims


def claims_from_table(
    table: pd.DataFrame, *, text: str, ok: str, reason: Sequence[str], source: str = "", prefix: str = ""
) -> list[Claim]:
    """Claims from a study's own claims table: one per row, True/False/None in column ``ok``.

    The reason lists the ``reason`` columns as ``column value``; ``prefix`` names a column whose value
    goes before the claim's text (e.g. the engine).
    """
    out = []
    for _, r in table.iterrows():
        val = r[ok]
        verdict = Verdict.of_bool(None if val is None or (isinstance(val, float) and math.isnan(val)) else bool(val))
        shown = "; ".join(f"{c} {_short(r[c])}" for c in reason if not _missing(r[c]))
        head = f"{r[prefix]}: " if prefix else ""
        out.append(Claim(f"{head}{r[text]}", verdict, shown or "no numbers", source))
    return out


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _short(v: Any) -> str:
    """A value for a reason line: floats (also inside text) to 4 significant digits."""
    if isinstance(v, float):
        return f"{v:.4g}"
    return re.sub(r"\d+\.\d{5,}", lambda m: f"{float(m.group()):.4g}", str(v))


def write_claims(d: Path, claims: Sequence[Claim], key_figure: Path | None) -> Path:
    """``d/claims.json``: the part's claims and the figure the index shows."""
    doc = {"claims": [c.to_json() for c in claims], "key_figure": _rel(key_figure, d)}
    path = d / CLAIMS_FILE
    return write_text(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def _rel(p: Path | None, d: Path) -> str | None:
    return None if p is None else p.resolve().relative_to(d.resolve()).as_posix()


@dataclass
class PartOutcome:
    """What a part's directory says for the index page (``claims.json``)."""

    claims: list[Claim] = field(default_factory=list)
    key_figure: str | None = None  # relative to the part's directory
    found: bool = False


def read_claims(d: Path) -> PartOutcome:
    """The claims and key figure a part wrote into ``d`` (empty when it did not run)."""
    path = d / CLAIMS_FILE
    if not path.is_file():
        return PartOutcome()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        claims = [Claim(**c) for c in doc["claims"]]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        from ecnlab.errors import ResultError

        raise ResultError(path, f"damaged ({type(e).__name__}: {e}); run the part again") from None
    return PartOutcome(claims, doc.get("key_figure"), True)

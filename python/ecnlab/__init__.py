"""ecnlab: a deterministic packet-level simulator for ECN/AQM research.

The engine is Rust (``ecnlab._core``); this package reads and validates
scenario files, runs them and writes self-describing results.

>>> import ecnlab
>>> result = ecnlab.run("scenarios/dumbbell-red-ecn.toml", out="out/x")  # doctest: +SKIP
>>> result.flows[["id", "goodput_bps"]]  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.arguments import as_path
from ecnlab.config import Overrides, ScenarioSource, load_scenario
from ecnlab.errors import EcnlabError, ResultError, ScenarioError
from ecnlab.model import Scenario
from ecnlab.results import RunResult, load_result
from ecnlab.runner import run

if TYPE_CHECKING:
    from ecnlab.store import SweepResults


def __getattr__(name: str) -> str:
    # ``__version__`` is looked up on first use: importlib.metadata costs ~40 ms
    # of start-up that ``ecnlab run`` does not need (docs/performance.md).
    if name != "__version__":
        raise AttributeError(f"module 'ecnlab' has no attribute {name!r}")
    from importlib import metadata

    try:
        return metadata.version("ecnlab")
    except metadata.PackageNotFoundError:  # running from a source tree without installing
        return "0+unknown"


__all__ = [
    "run",
    "load_scenario",
    "validate",
    "load_result",
    "load",
    "plot",
    "EcnlabError",
    "ScenarioError",
    "ResultError",
    "RunResult",
    "Scenario",
    "__version__",
]


def validate(scenario: ScenarioSource, overrides: Overrides = None, *, seed: int | None = None) -> Scenario:
    """Validate a scenario (path or dict) with optional overrides; raise ScenarioError if bad."""
    return load_scenario(scenario, overrides, seed=seed)


def load(path: str | Path) -> SweepResults:
    """A sweep directory (``ecnlab sweep --out DIR``) read back: ``.runs``, ``.flows``, ``.queues``, ``.manifest``."""
    from ecnlab.store import load as _load

    return _load(path)


def plot(results: str | Path | SweepResults, **kwargs: Any) -> list[Path]:
    """``ecnlab plot`` from Python: ``plot(DIR, x="max_p", y="goodput_bps", hue="ecn")`` → [png, svg]."""
    from ecnlab.plots import plot as _plot
    from ecnlab.store import SweepResults

    source = results if isinstance(results, SweepResults) else as_path(results, "results")
    return _plot(source, **kwargs)

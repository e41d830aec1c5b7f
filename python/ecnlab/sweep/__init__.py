"""Sweeps: a base scenario × axes × seeds, run on local worker processes or a Dask cluster.

>>> from ecnlab.sweep import load_sweep, run_sweep
>>> sweep = load_sweep("scenarios/sweep-red-ecn.toml")  # doctest: +SKIP
>>> run_sweep(sweep, "out/sweep", jobs=2).ok  # doctest: +SKIP
True

Modules: :mod:`~ecnlab.sweep.spec` (the sweep file), :mod:`~ecnlab.sweep.runner`
(the invocation), :mod:`~ecnlab.sweep.execute` (one run, written whole),
:mod:`~ecnlab.sweep.local` and :mod:`~ecnlab.sweep.cluster` (the backends),
:mod:`~ecnlab.sweep.progress` (the progress bar). Format: docs/sweeps.md.
"""

from __future__ import annotations

from ecnlab.sweep.runner import SweepOutcome, run_sweep
from ecnlab.sweep.spec import Axis, Run, Sweep, load_sweep, parse_sweep

__all__ = ["Axis", "Run", "Sweep", "SweepOutcome", "load_sweep", "parse_sweep", "run_sweep"]

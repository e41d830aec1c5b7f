"""The golden engine inputs (crates/sim/tests/golden) are what today's lowering produces.

The Rust test ``crates/sim/tests/golden.rs`` runs them against insta
snapshots; this test keeps the inputs honest. When lowering changes on
purpose, ``python -m ecnlab.bench.golden`` rewrites them (and the commit
says why).
"""

from __future__ import annotations

from ecnlab.bench.golden import GOLDEN_DIR, golden_specs, render


def test_golden_inputs_match_todays_lowering() -> None:
    specs = golden_specs()
    on_disk = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    assert on_disk == set(specs), "cases added or removed: run python -m ecnlab.bench.golden"
    stale = [name for name, spec in specs.items() if (GOLDEN_DIR / f"{name}.json").read_text() != render(spec)]
    assert not stale, f"lowering changed for {stale}: run python -m ecnlab.bench.golden and say why"


def test_golden_cases_cover_examples_peers_and_studies() -> None:
    names = set(golden_specs())
    assert {"peer-a", "peer-b", "peer-c"} <= names
    assert "scenario-dumbbell-red-ecn" in names and "study-rfc2884-bulk" in names
    assert not any(n.startswith("study-kuz-testbed") for n in names)  # live emulation only

"""The golden cases: engine inputs whose results are pinned by snapshot tests.

Every example scenario in ``scenarios/`` (a sweep contributes its first run),
the peer benchmark cases (a)–(c) shortened to ``PEER_DURATION_S``, and the
first quick cell of every simulated study (not its diagnostics). ``python -m ecnlab.bench.golden``
writes them as engine JSON into ``crates/sim/tests/golden/``; the Rust test
``crates/sim/tests/golden.rs`` runs each and compares the summary with its
insta snapshot, and ``tests/test_golden.py`` checks that today's lowering
still produces exactly these inputs. A commit that moves a snapshot says
which change moved it and why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ecnlab.bench.cases import CASES, scenario_dict
from ecnlab.config import load_scenario, read_toml
from ecnlab.lower import engine_spec

__all__ = ["golden_specs", "GOLDEN_DIR", "PEER_DURATION_S", "PCAP_PLACEHOLDER", "write", "render", "missing_repository"]

ROOT = Path(__file__).resolve().parents[3]
GOLDEN_DIR = ROOT / "crates" / "sim" / "tests" / "golden"
PEER_DURATION_S = 3.0
PEER_CASES = ("a", "b", "c")
# Runs that capture packets write them here; the Rust test puts a temporary directory in its place.
PCAP_PLACEHOLDER = "@PCAP_DIR@"


def _spec(data: dict[str, Any]) -> dict[str, Any]:
    sc = load_scenario(data)
    return engine_spec(sc, pcap_dir=PCAP_PLACEHOLDER if sc.pcap else None)


def _example_specs() -> dict[str, dict[str, Any]]:
    from ecnlab.sweep.spec import load_sweep

    specs: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        if "axes" in read_toml(path):
            data = load_sweep(path).runs[0].data
        else:
            data = read_toml(path)
        specs[f"scenario-{path.stem}"] = _spec(data)
    return specs


def _peer_specs() -> dict[str, dict[str, Any]]:
    specs: dict[str, dict[str, Any]] = {}
    for name in PEER_CASES:
        data = scenario_dict(CASES[name], "ns2")
        data["duration"] = f"{PEER_DURATION_S}s"
        data["warmup"] = "1s"
        specs[f"peer-{name}"] = _spec(data)
    return specs


def _study_specs() -> dict[str, dict[str, Any]]:
    from ecnlab.experiments import resolve
    from ecnlab.sweep.spec import load_sweep

    specs: dict[str, dict[str, Any]] = {}
    for exp in resolve("all"):
        if exp.compute is not None or exp.diagnostic:  # live emulation or a run hook; a sensitivity check
            continue
        run = load_sweep(exp.sweep_path(quick=True)).runs[0]
        specs[f"study-{exp.name}"] = _spec(run.data)
    return specs


def golden_specs() -> dict[str, dict[str, Any]]:
    """Every golden case by name, as the engine's input."""
    return {**_example_specs(), **_peer_specs(), **_study_specs()}


def render(spec: dict[str, Any]) -> str:
    """The file text of one engine input."""
    return json.dumps(spec, indent=1, sort_keys=True) + "\n"


def write(directory: Path = GOLDEN_DIR) -> list[Path]:
    """(Re)write the golden inputs; files of cases that no longer exist are removed."""
    directory.mkdir(parents=True, exist_ok=True)
    specs = golden_specs()
    for old in directory.glob("*.json"):
        if old.stem not in specs:
            old.unlink()
    paths = []
    for name, spec in specs.items():
        path = directory / f"{name}.json"
        path.write_text(render(spec))
        paths.append(path)
    return paths


def missing_repository() -> str | None:
    """Why the golden inputs cannot be written here (an installed wheel has no ``scenarios/`` and no
    ``crates/``: this is a tool of the source repository), or None."""
    if (ROOT / "scenarios").is_dir() and GOLDEN_DIR.parent.is_dir():
        return None
    return (
        f"the golden inputs live in the ecnlab source repository (scenarios/ and crates/sim/tests/ "
        f"beside python/), not found above {Path(__file__).resolve().parent}; run this from a clone"
    )


if __name__ == "__main__":
    why = missing_repository()
    if why is not None:
        print(f"ecnlab: error: {why}", file=sys.stderr)
        sys.exit(2)
    for p in write():
        print(p.relative_to(ROOT))
    sys.exit(0)

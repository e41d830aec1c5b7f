"""ecnlab itself as a benchmark contestant: the whole ``ecnlab run`` process, measured from outside."""

from __future__ import annotations

import compileall
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import tomli_w

from ecnlab.bench.measure import ECNLAB_WITH_VMHWM, clean_env, run_measured, vmhwm_from_stderr

__all__ = ["run_ecnlab", "behaviour_of_summary", "compile_bytecode"]

BOTTLENECK = "R1->R2"


def compile_bytecode() -> None:
    """Byte-compiles the ecnlab package, as ``pip install`` does for an installed package.

    An editable install (``scripts/setup.sh``) runs from the source tree, and
    with ``PYTHONDONTWRITEBYTECODE`` set (some CI and container images set it)
    every ``ecnlab run`` would compile its ~40 modules from source, ~70 ms of
    the whole-process time the benchmark compares with ns-2's.
    """
    compileall.compile_dir(Path(__file__).resolve().parents[1], quiet=1)


def run_ecnlab(scenario: dict[str, Any], workdir: Path, *, timeout_s: float = 3600) -> dict[str, Any]:
    """Writes ``scenario`` as TOML, runs ``python -m ecnlab run`` on it, reads summary.json."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "scenario.toml").write_text(tomli_w.dumps(scenario))
    out = workdir / "out"
    if out.exists():
        shutil.rmtree(out)
    cmd = [sys.executable, "-c", ECNLAB_WITH_VMHWM, "run", "scenario.toml", "--out", "out", "--quiet"]
    m = run_measured(cmd, cwd=workdir, timeout_s=timeout_s, env=clean_env())
    summary = json.loads((out / "summary.json").read_text())
    res = behaviour_of_summary(summary)
    res.update(
        tool="ecnlab", wall_s=m.wall_s, peak_rss_mib=vmhwm_from_stderr(m.stderr), run_s=summary["sim"].get("wall_s")
    )
    return res


def behaviour_of_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The peers' JSON fields, read from an ecnlab summary.json."""
    flows = [f for f in summary["flows"] if f["kind"] == "bulk"]
    q = next(q for q in summary["queues"] if q["link"] == BOTTLENECK)
    link = next(k for k in summary["links"] if k["name"] == BOTTLENECK)
    return {
        "goodput_bps": [float(f["goodput_bps"]) for f in flows],
        "jain": summary["fairness"],
        "utilisation": link["utilization"],
        "marks": q["marks"],
        "early_drops": q["early_drops"],
        "forced_drops": q["forced_drops"],
        "overflow_drops": q["overflow_drops"],
        "retransmits": sum(f["retransmits"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "fast_recoveries": sum(f["fast_retransmits"] for f in flows),
        "avg_qlen_pkts": q["avg_qlen_pkts"],
        "bottleneck_packets": q["dequeued"],
    }

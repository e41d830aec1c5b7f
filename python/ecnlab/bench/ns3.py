"""ns-3 (PyPI ``ns3``, Python bindings) on the benchmark dumbbell: ``scripts/ns3_dumbbell.py`` (package data).

ns-3 is large (about 70 MB wheel plus cppyy, ~630 MB resident once imported),
so it is not part of the default set-up: ``ecnlab bench peers`` installs the
``peers`` extra (``pip install ecnlab[peers]``, pinned in pyproject.toml) into
the running environment on first use, or skips the ns-3 column with a message
when it cannot (``--no-install``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ecnlab.bench.measure import PeerFailed, clean_env, last_json_line, run_measured

__all__ = ["NS3_SCRIPT", "NS3_REQUIREMENT", "ns3_available", "install_ns3", "run_ns3"]

NS3_SCRIPT = Path(__file__).resolve().parent / "scripts" / "ns3_dumbbell.py"
NS3_REQUIREMENT = "ns3==3.44.post0"  # the same pin as pyproject.toml's `peers` extra


def ns3_available() -> bool:
    """Whether the ``ns`` package of the ns-3 bindings can be imported (without importing it: ~15 s)."""
    return importlib.util.find_spec("ns") is not None


def install_ns3(log: Any) -> bool:
    """pip-installs the pinned ns-3 bindings into this environment; True on success."""
    log(f"installing {NS3_REQUIREMENT} (the ecnlab[peers] extra; once, about 100 MB)")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", NS3_REQUIREMENT], capture_output=True, text=True)
    if r.returncode != 0:
        log("could not install ns-3: " + " | ".join(r.stderr.strip().splitlines()[-2:]))
        return False
    importlib.invalidate_caches()
    return ns3_available()


def run_ns3(params: dict[str, Any], workdir: Path, *, timeout_s: float = 1200) -> dict[str, Any]:
    """Runs ns-3 once; its JSON line (with its own peak memory) plus the wall time measured from outside."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.json").write_text(json.dumps(params))
    cmd = [sys.executable, str(NS3_SCRIPT), "params.json"]
    m = run_measured(cmd, cwd=workdir, timeout_s=timeout_s, env=clean_env())
    res = last_json_line(m.stdout, "ns-3")
    if "run_s" not in res:
        raise PeerFailed("ns-3: result line without run_s")
    res.update(wall_s=m.wall_s)  # peak_rss_mib: the script's own VmHWM
    return res

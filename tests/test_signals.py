"""A SIGTERM stops ``run`` and ``sweep`` as Ctrl-C does (cleanup included), and what a
SIGKILL leaves behind is removed by the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT, SCENARIOS

LONG = ["--set", "duration=12345", "--set", "topology.bottleneck_rate=1Gbit", "--set", "topology.access_rate=10Gbit"]


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.Popen(
        [sys.executable, "-m", "ecnlab", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(pred, timeout_s: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


def _partials(d: Path) -> list[Path]:
    return sorted(d.rglob("*.partial-*")) if d.exists() else []


def test_sigterm_stops_a_run_and_leaves_nothing(tmp_path: Path) -> None:
    p = _start(["run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", "out/term", *LONG], tmp_path)
    _wait_for(lambda: bool(_partials(tmp_path / "out")))  # the engine is running into its staging dir
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130 and err.strip() == "ecnlab: interrupted", err
    assert not (tmp_path / "out").exists(), "the staging dir and the parent it created are gone"


def test_sigkill_leftovers_are_removed_by_the_next_run(tmp_path: Path) -> None:
    p = _start(["run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", "out/x", *LONG], tmp_path)
    _wait_for(lambda: bool(_partials(tmp_path / "out")))
    p.kill()
    p.communicate(timeout=30)
    assert _partials(tmp_path / "out"), "SIGKILL leaves the staging dir (nothing can run)"
    r = _start(
        ["run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", "out/x", "-q", "--set", "duration=1s"], tmp_path
    )
    _, err = r.communicate(timeout=120)
    assert r.returncode == 0, err
    assert _partials(tmp_path / "out") == [] and (tmp_path / "out" / "x" / "summary.json").is_file()


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and int(p.name) != os.getpid():
            try:
                cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmd:
                found.append(cmd)
    return found


SWEEP = """
base = "{base}"
name = "{{ecn}}-s{{seed}}"
seeds = 2
[set]
duration = "2000s"
"topology.bottleneck_rate" = "1Gbit"
"topology.access_rate" = "10Gbit"
sample_interval = 0
"output.pcap" = []
[axes]
ecn = {{ "red" = {{ "tcp.ecn" = false }}, "ecn" = {{ "tcp.ecn" = true }} }}
"""


def test_sigterm_and_sigkill_of_a_sweep(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(SWEEP.format(base=SCENARIOS / "dumbbell-red-ecn.toml"))
    out = tmp_path / "sw-unique-name"
    sweep = ["sweep", "long.toml", "--out", str(out), "--jobs", "2"]
    # SIGTERM, SIGKILL, then a start in the same directory (no stale lock), stopped by SIGTERM again.
    for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGTERM):
        p = _start(sweep, tmp_path)
        _wait_for(lambda: (out / "manifest.json").is_file() and len(_processes_mentioning(str(out))) >= 3)
        time.sleep(0.5)  # the workers are computing
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        assert p.returncode == (130 if sig == signal.SIGTERM else -signal.SIGKILL), (sig, err)
        _wait_for(lambda: _processes_mentioning(str(out)) == [], timeout_s=10)  # no worker computes on
        assert _partials(out) == []

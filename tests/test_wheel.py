"""The wheel: built by maturin, installed into a clean venv, run with
no repository around it.

One module fixture builds the wheel into a temporary directory (``maturin build --release``
reusing the workspace's target directory, so after ``make setup`` it mostly links), creates a
fresh venv, installs the wheel with its pinned dependencies (pip, from PyPI or its cache) and
copies one example scenario into an empty directory. Every command then runs there, with the
venv's ``ecnlab`` first on PATH and nothing pointing back at the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "scenarios" / "emulate-reno-ecn.toml"

pytestmark = pytest.mark.wheel


class Installed:
    """The clean venv with the wheel installed, and an empty working directory."""

    def __init__(self, venv: Path, work: Path, wheel: Path) -> None:
        self.venv, self.work, self.wheel = venv, work, wheel
        self.bin = venv / "bin"

    def env(self, **extra: str) -> dict[str, str]:
        drop = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CARGO_TARGET_DIR", "ECNLAB_ROUTER")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env.update(extra)
        return env

    def run(self, *argv: str, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(argv), cwd=self.work, env=self.env(**extra), capture_output=True, text=True, timeout=timeout
        )


def _maturin() -> str:
    here = Path(sys.executable).parent / "maturin"
    found = str(here) if here.exists() else shutil.which("maturin")
    if found is None:
        pytest.fail("maturin is not installed (scripts/setup.sh installs it into .venv)")
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.setdefault("CARGO_TARGET_DIR", str(ROOT / "target"))
    # --compatibility linux: a wheel for this machine (no manylinux audit), which is what CI installs.
    build = [_maturin(), "build", "--release", "--compatibility", "linux", "--interpreter", sys.executable]
    r = subprocess.run([*build, "--out", str(tmp / "dist")], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("ecnlab-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    r = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    work = tmp / "work"
    work.mkdir()
    shutil.copy(EXAMPLE, work / "example.toml")
    return Installed(venv, work, wheel)


def test_the_wheel_carries_the_package_data_and_the_router(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for data in (
        "ecnlab/bench/scripts/ns2_dumbbell.tcl",
        "ecnlab/bench/scripts/ns3_dumbbell.cc",
        "ecnlab/bench/scripts/ns3_dumbbell.py",
        "ecnlab/bench/scripts/ns3_queue_trace.cc",
        "ecnlab/bench/scripts/htsim_dumbbell.cc",
        "ecnlab/experiments/rfc2884/bulk-quick.toml",
        "ecnlab/emu/router.py",
    ):
        assert data in names, data
    # The installed copy is the one that runs (not the repository's), and its files resolve inside it.
    code = (
        "import ecnlab, ecnlab._core as c\n"
        "from ecnlab.bench import aqmdiff, ns2, ns3, ns3cxx\n"
        "paths = [ns2.NS2_SCRIPT, ns3.NS3_SCRIPT, ns3cxx.NS3CXX_SOURCE, aqmdiff.NS3_TRACE_SOURCE]\n"
        "assert all(p.is_file() for p in paths), paths\n"
        "print(ecnlab.__file__, hasattr(c, 'router_main'))"
    )
    r = installed.run(str(installed.bin / "python"), "-c", code)
    assert r.returncode == 0, r.stderr
    where, has_router = r.stdout.split()
    assert Path(where).is_relative_to(installed.venv) and has_router == "True", r.stdout


def test_bench_peers_help_and_the_reproduce_listing(installed: Installed) -> None:
    r = installed.run("ecnlab", "bench", "peers", "--help")
    assert r.returncode == 0 and "--quick" in r.stdout, r.stderr
    r = installed.run("ecnlab", "reproduce")
    assert r.returncode == 0, r.stderr
    assert {"rfc2884", "floyd1994", "kuzmanovic2005", "allecn"} <= set(r.stdout.split()), r.stdout


def test_run_an_example_outside_the_repository(installed: Installed) -> None:
    r = installed.run("ecnlab", "run", "example.toml", "--out", "r", "-q", "--set", "duration=1s")
    assert r.returncode == 0, r.stderr
    summary = json.loads((installed.work / "r" / "summary.json").read_text())
    assert summary["flows"][0]["bytes_delivered"] > 0
    assert summary["git_commit"] == "unknown", "no source tree around an installed wheel"


def test_repository_tools_say_in_one_line_that_they_need_the_repository(installed: Installed) -> None:
    r = installed.run(str(installed.bin / "python"), "-m", "ecnlab.bench.golden")
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert r.stderr.startswith("ecnlab: error: ") and len(r.stderr.splitlines()) == 1, r.stderr
    assert "source repository" in r.stderr


def test_emulate_finds_the_router_in_the_package_or_says_where_it_looks(installed: Installed) -> None:
    """The wheel carries the router in ecnlab._core; --help says where emulate looks, and a bad
    $ECNLAB_ROUTER (or, without root, the missing privilege) is one line, exit 2."""
    r = installed.run("ecnlab", "emulate", "--help")
    assert r.returncode == 0, r.stderr
    assert "$ECNLAB_ROUTER" in r.stdout and "ecnlab._core" in r.stdout, r.stdout
    # The built-in router's own command line: a bad configuration is its one error line.
    (installed.work / "bad.json").write_text("{}")
    r = installed.run(str(installed.bin / "python"), "-m", "ecnlab.emu.router", "bad.json")
    assert r.returncode == 2 and r.stderr.startswith("ecnlab-router: error: bad.json: "), r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    r = installed.run("ecnlab", "emulate", "example.toml", "--out", "e", ECNLAB_ROUTER="/nonexistent/ecnlab-router")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("ecnlab: error: example.toml: "), r.stderr
    if os.geteuid() != 0:
        assert "emulate needs root" in r.stderr, r.stderr
        return
    assert "$ECNLAB_ROUTER = '/nonexistent/ecnlab-router' is not an executable file" in r.stderr, r.stderr
    assert not (installed.work / "e").exists()


@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_emulate_runs_with_the_wheels_own_router(installed: Installed) -> None:
    r = installed.run("ecnlab", "emulate", "example.toml", "--out", "e", "-q", "--set", "duration=2s", timeout=120)
    assert r.returncode == 0, r.stderr
    summary = json.loads((installed.work / "e" / "summary.json").read_text())
    q = next(q for q in summary["queues"] if q["link"] == "R1->R2")
    assert q["arrivals"] > 100 and summary["flows"][0]["bytes_delivered"] > 0
    assert summary["emulation"]["router"]["window"]["start_s"] > 0

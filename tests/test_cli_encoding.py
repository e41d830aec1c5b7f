"""The command line's output does not depend on the terminal's encoding: with ``LC_ALL=C`` and
``PYTHONIOENCODING=ascii``, scenario and file names outside ASCII are printed (as UTF-8) and never
stop a command after its results were written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ecnlab
from conftest import ROOT, SCENARIOS

pytestmark = pytest.mark.engine

NAME = "débit-é"


def ascii_cli(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``python -m ecnlab ARGS`` under a locale and an IO encoding of plain ASCII."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANG"}
    env.update(LC_ALL="C", PYTHONIOENCODING="ascii", PYTHONPATH=str(ROOT / "python"))
    return subprocess.run(
        [sys.executable, "-m", "ecnlab", *args], cwd=cwd, env=env, capture_output=True, timeout=300, check=False
    )


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    """``tmp_path/débit.toml``: the RED dumbbell named ``débit-é``, half a second long."""
    text = (SCENARIOS / "dumbbell-red-ecn.toml").read_text()
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("name = "))
    lines[first] = f'name = "{NAME}"'
    lines = [('duration = "0.5s"' if line.startswith("duration = ") else line) for line in lines]
    path = tmp_path / "débit.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_validate_prints_a_non_ascii_file_name(scenario: Path) -> None:
    out = ascii_cli("validate", scenario.name, cwd=scenario.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode("utf-8").startswith("débit.toml: ok (")


def test_validate_show_resolved_prints_a_non_ascii_scenario_name(scenario: Path) -> None:
    out = ascii_cli("validate", scenario.name, "--show", "resolved", cwd=scenario.parent)
    assert out.returncode == 0, out.stderr
    assert f'name = "{NAME}"' in out.stdout.decode("utf-8").splitlines()


def test_run_prints_its_report_after_writing_the_results(scenario: Path) -> None:
    out = ascii_cli("run", scenario.name, "--out", "sortie-é", cwd=scenario.parent)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("utf-8")
    assert text.startswith(f"{NAME}: seed 1, 0.5 s simulated") and "wrote sortie-é/summary.json" in text
    assert (scenario.parent / "sortie-é" / "summary.json").is_file()


def test_sweep_prints_non_ascii_names(scenario: Path) -> None:
    sweep = scenario.parent / "balayage-é.toml"
    sweep.write_text(
        f'base = "{scenario.name}"\nname = "maxp{{max_p}}"\n[axes]\n"topology.bottleneck_queue.max_p" = [0.1]\n',
        encoding="utf-8",
    )
    out = ascii_cli("sweep", sweep.name, "--out", "sortie-é", "--no-progress", "-j", "1", cwd=scenario.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode("utf-8") == "sortie-é: all runs complete (1 run now, 0 already complete)\n"
    assert "balayage-é.toml: 1 runs" in out.stderr.decode("utf-8")
    assert (scenario.parent / "sortie-é" / "runs" / "maxp0.1" / "summary.json").is_file()
    assert ecnlab.load(scenario.parent / "sortie-é").runs["run"].tolist() == ["maxp0.1"]


def test_a_file_name_that_is_not_utf8_is_shown_escaped(scenario: Path) -> None:
    raw = os.fsencode(scenario.parent) + b"/d\xe9bit-latin1.toml"  # Latin-1 é: not valid UTF-8
    with open(raw, "wb") as fh:
        fh.write(scenario.read_bytes())
    out = ascii_cli("validate", raw, cwd=scenario.parent)
    assert out.returncode == 0, out.stderr
    assert b"d\\udce9bit-latin1.toml: ok (" in out.stdout

"""A full disk (ENOSPC) while ``run``, ``sweep``, ``reproduce`` and ``emulate`` write: one line naming the file, exit
status 2, the results written before intact and no partial file or staging directory left.

The disk is a tmpfs of 64 KiB (``mount -t tmpfs``), so these tests need root; each unmounts it after."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import SCENARIOS, run_cli

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="mounting a tmpfs needs root"),
]

TINY = ["--set", "duration=0.5s", "--set", "output.pcap=[]"]


@contextlib.contextmanager
def small_disk(where: Path, kib: int = 512) -> Iterator[Path]:
    """A tmpfs of ``kib`` KiB mounted at ``where``, unmounted afterwards whatever happens."""
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def fill(disk: Path, leave_kib: int) -> None:
    """Fill ``disk`` until about ``leave_kib`` KiB are free."""
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    (disk / "filler").write_bytes(b"\0" * max(free - leave_kib * 1024, 0))


def leftovers(disk: Path) -> list[str]:
    """Staging directories and temporary files of ecnlab's writes (``.NAME.partial-*``, ``.NAME.XXXX``)."""
    return sorted(str(p.relative_to(disk)) for p in disk.rglob(".*") if p.name != ".lock")


def one_error_line(stderr: str, file: str) -> None:
    lines = [line for line in stderr.splitlines() if line.startswith("ecnlab: error:")]
    assert lines == [f"ecnlab: error: {file}: No space left on device"], stderr
    assert "Traceback" not in stderr


def test_run_on_a_full_disk_is_one_line_and_keeps_the_earlier_result(tmp_path: Path) -> None:
    scenario = SCENARIOS / "dumbbell-red-ecn.toml"
    with small_disk(tmp_path / "disk") as disk:
        first = run_cli("run", str(scenario), *TINY, "--seed", "1", "--out", str(disk / "x"), "-q", cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        before = (disk / "x" / "summary.json").read_bytes()
        fill(disk, leave_kib=4)
        cli = run_cli("run", str(scenario), *TINY, "--seed", "2", "--out", str(disk / "x"), "-q", cwd=tmp_path)
        assert cli.returncode == 2
        one_error_line(cli.stderr, str(disk / "x" / "summary.json"))
        assert (disk / "x" / "summary.json").read_bytes() == before
        assert leftovers(disk) == []


def test_a_capture_on_a_full_disk_names_the_capture(tmp_path: Path) -> None:
    scenario = SCENARIOS / "dumbbell-red-ecn.toml"  # captures R1->R2
    with small_disk(tmp_path / "disk") as disk:
        fill(disk, leave_kib=4)
        cli = run_cli("run", str(scenario), "--set", "duration=1s", "--out", str(disk / "x"), "-q", cwd=tmp_path)
        assert cli.returncode == 2 and "Traceback" not in cli.stderr
        pcap = disk / "x" / "R1-R2.pcap"
        assert cli.stderr == f"ecnlab: error: {scenario}: engine: pcap {pcap}: No space left on device (os error 28)\n"
        assert leftovers(disk) == [] and not (disk / "x").exists()


def test_sweep_on_a_full_disk_is_one_line_and_keeps_complete_runs(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.toml"
    text = f"""\
base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"
name = "maxp{{max_p}}"
[set]
duration = "0.5s"
sample_interval = 0
"output.pcap" = []
[axes]
"topology.bottleneck_queue.max_p" = [0.1]
"""
    sweep.write_text(text)
    with small_disk(tmp_path / "disk", kib=256) as disk:
        first = run_cli("sweep", str(sweep), "--out", str(disk / "s"), "--no-progress", "-j", "1", cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        kept = (disk / "s" / "runs" / "maxp0.1" / "summary.json").read_bytes()
        sweep.write_text(text.replace("[0.1]", "[0.1, 0.2]"))
        fill(disk, leave_kib=4)
        cli = run_cli("sweep", str(sweep), "--out", str(disk / "s"), "--no-progress", "-j", "1", cwd=tmp_path)
        assert cli.returncode == 2
        one_error_line(cli.stderr, str(disk / "s" / "runs" / "maxp0.2" / "summary.json"))
        assert (disk / "s" / "runs" / "maxp0.1" / "summary.json").read_bytes() == kept
        assert not (disk / "s" / "runs" / "maxp0.2").exists()
        assert leftovers(disk) == []


def test_reproduce_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", kib=64) as disk:
        fill(disk, leave_kib=4)
        cli = run_cli("reproduce", "dctcp2010", "--quick", "--out", str(disk / "r"), "--no-progress", cwd=tmp_path)
        assert cli.returncode == 2
        lines = [line for line in cli.stderr.splitlines() if line.startswith("ecnlab: error:")]
        assert len(lines) == 1 and lines[0].endswith(": No space left on device"), cli.stderr
        assert lines[0].startswith(f"ecnlab: error: {disk / 'r'}")
        assert "Traceback" not in cli.stderr
        assert leftovers(disk) == []


@pytest.mark.emulation
def test_emulate_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    scenario = SCENARIOS / "emulate-reno-ecn.toml"
    with small_disk(tmp_path / "disk") as disk:
        fill(disk, leave_kib=4)
        cli = run_cli("emulate", str(scenario), "--set", "duration=2s", "--out", str(disk / "e"), "-q", cwd=tmp_path)
        assert cli.returncode == 2
        one_error_line(cli.stderr, str(disk / "e" / "summary.json"))
        assert leftovers(disk) == [] and not (disk / "e").exists()

"""Running sweeps: progress, resuming, kill/Ctrl-C mid-way, failed runs, and identical results for any --jobs."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ecnlab
from conftest import ROOT, SCENARIOS, ctrl_c_as_in_a_terminal, run_cli
from ecnlab.sweep import load_sweep, run_sweep
from ecnlab.sweep.execute import Outcome
from ecnlab.sweep.progress import Progress

pytestmark = pytest.mark.engine

EXAMPLE = SCENARIOS / "sweep-red-ecn.toml"
NAMES = [r.name for r in load_sweep(EXAMPLE).runs]

# 12 runs of about 0.2 s each (1000 simulated seconds), so a sweep can be stopped part-way.
SLOW = f"""\
base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"
name = "maxp{{max_p}}-s{{seed}}"
seeds = 3
[set]
duration = "5000s"
sample_interval = 0
"output.pcap" = []
[axes]
"topology.bottleneck_queue.max_p" = [0.02, 0.05, 0.1, 0.2]
"""


def run_dirs(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "runs").iterdir())


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The example sweep run twice into one directory with --jobs 2: (DIR, [stderr, stdout] of each run)."""
    tmp = tmp_path_factory.mktemp("example")
    out = tmp / "sweep"
    first = run_cli("sweep", str(EXAMPLE), "--out", str(out), "--jobs", "2", cwd=tmp)
    assert first.returncode == 0, first.stderr
    mtimes = {n: (out / "runs" / n / "summary.json").stat().st_mtime_ns for n in NAMES}
    second = run_cli("sweep", str(EXAMPLE), "--out", str(out), "--jobs", "2", cwd=tmp)
    assert second.returncode == 0, second.stderr
    assert mtimes == {n: (out / "runs" / n / "summary.json").stat().st_mtime_ns for n in NAMES}
    return out, [first.stderr, first.stdout, second.stderr, second.stdout]


def test_example_sweep_runs_with_progress(example: tuple[Path, list[str]]) -> None:
    out, (err, stdout, _, _) = example
    assert (
        err.splitlines()[0] == f"ecnlab: sweep {EXAMPLE}: 18 runs, 0 already complete, 18 to run on 2 worker processes"
    )
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert [line.split("] ")[1].split(" runs")[0] for line in progress] == [f"{i}/18" for i in range(1, 19)]
    assert all("elapsed" in line and "eta" in line for line in progress)
    assert stdout.strip() == f"{out}: all runs complete (18 run now, 0 already complete)"
    assert run_dirs(out) == sorted(NAMES)
    assert pq.read_table(out / "runs.parquet").column("run").to_pylist() == NAMES


def test_second_invocation_runs_nothing(example: tuple[Path, list[str]]) -> None:
    out, (_, _, err, stdout) = example
    assert err.splitlines() == [f"ecnlab: sweep {EXAMPLE}: 18 runs, 18 already complete, 0 to run"]
    assert stdout.strip() == f"{out}: all runs complete (0 run now, 18 already complete)"


def test_changed_sweep_refuses_to_mix_results(example: tuple[Path, list[str]], tmp_path: Path) -> None:
    out, _ = example
    changed = tmp_path / "changed.toml"
    changed.write_text(EXAMPLE.read_text().replace('duration = "20s"', 'duration = "21s"'))
    changed.with_name("dumbbell-red-ecn.toml").write_text((SCENARIOS / "dumbbell-red-ecn.toml").read_text())
    res = run_cli("sweep", str(changed), "--out", str(out), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        f'ecnlab: error: {changed}: run "red-maxp0.02-s1": {out}/runs/red-maxp0.02-s1 holds a result of a '
        "different scenario (the sweep changed?); remove it or use another --out"
    ]


def _start(sweep: Path, out: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.Popen(
        [sys.executable, "-m", "ecnlab", "sweep", str(sweep), "--out", str(out), "--jobs", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal job: signals reach the workers too
        preexec_fn=ctrl_c_as_in_a_terminal,
    )


def _wait_for_runs(out: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        runs = out / "runs"
        # complete runs only: a staging directory (".name") may hold a summary.json that an
        # interrupt then removes
        if runs.is_dir() and sum((p / "summary.json").is_file() for p in runs.iterdir() if p.name[0] != ".") >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} runs completed in time")


def _check_whole(out: Path) -> list[str]:
    """Every visible run directory is complete; return their names."""
    visible = [p for p in (out / "runs").iterdir() if not p.name.startswith(".")]
    for p in visible:
        assert (p / "summary.json").is_file(), f"{p} is half-written"
        json.loads((p / "summary.json").read_text())  # whole JSON
    return sorted(p.name for p in visible)


def _resume_and_check(sweep: Path, out: Path, done_before: list[str], tmp_path: Path) -> None:
    res = run_cli("sweep", str(sweep), "--out", str(out), "--jobs", "2", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    n = len(done_before)
    assert f"12 runs, {n} already complete, {12 - n} to run" in res.stderr
    assert res.stdout.strip() == f"{out}: all runs complete ({12 - n} run now, {n} already complete)"
    names = [r.name for r in load_sweep(sweep).runs]
    assert run_dirs(out) == sorted(names)  # no staging leftovers, nothing twice
    table = pq.read_table(out / "runs.parquet")
    assert table.column("run").to_pylist() == names
    assert table.num_rows == 12


def test_kill_midway_then_resume(tmp_path: Path) -> None:
    sweep = tmp_path / "slow.toml"
    sweep.write_text(SLOW)
    out = tmp_path / "out"
    proc = _start(sweep, out)
    _wait_for_runs(out, 2, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    done = _check_whole(out)
    assert 2 <= len(done) < 12
    assert not (out / "runs.parquet").exists()
    _resume_and_check(sweep, out, done, tmp_path)


def test_ctrl_c_stops_cleanly_then_resume(tmp_path: Path) -> None:
    sweep = tmp_path / "slow.toml"
    sweep.write_text(SLOW)
    out = tmp_path / "out"
    proc = _start(sweep, out)
    _wait_for_runs(out, 2, proc)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "ecnlab: interrupted; complete runs are kept, re-run to finish"
    assert "Traceback" not in stderr
    done = _check_whole(out)
    assert run_dirs(out) == done  # no staging directories left behind either
    assert 2 <= len(done) < 12
    _resume_and_check(sweep, out, done, tmp_path)


def _failing_compute_run(name: str, data: dict[str, object]) -> Outcome:
    from ecnlab.sweep.execute import compute_run

    if name == "red+ecn-maxp0.1-s2":
        return Outcome(name, None, "engine: deliberately failed by the test")
    return compute_run(name, data)


def test_failed_run_is_reported_and_others_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ecnlab.sweep.local as local

    monkeypatch.setattr(local, "compute_run", _failing_compute_run)  # the fork workers inherit it
    stream = io.StringIO()
    out = tmp_path / "out"
    outcome = run_sweep(load_sweep(EXAMPLE), out, jobs=2, stream=stream)
    assert outcome.failed == [("red+ecn-maxp0.1-s2", "engine: deliberately failed by the test")]
    assert not outcome.ok and outcome.ran == 17
    assert 'ecnlab: run "red+ecn-maxp0.1-s2" failed: engine: deliberately failed by the test' in stream.getvalue()
    assert run_dirs(out) == sorted(set(NAMES) - {"red+ecn-maxp0.1-s2"})
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["runs"] == {"total": 18, "complete": 17, "failed": ["red+ecn-maxp0.1-s2"]}
    assert pq.read_table(out / "runs.parquet").num_rows == 17
    # the CLI's exit status says so; re-running (without the fault) runs just that one
    monkeypatch.undo()
    again = run_sweep(load_sweep(EXAMPLE), out, jobs=2, stream=io.StringIO())
    assert again.ok and again.ran == 1 and again.skipped == 17


def test_cli_exit_status_1_when_a_run_fails(tmp_path: Path) -> None:
    # the real CLI, with every run failing in its worker (a stand-in for an engine error)
    sweep = tmp_path / "sw.toml"
    sweep.write_text(
        f'base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"\n'
        '[set]\nduration = "2s"\n"output.pcap" = []\n[axes]\n"tcp.variant" = ["reno"]\n'
    )
    code = (
        "import sys, ecnlab.sweep.local as l\n"
        "from ecnlab.sweep.execute import Outcome\n"
        "def fail(name, data):\n"
        "    return Outcome(name, None, 'engine: no')\n"
        "l.compute_run = fail\n"
        "from ecnlab.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    proc = subprocess.run(
        [sys.executable, "-c", code, "sweep", str(sweep), "--out", str(tmp_path / "o"), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[1:] == [
        'ecnlab: run "variant=reno,seed=1" failed: engine: no',
        "ecnlab: failed runs: variant=reno,seed=1",
    ]
    assert proc.stdout.strip() == f"{tmp_path / 'o'}: 1 of 1 runs failed (0 run now, 0 already complete)"


def test_jobs_1_and_2_give_identical_tables(tmp_path: Path) -> None:
    sweep = load_sweep(EXAMPLE)
    one = run_sweep(sweep, tmp_path / "j1", jobs=1, progress=False, stream=io.StringIO())
    two = run_sweep(sweep, tmp_path / "j2", jobs=2, progress=False, stream=io.StringIO())
    assert one.ok and two.ok
    for table in ("runs", "flows", "queues"):
        a = (tmp_path / "j1" / f"{table}.parquet").read_bytes()
        b = (tmp_path / "j2" / f"{table}.parquet").read_bytes()
        assert a == b, table
    # the per-run summaries agree too, apart from the wall-clock time of the engine call
    for name in NAMES:
        s1 = json.loads((tmp_path / "j1" / "runs" / name / "summary.json").read_text())
        s2 = json.loads((tmp_path / "j2" / "runs" / name / "summary.json").read_text())
        del s1["sim"]["wall_s"], s2["sim"]["wall_s"]
        assert s1 == s2


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_one_line_on_a_terminal() -> None:
    stream = _Tty()
    bar = Progress(4, skipped=1, stream=stream)
    bar.advance("a")
    bar.advance("b", "engine: boom")
    bar.finish()
    text = stream.getvalue()
    assert text.count("\n") == 2  # the failure line and the final newline; the bar itself redraws with \r
    assert "\r\x1b[K[" in text and "3/4 runs, 1 failed" in text
    assert 'ecnlab: run "b" failed: engine: boom' in text


# 40 one-second runs: small enough that the local pool sends them in chunks of several runs.
SMALL_RUNS = f"""\
base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"
name = "maxp{{max_p}}-s{{seed}}"
seeds = 8
[set]
duration = "1s"
"output.pcap" = []
[axes]
"topology.bottleneck_queue.max_p" = [0.02, 0.05, 0.1, 0.2, 0.5]
"""


def test_chunked_sweep_gives_the_same_results_as_one_run_per_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ecnlab.sweep.local as local

    path = tmp_path / "small.toml"
    path.write_text(SMALL_RUNS)
    sweep = load_sweep(path)
    sizes: list[int] = []
    chunk_size = local.chunk_size

    def recorded(mean_run_s: float | None, left: int, jobs: int) -> int:
        sizes.append(chunk_size(mean_run_s, left, jobs))
        return sizes[-1]

    monkeypatch.setattr(local, "CHUNK_TARGET_S", 0.0)  # every task one run
    monkeypatch.setattr(local, "chunk_size", recorded)
    one = run_sweep(sweep, tmp_path / "j1", jobs=1, progress=False, stream=io.StringIO())
    assert sizes == [1] * 40
    sizes.clear()
    monkeypatch.setattr(local, "CHUNK_TARGET_S", 1e9)  # chunks as large as the share of what is left allows
    two = run_sweep(sweep, tmp_path / "j2", jobs=2, progress=False, stream=io.StringIO())
    assert one.ok and two.ok and one.ran == two.ran == 40
    assert sizes[:4] == [1, 1, 1, 1] and max(sizes) > 1 and sum(sizes) == 40  # chunked after the first runs
    for table in ("runs", "flows", "queues"):
        a = (tmp_path / "j1" / f"{table}.parquet").read_bytes()
        b = (tmp_path / "j2" / f"{table}.parquet").read_bytes()
        assert a == b, table
    assert pq.read_table(tmp_path / "j2" / "runs.parquet").column("run").to_pylist() == [r.name for r in sweep.runs]
    for run in sweep.runs:
        d1, d2 = tmp_path / "j1" / "runs" / run.name, tmp_path / "j2" / "runs" / run.name
        files = sorted(p.name for p in d1.iterdir())
        assert (
            files
            == sorted(p.name for p in d2.iterdir())
            == [
                "checksums.sha256",
                "sojourn.parquet",
                "summary.json",
                "timeseries-flows.parquet",
                "timeseries-queues.parquet",
            ]
        )
        for f in (f for f in files if f.endswith(".parquet")):  # summary.json (and its checksum) differs in wall_s
            assert (d1 / f).read_bytes() == (d2 / f).read_bytes(), (run.name, f)
        s1, s2 = (d1 / "summary.json").read_text(), (d2 / "summary.json").read_text()
        wall = re.compile(r'"wall_s": [0-9.e-]+')
        assert wall.sub("", s1) == wall.sub("", s2)


def test_sweep_run_files_are_those_of_ecnlab_run(tmp_path: Path) -> None:
    # A worker builds a run's files in memory; they are the bytes `ecnlab.run(out=...)` writes.
    import ecnlab
    from ecnlab.sweep.execute import compute_run

    path = tmp_path / "small.toml"
    path.write_text(SMALL_RUNS)
    run = load_sweep(path).runs[7]
    outcome = compute_run(run.name, run.scenario if run.scenario is not None else run.data)
    assert outcome.error is None and outcome.files is not None
    ecnlab.run(run.data, out=tmp_path / "direct")
    direct = {p.name: p.read_bytes() for p in (tmp_path / "direct").iterdir()}
    assert sorted(outcome.files) == sorted(direct)
    wall = re.compile(rb'"wall_s": [0-9.e-]+')
    for name, content in direct.items():
        assert wall.sub(b"", outcome.files[name]) == wall.sub(b"", content), name


TWO_RUNS = f"""\
base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"
name = "maxp{{max_p}}"
[set]
duration = "0.5s"
"output.pcap" = []
[axes]
"topology.bottleneck_queue.max_p" = [0.1, 0.2]
"""


@pytest.mark.parametrize("damaged", ["summary.json", "timeseries-queues.parquet"])
def test_damaged_run_is_named_and_run_again(tmp_path: Path, damaged: str) -> None:
    path = tmp_path / "two.toml"
    path.write_text(TWO_RUNS)
    sweep = load_sweep(path)
    out = tmp_path / "out"
    assert run_sweep(sweep, out, jobs=1, progress=False, stream=io.StringIO()).ok
    whole = (out / "runs" / "maxp0.1" / damaged).read_bytes()
    (out / "runs" / "maxp0.1" / damaged).write_bytes(whole[: len(whole) // 2])  # truncated
    kept = (out / "runs" / "maxp0.2" / "summary.json").stat().st_mtime_ns
    stream = io.StringIO()
    again = run_sweep(sweep, out, jobs=1, progress=False, stream=stream)
    assert again.ok and (again.ran, again.skipped) == (1, 1)
    assert f"ecnlab: run maxp0.1 is damaged, running it again: {out / 'runs' / 'maxp0.1' / damaged}: damaged" in (
        stream.getvalue()
    )
    wall = re.compile(rb'"wall_s": [0-9.e-]+')  # the one field that differs between two runs
    assert wall.sub(b"", (out / "runs" / "maxp0.1" / damaged).read_bytes()) == wall.sub(b"", whole)
    assert (out / "runs" / "maxp0.2" / "summary.json").stat().st_mtime_ns == kept
    assert len(ecnlab.load(out).runs) == 2


def test_chunk_size() -> None:
    from ecnlab.sweep.local import CHUNK_TARGET_S, MAX_CHUNK, chunk_size

    assert chunk_size(None, 1000, 2) == 1  # nothing measured yet
    assert chunk_size(10.0, 1000, 2) == 1  # long runs go one per task
    assert chunk_size(CHUNK_TARGET_S / 5, 1000, 2) == 5
    assert chunk_size(1e-6, 1000, 2) == MAX_CHUNK
    assert chunk_size(1e-6, 40, 2) == 5  # a share of what is left, so both workers stay busy to the end
    assert chunk_size(1e-6, 1, 2) == 1


def test_bench_sweep_rate_output(tmp_path: Path) -> None:
    res = run_cli("bench", "sweep-rate", "--runs", "10", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("machine: ")
    assert lines[1] == "| jobs | runs | wall (median) | runs/s | engine per run | engine share |"
    rows = [line.split("|")[1:-1] for line in lines[3:]]
    assert [(r[0].strip(), r[1].strip()) for r in rows] == [("1", "10"), ("2", "10")]
    for r in rows:
        assert r[2].strip().endswith(" s") and float(r[3]) > 0
        assert r[4].strip().endswith(" ms") and r[5].strip().endswith(" %")
    bad = run_cli("bench", "sweep-rate", "--runs", "7", cwd=tmp_path)
    assert bad.returncode == 2 and "positive multiple of 5" in bad.stderr

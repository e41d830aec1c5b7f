"""``ecnlab run`` costs little beside its engine (docs/performance.md measures it, not these
tests). These tests pin what keeps it so: the time series become Arrow columns from the engine's
buffers exactly (nulls, whole numbers, names), and a run never imports pandas (0.3 s)."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS
from ecnlab.timeseries import ENGINE_FLOW_COLUMNS, FLOWS_FILE, from_columns


def _f64(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}d", *values)


def test_engine_columns_become_exact_arrow_columns() -> None:
    nan = math.nan
    flows = {"names": ["a", "flow_b"], "counts": [2, 3], "t_s": _f64([0.0, 0.1, 0.0, 0.1, 0.2])}
    data = {
        "cwnd_bytes": [nan, 2920, 1460, 4294967295, 2920],
        "ssthresh_bytes": [nan, nan, nan, 7300, nan],
        "srtt_ms": [nan, 41.5, 1e-3, nan, 40.0],
        "in_flight_bytes": [0, 2**52, 3, 4, 5],
        "delivered_bytes": [0, 1460, 0, 0, 2920],
        "dctcp_alpha": [nan, nan, 1.0, 0.0625, nan],
        "cubic_w_max_segments": [0.0, 12.0, nan, nan, nan],
        "cubic_epoch_s": [nan, 0.05, nan, nan, nan],
    }
    flows.update({c: _f64(v) for c, v in data.items()})
    empty = {"names": [], "counts": []}
    table = from_columns(empty, flows)[FLOWS_FILE]
    got = table.to_pydict()
    assert got["flow"] == ["a", "a", "flow_b", "flow_b", "flow_b"]
    assert got["t_s"] == [0.0, 0.1, 0.0, 0.1, 0.2]
    for c in ENGINE_FLOW_COLUMNS:
        assert got[c] == [None if isinstance(v, float) and math.isnan(v) else v for v in data[c]], c
    assert [str(t) for t in table.schema.types] == [
        "string", "double", "uint32", "uint32", "double", "uint64", "uint64", "double", "double", "double"
    ]  # fmt: skip
    assert table.column("cwnd_bytes").null_count == 1


def _modules_after_run(tmp_path: Path, sets: list[str], which: str, scenario: Path | None = None) -> str:
    """Run ``scenario`` (the RED+ECN example) for 2 s in a fresh interpreter with ``--set`` ``sets``;
    the sorted names of the loaded modules that ``which`` (a Python expression in ``m``) selects."""
    path = str(scenario or SCENARIOS / "dumbbell-red-ecn.toml")
    args = ["run", path, "--out", "r", "-q", "--set", "duration=2s"] + [x for a in sets for x in ("--set", a)]
    code = (
        "import sys\n"
        "from ecnlab.cli import main\n"
        f"assert main({args!r}) == 0\n"
        f"print(sorted(m for m in sys.modules if {which}))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.engine
def test_a_run_with_time_series_does_not_import_pandas(tmp_path: Path) -> None:
    assert _modules_after_run(tmp_path, [], "m.split('.')[0] == 'pandas' or m == 'pyarrow.compute'") == "[]"
    assert (tmp_path / "r" / "timeseries-flows.parquet").is_file()


# Two hosts and the link between them: no router queue, so no sojourn histograms (sojourn.parquet).
HOSTS_ONLY = """
name = "hosts"
duration = "2s"
sample_interval = 0
[topology]
kind = "explicit"
[[topology.nodes]]
name = "a"
kind = "host"
[[topology.nodes]]
name = "b"
kind = "host"
[[topology.links]]
from = "a"
to = "b"
rate = "10Mbit"
delay = "5ms"
[[flows]]
name = "bulk"
kind = "bulk"
from = "a"
to = "b"
"""


@pytest.mark.engine
def test_a_run_without_parquet_output_imports_neither_numpy_nor_pyarrow(tmp_path: Path) -> None:
    """No router queue, no time series and no group of flows: nothing is written as Parquet, so a
    short run does not pay numpy's and pyarrow's import (0.1 s and ~40 MiB, more than such a run's
    engine)."""
    (tmp_path / "hosts.toml").write_text(HOSTS_ONLY)
    found = _modules_after_run(tmp_path, [], "m.split('.')[0] in ('numpy', 'pyarrow')", tmp_path / "hosts.toml")
    assert found == "[]"
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["summary.json"]


@pytest.mark.engine
def test_a_run_through_a_router_writes_its_sojourn_histograms(tmp_path: Path) -> None:
    _modules_after_run(tmp_path, ["sample_interval=0", "output.pcap=[]"], "False")
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["sojourn.parquet", "summary.json"]


def _process_after_run(tmp_path: Path, env: dict[str, str]) -> str:
    """``OPENBLAS_NUM_THREADS`` and whether the cyclic garbage collector is on, in a fresh process
    set up as the ``ecnlab`` command sets it up, after ``run`` of the RED+ECN example (whose router
    queue makes it import numpy for sojourn.parquet)."""
    args = ["run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", "r", "-q", "--set", "duration=1s"]
    code = (
        "import gc, os, sys\n"
        "from ecnlab import cli\n"
        f"sys.argv = ['ecnlab'] + {args!r}\n"
        "cli.command_process()\n"
        "assert cli.main() == 0 and 'numpy' in sys.modules\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], gc.isenabled())\n"
    )
    base = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env=base | env, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.engine
def test_a_run_starts_no_blas_thread_pool_unless_the_user_asks_and_collects_no_cycles(tmp_path: Path) -> None:
    assert _process_after_run(tmp_path, {}) == "1 False"
    assert _process_after_run(tmp_path, {"OPENBLAS_NUM_THREADS": "3"}) == "3 False"


def test_main_leaves_its_callers_process_as_it_was(tmp_path: Path) -> None:
    import gc
    import os

    from ecnlab.cli import main

    blas, collecting = os.environ.get("OPENBLAS_NUM_THREADS"), gc.isenabled()
    assert main(["validate", str(SCENARIOS / "dumbbell-red-ecn.toml")]) == 0
    assert (os.environ.get("OPENBLAS_NUM_THREADS"), gc.isenabled()) == (blas, collecting)


def _command(tmp_path: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``ecnlab ARGS`` as the command runs (``cli.entry``) in a fresh interpreter whose exit handler
    (``atexit``) prints ``teardown``: the interpreter's own exit ran iff it prints that."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('teardown'))\n"
        f"sys.argv = ['ecnlab'] + {args!r}\n"
        "from ecnlab.cli import entry\n"
        "entry()\n"
    )
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip


@pytest.mark.engine
def test_run_and_validate_end_without_the_interpreters_teardown_output_complete(tmp_path: Path) -> None:
    scenario = str(SCENARIOS / "dumbbell-red-ecn.toml")
    r = _command(tmp_path, ["run", scenario, "--out", "r", "--set", "duration=1s"])
    assert r.returncode == 0, r.stderr
    assert "teardown" not in r.stdout and (tmp_path / "r" / "summary.json").is_file()
    assert r.stdout.splitlines()[-1] == "wrote r/summary.json, r/R1-R2.pcap"  # the last line, flushed
    v = _command(tmp_path, ["validate", scenario])
    assert (v.returncode, v.stdout) == (0, f"{scenario}: ok (22 nodes, 42 links, 10 flows, 0 faults)\n")


def test_a_refused_scenario_still_exits_with_status_2_and_one_line(tmp_path: Path) -> None:
    r = _command(tmp_path, ["run", str(SCENARIOS / "dumbbell-red-ecn.toml"), "--out", "r", "--set", "duration=-1s"])
    assert (r.returncode, r.stdout, len(r.stderr.splitlines())) == (2, "", 1)


def test_other_commands_exit_as_python_does(tmp_path: Path) -> None:
    r = _command(tmp_path, ["--version"])
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "teardown"

"""`ecnlab sweep --scheduler`: a Dask LocalCluster (2 worker processes) gives the local tables, byte for byte."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import SCENARIOS, run_cli
from ecnlab.sweep import load_sweep, run_sweep

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: whole reproductions

distributed = pytest.importorskip("distributed")

EXAMPLE = SCENARIOS / "sweep-red-ecn.toml"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A LocalCluster of two worker processes; yields the scheduler address."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    ) as lc:
        yield lc.scheduler_address


def test_dask_cluster_matches_local_runner_byte_for_byte(cluster: str, tmp_path: Path) -> None:
    res = run_cli("sweep", str(EXAMPLE), "--out", str(tmp_path / "dask"), "--scheduler", cluster, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert f"18 to run on the Dask cluster at {cluster}" in res.stderr.splitlines()[0]
    assert res.stdout.strip() == f"{tmp_path / 'dask'}: all runs complete (18 run now, 0 already complete)"
    local = run_sweep(load_sweep(EXAMPLE), tmp_path / "local", jobs=2, progress=False, stream=io.StringIO())
    assert local.ok
    for table in ("runs", "flows", "queues"):
        a = pq.read_table(tmp_path / "dask" / f"{table}.parquet")
        b = pq.read_table(tmp_path / "local" / f"{table}.parquet")
        assert a.equals(b), table
        assert a.num_rows >= 18
        assert (tmp_path / "dask" / f"{table}.parquet").read_bytes() == (
            tmp_path / "local" / f"{table}.parquet"
        ).read_bytes()
    # the results landed in DIR on this machine, one whole directory per run
    assert sorted(p.name for p in (tmp_path / "dask" / "runs").iterdir()) == sorted(
        r.name for r in load_sweep(EXAMPLE).runs
    )


def test_dask_rerun_skips_complete_runs(cluster: str, tmp_path: Path) -> None:
    out = tmp_path / "d"
    first = run_sweep(load_sweep(EXAMPLE), out, scheduler=cluster, progress=False, stream=io.StringIO())
    again = run_sweep(load_sweep(EXAMPLE), out, scheduler=cluster, progress=False, stream=io.StringIO())
    assert first.ok and first.ran == 18
    assert again.ok and again.ran == 0 and again.skipped == 18


def test_unreachable_scheduler_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = run_cli("sweep", str(EXAMPLE), "--out", str(out), "--scheduler", "tcp://127.0.0.1:9", cwd=tmp_path)
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f'ecnlab: error: {EXAMPLE}: --scheduler = "tcp://127.0.0.1:9": cannot connect:')
    assert not out.exists()

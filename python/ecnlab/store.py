"""The results store of a sweep directory: Parquet tables and a manifest, read back by :func:`load`.

::

    DIR/manifest.json        format_version, ecnlab version, git commit, sweep file text, axes, time
    DIR/runs/NAME/summary.json   one complete run (see docs/scenario.md)
    DIR/runs.parquet         one row per run: run, seed, one column per axis, key metrics
    DIR/flows.parquet        one row per run x flow: run, seed, axes, every flow metric
    DIR/queues.parquet       one row per run x link: run, seed, axes, link and queue counters

The tables are plain Parquet (pyarrow), readable by pandas, polars or DuckDB
without ecnlab. Rows are in the sweep's grid order, which does not depend on
how many workers ran the sweep or in which order runs finished; no column
holds wall-clock time (``sim.wall_s`` stays in each summary.json), so the
same sweep gives byte-identical Parquet files with any ``--jobs`` or on Dask.
Only ``manifest.json`` records when it was written.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import platform
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.arguments import as_path
from ecnlab.errors import MissingResultError, ResultError
from ecnlab.files import write_atomic, write_text
from ecnlab.results import SUMMARY_FILE, git_commit, read_summary

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from ecnlab.sweep.spec import Run, Sweep

__all__ = [
    "STORE_VERSION",
    "SweepResults",
    "load",
    "write_store",
    "write_manifest",
    "run_metrics",
    "run_rows",
    "RUN_METRICS",
]

STORE_VERSION = 1
MANIFEST = "manifest.json"
RUNS_DIR = "runs"
TABLES = ("runs", "flows", "queues")
PACKAGES = ("numpy", "pandas", "pyarrow", "matplotlib")

# runs.parquet metric columns: name -> meaning (docs/sweeps.md has the same list).
RUN_METRICS = {
    "bottleneck": "the most utilised link (ties: first by name); the queue columns below are its queue's",
    "utilization": "utilisation of that link after warmup (0..1)",
    "marks": "CE marks at that queue (packets)",
    "early_drops": "early (AQM) drops at that queue (packets)",
    "forced_drops": "forced drops (RED above max_th) at that queue (packets)",
    "overflow_drops": "drops of a full queue (packets)",
    "drops": "early + forced + overflow drops at that queue (packets)",
    "marks_after_warmup": "CE marks at that queue after warmup (packets)",
    "drops_after_warmup": "early + forced + overflow drops at that queue after warmup (packets)",
    "avg_qlen_pkts": "time-average queue length at that queue (packets)",
    "max_qlen_pkts": "largest queue length at that queue (packets)",
    "sojourn_p50_ms": "median sojourn time of the packets that left that queue (ms)",
    "sojourn_p99_ms": "99th percentile of that sojourn time (ms)",
    "sojourn_p999_ms": "99.9th percentile of that sojourn time (ms)",
    "fairness": "Jain's index over the bulk flows' goodput (null without bulk flows)",
    "flows": "number of flows",
    "goodput_bps": "mean goodput over all flows (bit/s)",
    "goodput_total_bps": "sum of the flows' goodput (bit/s)",
    "retransmits": "retransmitted data packets, all flows",
    "fast_retransmits": "fast retransmits, all flows",
    "timeouts": "retransmission timeouts, all flows",
    "ecn_reductions": "ECN-triggered window reductions, all flows",
    "retransmits_after_warmup": "retransmitted data packets after warmup, all flows",
    "timeouts_after_warmup": "retransmission timeouts after warmup, all flows",
    "ecn_reductions_after_warmup": "ECN-triggered window reductions after warmup, all flows",
    "transactions": "completed request/response transactions, all flows (null without such flows)",
    "completion_time_s": "when the last finished flow finished (s; null if none finished)",
    "qct_mean_s": "mean query completion time over every incast entry's completed queries (s; null without)",
    "qct_p99_s": "99th percentile (nearest rank) of those query completion times (s; null without)",
    "queries_with_timeout": "completed incast queries in which a response saw a timeout (null without incast)",
    "events": "simulator events processed",
    "packets_forwarded": "packets forwarded by the simulator",
}


def run_metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """The key metrics of one run (the RUN_METRICS columns), from its summary.json: over every flow,
    the records of ``flows[]`` and the summaries of ``groups[]`` (large entries) together."""
    flows, links, groups = summary["flows"], summary["links"], summary.get("groups", [])
    queues = {q["link"]: q for q in summary["queues"]}
    bn = sorted(links, key=lambda link: (-link["utilization"], link["name"]))[0] if links else None
    q = queues.get(bn["name"], {}) if bn else {}
    goodput = [float(f["goodput_bps"]) for f in flows]
    n = len(flows) + sum(g["flows"] for g in groups)
    goodput_total = sum(goodput) + sum(g["goodput_bps_mean"] * g["flows"] for g in groups)
    transactions = [f["transactions"] for f in [*flows, *groups] if f.get("transactions") is not None]
    finished = [f["completion_time_s"] for f in flows if f.get("completion_time_s") is not None]
    finished += [g["completion_time_s_max"] for g in groups if g["completion_time_s_max"] is not None]
    drops = [q.get(k) for k in ("early_drops", "forced_drops", "overflow_drops")]
    drops_after = [q.get(f"{k}_after_warmup") for k in ("early_drops", "forced_drops", "overflow_drops")]
    counted = [*flows, *groups]
    return {
        "bottleneck": bn["name"] if bn else None,
        "utilization": bn["utilization"] if bn else None,
        "marks": q.get("marks"),
        "early_drops": q.get("early_drops"),
        "forced_drops": q.get("forced_drops"),
        "overflow_drops": q.get("overflow_drops"),
        "drops": sum(drops) if q else None,
        "marks_after_warmup": q.get("marks_after_warmup"),
        "drops_after_warmup": _total(drops_after) if q else None,
        "avg_qlen_pkts": q.get("avg_qlen_pkts"),
        "max_qlen_pkts": q.get("max_qlen_pkts"),
        "sojourn_p50_ms": q.get("sojourn_p50_ms"),
        "sojourn_p99_ms": q.get("sojourn_p99_ms"),
        "sojourn_p999_ms": q.get("sojourn_p999_ms"),
        "fairness": summary.get("fairness"),
        "flows": n,
        "goodput_bps": goodput_total / n if n else None,
        "goodput_total_bps": goodput_total,
        "retransmits": _total(f["retransmits"] for f in counted),
        "fast_retransmits": _total(f["fast_retransmits"] for f in counted),
        "timeouts": _total(f["timeouts"] for f in counted),
        "ecn_reductions": _total(f["ecn_reductions"] for f in counted),
        "retransmits_after_warmup": _total(f.get("retransmits_after_warmup") for f in counted),
        "timeouts_after_warmup": _total(f.get("timeouts_after_warmup") for f in counted),
        "ecn_reductions_after_warmup": _total(f.get("ecn_reductions_after_warmup") for f in counted),
        "transactions": sum(transactions) if transactions else None,
        "completion_time_s": max(finished) if finished else None,
        **_query_metrics(summary.get("queries", [])),
        "events": summary["sim"]["events"],
        "packets_forwarded": summary["sim"]["packets_forwarded"],
    }


def _query_metrics(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """``qct_mean_s``, ``qct_p99_s`` (nearest rank) over every incast entry's completed queries, and
    ``queries_with_timeout`` (all null without incast entries)."""
    qct = sorted(t for e in entries for t in e["qct_s"])
    n = len(qct)
    return {
        "qct_mean_s": sum(qct) / n if n else None,
        "qct_p99_s": qct[max(math.ceil(0.99 * n), 1) - 1] if n else None,
        "queries_with_timeout": sum(e["queries_with_timeout"] for e in entries) if entries else None,
    }


def _total(values: Iterable[int | None]) -> int | None:
    """The sum, or None when any value is unknown (an emulated run has no per-flow ECN reductions)."""
    vals = list(values)
    return None if any(v is None for v in vals) else sum(v for v in vals if v is not None)


# Columns that may be null in every row get a fixed type, so the schema does not depend on the data.
_NULLABLE = {
    "ecn_reductions": "int64",
    "fast_retransmits": "int64",
    "marks_after_warmup": "int64",
    "drops_after_warmup": "int64",
    "retransmits_after_warmup": "int64",
    "timeouts_after_warmup": "int64",
    "ecn_reductions_after_warmup": "int64",
    "timeouts": "int64",
    "fairness": "float64",
    "goodput_bps": "float64",
    "transactions": "int64",
    "completion_time_s": "float64",
    "qct_mean_s": "float64",
    "qct_p99_s": "float64",
    "queries_with_timeout": "int64",
    "sojourn_p50_ms": "float64",
    "sojourn_p99_ms": "float64",
    "sojourn_p999_ms": "float64",
}


RunRows = dict[str, list[dict[str, Any]]]  # one run's rows of each table, by table name


def run_rows(run: Run, summary: dict[str, Any]) -> RunRows:
    """One run's rows of the runs, flows and queues tables, from its summary.json."""
    key = {"run": run.name, "seed": run.seed, **run.axes}
    out: RunRows = {"runs": [{**key, **run_metrics(summary)}]}
    out["flows"] = [{**key, **_beside(key, flow, "flow_")} for flow in summary["flows"]]
    out["queues"] = []
    queues = {q["link"]: q for q in summary["queues"]}
    for link in summary["links"]:
        fields = {"link": link["name"], **{k: v for k, v in link.items() if k != "name"}}
        fields.update({k: v for k, v in queues.get(link["name"], {}).items() if k != "link"})
        out["queues"].append({**key, **_beside(key, fields, "link_")})
    return out


def _rows(sweep: Sweep, per_run: Mapping[str, RunRows]) -> RunRows:
    """Every complete run's rows, in the sweep's grid order."""
    out: RunRows = {name: [] for name in TABLES}
    for run in sweep.runs:
        rows = per_run.get(run.name)
        if rows is not None:
            for name in TABLES:
                out[name].extend(rows[name])
    return out


def _beside(key: dict[str, Any], fields: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``fields`` with any name that an axis column already uses prefixed (an axis ``ecn`` → ``flow_ecn``)."""
    return {(prefix + k if k in key else k): v for k, v in fields.items()}


def _table(rows: list[dict[str, Any]], columns: list[str]) -> pa.Table:
    import pyarrow as pa

    if not rows:
        return pa.table({c: pa.array([], pa.string()) for c in columns})
    names = list(dict.fromkeys(k for row in rows for k in row))
    arrays = []
    for name in names:
        values = [row.get(name) for row in rows]
        array = pa.array(values, type=pa.uint64()) if name == "seed" else pa.array(values)
        if array.type == pa.null():
            array = array.cast(_NULLABLE.get(name, "float64"))
        arrays.append(array)
    return pa.Table.from_arrays(arrays, names=names)


def read_summaries(out: Path, sweep: Sweep) -> dict[str, dict[str, Any]]:
    """The summary.json of every complete run of ``sweep`` under ``out/runs``."""
    from ecnlab.sweep.execute import is_complete

    return {
        run.name: read_summary(out / RUNS_DIR / run.name / SUMMARY_FILE)
        for run in sweep.runs
        if is_complete(out / RUNS_DIR, run.name)
    }


def write_store(
    out: Path, sweep: Sweep, *, failed: list[str] | None = None, known: Mapping[str, RunRows] | None = None
) -> dict[str, Path]:
    """(Re)write the Parquet tables and the manifest from the complete runs; return the table paths.
    ``known``: :func:`run_rows` of runs this process just stored (computed while the workers ran);
    the other complete runs' summary.json are read here."""

    from ecnlab.sweep.execute import is_complete

    known = known or {}
    per_run: dict[str, RunRows] = {}
    for run in sweep.runs:
        rows = known.get(run.name)
        if rows is None and is_complete(out / RUNS_DIR, run.name):  # a damaged run is left out
            rows = run_rows(run, read_summary(out / RUNS_DIR / run.name / SUMMARY_FILE))
        if rows is not None:
            per_run[run.name] = rows
    rows = _rows(sweep, per_run)
    paths = {}
    for name in TABLES:
        table = _table(rows[name], ["run", "seed", *sweep.columns])
        paths[name] = out / f"{name}.parquet"
        write_atomic(paths[name], functools.partial(_write_parquet, table))
    write_manifest(out, sweep, complete=len(per_run), failed=failed or [])
    return paths


def _write_parquet(table: pa.Table, where: str) -> None:
    import pyarrow.parquet as pq

    pq.write_table(table, where, compression="zstd")


def write_manifest(out: Path, sweep: Sweep, *, complete: int, failed: list[str]) -> Path:
    """``DIR/manifest.json``: what was run, by which ecnlab, and when."""
    from ecnlab import __version__

    commit, dirty = git_commit()
    doc = {
        "format_version": STORE_VERSION,
        "ecnlab_version": __version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "sweep_file": sweep.source,
        "sweep": sweep.text,
        "base_scenario": sweep.base_text,
        "description": sweep.description,
        "axes": [{"column": a.column, "key": a.key, "values": list(a.labels)} for a in sweep.axes],
        "seeds": list(sweep.seeds),
        "runs": {"total": len(sweep.runs), "complete": complete, "failed": sorted(failed)},
        "tables": {name: f"{name}.parquet" for name in TABLES},
        "python": platform.python_version(),
        "packages": {p: _version(p) for p in PACKAGES},
    }
    path = out / MANIFEST
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    write_text(path, text)
    return path


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


@dataclass
class SweepResults:
    """A sweep directory read back: ``.runs``, ``.flows``, ``.queues`` DataFrames and ``.manifest``."""

    path: Path
    manifest: dict[str, Any]
    runs: pd.DataFrame
    flows: pd.DataFrame
    queues: pd.DataFrame
    # What analyses derived from these runs (a study part's per-run metrics, by part name): computed once
    # and kept with the runs they came from (experiments/framework.py).
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def axes(self) -> list[str]:
        """The axis columns, in sweep-file order."""
        return [a["column"] for a in self.manifest["axes"]]

    def summary(self, run: str) -> dict[str, Any]:
        """The full summary.json of one run."""
        return read_summary(self.path / RUNS_DIR / run / SUMMARY_FILE)

    def queue_series(self, run: str) -> pd.DataFrame:
        """One run's queue time series (``timeseries.py``; empty without ``sample_interval``)."""
        from ecnlab.timeseries import read_queues

        return read_queues(self.path / RUNS_DIR / run)

    def flow_series(self, run: str) -> pd.DataFrame:
        """One run's flow time series (``timeseries.py``; empty without ``sample_interval``)."""
        from ecnlab.timeseries import read_flows

        return read_flows(self.path / RUNS_DIR / run)


def load(path: str | Path) -> SweepResults:
    """Read a sweep directory (``ecnlab sweep --out DIR``); checks the manifest's format_version.
    A missing, damaged or foreign file raises ResultError naming it."""
    p = as_path(path, "path")
    manifest = read_manifest(p)
    frames = {name: _read_table(p / f"{name}.parquet") for name in TABLES}
    return SweepResults(p, manifest, frames["runs"], frames["flows"], frames["queues"])


def read_manifest(p: Path) -> dict[str, Any]:
    """``p/manifest.json`` read and checked (ResultError naming it when missing or damaged)."""
    mpath = p / MANIFEST
    if not mpath.is_file():
        raise MissingResultError(p, f"not an ecnlab sweep directory (no {MANIFEST})")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultError(mpath, f"damaged: cannot be read as JSON ({e})") from None
    if not isinstance(manifest, dict):
        raise ResultError(mpath, "not an ecnlab manifest (a JSON object is expected)")
    version = manifest.get("format_version")
    if version != STORE_VERSION:
        raise ResultError(mpath, f"format_version {version!r} is not supported (this ecnlab reads {STORE_VERSION})")
    if not isinstance(manifest.get("axes"), list):
        raise ResultError(mpath, "not an ecnlab manifest: 'axes' is missing or not a JSON array")
    return manifest


def _read_table(tpath: Path) -> pd.DataFrame:
    """One Parquet table of the store (ResultError naming it when missing or damaged)."""
    from ecnlab.files import read_parquet

    return read_parquet(tpath, "re-run `ecnlab sweep` to rebuild the tables")

"""A run's time series as Parquet beside summary.json, never inside it.

``sample_interval`` > 0 samples the queues of ``[output] timeseries_links``
and the senders of ``[output] timeseries_flows`` (engine: ``crates/sim/src/series.rs``).
Two long-form tables, one row per sample:

- ``timeseries-queues.parquet``: ``link``, ``t_s``, ``qlen_pkts``, ``avg_pkts``
  (RED family; null otherwise), ``delay_ms`` (sojourn of the oldest queued
  packet), ``prob`` (the AQM's probability where it keeps one; null otherwise),
  ``marks`` and ``drops`` (cumulative counts);
- ``timeseries-flows.parquet``: ``flow``, ``t_s``, ``cwnd_bytes``,
  ``ssthresh_bytes`` (null while "infinite"), ``srtt_ms``, ``in_flight_bytes``
  (null while the flow has no open connection), ``delivered_bytes``
  (cumulative payload at the receiving application).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["QUEUES_FILE", "FLOWS_FILE", "tables", "write", "read_queues", "read_flows"]

QUEUES_FILE = "timeseries-queues.parquet"
FLOWS_FILE = "timeseries-flows.parquet"

QUEUE_COLUMNS = ("qlen_pkts", "avg_pkts", "delay_ms", "prob", "marks", "drops")
FLOW_COLUMNS = ("cwnd_bytes", "ssthresh_bytes", "srtt_ms", "in_flight_bytes", "delivered_bytes")
_TYPES = {
    "qlen_pkts": "uint32",
    "avg_pkts": "float64",
    "delay_ms": "float64",
    "prob": "float64",
    "marks": "uint64",
    "drops": "uint64",
    "cwnd_bytes": "uint32",
    "ssthresh_bytes": "uint32",
    "srtt_ms": "float64",
    "in_flight_bytes": "uint64",
    "delivered_bytes": "uint64",
}


def _long(series: list[dict[str, Any]], key: str, columns: tuple[str, ...]) -> pa.Table:
    import pyarrow as pa

    names: list[str] = []
    data: dict[str, list[Any]] = {"t_s": [], **{c: [] for c in columns}}
    for s in series:
        n = len(s["t_s"])
        names.extend([s[key]] * n)
        data["t_s"].extend(s["t_s"])
        for c in columns:
            data[c].extend(s.get(c) or [None] * n)
    fields = [pa.field(key, pa.string()), pa.field("t_s", pa.float64())]
    fields += [pa.field(c, pa.type_for_alias(_TYPES[c])) for c in columns]
    arrays = [pa.array(names, pa.string()), pa.array(data["t_s"], pa.float64())]
    arrays += [pa.array(data[c], pa.type_for_alias(_TYPES[c])) for c in columns]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def tables(engine_series: dict[str, Any]) -> dict[str, pa.Table]:
    """The engine's ``timeseries`` as the two tables, by file name (none when nothing was sampled)."""
    out = {}
    if engine_series.get("queue"):
        out[QUEUES_FILE] = _long(engine_series["queue"], "link", QUEUE_COLUMNS)
    if engine_series.get("flow"):
        out[FLOWS_FILE] = _long(engine_series["flow"], "flow", FLOW_COLUMNS)
    return out


def write(directory: Path, tabs: dict[str, pa.Table]) -> list[Path]:
    """Write the tables into ``directory`` (deterministic bytes for the same data)."""
    import pyarrow.parquet as pq

    paths = []
    for name, table in tabs.items():
        path = directory / name
        pq.write_table(table, path, compression="zstd")
        paths.append(path)
    return paths


def _read(run_dir: Path, name: str, key: str, columns: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    path = Path(run_dir) / name
    if not path.is_file():
        return pd.DataFrame(columns=[key, "t_s", *columns])
    return pd.read_parquet(path)


def read_queues(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's queue time series (empty when it has none)."""
    return _read(Path(run_dir), QUEUES_FILE, "link", QUEUE_COLUMNS)


def read_flows(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's flow time series (empty when it has none)."""
    return _read(Path(run_dir), FLOWS_FILE, "flow", FLOW_COLUMNS)

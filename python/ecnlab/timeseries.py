"""A run's time series as Parquet beside summary.json, never inside it.

``sample_interval`` > 0 samples the queues of ``[output] timeseries_links``
and the senders of ``[output] timeseries_flows`` (engine: ``crates/sim/src/series.rs``).
Two long-form tables, one row per sample:

- ``timeseries-queues.parquet``: ``link``, ``t_s``, ``qlen_pkts``, ``avg_pkts``
  (RED family; null otherwise), ``delay_ms`` (sojourn of the oldest queued
  packet), ``prob`` (the AQM's probability where it keeps one; null otherwise),
  ``marks`` and ``drops`` (cumulative counts);
- ``timeseries-flows.parquet`` (``ecnlab emulate`` writes it too, for bulk
  senders, from ``TCP_INFO``): ``flow``, ``t_s``, ``cwnd_bytes``,
  ``ssthresh_bytes`` (null while "infinite"), ``srtt_ms``, ``in_flight_bytes``
  (null while the flow has no open connection), ``delivered_bytes``
  (cumulative payload at the receiving application); simulated runs also
  ``dctcp_alpha`` (DCTCP's α at the sender, RFC 8257 §3.3; null for other
  congestion controls and while no connection is open), ``cubic_w_max_segments``
  and ``cubic_epoch_s`` (CUBIC's W_max, 0 before the first reduction, and the
  start of its congestion-avoidance epoch, RFC 9438 §4.2's t_epoch, null between
  a reduction and the first growth after it; null for other congestion controls).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.files import naming

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "column_from_buffers",
    "QUEUES_FILE",
    "FLOWS_FILE",
    "from_columns",
    "from_flow_rows",
    "write",
    "read_queues",
    "read_flows",
]

QUEUES_FILE = "timeseries-queues.parquet"
FLOWS_FILE = "timeseries-flows.parquet"

QUEUE_COLUMNS = ("qlen_pkts", "avg_pkts", "delay_ms", "prob", "marks", "drops")
FLOW_COLUMNS = ("cwnd_bytes", "ssthresh_bytes", "srtt_ms", "in_flight_bytes", "delivered_bytes")
# The engine's flow columns beyond FLOW_COLUMNS (the emulator's TCP_INFO rows do not have them).
ENGINE_FLOW_COLUMNS = (*FLOW_COLUMNS, "dctcp_alpha", "cubic_w_max_segments", "cubic_epoch_s")
# The emulator's flow columns beyond FLOW_COLUMNS: TCP_INFO's pacing rate, and Linux BBR's model
# (TCP_CC_INFO: its bandwidth filter's maximum, min_rtt, pacing gain), null for other controls.
EMU_FLOW_COLUMNS = (*FLOW_COLUMNS, "pacing_rate_bps", "bbr_bw_bps", "bbr_min_rtt_ms", "bbr_pacing_gain")
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
    "dctcp_alpha": "float64",
    "cubic_w_max_segments": "float64",
    "cubic_epoch_s": "float64",
    "pacing_rate_bps": "uint64",
    "bbr_bw_bps": "uint64",
    "bbr_min_rtt_ms": "float64",
    "bbr_pacing_gain": "float64",
}


def _table(cols: dict[str, Any], key: str, columns: tuple[str, ...]) -> pa.Table:
    """One long-form table from the engine's columns (``_core.run_split``)."""
    import numpy as np
    import pyarrow as pa

    t_s = np.frombuffer(cols["t_s"], "<f8")
    arrays = [_names(cols["names"], cols["counts"]), column_from_buffers(t_s, pa.float64(), np.zeros(len(t_s), bool))]
    for c in columns:
        raw = np.frombuffer(cols[c], "<f8")
        null = np.isnan(raw)  # NaN -> null
        kind = pa.type_for_alias(_TYPES[c])
        # Counters and byte counts are whole numbers below 2^53 in the f64 columns: numpy's cast is
        # exact for them and costs a fraction of Arrow's checked cast (0.3 s per million rows).
        values = raw if pa.types.is_floating(kind) else np.where(null, 0, raw).astype(kind.to_pandas_dtype())
        arrays.append(column_from_buffers(values, kind, null))
    fields = [pa.field(key, pa.string()), pa.field("t_s", pa.float64())]
    fields += [pa.field(c, pa.type_for_alias(_TYPES[c])) for c in columns]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def column_from_buffers(values: np.ndarray, kind: pa.DataType, null: np.ndarray) -> pa.Array:
    """An Arrow column over ``values`` with ``null`` masked, from buffers: ``pa.array`` would
    import pandas (to ask whether the input is a pandas object)."""
    import numpy as np
    import pyarrow as pa

    nulls = int(null.sum())
    validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if nulls else None
    data = pa.py_buffer(np.ascontiguousarray(values))
    return pa.Array.from_buffers(kind, len(values), [validity, data], null_count=nulls)


def _names(names: list[str], counts: list[int]) -> pa.Array:
    """The key column: each series' name repeated over its samples, built from buffers (no
    pyarrow.compute, which would import pandas into every ``ecnlab run``: 0.3 s)."""
    import numpy as np
    import pyarrow as pa

    encoded = [n.encode() for n in names]
    offsets = np.zeros(sum(counts) + 1, dtype=np.int64)
    lengths = np.array([len(e) for e in encoded], dtype=np.int64)
    np.cumsum(np.repeat(lengths, np.array(counts, dtype=np.int64)), out=offsets[1:])
    if offsets[-1] >= 2**31:  # beyond 32-bit string offsets
        raise ValueError(f"time-series names take {offsets[-1]} bytes: too many samples for one table")
    data = b"".join(e * c for e, c in zip(encoded, counts, strict=True))
    return pa.StringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data))


def from_columns(queues: dict[str, Any], flows: dict[str, Any]) -> dict[str, pa.Table]:
    """The two tables by file name, from the engine's columns (none when nothing was sampled)."""
    out = {}
    if queues["names"]:
        out[QUEUES_FILE] = _table(queues, "link", QUEUE_COLUMNS)
    if flows["names"]:
        out[FLOWS_FILE] = _table(flows, "flow", ENGINE_FLOW_COLUMNS)
    return out


def from_flow_rows(rows: dict[str, list[list[float | None]]]) -> dict[str, pa.Table]:
    """The flow table from rows ``[t_s, *EMU_FLOW_COLUMNS]`` per flow (emulate's ``TCP_INFO``
    samples; delivered = bytes the sender saw acknowledged); a row that stops after
    ``FLOW_COLUMNS`` leaves the rest null."""
    import pyarrow as pa

    width = 1 + len(EMU_FLOW_COLUMNS)
    flows = [(fid, [*r, *[None] * (width - len(r))]) for fid, rs in rows.items() for r in rs]
    if not flows:
        return {}
    cols = list(zip(*(r for _, r in flows), strict=True))
    arrays = [pa.array([fid for fid, _ in flows], pa.string()), pa.array(cols[0], pa.float64())]
    arrays += [pa.array(c, pa.type_for_alias(_TYPES[n])) for c, n in zip(cols[1:], EMU_FLOW_COLUMNS, strict=True)]
    fields = [pa.field("flow", pa.string()), pa.field("t_s", pa.float64())]
    fields += [pa.field(c, pa.type_for_alias(_TYPES[c])) for c in EMU_FLOW_COLUMNS]
    return {FLOWS_FILE: pa.Table.from_arrays(arrays, schema=pa.schema(fields))}


def write(directory: Path, tabs: dict[str, pa.Table]) -> list[Path]:
    """Write the tables into ``directory`` (deterministic bytes for the same data); no
    tables, no import of pyarrow's Parquet writer (0.1 s and 40 MiB a run without series)."""
    paths = []
    for name, table in tabs.items():
        path = directory / name
        with naming(path):
            _write_table(table, path)
        paths.append(path)
    return paths


def encode(tabs: dict[str, pa.Table]) -> dict[str, bytes]:
    """The bytes :func:`write` would write, by file name (sweep workers send these, no files)."""
    import pyarrow as pa

    out = {}
    for name, table in tabs.items():
        sink = pa.BufferOutputStream()
        _write_table(table, sink)
        out[name] = sink.getvalue().to_pybytes()
    return out


def warm_writer() -> None:
    """Import numpy and pyarrow's Parquet writer and write one small table to memory: a process's
    first Parquet write sets up what every later one reuses (5–10 ms), so a run does it while its
    engine runs (``runner.py``), not after. Built from buffers, as the run's own tables are."""
    import numpy as np
    import pyarrow as pa

    names = _names(["a"], [2])
    counts = column_from_buffers(np.array([1, 2], dtype=np.uint64), pa.uint64(), np.zeros(2, bool))
    _write_table(pa.Table.from_arrays([names, counts], names=["name", "count"]), pa.BufferOutputStream())


def _write_table(table: pa.Table, where: Any) -> None:
    import pyarrow.parquet as pq

    # Dictionary pages for the name column only: the numeric columns gain nothing from them
    # (half the writing time and 25 % smaller files); the stored Arrow schema is unchanged.
    pq.write_table(table, where, compression="zstd", use_dictionary=[table.schema.names[0]])


def _read(run_dir: Path, name: str, key: str, columns: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    from ecnlab.files import read_parquet

    path = Path(run_dir) / name
    if not path.is_file():
        return pd.DataFrame(columns=[key, "t_s", *columns])
    return read_parquet(path)


def read_queues(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's queue time series (empty when it has none)."""
    return _read(Path(run_dir), QUEUES_FILE, "link", QUEUE_COLUMNS)


def read_flows(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's flow time series (empty when it has none)."""
    return _read(Path(run_dir), FLOWS_FILE, "flow", FLOW_COLUMNS)

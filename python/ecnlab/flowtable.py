"""Per-flow results of a run with a large flow group, as ``flows.parquet`` beside summary.json.

An entry that makes more than ``GROUP_RECORD_LIMIT`` flows (the engine's
``groups::RECORD_LIMIT``) gets one record in summary.json's ``groups[]``; the
results of every flow of the run (of every entry, in flow order) leave the engine
as columns (``_core.run_split``, ``crates/sim/src/flow_table.rs``) and are written
here without a JSON record per flow. The columns are the flow record's keys
(docs/scenario.md), with ``web`` spread into ``web_*`` columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ecnlab.files import naming

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

__all__ = ["FLOWS_FILE", "GROUP_RECORD_LIMIT", "from_engine", "bulk_goodputs", "write", "read"]

FLOWS_FILE = "flows.parquet"
#: Entries making more flows than this are reported as groups (``crates/sim/src/groups.rs``).
GROUP_RECORD_LIMIT = 1000
_DICTIONARY = ["kind", "src", "dst", "cc", "recovery"]  # few distinct values: dictionary pages pay


def from_engine(columns: list[tuple[str, str, bytes, bytes | None, bytes | None]]) -> pa.Table:
    """The table from the engine's columns: ``(name, arrow type, data, offsets, valid)``."""
    import pyarrow as pa

    arrays = [_array(kind, data, offsets, valid) for _, kind, data, offsets, valid in columns]
    fields = [pa.field(name, arr.type) for (name, *_), arr in zip(columns, arrays, strict=True)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _array(kind: str, data: bytes, offsets: bytes | None, valid: bytes | None) -> pa.Array:
    """One column from buffers (``pa.array`` would import pandas to inspect its input)."""
    import numpy as np
    import pyarrow as pa

    if kind == "string":
        assert offsets is not None
        return pa.StringArray.from_buffers(len(offsets) // 4 - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    values = _numbers(np.frombuffer(data, "<f8"), pa.type_for_alias(kind))
    if offsets is None:
        return values
    assert valid is not None
    # From buffers with the items as child: ListArray.from_arrays would import pyarrow.compute.
    ok = np.frombuffer(valid, np.uint8) != 0
    nulls = int((~ok).sum())
    validity = pa.py_buffer(np.packbits(ok, bitorder="little")) if nulls else None
    kind_of = pa.list_(values.type)
    return pa.Array.from_buffers(
        kind_of, len(ok), [validity, pa.py_buffer(offsets)], null_count=nulls, children=[values]
    )


def _numbers(raw: np.ndarray, kind: pa.DataType) -> pa.Array:
    """Numbers of type ``kind`` from f64 (NaN = null): whole numbers below 2^53 cast exactly."""
    import numpy as np
    import pyarrow as pa

    from ecnlab.timeseries import column_from_buffers

    null = np.isnan(raw)
    if pa.types.is_boolean(kind):
        bits = np.packbits(np.where(null, 0, raw).astype(bool), bitorder="little")
        validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if null.any() else None
        return pa.Array.from_buffers(kind, len(raw), [validity, pa.py_buffer(bits)], null_count=int(null.sum()))
    values = raw if pa.types.is_floating(kind) else np.where(null, 0, raw).astype(kind.to_pandas_dtype())
    return column_from_buffers(values, kind, null)


def bulk_goodputs(table: pa.Table) -> list[float]:
    """The bulk flows' goodputs in flow order (what the run's fairness index is taken over).
    Read as Python lists: ``to_numpy`` of a string column would import pandas."""
    kinds = table.column("kind").to_pylist()
    goodput = table.column("goodput_bps").to_pylist()
    return [float(g) for k, g in zip(kinds, goodput, strict=True) if k == "bulk"]


def write(directory: Path, table: pa.Table | None) -> Path | None:
    """Write ``directory/flows.parquet`` (deterministic bytes for the same table), if any."""
    if table is None:
        return None
    import pyarrow.parquet as pq

    path = directory / FLOWS_FILE
    with naming(path):
        pq.write_table(table, path, compression="zstd", use_dictionary=_DICTIONARY)
    return path


def encode(table: pa.Table | None) -> dict[str, bytes]:
    """The bytes :func:`write` would write, by file name (none without a table)."""
    if table is None:
        return {}
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", use_dictionary=_DICTIONARY)
    return {FLOWS_FILE: sink.getvalue().to_pybytes()}


def read(run_dir: str | Path) -> pd.DataFrame | None:
    """A run directory's flows.parquet as a DataFrame; None when the run has none."""

    path = Path(run_dir) / FLOWS_FILE
    from ecnlab.files import read_parquet

    return read_parquet(path) if path.is_file() else None

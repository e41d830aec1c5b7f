"""A run's distributions: queueing delay, RTT samples and flow completion times, each as a CDF.

Queueing delay comes from the engine's sojourn histograms (``crates/aqm/src/stats.rs``): every
router queue keeps one of the packets that left it after ``warmup``, and one per class of
sub-queue (DualPI2: ``L``, ``C``) and, in a per-flow queue (FQ-CoDel), one per flow. They leave
the engine as buckets of 2 significant digits and are written beside summary.json as
``sojourn.parquet``, one row per bucket with packets:

- ``link`` (the queue's link), ``class`` (null for the whole queue), ``flow`` (null unless the
  row is one flow's, in a per-flow queue);
- ``value_ns``: the highest sojourn the bucket holds (what the summary's ``sojourn_p*_ms``
  report), ``count``: its packets.

Every reader returns one CDF per key as rows ``(key..., value, fraction)``: ``fraction`` is the
share of samples at or below ``value``, rising to 1 within each key; nothing is merged across
keys. Units: :func:`sojourn_cdf` and :func:`rtt_cdf` in ms, :func:`fct_cdf` in s.

- :func:`sojourn_cdf`: per ``link``, ``class``, ``flow``, from ``sojourn.parquet``;
- :func:`rtt_cdf`: per ``flow``, the smoothed RTT samples of ``timeseries-flows.parquet``
  (``sample_interval`` > 0, ``[output] timeseries_flows``) taken after ``warmup``;
- :func:`fct_cdf`: per flow ``entry`` (the scenario's ``[[flows]]`` name), its flows' transfer
  times (serial flows: each file's) or completion times (completion − start), from summary.json.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab.files import read_parquet

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["SOJOURN_FILE", "SOJOURN_KEYS", "from_engine", "read_sojourn", "cdf", "sojourn_cdf", "rtt_cdf", "fct_cdf"]

SOJOURN_FILE = "sojourn.parquet"
SOJOURN_KEYS = ("link", "class", "flow")


def from_engine(histograms: list[dict[str, Any]]) -> dict[str, pa.Table]:
    """``sojourn.parquet``'s table from the engine's ``sojourn_histograms`` (none without any), built
    from buffers (``pa.array`` would import pandas into every ``ecnlab run``; ``timeseries.py``)."""
    if not histograms:
        return {}
    import numpy as np
    import pyarrow as pa

    from ecnlab.timeseries import column_from_buffers

    sizes = [len(h["value_ns"]) for h in histograms]
    arrays = [_repeated([h[k] for h in histograms], sizes) for k in SOJOURN_KEYS]
    for k in ("value_ns", "count"):
        values = np.array([v for h in histograms for v in h[k]], dtype=np.uint64)
        arrays.append(column_from_buffers(values, pa.uint64(), np.zeros(len(values), bool)))
    fields = [pa.field(k, pa.string()) for k in SOJOURN_KEYS]
    fields += [pa.field("value_ns", pa.uint64()), pa.field("count", pa.uint64())]
    return {SOJOURN_FILE: pa.Table.from_arrays(arrays, schema=pa.schema(fields))}


def _repeated(names: list[str | None], sizes: list[int]) -> pa.Array:
    """A string column: ``names[i]`` (or null) repeated ``sizes[i]`` times, from buffers."""
    import numpy as np
    import pyarrow as pa

    encoded = [b"" if n is None else n.encode() for n in names]
    lengths = np.repeat(np.array([len(e) for e in encoded], dtype=np.int64), sizes)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    null = np.repeat(np.array([n is None for n in names], dtype=bool), sizes)
    nulls = int(null.sum())
    validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if nulls else None
    data = b"".join(e * s for e, s in zip(encoded, sizes, strict=True))
    return pa.StringArray.from_buffers(len(null), pa.py_buffer(offsets), pa.py_buffer(data), validity, nulls)


def read_sojourn(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's sojourn histograms (empty when it has none: no router queue)."""
    import pandas as pd

    path = Path(run_dir) / SOJOURN_FILE
    if not path.is_file():
        return pd.DataFrame(columns=[*SOJOURN_KEYS, "value_ns", "count"])
    return read_parquet(path)


def cdf(values: Iterable[float], counts: Iterable[float] | None = None) -> pd.DataFrame:
    """The empirical CDF of ``values`` (each weighted by its ``count``, 1 without): one row per
    distinct value, increasing, with the share of the total at or below it."""
    import numpy as np
    import pandas as pd

    v = np.asarray(list(values), dtype="float64")
    w = np.ones(len(v)) if counts is None else np.asarray(list(counts), dtype="float64")
    frame = pd.DataFrame({"value": v, "w": w}).groupby("value", sort=True)["w"].sum()
    total = float(frame.sum())
    fraction = frame.cumsum() / total if total > 0 else frame * 0.0
    return pd.DataFrame({"value": frame.index.to_numpy(), "fraction": fraction.to_numpy()})


def _per_key(frame: pd.DataFrame, keys: Sequence[str], value: str, weight: str | None) -> pd.DataFrame:
    """One CDF per combination of ``keys`` (nulls are a key of their own), rows in key order."""
    import pandas as pd

    parts = []
    for key, g in frame.groupby(list(keys), sort=False, dropna=False):
        one = cdf(g[value], None if weight is None else g[weight])
        for k, v in zip(keys, key if isinstance(key, tuple) else (key,), strict=True):
            one.insert(len(one.columns) - 2, k, None if pd.isna(v) else v)
        parts.append(one)
    if not parts:
        return pd.DataFrame(columns=[*keys, "value", "fraction"])
    return pd.concat(parts, ignore_index=True)


def sojourn_cdf(run_dir: str | Path) -> pd.DataFrame:
    """Queueing delay after the warm-up: ``link``, ``class``, ``flow``, ``value`` (ms), ``fraction``."""
    frame = read_sojourn(run_dir)
    frame = frame.assign(value_ms=frame["value_ns"].astype("float64") / 1e6)
    out = _per_key(frame, SOJOURN_KEYS, "value_ms", "count")
    return out


def rtt_cdf(run_dir: str | Path) -> pd.DataFrame:
    """Smoothed-RTT samples after the warm-up, per sampled flow: ``flow``, ``value`` (ms), ``fraction``."""
    from ecnlab.results import read_summary
    from ecnlab.timeseries import read_flows

    run = Path(run_dir)
    warmup = _warmup_s(read_summary(run / "summary.json"))
    series = read_flows(run)
    series = series[(series["t_s"] >= warmup) & series["srtt_ms"].notna()] if len(series) else series
    return _per_key(series, ["flow"], "srtt_ms", None)


def fct_cdf(run_dir: str | Path) -> pd.DataFrame:
    """Flow completion times per flow entry: ``entry``, ``value`` (s), ``fraction``; flows that did
    not finish are left out (their count is the entry's flows less its rows' samples)."""
    import pandas as pd

    from ecnlab.results import read_summary

    summary = read_summary(Path(run_dir) / "summary.json")
    rows = [(entry, t) for entry, times in fct_samples(summary) for t in times]
    frame = pd.DataFrame(rows, columns=["entry", "fct_s"])
    return _per_key(frame, ["entry"], "fct_s", None)


def fct_samples(summary: dict[str, Any]) -> list[tuple[str, list[float]]]:
    """(entry, completion times) of each flow record that has any: a serial flow's transfer times,
    else completion − start of a flow that finished."""
    entries = [e.get("name") for e in summary["scenario"].get("flows", [])]
    out = []
    for f in summary["flows"]:
        times = list(f.get("transfer_times_s") or [])
        if not times and f.get("completion_time_s") is not None:
            times = [f["completion_time_s"] - f["start_s"]]
        if times:
            out.append((_entry_of(f["id"], entries), times))
    return out


def _entry_of(flow_id: str, entries: Sequence[str | None]) -> str:
    """The ``[[flows]]`` entry a flow id belongs to: the entry's name, or ``NAME_K`` for its K-th flow."""
    if flow_id in entries:
        return flow_id
    head, _, k = flow_id.rpartition("_")
    return head if head in entries and k.isdigit() else flow_id


def _warmup_s(summary: dict[str, Any]) -> float:
    """The resolved scenario's ``warmup`` (seconds)."""
    return float(summary["scenario"].get("warmup", 0))

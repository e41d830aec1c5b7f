"""Run results: ``summary.json`` (self-describing, deterministic) and :class:`RunResult`."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecnlab import distributions, flowtable, timeseries
from ecnlab._core import RecordsText, dumps_indented, dumps_indented_file, write_indented_file

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "FORMAT_VERSION",
    "build_summary",
    "jain",
    "dumps",
    "summary_bytes",
    "write_summary",
    "RunResult",
    "load_result",
    "read_summary",
    "git_commit",
]

FORMAT_VERSION = 1
SUMMARY_FILE = "summary.json"


def jain(values: list[float]) -> float | None:
    """Jain's fairness index (Σx)² / (n·Σx²); None for no values or all zero."""
    if not values:
        return None
    squares = sum(x * x for x in values)
    if squares == 0:
        return None
    return sum(values) ** 2 / (len(values) * squares)


@functools.cache
def git_commit() -> tuple[str, bool | None]:
    """(HEAD commit, dirty?) of the source tree ecnlab runs from; ("unknown", None) outside one."""
    import subprocess  # here: a run asks git on its output thread (runner.py), which imports it there

    root = Path(__file__).resolve().parents[2]
    if not (root / "Cargo.toml").is_file() or not (root / "crates" / "sim").is_dir():
        return "unknown", None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown", None
    return head or "unknown", bool(status.strip())


def build_summary(
    *, scenario: dict[str, Any], engine: dict[str, Any], wall_s: float, version: str, flows: pa.Table | None = None
) -> dict[str, Any]:
    """The summary.json document for one run. ``flows``: every flow's results when the run has a
    large group (whose records are then not in ``engine["flows"]``; ``flowtable.py``)."""
    commit, dirty = git_commit()
    sim = dict(engine["sim"])
    sim["wall_s"] = round(wall_s, 6)
    records = engine["flows"]
    goodputs = (
        flowtable.bulk_goodputs(flows)
        if flows is not None
        else [float(f["goodput_bps"]) for f in records if f["kind"] == "bulk"]
    )
    summary: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "ecnlab_version": version,
        "git_commit": commit,
        "git_dirty": dirty,
        "scenario": scenario,
        "seed": scenario["seed"],
        "sim": sim,
        "flows": records,
    }
    if engine.get("groups"):  # only runs with an entry of more than GROUP_RECORD_LIMIT flows
        summary["groups"] = engine["groups"]
    if engine.get("queries"):  # only runs with incast entries
        summary["queries"] = engine["queries"]
    summary.update(queues=engine["queues"], links=engine["links"], fairness=jain(goodputs))
    return summary


def dumps(summary: dict[str, Any]) -> str:
    """Deterministic JSON text: insertion-ordered keys, indent 2, trailing newline."""
    return dumps_indented(summary) + "\n"


def summary_bytes(summary: dict[str, Any], records: RecordsText | None = None) -> bytes:
    """:func:`dumps` as UTF-8, the bytes of ``summary.json``, made without the text object between
    (a summary of ten thousand flows is megabytes). ``records``: the engine's text of the
    summary's ``flows`` (``_core.run_split``), written as it is (the same bytes)."""
    return dumps_indented_file(summary, records)


def write_summary(directory: Path, summary: dict[str, Any], records: RecordsText | None = None) -> Path:
    """Write ``directory/summary.json`` (whole, or not at all: ``files.py``): :func:`summary_bytes`,
    written into the file a piece at a time as they are made."""
    from ecnlab.files import write_atomic

    return write_atomic(directory / SUMMARY_FILE, lambda tmp: write_indented_file(tmp, summary, records))


@dataclass
class RunResult:
    """One run: the summary dict, plus its tables as pandas DataFrames."""

    summary: dict[str, Any]
    out: Path | None = None
    series: dict[str, Any] = field(default_factory=dict)  # time series tables by file name (timeseries.py)
    flow_table: pa.Table | None = None  # every flow's results, for runs with a large group (flowtable.py)

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (``id``, ``goodput_bps``, ``retransmits``, ...): every flow of the run,
        from ``flows.parquet`` when the run has a large group (``web`` as ``web_*`` columns
        there), else from summary.json's records."""
        if self.flow_table is not None:
            return self.flow_table.to_pandas()
        if self.out is not None and "groups" in self.summary:
            frame = flowtable.read(self.out)
            if frame is not None:
                return frame
        return _frame(self.summary["flows"])

    @property
    def groups(self) -> pd.DataFrame:
        """One row per large flow group (``name``, ``flows``, ``goodput_bps_mean``, ...)."""
        return _frame(self.summary.get("groups", []))

    @property
    def queries(self) -> pd.DataFrame:
        """One row per incast entry (``name``, ``queries_completed``, ``qct_p99_s``, ...)."""
        return _frame(self.summary.get("queries", []))

    @property
    def queues(self) -> pd.DataFrame:
        """One row per link queue (``link``, ``arrivals``, ``marks``, ...)."""
        return _frame(self.summary["queues"])

    @property
    def links(self) -> pd.DataFrame:
        """One row per link (``name``, ``utilization``, ...)."""
        return _frame(self.summary["links"])

    @property
    def timeseries(self) -> pd.DataFrame:
        """Sampled queues, long form: ``link``, ``t_s``, ``qlen_pkts``, ``avg_pkts``, ``delay_ms``, ``prob``."""
        return self._series(timeseries.QUEUES_FILE, ["link", "t_s", *timeseries.QUEUE_COLUMNS])

    @property
    def flow_timeseries(self) -> pd.DataFrame:
        """Sampled senders, long form: ``flow``, ``t_s``, ``cwnd_bytes``, ``ssthresh_bytes``,
        ``srtt_ms``, ``in_flight_bytes``, ``delivered_bytes`` and, simulated, ``dctcp_alpha``,
        ``cubic_w_max_segments``, ``cubic_epoch_s``."""
        return self._series(timeseries.FLOWS_FILE, ["flow", "t_s", *timeseries.FLOW_COLUMNS])

    @property
    def sojourn(self) -> pd.DataFrame:
        """Router queues' sojourn histograms after the warm-up, one row per bucket: ``link``,
        ``class``, ``flow``, ``value_ns``, ``count`` (``distributions.py``)."""
        return self._series(distributions.SOJOURN_FILE, [*distributions.SOJOURN_KEYS, "value_ns", "count"])

    def _series(self, name: str, columns: list[str]) -> pd.DataFrame:
        """The table in memory (a run just made), else the run directory's Parquet file (a
        result read back), else an empty frame with the table's columns."""
        import pandas as pd

        if name in self.series:
            return self.series[name].to_pandas()
        if self.out is not None and (self.out / name).is_file():
            return pd.read_parquet(self.out / name)
        return pd.DataFrame(columns=columns)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame.from_records(rows)


def load_result(path: str | Path) -> RunResult:
    """A result directory (or its summary.json) read back; checks ``format_version``."""
    from ecnlab.arguments import as_path

    p = as_path(path, "path")
    file = p / SUMMARY_FILE if p.is_dir() else p
    return RunResult(read_summary(file), file.parent)


# What every summary.json holds (simulated or emulated), and the JSON type of each.
_SUMMARY_SHAPE = {"scenario": dict, "flows": list, "queues": list, "links": list}
_JSON_NAME = {dict: "object", list: "array"}


def read_summary(file: Path) -> dict[str, Any]:
    """A summary.json read and checked: a JSON object of this ``format_version`` with the records
    every summary has. A missing, truncated or foreign file raises ResultError naming it."""
    from ecnlab.errors import MissingResultError, ResultError

    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MissingResultError(file, "missing (not an ecnlab result)") from None
    except IsADirectoryError:
        raise ResultError(file, f"is a directory, not an ecnlab result (no {SUMMARY_FILE} in it)") from None
    except UnicodeDecodeError as e:
        raise ResultError(file, f"damaged: not UTF-8 ({e.reason})") from None
    except OSError as e:
        raise ResultError(file, f"cannot be read ({e.strerror or e})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultError(file, f"damaged: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(doc, dict):
        raise ResultError(file, "not an ecnlab summary (a JSON object is expected)")
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise ResultError(file, f"format_version {version!r} is not supported (this ecnlab reads {FORMAT_VERSION})")
    for key, kind in _SUMMARY_SHAPE.items():
        if not isinstance(doc.get(key), kind):
            raise ResultError(file, f"not an ecnlab summary: {key!r} is missing or not a JSON {_JSON_NAME[kind]}")
    return doc

"""Type stubs for the PyO3 extension ``ecnlab._core`` (crates/py)."""

import os
from typing import Any

class EngineError(Exception):
    """The engine rejected its input or failed during a run."""

class SpecError(EngineError):
    """A run's input broke one of the engine's rules: ``args`` is ``(field, value, allowed)``, as
    :func:`check_spec` returns it."""

    args: tuple[str, str, str]

def parse_toml(text: str) -> dict[str, Any] | None: ...
def dumps_indented(value: Any) -> str: ...
def dumps_compact(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)``."""

class RecordsText:
    """A run's ``flows`` list as ``summary.json`` holds it, made by the engine (``run_split``)."""

def dumps_indented_file(value: Any, records: RecordsText | None = None) -> bytes:
    """``dumps_indented(value) + "\\n"`` as UTF-8 bytes: a JSON file's contents; ``records``' text
    written for its list (the same bytes)."""

def write_indented_file(path: str | os.PathLike[str], value: Any, records: RecordsText | None = None) -> None:
    """Write ``dumps_indented_file(value, records)`` into the file ``path`` (created or emptied), in
    pieces; an operating-system error raises ``OSError`` with its ``errno``."""

def version() -> str:
    """The ecnlab version the extension was built from."""

def run(spec_json: str) -> str:
    """Run one simulation (``SimSpec`` JSON in, result JSON out), with the GIL released."""

def run_split(
    spec_json: str,
) -> tuple[
    dict[str, Any],
    dict[str, Any],
    dict[str, Any],
    list[tuple[str, str, bytes, bytes | None, bytes | None]] | None,
    RecordsText | None,
]:
    """As ``run``, with the time series apart as columns: (the result without ``timeseries``, as
    the dict ``json.loads`` makes of ``run``'s JSON, built without the text; queue columns, flow
    columns, flow table); each column set has ``names``, ``counts`` and every column as
    little-endian f64 bytes (null = NaN). The flow table is None unless an entry makes more than
    1000 flows: then every flow's results as ``(name, arrow type, data, offsets, valid)``
    (``flowtable.py``) and the result holds only the smaller entries' flow records. Last, the
    result's ``flows`` list as ``summary.json`` holds it (for ``write_indented_file``), or None."""

def default_tcp_config(personality: str | None = None) -> str:
    """The engine's ``TcpConfig`` of a personality with no field set (``rfc`` by default) as JSON."""

def check_queue(queue_json: str) -> tuple[str, str, str] | None:
    """The engine's check of one queue (``QueueConfig`` JSON): None, or (field, value, allowed)."""

def check_tcp(tcp_json: str) -> tuple[str, str, str] | None:
    """The engine's check of one ``TcpConfig`` (JSON): None, or (field, value, allowed)."""

def check_spec(spec_json: str) -> tuple[str, str, str] | None:
    """The engine's check of a whole ``SimSpec`` (JSON): None, or (engine field path, value, allowed)."""

def tcp_personalities() -> str:
    """The TCP personalities as JSON, in order: [[name, {TcpConfig field: value}], ...] (personality.rs)."""

def summary_schema() -> str:
    """The summary's record keys as JSON: {"sim"|"flow"|"queue"|"link": {"keys": [...], "optional": [...]}}."""

def scenario_schema() -> str:
    """Every scenario key the engine accepts, as JSON: {"tcp": {"keys", "knobs"}, "queue": {"kinds"}}."""

def queue_replay(queue_json: str, ops_json: str, seed: int) -> str:
    """Replay a script of ops through one queue; the events as JSON (crates/aqm/src/replay.rs)."""

def queue_churn(queue_json: str, flows: int, backlog: int, packets: int) -> tuple[float, int]:
    """ns per arrival+departure of one queue at a steady backlog, and the packets that left."""

def flow_start_ns(seed: int, flow_index: int, start_ns: int, spread_ns: int) -> int:
    """A flow's start as the engine draws it (``start`` = "A..B": A plus a draw on the flow's stream)."""

def router_main(argv: list[str]) -> int:
    """The live-emulation router in this process (Linux builds only; python -m ecnlab.emu.router)."""

class WebSource:
    """The simulator's web application model with a flow's own RNG stream (crates/py)."""

    def __init__(self, params_json: str, seed: int, flow_index: int, start_ns: int, spread_ns: int = 0) -> None: ...
    def start(self, now_ns: int) -> tuple[int, int, int | None]:
        """Open the earliest scheduled connection: (connection number, response bytes, when the following
        session arrives or None)."""
    def done(self, conn: int, now_ns: int) -> int | None:
        """Connection ``conn``'s object arrived: when the session's next connection starts, or None."""
    def request_bytes(self) -> int: ...
    def summary_json(self) -> str:
        """The engine's per-flow web result (``WebOut``) as JSON."""

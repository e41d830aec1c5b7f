"""A stand-in for ``ecnlab._core`` that answers in the engine's result format without simulating.

Used to test the Python side (summary, report, output directories) in
isolation; the real engine is exercised by the ``engine``-marked tests.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any


class EngineError(Exception):
    """Mirror of ``ecnlab._core.EngineError``."""


class FakeCore:
    """``run`` returns deterministic numbers derived from the spec; ``fail`` makes it raise.

    The parameter checks (``check_tcp``, ``check_queue``, ``check_spec``), ``summary_schema``, the
    TCP tables (``default_tcp_config``, ``tcp_personalities``), the scenario keys
    (``scenario_schema``) and the JSON writers (``dumps_compact`` and the rest) are the real
    engine's: they are the scenario front's validation, its defaults, the result's key list and
    the engine input's text, not a simulation; whatever the fake does not define is the real
    engine's, so a test does not depend on another having filled a cache first."""

    EngineError = EngineError

    def __init__(self, fail: str | None = None) -> None:
        from ecnlab import _core as real

        self.fail = fail
        self.specs: list[dict[str, Any]] = []
        self.check_tcp = real.check_tcp
        self.check_queue = real.check_queue
        self.check_spec = real.check_spec
        self.dumps_compact = real.dumps_compact
        self.summary_schema = real.summary_schema
        self.default_tcp_config = real.default_tcp_config
        self.tcp_personalities = real.tcp_personalities
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def version(self) -> str:
        return "0.0.0-fake"

    def run(self, spec_json: str) -> str:
        spec = json.loads(spec_json)
        self.specs.append(spec)
        if spec.get("pcap_dir"):
            for link in spec["links"]:
                if link["pcap"]:
                    (Path(spec["pcap_dir"]) / (link["name"].replace("->", "-") + ".pcap")).write_bytes(b"")
        if self.fail:
            raise EngineError(self.fail)
        return json.dumps(fake_output(spec))

    def run_split(self, spec_json: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], None, None]:
        """``run`` with the time series as the engine's columns (``_core.run_split``; no flow
        table: the fake makes no large group; no records' text: the summary's writer walks them)."""
        out = json.loads(self.run(spec_json))
        ts = out.pop("timeseries")
        return out, _columns(ts["queue"], "link"), _columns(ts["flow"], "flow"), None, None


def _columns(series: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The engine's column form: names, counts, each column as little-endian f64 bytes (null = NaN)."""
    from ecnlab.timeseries import ENGINE_FLOW_COLUMNS, QUEUE_COLUMNS

    cols: dict[str, Any] = {"names": [s[key] for s in series], "counts": [len(s["t_s"]) for s in series]}
    for c in ("t_s", *(QUEUE_COLUMNS if key == "link" else ENGINE_FLOW_COLUMNS)):
        values = [v for s in series for v in s.get(c) or [None] * len(s["t_s"])]
        cols[c] = struct.pack(f"<{len(values)}d", *(float("nan") if v is None else v for v in values))
    return cols


def _flows(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry's flows as the engine expands them: ``count`` per (src, dst) pair, ids
    ``id_1`` … when an entry makes more than one."""
    out = []
    for e in entries:
        src, dst = ([h] if isinstance(h, str) else h for h in (e["src"], e["dst"]))
        pairs = [
            (src[0 if len(src) == 1 else k], dst[0 if len(dst) == 1 else k]) for k in range(max(len(src), len(dst)))
        ]
        hosts = [p for p in pairs for _ in range(e.get("count", 1))]
        for k, (a, b) in enumerate(hosts):
            out.append({**e, "id": e["id"] if len(hosts) == 1 else f"{e['id']}_{k + 1}", "src": a, "dst": b})
    return out


def fake_output(spec: dict[str, Any]) -> dict[str, Any]:
    """A result in the engine's format (every record built from ``ecnlab.schema``, the engine's
    own key list; keys given no number here are null): numbers depend only on the spec."""
    from ecnlab.lower import engine_tcp_config
    from ecnlab.schema import record

    dur = spec["duration_ns"] / 1e9

    def steady(whole: int, after: int) -> int:
        """A count after the warm-up: the whole run's without one."""
        return after if spec.get("warmup_ns") else whole

    routers = {n["name"] for n in spec["nodes"] if n["kind"] == "router"}
    flows = [
        record("flow", {
            "id": f["id"],
            "kind": f["app"]["kind"],
            "src": f["src"],
            "dst": f["dst"],
            "ecn": engine_tcp_config(f["tcp"])["ecn"] != "off",
            "ecn_negotiated": engine_tcp_config(f["tcp"])["ecn"] != "off",
            "cc": engine_tcp_config(f["tcp"])["cc"],
            "recovery": engine_tcp_config(f["tcp"])["recovery"],
            "start_s": f["start_ns"] / 1e9,
            "connections": 1,
            "bytes_delivered": 100_000 * (i + 1),
            "goodput_bps": 100_000.0 * (i + 1),
            "data_packets_sent": 70,
            "retransmits": i,
            "fast_retransmits": i,
            "timeouts": 0,
            "ecn_reductions": 2 if engine_tcp_config(f["tcp"])["ecn"] != "off" else 0,
            "ce_received": 2,
            "ece_sent": 2,
            "cwr_sent": 2,
            "acks_sent": 40,
            "completion_time_s": None,
            "transactions": None,
            "transfer_times_s": [],
            "bytes_delivered_after_warmup": steady(100_000 * (i + 1), 80_000 * (i + 1)),
            "data_packets_sent_after_warmup": steady(70, 56),
            "retransmits_after_warmup": i,
            "fast_retransmits_after_warmup": i,
            "timeouts_after_warmup": 0,
            "ecn_reductions_after_warmup": steady(2, 1) if engine_tcp_config(f["tcp"])["ecn"] != "off" else 0,
            "ce_received_after_warmup": steady(2, 1),
            "pkts_dropped_after_warmup": 0,
        })
        for i, f in enumerate(_flows(spec["flows"]))
    ]  # fmt: skip
    queues = []
    for link in spec["links"]:
        core = link["from"] in routers and link["to"] in routers
        queues.append(
            record("queue", {
                "link": link["name"],
                "arrivals": 100 if link["from"] in routers else 0,
                "enqueued": 95,
                "dequeued": 95,
                "marks": 3 if core else 0,
                "early_drops": 1 if core else 0,
                "early_drops_ect": 0,
                "quenches": 0,
                "dequeue_drops": 0,
                "dequeue_marks": 0,
                "step_marks": 0,
                "forced_drops": 0,
                "overflow_drops": 1 if core else 0,
                "avg_qlen_pkts": 4.25,
                "max_qlen_pkts": 12,
                "avg_qlen_bytes": 6375.0,
                "arrivals_after_warmup": steady(100, 80) if link["from"] in routers else 0,
                "enqueued_after_warmup": steady(95, 76),
                "dequeued_after_warmup": steady(95, 76),
                "marks_after_warmup": steady(3, 2) if core else 0,
                "early_drops_after_warmup": 1 if core else 0,
                "forced_drops_after_warmup": 0,
                "overflow_drops_after_warmup": steady(1, 0) if core else 0,
            })
        )  # fmt: skip
    links = [
        record("link", {
            "name": link["name"],
            "from": link["from"],
            "to": link["to"],
            "rate_bps": link["rate_bps"],
            "delay_s": link["delay_ns"] / 1e9,
            "packets": 100,
            "bytes": 150_000,
            "utilization": 0.5,
            "random_losses": 0,
            "fault_drops": 0,
            "fault_marks": 0,
        })
        for link in spec["links"]
    ]  # fmt: skip
    series: list[dict[str, Any]] = []
    flow_series: list[dict[str, Any]] = []
    if spec["sample_interval_ns"]:
        series = [
            {
                "link": name,
                "t_s": [0.0, 0.1],
                "qlen_pkts": [0, 2],
                "avg_pkts": [None, None],
                "delay_ms": [0.0, 1.5],
                "marks": [0, 1],
                "drops": [0, 0],
            }
            for name in spec["timeseries_links"]
        ]
        ids = spec["timeseries_flows"] or [f["id"] for f in _flows(spec["flows"])]
        flow_series = [
            {
                "flow": fid,
                "t_s": [0.0, 0.1],
                "cwnd_bytes": [None, 2920],
                "ssthresh_bytes": [None, None],
                "srtt_ms": [None, 41.0],
                "in_flight_bytes": [None, 1460],
                "delivered_bytes": [0, 1460],
            }
            for fid in ids
        ]
    return {
        "sim": record("sim", {"sim_time_s": dur, "events": 1000, "packets_forwarded": 500}),
        "flows": flows,
        "queues": queues,
        "links": links,
        "timeseries": {"queue": series, "flow": flow_series},
    }

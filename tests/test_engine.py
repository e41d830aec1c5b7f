"""End to end through the real engine (``ecnlab._core`` → ``ecnlab_sim::run_json``)."""

from __future__ import annotations

import json
import re
import threading
import time
import tomllib
from pathlib import Path

import pytest

import ecnlab
from conftest import SCENARIOS, SMALL, run_cli
from ecnlab.lower import engine_spec, engine_tcp_config, tcp_engine
from ecnlab.model import TcpSpec
from ecnlab.schema import problems
from ecnlab.timeseries import read_flows, read_queues

pytestmark = pytest.mark.engine

# The documented contract: keys users' scripts read.

FLOW_KEYS = {
    "id",
    "kind",
    "src",
    "dst",
    "ecn",
    "ecn_negotiated",
    "cc",
    "recovery",
    "start_s",
    "connections",
    "bytes_delivered",
    "goodput_bps",
    "data_packets_sent",
    "retransmits",
    "fast_retransmits",
    "timeouts",
    "ecn_reductions",
    "ce_received",
    "ece_sent",
    "cwr_sent",
    "acks_sent",
    "completion_time_s",
    "transactions",
}
QUEUE_KEYS = {
    "link",
    "arrivals",
    "enqueued",
    "dequeued",
    "marks",
    "early_drops",
    "forced_drops",
    "overflow_drops",
    "avg_qlen_pkts",
    "max_qlen_pkts",
    "avg_qlen_bytes",
    "dequeue_drops",
    "dequeue_marks",
    "step_marks",
    "sojourn_p50_ms",
    "sojourn_p99_ms",
    "sojourn_p999_ms",
}
LINK_KEYS = {
    "name",
    "from",
    "to",
    "rate_bps",
    "delay_s",
    "packets",
    "bytes",
    "utilization",
    "random_losses",
    "fault_drops",
    "fault_marks",
}


def test_extension_metadata() -> None:
    from ecnlab import _core

    assert _core.version() == ecnlab.__version__
    assert issubclass(_core.EngineError, Exception)


def test_documented_tcp_defaults_are_the_engines() -> None:
    """The front's TcpSpec with a personality's rules lowers to that personality alone: every
    default the front documents is the engine's, for every personality."""
    from dataclasses import replace

    from ecnlab import _core
    from ecnlab.tcp_personalities import TCP_PERSONALITIES

    for name, rules in TCP_PERSONALITIES.items():
        t = replace(TcpSpec(), personality=name, **rules)
        assert tcp_engine(t) == {"personality": name}, name
        assert engine_tcp_config(tcp_engine(t)) == json.loads(_core.default_tcp_config(name))


def test_engine_rejects_what_the_front_would_not_send() -> None:
    from ecnlab import _core

    spec = engine_spec(ecnlab.load_scenario(tomllib.loads(SMALL)))
    spec["bogus"] = 1
    with pytest.raises(_core.EngineError, match="bogus"):
        _core.run(json.dumps(spec))


def test_cli_run_end_to_end(tmp_path: Path, small: Path) -> None:
    r = run_cli(
        "run",
        "s.toml",
        "--out",
        "res",
        "--set",
        "sample_interval=100ms",
        "--set",
        'output.pcap=["R1->R2"]',
        cwd=tmp_path,
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert "bulk0_10" in r.stdout and "Jain fairness" in r.stdout
    out = tmp_path / "res"
    assert sorted(p.name for p in out.iterdir()) == [
        "R1-R2.pcap",
        "sojourn.parquet",
        "summary.json",
        "timeseries-flows.parquet",
        "timeseries-queues.parquet",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res", "s.toml"]
    s = json.loads((out / "summary.json").read_text())
    assert s["format_version"] == 1 and s["ecnlab_version"] == ecnlab.__version__
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", s["git_commit"])
    assert s["seed"] == 1 and s["scenario"]["seed"] == 1
    assert set(s["sim"]) >= {"sim_time_s", "events", "packets_forwarded", "wall_s"}
    assert s["sim"]["sim_time_s"] == 5.0
    assert [f["id"] for f in s["flows"]] == [f"bulk0_{i}" for i in range(1, 11)]
    for f in s["flows"]:
        assert FLOW_KEYS <= set(f), FLOW_KEYS - set(f)
        assert problems("flow", f) == []
    for q in s["queues"]:
        assert QUEUE_KEYS <= set(q), QUEUE_KEYS - set(q)
        assert problems("queue", q) == []
        drops = q["early_drops"] + q["forced_drops"] + q["overflow_drops"]
        assert q["arrivals"] == q["enqueued"] + drops - q["dequeue_drops"]
    for link in s["links"]:
        assert LINK_KEYS <= set(link), LINK_KEYS - set(link)
        assert problems("link", link) == []
    assert len(s["queues"]) == len(s["links"]) == 42
    assert 0.0 < s["fairness"] <= 1.0
    assert "timeseries" not in s  # Parquet beside summary.json (timeseries.py)
    queues, flows = read_queues(out), read_flows(out)
    assert sorted(set(queues["link"])) == ["R1->R2", "R2->R1"]  # the core links by default
    assert len(queues[queues["link"] == "R1->R2"]) == 51  # t = 0, 0.1, ..., 5.0 s
    assert sorted(set(flows["flow"])) == sorted(f["id"] for f in s["flows"])
    last = flows.groupby("flow")["delivered_bytes"].last()
    assert all(last[f["id"]] == f["bytes_delivered"] for f in s["flows"])
    assert flows["cwnd_bytes"].dropna().min() >= 1460
    assert (out / "R1-R2.pcap").read_bytes()[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond pcap, little-endian


def test_summary_is_byte_identical_apart_from_wall_time(tmp_path: Path, small: Path) -> None:
    texts = []
    for name in ("a", "b"):
        r = run_cli("run", "s.toml", "--out", name, "--quiet", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        text = (tmp_path / name / "summary.json").read_text()
        texts.append(re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', text))
        assert texts[-1] != text
    assert texts[0] == texts[1]


def test_seed_changes_the_run(tmp_path: Path) -> None:
    data = tomllib.loads(SMALL)
    a = ecnlab.run(data, seed=1).summary
    b = ecnlab.run(data, seed=2).summary
    assert a["seed"] == 1 and b["seed"] == 2
    assert a["flows"] != b["flows"] or a["queues"] != b["queues"]


# scenarios/sweep-*.toml are sweep files (docs/sweeps.md), run by tests/test_sweep_run.py
@pytest.mark.parametrize(
    "scenario", sorted(p.name for p in SCENARIOS.glob("*.toml") if not p.name.startswith("sweep-"))
)
def test_every_example_scenario_runs(tmp_path: Path, scenario: str) -> None:
    result = ecnlab.run(SCENARIOS / scenario, out=tmp_path / "out")
    s = result.summary
    assert s["scenario"]["name"] == Path(scenario).stem
    assert sum(f["bytes_delivered"] for f in s["flows"]) > 0
    pcaps = sorted(p.name for p in (tmp_path / "out").glob("*.pcap"))
    assert pcaps == sorted(link.replace("->", "-") + ".pcap" for link in s["scenario"]["output"]["pcap"])
    assert len(result.flows) == len(s["flows"]) and "goodput_bps" in result.flows


def test_run_releases_the_gil() -> None:
    data = tomllib.loads(SMALL)
    data["duration"] = "300s"
    data["topology"]["bottleneck_rate"] = "20Mbit"
    ticks = 0
    done = threading.Event()

    def work() -> None:
        ecnlab.run(data)
        done.set()

    t = threading.Thread(target=work)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0)
    t.join()
    elapsed = time.perf_counter() - start
    # 300 s of a 20 Mbit/s dumbbell is some 500 000 packets: the engine works for a good part of a
    # second at least, and with the GIL held for the whole run this loop could not spin meanwhile.
    assert elapsed > 0.05, f"the run took {elapsed:.3f} s: too short to tell"
    assert ticks > 100, (elapsed, ticks)

"""DCTCP (RFC 8257) through the scenario front and the engine: the example scenario keeps
the step-marked queue near K at full utilisation and reports α; the scenario keys are
checked with errors that name the key. The rule-by-rule tests are in
crates/tcp/src/cc/dctcp.rs and crates/tcp/tests/dctcp.rs."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest

import ecnlab
from conftest import ROOT
from ecnlab.config import parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.resolve import tcp_resolved

EXAMPLE = ROOT / "scenarios" / "dumbbell-dctcp.toml"
K = 20


@pytest.mark.engine
def test_example_holds_the_queue_near_k_at_full_utilisation(tmp_path: Path) -> None:
    """Alizadeh et al. 2010 §3: DCTCP keeps the queue around the marking threshold K while
    the link stays busy; 10 flows, 1 Gbit/s, K = 20 packets."""
    res = ecnlab.run(EXAMPLE, out=tmp_path / "r")
    q = next(q for q in res.summary["queues"] if q["link"] == "R1->R2")
    link = next(lk for lk in res.summary["links"] if lk["name"] == "R1->R2")
    assert 0.7 * K <= q["avg_qlen_pkts"] <= 1.3 * K, q["avg_qlen_pkts"]
    assert link["utilization"] > 0.98
    assert q["early_drops"] + q["overflow_drops"] + q["forced_drops"] == 0, "marks, not drops"
    flows = res.summary["flows"]
    assert {f["cc"] for f in flows} == {"dctcp"} and all(f["ecn_negotiated"] for f in flows)
    alphas = [f["dctcp_alpha"] for f in flows]
    assert all(0.0 < a < 1.0 for a in alphas), alphas
    s = res.flow_timeseries
    a = s["dctcp_alpha"].dropna()
    assert len(a) > 0.9 * len(s) and a.between(0.0, 1.0).all()


def _tcp(tcp: dict[str, object]) -> dict[str, object]:
    """The example with its [tcp] table replaced."""
    return {**tomllib.loads(EXAMPLE.read_text()), "tcp": tcp}


def test_cc_dctcp_turns_on_ecn_and_the_two_segment_floor() -> None:
    sc = parse_scenario(_tcp({"cc": "dctcp"}))
    t = tcp_resolved(sc.flows[0].tcp)
    assert (t["cc"], t["ecn"], t["ecn_min_cwnd"], t["dctcp_shift_g"], t["dctcp_ect"]) == ("dctcp", True, 2, 4, 0)


@pytest.mark.parametrize(
    ("tcp", "key", "words"),
    [
        ({"cc": "dctcp", "ecn": False}, "tcp.ecn", "cc = dctcp"),
        ({"cc": "dctcp", "ecn_min_cwnd": 1}, "tcp.ecn_min_cwnd", "cc = dctcp"),
        ({"cc": "reno", "dctcp_ect": 1}, "tcp.dctcp_ect", "unless cc = dctcp"),
        ({"cc": "dctcp", "dctcp_shift_g": 17}, "tcp.dctcp_shift_g", "16"),
        ({"cc": "dctcp", "dctcp_ect": 2}, "tcp.dctcp_ect", "1"),
    ],
)
def test_bad_dctcp_settings_name_the_key(tcp: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_tcp(tcp))
    assert str(err.value).startswith(key), str(err.value)
    assert words in str(err.value)


@pytest.mark.engine
def test_ect1_option_reaches_the_wire() -> None:
    """tcp.dctcp_ect = 1: the step marker still marks (any ECT), α is still computed."""
    res = ecnlab.run(_tcp({"cc": "dctcp", "dctcp_ect": 1, "personality": "linux", "recovery": "sack"}))
    q = next(q for q in res.summary["queues"] if q["link"] == "R1->R2")
    assert q["marks"] > 0 and not math.isnan(res.summary["flows"][0]["dctcp_alpha"])


@pytest.mark.engine
@pytest.mark.slow  # ns-3 beside the engine
def test_against_ns3_tcpdctcp_at_1gbit_k20(tmp_path: Path) -> None:
    """DCTCP against ns-3 (docs/senders.md): the step-marked dumbbell at 1 Gbit/s, K = 20,
    in its short form (1 s, 0.25 s warm-up): ecnlab's average queue, α and goodput within
    10 % of ns-3's TcpDctcp (ns-3 about 5 s). Skipped without libns3-dev."""
    from ecnlab.bench import dctcp

    why = dctcp.ns3_missing()
    if why is not None:
        pytest.skip(why)
    case = dctcp.CASES["1G-K20"]
    ours = dctcp.run_ecnlab(case, quick=True)
    cmp = dctcp.compare(case, ours, dctcp.run_ns3(case, ours, tmp_path))
    for key in ("avg_qlen_pkts", "alpha", "goodput_frac"):
        assert abs(cmp[key][2]) <= 0.10, (key, cmp[key])


def test_linux_personality_uses_linux_dctcp_arithmetic() -> None:
    """`tcp.dctcp_arith`: the linux personality computes as tcp_dctcp.c; a key beside it wins."""
    sc = parse_scenario(_tcp({"cc": "dctcp", "personality": "linux"}))
    assert tcp_resolved(sc.flows[0].tcp)["dctcp_arith"] == "linux"
    assert tcp_resolved(parse_scenario(_tcp({"cc": "dctcp"})).flows[0].tcp)["dctcp_arith"] == "rfc8257"
    given = parse_scenario(_tcp({"cc": "dctcp", "personality": "linux", "dctcp_arith": "rfc8257"}))
    assert tcp_resolved(given.flows[0].tcp)["dctcp_arith"] == "rfc8257"


@pytest.mark.engine
def test_whole_segment_cuts_keep_the_window_higher(tmp_path: Path) -> None:
    """Linux's dctcp_ssthresh cuts ⌊cwnd·α/2⌋ whole segments: with windows of a few dozen
    segments (4 flows, 10 Mbit/s, 20 ms, K = 20) each cut is about half a segment smaller
    than RFC 8257's in bytes, so the queue sits higher and crosses K more often (docs/emulation.md's
    DCTCP grid runs this arithmetic beside the kernel's)."""
    base = {
        "name": "dctcp-arith",
        "duration": "12s",
        "warmup": "2s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "access_rate": "1Gbit",
            "access_delay": "0s",
            "bottleneck_rate": "10Mbit",
            "bottleneck_delay": "10ms",
            "bottleneck_queue": {"kind": "step", "limit": 1000, "threshold": K, "ecn": True},
        },
        "flows": [{"name": "bulk", "from": "s1", "to": "r1", "count": 4}],
    }
    marks, queue = {}, {}
    for arith in ("rfc8257", "linux"):
        tcp = {"personality": "linux", "recovery": "sack", "cc": "dctcp", "dctcp_arith": arith}
        res = ecnlab.run({**base, "tcp": tcp}, out=tmp_path / arith)
        q = next(q for q in res.summary["queues"] if q["link"] == "R1->R2")
        marks[arith], queue[arith] = q["marks"], q["avg_qlen_pkts"]
    assert marks["linux"] > 1.05 * marks["rfc8257"], marks
    assert queue["linux"] > queue["rfc8257"], queue

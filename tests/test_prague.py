"""TCP Prague (RFC 9331 §4; crates/tcp/src/cc/prague.rs) through the scenario front and the
engine: the defaults ``cc = "prague"`` turns on, the errors that name the key, and what the
example scenario shows — Prague in DualPI2's L queue keeps its sojourn low beside CUBIC in the C
queue without starving either. The rule-by-rule tests are in crates/tcp/src/cc/prague_tests.rs
and crates/tcp/tests/prague.rs."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import pytest

import ecnlab
from conftest import ROOT
from ecnlab import _core
from ecnlab.config import load_scenario, parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, tcp_engine
from ecnlab.resolve import tcp_resolved

EXAMPLE = ROOT / "scenarios" / "dumbbell-prague.toml"


def _flows(res: ecnlab.RunResult, prefix: str) -> list[dict]:  # type: ignore[type-arg]
    return [f for f in res.summary["flows"] if f["id"].startswith(prefix)]


@pytest.mark.engine
def test_example_prague_and_cubic_share_dualpi2(tmp_path: Path) -> None:
    """RFC 9332 §1 / RFC 9331 §4: Prague (ECT(1), AccECN, pacing) in the L queue and CUBIC in
    the C queue share the link, neither starved (the coupling aims at about equal windows),
    with the link busy; Prague reports α."""
    res = ecnlab.run(EXAMPLE, out=tmp_path / "r")
    prague, cubic = _flows(res, "prague"), _flows(res, "cubic")
    assert {f["cc"] for f in prague} == {"prague"} and all(f["ecn_negotiated"] for f in prague)
    assert all(0.0 < f["dctcp_alpha"] < 1.0 for f in prague)
    assert all(f["ecn_reductions"] > 0 for f in prague + cubic)
    ratio = sum(f["goodput_bps"] for f in prague) / sum(f["goodput_bps"] for f in cubic)
    assert 0.5 < ratio < 3.0, ratio
    link = next(lk for lk in res.summary["links"] if lk["name"] == "R1->R2")
    assert link["utilization"] > 0.95


@pytest.mark.engine
def test_prague_alone_keeps_the_l_queue_short(tmp_path: Path) -> None:
    """RFC 9331 §1: with an L4S AQM the scalable sender keeps the queue at about a millisecond
    while using the link: four Prague flows alone through DualPI2 at 50 Mbit/s."""
    raw = tomllib.loads(EXAMPLE.read_text())
    raw["flows"] = [{**raw["flows"][0], "from": "s*", "to": "r*"}]
    res = ecnlab.run(raw, out=tmp_path / "r")
    q = next(q for q in res.summary["queues"] if q["link"] == "R1->R2")
    link = next(lk for lk in res.summary["links"] if lk["name"] == "R1->R2")
    assert link["utilization"] > 0.95
    assert q["sojourn_p99_ms"] < 2.0, q["sojourn_p99_ms"]
    assert q["early_drops"] + q["overflow_drops"] + q["forced_drops"] == 0


def _tcp(tcp: dict[str, object]) -> dict[str, object]:
    """The example with its [tcp] table replaced and one Prague flow group."""
    raw = tomllib.loads(EXAMPLE.read_text())
    return {**raw, "tcp": tcp, "flows": [{**raw["flows"][0], "tcp": {}}]}


def test_cc_prague_turns_on_accecn_ect_everywhere_and_pacing() -> None:
    sc = parse_scenario(_tcp({"cc": "prague"}))
    t = tcp_resolved(sc.flows[0].tcp)
    assert t["cc"] == "prague" and t["ecn"] == "accecn"
    assert (t["ecn_min_cwnd"], t["ect_all_packets"], t["pacing"], t["pacing_ss_ratio"], t["pacing_ca_ratio"]) == (
        2,
        True,
        True,
        200,
        100,
    )
    assert (t["prague_rtt_target"], t["prague_rtt_transition"], t["prague_classic_fallback"]) == (0.025, 4, False)
    assert (t["prague_version"], t["prague_fallback_fix"]) == ("v0.7", False)
    assert "prague_rtt_target" not in tcp_resolved(parse_scenario(_tcp({"cc": "reno"})).flows[0].tcp)


@pytest.mark.parametrize(
    ("tcp", "key", "words"),
    [
        ({"cc": "prague", "ecn": "classic"}, "tcp.ecn", "accecn with cc = prague"),
        ({"cc": "prague", "ecn": False}, "tcp.ecn", "accecn with cc = prague"),
        ({"cc": "prague", "ecn_min_cwnd": 1}, "tcp.ecn_min_cwnd", "cc = prague"),
        ({"cc": "reno", "prague_classic_fallback": True}, "tcp.prague_classic_fallback", "unless cc = prague"),
        ({"cc": "prague", "prague_rtt_target": "2s"}, "tcp.prague_rtt_target", "1 s"),
        ({"cc": "prague", "prague_rtt_transition": -1}, "tcp.prague_rtt_transition", ""),
        ({"cc": "prague", "prague_version": "v0.5"}, "tcp.prague_version", "v0.7"),
        ({"cc": "prague", "prague_fallback_fix": True}, "tcp.prague_fallback_fix", "unless prague_classic_fallback"),
        ({"cc": "reno", "prague_feedback": "dctcp"}, "tcp.prague_feedback", "accecn unless cc = prague"),
        ({"cc": "prague", "prague_feedback": "rfc3168"}, "tcp.prague_feedback", "dctcp"),
        ({"cc": "prague", "prague_feedback": "dctcp", "ecn": "accecn"}, "tcp.ecn", "with prague_feedback = dctcp"),
    ],
)
def test_bad_prague_keys_name_the_key(tcp: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(_tcp(tcp))
    assert key in str(e.value) and words in str(e.value), str(e.value)


@pytest.mark.engine
def test_prague_feedback_dctcp_negotiates_classic_ecn_and_stays_prague(tmp_path: Path) -> None:
    """``prague_feedback = "dctcp"`` (crates/tcp/src/cc/prague.rs): the same table's cc = prague turns on
    classic ECN instead of AccECN, and the flows run Prague (not ``prague-reno``) with ECN negotiated,
    reducing on the DCTCP-style echo of DualPI2's L-queue marks."""
    t = tcp_resolved(parse_scenario(_tcp({"cc": "prague", "prague_feedback": "dctcp"})).flows[0].tcp)
    assert (t["ecn"], t["prague_feedback"]) == (True, "dctcp")  # True: classic (resolve.py)
    assert tcp_resolved(parse_scenario(_tcp({"cc": "prague"})).flows[0].tcp)["prague_feedback"] == "accecn"
    raw = tomllib.loads(EXAMPLE.read_text())
    raw["flows"][0]["tcp"] = {"cc": "prague", "prague_feedback": "dctcp"}
    res = ecnlab.run({**raw, "duration": "4s", "warmup": "1s"}, out=tmp_path / "r")
    prague = _flows(res, "prague")
    assert prague and all(f["cc"] == "prague" and f["ecn_negotiated"] for f in prague)
    assert all(f["ecn_reductions"] > 0 and 0.0 < f["dctcp_alpha"] < 1.0 for f in prague)


def test_prague_version_reaches_the_engine_only_when_not_the_default() -> None:
    """v0.7 is TcpConfig::default()'s, so the engine JSON names only v0.6 (crates/tcp/src/config.rs)."""

    def engine(**keys: object) -> dict[str, object]:
        return tcp_engine(parse_scenario(_tcp({"cc": "prague", **keys})).flows[0].tcp)

    assert "prague_version" not in engine()
    v6 = engine(prague_version="v0.6", prague_classic_fallback=True)
    assert v6["prague_version"] == "v0.6" and "prague_fallback_fix" not in v6
    fixed = engine(prague_version="v0.6", prague_classic_fallback=True, prague_fallback_fix=True)
    assert fixed["prague_fallback_fix"] is True


def test_rtt_transition_is_the_versions_unless_set() -> None:
    """Each reference module's DEFAULT_RTT_TRANSITION (4 rounds in 0.7, 500 in 0.6) when the key is
    not set: the resolved scenario names the rounds run, the engine JSON only a transition set."""

    def both(**keys: object) -> tuple[object, dict[str, object]]:
        t = parse_scenario(_tcp({"cc": "prague", **keys})).flows[0].tcp
        return tcp_resolved(t)["prague_rtt_transition"], tcp_engine(t)

    assert both() == (4, {"personality": "rfc", **both()[1]})
    resolved, engine = both(prague_version="v0.6")
    assert resolved == 500 and "prague_rtt_transition" not in engine
    resolved, engine = both(prague_version="v0.6", prague_rtt_transition=4)
    assert resolved == 4 and engine["prague_rtt_transition"] == 4
    assert both(prague_version="v0.6", prague_rtt_transition=500) == (500, both(prague_version="v0.6")[1])


@pytest.mark.engine
def test_v06_default_transition_runs_as_500_rounds_set() -> None:
    """The engine's v0.6 default is the 500 rounds Python resolves (one table on each side): the
    engine spec of a v0.6 run, which leaves the transition out, runs as the same spec with 500 set,
    and not as one with 4 (12 ms paths, below the 25 ms target, where the transition decides when
    growth is scaled)."""
    sets = {"duration": "8s", "warmup": "2s", "topology.bottleneck_delay": "4ms", "tcp.prague_version": "v0.6"}
    sc = load_scenario(ROOT / "scenarios" / "dumbbell-prague.toml", overrides=sets)
    spec = engine_spec(sc)
    assert "prague_rtt_transition" not in spec["flows"][0]["tcp"]

    def flows(rounds: int | None) -> list[object]:
        s = copy.deepcopy(spec)
        if rounds is not None:
            s["flows"][0]["tcp"]["prague_rtt_transition"] = rounds
        return [(f["goodput_bps"], f["ecn_reductions"]) for f in json.loads(_core.run(json.dumps(s)))["flows"]]

    assert flows(None) == flows(500)
    assert flows(None) != flows(4)


@pytest.mark.engine
def test_v07_rate_counts_what_is_in_flight_not_what_a_loss_gave_up() -> None:
    """Ten v0.7 Prague flows through PIE, whose marking stops at 10 % and drops above: the rate
    that v0.7 derives from the window takes Linux's packets in flight (`tcp_packets_in_flight`:
    FlightSize less what is SACKed or lost), so a loss's reduction holds. Counting FlightSize
    instead undid every loss response and the flows collapsed (3 Mbit/s, Jain 0.43). Here one flow of
    the ten overshoots in slow start, times out five times and waits out the backed-off timer, so the
    check is the total and the median flow, not Jain's index."""
    pie = {"kind": "pie", "limit": 300, "ecn": True}
    sets = {"duration": "60s", "warmup": "20s", "topology.bottleneck_queue": pie}
    sets |= {"tcp.cc": "prague", "tcp.ecn": "accecn", "tcp.prague_version": "v0.7"}
    s = ecnlab.run(ROOT / "scenarios" / "dumbbell-cubic.toml", overrides=sets, seed=2).summary
    rates = sorted(f["goodput_bps"] for f in s["flows"])
    assert sum(rates) > 8.5e6 and rates[len(rates) // 2] > 0.8e6, rates

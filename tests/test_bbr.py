"""BBR (crates/tcp/src/cc/bbr.rs, bbr_v3.rs) through the scenario front and the engine: what
``cc = "bbr"`` turns on, the errors that name the key, and what the example scenarios show.
The rule-by-rule tests are in crates/tcp/src/cc/bbr_tests.rs, crates/tcp/src/rate_sample_tests.rs
and crates/tcp/tests/bbr.rs."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import ecnlab
from conftest import ROOT
from ecnlab.config import parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import tcp_engine
from ecnlab.resolve import tcp_resolved

FQ = ROOT / "scenarios" / "bbr-vs-cubic.toml"
RED = ROOT / "scenarios" / "bbr-vs-cubic-red-ecn.toml"


def _bbr_only(tcp: dict[str, object]) -> dict[str, object]:
    """The FQ-CoDel example with one BBR flow whose [flows.tcp] is ``tcp``."""
    raw = tomllib.loads(FQ.read_text())
    return {**raw, "flows": [{**raw["flows"][0], "tcp": tcp}]}


def test_cc_bbr_paces_and_resolves_its_knobs() -> None:
    t = tcp_resolved(parse_scenario(_bbr_only({"cc": "bbr"})).flows[0].tcp)
    assert (t["cc"], t["pacing"], t["bbr_version"], t["bbr_ecn_low"]) == ("bbr", True, "v1", False)
    assert "bbr_version" not in tcp_resolved(parse_scenario(_bbr_only({"cc": "cubic"})).flows[0].tcp)


def test_bbr_version_reaches_the_engine_only_when_not_the_default() -> None:
    def engine(**keys: object) -> dict[str, object]:
        return tcp_engine(parse_scenario(_bbr_only({"cc": "bbr", **keys})).flows[0].tcp)

    assert "bbr_version" not in engine() and engine()["cc"] == "bbr"
    v3 = engine(bbr_version="v3", bbr_ecn_low=True)
    assert (v3["bbr_version"], v3["bbr_ecn_low"]) == ("v3", True)


@pytest.mark.parametrize(
    ("tcp", "key", "words"),
    [
        ({"cc": "bbr", "bbr_version": "v2"}, "tcp.bbr_version", "v1, v3"),
        ({"cc": "bbr", "pacing": False}, "tcp.pacing", "true with cc = bbr"),
        ({"cc": "cubic", "bbr_version": "v3"}, "tcp.bbr_version", "unless cc = bbr"),
        ({"cc": "cubic", "bbr_ecn_low": True}, "tcp.bbr_ecn_low", "unless cc = bbr"),
    ],
)
def test_bad_bbr_keys_name_the_key(tcp: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(_bbr_only(tcp))
    assert key in str(e.value) and words in str(e.value), str(e.value)


@pytest.mark.engine
def test_bbr_v1_keeps_its_rate_against_cubic_under_red_ecn(tmp_path: Path) -> None:
    """BBRv1 negotiates ECN but its window ignores the marks: through RED with ECN it takes
    more than CUBIC, which halves on each; the link stays busy."""
    res = ecnlab.run(RED, out=tmp_path / "r")
    flows = {f["id"].split("_")[0]: f for f in res.summary["flows"]}
    bbr, cubic = flows["bbr"], flows["cubic"]
    assert bbr["cc"] == "bbr" and bbr["ecn_negotiated"] and bbr["ce_received"] > 0
    assert bbr["goodput_bps"] > cubic["goodput_bps"]
    link = next(lk for lk in res.summary["links"] if lk["name"] == "R1->R2")
    assert link["utilization"] > 0.95


@pytest.mark.engine
def test_bbr_runs_are_deterministic(tmp_path: Path) -> None:
    raw = tomllib.loads(FQ.read_text())
    raw["duration"], raw["warmup"] = "5s", "1s"
    raw["flows"][0]["tcp"] = {"cc": "bbr", "bbr_version": "v3", "bbr_ecn_low": True}
    a = ecnlab.run(raw, out=tmp_path / "a")
    b = ecnlab.run(raw, out=tmp_path / "b")
    # Everything but the wall-clock time the run took.
    for key in ("flows", "queues", "links"):
        assert a.summary[key] == b.summary[key], key
    assert a.summary["flows"][0]["goodput_bps"] > 0 and b.summary["flows"][0]["cc"] == "bbr"

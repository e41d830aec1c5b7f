"""``[[impairments]]`` end to end: each action on a link of a tiny dumbbell (under a second),
its count in the link's record and what the endpoints saw; the keys' checks; the lowering that
leaves scenarios without impairments as they were; ``emulate``'s limits."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

import ecnlab
from conftest import ROOT
from ecnlab import load_scenario
from ecnlab.emu.plan import make_plan
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, resolved_scenario

pytestmark = pytest.mark.engine


def scenario(ecn: Any, *impairments: dict[str, Any], queue: dict[str, Any] | None = None) -> dict[str, Any]:
    """One bulk flow ``f`` s1 → r1, 10 Mbit/s, 10 ms, 0.8 s; ``tcp.ecn = ecn``."""
    topo: dict[str, Any] = {
        "kind": "dumbbell",
        "pairs": 1,
        "access_rate": "100Mbit",
        "access_delay": "1ms",
        "bottleneck_rate": "10Mbit",
        "bottleneck_delay": "10ms",
    }
    if queue:
        topo["bottleneck_queue"] = queue
    return {
        "duration": "0.8s",
        "topology": topo,
        "tcp": {"variant": "sack", "ecn": ecn},
        "flows": [{"name": "f", "kind": "bulk", "from": "s1", "to": "r1"}],
        "impairments": list(impairments),
    }


def run(data: dict[str, Any], tmp_path: Any) -> dict[str, Any]:
    return ecnlab.run(data, out=tmp_path / "out").summary


def counts(summary: dict[str, Any], link: str) -> list[dict[str, Any]]:
    rec = next(lk for lk in summary["links"] if lk["name"] == link)
    return list(rec["impairments"])


RED_ECN = {"kind": "red", "limit": 100, "min_th": 5, "max_th": 30, "max_p": 0.1, "ecn": True}


def test_bleach_turns_marks_into_drops(tmp_path: Any) -> None:
    s = run(scenario(True, {"link": "s1->R1", "action": "bleach"}, queue=RED_ECN), tmp_path)
    c, f = counts(s, "s1->R1")[0], s["flows"][0]
    # Every first transmission left ECT(0) (a retransmission is Not-ECT, RFC 3168 §6.1.5).
    assert c["action"] == "bleach" and c["rewritten"] == f["data_packets_sent"] - f["retransmits"] > 0
    assert c["dropped"] == 0
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    assert q["marks"] == 0 and s["flows"][0]["ce_received"] == 0


def test_ce_all_marks_every_ect_packet_in_its_window(tmp_path: Any) -> None:
    s = run(scenario(True, {"link": "R1->R2", "action": "ce_all", "from": "0.2s", "until": "0.4s"}), tmp_path)
    c, f = counts(s, "R1->R2")[0], s["flows"][0]
    assert c["rewritten"] > 0 and f["ce_received"] == c["rewritten"] and f["ecn_reductions"] > 0
    s = run(scenario(False, {"link": "R1->R2", "action": "ce_all"}), tmp_path / "off")
    assert counts(s, "R1->R2")[0]["rewritten"] == 0, "Not-ECT packets are left alone"


@pytest.mark.parametrize(("first", "second"), [("ect0_to_ect1", "ect1_to_ect0")])
def test_ect_remarking(first: str, second: str, tmp_path: Any) -> None:
    s = run(scenario(True, {"link": "s1->R1", "action": first}, {"link": "R1->R2", "action": second}), tmp_path)
    a, b = counts(s, "s1->R1")[0], counts(s, "R1->R2")[0]
    assert a["rewritten"] > 0 and a["rewritten"] == b["rewritten"]


@pytest.mark.parametrize(("link", "action"), [("s1->R1", "drop_ecn_syn"), ("R2->R1", "drop_ecn_synack")])
def test_dropped_ecn_handshake_keeps_the_connection_closed(link: str, action: str, tmp_path: Any) -> None:
    s = run(scenario(True, {"link": link, "action": action}), tmp_path)
    assert counts(s, link)[0]["dropped"] >= 1
    assert s["flows"][0]["bytes_delivered"] == 0


@pytest.mark.parametrize("action", ["clear_ece", "zero_ace"])
def test_ece_cleared_on_the_acks_hides_the_marks(action: str, tmp_path: Any) -> None:
    data = scenario(True, {"link": "R1->R2", "action": "ce_all"}, {"link": "R2->R1", "action": action})
    s = run(data, tmp_path)
    f = s["flows"][0]
    assert counts(s, "R2->R1")[0]["rewritten"] > 0
    assert f["ce_received"] > 0 and f["ece_sent"] > 0 and f["ecn_reductions"] == 0


@pytest.mark.parametrize("action", ["strip_accecn_option", "zero_accecn_option"])
def test_accecn_option_impairments(action: str, tmp_path: Any) -> None:
    data = scenario("accecn", {"link": "R1->R2", "action": "ce_all"}, {"link": "R2->R1", "action": action})
    s = run(data, tmp_path)
    assert counts(s, "R2->R1")[0]["rewritten"] > 0
    assert s["flows"][0].get("accecn_ceb", 0) == 0


def test_fraction_and_flows_choose_packets_deterministically(tmp_path: Any) -> None:
    data = scenario(True, {"link": "R1->R2", "action": "ce_all", "fraction": 0.3, "flows": ["f"]})
    a, b = run(data, tmp_path / "a"), run(data, tmp_path / "b")
    assert a["links"] == b["links"] and a["flows"] == b["flows"]
    c = counts(a, "R1->R2")[0]
    sent = next(lk for lk in a["links"] if lk["name"] == "R1->R2")["packets"]
    assert 0 < c["rewritten"] < sent


def test_links_without_impairments_have_no_key(tmp_path: Any) -> None:
    s = run(scenario(True, {"link": "R1->R2", "action": "bleach"}), tmp_path)
    assert [lk["name"] for lk in s["links"] if "impairments" in lk] == ["R1->R2"]
    plain = scenario(True)
    del plain["impairments"]
    sc = load_scenario(plain)
    assert "impairments" not in engine_spec(sc) and "impairments" not in resolved_scenario(sc)


def test_resolved_scenario_loads_back_to_the_same_impairments() -> None:
    data = scenario(True, {"link": "R1->R2", "action": "ce_all", "fraction": 0.5, "from": "1ms", "flows": ["f"]})
    sc = load_scenario(data)
    again = load_scenario(resolved_scenario(sc))
    assert again.impairments == sc.impairments
    assert engine_spec(sc)["impairments"] == [
        {"link": "R1->R2", "action": "ce_all", "fraction": 0.5, "from_ns": 1_000_000, "flows": ["f"]}
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"link": "R1->R2"}, "impairments[0].action: required"),
        ({"link": "R1->R2", "action": "bleach", "frac": 1}, "impairments[0].frac: unknown key"),
        ({"link": "R1->R2", "action": "bleach", "fraction": 1.5}, "impairments[0].fraction = 1.5: must be in (0, 1]"),
        ({"link": "R1->R2", "action": "bleach", "flows": "f"}, 'impairments[0].flows = "f": must be a list of'),
        ({"link": "R1->R2", "action": "bleach", "until": 0}, "impairments[0].until = 0: must be after from (0 s)"),
    ],
)
def test_bad_entries_name_the_key(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(scenario(True, entry))
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_emulate_refuses_flows_and_takes_the_rest() -> None:
    with pytest.raises(ScenarioError, match=r"^impairments\[0\].flows = \[.f.\]: emulate applies"):
        make_plan(load_scenario(scenario(True, {"link": "R1->R2", "action": "bleach", "flows": ["f"]})))
    make_plan(load_scenario(scenario(True, {"link": "R1->R2", "action": "bleach"})))


def test_docs_example_is_valid() -> None:
    doc = (ROOT / "docs" / "scenario.md").read_text()
    block = next(b for b in doc.split("```toml\n")[1:] if b.startswith("[[impairments]]")).split("```")[0]
    data = scenario(True)
    data["topology"]["pairs"] = 2
    data["flows"][0].update({"name": "reno", "from": "s*", "to": "r*"})
    data["impairments"] = tomllib.loads(block)["impairments"]
    sc = load_scenario(data)
    assert [m.action for m in sc.impairments] == ["drop_ecn_syn", "strip_accecn_option"]


def test_text_report_lists_each_impairment(tmp_path: Any) -> None:
    from ecnlab.tables import format_report

    data = scenario(True, {"link": "R1->R2", "action": "ce_all"}, {"link": "R2->R1", "action": "clear_ece"})
    s = run(data, tmp_path)
    lines = format_report(s).splitlines()
    head = lines.index(next(line for line in lines if line.startswith("impaired link")))
    rows = [line.split() for line in lines[head + 1 : head + 3]]
    assert [r[:2] for r in rows] == [["R1->R2", "ce_all"], ["R2->R1", "clear_ece"]]
    assert int(rows[0][2]) == counts(s, "R1->R2")[0]["rewritten"] > 0
    plain = scenario(True)
    del plain["impairments"]
    assert "impaired link" not in format_report(run(plain, tmp_path / "plain"))


def test_emulate_router_config_carries_each_links_impairments(tmp_path: Any) -> None:
    from ecnlab.emu.run import _router_config

    entry = {"link": "R1->R2", "action": "ce_all", "fraction": 0.5, "from": "0.1s", "until": "0.2s"}
    sc = load_scenario(scenario(True, entry, {"link": "R2->R1", "action": "clear_ece"}))
    plan = make_plan(sc)
    cfg = _router_config(sc, plan, {h.name: f"ns-{h.name}" for h in plan.hosts}, tmp_path)
    by_name = {lk["name"]: lk.get("impairments") for lk in cfg["links"]}
    assert by_name["R1->R2"] == [{"action": "ce_all", "fraction": 0.5, "from_ns": 100_000_000, "until_ns": 200_000_000}]
    assert by_name["R2->R1"] == [{"action": "clear_ece", "fraction": 1.0, "from_ns": 0}]
    assert [n for n, m in by_name.items() if m] == ["R1->R2", "R2->R1"]


@pytest.mark.engine
def test_an_ecn_syn_blackhole_costs_the_linux_personality_one_syn_and_its_ecn() -> None:
    """RFC 3168 §6.1.1.1 through `drop_ecn_syn` (s1's link, the first 2 s): the linux personality
    retransmits a plain SYN after one initial RTO (`syn_ecn_fallback = "retransmissions"`, Linux's
    `tcp_ecn_clear_syn`) and runs without ECN; the rfc personality keeps asking for ECN, loses the
    retransmission at 1 s as well and connects with ECN at 3 s, once the blackhole has ended."""
    path = ROOT / "scenarios" / "path-syn-blackhole.toml"
    runs = {p: ecnlab.run(path, overrides=[f'tcp.personality="{p}"']).summary for p in ("rfc", "linux")}
    dropped = {
        p: [lk["impairments"][0]["dropped"] for lk in s["links"] if lk.get("impairments")] for p, s in runs.items()
    }
    assert dropped == {"rfc": [2], "linux": [1]}
    flows = {p: {f["id"]: f for f in s["flows"]} for p, s in runs.items()}
    assert (flows["linux"]["reno_1"]["ecn_negotiated"], flows["rfc"]["reno_1"]["ecn_negotiated"]) == (False, True)
    assert flows["linux"]["reno_2"]["ecn_negotiated"] and flows["rfc"]["reno_2"]["ecn_negotiated"]
    # Connected at 1 s against 3 s: the linux flow has had two more seconds to send.
    assert flows["linux"]["reno_1"]["bytes_delivered"] > 2 * flows["rfc"]["reno_1"]["bytes_delivered"]

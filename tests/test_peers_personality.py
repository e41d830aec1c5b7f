"""The RED ``personality`` key: validation, resolved form, and that the
personalities really behave differently in a run (docs/performance.md)."""

from __future__ import annotations

import pytest

import ecnlab
from conftest import SMALL
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, resolved_scenario


def _sc(**queue: object) -> dict:
    import tomllib

    sc = tomllib.loads(SMALL)
    sc["topology"]["bottleneck_queue"].update(queue)
    return sc


def _red(sc: dict) -> dict:
    links = engine_spec(load_scenario(sc))["links"]
    return next(link["queue"] for link in links if link["name"] == "R1->R2")


def test_default_is_floyd93_and_personality_defaults_follow_the_tool() -> None:
    assert "personality" not in _red(_sc()), "floyd93 is the engine's default: the key is left out"
    assert _red(_sc())["gentle"] is False
    for who in ("ns2", "ns3"):
        q = _red(_sc(personality=who))
        assert (q["personality"], q["gentle"]) == (who, True), "ns-2 and ns-3 default to gentle"
    assert _red(_sc(personality="ns2"))["mark_p"] == 0.1, "ns-2's mark_p_ default"
    assert _red(_sc(personality="ns3"))["mark_p"] is None
    lin = _red(_sc(personality="linux", wq=2.0**-9))
    assert (lin["mode"], lin["gentle"], lin["adaptive"]) == ("byte", False, False)


@pytest.mark.parametrize(
    ("queue", "message"),
    [
        ({"personality": "cisco"}, 'personality = "cisco": must be one of floyd93, ns2, ns3, linux'),
        ({"personality": "ns3", "mark_p": 0.5}, "mark_p = 0.5: only applies to personality ns2"),
        ({"adaptive": True}, "adaptive = true: only applies to personality linux"),
        ({"personality": "linux"}, "wq = 0.002: must be 2^-k, 1 <= k <= 31, with personality linux"),
        (
            {"personality": "linux", "wq": 2.0**-9, "gentle": True},
            "gentle = true: must be false with personality linux",
        ),
        ({"personality": "linux", "wq": 2.0**-9, "wait": False}, "wait = false: does not apply to personality linux"),
        ({"personality": "ns2", "kind": "red_star"}, 'personality = "ns2": is not available with kind red_star'),
        ({"personality": "ns2", "mark_p": 0}, "mark_p = 0: must be"),
    ],
)
def test_bad_personality_settings_name_field_value_rule(queue: dict, message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(_sc(**queue))
    assert f"topology.bottleneck_queue.{message}" in str(e.value)


@pytest.mark.parametrize(
    "queue",
    [
        {"personality": "ns2", "mark_p": 2.0},
        {"personality": "ns3"},
        {"personality": "linux", "wq": 2.0**-9, "adaptive": True},
    ],
)
def test_resolved_form_round_trips(queue: dict) -> None:
    sc = load_scenario(_sc(**queue))
    again = load_scenario(resolved_scenario(sc))
    assert engine_spec(again) == engine_spec(sc)


@pytest.mark.engine
def test_ns2_mark_p_turns_ect_marks_into_drops() -> None:
    """ns-2's rule: an ECT packet is marked only while RED's probability is
    below mark_p. With mark_p 2 every early action on ECT data is a mark; with
    mark_p 0.01 almost every one is a drop (only probabilities below 1 %, the
    bottom of the early region, still mark)."""
    always = ecnlab.run(_sc(personality="ns2", mark_p=2.0)).queues.set_index("link").loc["R1->R2"]
    rarely = ecnlab.run(_sc(personality="ns2", mark_p=0.01)).queues.set_index("link").loc["R1->R2"]
    assert always["marks"] > 20 and always["early_drops_ect"] == 0
    assert rarely["early_drops_ect"] > 5 * max(rarely["marks"], 1)


@pytest.mark.engine
@pytest.mark.parametrize("who", ["floyd93", "ns2", "ns3", "linux"])
def test_every_personality_runs_deterministically(who: str) -> None:
    queue: dict = {"personality": who, "gentle": who != "linux"}
    if who == "linux":
        queue["wq"] = 2.0**-9
    a = ecnlab.run(_sc(**queue)).summary
    b = ecnlab.run(_sc(**queue)).summary
    assert a["queues"] == b["queues"] and a["flows"] == b["flows"]
    q = next(q for q in a["queues"] if q["link"] == "R1->R2")
    assert q["marks"] > 0, f"{who}: RED with ECN marks on a congested bottleneck"

"""``tcp.ecn = "accecn"`` (RFC 9768, crates/tcp/src/accecn.rs): parsed, lowered to the
engine's ``EcnMode::AccEcn``, and written back in the resolved scenario as the mode name
so that the file parses to the same flow; other modes keep their boolean form."""

from __future__ import annotations

from pathlib import Path

from ecnlab.config import load_scenario, parse_scenario
from ecnlab.lower import engine_spec, resolved_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "emulate-reno-ecn.toml"


def test_accecn_lowers_to_the_engine_mode_and_round_trips() -> None:
    sc = load_scenario(SCENARIO, ['tcp.ecn="accecn"'])
    (flow,) = engine_spec(sc)["flows"]
    assert flow["tcp"]["ecn"] == "accecn"
    tcp = resolved_scenario(sc)["flows"][0]["tcp"]
    assert tcp["ecn"] == "accecn" and tcp["ecn_plus"] is False
    again = parse_scenario(resolved_scenario(sc))
    assert again.groups[0].tcp == sc.groups[0].tcp


def test_other_modes_are_unchanged() -> None:
    for mode, engine in (("classic", "classic"), ("ecn+", "ecn+"), ("off", "off")):
        sc = load_scenario(SCENARIO, [f'tcp.ecn="{mode}"'])
        assert engine_spec(sc)["flows"][0]["tcp"]["ecn"] == engine
        assert resolved_scenario(sc)["flows"][0]["tcp"]["ecn"] is (mode != "off")


def test_accecn_option_key_lowers_and_round_trips_with_accecn_only() -> None:
    sc = load_scenario(SCENARIO, ['tcp.ecn="accecn"', 'tcp.accecn_option="off"'])
    assert engine_spec(sc)["flows"][0]["tcp"]["accecn_option"] == "off"
    assert resolved_scenario(sc)["flows"][0]["tcp"]["accecn_option"] == "off"
    assert parse_scenario(resolved_scenario(sc)).groups[0].tcp == sc.groups[0].tcp
    classic = load_scenario(SCENARIO, ['tcp.ecn="classic"'])
    assert "accecn_option" not in engine_spec(classic)["flows"][0]["tcp"]


def test_accecn_option_off_leaves_the_sender_with_ace_alone(tmp_path: Path) -> None:
    """RFC 9768 §3.2.3 is optional: with the option off the sender still counts CE packets
    from ACE (``ace_delta_ce``) but learns no CE bytes from ECEB (``accecn_ceb`` 0)."""
    import ecnlab

    base = Path(__file__).resolve().parents[1] / "scenarios" / "dumbbell-accecn.toml"
    on = ecnlab.run(base, overrides=["duration=10s"]).summary["flows"]
    off = ecnlab.run(base, overrides=["duration=10s", 'tcp.accecn_option="off"']).summary["flows"]
    assert all(f["accecn_ceb"] > 0 and f["ace_delta_ce"] > 0 for f in on)
    assert all(f["accecn_ceb"] == 0 and f["ace_delta_ce"] > 0 for f in off)

"""``tcp.ecn = "accecn"`` (RFC 9768, crates/tcp/src/accecn.rs): parsed, lowered to the
engine's ``EcnMode::AccEcn``, and written back in the resolved scenario as the mode name
so that the file parses to the same flow; other modes keep their boolean form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ecnlab.config import load_scenario, parse_scenario
from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec, engine_tcp_config, resolved_scenario
from ecnlab.resolve import flow_tcp

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "emulate-reno-ecn.toml"


def test_accecn_lowers_to_the_engine_mode_and_round_trips() -> None:
    sc = load_scenario(SCENARIO, ['tcp.ecn="accecn"'])
    (flow,) = engine_spec(sc)["flows"]
    assert flow["tcp"]["ecn"] == "accecn"
    resolved = resolved_scenario(sc)
    tcp = flow_tcp(resolved, resolved["flows"][0])
    assert tcp["ecn"] == "accecn" and tcp["ecn_plus"] is False
    again = parse_scenario(resolved_scenario(sc))
    assert again.groups[0].tcp == sc.groups[0].tcp


def test_other_modes_are_unchanged() -> None:
    for mode, engine in (("classic", "classic"), ("ecn+", "ecn+"), ("off", "off")):
        sc = load_scenario(SCENARIO, [f'tcp.ecn="{mode}"'])
        assert engine_tcp_config(engine_spec(sc)["flows"][0]["tcp"])["ecn"] == engine
        resolved = resolved_scenario(sc)
        assert flow_tcp(resolved, resolved["flows"][0])["ecn"] is (mode != "off")


def test_accecn_option_key_lowers_and_round_trips_with_accecn_only() -> None:
    """``tcp.accecn_option`` is Linux's ``tcp_ecn_option`` number; the names ``off``,
    ``minimum`` and ``full`` stand for 0, 1 and 2. Both keys reach the engine and the
    resolved scenario with ``ecn = "accecn"`` only."""
    for value, number in (('"off"', 0), ('"minimum"', 1), ('"full"', 2), ("0", 0), ("1", 1), ("2", 2)):
        sc = load_scenario(SCENARIO, ['tcp.ecn="accecn"', f"tcp.accecn_option={value}", "tcp.accecn_option_beacon=1"])
        tcp = engine_tcp_config(engine_spec(sc)["flows"][0]["tcp"])
        assert (tcp["accecn_option"], tcp["accecn_option_beacon"]) == (number, 1)
        whole = resolved_scenario(sc)
        resolved = flow_tcp(whole, whole["flows"][0])
        assert (resolved["accecn_option"], resolved["accecn_option_beacon"]) == (number, 1)
        assert parse_scenario(resolved_scenario(sc)).groups[0].tcp == sc.groups[0].tcp
    default = engine_tcp_config(engine_spec(load_scenario(SCENARIO, ['tcp.ecn="accecn"']))["flows"][0]["tcp"])
    assert (default["accecn_option"], default["accecn_option_beacon"]) == (2, 3)  # Linux's defaults
    classic = load_scenario(SCENARIO, ['tcp.ecn="classic"'])  # the engine's defaults: not lowered
    assert not {"accecn_option", "accecn_option_beacon"} & set(engine_spec(classic)["flows"][0]["tcp"])


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("tcp.accecn_option=3", "tcp.accecn_option = 3: must be 0 (off), 1 (minimum) or 2 (full)"),
        ('tcp.accecn_option="minimal"', 'must be one of off, minimum, full (did you mean "minimum"?)'),
        ("tcp.accecn_option=true", "tcp.accecn_option = true: must be 0 (off), 1 (minimum) or 2 (full)"),
        ("tcp.accecn_option_beacon=4", "tcp.accecn_option_beacon = 4"),
    ],
)
def test_accecn_option_values_outside_linuxs_are_refused(setting: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario(SCENARIO, ['tcp.ecn="accecn"', setting])


def test_accecn_option_off_leaves_the_sender_with_ace_alone(tmp_path: Path) -> None:
    """RFC 9768 §3.2.3 is optional: with the option off the sender still counts CE packets
    from ACE (``ace_delta_ce``) but learns no CE bytes from ECEB (``accecn_ceb`` 0)."""
    import ecnlab

    base = Path(__file__).resolve().parents[1] / "scenarios" / "dumbbell-accecn.toml"
    on = ecnlab.run(base, overrides=["duration=10s"]).summary["flows"]
    off = ecnlab.run(base, overrides=["duration=10s", "tcp.accecn_option=0"]).summary["flows"]
    minimum = ecnlab.run(base, overrides=["duration=10s", "tcp.accecn_option=1"]).summary["flows"]
    assert all(f["accecn_ceb"] > 0 and f["ace_delta_ce"] > 0 for f in on)
    assert all(f["accecn_ceb"] == 0 and f["ace_delta_ce"] > 0 for f in off)
    # minimum: the option comes with every CE (Linux's demand), so ECEB still counts.
    assert all(f["accecn_ceb"] > 0 and f["ace_delta_ce"] > 0 for f in minimum)

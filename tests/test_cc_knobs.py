"""The table of each congestion control's knobs (python/ecnlab/cc_knobs.py) against the engine
and the scenario schema."""

from __future__ import annotations

import dataclasses

from ecnlab.cc_knobs import CC_KNOBS, knob_keys, knobs_resolved
from ecnlab.lower_tcp import engine_tcp_defaults
from ecnlab.model import TcpSpec
from ecnlab.params import tcp_keys
from ecnlab.scenario_schema import tcp_knobs, tcp_rows


def test_every_knob_is_a_tcpspec_field_a_scenario_key_and_an_engine_key() -> None:
    fields = {f.name for f in dataclasses.fields(TcpSpec)}
    scenario_attrs = {attr for attr, _ in tcp_keys().values()}
    engine = engine_tcp_defaults("rfc")
    for key in knob_keys():
        assert key in fields, key
        assert key in scenario_attrs, key
        assert key in engine, key
    assert len(set(knob_keys())) == len(knob_keys()), "a knob belongs to one congestion control"


def test_every_entry_is_a_congestion_control_of_the_schema_and_every_control_with_knobs_has_one() -> None:
    assert set(CC_KNOBS) <= set(tcp_rows()["cc"].values)
    assert set(tcp_knobs()) == set(CC_KNOBS)


def test_resolved_keeps_the_own_controls_knobs_and_dctcps_always() -> None:
    dctcp = {"dctcp_shift_g", "dctcp_ect", "dctcp_arith"}
    assert set(knobs_resolved(TcpSpec(cc="reno"))) == dctcp
    assert set(knobs_resolved(TcpSpec(cc="cubic"))) == dctcp | {"hystart", "cubic_arith"}
    assert set(knobs_resolved(TcpSpec(cc="bbr"))) == dctcp | {"bbr_version", "bbr_ecn_low"}
    prague = knobs_resolved(TcpSpec(cc="prague", prague_rtt_target_ns=15_000_000))
    assert prague["prague_rtt_target"] == 0.015 and "prague_rtt_target_ns" not in prague

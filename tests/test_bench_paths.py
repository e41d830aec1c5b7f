"""``ecnlab bench paths``: the points' scenarios and what emulate makes of them, the verdict
rules, the table, the command's checks, the simulator's side, and one point run both ways
(root: the live half emulates through namespaces)."""

from __future__ import annotations

import os

import pytest

from ecnlab.bench.paths import (
    IMPAIRED,
    POINTS,
    Measure,
    Side,
    format_row,
    format_table,
    measure,
    scenario,
    verdict,
)
from ecnlab.cli import main
from ecnlab.config import load_scenario
from ecnlab.emu.plan import make_plan
from ecnlab.errors import ScenarioError

BLACKHOLE, NO_FALLBACK, BLEACH, CE_ALL = POINTS[:4]


@pytest.mark.parametrize("p", POINTS, ids=lambda p: p.name)
def test_every_point_is_one_linux_flow_behind_its_impairment(p):
    sc = load_scenario(scenario(p, 5, seed=2))
    (f,) = sc.flows
    assert f.tcp.syn_ecn_fallback == p.fallback and f.tcp.ssthresh_basis == "cwnd"
    assert [(m.link, m.action) for m in sc.impairments] == [(IMPAIRED, p.action)]
    assert sc.seed == 2 and sc.warmup_ns == 0
    if p.live:
        fallback = {h.sysctls["net.ipv4.tcp_ecn_fallback"] for h in make_plan(sc).hosts}
        assert fallback == {"1" if p.fallback == "retransmissions" else "0"}
    else:
        with pytest.raises(ScenarioError, match="AccECN"):
            make_plan(sc)


def _side(*runs: tuple[float | None, int, float, int, int]) -> Side:
    return Side(tuple(Measure(c, rtx, g, marks, drops, True) for c, rtx, g, marks, drops in runs))


def test_blackhole_with_fallback_judges_the_connection_time_within_ten_percent():
    sim = _side((1.02, 1, 7e6, 0, 0), (1.02, 1, 7e6, 0, 0))
    assert verdict(BLACKHOLE, sim, _side((1.08, 1, 7e6, 0, 0), (1.10, 1, 7e6, 0, 0))) == "ok"
    assert verdict(BLACKHOLE, sim, _side((1.20, 1, 7e6, 0, 0), (1.20, 1, 7e6, 0, 0))) == "connection time -15%"
    late = _side((1.04, 1, 7e6, 0, 0), (None, 2, 0.0, 0, 0))
    assert verdict(BLACKHOLE, sim, late) == "connected in 2/2 sim, 1/2 Linux runs"


def test_blackhole_without_fallback_expects_no_connection_on_either_side():
    never = _side((None, 2, 0.0, 0, 0))
    assert verdict(NO_FALLBACK, never, never) == "ok: neither side connects within the run"
    assert verdict(NO_FALLBACK, never, _side((1.02, 1, 7e6, 0, 0))) == "connected in 0/1 sim, 1/1 Linux runs"


def test_bleaching_expects_drops_no_marks_and_goodput_within_ten_percent():
    sim = _side((0.02, 0, 9.0e6, 0, 12))
    assert verdict(BLEACH, sim, _side((0.02, 0, 8.5e6, 0, 20))) == "ok"
    assert verdict(BLEACH, sim, _side((0.02, 0, 9.0e6, 3, 0))) == "CE marks despite bleaching; no drops on one side"
    assert verdict(BLEACH, sim, _side((0.02, 0, 7.0e6, 0, 9))) == "goodput +29%"


def test_ce_on_every_packet_expects_ecn_negotiated_and_goodput_within_ten_percent():
    sim = _side((0.02, 0, 1.1e6, 0, 0))
    assert verdict(CE_ALL, sim, _side((0.02, 0, 1.05e6, 0, 0))) == "ok"
    plain = Side((Measure(0.02, 0, 1.1e6, 0, 0, False),))
    assert verdict(CE_ALL, sim, plain) == "ECN not negotiated in every run"
    assert verdict(POINTS[4], sim, None) == "simulator only (no AccECN in this kernel)"


def test_table_shows_means_runs_connected_and_a_dash_for_the_simulator_only_rows():
    sim = _side((1.0, 1, 7e6, 0, 1), (1.1, 1, 8e6, 0, 2))
    linux = _side((1.05, 1, 7.5e6, 0, 3), (None, 2, 0.0, 0, 4))
    row = format_row({"point": BLACKHOLE, "sim": sim, "linux": linux, "verdict": "x", "seconds": 5.0})
    assert "| 1.050 (2/2) / 1.050 (1/2) | 1 / 1.5 | 7.50 / 3.75 | 0 / 1.5 | 0 / 3.5 | x |" in row
    assert row.startswith("| syn-blackhole/fallback | `drop_ecn_syn` | RFC 3168 | 1 |")
    acc = {"point": POINTS[4], "sim": sim, "linux": None, "verdict": "sim only", "seconds": 5.0}
    assert "| AccECN | 1 | 1.050 (2/2) / — | 1 / — | 7.50 / — | 0 / 1.5 | — |" in format_row(acc)
    table = format_table([{**acc}, {"point": BLACKHOLE, "sim": sim, "linux": linux, "verdict": "ok", "seconds": 5.0}])
    assert table.endswith("1 of 1 points with a Linux side as the rules expect; 2 run(s) of 5 s per point and side "
                          "(seeds 1 … N), means shown.")  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--runs", "0"], "--runs = 0: must be between 1 and 100"),
        (["--seconds", "1"], "--seconds = 1.0: must be between 3 and 60"),
        (["--points", "blakhole"], '--points = "blakhole": matches no point'),
    ],
)
def test_bad_options_are_one_line_and_status_2(argv, message, capsys):
    assert main(["bench", "paths", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.engine
def test_simulator_waits_one_initial_rto_with_the_fallback_and_never_connects_without():
    with_fb = measure(BLACKHOLE, 5, 1, live=False)
    assert with_fb.syn_retransmits == 1 and not with_fb.ecn_negotiated
    assert with_fb.connect_s == pytest.approx(1.0 + 0.020, abs=0.005)  # 1 s RTO, then one 20 ms round trip
    without = measure(NO_FALLBACK, 5, 1, live=False)
    assert without.connect_s is None and without.goodput_bps == 0
    assert without.syn_retransmits == 2, "SYNs at 0, 1 and 3 s (RTO 1 s, doubled)"


@pytest.mark.slow
@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_linux_through_the_syn_blackhole_waits_one_initial_rto_like_the_simulator():
    sim, linux = measure(BLACKHOLE, 3, 1, live=False), measure(BLACKHOLE, 3, 1, live=True)
    assert linux.connect_s is not None and 1.0 <= linux.connect_s < 1.2, linux
    assert linux.syn_retransmits == 1 and not linux.ecn_negotiated
    assert verdict(BLACKHOLE, Side((sim,)), Side((linux,))) == "ok"

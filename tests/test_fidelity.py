"""``ecnlab bench fidelity``: the grid, the shared scenario, the verdict rule, and
one point run both ways (root: the live half emulates through namespaces)."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from ecnlab.analysis.regain import Reduction
from ecnlab.bench.fidelity import (
    BbrEstimate,
    Measure,
    Point,
    format_row,
    format_spread,
    format_table,
    grid,
    measure_emu,
    measure_sim,
    scenario,
    verdict,
)
from ecnlab.cli import main
from ecnlab.config import load_scenario


def test_reno_grid_is_rates_rtts_flows_with_and_without_ecn_and_sack():
    pts = grid("reno")
    assert len(pts) == 24
    assert {(p.rate_mbit, p.rtt_ms, p.flows) for p in pts} == {
        (r, d, n) for r in (10, 50) for d in (20, 80) for n in (1, 4)
    }
    assert sum(p.recovery == "newreno" and not p.ecn for p in pts) == 8
    assert all(p.cc == "reno" and p.queue == "red" for p in pts)


def test_cubic_grid_has_the_modern_queues_and_the_long_path():
    pts = grid("cubic")
    assert {p.queue for p in pts} == {"red", "fq_codel", "dualpi2"}
    assert Point(100, 100, 1, "red", True, cc="cubic") in pts
    assert all(p.cc == "cubic" and p.ecn for p in pts)


@pytest.mark.parametrize(
    "p",
    grid("reno", quick=True) + grid("cubic", quick=True) + grid("dctcp", quick=True) + grid("bbr", quick=True),
    ids=lambda p: p.name,
)
def test_every_point_is_a_valid_linux_scenario(p):
    sc = load_scenario(scenario(p, 10, 3))
    f = sc.flows[0]
    assert f.tcp.recovery == p.recovery and f.tcp.cc == p.cc
    assert f.tcp.init_cwnd == 10 and f.tcp.ssthresh_basis == "cwnd" and f.tcp.sack_after_rto
    # One-way bottleneck delay is half the base RTT.
    core = next(link for link in sc.topology.links if link.name == "R1->R2")
    assert core.delay_ns == p.rtt_ms * 1_000_000 // 2


def test_bbr_grid_is_bbrv1_through_the_cubic_grids_queues_with_one_and_two_flows():
    pts = grid("bbr")
    assert len(pts) == 24
    assert {(p.rate_mbit, p.rtt_ms, p.flows) for p in pts} == {
        (r, d, n) for r in (10, 50) for d in (20, 80) for n in (1, 2)
    }
    assert {(p.queue, p.ecn) for p in pts} == {(p.queue, p.ecn) for p in grid("cubic")}
    assert all(p.cc == "bbr" and p.recovery == "sack" and p.goodput_tol == 0.10 for p in pts)
    quick = grid("bbr", quick=True)
    assert [p.name for p in quick if "10M-20ms-1f" in p.name] == [
        "bbr-sack-red+ecn-10M-20ms-1f",
        "bbr-sack-fq_codel+ecn-10M-20ms-1f",
        "bbr-sack-dualpi2+ecn-10M-20ms-1f",
    ]
    assert len(quick) == 6 and all(p.rate_mbit == 10 and p.rtt_ms == 20 for p in quick)


@pytest.mark.parametrize("p", grid("bbr", quick=True), ids=lambda p: p.name)
def test_bbr_points_run_the_kernels_bbrv1_paced_in_emulate(p):
    """Both sides run BBRv1, pacing itself; emulate lays the point out (no root needed to plan)."""
    from ecnlab.emu.plan import make_plan

    sc = load_scenario(scenario(p, 10, 3))
    f = sc.flows[0]
    assert f.tcp.cc == "bbr" and f.tcp.bbr_version == "v1" and f.tcp.pacing and f.tcp.ecn
    assert f.tcp.tso == "linux"  # Linux's BBR paces GSO chunks; only the BBR grid asks for them
    plan = make_plan(sc)
    assert [h.name for h in plan.hosts] == ["s1", "r1"]


SS_TWO_BBR_SOCKETS = (
    "ESTAB 0 0 10.77.0.1:49312 10.77.0.2:5201 bbr wscale:9,9 cwnd:50 "
    "bbr:(bw:9754128bps,mrtt:22.528,pacing_gain:1,cwnd_gain:2) pacing_rate 9642912bps "
    "ESTAB 0 0 10.77.0.1:49314 10.77.0.2:5201 bbr cwnd:20 bbr:(bw:4.5Mbps,mrtt:20.5,pacing_gain:0.75,cwnd_gain:2)"
)


def test_linux_bbrs_estimates_are_read_from_ss_and_shown_against_the_path():
    est = BbrEstimate.parse(SS_TWO_BBR_SOCKETS)
    assert est == [BbrEstimate(9_754_128.0, 22.528), BbrEstimate(4_500_000.0, 20.5)]
    assert BbrEstimate.parse("cubic wscale:9,9 cwnd:10") == [] and BbrEstimate.parse(None) == []
    assert BbrEstimate.mean([None]) is None
    one = BbrEstimate.mean(est[:1])
    p = Point(10, 20, 1, "red", True, cc="bbr", recovery="sack")
    emu = Measure(9.5e6, 0, 0, 0, 7.8, bbr=one)
    table = format_table([{"point": p, "sim": _m(9.6e6, 0), "emu": emu, "verdict": "ok"}], spread=False)
    # 9 754 128 / (10 Mbit/s · 1448/1500) and 22.528 ms / 20 ms; two flows: their estimates together.
    assert "1 flow: bandwidth estimate 1.010–1.010× the payload rate, min_rtt 1.126–1.126× the base RTT" in table
    two = Point(10, 20, 2, "red", True, cc="bbr", recovery="sack")
    emu2 = Measure(9.5e6, 0, 0, 0, 7.8, bbr=BbrEstimate(4_826_500.0, 20.0))
    both = format_table([{"point": two, "sim": _m(9.6e6, 0), "emu": emu2, "verdict": "ok"}], spread=False)
    assert "2 flows: bandwidth estimates together 1.000–1.000×" in both
    cubic = Point(10, 20, 1, "red", True)
    plain = format_table([{"point": cubic, "sim": _m(9.6e6, 0), "emu": _m(9.5e6, 0), "verdict": "ok"}])
    assert "min_rtt" not in plain


def _m(goodput: float, signals: int) -> Measure:
    return Measure(goodput, signals, 0, 0, 0.0)


def test_dctcp_points_mark_at_k_from_the_bdp():
    """RFC 8257 §4.1: K > C·RTT/7; at least 20 packets (DCTCP 2010 §3.4's 1 Gbit/s K)."""
    ks = {(p.rate_mbit, p.rtt_ms): p.k_pkts for p in grid("dctcp")}
    assert ks == {(10, 20): 20, (10, 80): 20, (50, 20): 20, (50, 80): 48}
    sc = load_scenario(scenario(Point(50, 80, 1, "step", True, cc="dctcp", k_pkts=48), 10, 3))
    core = next(link for link in sc.topology.links if link.name == "R1->R2")
    assert core.queue.kind == "step" and sc.flows[0].tcp.cc == "dctcp"


def test_verdict_tolerances():
    sack = Point(10, 20, 1, "red", True)
    nosack = Point(10, 20, 1, "red", False, recovery="newreno")
    assert verdict(sack, _m(1.049e7, 15), _m(1e7, 10)) == "ok"
    assert verdict(sack, _m(1.06e7, 10), _m(1e7, 10)) == "goodput +6.0%"
    assert verdict(sack, _m(1e7, 16), _m(1e7, 10)) == "signals ×1.60"
    assert verdict(sack, _m(1e7, 6), _m(1e7, 10)) == "signals ×0.60"
    assert verdict(nosack, _m(0.91e7, 0), _m(1e7, 0)) == "ok"
    assert verdict(nosack, _m(0.89e7, 3), _m(1e7, 0)) == "goodput -11.0%", "without SACK: goodput only"


def _d(goodput: float, signals: int, mean_ms: float | None, p99_ms: float | None) -> Measure:
    return Measure(goodput, signals, 0, 0, 0.0, sojourn_mean_ms=mean_ms, sojourn_p99_ms=p99_ms)


def test_bbr_verdict_judges_goodput_within_10_percent_and_queue_delay_within_1_5x():
    bbr = Point(10, 20, 1, "red", True, cc="bbr")
    linux = _d(1e7, 10, 4.0, 10.0)
    assert verdict(bbr, _d(1.09e7, 10, 5.9, 6.7), linux) == "ok"
    assert verdict(bbr, _d(1e7, 100, 4.0, 10.0), linux) == "ok", "BBRv1 answers no CE mark: signals not judged"
    assert verdict(bbr, _d(0.89e7, 10, 4.0, 10.0), linux) == "goodput -11.0%"
    assert verdict(bbr, _d(1e7, 10, 6.4, 10.0), linux) == "mean delay ×1.60"
    assert verdict(bbr, _d(1e7, 10, 4.0, 6.0), linux) == "p99 delay ×0.60"
    assert verdict(bbr, _d(1e7, 10, None, None), linux) == (
        "mean delay on the Linux side only; p99 delay on the Linux side only"
    )
    assert verdict(bbr, _d(1e7, 10, None, None), _d(1e7, 10, None, None)) == "ok", "neither side: not judged"
    cubic = Point(10, 20, 1, "red", True, cc="cubic")
    assert verdict(cubic, _d(1e7, 10, 8.0, 20.0), linux) == "ok", "queue delay judged for BBR only"
    row = format_row({"point": bbr, "sim": _d(1e7, 10, 4.04, 12.0), "emu": _d(1e7, 10, None, 9.96), "verdict": "x"})
    assert "| 4.0 / — | 12.0 / 10.0 |" in row


def test_sojourn_of_several_runs_is_their_mean_and_unknown_if_one_run_lacks_it():
    m = Measure.mean([_d(1e7, 1, 2.0, 8.0), _d(1e7, 1, 4.0, 12.0)])
    assert (m.sojourn_mean_ms, m.sojourn_p99_ms) == (3.0, 10.0)
    assert Measure.mean([_d(1e7, 1, 2.0, 8.0), _d(1e7, 1, None, None)]).sojourn_p99_ms is None


def test_sim_side_measures_the_bottlenecks_sojourn_after_the_warmup():
    """BBRv1 through FQ-CoDel at 10 Mbit/s, 20 ms: the summary's sojourn of the bottleneck queue."""
    from ecnlab.runner import run

    p = Point(10, 20, 1, "fq_codel", True, cc="bbr")
    m = measure_sim(p, 6, 2)
    assert m.sojourn_mean_ms is not None and m.sojourn_p99_ms is not None
    assert 0 < m.sojourn_mean_ms <= m.sojourn_p99_ms
    q = next(x for x in run(scenario(p, 6, 2)).summary["queues"] if x["link"] == "R1->R2")
    assert (m.sojourn_mean_ms, m.sojourn_p99_ms) == (q["sojourn_mean_ms"], q["sojourn_p99_ms"])
    assert m.goodput_bps > 8e6


def _regains(*times: float | None) -> tuple[Reduction, ...]:
    return tuple(Reduction("f", 5.0 + i, 100.0, 70.0, t) for i, t in enumerate(times))


def test_cubic_verdict_judges_the_median_regain_time():
    cubic = Point(10, 20, 1, "red", True, cc="cubic")
    m = Measure(1e7, 10, 0, 0, 0.0, _regains(2.0, 2.2, None))
    assert m.regain_s == pytest.approx(2.1) and m.regained == 2
    assert verdict(cubic, m, Measure(1e7, 10, 0, 0, 0.0, _regains(2.0, 2.3))) == "ok"
    assert verdict(cubic, m, Measure(1e7, 10, 0, 0, 0.0, _regains(2.5))) == "regain -16%"
    assert verdict(cubic, m, Measure(1e7, 10, 0, 0, 0.0, _regains(None))) == "regain on the simulator side only"
    assert verdict(cubic, _m(1e7, 10), _m(1e7, 10)) == "ok", "neither side regained: not judged"
    reno = Point(10, 20, 1, "red", True)
    assert verdict(reno, m, Measure(1e7, 10, 0, 0, 0.0, _regains(2.5))) == "ok", "judged for CUBIC only"
    row = format_row({"point": cubic, "sim": m, "emu": _m(1e7, 10), "verdict": "x"})
    assert "| 10 / 10 marks |" in row and "| 2.10 (2/3) / — (0/0) | — | — / — | x |" in row


def test_sim_side_measures_regain_times_after_the_warmup():
    """CUBIC through RED at 10 Mbit/s, 20 ms: every flow's reductions after the warm-up from
    the simulator's cwnd series, most of them regaining W_max before the next."""
    m = measure_sim(Point(10, 20, 1, "red", True, cc="cubic"), 20, 5)
    assert len(m.reductions) >= 3 and all(r.t_drop >= 5 for r in m.reductions)
    assert m.regain_s is not None and 0.3 < m.regain_s < 10
    assert m.closed_form_ratio is not None


def test_sim_side_counts_signals_after_the_warmup_only():
    p = Point(10, 20, 1, "red", True)
    whole = measure_sim(p, 6, 0.001)
    after = measure_sim(p, 6, 3)
    assert 0 < after.signals < whole.signals


def test_bad_seconds_and_runs_are_refused(capsys):
    assert main(["bench", "fidelity", "--seconds", "1"]) == 2
    assert "--seconds = 1.0" in capsys.readouterr().err
    assert main(["bench", "fidelity", "--runs", "0"]) == 2
    assert "--runs = 0" in capsys.readouterr().err


def test_runs_are_compared_by_their_means():
    a = Measure(1e7, 10, 1, 0, 20.0, _regains(1.0))
    b = Measure(2e7, 15, 2, 1, 30.0, _regains(None, 3.0))
    m = Measure.mean([a, b])
    assert (m.goodput_bps, m.signals, m.retransmits, m.timeouts, m.avg_qlen_pkts) == (1.5e7, 12.5, 1.5, 0.5, 25.0)
    assert len(m.reductions) == 3 and m.regain_s == pytest.approx(2.0)
    with_bbr = Measure.mean([replace(a, bbr=BbrEstimate(1e7, 20.0)), replace(b, bbr=BbrEstimate(2e7, 30.0))])
    assert with_bbr.bbr == BbrEstimate(1.5e7, 25.0)
    row = format_row({"point": Point(10, 20, 1, "red", True), "sim": m, "emu": a, "verdict": "ok"})
    assert "| 12.5 / 10 marks |" in row and "| 1.5 / 1 | 0.5 / 0 |" in row


@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_one_point_both_ways():
    """Reno with SACK and ECN, 10 Mbit/s, 20 ms, one flow, 8 s: both sides fill the
    link (Linux's timestamps cost it 12 of every 1460 payload bytes) and mark alike."""
    p = Point(10, 20, 1, "red", True)
    sim, emu = measure_sim(p, 8, 2), measure_emu(p, 8, 2)
    assert 9.0e6 < emu.goodput_bps < 9.8e6
    assert abs(sim.goodput_bps / emu.goodput_bps - 1) < 0.05, (sim, emu)
    assert emu.signals > 0 and sim.signals > 0


def test_several_runs_show_each_run_and_the_spread():
    """With --runs N the table gains each run's goodput and median regain time per side,
    and how far the runs lie apart: Linux against Linux, beside the simulator against Linux."""
    one = Measure(1e7, 10, 1, 0, 20.0, _regains(1.0))
    two = Measure(1.2e7, 15, 2, 1, 30.0, _regains(None, 1.5))
    none = Measure(1.1e7, 12, 0, 0, 25.0, _regains(None))
    sim, emu = Measure.mean([one, two]), Measure.mean([two, none])
    assert sim.runs == (one, two) and Measure.mean([one]).runs == ()
    p = Point(10, 20, 1, "red", True, cc="cubic")
    rows = [{"point": p, "sim": sim, "emu": emu, "verdict": "ok"}]
    spread = format_spread(rows)
    assert f"| {p.name} | 10.00, 12.00 | 20% | 12.00, 11.00 | 9% | 1.00, 1.50 | 50% | 1.50, — | — | —, — |" in spread
    assert spread in format_table(rows)
    single = {"point": p, "sim": one, "emu": two, "verdict": "ok"}
    assert format_spread([single]) == "" and "Run to run" not in format_table([single])


def test_stagger_draws_each_flows_start_by_the_seed():
    """--stagger S: every flow starts at a uniform draw from [0, S] s on its own stream, so
    runs with different seeds start the flows in different phases (FQ-CoDel and the step
    marker draw nothing at random, so without it every seed gives the simulator the same run)."""
    from ecnlab.runner import run

    p = Point(10, 20, 4, "fq_codel", True, cc="cubic")
    assert scenario(p, 10, 3)["flows"][0]["start"] == 0.0
    starts = {
        seed: sorted(f["start_s"] for f in run(scenario(p, 3.5, 1, seed, stagger=1.0)).summary["flows"])
        for seed in (1, 2)
    }
    assert starts[1] != starts[2] and all(0 <= t <= 1 for ts in starts.values() for t in ts)
    assert main(["bench", "fidelity", "--stagger", "5", "--seconds", "15"]) == 2


def test_a_misspelt_point_is_refused_before_anything_runs(capsys):
    assert main(["bench", "fidelity", "--points", "50M-80sm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith('ecnlab: error: --points = "50M-80sm": matches no point of --cc reno (allowed: ')
    assert err.count("\n") == 1 and "reno-sack-red-50M-80ms-1f" in err
    assert main(["bench", "fidelity", "--quick", "--points", "50M"]) == 2  # --quick has 10 Mbit/s points only
    assert "matches no point of --cc reno --quick" in capsys.readouterr().err


def test_an_unknown_congestion_control_is_refused_in_one_line(capsys):
    assert main(["bench", "fidelity", "--cc", "cubc"]) == 2
    err = capsys.readouterr().err
    assert (
        err == 'ecnlab: error: --cc = "cubc": unknown name, did you mean "cubic"? (allowed: reno, cubic, dctcp, bbr)\n'
    )

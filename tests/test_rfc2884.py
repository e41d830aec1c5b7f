"""RFC 2884 experiment: metric functions on hand-made inputs, the threshold rule, the sweep files."""

from __future__ import annotations

import math
import tomllib

import pytest

from ecnlab.experiments.rfc2884 import HERE, paper
from ecnlab.experiments.rfc2884.metrics import jain_index, mean_ci95, relative_advantage, transaction_rate
from ecnlab.experiments.rfc2884.report import trend_words
from ecnlab.experiments.rfc2884.thresholds import (
    TESTBED,
    Bottleneck,
    derive,
    for_testbed,
    queue_needed,
    window_pkts,
)
from ecnlab.sweep.spec import load_sweep

# --- metrics ---------------------------------------------------------------


def test_jain_equal_throughputs_is_one() -> None:
    assert jain_index([3.0, 3.0, 3.0, 3.0]) == 1.0


def test_jain_one_flow_takes_all_is_one_over_n() -> None:
    assert jain_index([8.0, 0.0, 0.0, 0.0]) == 0.25


def test_jain_hand_computed() -> None:
    # (1+2+3+4)^2 / (4 * (1+4+9+16)) = 100 / 120
    assert jain_index([1, 2, 3, 4]) == pytest.approx(100 / 120)
    # the paper's table values sit just below 1: e.g. two flows at 1.0 and 1.2
    assert jain_index([1.0, 1.2]) == pytest.approx(2.2**2 / (2 * 2.44))


def test_jain_rejects_empty_and_negative() -> None:
    with pytest.raises(ValueError):
        jain_index([])
    with pytest.raises(ValueError):
        jain_index([1.0, -1.0])


def test_relative_advantage() -> None:
    assert relative_advantage(1.5, 1.0) == pytest.approx(0.5)
    assert relative_advantage(0.8, 1.0) == pytest.approx(-0.2)
    assert relative_advantage(0.0, 0.0) == 0.0
    assert relative_advantage(1.0, 0.0) == math.inf


def test_transaction_rate() -> None:
    assert transaction_rate(360, 180.0) == 2.0
    with pytest.raises(ValueError):
        transaction_rate(1, 0.0)


def test_mean_ci95_uses_student_t() -> None:
    mean, half = mean_ci95([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert half == pytest.approx(4.303 * 1.0 / math.sqrt(3))
    assert mean_ci95([5.0]) == (5.0, 0.0)


def test_trend_words() -> None:
    assert trend_words([0.1, 0.2, 0.5]) == "rises"
    assert trend_words([0.5, 0.2]) == "falls"
    assert trend_words([0.1, 0.3, 0.2]) == "rises overall, not monotonically,"
    assert trend_words([0.3, 0.1, 0.2]) == "falls overall, not monotonically,"
    assert trend_words([0.2, 0.1, 0.2]) == "does not change monotonically"


# --- the min_th/max_th rule ------------------------------------------------


def test_mathis_window() -> None:
    # sqrt(3 / (2 b p)) with b = 2, p = 0.04
    assert window_pkts(0.04) == pytest.approx(math.sqrt(18.75))
    with pytest.raises(ValueError):
        window_pkts(0.0)


def test_queue_needed_grows_with_flows_and_falls_with_max_p() -> None:
    assert queue_needed(TESTBED, 12, 0.02) > queue_needed(TESTBED, 7, 0.02) > queue_needed(TESTBED, 4, 0.02)
    assert queue_needed(TESTBED, 12, 0.02) > queue_needed(TESTBED, 12, 0.1) > queue_needed(TESTBED, 12, 0.5)


def test_rule_on_hand_made_path() -> None:
    # BDP = 1.2e6 * 0.1 / 12000 = 10 pkts; 20 flows at max_p 0.02: 20*sqrt(3/(4*0.04)) - 10 = 76.60
    p = Bottleneck(rate_bps=1.2e6, base_rtt_s=0.1, pkt_bytes=1500, rwnd_pkts=20)
    t = derive(p, [20], [0.02])
    assert t.worst_queue_pkts == pytest.approx(20 * math.sqrt(18.75) - 10)
    assert (t.min_th, t.max_th, t.limit) == (38, 115, 230)  # 1.5 * 76.6 = 114.9 -> 115; 115 // 3


def test_rule_refuses_thresholds_the_flows_cannot_reach() -> None:
    p = Bottleneck(rate_bps=1.2e6, base_rtt_s=0.1, pkt_bytes=1500, rwnd_pkts=2)
    with pytest.raises(ValueError, match="cannot reach min_th"):
        derive(p, [2, 20], [0.02])


def test_testbed_file_uses_the_rule() -> None:
    t = for_testbed()
    data = tomllib.loads((HERE / "testbed.toml").read_text(encoding="utf-8"))
    q = next(x for x in data["topology"]["links"] if (x["from"], x["to"]) == ("R1", "R2"))["queue"]
    assert (q["min_th"], q["max_th"], q["limit"]) == (t.min_th, t.max_th, t.limit) == (23, 70, 140)
    assert q["kind"] == "red_star" and q["personality"] == "linux"  # tc red ecn, as the RFC's router


# --- sweep files -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["fairness", "bulk", "transactional"])
def test_quick_sweep_differs_only_in_seeds(kind: str) -> None:
    full, quick = load_sweep(HERE / f"{kind}.toml"), load_sweep(HERE / f"{kind}-quick.toml")
    assert full.seeds == tuple(range(1, 11)) and quick.seeds == (1, 2, 3)
    assert [(a.column, a.labels) for a in full.axes] == [(a.column, a.labels) for a in quick.axes]
    strip = lambda r: {k: v for k, v in r.resolved.items() if k not in ("seed", "name", "description")}  # noqa: E731
    by_name = {r.name: strip(r) for r in full.runs}
    for r in quick.runs:
        assert strip(r) == by_name[r.name]


def test_transactional_runs_do_not_share_flow_tables() -> None:
    # [set] flows = [...] is shared by every run; each axis value must still reach its own run.
    sw = load_sweep(HERE / "transactional-quick.toml")
    seen = {(r.axes["congestion"], r.axes["response"]): r for r in sw.runs if r.seed == 1}
    counts = {c: seen[(c, "5KB")].data["flows"][0]["count"] for c in ("low", "moderate", "high")}
    assert counts == {"low": 2, "moderate": 5, "high": 10}
    sizes = {s: seen[("high", s)].data["flows"][1]["response_size"] for s in ("5KB", "10KB", "20KB")}
    assert sizes == {"5KB": "5KiB", "10KB": "10KiB", "20KB": "20KiB"}


def test_paper_numbers_are_on_the_grid() -> None:
    bulk = load_sweep(HERE / "bulk-quick.toml")
    grid = {(r.axes["variant"], r.axes["congestion"], r.axes["maxp"]) for r in bulk.runs}
    assert set(paper.BULK_ADVANTAGE) <= grid
    tr = load_sweep(HERE / "transactional-quick.toml")
    grid_t = {(r.axes["variant"], r.axes["congestion"], r.axes["response"], r.axes["maxp"]) for r in tr.runs}
    assert set(paper.TRANSACTIONAL_GAIN) <= grid_t
    fa = load_sweep(HERE / "fairness-quick.toml")
    assert set(paper.FAIRNESS) <= {(r.axes["background"], r.axes["maxp"]) for r in fa.runs}


def test_diagnostic_sweeps_change_one_setting_of_their_parent() -> None:
    """bulk-ecn-min-cwnd2 is bulk.toml with tcp.ecn_min_cwnd = 2; transactional-ecn-plus is the
    transactional sweep's Reno/high/max_p 0.1 runs with ECN+ SYN-ACKs for the ECN client, nothing else."""
    import copy

    bulk = {r.name: r.data for r in load_sweep(HERE / "bulk.toml").runs}
    diag = load_sweep(HERE / "bulk-ecn-min-cwnd2.toml").runs
    assert len(diag) == len(bulk)
    for r in diag:
        want = copy.deepcopy(bulk[r.name])
        want["tcp"]["ecn_min_cwnd"] = 2
        assert r.data == want, r.name
    tr = {r.name: r.data for r in load_sweep(HERE / "transactional.toml").runs}
    plus = load_sweep(HERE / "transactional-ecn-plus.toml").runs
    assert len(plus) == 3 * 10
    for r in plus:
        want = copy.deepcopy(tr[r.name])
        want["flows"][1]["tcp"]["ecn_plus"] = True
        assert r.data == want, r.name
    quick = load_sweep(HERE / "transactional-ecn-plus-quick.toml")
    assert quick.seeds == (1, 2, 3) and [r.name for r in quick.runs] == [r.name for r in plus if r.seed <= 3]


def test_the_group_is_the_rfcs_experiment_and_all_adds_the_diagnostics() -> None:
    from ecnlab.experiments import resolve

    parts = ["rfc2884-fairness", "rfc2884-bulk", "rfc2884-transactional"]
    assert [e.name for e in resolve("rfc2884")] == parts
    everything = {e.name for e in resolve("all")}
    assert {*parts, "rfc2884-bulk-ecn-min-cwnd2", "rfc2884-transactional-ecn-plus"} <= everything


def test_the_report_quotes_the_papers_numbers_from_paper_py() -> None:
    from ecnlab.experiments.rfc2884 import paper as rfc_paper
    from ecnlab.experiments.rfc2884.report import paper_bulk_line, paper_transactional_line

    bulk, trans = paper_bulk_line(), paper_transactional_line()
    for v in rfc_paper.BULK_ADVANTAGE.values():
        assert f"{100 * v:.0f} %" in bulk
    for v in rfc_paper.TRANSACTIONAL_GAIN.values():
        assert f"{100 * v:.0f} %" in trans
    for v in rfc_paper.TRANSACTIONAL_TPS_ECN.values():
        assert f"{v:g}" in trans

"""``ecnlab bench bbr-ns3`` (python/ecnlab/bench/bbr.py): the grid, the scenario and the
parameters ns-3 is given, the comparison and its table, the one-line errors, and the quick
points run beside ns-3's TcpBbr."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ecnlab.bench import bbr
from ecnlab.bench.ns3cxx import params_text
from ecnlab.config import parse_scenario


def test_grid_is_rates_rtts_flows_and_queues_with_one_bdp_fifos() -> None:
    assert len(bbr.POINTS) == 16 and set(bbr.QUICK) <= set(bbr.POINTS)
    assert {p.queue for p in bbr.POINTS.values()} == {"fifo", "fq_codel"}
    # ⌈rate·RTT / 12 000 bits⌉: 16.7, 66.7, 83.3 and 333.3 packets.
    bdps = {(p.rate_mbit, p.rtt_ms): bbr.bdp_packets(p) for p in bbr.POINTS.values()}
    assert bdps == {(10, 20): 17, (10, 80): 67, (50, 20): 84, (50, 80): 334}


@pytest.mark.parametrize("name", ["50M-80ms-2f-fifo", "10M-20ms-1f-fq_codel"])
def test_scenario_is_a_paced_bbr_dumbbell_the_front_accepts(name: str) -> None:
    p = bbr.POINTS[name]
    sc = parse_scenario(bbr.scenario(p))
    assert len(sc.flows) == p.flows and all(f.tcp.cc == "bbr" and f.tcp.pacing for f in sc.flows)
    raw = bbr.scenario(p, quick=True)
    assert (raw["duration"], raw["warmup"]) == bbr.QUICK_RUN
    assert raw["topology"]["pairs"] == p.flows and raw["topology"]["bottleneck_delay"] == f"{p.rtt_ms / 2:g}ms"
    queue = raw["topology"]["bottleneck_queue"]
    assert queue == ({"kind": "droptail", "limit": bbr.bdp_packets(p)} if p.queue == "fifo" else
                     {"kind": "fq_codel", "ecn": False})  # fmt: skip


def _ours(queue: dict[str, object]) -> dict[str, object]:
    tcp = {"mss": 1460, "init_cwnd": 10, "delack_timeout": 0.04, "rwnd": 16 << 20, "initial_rto": 1,
           "min_rto": 0.2, "clock_granularity": 0.001}  # fmt: skip
    return {"tcp": tcp, "queue": queue, "duration_s": 40.0, "warmup_s": 10.0, "starts_s": [0.31, 0.29]}


def test_ns3_is_given_the_resolved_tcp_and_queue() -> None:
    fifo = bbr.ns3_params(bbr.POINTS["10M-20ms-2f-fifo"], _ours({"kind": "droptail", "limit": 17}))
    assert (fifo["queue"], fifo["limit"], fifo["pairs"], fifo["delay_s"]) == ("fifo", 17, 2, 0.01)
    assert "quantum" not in fifo and fifo["flow_starts"] == [0.31, 0.29]
    codel = {"kind": "fq_codel", "limit": 10240, "flows": 1024, "quantum": 1514, "target": 0.005, "interval": 0.1}
    fq = bbr.ns3_params(bbr.POINTS["50M-80ms-2f-fq_codel"], _ours(codel))
    got = (fq["quantum"], fq["target_s"], fq["interval_s"], fq["fq_flows"], fq["limit"])
    assert got == (1514, 0.005, 0.1, 1024, 10240) and fq["ack_elapsed_fix"] is False, "stock TcpBbr"
    assert bbr.ns3_params(bbr.POINTS["50M-80ms-2f-fq_codel"], _ours(codel), fix=True)["ack_elapsed_fix"] is True
    text = params_text(fq)
    assert "\nflow_starts 0.31 0.29\n" in text and "\nqueue fq_codel\n" in text and "\nrate_bps 50000000.0\n" in text


def test_jain_index() -> None:
    assert bbr.jain([5.0, 5.0]) == 1.0 and bbr.jain([9.0]) == 1.0
    assert bbr.jain([10.0, 0.0]) == 0.5
    assert math.isnan(bbr.jain([0.0, 0.0]))


def _side(goodputs: list[float], mean: float, p99: float, drops: int) -> dict[str, object]:
    return {"goodput_bps": goodputs, "sojourn_mean_ms": mean, "sojourn_p99_ms": p99, "drops": drops}


def test_compare_gives_each_side_and_ratios_and_one_table_row_per_point() -> None:
    ours = _side([4.8e6, 4.9e6], 10.0, 50.0, 300)
    ns3 = _side([9.6e6, 0.05e6], 5.0, 10.0, 0)
    fixed = _side([4.7e6, 4.75e6], 10.0, 40.0, 200)
    cmp = bbr.compare(ours, ns3, fixed)
    assert cmp["ecnlab"]["flows_mbit"] == [4.8, 4.9] and cmp["ecnlab"]["goodput_mbit"] == pytest.approx(9.7)
    assert cmp["ratio"]["sojourn_mean_ms"] == 2.0 and cmp["ratio"]["sojourn_p99_ms"] == 5.0
    assert cmp["ratio_fixed"]["sojourn_p99_ms"] == 1.25 and cmp["ratio_fixed"]["drops"] == 1.5
    assert math.isnan(cmp["ratio"]["drops"]), "no ratio to ns-3's zero"
    assert cmp["ns3"]["jain"] == pytest.approx(9.65**2 / (2 * (9.6**2 + 0.05**2)))
    one = bbr.compare(_side([9.7e6], 6.4, 12.5, 0), _side([0.05e6], 0.0, 0.0, 0), _side([9.72e6], 3.3, 7.9, 0))
    table = bbr.format_table([(bbr.POINTS["10M-20ms-2f-fq_codel"], cmp), (bbr.POINTS["10M-20ms-1f-fifo"], one)])
    lines = table.splitlines()
    assert len(lines) == 4 and lines[0].startswith("| point | goodput")
    assert lines[2] == (
        "| 10M-20ms-2f-fq_codel | 9.70 (4.80 + 4.90) / 9.65 (9.60 + 0.05) / 9.45 (4.70 + 4.75) | 1.00 / 0.51 / 1.00 | "
        "10.0 / 5.0 / 10.0 | 50.0 / 10.0 / 40.0 | 300 / 0 / 200 |"
    )
    one_row = "| 10M-20ms-1f-fifo | 9.70 / 0.05 / 9.72 | 1.00 / 1.00 / 1.00 | 6.4 / 0.0 / 3.3 | 12.5 / 0.0 / 7.9 |"
    assert lines[3] == one_row + " 0 / 0 / 0 |"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--points", "10M-20ms-2f-fiffo"],
            '--points = "10M-20ms-2f-fiffo": unknown name, did you mean '
            '"10M-20ms-2f-fifo"? (allowed: 10M-20ms-1f-fifo, ',
        ),  # fmt: skip
        (["--record", "out/bbr.txt"], "--record = 'out/bbr.txt': must end in .json"),
        (["--json", "no-such-dir/bbr.json"], "--json = 'no-such-dir/bbr.json': the directory 'no-such-dir' does not "),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    from ecnlab.cli import main

    assert main(["bench", "bbr-ns3", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ecnlab: error: {message}") and err.count("\n") == 1, err


@pytest.mark.engine
@pytest.mark.slow  # ns-3 beside the engine (its first build about 20 s)
def test_quick_points_beside_ns3_tcpbbr(tmp_path: Path) -> None:
    """The two --quick points (10 Mbit/s, 20 ms; 10 s runs): one flow through the one-BDP FIFO
    fills the link on every side and none drops; two flows through FQ-CoDel share it evenly in
    ecnlab (each its own CoDel queue) and in ns-3 with the ACK-phase fix, while stock ns-3.37
    leaves one flow starved after a loss. Skipped without libns3-dev."""
    why = bbr.ns3_missing()
    if why is not None:
        pytest.skip(why)
    rows = {}
    for name in bbr.QUICK:
        p = bbr.POINTS[name]
        ours = bbr.run_ecnlab(p, quick=True)
        stock = bbr.run_ns3(p, ours, tmp_path / name)
        rows[name] = bbr.compare(ours, stock, bbr.run_ns3(p, ours, tmp_path / f"{name}-fixed", fix=True))
    one = rows["10M-20ms-1f-fifo"]
    for k in bbr.SIDES:
        s = one[k]
        assert s["goodput_mbit"] > 9.5 and s["drops"] == 0, (k, s)
        assert 0 < s["sojourn_mean_ms"] <= s["sojourn_p99_ms"] <= 17 * 1.2 + 0.1, "at most the FIFO's 17 packets"
    two = rows["10M-20ms-2f-fq_codel"]
    for k in ("ecnlab", "ns3_fixed"):
        assert two[k]["goodput_mbit"] > 9.4 and two[k]["jain"] > 0.99, (k, two[k])
    assert min(two["ns3"]["flows_mbit"]) < 0.1, two["ns3"]

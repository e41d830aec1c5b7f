"""ecnlab beside htsim: what htsim's dumbbell is told comes from the ecnlab scenario, what htsim cannot express
is refused in one line, the driver's result line is read strictly, and (with ``ECNLAB_HTSIM_SRC`` set to an
htsim checkout) the quick bench builds htsim and both tools carry the same load through the bottleneck."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from ecnlab.bench.htsim import DRIVER_SOURCE, ENV_VAR, htsim_commit, parse_result, sim_dir
from ecnlab.bench.htsimbench import CASES, QUICK, format_table, jain, scenario, summarise
from ecnlab.bench.htsimspec import htsim_params
from ecnlab.bench.measure import PeerFailed
from ecnlab.cli import main
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError

BASE = scenario(QUICK["10"])


def _params(change: dict[str, Any]) -> dict[str, Any]:
    sc = copy.deepcopy(BASE)
    for path, value in change.items():
        *head, last = path.split(".")
        table = sc
        for key in head:
            table = table[key]
        table[last] = value
    return htsim_params(load_scenario(sc))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, {"cc": "dctcp", "packet_bytes": 1500, "mark_above_bytes": 300 * 1500, "limit": 3000, "mss": 1460}),
        ({}, {"rate_bps": 10**9, "delay_s": 0.01, "access_rate_bps": 10**10, "access_delay_s": 0.001}),
        ({}, {"access_limit": 1000, "reverse_limit": 1000, "init_cwnd": 10, "initial_rto": 1, "rtx_scan_s": 0.001}),
        ({}, {"duration": 3, "warmup": 1, "pairs": 10, "rwnd_pkts": (16 << 20) // 1460}),
        ({"tcp.mss": 1000}, {"packet_bytes": 1040, "mark_above_bytes": 300 * 1040, "rwnd_pkts": (16 << 20) // 1000}),
        ({"topology.bottleneck_queue": {"kind": "step", "limit": 500, "threshold_bytes": 60000}},
         {"mark_above_bytes": 60000, "limit": 500}),
        ({"tcp.clock_granularity": "10ms", "tcp.initial_rto": "3s", "tcp.init_cwnd": 2},
         {"rtx_scan_s": 0.01, "initial_rto": 3, "init_cwnd": 2}),
        ({"topology.bottleneck_rate": "100Mbit", "topology.bottleneck_delay": "5ms", "duration": "7s"},
         {"rate_bps": 10**8, "delay_s": 0.005, "duration": 7}),
        ({"tcp.cc": "reno", "tcp.ecn": False, "topology.bottleneck_queue": {"kind": "droptail", "limit": 200}},
         {"cc": "reno", "limit": 200, "mark_above_bytes": 200 * 1500}),
    ],
)  # fmt: skip
def test_htsim_params_follow_the_scenario(change: dict[str, Any], expected: dict[str, Any]) -> None:
    p = _params(change)
    assert {k: p[k] for k in expected} == expected


def test_flows_keep_their_host_pairs_and_starts() -> None:
    p = htsim_params(load_scenario(scenario(CASES["1000"])))
    assert len(p["flow_pairs"]) == len(p["flow_starts"]) == 1000
    assert p["pairs"] == 100 and p["flow_pairs"][:3] == [0, 1, 2] and p["flow_pairs"][100] == 0
    assert p["flow_starts"][1] == pytest.approx(0.001) and p["flow_starts"] == sorted(p["flow_starts"])


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"tcp.recovery": "sack"}, 'tcp.recovery = "sack": not supported by htsim\'s dumbbell: newreno'),
        ({"tcp.delayed_ack": True}, "tcp.delayed_ack = true: not supported by htsim's dumbbell: false"),
        ({"tcp.limited_transmit": True}, "tcp.limited_transmit = true: not supported by htsim's dumbbell"),
        ({"tcp.min_rto": "200ms"}, "tcp.min_rto = 0.2: not supported by htsim's dumbbell: 0.25 s"),
        ({"tcp.dctcp_shift_g": 5}, "tcp.dctcp_shift_g = 5: not supported by htsim's dumbbell: 4"),
        ({"tcp.cc": "cubic"}, 'tcp.cc = "cubic": not supported by htsim\'s dumbbell: dctcp'),
        ({"tcp.cc": "reno"}, 'topology.bottleneck_queue.kind = "step": not supported by htsim\'s dumbbell'),
        ({"tcp.cc": "reno", "tcp.ecn": True, "topology.bottleneck_queue": {"kind": "droptail"}}, "tcp.ecn = true"),
        ({"topology.bottleneck_queue": {"kind": "red", "limit": 100, "min_th": 5, "max_th": 15, "ecn": True}},
         'topology.bottleneck_queue.kind = "red"'),
        ({"topology.bottleneck_queue": {"kind": "step", "limit": 100, "threshold_delay": "1ms"}},
         "topology.bottleneck_queue.threshold_delay = 0.001"),
        ({"topology.bottleneck_queue": {"kind": "step", "limit_bytes": 150000, "threshold": 20}},
         "topology.bottleneck_queue.limit_bytes"),
        ({"topology.access_loss": 0.01}, "topology.access_loss = 0.01"),
        ({"flows": [{"name": "f", "kind": "bulk", "from": "s1", "to": "r2"}]}, 'flows[0].to = "r2": not supported'),
        ({"flows": [{"name": "f", "kind": "bulk", "from": "s1", "to": "r1", "bytes": "1MB"}]}, "flows[0].kind"),
    ],
)  # fmt: skip
def test_what_htsim_cannot_express_is_refused_in_one_line(change: dict[str, Any], line: str) -> None:
    with pytest.raises(ScenarioError) as e:
        _params(change)
    assert "\n" not in str(e.value) and str(e.value).startswith(line), str(e.value)


def test_the_driver_reads_only_keys_the_parameters_set() -> None:
    used = set(re.findall(r'(?:num|words)\(p, "(\w+)"\)', DRIVER_SOURCE.read_text()))
    reno = _params({"tcp.cc": "reno", "tcp.ecn": False, "topology.bottleneck_queue": {"kind": "droptail"}})
    assert used and used <= set(_params({})) and used <= set(reno), used - set(_params({}))


HTSIM_NOISE = "At 1.25 RTO 250 MDEV 0 RTT 24 SEQ 3 HSENT 9000 CWND 1 FAST RECOVERY? 0 Flow ID tcp\n"
RESULT = {
    "tool": "htsim",
    "run_s": 0.5,
    "setup_s": 0.01,
    "bottleneck_packets": 1000,
    "marks": 10,
    "overflow_drops": 0,
    "avg_qlen_pkts": 12.5,
    "utilisation": 0.99,
    "timeouts": 1,
    "fast_recoveries": 2,
    "peak_rss_mib": 5.0,
    "goodput_bps": [5e8, 4.7e8],
}


def test_the_driver_result_line_is_read_after_htsims_own_output() -> None:
    assert parse_result(HTSIM_NOISE + json.dumps(RESULT) + "\n") == RESULT


@pytest.mark.parametrize(
    ("stdout", "message"),
    [
        (HTSIM_NOISE, "htsim: no JSON result line in its output"),
        (json.dumps({k: v for k, v in RESULT.items() if k != "run_s"}), "htsim: result line without run_s"),
        ('{"run_s": 1', "htsim: no JSON result line in its output"),
    ],
)
def test_a_broken_result_line_is_one_error(stdout: str, message: str) -> None:
    with pytest.raises(PeerFailed, match=re.escape(message)):
        parse_result(stdout)


def test_summary_takes_medians_and_the_engine_speed_up() -> None:
    def run(run_s: float, goodput: list[float]) -> dict[str, Any]:
        return {**RESULT, "wall_s": run_s + 0.1, "run_s": run_s, "goodput_bps": goodput}

    runs = {
        "ecnlab": [run(0.2, [1.0, 1.0]), run(0.4, [1.0, 1.0]), run(0.3, [1.0, 1.0])],
        "htsim": [run(0.9, [1.0, 0.0]), run(0.6, [1.0, 0.0])],
    }
    s = summarise(QUICK["10"], runs)
    assert s["tools"]["ecnlab"]["run_s"] == 0.3 and s["tools"]["htsim"]["run_s"] == 0.75
    assert s["speedup"] == pytest.approx(2.5)
    assert s["tools"]["ecnlab"]["ns_per_packet"] == pytest.approx(0.3e9 / 1000)
    assert s["tools"]["ecnlab"]["jain"] == 1.0 and s["tools"]["htsim"]["jain"] == 0.5
    table = format_table([s])
    assert table.splitlines()[0].startswith("| flows | s | wall s | engine s | engine speed-up |")
    row = "| 10 | 3 | 0.4 / 0.85 | 0.3 / 0.75 | 2.5x | 300000 / 750000 | 1000 / 1000 |"
    assert table.splitlines()[2].startswith(row)
    assert "| 0.99 / 0.99 | 1 / 0.5 | 12.5 / 12.5 |" in table


def test_jain_of_nothing_delivered_is_none() -> None:
    assert jain([0.0, 0.0]) is None and jain([2.0, 2.0]) == 1.0


def _fake_sim(root: Path) -> Path:
    sim = root / "sim"
    sim.mkdir(parents=True)
    for name in ("Makefile", "tcp.h", "ecnqueue.h"):
        (sim / name).write_text(f"// {name}\n")
    return sim


def test_the_checkout_is_its_root_or_its_sim_directory(tmp_path: Path) -> None:
    sim = _fake_sim(tmp_path / "htsim")
    assert sim_dir(tmp_path / "htsim") == sim and sim_dir(sim) == sim
    assert htsim_commit(sim).startswith("sources sha256 ")  # outside git: the sources' hash
    with pytest.raises(PeerFailed, match="no htsim sim/ directory there"):
        sim_dir(tmp_path)


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ([], None, f"bench htsim needs an htsim checkout (https://github.com/Broadcom/csg-htsim): --htsim-src DIR or "
                   f"{ENV_VAR}=DIR"),
        (["--htsim-src", "{tmp}"], None, "--htsim-src = '{tmp}': no htsim sim/ directory there"),
        ([], "{tmp}", "--htsim-src = '{tmp}': no htsim sim/ directory there"),
        (["--reps", "0"], "{tmp}", "--reps = 0: must be >= 1"),
        (["--cases", "10,20"], "{tmp}", '--cases = "20": unknown name (allowed: 10, 1000, 10000)'),
        (["--quick", "--cases", "10000"], "{tmp}", '--cases = "10000": unknown name, did you mean "1000"? (allowed:'),
        (["--json", "{tmp}/no/such.json"], "{tmp}", "--json = '{tmp}/no/such.json': the directory"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line_and_status_2(argv, env, message, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(ENV_VAR, raising=False)
    if env is not None:
        monkeypatch.setenv(ENV_VAR, env.format(tmp=tmp_path))
    assert main(["bench", "htsim", *(a.format(tmp=tmp_path) for a in argv)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(tmp=tmp_path) in err, err


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get(ENV_VAR), reason=f"needs an htsim checkout in {ENV_VAR}")
def test_quick_bench_builds_htsim_and_both_carry_the_load(tmp_path: Path, capsys) -> None:
    out = tmp_path / "htsim.json"
    assert main(["bench", "htsim", "--quick", "--reps", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["htsim_commit"] and [c["flows"] for c in data["cases"]] == [10, 1000]
    for case in data["cases"]:
        for tool in ("ecnlab", "htsim"):
            t = case["tools"][tool]
            assert t["run_s"] > 0 and t["wall_s"] >= t["run_s"] and t["peak_rss_mib"] > 0
            assert t["bottleneck_packets"] > 0 and t["marks"] > 0, (tool, t)
    many = next(case["tools"] for case in data["cases"] if case["flows"] == 1000)
    # 1 000 flows keep a 1 Gbit/s bottleneck busy in both simulators, through the same number of packets ±10 %.
    assert many["ecnlab"]["utilisation"] > 0.95 and many["htsim"]["utilisation"] > 0.95
    assert many["htsim"]["bottleneck_packets"] == pytest.approx(many["ecnlab"]["bottleneck_packets"], rel=0.1)
    assert "| 1000 | 3 |" in capsys.readouterr().out

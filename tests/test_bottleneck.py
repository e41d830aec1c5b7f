"""Where a run's congestion signals happened: the per-hop report, and the warning when they happened
away from the queue the scenario configured as its bottleneck (``ecnlab.bottleneck``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ecnlab
from conftest import SCENARIOS, run_cli
from ecnlab.bottleneck import AWAY_SHARE, MIN_SIGNALS, configured_bottleneck, signal_warnings
from ecnlab.config import load_scenario

ACCESS = SCENARIOS / "dumbbell-access-bottleneck.toml"


def _queue(link: str, *, arrivals: int = 1000, marks: int = 0, drops: int = 0) -> dict[str, Any]:
    return {
        "link": link,
        "arrivals": arrivals,
        "marks": marks,
        "quenches": 0,
        "early_drops": 0,
        "forced_drops": 0,
        "overflow_drops": drops,
    }


def test_an_access_link_slower_than_the_aqm_warns_naming_the_hop(tmp_path: Path) -> None:
    r = run_cli("run", str(ACCESS), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    (warning,) = [ln for ln in lines if ln.startswith("warning: ")]
    assert "% of the congestion signals" in warning
    assert "happened at R2->r1 (droptail: " in warning and "R2->r2 (droptail: " in warning
    assert warning.endswith("not at the configured bottleneck R1->R2 (dualpi2)")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["warnings"] == [warning.removeprefix("warning: ")]
    # The hops that dropped are in the per-hop table, their drops as the warning counts them.
    queues = {q["link"]: q for q in summary["queues"]}
    rows = {ln.split()[0]: ln.split() for ln in lines if ln.startswith(("R1->R2 ", "R2->r1 ", "R2->r2 "))}
    drops = queues["R2->r1"]["overflow_drops_after_warmup"]  # the report's and the warning's counts
    assert int(rows["R2->r1"][5]) == drops > 0
    assert f"R2->r1 (droptail: {drops})" in warning


def test_a_quiet_run_still_warns_on_stderr(tmp_path: Path) -> None:
    r = run_cli("run", str(ACCESS), "--out", str(tmp_path / "out"), "--quiet", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith("ecnlab: warning: ") and "happened at R2->r1 (droptail: " in line


def test_a_dumbbell_that_signals_at_its_aqm_has_no_warning(tmp_path: Path) -> None:
    r = run_cli("run", str(SCENARIOS / "dumbbell-dualpi2.toml"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""
    assert "warning" not in r.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "warnings" not in summary
    bottleneck = next(q for q in summary["queues"] if q["link"] == "R1->R2")
    assert bottleneck["marks"] > MIN_SIGNALS
    # DualPI2's classes, one row each under the queue table, with the class's own counters.
    lines = r.stdout.splitlines()
    assert lines[lines.index(next(ln for ln in lines if ln.startswith("class "))) + 1].split()[:2] == ["R1->R2", "L"]
    c = bottleneck["classes"][1]
    (row,) = [ln.split() for ln in lines if ln.startswith("R1->R2 C ")]
    after = [c[f"{k}_after_warmup"] for k in ("dequeued", "marks", "step_marks", "drops")]
    assert row[2:6] == [str(v) for v in after] and c["dequeued_after_warmup"] < c["dequeued"]
    assert row[-1] == f"{c['sojourn']['max_ms']:.3f}"


def test_the_warning_needs_the_share_and_enough_signals() -> None:
    topo = load_scenario(SCENARIOS / "dumbbell-dualpi2.toml").topology
    at_aqm = 100
    away = round(AWAY_SHARE * at_aqm / (1 - AWAY_SHARE))  # exactly AWAY_SHARE of the signals
    queues = [_queue("R1->R2", marks=at_aqm), _queue("s1->R1", drops=away)]
    assert len(signal_warnings(topo, queues)) == 1
    queues[1]["overflow_drops"] = away - 1
    assert signal_warnings(topo, queues) == []
    few = [_queue("s1->R1", drops=MIN_SIGNALS - 1)]
    assert signal_warnings(topo, few) == []
    (w,) = signal_warnings(topo, [_queue("s1->R1", drops=MIN_SIGNALS)])
    assert w.startswith(f"100 % of the congestion signals ({MIN_SIGNALS} of {MIN_SIGNALS} marks and drops)")


def test_the_warning_names_the_busiest_hops_and_counts_the_rest() -> None:
    topo = load_scenario(SCENARIOS / "dumbbell-dualpi2.toml").topology
    queues = [_queue(f"R2->r{i}", drops=10 * i) for i in range(1, 6)] + [_queue("R1->R2", arrivals=9)]
    (w,) = signal_warnings(topo, queues)
    assert "happened at R2->r5 (droptail: 50), R2->r4 (droptail: 40), R2->r3 (droptail: 30) and 2 other queues" in w
    # The configured queue named is the bottleneck link's direction that carried the most packets.
    queues.append(_queue("R2->R1", arrivals=10))
    assert signal_warnings(topo, queues)[0].endswith("not at the configured bottleneck R2->R1 (droptail)")


def test_explicit_topologies_mean_their_queues_that_are_not_droptail() -> None:
    sc = load_scenario(SCENARIOS / "explicit-two-bottlenecks.toml")
    assert configured_bottleneck(sc.topology) == {"A->B": "red", "B->A": "red_star"}
    (w,) = signal_warnings(sc.topology, [_queue("client1->A", drops=50), _queue("A->B", arrivals=5000)])
    assert w.endswith("happened at client1->A (droptail: 50), not at the configured bottleneck A->B (red)")
    assert signal_warnings(sc.topology, [_queue("client1->A", drops=50), _queue("A->B", marks=10)]) == []


def test_an_explicit_topology_of_droptail_queues_means_none_and_never_warns() -> None:
    plain = '{kind = "droptail", limit = 100}'
    sc = load_scenario(
        SCENARIOS / "explicit-two-bottlenecks.toml",
        [f"topology.links[6].queue={plain}", f"topology.links[6].reverse_queue={plain}"],
    )
    assert configured_bottleneck(sc.topology) == {}
    assert signal_warnings(sc.topology, [_queue("client1->A", drops=500)]) == []


def test_a_dumbbell_means_its_bottleneck_link_whatever_its_queue() -> None:
    sc = load_scenario(SCENARIOS / "dumbbell-dualpi2.toml", ['topology.bottleneck_queue={kind = "droptail"}'])
    assert configured_bottleneck(sc.topology) == {"R1->R2": "droptail", "R2->R1": "droptail"}
    assert len(signal_warnings(sc.topology, [_queue("s1->R1", drops=500)])) == 1


def test_the_emulation_report_has_the_same_hop_columns_and_classes() -> None:
    from ecnlab.emu.compare import format_emu_report

    s = ecnlab.run(SCENARIOS / "dumbbell-dualpi2.toml", overrides={"duration": "4s", "warmup": "1s"}).summary
    s["sim"]["wall_s"] = 4.0
    s["emulation"] = {"router": {"lateness": {"p50_us": 5.0, "p99_us": 9.0}}}
    lines = format_emu_report(s).splitlines()
    assert next(ln for ln in lines if ln.startswith("queue ")).split()[-5:] == ["mean", "delay", "ms", "p99", "max"]
    q = next(q for q in s["queues"] if q["link"] == "R1->R2")
    (row,) = [ln.split() for ln in lines if ln.startswith("R1->R2 ") and not ln.startswith(("R1->R2 L", "R1->R2 C"))]
    assert row[-3:] == [f"{q[k]:.3f}" for k in ("sojourn_mean_ms", "sojourn_p99_ms", "sojourn_max_ms")]
    assert [ln.split()[1] for ln in lines if ln.startswith(("R1->R2 L", "R1->R2 C"))] == ["L", "C"]

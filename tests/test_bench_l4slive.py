"""``ecnlab bench l4s-live``: its argument errors (one line, exit 2), the table built from canned
measures, and, as root, the quick grid live (real CUBIC beside a real DCTCP and the BPF
Prague-like through the emulated DualPI2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ecnlab.bench.l4slive import (
    CLASSIC,
    SCALABLE,
    Measure,
    Point,
    format_row,
    format_table,
    measure,
    points,
    scenario,
    verdict,
)
from ecnlab.cli import main
from ecnlab.emu.steal import Steal


def _m(cubic: float, l_flow: float, p99_l: float | None, p99_c: float | None, marks_l: float = 100.0) -> Measure:
    return Measure(
        {CLASSIC: cubic * 1e6, SCALABLE: l_flow * 1e6},
        {"L": p99_l, "C": p99_c},
        {"L": marks_l, "C": 10.0},
        {"L": 0.0 if p99_l is None else 500.0, "C": 900.0},
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--runs", "0"], "--runs = 0: must be between 1 and 100"),
        (["--seconds", "2"], "--seconds = 2.0: must be between 5 and 3600"),
        (["--redo-disturbed", "11"], "--redo-disturbed = 11: must be between 0 and 10"),
        (["--points", "bbr"], "--points"),
        (["--record", "x.txt"], "--record = 'x.txt': must end in .json"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "l4s-live", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("ecnlab: error: ") and message in err, err


def test_without_root_it_stops_in_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["bench", "l4s-live", "--quick"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "run it as root" in err, err


def test_the_grid_is_both_senders_at_two_rates_and_two_rtts() -> None:
    names = [p.name for p in points()]
    assert len(names) == 8 and len(set(names)) == 8
    assert [p.name for p in points(quick=True)] == ["cubic+dctcp-10M-10ms", "cubic+prague-like-10M-10ms"]


def test_both_sides_run_one_scenario_but_for_the_scalable_senders_tcp() -> None:
    """The Prague-like's simulated counterpart is the simulator's Prague over classic ECN with DCTCP's
    echo (no Reno fallback), without the rate-based mode (v0.6) and with 0.7's 4 rounds of transition."""
    p = Point(50, 40, "prague-like")
    sim, linux = scenario(p, 30, 5, 2, "sim"), scenario(p, 30, 5, 2, "linux")
    assert linux["flows"][1]["tcp"] == {"cc": "prague"}
    assert sim["flows"][1]["tcp"] == {
        "cc": "prague",
        "prague_feedback": "dctcp",
        "prague_version": "v0.6",
        "prague_rtt_transition": 4,
    }
    assert scenario(Point(10, 10, "dctcp"), 30, 5, 2, "sim")["flows"][1]["tcp"] == {"cc": "dctcp"}
    sim["flows"][1]["tcp"] = linux["flows"][1]["tcp"]
    assert sim == linux
    assert linux["impairments"] == [{"link": "s2->R1", "action": "ect0_to_ect1"}]
    assert linux["topology"]["bottleneck_queue"] == {"kind": "dualpi2"}
    assert linux["topology"]["bottleneck_delay"] == "20.0ms"


def test_the_verdict_judges_goodput_within_10_percent_and_p99_within_2x() -> None:
    base = _m(7.0, 2.0, 4.0, 28.0)
    assert verdict(base, _m(7.5, 1.9, 2.1, 50.0)) == "ok"
    assert verdict(base, _m(7.0, 1.6, 4.0, 28.0)) == "L-flow goodput +25%"
    assert verdict(base, _m(7.0, 2.0, 1.0, 60.0)) == "L p99 ×4.00; C p99 ×0.47"
    assert verdict(base, _m(7.0, 2.0, None, 28.0)) == "no L-queue packets on the Linux side; L p99 on the sim side only"


def test_the_table_shows_both_sides_the_means_and_the_spread() -> None:
    sim = Measure.mean([_m(7.0, 2.0, 4.0, 28.0), _m(7.2, 2.2, 4.4, 30.0)])
    emu = Measure.mean([_m(7.4, 1.8, 3.0, 29.0, 700), _m(7.6, 2.0, 3.2, 27.0, 740)])
    emu = Measure(
        **{**emu.__dict__, "runs": (emu.runs[0], Measure(**{**emu.runs[1].__dict__, "steal": Steal(2.0, 0.5)}))}
    )
    row = {"point": Point(10, 10, "prague-like"), "sim": sim, "emu": emu, "verdict": verdict(sim, emu)}
    line = format_row(row)
    assert line.startswith("| Prague-like | 10M | 10 ms | 7.10 / 7.50 | -5.3% | 2.10 / 1.90 | +10.5% |")
    assert "| 4.2 / 3.1 | 1.35 | 29.0 / 28.0 | 1.04 | 100 / 720 | 10 / 10 | L-flow goodput +11% |" in line
    table = format_table([{**row, "runs": 2, "seconds": 30.0}])
    assert "0 of 1 points within their targets; 2 run(s) of 30 s" in table
    assert "cubic+prague-like-10M-10ms (seed 2): 0.50 s" in table  # the disturbed run named
    assert "| cubic+prague-like-10M-10ms | 7.00, 7.20 | 3% | 7.40, 7.60 | 3% |" in table
    stored = format_table([{**row, "runs": 2, "seconds": 30.0}], spread=False)  # --record: the spread is details
    assert stored in table and "Run to run" not in stored and "(seed 2): 0.50 s" in stored


def test_a_summary_is_read_by_flow_and_by_dualpi2_class() -> None:
    classes = [
        {"name": "L", "dequeued": 40, "marks": 7, "sojourn": {"p99_ms": 1.5}},
        {"name": "C", "dequeued": 90, "marks": 2, "sojourn": None},
    ]
    summary = {
        "flows": [{"id": CLASSIC, "goodput_bps": 3e6}, {"id": SCALABLE, "goodput_bps": 4e6}],
        "queues": [{"link": "s1->R1"}, {"link": "R1->R2", "classes": classes}],
        "emulation": {"cpu_steal": {"total_s": 0.1, "peak_s": 0.02}},
    }
    m = measure(summary)
    assert m.goodput_bps == {CLASSIC: 3e6, SCALABLE: 4e6} and m.p99_ms == {"L": 1.5, "C": None}
    assert m.marks == {"L": 7.0, "C": 2.0} and m.steal == Steal(0.1, 0.02)


@pytest.mark.slow
@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_quick_grid_runs_live_with_the_scalable_flow_in_the_l_queue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from ecnlab.emu import bpf

    why = bpf.why_not()
    if why is not None:
        pytest.skip(why)
    record = tmp_path / "l4s.json"
    assert main(["bench", "l4s-live", "--quick", "--record", str(record)]) == 0
    stored = json.loads(record.read_text())
    rows = stored["data"]
    assert [r["point"]["sender"] for r in rows] == ["dctcp", "prague-like"]
    for r in rows:  # the re-marking put the scalable flow in L on both sides; CUBIC stayed in C
        for side in ("sim", "emu"):
            assert r[side]["dequeued"]["L"] > 0 and r[side]["dequeued"]["C"] > 0
            assert r[side]["goodput_bps"]["scalable"] > 0.1e6 and r[side]["goodput_bps"]["classic"] > 0.1e6
    assert stored["table"].count("\n| ") == 2 and "points within their targets" in capsys.readouterr().out

"""CPU steal during a live run (ecnlab.emu.steal): read from /proc/stat, sampled each
second, said as a warning and under the fidelity table when the hypervisor took more than
``PEAK_WARN_S`` of CPU within one second (the runs whose timing was not the network's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecnlab.bench.fidelity import Measure, Point, format_disturbed, format_spread, format_table
from ecnlab.config import load_scenario
from ecnlab.emu.steal import PEAK_WARN_S, Steal, StealMeter, parse_steal_ticks, read_steal_s
from ecnlab.emu.summary import warnings

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "emulate-reno-ecn.toml"

# proc(5): cpu  user nice system idle iowait irq softirq steal guest guest_nice
PROC_STAT = """cpu  1810979 2019 249112 5155746 2649 0 47327 38981 0 0
cpu0 899252 1121 121129 2591905 1592 0 24482 19528 0 0
cpu1 911727 897 127982 2563840 1056 0 22845 19452 0 0
intr 1 2 3
"""


def test_steal_is_the_aggregate_cpu_lines_eighth_value():
    assert parse_steal_ticks(PROC_STAT) == 38981
    assert parse_steal_ticks("cpu  1 2 3 4 5 6 7\n") == 0, "kernels before 2.6.11 have no steal field"
    with pytest.raises(ValueError):
        parse_steal_ticks("cpu0 1 2 3 4 5 6 7 8\n")
    assert read_steal_s(Path("/nonexistent/stat")) is None


def test_this_machines_counter_reads_and_never_goes_back():
    a = read_steal_s()
    b = read_steal_s()
    assert a is not None and b is not None and 0 <= a <= b


def test_meter_keeps_the_total_and_the_most_in_one_interval():
    readings = iter([10.0, 10.01, 10.6, 10.62, 10.65])
    meter = StealMeter(interval=3600, read=lambda: next(readings))
    meter.start()  # 10.0
    for _ in range(3):
        meter._sample()  # 10.01, 10.6, 10.62: the thread's samples, here by hand
    got = meter.stop()  # 10.65
    assert got == Steal(total_s=0.65, peak_s=0.59) and got.disturbed
    quiet = StealMeter(interval=3600, read=lambda: 5.0)
    quiet.start()
    assert quiet.stop() == Steal(0.0, 0.0) and not Steal(1.0, PEAK_WARN_S).disturbed
    blind = StealMeter(interval=3600, read=lambda: None)
    blind.start()
    assert blind.stop() is None


def test_a_disturbed_emulation_says_so():
    sc = load_scenario(SCENARIO)
    zero = {"early_drops": 0, "forced_drops": 0, "overflow_drops": 0}
    queues = [{"link": link.name, **zero} for link in sc.topology.links]
    emu = {"router": {"lateness": {"p50_us": 10.0, "p99_us": 40.0}}, "cpu_steal": {"total_s": 0.4, "peak_s": 0.05}}
    summary = {"queues": queues, "emulation": emu}
    assert warnings(sc, summary) == []
    emu["cpu_steal"] = {"total_s": 6.62, "peak_s": 2.12}
    (w,) = warnings(sc, summary)
    assert "took 6.62 s of CPU time" in w and "up to 2.12 s within one second > 0.1 s" in w
    emu["cpu_steal"] = None  # no /proc/stat
    assert warnings(sc, summary) == []


def test_fidelity_names_the_disturbed_linux_runs():
    p = Point(50, 80, 1, "red", True, cc="cubic")
    sim = Measure(4e7, 16, 0, 0, 4.0)
    calm = Measure(4e7, 17, 0, 0, 4.0, steal=Steal(0.3, 0.01))
    hit = Measure(3e7, 42, 0, 0, 3.0, steal=Steal(6.6, 2.12))
    emu = Measure.mean([calm, hit])
    rows = [{"point": p, "sim": Measure.mean([sim, sim]), "emu": emu, "verdict": "ok"}]
    line = format_disturbed(rows)
    assert line.endswith(f"{p.name} (seed 2): 2.12 s.") and "(seed 1)" not in line
    assert line in format_table(rows)
    assert "| 0.01, 2.12 |" in format_spread(rows)
    one = [{"point": p, "sim": sim, "emu": hit, "verdict": "ok"}]
    assert format_disturbed(one).endswith(f"{p.name}: 2.12 s.")
    assert format_disturbed([{"point": p, "sim": sim, "emu": calm, "verdict": "ok"}]) == ""
    assert format_disturbed([{"point": p, "sim": sim, "emu": sim, "verdict": "ok"}]) == "", "no steal known"

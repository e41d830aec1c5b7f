"""CPU steal during a live run (ecnlab.emu.steal): read from /proc/stat, sampled each
second, said as a warning and under the fidelity table when the hypervisor took more than
``PEAK_WARN_S`` of CPU within one second (the runs whose timing was not the network's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecnlab.bench.fidelity import Measure, Point, format_disturbed, format_spread, format_table, linux_run
from ecnlab.cli import main
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
    zero = {"arrivals": 0, "marks": 0, "early_drops": 0, "forced_drops": 0, "overflow_drops": 0}
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
    single = [{"point": p, "sim": sim, "emu": Measure.mean([hit]), "verdict": "ok"}]
    assert format_disturbed(single) == format_disturbed(one), "one run (--runs 1) keeps its steal"


def _scripted(peaks: list[float], written: list[Path | None]):
    """A Linux side whose attempts have these steal peaks (goodput 10, 20, 30 … Mbit/s),
    each writing its series file."""
    it = iter(enumerate(peaks, start=1))

    def measure(path: Path | None) -> Measure:
        k, peak = next(it)
        written.append(path)
        if path is not None:
            path.write_text(f"attempt {k}")
        return Measure(k * 1e7, 10, 0, 0, 5.0, steal=Steal(peak * 3, peak))

    return measure


def test_a_disturbed_linux_run_is_set_aside_and_run_again(tmp_path):
    """--redo-disturbed K: an attempt over the threshold is set aside and the run made
    again; the first calm attempt is kept, chosen by its steal before its numbers are read;
    the set-aside ones stay on disk and are named under the table with their goodput."""
    keep, written, said = tmp_path / "pt-linux-1.parquet", [], []
    m = linux_run(_scripted([0.44, 0.19, 0.02, 0.01], written), keep, 3, said.append)
    assert m.goodput_bps == 3e7 and m.steal == Steal(0.06, 0.02) and len(written) == 3, "stops at the first calm one"
    assert [a.goodput_bps for a in m.set_aside] == [1e7, 2e7]
    assert keep.read_text() == "attempt 3"
    assert [(tmp_path / f"pt-linux-1-set-aside-{j}.parquet").read_text() for j in (1, 2)] == ["attempt 1", "attempt 2"]
    assert sorted(x.name for x in tmp_path.iterdir()) == [
        "pt-linux-1-set-aside-1.parquet",
        "pt-linux-1-set-aside-2.parquet",
        "pt-linux-1.parquet",
    ]
    assert said == [
        "warning: the hypervisor took 0.44 s of CPU in one second of this run, running it again",
        "warning: the hypervisor took 0.19 s of CPU in one second of this run, running it again",
    ]
    p = Point(100, 100, 1, "red", True, cc="cubic")
    sim = Measure(7e7, 30, 0, 0, 2.0)
    rows = [{"point": p, "sim": Measure.mean([sim, sim]), "emu": Measure.mean([m, m]), "verdict": "ok"}]
    text = format_disturbed(rows)
    assert "Linux runs the machine disturbed" not in text, "the kept runs were calm"
    assert f"{p.name} (seed 1): 0.44 s, 10.00 Mbit/s, 0.19 s, 20.00 Mbit/s; {p.name} (seed 2):" in text
    assert text in format_table(rows)


def test_without_redo_or_when_every_attempt_is_disturbed():
    """K = 0 keeps every run as it came; when all K + 1 attempts are disturbed the least
    disturbed one is kept and still named as disturbed."""
    written: list[Path | None] = []
    m = linux_run(_scripted([0.44], written), None, 0, lambda _: None)
    assert m.steal == Steal(1.32, 0.44) and m.set_aside == () and written == [None]
    m = linux_run(_scripted([0.44, 0.12, 0.30], written), None, 2, lambda _: None)
    assert m.goodput_bps == 2e7 and [a.goodput_bps for a in m.set_aside] == [1e7, 3e7]
    p = Point(100, 100, 1, "red", True, cc="cubic")
    line = format_disturbed([{"point": p, "sim": Measure(7e7, 30, 0, 0, 2.0), "emu": m, "verdict": "ok"}])
    assert f"within one second, more than {PEAK_WARN_S:g} s): {p.name}: 0.12 s." in line
    assert line.endswith(f"{p.name}: 0.44 s, 10.00 Mbit/s, 0.30 s, 30.00 Mbit/s.")


def test_redo_disturbed_out_of_range_is_refused(capsys):
    assert main(["bench", "fidelity", "--redo-disturbed", "11"]) == 2
    assert "--redo-disturbed = 11: must be between 0 and 10" in capsys.readouterr().err

"""``ecnlab bench scaling``: the grid's scenarios are valid and small in the front, and
one tiny point is measured end to end (the output's shape only; no timing is asserted)."""

from __future__ import annotations

from ecnlab.bench.scaling import Point, format_scaling, points, run_scaling, scenario
from ecnlab.config import load_scenario


def test_every_point_is_a_valid_scenario_of_one_flow_entry_or_one_entry_per_flow() -> None:
    grid = points(quick=False)
    assert {p.series for p in grid} == {"flows", "million", "rate", "entries", "fattree"}
    assert max(p.flows for p in grid) == 1_000_000 and max(p.rate_bps for p in grid) == 10**11
    for p in grid:
        data = scenario(p)
        entries = p.flows if p.series == "entries" else 1
        assert len(data["flows"]) == entries
        if p.flows <= 100_000:  # the million is loaded by the benchmark itself
            sc = load_scenario(data)
            assert sum(g.size for g in sc.groups) == p.flows


def test_a_tiny_point_is_measured() -> None:
    rows = run_scaling(False, lambda _: None, chosen=[Point("flows", 10**7, 10, 2.0)])
    (r,) = rows
    assert r["packets"] > 0 and r["engine_s"] > 0 and r["command_s"] >= r["engine_s"]
    assert r["outside_s"] == r["command_s"] - r["engine_s"]
    # The command reads its own VmHWM from /proc/self/status (bench/measure.py): Linux always has it.
    assert isinstance(r["peak_rss_mib"], float) and r["peak_rss_mib"] > 0
    assert len(format_scaling(rows).splitlines()) == 2


def test_an_unknown_series_is_refused_in_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    from ecnlab.cli import main

    assert main(["bench", "scaling", "--only", "flow"]) == 2
    assert capsys.readouterr().err == (
        'ecnlab: error: --only = "flow": unknown name, did you mean "flows"? '
        "(allowed: flows, million, rate, entries, fattree)\n"
    )

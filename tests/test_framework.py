"""The study framework's pieces: verdicts, claims, paper values, cells with intervals, per-run metrics kept once."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments.framework import (
    Claim,
    PaperValue,
    Part,
    Verdict,
    cells,
    claims_from_table,
    mean_ci95,
    read_claims,
    results_of,
    write_claims,
)
from ecnlab.store import SweepResults


def test_verdicts_from_counts_and_checks() -> None:
    assert Verdict.of_share(3, 3) is Verdict.HOLDS
    assert Verdict.of_share(1, 3) is Verdict.PARTLY
    assert Verdict.of_share(0, 3) is Verdict.DOES_NOT_HOLD
    assert Verdict.of_share(0, 0) is Verdict.NOT_RUN
    assert Verdict.of_bool(None) is Verdict.NOT_RUN and Verdict.of_bool(False) is Verdict.DOES_NOT_HOLD
    assert Verdict.of_all([True, None, False]) is Verdict.PARTLY and Verdict.of_all([None]) is Verdict.NOT_RUN


def test_claim_reason_is_one_line_and_round_trips(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one line"):
        Claim("x", Verdict.HOLDS, "two\nlines")
    c = Claim("ECN helps", "partly", "2 of 3 cells", "§4", "part-a")  # type: ignore[arg-type]
    assert c.verdict is Verdict.PARTLY
    write_claims(tmp_path, [c], None)
    got = read_claims(tmp_path)
    assert got.found and got.claims == [c] and got.key_figure is None
    assert not read_claims(tmp_path / "missing").found


def test_paper_value_difference_and_match() -> None:
    v = PaperValue("fairness", 0.99, "§5.1", ecnlab=0.97, ci95=0.01)
    assert v.diff == pytest.approx(-0.02)
    assert v.within(0.03) is True and v.within(0.01) is False
    assert PaperValue("x", 1.0, "§1").within(0.5) is None


def test_cells_mean_and_interval_per_point_in_grid_order() -> None:
    runs = pd.DataFrame({"k": ["b", "b", "b", "a"], "m": [1.0, 2.0, 3.0, 5.0]})
    t = cells(runs, ["k"], ["m"])
    assert list(t.k) == ["b", "a"] and list(t.n) == [3, 1]
    mean, half = mean_ci95([1.0, 2.0, 3.0])
    assert (
        t.m.iloc[0] == mean == 2.0
        and t.m_ci95.iloc[0] == pytest.approx(half)
        and half == pytest.approx(2.484, abs=1e-3)
    )
    assert t.m_ci95.iloc[1] == 0.0


def test_claims_from_a_studys_own_table() -> None:
    table = pd.DataFrame({"claim": ["a", "b", "c"], "ok": [True, False, None], "gap": [1.5, math.nan, 2.0]})
    got = claims_from_table(table, text="claim", ok="ok", reason=["gap"], source="§6")
    assert [c.verdict for c in got] == [Verdict.HOLDS, Verdict.DOES_NOT_HOLD, Verdict.NOT_RUN]
    assert got[0].reason == "gap 1.5" and got[1].reason == "no numbers"
    text = pd.DataFrame({"claim": ["d"], "ok": [True], "values": ["0.464157272 vs 0.3975459 (2 runs)"]})
    (c,) = claims_from_table(text, text="claim", ok="ok", reason=["values"])
    assert c.reason == "values 0.4642 vs 0.3975 (2 runs)"


def _results(path: Path) -> SweepResults:
    runs = pd.DataFrame({"run": ["r1", "r2"]})
    return SweepResults(path, {"axes": []}, runs, pd.DataFrame(), pd.DataFrame())


def test_per_run_metrics_are_computed_once_per_part_and_kept_with_the_runs(tmp_path: Path) -> None:
    """Two parts over the same runs (floyd's LAN and WAN settings) never share an entry; each computes once."""
    calls: list[str] = []

    def metric(tag: str):  # type: ignore[no-untyped-def]
        def f(res: SweepResults) -> pd.DataFrame:
            calls.append(tag)
            return pd.DataFrame({"run": res.runs.run, "setting": tag})

        return f

    lan, wan = (
        Part("lan", "LAN", "a.toml", "a.toml", metrics=metric("lan")),
        Part("wan", "WAN", "a.toml", "a.toml", metrics=metric("wan")),
    )
    res = _results(tmp_path)
    assert set(results_of(res, lan).runs.setting) == {"lan"}
    assert set(results_of(res, wan).runs.setting) == {"wan"}
    results_of(res, lan).runs  # noqa: B018  (second use: kept, not recomputed)
    assert calls == ["lan", "wan"]
    other = _results(tmp_path)  # the same directory read again: its own results, computed afresh
    results_of(other, lan).runs  # noqa: B018
    assert calls == ["lan", "wan", "lan"]

"""``ecnlab reproduce l4s --quick``: TCP Prague beside CUBIC. The shape of its outputs, and what the
quick cells show: DualPI2 balances the two at 20 ms with Prague's L-queue p99 under a millisecond
(RFC 9332); a single-queue PIE+ECN lets Prague take several times CUBIC's rate, and Prague's
classic-ECN fallback brings the two back together (RFC 9331 §4.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments import reproduce

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: whole reproductions


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    d = tmp_path_factory.mktemp("l4s")
    assert reproduce("l4s", out=d, quick=True, progress=False).ok
    return d, pd.read_csv(d / "tables" / "cells.csv")


def _cell(c: pd.DataFrame, rtt: str, aqm: str, fallback: bool) -> pd.Series:
    (row,) = c[(c.rtt == rtt) & (c.aqm == aqm) & (c.fallback == fallback)].itertuples()
    return pd.Series(row._asdict())


def test_outputs(cells: tuple[Path, pd.DataFrame]) -> None:
    d, c = cells
    assert (d / "report.html").exists() and (d / "figures" / "ratio.png").exists()
    doc = json.loads((d / "claims.json").read_text())
    assert doc["key_figure"] == "figures/ratio.png"
    assert len(doc["claims"]) == 4 and all(x["reason"] for x in doc["claims"])
    assert len(c) == 12 and {"prague_mbps", "cubic_mbps", "ratio", "l_p99_ms", "c_p99_ms"} <= set(c.columns)


def test_dualpi2_balances_and_keeps_l_short(cells: tuple[Path, pd.DataFrame]) -> None:
    _, c = cells
    x = _cell(c, "20ms", "dualpi2", False)
    assert 0.5 < x.ratio < 2.0, x.ratio
    assert x.l_p99_ms < 1.0 < 10 < x.c_p99_ms, (x.l_p99_ms, x.c_p99_ms)
    assert x.prague_mbps + x.cubic_mbps > 0.95 * 50 * 1460 / 1500


def test_classic_single_queue_and_the_fallback(cells: tuple[Path, pd.DataFrame]) -> None:
    _, c = cells
    off, on = _cell(c, "20ms", "pie", False), _cell(c, "20ms", "pie", True)
    assert off.ratio > 2.0, off.ratio
    assert 0.5 < on.ratio < 2.0, on.ratio

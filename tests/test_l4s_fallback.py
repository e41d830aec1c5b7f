"""``ecnlab reproduce l4s-fallback``: Prague 0.6's classic-ECN fallback beside CUBIC in DualPI2, unfixed and
with the ×16 fix. The study's reference table has one row per cell and kernel; the sweep file's cells are
the study's buffer rule; the claims' verdicts follow their rules; the quick form runs and writes its
claims, and unfixed Prague takes less of the link than fixed Prague."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments import reproduce
from ecnlab.experiments.framework import Verdict
from ecnlab.experiments.l4s import fallback
from ecnlab.experiments.l4s.fallback_grid import CELLS, cell
from ecnlab.experiments.l4s.fallback_paper import paper_table


def test_the_study_table_has_one_row_per_cell_and_kernel() -> None:
    p = paper_table()
    assert len(p) == 2 * len(CELLS) == 34
    keys = {(c.grid, c.rate_mbit, c.rtt_ms, c.bdp) for c in CELLS}
    for fix in (False, True):
        rows = p[p.fix == fix]
        assert set(zip(rows.grid, rows.rate_mbit, rows.rtt_ms, rows.bdp, strict=True)) == keys
    assert set(p.paper_runs[p.grid == "reproduce"]) == {10} and set(p.paper_runs[p.grid == "extend"]) == {30}
    assert ((p.paper_share > 0) & (p.paper_share + p.paper_cubic_share <= 1.0)).all()


def test_buffers_follow_the_study_rule() -> None:
    # topo.py: btl_limit = 1000 * n_bdp * rate * delay / 8 bytes, btl_pkt_limit = btl_limit // 1500 + 1
    assert cell("100M-10ms-0.5bdp").limit == 42
    assert cell("100M-10ms-8bdp").limit == 667
    assert cell("256M-128ms-8bdp").limit == 21846


@pytest.mark.parametrize("name", ["fallback.toml", "fallback-quick.toml"])
def test_sweep_cells_are_the_grid(name: str) -> None:
    text = (resources.files("ecnlab.experiments.l4s") / name).read_text(encoding="utf-8")
    axis = tomllib.loads(text)["axes"]["cell"]
    for label, sets in axis.items():
        c = cell(label)
        assert sets["topology.bottleneck_rate"] == f"{c.rate_mbit}Mbit"
        assert sets["topology.bottleneck_delay"] == f"{c.rtt_ms / 2:g}ms"
        assert sets["topology.bottleneck_queue.limit"] == c.limit
        if name == "fallback.toml":
            assert (sets["duration"], sets["warmup"]) == (f"{c.duration_s}s", f"{c.warmup_s}s")
    if name == "fallback.toml":
        assert list(axis) == [c.label for c in CELLS]


def _cells(off: float, on: float) -> pd.DataFrame:
    """A cells table of every cell with the study's shares and ecnlab's set to ``off`` / ``on``."""
    c = paper_table()
    c["cell"] = [cell(f"{r}M-{t}ms-{b:g}bdp").label for r, t, b in zip(c.rate_mbit, c.rtt_ms, c.bdp, strict=True)]
    c["prague_share"] = [on if f else off for f in c.fix]
    c["diff"] = c.prague_share - c.paper_share
    return c


def test_verdicts_follow_the_rules() -> None:
    starve = {c.text: c.verdict for c in fallback.claims(_cells(0.05, 0.5))}
    fair = {c.text: c.verdict for c in fallback.claims(_cells(0.5, 0.5))}
    texts = list(starve)
    assert len(texts) == 5
    # unfixed 0.05 everywhere: starved in every cell; the fix raises it everywhere
    assert [starve[t] for t in texts[:3]] == [Verdict.HOLDS] * 3
    # unfixed 0.5: starved nowhere, the fix raises nothing
    assert [fair[t] for t in texts[:3]] == [Verdict.DOES_NOT_HOLD] * 3
    # the study's fixed shares span 0.11-0.72: 0.5 is within 0.1 of some cells, not all
    assert fair[texts[3]] == Verdict.PARTLY
    assert starve[texts[4]] == Verdict.PARTLY  # the study's unfixed 0.04-0.42: 0.05 is close in some


@pytest.mark.engine
@pytest.mark.slow
def test_quick_form_runs_and_writes_its_claims(tmp_path: Path) -> None:
    assert reproduce("l4s-fallback", out=tmp_path, quick=True, progress=False).ok
    assert (tmp_path / "figures" / "fallback-share.png").exists()
    doc = json.loads((tmp_path / "claims.json").read_text())
    assert doc["key_figure"] == "figures/fallback-share.png"
    c = pd.read_csv(tmp_path / "tables" / "fallback-cells.csv")
    assert len(c) == 4 and c.paper_share.notna().all()
    recomputed = [x.verdict.value for x in fallback.claims(c)]
    assert [x["verdict"] for x in doc["claims"]] == recomputed
    assert all(x["reason"] and x["part"] == "l4s-fallback" for x in doc["claims"])
    by = c.set_index(["cell", "fix"]).prague_share
    for label in ("100M-10ms-2bdp", "64M-16ms-8bdp"):
        assert by[(label, False)] < by[(label, True)] - 0.1, (label, by[(label, False)], by[(label, True)])

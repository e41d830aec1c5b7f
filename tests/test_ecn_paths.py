"""``ecnlab reproduce ecn-paths --quick``: ECN on impaired paths. The shape of its outputs, that every
claim gets a verdict computed from the runs, and what the quick cells show: a SYN blackhole costs the
fallback one initial RTO and keeps a client without it from connecting, AccECN's server stops sending
ECT once the handshake shows its SYN-ACK bleached, and CE on every packet collapses RFC 3168 Reno."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments import reproduce
from ecnlab.experiments.ecn_paths.analysis import BASELINE, POPULATIONS

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: a whole reproduction


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ecn-paths")
    assert reproduce("ecn-paths", out=d, quick=True, progress=False).ok
    return d


def _table(d: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(d / "tables" / f"{name}.csv")


def _row(t: pd.DataFrame, **where: str) -> pd.Series:
    m = t
    for k, v in where.items():
        m = m[m[k] == v]
    (row,) = m.itertuples(index=False)
    return pd.Series(row._asdict())


def test_outputs_and_every_claim_has_a_computed_verdict(out: Path) -> None:
    assert (out / "report.html").exists() and (out / "figures" / "ecn-paths.png").exists()
    doc = json.loads((out / "claims.json").read_text())
    assert doc["key_figure"] == "figures/ecn-paths.png"
    assert len(doc["claims"]) == 7
    assert all(c["reason"] and c["verdict"] in {"holds", "partly", "does not hold"} for c in doc["claims"])
    e = _table(out, "effects")
    assert len(e) == 5 * len(BASELINE) * 2  # paths x ECN stacks x queues (RED, DualPI2)
    x = _table(out, "expected")
    assert set(x.population) == set(POPULATIONS) and x.notna().all().all()


def test_syn_blackhole_costs_one_initial_rto_and_never_connects_without_the_fallback(out: Path) -> None:
    e, g = _table(out, "effects"), _table(out, "grid")
    for stack in ("reno", "cubic", "prague"):
        d = _row(e, impairment="syn-blackhole", stack=stack, queue="dualpi2").d_connect_ms
        assert 900 <= d <= 1200, (stack, d)
    never = _row(g, impairment="syn-blackhole", stack="reno-nofallback", queue="red")
    assert never.connects == 0 and never.goodput_mbps == 0


def test_accecn_stops_ect_after_a_bleached_handshake_and_classic_ecn_does_not(out: Path) -> None:
    g = _table(out, "grid")
    assert _row(g, impairment="bleach", stack="prague", queue="dualpi2").rewritten_per_conn <= 2
    assert _row(g, impairment="bleach", stack="reno", queue="dualpi2").rewritten_per_conn > 50


def test_ce_on_every_packet_collapses_reno(out: Path) -> None:
    e = _table(out, "effects")
    assert _row(e, impairment="ce-all", stack="reno", queue="red").goodput_ratio < 0.1

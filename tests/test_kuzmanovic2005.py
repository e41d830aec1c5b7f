"""Kuzmanovic 2005 reproduction: the queue-tail experiment's files, its per-run metrics on a
known summary, and a tiny ``reproduce`` through the registry on real runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ecnlab
import ecnlab.report
from ecnlab.config import load_scenario, parse_scenario
from ecnlab.experiments import register, reproduce, resolve, unregister
from ecnlab.experiments.kuzmanovic2005 import STUDY
from ecnlab.experiments.kuzmanovic2005.queue_tail import _trend_row, paper_table
from ecnlab.lower import engine_spec, engine_tcp_config
from ecnlab.sweep.spec import load_sweep

HERE = Path(ecnlab.__file__).parent / "experiments" / "kuzmanovic2005"


def test_registry_and_sweep_files() -> None:
    names = ["kuz-queue-tail", "kuz-persistent", "kuz-deploy", "kuz-testbed"]
    assert [e.name for e in resolve("kuzmanovic2005")] == names
    sc = load_scenario(HERE / "base.toml")
    full, quick = load_sweep(HERE / "queue-tail.toml"), load_sweep(HERE / "queue-tail-quick.toml")
    assert len(full.runs) == 2 * 18 * 3 and len(quick.runs) == 2 * 9
    # Heterogeneous RTTs: 2·(2·x + 1 ms) over the ten pairs spans 10 … 150 ms.
    delays = {lk.src: lk.delay_ns for lk in sc.topology.links if lk.dst == "R1"}
    rtt_ms = sorted(round(2 * (2 * delays[f"s{i}"] + 1_000_000) / 1e6) for i in range(1, 11))
    assert rtt_ms[0] == 10 and rtt_ms[-1] == 150


def test_trend_and_paper_rows_on_known_cells() -> None:
    rows = [
        ("web", c, rho, u, p)
        for c, scale in ((100, 1.0), (622, 0.1))
        for rho, u, p in ((0.8, 0.79, 0.1 * scale), (0.95, 0.94, 0.3 * scale))
    ]
    cells = pd.DataFrame(rows, columns=["mix", "C_mbit", "rho_target", "utilization", "p_q_over_5ms"])
    assert _trend_row(cells)["agrees"] is True
    t = paper_table(cells)
    web622 = t[(t.mix == "web") & (t.C_mbit == 622)].iloc[0]
    assert web622.ecnlab_p == pytest.approx(0.03) and web622.agrees
    assert t[t.mix == "general"].ecnlab_p.isna().all()  # no general cells: nothing claimed
    cells.loc[0, "p_q_over_5ms"] = 0.5  # 100 Mbit/s no longer rises with load
    assert _trend_row(cells)["agrees"] is False


TINY = f"""\
description = "tiny queue tail"
base = "{HERE / "base.toml"}"
seeds = 1
name = "mix={{mix}},cell={{cell}},seed={{seed}}"

[set]
duration = "6s"
warmup = "2s"

[axes.mix]
web = {{ "flows[0].size" = {{ dist = "bounded_pareto", alpha = 1.2, min_size = 1000, max_size = 200000 }} }}

[axes.cell]
"C10-rho0.50" = {{ "topology.bottleneck_rate" = "10Mbit", "flows[0].offered_load" = "0.5Mbit" }}
"C10-rho0.95" = {{ "topology.bottleneck_rate" = "10Mbit", "flows[0].offered_load" = "0.95Mbit" }}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("kuz")
    sweep = d / "tiny.toml"
    sweep.write_text(TINY)
    register(
        STUDY.part_experiment("kuz-queue-tail", name="kuz-test", title="kuz test", sweep_file=sweep, quick_file=sweep)
    )
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
            outcome = reproduce("kuz-test", out=d / "out", quick=True, jobs=1, progress=False)
    finally:
        unregister("kuz-test")
    assert outcome.ok
    return d / "out"


@pytest.mark.engine
def test_tiny_reproduce_writes_tables_figure_report(tiny: Path) -> None:
    assert {p.stem for p in (tiny / "tables").glob("*.csv")} == {"paper", "cells", "runs"}
    assert (tiny / "figures" / "kuz-queue-tail.png").is_file()
    html = (tiny / "report.html").read_text()
    assert "ecnlab beside the paper" in html and "622 Mbit/s run" in html


@pytest.mark.engine
def test_tiny_queue_tail_grows_with_load(tiny: Path) -> None:
    """Real runs on a 10 Mbit/s link: more offered load, more utilisation and a longer queue tail."""
    runs = pd.read_csv(tiny / "tables" / "runs.csv").sort_values("rho_target")
    assert ((runs.p_q_over_5ms >= 0) & (runs.p_q_over_5ms <= 1)).all()
    assert runs.utilization.is_monotonic_increasing and runs.objects.gt(10).all()
    low, high = runs.iloc[0], runs.iloc[-1]
    assert high.p_q_over_5ms > low.p_q_over_5ms
    assert 0.2 < low.offered_load < 0.9 and high.offered_load > low.offered_load


# ----- kuz-persistent ---------------------------------------------------------------------


def test_persistent_claims_on_known_cells() -> None:
    from ecnlab.experiments.kuzmanovic2005.persistent import claims, paper_table

    c = pd.DataFrame(
        [
            ("web-rho1.05", "PI", 99.0, 0.5),
            ("web-rho1.05", "REDstar+ECN+", 97.0, 0.3),
            ("general-rho1.05", "PI", 96.0, 0.9),
            ("general-rho1.05", "REDstar+ECN+", 88.0, 1.0),
        ],
        columns=["cell", "scheme", "norm_throughput_pct", "response_mean_s"],
    )
    t = claims(c).set_index("claim")
    assert t.loc["gap wider for the heavier mix at 105 %", "ecnlab"]
    assert t.loc["PI throughput >= RED*+ECN+ (web-rho1.05)", "gap_pct_points"] == pytest.approx(2.0)
    assert t.loc["RED*+ECN+ mean response time < PI's (web-rho1.05)", "ecnlab"]
    assert not t.loc["RED*+ECN+ mean response time < PI's (general-rho1.05)", "ecnlab"]
    p = paper_table(c)
    assert len(p) == 6 and p.ecnlab.isna().sum() == 2  # general-rho0.90 not in the input


def test_the_ecn_plus_drops_sentence_follows_the_drops_table() -> None:
    from ecnlab.experiments.kuzmanovic2005.persistent import ecn_plus_drops

    rows = [("web", "PI", 30.0, 5000.0), ("web", "REDstar+ECN+", 0.0, 0.0), ("web", "REDstar+ECN+w2", 0.0, 0.0)]
    d = pd.DataFrame(rows, columns=["cell", "scheme", "drops_synack", "drops_data"])
    assert ecn_plus_drops(d) == "With ECN+ no SYN-ACK and no first transmission of data was dropped in any cell."
    d.loc[2, "drops_synack"] = 4.0
    assert "up to 4 SYN-ACKs and 0 first transmissions" in ecn_plus_drops(d)
    assert ecn_plus_drops(d[d.scheme == "PI"]) == ""


def test_persistent_percentiles_from_histogram() -> None:
    import numpy as np

    from ecnlab.experiments.kuzmanovic2005.persistent import _pct

    h = np.zeros(201, dtype=np.int64)
    h[0], h[1], h[4] = 1, 2, 1  # 1 object in [0, 20) ms, 2 in [20, 40), 1 in [80, 100)
    assert _pct(h, 0.5) == pytest.approx(0.04) and _pct(h, 0.9) == pytest.approx(0.1)
    h[200] = 10
    assert _pct(h, 0.9) == float("inf")
    assert _pct(np.zeros(3, dtype=np.int64), 0.5) is None


PERSIST_TINY = f"""\
description = "tiny persistent"
base = "{HERE / "persistent-quick.toml"}"
"""


@pytest.mark.engine
def test_tiny_persistent_schemes_mark_or_drop(tmp_path: Path) -> None:
    """Real 6 s runs at 10 Mbit/s: RED*+ECN+ marks and never drops ECT early; PI without ECN never marks."""

    text = (HERE / "persistent-quick.toml").read_text()
    text = text.replace('base = "base.toml"', f'base = "{HERE / "base.toml"}"')
    text = text.replace(
        '"topology.bottleneck_rate" = "100Mbit"',
        '"topology.bottleneck_rate" = "10Mbit"\nduration = "8s"\nwarmup = "2s"',
    )
    text = text.replace("10.5Mbit", "1.5Mbit").replace('"9Mbit"', '"1.2Mbit"')
    sweep = tmp_path / "tiny.toml"
    sweep.write_text(text)
    register(STUDY.part_experiment("kuz-persistent", name="kuz-ptest", title="t", sweep_file=sweep, quick_file=sweep))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
            outcome = reproduce("kuz-ptest", out=tmp_path / "out", quick=True, jobs=1, progress=False)
    finally:
        unregister("kuz-ptest")
    assert outcome.ok
    runs = pd.read_csv(tmp_path / "out" / "tables" / "runs.csv")
    red, pi = runs[runs.scheme == "REDstar+ECN+"], runs[runs.scheme == "PI"]
    assert (red.marks > 0).all() and (pi.marks == 0).all()
    assert ((runs.norm_throughput_pct > 5) & (runs.norm_throughput_pct <= 100)).all()
    assert (tmp_path / "out" / "figures" / "kuz-persistent-cdf.png").is_file()


# ----- kuz-deploy -------------------------------------------------------------------------


def test_deploy_claims_on_known_classes() -> None:
    from ecnlab.experiments.kuzmanovic2005.deploy import claims

    t = pd.DataFrame(
        [("ecn5", True, 0.30), ("ecn5", False, 0.40), ("ecn50", False, 0.42), ("ecn95", False, 0.41)],
        columns=["deploy", "ecn_clients", "response_mean_s"],
    )
    c = claims(t)
    assert c.ecnlab.tolist() == [True, False]
    assert claims(t[t.deploy != "ecn95"]).ecnlab.tolist()[1] is None


def test_deploy_twin_claim() -> None:
    from ecnlab.experiments.kuzmanovic2005.deploy import twin_claim

    tw = pd.DataFrame(
        [("ecn5", "r16", True, 10, 0.3), ("ecn5", "r6", False, 10, 0.5)],
        columns=["deploy", "client", "ecn", "objects", "response_mean_s"],
    )
    assert twin_claim(tw)["ecnlab"] is True
    assert twin_claim(tw[tw.client == "r6"])["ecnlab"] is None


def test_deploy_sweep_splits_clients() -> None:
    quick = load_sweep(HERE / "deploy-quick.toml")
    by = {r.name.split(",")[0]: r for r in quick.runs}
    assert set(by) == {"deploy=ecn5", "deploy=ecn50", "deploy=ecn95", "deploy=uncongested"}
    for name, ecn in (("deploy=ecn5", 1), ("deploy=ecn50", 10), ("deploy=ecn95", 19), ("deploy=uncongested", 0)):
        sc = parse_scenario(by[name].data)
        assert len(sc.flows) == 20 and sum(f.tcp.ecn for f in sc.flows) == ecn
        assert all(f.tcp.ecn_plus for f in sc.flows if f.tcp.ecn)
        tcps = [engine_tcp_config(e["tcp"]) for e in engine_spec(sc)["flows"]]  # the same TCP settings
        assert all(t["ecn"] == "ecn+" for t in tcps if t["ecn"] != "off")


@pytest.mark.engine
def test_tiny_deploy_runs_and_reports(tmp_path: Path) -> None:
    text = (HERE / "deploy-quick.toml").read_text().replace('base = "base.toml"', f'base = "{HERE / "base.toml"}"')
    text = text.replace(
        '"topology.bottleneck_rate" = "100Mbit"',
        '"topology.bottleneck_rate" = "10Mbit"\nduration = "8s"\nwarmup = "2s"',
    )
    text = text.replace("4.9Mbit", "0.49Mbit")
    sweep = tmp_path / "tiny.toml"
    sweep.write_text(text)
    register(STUDY.part_experiment("kuz-deploy", name="kuz-dtest", title="t", sweep_file=sweep, quick_file=sweep))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
            outcome = reproduce("kuz-dtest", out=tmp_path / "out", quick=True, jobs=1, progress=False)
    finally:
        unregister("kuz-dtest")
    assert outcome.ok
    classes = pd.read_csv(tmp_path / "out" / "tables" / "classes.csv")
    assert classes.clients.sum() == 20 * 4 and (classes.objects > 0).all()
    # Nothing answers faster than two round trips of the shortest path (10 ms RTT).
    assert (classes.response_p50_s >= 0.02).all()
    assert (tmp_path / "out" / "figures" / "kuz-deploy-cdf.png").is_file()
    twins = pd.read_csv(tmp_path / "out" / "tables" / "twins.csv")
    assert set(twins.client) == {"r6", "r16"} and len(twins) == 8

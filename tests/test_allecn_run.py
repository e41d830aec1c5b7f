"""All-ECN study end to end: a small sweep through ``reproduce`` (tables, figures, report) and the
behaviour the paper reports, on real runs of the engine."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

import ecnlab
import ecnlab.report
from ecnlab.experiments import register, reproduce, unregister
from ecnlab.experiments.allecn import STUDY
from ecnlab.experiments.allecn.metrics import min_packets, run_metrics

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: whole reproductions

HERE = Path(ecnlab.__file__).parent / "experiments" / "allecn"
BASE = HERE / "base.toml"

TINY = f"""\
description = "allecn test: 4 clients, d = 20 ms, QL 16 and 32, each scheme"
base = "{BASE}"
seeds = 1
name = "clients={{clients}},d={{d}},queue={{queue}},seed={{seed}}"

[alias]
clients = "topology.pairs"
d = "topology.bottleneck_delay"

[axes]
"topology.pairs" = [4]
"topology.bottleneck_delay" = ["20ms"]

[axes.queue."DT-16"]
"topology.bottleneck_queue" = {{ kind = "droptail", limit = 16 }}
[axes.queue."RED-16"]
"topology.bottleneck_queue" = {{ kind = "red", limit = 16, min_th = 5, max_th = 15, gentle = true }}
[axes.queue."ECN-16"]
"topology.bottleneck_queue" = {{ kind = "red", limit = 16, min_th = 5, max_th = 15, gentle = true, ecn = true }}
"tcp.ecn" = true
[axes.queue."DT-32"]
"topology.bottleneck_queue" = {{ kind = "droptail", limit = 32 }}
[axes.queue."ECN-32"]
"topology.bottleneck_queue" = {{ kind = "red", limit = 32, min_th = 10, max_th = 30, gentle = true, ecn = true }}
"tcp.ecn" = true
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny sweep reproduced through the experiment registry, as `ecnlab reproduce` does.

    The framework's generic sweep sections (tested in test_report.py) are left
    out: their default figures take most of a minute on this machine.
    """
    d = tmp_path_factory.mktemp("allecn")
    sweep = d / "tiny.toml"
    sweep.write_text(TINY)
    clean = STUDY.experiment(STUDY.parts[0])
    register(dataclasses.replace(clean, name="allecn-test", title="allecn test", sweep_file=sweep, quick_file=sweep))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
            outcome = reproduce("allecn-test", out=d / "out", quick=True, jobs=1, progress=False)
    finally:
        unregister("allecn-test")
    assert outcome.ok
    return d / "out"


def test_reproduce_writes_tables_figures_and_report(tiny: Path) -> None:
    tables = {p.stem for p in (tiny / "tables").glob("*.csv")}
    assert tables == {"paper_vs_ecnlab", "rule_of_thumb_overhead", "rule_of_thumb_acks", "transfer_times", "cells",
                      "checks"}  # fmt: skip
    cells = pd.read_csv(tiny / "tables" / "cells.csv")
    assert len(cells) == 5 and set(cells.scheme) == {"DT", "RED", "ECN"}
    rule = pd.read_csv(tiny / "tables" / "rule_of_thumb_overhead.csv")
    assert list(rule.ql) == [16]  # ECN-16 against DT-32
    pngs = sorted((tiny / "figures").glob("allecn-*.png"))
    assert len(pngs) == 4 and all(p.stat().st_size > 5000 for p in pngs)
    assert all(p.with_suffix(".svg").is_file() for p in pngs)
    page = (tiny / "report.html").read_text()
    assert "All-ECN resource efficiency: ecnlab beside the paper" in page
    assert "Why the numbers differ" in page
    assert "allecn-network-overhead-pct-d20ms.png" in page


def test_every_transfer_completes_and_the_accounting_closes(tiny: Path) -> None:
    checks = pd.read_csv(tiny / "tables" / "checks.csv", keep_default_na=False).iloc[0]
    assert checks.runs == 5
    assert checks.transfers == 5 * 4 * 11
    assert checks.runs_with_accounting_problems == 0
    assert checks.drops_outside_router_B == 0
    flows = pd.read_parquet(tiny / "flows.parquet")
    assert (flows.connections == 11).all()
    assert (flows.bytes_delivered == 11 * 102_400).all()
    assert (flows.pkts_in_flight <= 4).all()  # the last FIN/ACKs may still be on the wire at the end
    total = flows.pkts_delivered + flows.pkts_dropped + flows.pkts_corrupted + flows.pkts_in_flight
    assert (flows.pkts_sent == total).all()


def test_only_the_ecn_runs_mark_and_negotiate_ecn(tiny: Path) -> None:
    flows = pd.read_parquet(tiny / "flows.parquet")
    queues = pd.read_parquet(tiny / "queues.parquet")
    b = queues[queues.link == "R1->R2"].set_index("queue")
    for label in ("DT-16", "RED-16", "DT-32"):
        assert b.loc[label, "marks"] == 0
        assert not flows[flows.queue == label].ecn_negotiated.any()
    assert b.loc["ECN-16", "marks"] > 0
    assert flows[flows.queue == "ECN-16"].ecn_negotiated.all()


def _one(queue: str, *, clients: int, corrupt: float = 0.0) -> dict[str, object]:
    """Metrics of one run of base.toml with router B's queue ``queue`` (a TOML inline table)."""
    ecn = "ecn = true" in queue
    overrides = [
        f"topology.pairs={clients}",
        f"topology.bottleneck_queue={queue}",
        f"tcp.ecn={'true' if ecn else 'false'}",
        f"topology.access_corrupt={corrupt}",
        "topology.hosts.s1.access_corrupt=0.0",
    ]
    r = ecnlab.run(BASE, overrides=overrides)
    return run_metrics(r.flows, r.queues, files=11, file_bytes=102_400, mss=1460)


RED64 = "kind = 'red', limit = 64, min_th = 20, max_th = 60, max_p = 0.1, wq = 0.002, gentle = true"


def test_ecn_wastes_fewer_packets_than_droptail_at_ql_64() -> None:
    """Paper 4.2: 10 clients, d = 20 ms, QL = 64: DT 445 vs ECN 149 excess packets."""
    dt = _one("{kind = 'droptail', limit = 64}", clients=10)
    ecn = _one("{" + RED64 + ", ecn = true}", clients=10)
    assert dt["problems"] == "" and ecn["problems"] == ""
    assert dt["transfers"] == ecn["transfers"] == 110
    assert dt["excess_packets"] > 0 and dt["drops_B"] > 0 and ecn["marks_B"] > 0
    assert ecn["excess_packets"] < dt["excess_packets"] / 2
    assert ecn["acks_per_transfer"] < dt["acks_per_transfer"]
    # no goodput gain to speak of: mean transfer times within 15 %
    assert abs(ecn["tt_mean_s"] / dt["tt_mean_s"] - 1) < 0.15
    # every transfer needs at least its minimum; nothing is sent twice without a loss
    assert dt["data_sent"] >= 110 * min_packets(102_400, 1460)


def test_errors_corrupt_packets_that_count_in_the_receiver_overhead() -> None:
    m = _one("{kind = 'droptail', limit = 128}", clients=5, corrupt=0.01)
    assert m["problems"] == ""
    # 1 % of about 55 x 71 data packets towards the clients arrive damaged
    assert 10 <= m["corrupted_received"] <= 80
    assert m["receiver_excess"] >= m["corrupted_received"]
    assert m["drops_elsewhere"] == 0


def test_explicit_rewrite_equals_the_dumbbell_run() -> None:
    """direction.py's explicit topology is the dumbbell itself: same links, same random streams, same result."""
    import copy

    from ecnlab.config import read_toml
    from ecnlab.experiments.allecn.direction import explicit_scenario

    base = read_toml(BASE)
    base["topology"]["pairs"] = 4
    dumbbell = copy.deepcopy(base)
    dumbbell["topology"]["access_corrupt"] = 0.01
    dumbbell["topology"]["hosts"] = {"s1": {"access_corrupt": 0.0}}
    a = ecnlab.run(dumbbell, seed=3)
    b = ecnlab.run(explicit_scenario(base, rate=0.01, to_clients=True, from_clients=True), seed=3)
    assert a.flows["corrupted_received"].sum() > 0
    pd.testing.assert_frame_equal(a.flows, b.flows)
    # errors on the clients' outgoing packets only: no data packet arrives damaged, ACKs do
    c = ecnlab.run(explicit_scenario(base, rate=0.01, to_clients=False, from_clients=True), seed=3)
    assert c.flows["corrupted_received"].sum() == 0
    assert c.flows["pkts_corrupted"].sum() > 0


def test_sensitivity_queue_overrides_match_the_sweep_labels() -> None:
    from ecnlab.experiments.allecn.sensitivity import queue_overrides
    from ecnlab.sweep.spec import load_sweep

    sweep = load_sweep(HERE / "quick.toml")
    for run in sweep.runs[:15]:
        scheme, _, ql = str(run.axes["queue"]).partition("-")
        sc = ecnlab.load_scenario(BASE, [f"topology.pairs={run.axes['clients']}",
                                         f"topology.bottleneck_delay={run.axes['d']}",
                                         *queue_overrides(scheme, int(ql))])  # fmt: skip
        ours = json_roundtrip(sc)
        assert ours["topology"]["bottleneck_queue"] == run.resolved["topology"]["bottleneck_queue"]
        assert ours["tcp"] == run.resolved["tcp"]


def json_roundtrip(sc: object) -> dict:
    import json

    from ecnlab.lower import resolved_scenario

    return json.loads(json.dumps(resolved_scenario(sc)))


@pytest.mark.engine
def test_claims_follow_the_tables(tiny: Path) -> None:
    """claims.json holds the framework's claims, their verdicts computed from the written tables."""
    from ecnlab.experiments.framework import METRICS_FILE, Verdict, read_claims

    got = read_claims(tiny)
    assert got.found and [c.source for c in got.claims][:2] == ["§4.2", "§4.2, §5"]
    rot = pd.read_csv(tiny / "tables" / "rule_of_thumb_overhead.csv")
    ok = rot["ECN<=DT@2QL"].astype(bool)
    expect = Verdict.of_share(int(ok.sum()), len(ok)) if len(rot) else Verdict.NOT_RUN
    assert got.claims[1].verdict == expect
    assert len(pd.read_parquet(tiny / METRICS_FILE)) == len(pd.read_parquet(tiny / "runs.parquet"))


def test_diagnostics_are_registered_parts_with_sweep_files() -> None:
    from ecnlab.experiments import resolve
    from ecnlab.sweep.spec import load_sweep

    for name, runs in (("allecn-sensitivity-red", 12), ("allecn-sensitivity-tcp", 24), ("allecn-direction", 18)):
        (exp,) = resolve(name)
        assert exp.study == "allecn"
        assert len(load_sweep(exp.sweep_path(quick=True)).runs) == runs
        assert len(load_sweep(exp.sweep_path(quick=False)).runs) == 3 * runs


@pytest.mark.engine
def test_direction_part_stores_its_table_and_claim(tmp_path: Path) -> None:
    """allecn-direction (quick): errors only on the clients' outgoing packets never damage data they receive."""
    from ecnlab.experiments.framework import read_claims

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
        outcome = reproduce("allecn-direction", out=tmp_path, quick=True, progress=False)
    assert outcome.ok
    t = pd.read_csv(tmp_path / "tables" / "direction.csv")
    assert len(t) == 18 and set(t.direction) == {"both", "to_clients", "from_clients"}
    assert (t[t.direction == "from_clients"].corrupted_received == 0).all()
    assert (t[t.direction != "from_clients"].corrupted_received > 0).all()
    (claim,) = read_claims(tmp_path).claims
    assert claim.part == "allecn-direction" and "from_clients nearest the paper for" in claim.reason

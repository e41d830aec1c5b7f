"""rfc2884-testbed at test size: RFC 2884's testbed on real Linux TCP and in the models.

The mini sweep is the study's own quick sweep cut down (fairness 20 s with the competing flows from
5 s, transactions for 10 s; max_p 0.1; one seed), run through the study's own part. With root, one
module fixture runs it with all three engines (about 45 s, most of it real time) and the tests check
the outputs' shape and what RED with ECN must do to real and modelled TCP alike: the ECN flow is
marked, not dropped; the router's marks are the CE packets the client's kernel counted; the per-flow
drops of the router's route counters add up. Without root: the study is skipped with one line, and
the simulated engines run through the same analysis.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tomli_w

from ecnlab.emu.netns import leftovers
from ecnlab.experiments import Experiment, register, reproduce, unregister
from ecnlab.experiments.framework import Verdict, read_claims
from ecnlab.experiments.rfc2884_testbed import STUDY, analysis
from ecnlab.store import SweepResults, load
from ecnlab.tcp_personalities import TCP_PERSONALITIES

HERE = Path(__file__).resolve().parents[1] / "python" / "ecnlab" / "experiments" / "rfc2884_testbed"
SWEEP_KEYS = {  # sweep key -> (TcpSpec attribute, value in the personality's units)
    "tcp.abc": ("abc", 100),
    "tcp.limited_transmit": ("limited_transmit", True),
    "tcp.newreno_timer": ("newreno_timer", "slow_but_steady"),
    "tcp.delack_timeout": ("delack_timeout_ns", 40_000_000),
    "tcp.clock_granularity": ("clock_granularity_ns", 1_000_000),
    "tcp.initial_rto": ("initial_rto_ns", 1_000_000_000),
    "tcp.max_rto": ("max_rto_ns", 120_000_000_000),
}


def _mini(tmp: Path, engines: tuple[str, ...]) -> Path:
    """The quick sweep with shorter runs, the given engines, written beside the tests' output."""
    data: dict[str, Any] = tomllib.loads((HERE / "testbed-quick.toml").read_text())
    data["base"] = str((HERE / data["base"]).resolve())
    exps = data["axes"]["experiment"]
    cut = {"fairness-nonecnbg": ("20s", "5s"), "transactional": ("15s", "0s")}
    for name, (duration, warmup) in cut.items():
        exps[name].update(duration=duration, warmup=warmup)
        for f in exps[name]["flows"][1:]:
            f["start"] = "5s"
    data["axes"]["experiment"] = {k: exps[k] for k in cut}
    data["axes"]["engine"] = {e: data["axes"]["engine"][e] for e in engines}
    path = tmp / "rfc2884-testbed-mini.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def _reproduce(tmp: Path, engines: tuple[str, ...]) -> SweepResults:
    sweep = _mini(tmp, engines)
    exp: Experiment = STUDY.part_experiment(
        "rfc2884-testbed", name="rfc2884-testbed-mini", sweep_file=sweep, quick_file=sweep, unavailable=None
    )
    register(exp)
    try:
        outcome = reproduce("rfc2884-testbed-mini", out=tmp / "out", quick=True, progress=False)
    finally:
        unregister("rfc2884-testbed-mini")
    assert outcome.ok
    return load(tmp / "out")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> SweepResults:
    if os.geteuid() != 0:
        pytest.skip("live emulation needs root (network namespaces, TUN devices)")
    try:
        return _reproduce(tmp_path_factory.mktemp("rfc2884-testbed"), analysis.ENGINES)
    finally:
        assert leftovers(os.getpid()) == [], "namespaces left behind"


def _tables(res: SweepResults) -> dict[str, pd.DataFrame]:
    return {p.stem: pd.read_csv(p) for p in (res.path / "tables").glob("*.csv")}


def _check_ecn_marked_not_dropped(res: SweepResults, engine: str) -> None:
    """RED* with ECN (no harddrop) marks the ECN flow's ECT packets and drops the others'."""
    s = res.summary(f"fairness-nonecnbg-{engine}-maxp=0.1-seed=1")
    flows = {f["id"]: f for f in s["flows"]}
    ecn, nonecn = flows["ecn"], flows["nonecn"]
    assert ecn["ecn_negotiated"] and not nonecn["ecn_negotiated"], engine
    bn = next(q for q in s["queues"] if q["link"] == "R1->R2")
    assert bn["marks"] > 0 and bn["early_drops_ect"] == 0, (engine, bn)
    assert ecn["ce_received"] > 0 and nonecn["ce_received"] == 0, engine
    # Not-ECT SYN-ACKs and retransmissions of the ECN flow may be dropped; its data are marked
    assert ecn["pkts_dropped"] <= 2 < ecn["ce_received"], (engine, ecn["pkts_dropped"])
    assert bn["early_drops"] + bn["forced_drops"] > 0, engine  # the three non-ECN flows are dropped


@pytest.mark.emulation
def test_live_outputs_have_every_engine_and_the_studys_tables(live: SweepResults) -> None:
    t = _tables(live)
    assert {"claims", "side_by_side", "fairness", "transactional", "runs"} <= set(t)
    assert sorted(t["runs"].engine.unique()) == sorted(analysis.ENGINES)
    # a busy machine may delay the router (a lateness warning): reported per run, not a failure
    assert len(t["runs"]) == 6 and (t["runs"].warnings >= 0).all()
    claims = read_claims(live.path).claims
    assert len(claims) == 6 and {c.text.split(":")[0] for c in claims} == set(analysis.ENGINES)
    assert all(c.verdict != Verdict.NOT_RUN for c in claims if "transactions" in c.text)
    assert (live.path / "figures" / "rfc2884-testbed.png").is_file()
    sbs = t["side_by_side"]
    assert sbs[sbs.metric == "tps_ecn"][list(analysis.ENGINES)].gt(0).all(axis=None)


@pytest.mark.emulation
@pytest.mark.parametrize("engine", analysis.ENGINES)
def test_the_ecn_flow_is_marked_not_dropped(live: SweepResults, engine: str) -> None:
    _check_ecn_marked_not_dropped(live, engine)


@pytest.mark.emulation
def test_router_marks_are_the_ce_packets_the_clients_kernel_counted(live: SweepResults) -> None:
    s = live.summary("fairness-nonecnbg-emu-maxp=0.1-seed=1")
    emu = s["emulation"]
    final = next(q for q in emu["router"]["final_queues"] if q["link"] == "R1->R2")
    assert final["marks"] == emu["nstat"]["ecn_on"]["IpExtInCEPkts"] > 0  # the only ECT flow
    routes = {(r["from"], r["to"]): r for r in emu["router"]["routes"]}
    assert routes[("server", "ecn_on")]["ce_out"] == final["marks"]
    flows = {f["id"]: f for f in s["flows"]}
    for fid, host in (("ecn", "ecn_on"), ("nonecn", "ecn_off")):
        there, back = routes[("server", host)], routes[(host, "server")]
        lost = there["packets_in"] - there["packets_out"] + back["packets_in"] - back["packets_out"]
        assert flows[fid]["pkts_dropped"] == lost
    assert flows["bg_1"]["pkts_dropped"] is None  # two flows between server and c: not attributable
    tr = live.summary("transactional-emu-maxp=0.1-seed=1")
    assert all(f["transactions"] > 0 for f in tr["flows"] if f["kind"] == "request_response")
    assert all(f["timeouts"] is not None for f in tr["flows"]), "tcpi_total_rto for the server's many flows"


def test_without_root_the_study_is_skipped_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    out = reproduce("rfc2884-testbed", out=tmp_path / "out", quick=True, progress=False)
    assert out.ok
    lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert lines == [
        "ecnlab: rfc2884-testbed skipped: live emulation needs root (network namespaces and TUN devices); "
        "run as root to include it"
    ]
    assert "Skipped on this machine" in (tmp_path / "out" / "report.html").read_text()
    assert not read_claims(tmp_path / "out").found


def test_simulated_engines_through_the_studys_analysis(tmp_path: Path) -> None:
    res = _reproduce(tmp_path, ("sim-linux", "sim-rfc"))
    for engine in ("sim-linux", "sim-rfc"):
        _check_ecn_marked_not_dropped(res, engine)
        s = res.summary(f"fairness-nonecnbg-{engine}-maxp=0.1-seed=1")
        ce = next(f["ce_received"] for f in s["flows"] if f["id"] == "ecn")
        marks = next(q["marks"] for q in s["queues"] if q["link"] == "R1->R2")
        assert ce <= marks <= ce + 3, engine  # the only ECT flow; a few marked packets in flight at the end
    t = _tables(res)
    claims = t["claims"]
    assert list(claims.engine) == ["sim-linux"] * 2 + ["sim-rfc"] * 2
    assert set(claims.verdict) <= {"holds", "partly", "does not hold", "not run"}
    fair = claims[claims.claim.str.contains("bias")]
    assert (fair.verdict == "not run").all(), "one background only"


def test_emu_and_sim_linux_run_the_same_scenario_with_linuxs_own_values() -> None:
    """The keys emulate cannot apply to the kernel are the linux personality's values, in both engines."""
    data = tomllib.loads((HERE / "testbed.toml").read_text())
    engines = data["axes"]["engine"]
    assert engines["emu"] == engines["sim-linux"] and engines["sim-rfc"] == {}
    from ecnlab.config import load_scenario

    sc = load_scenario(HERE / data["base"], [f"{k}={json.dumps(v)}" for k, v in engines["emu"].items()])
    for key, (attr, value) in SWEEP_KEYS.items():
        assert key in engines["emu"] and getattr(sc.tcp, attr) == value == TCP_PERSONALITIES["linux"][attr]

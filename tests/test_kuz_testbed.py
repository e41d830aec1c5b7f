"""kuz-testbed (Kuzmanovic 2005 §7) at test size: web traffic on real Linux TCP.

One module fixture reproduces tests/data/kuz-testbed-mini.toml through the
experiment's own functions (emulated probe, RED*+ECN and PI runs, one
simulated PI run; about 35 s, needs root). The tests check real behaviour of
the emulated web runs and the shape of what the analysis writes. Without
root: an experiment which cannot run here is skipped with one line while the
rest of its group completes; the capture reader sees the simulator's ECN+
SYN-ACKs; the sweep files pair every emulated case with a simulated twin.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.emu.netns import leftovers
from ecnlab.experiments import Experiment, register, register_group, reproduce, unregister
from ecnlab.experiments.kuzmanovic2005 import STUDY, testbed
from ecnlab.store import RUNS_DIR, SweepResults, load

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "data" / "kuz-testbed-mini.toml"
#: Access delay each way of pair i in the mini sweep; RTT = 2 · (2 · x + 1 ms bottleneck).
ACCESS_MS = {"1": 2.0, "2": 20.0, "3": 37.0}

RUN_S = 8.0


def _summarize(res: SweepResults) -> list[tuple[str, pd.DataFrame]]:
    summarize = STUDY.part_experiment("kuz-testbed").summarize
    assert summarize is not None
    return summarize(res)


def _experiment(name: str, sweep: Path, **kw: object) -> Experiment:
    changes = {"unavailable": None, **kw}  # the registered part asks the machine; the tests decide
    return STUDY.part_experiment(
        "kuz-testbed", name=name, title=f"{name} (test)", sweep_file=sweep, quick_file=sweep, **changes
    )


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> SweepResults:
    if os.geteuid() != 0:
        pytest.skip("live emulation needs root (network namespaces, TUN devices)")
    out = tmp_path_factory.mktemp("kuz-testbed") / "out"
    register(_experiment("kuz-testbed-mini", MINI))
    try:
        outcome = reproduce("kuz-testbed-mini", out=out, quick=True, progress=False)
    finally:
        unregister("kuz-testbed-mini")
        assert leftovers(os.getpid()) == [], "namespaces left behind"
    assert outcome.ok
    return load(out)


def _summary(res: SweepResults, case: str) -> dict:
    return res.summary(f"{case},seed=1")


def _rtt_s(flow_dst: str) -> float:
    return 2 * (2 * ACCESS_MS[flow_dst.lstrip("r")] + 1.0) / 1000


@pytest.mark.emulation
@pytest.mark.parametrize("case", ["emu_10M_REDstar+ECN", "emu_10M_PI"])
def test_web_objects_complete_and_take_at_least_one_rtt(mini: SweepResults, case: str) -> None:
    summary = _summary(mini, case)
    with (mini.path / RUNS_DIR / f"{case},seed=1" / "web_objects.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    for flow in summary["flows"]:
        web = flow["web"]
        mine = [r for r in rows if r["flow"] == flow["id"]]
        done = [float(r["response_s"]) for r in mine if r["response_s"]]
        assert web["objects_completed"] > 0, flow["id"]
        assert len(mine) == web["objects_started"] and len(done) == web["objects_completed"]
        # connect → request → response: at least one RTT (in fact two) of the client's path
        assert min(done) >= _rtt_s(flow["dst"]), (flow["id"], min(done))
        assert max(done) < RUN_S
        assert sum(web["response_hist"]) == web["objects_completed"]
        assert web["response_mean_s"] == pytest.approx(sum(done) / len(done), rel=1e-3, abs=1e-5)


@pytest.mark.emulation
def test_web_result_has_the_simulators_shape(mini: SweepResults) -> None:
    emu, sim = _summary(mini, "emu_10M_PI"), _summary(mini, "sim_10M_PI")
    for e, s in zip(emu["flows"], sim["flows"], strict=True):
        assert e["id"] == s["id"] and e["kind"] == s["kind"] == "web"
        assert set(e["web"]) == set(s["web"])
        assert len(e["web"]["response_hist"]) == len(s["web"]["response_hist"])
        assert len(e["web"]["response_pct_s"]) == len(s["web"]["response_pct_s"])


@pytest.mark.emulation
def test_red_star_marks_ect_and_receivers_count_every_mark(mini: SweepResults) -> None:
    summary = _summary(mini, "emu_10M_REDstar+ECN")
    final = {q["link"]: q for q in summary["emulation"]["router"]["final_queues"]}
    bn = final["R1->R2"]
    assert bn["marks"] > 0
    assert sum(q["marks"] for q in final.values()) == bn["marks"], "only the bottleneck marks"
    assert bn["early_drops_ect"] == 0, "RED* with ECN marks ECT packets, never drops them early"
    nstat = summary["emulation"]["nstat"]
    assert sum(c["IpExtInCEPkts"] for h, c in nstat.items() if h.startswith("r")) == bn["marks"]
    assert all(f["ecn_negotiated"] for f in summary["flows"])


@pytest.mark.emulation
def test_pi_without_ecn_drops_and_never_marks(mini: SweepResults) -> None:
    summary = _summary(mini, "emu_10M_PI")
    final = {q["link"]: q for q in summary["emulation"]["router"]["final_queues"]}
    assert all(q["marks"] == 0 for q in final.values())
    bn = final["R1->R2"]
    drops = bn["early_drops"] + bn["forced_drops"] + bn["overflow_drops"]
    assert drops > 0, "PI (q_ref 2 packets) drops under 18 Mbit/s of nominal load"
    nstat = summary["emulation"]["nstat"]
    assert sum(c["IpExtInCEPkts"] for c in nstat.values()) == 0
    assert not any(f["ecn_negotiated"] for f in summary["flows"])
    # every bottleneck drop is a server packet: the servers retransmit
    assert sum(c["TcpRetransSegs"] for h, c in nstat.items() if h.startswith("s")) > 0


@pytest.mark.emulation
def test_linux_syn_acks_are_not_ect(mini: SweepResults) -> None:
    """RFC 3168 §6.1.1 on this kernel with tcp_ecn=1: SYN and SYN-ACK Not-ECT, data ECT(0)."""
    tables = dict(_summarize(mini))
    probe = tables["codepoints"]
    probe = probe[probe.case == "emu_probe_REDstar+ECN"]
    by_kind = {k: dict(zip(g.codepoint, g.packets, strict=True)) for k, g in probe.groupby("kind")}
    assert by_kind["SYN-ACK"] == {"Not-ECT": 10}
    assert by_kind["SYN"] == {"Not-ECT": 10}
    assert by_kind["data"].get("ECT(0)", 0) > 0
    kernel = tables["kernel"]
    assert len(kernel) == 1 and set(kernel.iloc[0]["tcp_ecn values accepted"].split()) >= {"0", "1", "2"}


@pytest.mark.emulation
def test_tables_figures_and_report(mini: SweepResults) -> None:
    tables = dict(_summarize(mini))
    assert set(tables) == {"claims", "sim_vs_emu", "codepoints", "kernel", "cells", "runs"}
    runs = tables["runs"]
    assert sorted(runs.case) == ["emu_10M_PI", "emu_10M_REDstar+ECN", "sim_10M_PI"]
    assert (runs[runs.engine == "emu"].lateness_p50_us > 0).all()
    assert runs.norm_throughput_pct.between(1, 100).all()
    sve = tables["sim_vs_emu"]
    pi = sve[(sve.scheme == "PI") & (sve.metric == "marks")]
    assert pi.sim.iloc[0] == 0 and pi.emu.iloc[0] == 0
    for name in ("kuz-testbed-cdf.png", "kuz-testbed-throughput.png"):
        assert (mini.path / "figures" / name).stat().st_size > 0
    report = (mini.path / "report.html").read_text()
    assert "SYN-ACK" in report and "Linux" in report


def test_unavailable_experiment_is_skipped_and_the_group_completes(tmp_path: Path) -> None:
    sweep = tmp_path / "tiny.toml"
    sweep.write_text(
        'description = "tiny"\nbase = "' + str(ROOT / "scenarios" / "emulate-reno-ecn.toml") + '"\n'
        '[set]\nduration = "1s"\nwarmup = "0s"\n[axes]\n"tcp.ecn" = [true]\n'
    )
    register(Experiment(name="tiny-sim", title="tiny", sweep_file=sweep, quick_file=sweep))
    register(_experiment("tiny-emu", sweep, unavailable=lambda: "no TUN devices in this test"))
    register_group("tiny-group", ["tiny-sim", "tiny-emu"])
    try:
        outcome = reproduce("tiny-group", out=tmp_path / "out", quick=True, progress=False)
    finally:
        for n in ("tiny-group", "tiny-sim", "tiny-emu"):
            unregister(n)
    assert outcome.ok
    assert (tmp_path / "out" / "tiny-sim" / "runs.parquet").is_file()
    skipped = tmp_path / "out" / "tiny-emu"
    assert "Skipped on this machine: no TUN devices in this test." in (skipped / "report.html").read_text()
    assert not (skipped / "runs").exists()
    runs = pd.read_parquet(tmp_path / "out" / "tiny-sim" / "runs.parquet")
    assert len(runs) >= 1 and (runs["goodput_bps"] > 0).all()


@pytest.mark.parametrize("ecn_plus", [False, True])
def test_codepoints_of_the_models_handshake(tmp_path: Path, ecn_plus: bool) -> None:
    """The capture reader on the simulator's probe: ECN+ makes exactly the SYN-ACKs ECT(0)."""
    from ecnlab import run
    from ecnlab.experiments.kuzmanovic2005.codepoints import count_codepoints

    over = [
        "duration=2s",
        "warmup=0s",
        "tcp.ecn=true",
        f"tcp.ecn_plus={str(ecn_plus).lower()}",
        'output.pcap=["s1->R1", "r1->R2"]',
        'flows=[{name="p", kind="request_response", from="s1", to="r1", request_size=300, '
        'response_size="20KB", transactions=5}]',
    ]
    run(MINI.parent / "kuz-testbed-mini-base.toml", out=tmp_path / "r", overrides=over)
    server = count_codepoints(tmp_path / "r" / "s1-R1.pcap")
    client = count_codepoints(tmp_path / "r" / "r1-R2.pcap")
    assert server[("SYN-ACK", "ECT(0)" if ecn_plus else "Not-ECT")] == 5
    assert server[("SYN-ACK", "Not-ECT" if ecn_plus else "ECT(0)")] == 0
    assert server[("data", "ECT(0)")] > 0 and server[("data", "Not-ECT")] == 0
    assert client[("SYN", "Not-ECT")] == 5 and client[("ACK", "Not-ECT")] > 0


def test_testbed_sweeps_pair_every_emulated_case_with_a_simulated_one() -> None:
    from ecnlab.experiments import resolve
    from ecnlab.sweep.spec import load_sweep

    (exp,) = resolve("kuz-testbed")
    assert exp.compute is testbed.compute and exp.unavailable is testbed.unavailable
    for quick in (True, False):
        sweep = load_sweep(exp.sweep_path(quick))
        cases = {str(r.axes["case"]) for r in sweep.runs}
        emu = {c.split("_", 1)[1] for c in cases if c.startswith("emu_")}
        sim = {c.split("_", 1)[1] for c in cases if c.startswith("sim_")}
        assert emu and emu <= sim, "every emulated case has its simulated twin"
        assert "10M_REDstar+ECN+" in sim and not any(c.endswith("+ECN+") for c in emu), "Linux has no ECN+"
        for r in sweep.runs:
            engine, link, scheme = testbed.case_parts(str(r.axes["case"]))
            tcp = r.data["tcp"]
            assert tcp["ecn"] is (scheme != "PI") and tcp.get("ecn_plus", False) is scheme.endswith("+ECN+")
            if link != "probe":
                rate = r.data["topology"]["bottleneck_rate"]
                assert rate == {"10M": "10Mbit", "100M": "100Mbit"}[link]

"""Floyd 1994 reproduction: telnet / ftp_arrivals / start ranges in scenario files, the paper's
metrics and claims on known inputs, and a tiny ``reproduce`` through the registry on real runs."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pandas as pd
import pytest

import ecnlab
import ecnlab.report
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError
from ecnlab.experiments import register, reproduce, resolve, unregister
from ecnlab.experiments.floyd1994 import STUDY
from ecnlab.experiments.floyd1994.claims import (
    SQ_SECTION,
    byte_mode_protects,
    evaluate,
    lan_claims,
    lan_droptail_small_window_no_drops,
    lan_ecn_robust,
    sq_overhead,
    sq_prompt,
    sq_telnet_delay,
    sq_throughput,
    wan_ecn_lowest_delay,
)
from ecnlab.experiments.floyd1994.metrics import GATEWAYS, LAN, WAN, run_metrics, split_gateway
from ecnlab.lower import engine_spec, engine_tcp_config, resolved_scenario
from ecnlab.sweep.spec import load_sweep

HERE = Path(ecnlab.__file__).parent / "experiments" / "floyd1994"
LAN_BASE, WAN_BASE = HERE / "lan-base.toml", HERE / "wan-base.toml"

TELNET = """\
seed = 3
duration = "5s"

[topology]
kind = "dumbbell"
pairs = 1
access_rate = "10Mbit"
access_delay = "1ms"
bottleneck_rate = "10Mbit"
bottleneck_delay = "5ms"

[tcp]
min_rto = "1s"
initial_rto = "1s"
delayed_ack = false
dupack_threshold = 1000

[[flows]]
name = "t"
kind = "telnet"
from = "s1"
to = "r1"
interarrival = "exponential"
mean_interarrival = "50ms"
"""


# ----- scenario files --------------------------------------------------------------------


def test_lan_and_wan_settings_match_their_base_files() -> None:
    for path, s in ((LAN_BASE, LAN), (WAN_BASE, WAN)):
        sc = load_scenario(path)
        assert sc.duration_ns == s.duration_s * 1e9
        assert sc.tcp.mss == s.mss
        assert s.link in sc.topology.link_names


def test_telnet_and_start_range_lower_to_the_engine() -> None:
    sc = load_scenario(LAN_BASE)
    spec = engine_spec(sc)
    assert len([f for f in sc.flows if f.app.kind == "telnet"]) == 10  # one entry, expanded by the engine
    telnets = [f for f in spec["flows"] if f["app"]["kind"] == "telnet"]
    assert telnets[0]["app"] == {
        "kind": "telnet",
        "interarrival": "tcplib",
        "mean_interarrival_ns": 0,
        "write_bytes": 1,
    }
    assert all(f["start_ns"] == 0 and f["start_spread_ns"] == 1_000_000_000 for f in spec["flows"])
    # Without a range the key is left out (the engine's default is 0).
    assert "start_spread_ns" not in engine_spec(load_scenario(LAN_BASE, {"flows[0].start": "0.5s"}))["flows"][0]
    resolved = resolved_scenario(sc)
    assert resolved["flows"][0]["start"] == "0s..1s"
    # The resolved scenario loads again to the same engine input.
    again = load_scenario(resolved)
    assert engine_spec(again) == spec


def test_ftp_arrivals_lower_to_the_engine() -> None:
    sc = load_scenario(WAN_BASE)
    assert len([f for f in sc.flows if f.app.kind == "ftp_arrivals"]) == 8
    ftp = [f for f in engine_spec(sc)["flows"] if f["app"]["kind"] == "ftp_arrivals"]
    assert ftp[0]["app"] == {
        "kind": "ftp_arrivals",
        "min_bytes": 96000,
        "max_bytes": 288000,
        "mean_gap_ns": 2_000_000_000,
    }


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"flows[0].mean_interarrival": None}, "flows[0].mean_interarrival", "required"),
        ({"flows[0].interarrival": "tcplib"}, "flows[0].mean_interarrival", "only with"),
        ({"flows[0].interarrival": "pareto"}, "flows[0].interarrival", "tcplib"),
        ({"flows[0].start": "2s..1s"}, "flows[0].start", "A <= B"),
        ({"flows[0].start": "1s..6s"}, "flows[0].start", "before the end"),
        ({"flows[0].write_size": 0}, "flows[0].write_size", ""),
    ],
)
def test_bad_telnet_fields_name_field_and_value(change: dict, field: str, words: str) -> None:
    import tomllib

    data = tomllib.loads(TELNET)
    for key, value in change.items():
        name = key.split(".", 1)[1]
        if value is None:
            del data["flows"][0][name]
        else:
            data["flows"][0][name] = value
    with pytest.raises(ScenarioError) as e:
        load_scenario(data)
    assert field in str(e.value) and words in str(e.value)


def test_bad_ftp_sizes_are_refused() -> None:
    with pytest.raises(ScenarioError, match=r"flows\[4\].max_size.*>= min_size"):
        load_scenario(WAN_BASE, {"flows[4].max_size": "10KB"})


@pytest.mark.engine
def test_a_dropped_telnet_packet_carries_its_timeout_in_the_summary() -> None:
    """Through the whole stack: scripted drop of the 10th written byte, recovered by the 1 s timer."""
    clean = ecnlab.run(TELNET_DATA()).flows.iloc[0]
    assert clean.kind == "telnet" and clean.telnet_frac_over_100ms == 0.0
    assert clean.telnet_delay_max_s < 0.01
    data = TELNET_DATA()
    data["faults"] = [{"link": "s1->R1", "flow": "t", "action": "drop", "seq": 10}]
    lossy = ecnlab.run(data).flows.iloc[0]
    assert lossy.timeouts == 1
    assert 1.0 <= lossy.telnet_delay_max_s < 1.02
    assert lossy.telnet_frac_over_100ms > 0


def TELNET_DATA() -> dict:  # noqa: N802 - a fresh copy each time
    import tomllib

    return tomllib.loads(TELNET)


# ----- metrics and claims on known inputs -------------------------------------------------


def _flows() -> pd.DataFrame:
    nan = float("nan")
    return pd.DataFrame(
        [
            {"id": "bulk_1", "bytes_delivered": 960_000, "timeouts": 2, "telnet_delivered": nan, "telnet_writes": nan,
             "telnet_delay_max_s": nan, "telnet_delay_mean_s": nan, "telnet_frac_over_100ms": nan},
            {"id": "bulk_2", "bytes_delivered": 1_920_000, "timeouts": 0, "telnet_delivered": nan, "telnet_writes": nan,
             "telnet_delay_max_s": nan, "telnet_delay_mean_s": nan, "telnet_frac_over_100ms": nan},
            {"id": "telnet_1", "bytes_delivered": 10, "timeouts": 1, "telnet_delivered": 10, "telnet_writes": 10,
             "telnet_delay_max_s": 0.5, "telnet_delay_mean_s": 0.06, "telnet_frac_over_100ms": 0.1},
            {"id": "telnet_2", "bytes_delivered": 30, "timeouts": 0, "telnet_delivered": 30, "telnet_writes": 31,
             "telnet_delay_max_s": 0.01, "telnet_delay_mean_s": 0.01, "telnet_frac_over_100ms": 0.0},
        ]
    )  # fmt: skip


def test_run_metrics_follow_the_papers_rows() -> None:
    queues = pd.DataFrame([{"link": "R1->R2", "rate_bps": 8_000_000, "early_drops": 3, "forced_drops": 1,
                            "overflow_drops": 2, "marks": 0, "utilization": 0.9}])  # fmt: skip
    m = run_metrics(_flows(), queues, LAN)
    capacity = 8e6 * 15 / 8  # bytes the link carries in 15 s
    assert math.isclose(m["bulk_frac"], 2_880_000 * 1000 / 960 / capacity)
    assert math.isclose(m["bulk_min_frac"], 960_000 * 1000 / 960 / capacity)
    assert m["telnet_max_s"] == 0.5
    assert math.isclose(m["telnet_mean_s"], (10 * 0.06 + 30 * 0.01) / 40)
    assert math.isclose(m["telnet_over_100ms"], 1 / 40)
    assert (m["telnet_packets"], m["telnet_written"], m["drops"], m["bulk_timeouts"]) == (40, 41, 6, 2)
    # A run that lasted 3 s is measured over 3 s, not the scenario's nominal 15.
    short = run_metrics(_flows(), queues, LAN, duration_s=3.0)
    assert math.isclose(short["bulk_frac"], 5 * m["bulk_frac"])


def test_gateway_labels_split() -> None:
    assert split_gateway("RED-byte-120") == ("RED", "byte", 120)
    with pytest.raises(ValueError):
        split_gateway("PIE-pkt-60")


def _runs(**per_gateway: dict) -> pd.DataFrame:
    rows = []
    for gw, values in per_gateway.items():
        for mode in ("pkt", "byte"):
            for buf in (60, 240):
                base = {"gateway": gw, "mode": mode, "buffer_kb": buf, "clock": "100ms", "window": 8,
                        "load": "heavy", "seed": 1, "bulk_frac": 0.95, "bulk_min_frac": 0.19, "telnet_max_s": 0.01,
                        "telnet_mean_s": 0.005, "telnet_over_100ms": 0.0, "drops": 0, "avg_qlen_pkts": 20.0,
                        "forced_drops": 0}  # fmt: skip
                base.update(values.get(mode, {}))
                rows.append(base)
    return pd.DataFrame(rows)


def test_claim_checks_can_say_yes_and_no() -> None:
    good = _runs(DT={}, RED={}, ECN={})
    assert lan_ecn_robust(good)[0] == "yes"
    bad = _runs(DT={}, RED={}, ECN={"pkt": {"bulk_frac": 0.5}})
    verdict, detail = lan_ecn_robust(bad)
    assert verdict == "partly" and "2 of 4" in detail
    assert lan_droptail_small_window_no_drops(good)[0] == "yes"
    assert lan_droptail_small_window_no_drops(_runs(DT={"pkt": {"drops": 3}}, ECN={}))[0] == "partly"
    protects = _runs(DT={"pkt": {"telnet_over_100ms": 0.05}}, RED={"pkt": {"telnet_over_100ms": 0.02}}, ECN={})
    assert byte_mode_protects(protects)[0] == "yes"
    hurts = _runs(DT={"byte": {"telnet_over_100ms": 0.05}}, RED={"byte": {"telnet_over_100ms": 0.02}}, ECN={})
    assert byte_mode_protects(hurts)[0] == "no"
    slow = {"pkt": {"telnet_mean_s": 0.02, "telnet_max_s": 0.3, "telnet_over_100ms": 0.01}}
    ecn_best = _runs(DT=slow, RED=slow, ECN={})
    assert wan_ecn_lowest_delay(ecn_best)[0] == "yes"


def test_source_quench_checks_compare_with_ecn() -> None:
    base = {"quench_load": 0.001, "quenches": 50, "quenches_received": 40, "quench_reductions": 10}
    same = _runs(DT={}, RED={}, ECN={}, SQ={m: base for m in ("pkt", "byte")})
    checks = (sq_telnet_delay, sq_throughput, sq_overhead, sq_prompt)
    assert [c(same)[0] for c in checks] == ["yes", "yes", "yes", "yes"]
    slow = {**base, "telnet_mean_s": 0.05, "telnet_max_s": 0.4, "telnet_over_100ms": 0.02, "bulk_frac": 0.6,
            "avg_qlen_pkts": 30.0, "forced_drops": 9}  # fmt: skip
    worse = _runs(ECN={}, SQ={"pkt": slow, "byte": {**slow, "quench_load": 0.05}})
    assert [c(worse)[0] for c in checks] == ["no", "no", "partly", "no"]
    assert "2 of 4 runs" in sq_overhead(worse)[1]
    assert sq_telnet_delay(_runs(DT={}, ECN={}))[0] == "not run"


def test_paper_claims_ignore_the_source_quench_column() -> None:
    """A bad RED+SQ column changes the Source Quench statements, never the paper's claims."""
    good = _runs(DT={}, RED={}, ECN={})
    bad_sq = _runs(DT={}, RED={}, ECN={}, SQ={"pkt": {"bulk_frac": 0.1, "telnet_max_s": 3.0}})
    for df in (good, bad_sq):
        df[["quench_load", "quenches", "quenches_received", "quench_reductions"]] = 0
    a, b = evaluate(lan_claims(), good), evaluate(lan_claims(), bad_sq)
    paper = a.section != SQ_SECTION
    assert a[paper].ecnlab_shows.tolist() == b[paper].ecnlab_shows.tolist()
    # worse worst delay only (mean and share > 100 ms alike); bulk lower in half the cells
    assert b[~paper].ecnlab_shows.tolist()[:2] == ["partly", "partly"] and (~paper).sum() == 4


@pytest.mark.parametrize("name", ["lan.toml", "lan-quick.toml", "wan.toml", "wan-quick.toml"])
def test_every_grid_has_the_four_gateway_columns(name: str) -> None:
    sweep = load_sweep(HERE / name)
    labels = {str(r.axes["gateway"]) for r in sweep.runs}
    cells = {split_gateway(label) for label in labels}
    assert {gw for gw, _, _ in cells} == set(GATEWAYS) == {"DT", "RED", "ECN", "SQ"}
    assert len(cells) == 4 * 2 * 4, "every gateway in both modes at four buffers"
    for label in labels:
        if label.startswith("SQ-"):
            data = next(r for r in sweep.runs if r.axes["gateway"] == label).data
            q = engine_spec(load_scenario(data))
            bottleneck = next(link["queue"] for link in q["links"] if link["name"] == "R1->R2")
            assert bottleneck["quench"] is True and bottleneck["ecn"] is False
            assert all(engine_tcp_config(f["tcp"])["ecn"] == "off" for f in q["flows"])


def test_group_resolves_to_lan_and_wan() -> None:
    assert [e.name for e in resolve("floyd1994")] == ["floyd-lan", "floyd-wan"]
    for e in resolve("floyd1994"):
        assert e.sweep_path(quick=True).is_file() and e.sweep_path(quick=False).is_file()


# ----- a tiny reproduce on real runs ------------------------------------------------------

RED60 = 'kind = "red", limit = 60, min_th = 5, max_th = 15, max_p = 0.02, gentle = false'
TINY = f"""\
description = "floyd-lan test: 3 s, one seed, 60 and 240 kB packet-mode gateways, 64-packet windows"
base = "{LAN_BASE}"
seeds = 1
name = "{{gateway}},win={{window}},clock={{clock}},seed={{seed}}"

[set]
duration = "3s"

[axes]
window.64 = {{ "tcp.rwnd" = 61440 }}
clock."0.1ms" = {{ "tcp.clock_granularity" = "100us", "tcp.min_rto" = "200us" }}

[axes.gateway]
"DT-pkt-60" = {{ "topology.bottleneck_queue" = {{ kind = "droptail", limit = 60 }}, "tcp.ecn" = false }}
"DT-byte-240" = {{ "topology.bottleneck_queue" = {{ kind = "droptail", limit_bytes = 240000 }}, "tcp.ecn" = false }}
"RED-pkt-60" = {{ "topology.bottleneck_queue" = {{ {RED60} }}, "tcp.ecn" = false }}
"ECN-pkt-60" = {{ "topology.bottleneck_queue" = {{ {RED60}, ecn = true }}, "tcp.ecn" = true }}
"SQ-pkt-60" = {{ "topology.bottleneck_queue" = {{ {RED60}, signal = "quench" }}, "tcp.ecn" = false }}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("floyd")
    sweep = d / "tiny.toml"
    sweep.write_text(TINY)
    lan = STUDY.experiment(STUDY.parts[0])
    register(dataclasses.replace(lan, name="floyd-test", title="floyd test", sweep_file=sweep, quick_file=sweep))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ecnlab.report, "add_sweep_sections", lambda *args: None)
            outcome = reproduce("floyd-test", out=d / "out", quick=True, jobs=1, progress=False)
    finally:
        unregister("floyd-test")
    assert outcome.ok
    return d / "out"


@pytest.mark.engine
def test_reproduce_writes_claims_cells_figures_and_report(tiny: Path) -> None:
    assert {p.stem for p in (tiny / "tables").glob("*.csv")} == {"claims", "cells", "checks"}
    claims = pd.read_csv(tiny / "tables" / "claims.csv")
    assert len(claims) == 13 and set(claims.ecnlab_shows) <= {"yes", "no", "partly", "not run"}
    assert (claims.section == SQ_SECTION).sum() == 4
    assert list((tiny / "figures").glob("floyd-lan-clock-0p1ms.png"))
    html = (tiny / "report.html").read_text()
    assert "ecnlab beside the paper" in html
    assert "The paper&#x27;s claims" in html or "The paper's claims" in html


@pytest.mark.engine
def test_tiny_lan_behaves_as_the_mechanisms_say(tiny: Path) -> None:
    """Real runs: every telnet packet written early enough is delivered; ECN marks, Drop-Tail and RED drop."""
    cells = pd.read_csv(tiny / "tables" / "cells.csv").set_index(["gateway", "mode", "buffer_kb"])
    assert (cells.telnet_packets > 0).all()
    assert cells.loc[("ECN", "pkt", 60), "marks"] > 0
    assert cells.loc[("RED", "pkt", 60), "marks"] == 0 and cells.loc[("RED", "pkt", 60), "drops"] > 0
    # The fourth column: RED+SQ quenches instead of marking; the sources hear and act on them.
    sq = cells.loc[("SQ", "pkt", 60)]
    assert sq.marks == 0 and sq.quenches > 0 and 0 < sq.quench_reductions <= sq.quenches_received
    assert (cells.drop(index="SQ", level="gateway").quenches == 0).all()
    # 5 x 64 packets of window overflow a 60-packet Drop-Tail buffer but not 240 kB of bytes... at least
    # sometimes: the small buffer drops more than the large one.
    assert cells.loc[("DT", "pkt", 60), "drops"] > cells.loc[("DT", "byte", 240), "drops"]
    # Throughput is a fraction of the link, never above it.
    assert ((cells.bulk_frac > 0.5) & (cells.bulk_frac <= 1.0)).all()


def test_the_report_explains_only_claims_not_shown() -> None:
    """An explanation appears with the claim it explains missed, and is gone when every claim holds."""
    from ecnlab.experiments.floyd1994.report import _WHY, report_text

    claims = pd.DataFrame(
        [
            {"section": "7.2", "paper": "p", "ecnlab_shows": "no", "numbers": "n", "check": "wan_ecn_lowest_delay"},
            {"section": "7.2", "paper": "q", "ecnlab_shows": "yes", "numbers": "m", "check": "wan_throughput_alike"},
        ]
    )
    text = report_text({"claims": claims}, "floyd-wan")
    assert _WHY["wan_ecn"] in text and _WHY["wan_tput"] not in text
    claims.loc[0, "ecnlab_shows"] = "yes"
    assert "Why some claims" not in report_text({"claims": claims}, "floyd-wan")

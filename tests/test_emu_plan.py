"""Emulation checks that need no root: what a scenario maps to, what is refused
(one clear line, exit 2), and the compare command's input checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ecnlab.cli import main
from ecnlab.config import load_scenario
from ecnlab.emu.plan import make_plan

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "emulate-reno-ecn.toml"


def test_plan_maps_hosts_links_and_linux_settings() -> None:
    plan = make_plan(load_scenario(SCENARIO))
    assert [h.name for h in plan.hosts] == ["s1", "r1"]
    s1 = plan.hosts[0]
    assert s1.sysctls["net.ipv4.tcp_congestion_control"] == "reno"
    assert s1.sysctls["net.ipv4.tcp_ecn"] == "1"
    assert s1.mtu == 1500 and s1.addr.startswith("10.")
    assert s1.route_opts == ("initcwnd", "2", "rto_min", "200ms", "window", str(4 << 20))
    names = [link["name"] for link in plan.links]
    by_route = {(a, b): [names[i] for i in ls] for a, b, ls in plan.routes}
    assert by_route[(0, 1)] == ["s1->R1", "R1->R2", "R2->r1"]
    assert by_route[(1, 0)] == ["r1->R2", "R2->R1", "R1->s1"]
    red = next(link for link in plan.links if link["name"] == "R1->R2")
    assert red["queue"]["kind"] == "red" and red["queue"]["ecn"] is True
    # The engine's link order is s1->R1, R1->s1, R1->R2, ...: the RNG stream index.
    assert red["queue"]["link_rate_bps"] == 10_000_000 and red["index"] == 2
    off = make_plan(load_scenario(SCENARIO, ["tcp.ecn=false", "tcp.delayed_ack=false"]))
    assert off.hosts[0].sysctls["net.ipv4.tcp_ecn"] == "0"
    assert off.hosts[0].route_opts[-2:] == ("quickack", "1")


def test_bbr_runs_as_the_kernels_bbrv1_pacing_itself() -> None:
    """cc = "bbr" turns pacing on (bbr_init asks for it); emulate takes that pacing as the kernel's
    own (tcp_internal_pacing without fq) and sets nothing for it: the namespaces default to reno,
    each socket's TCP_CONGESTION names bbr."""
    sc = load_scenario(SCENARIO, ['tcp.cc="bbr"'])
    assert sc.flows[0].tcp.cc == "bbr" and sc.flows[0].tcp.pacing and sc.flows[0].tcp.bbr_version == "v1"
    plan = make_plan(sc)
    reno = make_plan(load_scenario(SCENARIO))
    assert plan.hosts == reno.hosts and plan.links == reno.links and plan.routes == reno.routes
    assert {h.sysctls["net.ipv4.tcp_congestion_control"] for h in plan.hosts} == {"reno"}


def test_prague_runs_as_the_bpf_prague_like_over_classic_ecn() -> None:
    """cc = "prague" turns on AccECN and pacing; emulate gives the flow ecnlab's Prague-like, which
    negotiates classic ECN (tcp_ecn = 1) and paces itself, and names it in the run's warnings."""
    from ecnlab.emu import bpf
    from ecnlab.emu.summary import PRAGUE_LIKE_NOTE

    sc = load_scenario(SCENARIO, ['tcp={cc="prague"}'])
    assert sc.flows[0].tcp.accecn and sc.flows[0].tcp.pacing
    plan = make_plan(sc)
    assert {h.sysctls["net.ipv4.tcp_ecn"] for h in plan.hosts} == {"1"}
    assert bpf.linux_cc("prague") == "prague_like" and bpf.programs_needed({"prague"}) == [bpf.PROGRAMS["prague"]]
    assert "ECT(0)" in PRAGUE_LIKE_NOTE and "Prague-like" in PRAGUE_LIKE_NOTE


@pytest.mark.parametrize(
    ("override", "sysctl"),
    [(None, "0"), ("tcp.syn_ecn_fallback=off", "0"), ("tcp.syn_ecn_fallback=retransmissions", "1"),
     ("tcp.personality=linux", "1")],
)  # fmt: skip
def test_plan_sets_tcp_ecn_fallback_from_the_syn_fallback_rule(override: str | None, sysctl: str) -> None:
    plan = make_plan(load_scenario(SCENARIO, [override] if override else []))
    assert {h.sysctls["net.ipv4.tcp_ecn_fallback"] for h in plan.hosts} == {sysctl}


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "tcp.variant=tahoe",
            'tcp.recovery = "tahoe": Linux has no such loss recovery; emulate supports reno, newreno, sack',
        ),
        (
            'faults=[{link = "R1->R2", flow = "reno", action = "drop", nth = 3}]',
            "faults: scripted faults are not supported by emulate",
        ),
        (
            'tcp.ecn="accecn"',
            'tcp.ecn = "accecn": emulate cannot negotiate AccECN (this kernel has none)',
        ),
        (
            'tcp={cc="bbr", bbr_version="v3"}',
            'tcp.bbr_version = "v3": this kernel has BBRv1 only (net/ipv4/tcp_bbr.c)',
        ),
        (
            "tcp.pacing=true",
            "tcp.pacing = true: emulate cannot pace Linux reno here (no fq qdisc; only bbr and prague pace themselves)",
        ),
        (
            'tcp={cc="prague", prague_version="v0.6"}',
            "tcp.prague_version = \"v0.6\": the Prague-like has only the reference's 'v0.7'",
        ),
        (
            'tcp={cc="prague", prague_rtt_target="10ms"}',
            "tcp.prague_rtt_target = \"0.01 s\": the Prague-like has only the reference's '0.025 s'",
        ),
    ],
)
def test_unsupported_scenarios_are_refused_in_one_line(
    override: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x"
    assert main(["emulate", str(SCENARIO), "--out", str(out), "--set", override]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err, err
    assert not out.exists()


def test_source_quench_gateway_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x"
    sets = ["topology.bottleneck_queue.ecn=false", 'topology.bottleneck_queue.signal="quench"']
    args = ["emulate", str(SCENARIO), "--out", str(out)] + [a for s in sets for a in ("--set", s)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert 'links.R1->R2.queue.signal = "quench": emulate supports the signals drop and mark' in err, err
    assert not out.exists()


def test_emulate_refuses_without_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    out = tmp_path / "x"
    assert main(["emulate", str(SCENARIO), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ecnlab: error: ") and "emulate needs root" in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_compare_takes_two_simulated_runs_and_refuses_a_non_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Compare sets any two runs side by side, two simulations too."""
    from ecnlab.results import write_summary

    summary = {"format_version": 1, "scenario": {"name": "a"}, "seed": 1, "flows": [], "queues": [], "links": []}
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        write_summary(tmp_path / d, summary)
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert capsys.readouterr().out.startswith("A: a, simulated (seed 1)\nB: a, simulated (seed 1)\n")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "nothing")]) == 2
    assert "not a result directory" in capsys.readouterr().err


def _router(front: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The router's command line: the one built into ecnlab._core, or crates/emu's binary."""
    from ecnlab.emu.run import router_command

    if front == "builtin":
        monkeypatch.delenv("ECNLAB_ROUTER", raising=False)
        return router_command()
    target = Path(os.environ.get("CARGO_TARGET_DIR") or Path(__file__).resolve().parents[1] / "target")
    binary = target / "release" / "ecnlab-router"
    if not binary.is_file():
        pytest.skip(f"{binary} is not built (cargo build --release -p ecnlab-emu)")
    monkeypatch.setenv("ECNLAB_ROUTER", str(binary))
    return router_command()


@pytest.mark.parametrize("front", ["builtin", "binary"])
def test_router_rejects_a_bad_configuration_in_one_line(
    front: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import subprocess

    router = _router(front, monkeypatch)
    assert (router[1:] == ["-m", "ecnlab.emu.router"]) == (front == "builtin"), router

    cfg = {
        "seed": 1,
        "ends": [
            {"name": "a", "dev": "tun0", "addr": "10.77.0.1"},
            {"name": "b", "dev": "tun0", "addr": "10.77.0.2"},
        ],
        "links": [
            {
                "name": "a->b",
                "index": 0,
                "rate_bps": 10_000_000,
                "delay_ns": 0,
                "queue": {
                    "kind": "red",
                    "limit_pkts": 10,
                    "min_th": 5,
                    "max_th": 3,
                    "max_p": 0.1,
                    "wq": 0.002,
                    "gentle": False,
                    "wait": True,
                    "mode": "packet",
                    "mean_pkt_bytes": 1500,
                    "link_rate_bps": 10_000_000,
                    "ecn": True,
                },
            }
        ],
        "routes": [{"from": 0, "to": 1, "links": [0]}],
    }
    path = tmp_path / "router.json"
    path.write_text(json.dumps(cfg))
    r = subprocess.run([*router, str(path)], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("ecnlab-router: error: ") and len(r.stderr.splitlines()) == 1, r.stderr
    assert "links[0].queue.max_th" in r.stderr, r.stderr
    cfg["routes"] = [{"from": 0, "to": 0, "links": [0]}]
    path.write_text(json.dumps(cfg))
    r = subprocess.run([*router, str(path)], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "routes[0] = 0 -> 0: two different ends" in r.stderr, r.stderr


def test_emulation_warns_of_access_drops_signals_away_from_the_bottleneck_and_lateness() -> None:
    """Drops at links that touch a host, signals that happened away from the configured bottleneck,
    and a late router, are said (not silent)."""
    from ecnlab.emu.summary import LATENESS_WARN_US, warnings

    sc = load_scenario(SCENARIO)
    names = [link.name for link in sc.topology.links]
    zero = {"arrivals": 1000, "marks": 0, "early_drops": 0, "forced_drops": 0, "overflow_drops": 0}
    queues = [{"link": n, **zero} for n in names]
    summary = {"queues": queues, "emulation": {"router": {"lateness": {"p50_us": 10.0, "p99_us": 40.0}}}}
    assert warnings(sc, summary) == []
    queues[0]["overflow_drops"] = 287  # s1->R1, a host's link
    summary["emulation"]["router"]["lateness"]["p99_us"] = LATENESS_WARN_US + 1
    w = warnings(sc, summary)
    assert len(w) == 3 and w[0].startswith(f"287 packets were dropped at links that touch a host ({names[0]} (287))")
    assert w[1].startswith(f"100 % of the congestion signals (287 of 287 marks and drops) happened at {names[0]} (")
    assert w[1].endswith("not at the configured bottleneck R1->R2 (red)")
    assert "p99 1001 µs" in w[2]


def test_utilisation_counts_bytes_after_the_warmup_mark_over_the_routers_own_clock() -> None:
    """Utilisation is the bytes since the router's warm-up mark over its own clock's span
    (``window.warmup_s`` to the report's ``t_s``), not over the scenario's nominal span, which a
    late end sample would inflate."""
    from ecnlab.emu.summary import utilization

    link = {"bytes": 10_000_000, "bytes_at_warmup": 1_000_000}
    report = {"t_s": 10.0, "window": {"start_s": 1.5, "warmup_s": 2.0}}
    # 9 MB over 8 s at 10 Mbit/s: 0.9 (the nominal span would say nothing of a late sample).
    assert utilization(link, 10_000_000, report) == pytest.approx(0.9)
    report["t_s"] = 10.1  # the end report came 100 ms late: the same bytes over 8.1 s
    assert utilization(link, 10_000_000, report) == pytest.approx(9e6 * 8 / (1e7 * 8.1))
    assert utilization(link, 1_000_000, report) == 1.0, "clamped as the simulator's"
    report["window"]["warmup_s"] = None  # the router never reached the mark
    assert utilization(link, 10_000_000, report) == 0.0


def test_a_bad_router_override_is_one_line_naming_where_the_router_is_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The router's location is said in one line (the wheel carries it in ecnlab._core)."""
    import subprocess
    import sys

    from ecnlab.emu.netns import EmulationError
    from ecnlab.emu.run import router_command

    missing = tmp_path / "no-such-router"
    monkeypatch.setenv("ECNLAB_ROUTER", str(missing))
    with pytest.raises(EmulationError, match=r"^\$ECNLAB_ROUTER = .*no-such-router.* is not an executable file"):
        router_command()
    r = subprocess.run(
        [sys.executable, "-m", "ecnlab", "emulate", "--help"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and "$ECNLAB_ROUTER" in " ".join(r.stdout.split()), r.stdout


RFC2884_TESTBED = Path(__file__).resolve().parents[1] / "python" / "ecnlab" / "experiments" / "rfc2884" / "testbed.toml"


def test_a_host_that_only_accepts_may_serve_ecn_and_non_ecn_flows() -> None:
    """RFC 2884's server answers an ECN and a non-ECN client (initiator = "dst", two background
    flows of one entry): it accepts ECN when asked (tcp_ecn 2); each client asks or does not."""
    plan = make_plan(load_scenario(RFC2884_TESTBED))
    ecn = {h.name: h.sysctls["net.ipv4.tcp_ecn"] for h in plan.hosts}
    assert ecn == {"server": "2", "ecn_on": "1", "ecn_off": "0", "c": "0"}
    names = [link["name"] for link in plan.links]
    by_route = {(plan.hosts[a].name, plan.hosts[b].name): [names[i] for i in ls] for a, b, ls in plan.routes}
    assert by_route[("server", "ecn_on")] == ["server->R1", "R1->R2", "R2->ecn_on"]
    assert by_route[("c", "server")] == ["c->R2", "R2->R1", "R1->server"]


def test_a_host_that_initiates_flows_differing_in_ecn_is_refused() -> None:
    from ecnlab.errors import ScenarioError

    sc = load_scenario(RFC2884_TESTBED, ['flows[1].initiator="src"'])
    with pytest.raises(ScenarioError, match=r"host server.*initiates ecn"):
        make_plan(sc)


def test_emulated_flows_start_where_the_engine_draws_them() -> None:
    """``start = "A..B"`` draws each flow's start uniformly on its own stream (Floyd 1994's
    staggered starts); ``emulate`` starts its flows at the same draws (``_core.flow_start_ns``)."""
    from ecnlab.emu.plan import flow_start_ns
    from ecnlab.runner import run

    raw = {
        "name": "staggered",
        "seed": 7,
        "duration": 3,
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "access_rate": "100Mbit",
            "access_delay": "1ms",
            "bottleneck_rate": "10Mbit",
            "bottleneck_delay": "10ms",
        },
        "flows": [{"name": "bulk", "from": "s1", "to": "r1", "count": 3, "start": "0.5s..2.5s"}],
    }
    sc = load_scenario(raw)
    engine = [round(f["start_s"] * 1e9) for f in run(raw).summary["flows"]]
    assert [flow_start_ns(sc.seed, k, f) for k, f in enumerate(sc.flows)] == engine
    assert len(set(engine)) == 3 and all(0.5e9 <= t <= 2.5e9 for t in engine)
    fixed = load_scenario({**raw, "flows": [{**raw["flows"][0], "start": "1s"}]})
    assert [flow_start_ns(7, k, f) for k, f in enumerate(fixed.flows)] == [10**9] * 3


def test_syn_retransmissions_come_from_nstat_when_the_flow_is_alone_at_its_hosts() -> None:
    """Both hosts' TcpExtTCPSynRetrans (SYNs of connections never established included) when
    the flow is each host's only one; else each end's TCP_INFO as its connections were set up."""
    from ecnlab.emu.summary import _syn_retransmits

    nstat = {"s1": {"TcpExtTCPSynRetrans": 2}, "r1": {"TcpExtTCPSynRetrans": 1}}
    alone = load_scenario(SCENARIO)
    (f,) = alone.flows
    ends = {(f.id, "src"): {"syn_retransmits": 0}, (f.id, "dst"): {"syn_retransmits": 0}}
    assert _syn_retransmits(alone, f, {"nstat": nstat, "ends": ends}) == 3
    shared = load_scenario(SCENARIO, ["flows.0.count=2"])
    ends = {(g.id, side): {"syn_retransmits": k + 1} for k, g in enumerate(shared.flows) for side in ("src", "dst")}
    assert [_syn_retransmits(shared, g, {"nstat": nstat, "ends": ends}) for g in shared.flows] == [2, 4]


def test_a_congestion_control_the_kernel_lacks_is_one_line_before_anything_is_built() -> None:
    from ecnlab.emu.kernel_cc import ensure_loaded
    from ecnlab.emu.netns import EmulationError

    ensure_loaded("reno")  # always built in
    with pytest.raises(EmulationError) as e:
        ensure_loaded("ecnlab_none")
    msg = str(e.value)
    assert msg.startswith("tcp.cc = ecnlab_none: this kernel has no ecnlab_none congestion control (tcp_ecnlab_none:")
    assert "\n" not in msg

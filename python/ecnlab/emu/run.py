"""``ecnlab emulate``: a scenario on real Linux TCP through ecnlab's own queues.

Steps: check the scenario can be emulated (:mod:`.plan`), create one network
namespace per host (:mod:`.netns`), start the router (:mod:`.router`) on their TUN
devices, run each flow's two ends (:mod:`.traffic`) for ``duration``, collect
the router's counters, ``TCP_INFO``/``ss -tino`` and each namespace's ``nstat``,
and write ``DIR/summary.json`` in the simulator's schema (:mod:`.summary`).
Everything created is removed on success, error and Ctrl-C.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ecnlab import timeseries
from ecnlab.config import Overrides, ScenarioSource, load_scenario
from ecnlab.emu import bpf
from ecnlab.emu.kernel_cc import MODULE_CCS, ensure_loaded
from ecnlab.emu.netns import EmulationError, Namespaces
from ecnlab.emu.plan import Plan, flow_start_ns, make_plan
from ecnlab.emu.procs import Processes, read_line, terminate_on_sigterm
from ecnlab.emu.steal import StealMeter
from ecnlab.emu.summary import build_emu_summary
from ecnlab.flows import captured_links, pcap_file
from ecnlab.impairments import impairments_engine
from ecnlab.lower import resolved_scenario
from ecnlab.model import Flow, Scenario
from ecnlab.results import RunResult, write_summary
from ecnlab.runner import atomic_out_dir

__all__ = ["emulate", "emulate_scenario", "router_command", "require_root", "PrivilegeError", "ROUTER_ENV"]

#: Traffic starts this long after every listener is up.
START_MARGIN_S = 0.5
#: The bulk sink keeps reading this long after the end (the sender's FIN).
DRAIN_S = 3.0
#: Extra time any process may take past the run's end before it is stopped.
SLACK_S = 15.0
PORT_BASE = 5201
#: SCHED_FIFO priority of the router (1..99; low: above every normal process, below kernel threads).
ROUTER_RT_PRIORITY = 10


class PrivilegeError(PermissionError):
    """emulate needs root (network namespaces, TUN devices)."""


def require_root() -> None:
    if os.geteuid() != 0:
        raise PrivilegeError(
            "emulate needs root (it creates network namespaces and TUN devices); run it as root or with sudo"
        )


#: An ``ecnlab-router`` binary to run instead of the router built into ``ecnlab._core``.
ROUTER_ENV = "ECNLAB_ROUTER"


def router_command() -> list[str]:
    """The router's command line (then CONFIG.json --max-seconds S): ``$ECNLAB_ROUTER`` if set,
    else ``python -m ecnlab.emu.router``, the same code compiled into ``ecnlab._core``."""
    env = os.environ.get(ROUTER_ENV)
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return [env]
        raise EmulationError(
            f"${ROUTER_ENV} = {env!r} is not an executable file: point it at an ecnlab-router binary "
            "(cargo build --release -p ecnlab-emu) or unset it to use the router built into ecnlab._core"
        )
    from ecnlab import _core

    if not hasattr(_core, "router_main"):
        raise EmulationError(
            f"this ecnlab._core has no router (it is built on Linux only); set ${ROUTER_ENV} to an "
            "ecnlab-router binary (cargo build --release -p ecnlab-emu in the source repository)"
        )
    return [sys.executable, "-m", "ecnlab.emu.router"]


def emulate(
    scenario: ScenarioSource, *, out: str | Path, seed: int | None = None, overrides: Overrides = None
) -> RunResult:
    """Validate ``scenario``, emulate it, write ``out/summary.json``; see the module doc."""
    sc = load_scenario(scenario, overrides, seed=seed)
    return emulate_scenario(sc, Path(out))


def emulate_scenario(sc: Scenario, out: Path) -> RunResult:
    plan = make_plan(sc)
    require_root()
    for prog in bpf.programs_needed({f.tcp.cc for f in sc.flows}):
        bpf.ensure(prog)  # before any namespace exists: a failure leaves nothing behind
    for cc in sorted({f.tcp.cc for f in sc.flows} & set(MODULE_CCS)):
        ensure_loaded(cc)  # likewise
    router = router_command()
    with atomic_out_dir(out) as staging:
        with terminate_on_sigterm():
            raw = _run(sc, plan, router, staging)
        summary = build_emu_summary(sc, resolved_scenario(sc), plan, raw)
        write_summary(staging, summary)
        _write_web_objects(sc, raw, staging)
        series = {f.id: raw["ends"][(f.id, "src")].get("series") or [] for f in sc.flows}
        tables = timeseries.from_flow_rows(series)
        timeseries.write(staging, tables)
    return RunResult(summary, out, tables)


#: Per-object results of web flows (one row per object; ``done_s`` empty when unfinished).
WEB_OBJECTS_FILE = "web_objects.csv"


def _write_web_objects(sc: Scenario, raw: dict[str, Any], staging: Path) -> None:
    """``DIR/web_objects.csv``: flow, connection, start_s, bytes, done_s, response_s (times from the run start)."""
    rows = []
    for f in sc.flows:
        if f.app.kind != "web":
            continue
        for conn, start, size, done in raw["ends"][(f.id, "dst")]["objects"]:
            resp = "" if done is None else f"{done - start:.6f}"
            rows.append(f"{f.id},{conn},{start:.6f},{size},{'' if done is None else f'{done:.6f}'},{resp}\n")
    if rows:
        text = "flow,conn,start_s,bytes,done_s,response_s\n" + "".join(rows)
        (staging / WEB_OBJECTS_FILE).write_text(text, encoding="utf-8")


def _router_config(sc: Scenario, plan: Plan, names: dict[str, str], staging: Path) -> dict[str, Any]:
    pcap = {link: entry for entry in sc.pcap for link in captured_links(entry)}
    impairments = impairments_engine(sc.impairments)
    links = []
    for link in plan.links:
        entry = {k: link[k] for k in ("name", "index", "rate_bps", "delay_ns", "loss", "queue")}
        if link["name"] in pcap:  # both directions of an "A<->B" capture name the same file
            entry["pcap"] = str(staging / pcap_file(pcap[link["name"]]))
        impaired = [m for m in impairments if m["link"] == link["name"]]
        if impaired:  # the engine's entries without link and flows (crates/emu config.rs)
            entry["impairments"] = [{k: v for k, v in m.items() if k not in ("link", "flows")} for m in impaired]
        links.append(entry)
    return {
        "seed": sc.seed,
        "ends": [{"name": h.name, "netns": names[h.name], "dev": "tun0", "addr": h.addr} for h in plan.hosts],
        "links": links,
        "routes": [{"from": a, "to": b, "links": list(ls)} for a, b, ls in plan.routes],
    }


def _run(sc: Scenario, plan: Plan, router: list[str], staging: Path) -> dict[str, Any]:
    """Set up, run, tear down; returns the raw measurements."""
    duration = sc.duration_ns / 1e9
    warmup = sc.warmup_ns / 1e9
    limit = START_MARGIN_S + duration + DRAIN_S + SLACK_S
    t_wall = time.perf_counter()
    with Namespaces(plan.hosts) as ns, Processes() as procs:
        # The run's prefix in every child's command line lets a test find leftovers.
        cfg_path = staging / f".{ns.prefix}router.json"
        cfg_path.write_text(json.dumps(_router_config(sc, plan, ns.names, staging)))
        rt = procs.start([*router, str(cfg_path), "--max-seconds", f"{limit + 30:.0f}"])
        read_line(rt, 10, "ecnlab-router start")
        _prioritise(rt.pid)
        cfg_path.unlink()
        ends = _start_flows(sc, plan, ns, procs)
        t0 = time.monotonic() + START_MARGIN_S
        _router_window(rt, t0, t0 + warmup)
        for p, _ in ends:
            assert p.stdin is not None
            p.stdin.write(f"{t0!r}\n")
            p.stdin.flush()
        meter = StealMeter()  # the hypervisor's share of the run's CPU time (steal.py)
        meter.start()
        try:
            _sleep_until(t0 + warmup)
            tun_warmup = _tun_sample(plan, ns)
            _sleep_until(t0 + duration)
        finally:
            stolen = meter.stop()
        at_end = _router_stats(rt)
        tun_end = _tun_sample(plan, ns)
        results = {}
        for p, (flow_id, side) in ends:
            line = read_line(
                p, max(1.0, t0 + duration + DRAIN_S + SLACK_S - time.monotonic()), f"flow {flow_id} {side}"
            )
            results[(flow_id, side)] = json.loads(line)
        _await_quiet(rt)
        assert rt.stdin is not None
        rt.stdin.close()  # EOF: the router prints its final counters and exits
        final = json.loads(read_line(rt, 10, "ecnlab-router final counters"))
        nstat = {h.name: _nstat(ns.exec_prefix(h.name)) for h in plan.hosts}
        tun = {h.name: _tun_stats(ns.names[h.name]) for h in plan.hosts}
    return {
        "router": {"end": at_end, "final": final},
        "ends": results,
        "nstat": nstat,
        "tun": tun,
        "tun_window": {"warmup": tun_warmup, "end": tun_end},
        "wall_s": time.perf_counter() - t_wall,
        "cpu_steal": None if stolen is None else {"total_s": stolen.total_s, "peak_s": stolen.peak_s},
    }


def _start_flows(
    sc: Scenario, plan: Plan, ns: Namespaces, procs: Processes
) -> list[tuple[subprocess.Popen[str], tuple[str, str]]]:
    """Listeners first (each reports its port), then initiators (each reports it is ready);
    all wait for t0 on stdin."""
    Entry = tuple[list[str], tuple[str, str]]
    started: list[Entry] = []
    pending: list[Entry] = []
    for k, f in enumerate(sc.flows):
        port = PORT_BASE + k
        src_listens = f.initiator == "dst"
        for side, host, peer, sends in (("src", f.src, f.dst, True), ("dst", f.dst, f.src, False)):
            listens = src_listens == (side == "src")
            cfg = _end_config(sc, f, plan, host, peer, port, sends, listens)
            # The flow's RNG stream, as in the engine: its start ("A..B" draws on it first), web's sessions.
            start_ns = flow_start_ns(sc.seed, k, f)
            cfg.update(seed=sc.seed, flow_index=k, start_s=start_ns / 1e9, start_ns=start_ns)
            cfg.update(start_base_ns=f.start_ns, start_spread_ns=f.start_spread_ns)
            cfg["netns"] = ns.names[host]
            argv = [*ns.exec_prefix(host), sys.executable, "-m", "ecnlab.emu.traffic", json.dumps(cfg)]
            entry = (argv, (f.id, side))
            (started if listens else pending).append(entry)
    ends = []
    for argv, key in started:
        p = procs.start(argv)
        read_line(p, 10, f"flow {key[0]} {key[1]} listener")
        ends.append((p, key))
    initiators = [(procs.start(argv), key) for argv, key in pending]
    for p, key in initiators:  # each says it is ready (imports done), so t0 is not missed
        read_line(p, 30, f"flow {key[0]} {key[1]} start")
    return ends + initiators


def _end_config(
    sc: Scenario, f: Flow, plan: Plan, host: str, peer: str, port: int, sends: bool, listens: bool
) -> dict[str, Any]:
    from ecnlab.lower import _app

    return {
        "role": "listen" if listens else "connect",
        "sends": sends,
        "addr": plan.addr(host),
        "peer": plan.addr(peer),
        "port": port,
        "app": _app(f.app),
        "start_s": f.start_ns / 1e9,
        "duration_s": sc.duration_ns / 1e9,
        "warmup_s": sc.warmup_ns / 1e9,
        "drain_s": DRAIN_S,
        "sample_s": sc.sample_interval_ns / 1e9 if sends and _sampled(sc, f) else 0.0,
        # set per socket (TCP_CONGESTION): a namespace may not default to cubic; dctcp may be, prague is, ecnlab's BPF
        "cc": bpf.linux_cc(f.tcp.cc),
    }


def _sampled(sc: Scenario, f: Flow) -> bool:
    """Whether ``[output] timeseries_flows`` names the flow."""
    import fnmatch

    return any(fnmatch.fnmatchcase(f.id, p) for p in sc.timeseries_flows)


def _prioritise(pid: int) -> None:
    """Real-time priority for the router: with two cores shared with both TCP
    stacks and the traffic programs, its wake-ups are otherwise milliseconds
    late at the tail. The router sleeps in ppoll between events, so it cannot
    starve the machine (and the kernel's RT throttling bounds it anyway)."""
    try:
        os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(ROUTER_RT_PRIORITY))
    except OSError:
        pass  # lateness is reported either way


def _router_window(rt: subprocess.Popen[str], start: float, warmup: float) -> None:
    """Names the traffic's start and the warm-up's end (``time.monotonic()``, CLOCK_MONOTONIC, as the
    router's clock): its queue averages start at ``start``, its sojourn times and the links' utilisation
    bytes at ``warmup``, the simulator's windows (an average from the router's own start would count
    its idle time before the traffic and come out low)."""
    assert rt.stdin is not None
    rt.stdin.write(f"window {round(start * 1e9)} {round(warmup * 1e9)}\n")
    rt.stdin.flush()


def _router_stats(rt: subprocess.Popen[str]) -> dict[str, Any]:
    assert rt.stdin is not None
    rt.stdin.write("stats\n")
    rt.stdin.flush()
    stats: dict[str, Any] = json.loads(read_line(rt, 5, "ecnlab-router stats"))
    return stats


#: After the traffic programs end, packets still in the router's queues and delay lines are
#: delivered before it stops (so receivers' counters match its final ones); at most this long.
QUIET_MAX_S = 3.0
QUIET_STEP_S = 0.2


def _await_quiet(rt: subprocess.Popen[str]) -> None:
    """Wait until the router forwards nothing for one step (or QUIET_MAX_S)."""
    limit = time.monotonic() + QUIET_MAX_S
    last = -1
    while time.monotonic() < limit:
        n = sum(link["packets"] for link in _router_stats(rt)["links"])
        if n == last:
            return
        last = n
        time.sleep(QUIET_STEP_S)


def _nstat(prefix: list[str]) -> dict[str, int]:
    """Absolute SNMP counters of a namespace (fresh, so: of this run)."""
    r = subprocess.run([*prefix, "nstat", "-a", "-s", "-z", "--json"], capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        raise EmulationError(f"nstat: {r.stderr.strip()}")
    data: dict[str, int] = json.loads(r.stdout).get("kernel", {})
    return data


def _tun_stats(netns: str) -> dict[str, int]:
    """The TUN device's own counters (its TX drops reveal a too-short txqueuelen), read in namespace
    ``netns`` (``ip -n``: about half the time of ``ip netns exec``, which also remounts /sys)."""
    cmd = ["ip", "-n", netns, "-s", "-j", "link", "show", "tun0"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        raise EmulationError(f"ip -s link: {r.stderr.strip()}")
    s = json.loads(r.stdout)[0]["stats64"]
    return {
        "rx_packets": s["rx"]["packets"],
        "rx_bytes": s["rx"]["bytes"],
        "tx_packets": s["tx"]["packets"],
        "tx_bytes": s["tx"]["bytes"],
        "tx_dropped": s["tx"]["dropped"],
    }


def _tun_sample(plan: Plan, ns: Namespaces) -> dict[str, Any]:
    """Every host's TUN counters with the monotonic time they were read at: the middle of the
    ``ip -n`` call that read them (``read_s``: its length, the time's uncertainty; under load a
    call takes tens of ms, which timed from its start skewed the kernel's rate by up to 1 %)."""
    out = {}
    for h in plan.hosts:
        before = time.monotonic()
        counters = _tun_stats(ns.names[h.name])
        after = time.monotonic()
        out[h.name] = {"t": (before + after) / 2, "read_s": after - before, **counters}
    return out


def _sleep_until(t: float) -> None:
    while (left := t - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))

"""ns-2.35's ECN validation suite (``tcl/test/test-suite-ecn.tcl``) ported to ecnlab.

For each of the suite's tests this module runs Debian's ``ns`` on the real
suite file (package ``ns2-examples``), builds the same experiment as an ecnlab
scenario (``tcp.personality = "ns2"``), and compares what the TCP sender did
on the bottleneck link (docs/ns2-ecn-suite.md has the mapping and results).

The record compared, per flow (fid), is built by one function for both tools
from two event lists:

- *entries*: packets entering the bottleneck link (r1->r2; r1->k1 in net6),
  as ``(time, packet number, CWR)``. ns-2: the ``+`` lines of that link plus the
  ``d`` lines of packets the error model dropped before the ``+`` trace point.
  ecnlab: the sender's access-link pcap (transmission start + transmission
  time + propagation = arrival at r1, where the faults and the queue act).
- *acks*: ACK arrivals at the sender, ``(time, ACK number)``. ns-2: the ``r``
  lines at the sender; ecnlab: the r1->sender pcap, shifted the same way.

Packet numbers are ns-2's: packet 0 is ns-2's 40-byte pseudo-SYN, packet k >= 1
carries data bytes (k-1)*1000+1 ... k*1000. ecnlab's SYN is packet 0 and a
segment whose relative sequence number (ISN + 1 = data byte 1) is ``rel`` is
packet ``ceil(rel / 1000)``; an ecnlab ACK of relative number ``a`` (the next
byte expected) is ns-2's ACK ``(a - 1) // 1000`` (ns-2 ACKs the last packet
received in order).

Reactions are derived from those lists by the same rules on both sides: a
retransmission is a packet number entering again; a retransmission sent 100 ms
or more after the last ACK reached the sender is a timeout (the minimum RTO is
200 ms, an ACK-clocked packet leaves at once); the first retransmission after
the third duplicate ACK is a fast retransmit. ECN reductions are each tool's
own count (ns-2 ``necnresponses_``, ecnlab ``ecn_reductions``).
"""

from __future__ import annotations

import math
import re
import shutil
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SUITE_DIR",
    "suite_file",
    "list_tests",
    "parse_test",
    "TestSpec",
    "FlowSpec",
    "FaultSpec",
    "Events",
    "reactions",
    "compare",
    "parse_ns2_trace",
    "read_pcap",
    "run_test",
    "run_suite",
    "format_table",
]

SUITE_DIR = Path("/usr/share/doc/ns2/examples/tcl/test")
SUITE_NAME = "test-suite-ecn.tcl"
PKT = 1000  # ns-2 packetSize_: data bytes per packet
TIMEOUT_GAP = 0.1  # s: a retransmission this long after the last ACK was sent by the timer
TRACE_TOL = 0.001  # s: "same packet trace" tolerance
AGENTS = {"TCP": "tahoe", "TCP/Reno": "reno", "TCP/Newreno": "newreno", "TCP/Sack1": "sack"}
SETUP_TYPES = {"Tahoe": "TCP", "Reno": "TCP/Reno", "Newreno": "TCP/Newreno", "Sack1": "TCP/Sack1"}


# --------------------------------------------------------------------------- the suite file


def suite_file() -> Path | None:
    """The installed suite file, or None (Debian ``ns2-examples`` not installed)."""
    p = SUITE_DIR / SUITE_NAME
    return p if p.is_file() and (SUITE_DIR / "misc_simple.tcl").is_file() else None


def list_tests(text: str) -> list[str]:
    """The suite's tests, in file order: its ``Class Test/NAME`` lines."""
    return re.findall(r"^Class Test/(\S+) -superclass", text, re.M)


def _proc(text: str, name: str, proc: str) -> str:
    """The body of ``Test/NAME instproc PROC``, following ``[Test/X info instbody run]``."""
    m = re.search(rf"^Test/{re.escape(name)} instproc {proc} \{{\}} \{{\n(.*?)^\}}", text, re.M | re.S)
    if m:
        return m.group(1)
    ref = re.search(rf"Test/{re.escape(name)} instproc {proc} \{{\}} \[Test/(\S+) info instbody {proc}", text)
    if ref:
        return _proc(text, ref.group(1), proc)
    raise ValueError(f"test {name}: no {proc} body found in {SUITE_NAME}")


@dataclass(frozen=True)
class FlowSpec:
    fid: int
    agent: str  # ns-2 agent class: TCP, TCP/Reno, TCP/Newreno, TCP/Sack1
    src: str
    dst: str
    window: int
    ecn: bool
    start: float
    delack: bool


@dataclass(frozen=True)
class FaultSpec:
    link: str  # "r1->r2" or "r2->r3"
    fid: int
    nths: tuple[int, ...]  # 1-based count of the fid's packets entering the link
    mark: bool


@dataclass
class TestSpec:
    name: str
    net: str
    stop: float
    flows: list[FlowSpec]
    faults: list[FaultSpec]
    tcp_overrides: dict[str, str] = field(default_factory=dict)
    bottleneck_delay_ms: float = 20.0
    sink_globals: dict[str, str] = field(default_factory=dict)  # the file's own `Agent/TCPSink set` lines


def parse_test(text: str, name: str) -> TestSpec:
    """What test NAME configures: topology, flows, scripted drops/marks, global overrides."""
    init, run = _proc(text, name, "init"), _proc(text, name, "run")
    sinks = dict(re.findall(r"^Agent/TCPSink set (\w+) (\S+)", text, re.M))
    net = re.search(r"set net_\s+(\S+)", init)
    if net is None:
        raise ValueError(f"test {name}: no net_ in its init")
    over = dict(re.findall(r"^\s*Agent/TCP set (\w+) (\S+)", init, re.M))
    setup = re.search(r"\$self ecnsetup (\w+)((?: [\d.]+)*)", run)
    if setup is None:
        flows, stop = _explicit_flows(run)
        return TestSpec(name, net.group(1), stop, flows, [], over, sink_globals=sinks)
    args = setup.group(2).split()
    stop = float(args[0]) if args else 3.0
    fid = int(args[1]) if len(args) > 1 else 0
    delack = len(args) > 2 and args[2] == "1"
    flows = [FlowSpec(fid, SETUP_TYPES[setup.group(1)], "s1", "s3", 30, True, 0.0, delack)]
    for kind, start in re.findall(r"\$self second_tcp (\w+) ([\d.]+)", run):
        flows.append(FlowSpec(2, SETUP_TYPES[kind], "s1", "s3", 30, True, float(start), False))
    return TestSpec(name, net.group(1), stop, flows, _faults(run), over, bottleneck_delay_ms=10.0, sink_globals=sinks)


def _faults(run: str) -> list[FaultSpec]:
    """ErrorModel/Periodic (fid 0, ``drop_pkt``/``offset_``/``burstlen_``) and ErrorModel/List (fid 1)."""
    out = []
    offset = re.search(r"drop_pkt (\d+)|offset_ (\d+)", run)
    if offset:
        first = int(offset.group(1) or offset.group(2))
        burst = re.search(r"burstlen_ (\d+)", run)
        n = int(burst.group(1)) if burst else 1
        mark = "$lossmodel set markecn_ true" in run
        out.append(FaultSpec("r1->r2", 0, tuple(range(first, first + n)), mark))
    for which, link in (("drop_pkts", "r1->r2"), ("drop_pkts2", "r2->r3")):
        m = re.search(rf"\$self {which} \{{([\d ]+)\}}", run)
        if m:
            model = "errmodel1" if link == "r1->r2" else "errmodel2"
            mark = f"${model} set markecn_ true" in run
            out.append(FaultSpec(link, 1, tuple(int(i) + 1 for i in m.group(1).split()), mark))
    return out


def _explicit_flows(run: str) -> tuple[list[FlowSpec], float]:
    """Tests that build their connections themselves (``ecn``, ``ecn1``)."""
    flows = []
    conn = r"set (tcp\d+) \[\$ns_ create-connection (\S+) \$node_\((\w+)\) (\S+) \$node_\((\w+)\) (\d+)\]"
    conns = re.findall(conn, run)
    for var, agent, src, sink, dst, fid in conns:
        ftp = "ftp" + var[3:]
        win = re.search(rf"\${var} set window_ (\d+)", run)
        ecn = re.search(rf"\${var} set ecn_ (\d+)", run)
        start = re.search(rf'\$ns_ at ([\d.]+) "\${ftp} start"', run)
        flows.append(
            FlowSpec(
                int(fid),
                agent,
                src,
                dst,
                int(win.group(1)) if win else 20,
                bool(ecn and ecn.group(1) == "1"),
                float(start.group(1)) if start else 0.0,
                "DelAck" in sink,
            )  # fmt: skip
        )
    stop = re.search(r'\$ns_ at ([\d.]+) "\$self cleanupAll|set stoptime ([\d.]+)', run)
    if not flows or stop is None:
        raise ValueError("a test without ecnsetup must create its connections and stop time")
    return flows, float(stop.group(1) or stop.group(2))


# --------------------------------------------------------------------------- ns-2

# Sourced instead of the suite's last line (``TestSuite runTest``): records the
# agents create-connection makes (wrapping ns-2's own procedure), and replaces
# the suite's finish (which pipes all.tr through ns-2's Perl tools) by a dump of
# the node numbers, each agent's counters and each RED queue's parameters.
DRIVER = r"""
set ecnlab_agents {}
Simulator instproc create-connection-ns2 {s_type source d_type dest pktClass} \
    [Simulator info instbody create-connection]
Simulator instproc create-connection args {
    global ecnlab_agents
    set a [eval $self create-connection-ns2 $args]
    lappend ecnlab_agents $a
    return $a
}
source suite.tcl
TestSuite instproc finish args {
    global ecnlab_agents
    $self instvar ns_ node_
    foreach n [array names node_] { puts "ECNLAB node $n [$node_($n) id]" }
    puts "ECNLAB order [$ns_ array names Node_]"
    foreach a $ecnlab_agents { puts "ECNLAB agent [$a set fid_] [$a set necnresponses_] [$a set nrexmit_]" }
    foreach a [array names node_] {
        foreach b [array names node_] {
            if {[catch {set q [[$ns_ link $node_($a) $node_($b)] queue]}]} continue
            if {[catch {$q set setbit_}]} continue
            set out "ECNLAB red $a $b"
            foreach v {thresh_ maxthresh_ q_weight_ linterm_ mean_pktsize_ gentle_ setbit_ wait_ mark_p_ limit_} {
                append out " [$q set $v]"
            }
            puts $out
        }
    }
}
TestSuite runTest
"""
RedParams = dict[str, dict[str, float]]  # "r1->r2" -> ns-2's resolved RED parameters
RED_VARS = ("thresh", "maxthresh", "q_weight", "linterm", "mean_pktsize", "gentle", "setbit", "wait", "mark_p", "limit")


@dataclass
class Ns2Run:
    trace: list[str]
    nodes: dict[str, int]
    ecn_responses: dict[int, int]  # fid -> necnresponses_
    red: dict[str, dict[str, float]]  # "r1->r2" -> RED parameters as ns-2 resolved them
    order: list[int] = field(default_factory=list)  # node ids in the order `$ns run` resets them


def run_ns2(suite: Path, test: str, workdir: Path) -> Ns2Run:
    """Runs ``ns`` on the real suite file (minus its last line) for one test, QUIET."""
    ns = shutil.which("ns")
    if ns is None:
        raise RuntimeError("ns-2 is not installed (Debian package ns2)")
    text = suite.read_text()
    (workdir / "suite.tcl").write_text(re.sub(r"^TestSuite runTest\s*$", "", text, flags=re.M))
    shutil.copy(suite.parent / "misc_simple.tcl", workdir / "misc_simple.tcl")
    (workdir / "driver.tcl").write_text(DRIVER)
    p = subprocess.run([ns, "driver.tcl", test, "QUIET"], cwd=workdir, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"ns failed on {test}: {p.stderr.strip()[-300:]}")
    return _ns2_output(p.stdout, (workdir / "all.tr").read_text().splitlines())


def _ns2_output(stdout: str, trace: list[str]) -> Ns2Run:
    run = Ns2Run(trace, {}, {}, {})
    for line in stdout.splitlines():
        f = line.split()
        if f[:2] == ["ECNLAB", "node"]:
            run.nodes[f[2]] = int(f[3])
        elif f[:2] == ["ECNLAB", "agent"]:
            run.ecn_responses[int(f[2])] = int(f[3])
        elif f[:2] == ["ECNLAB", "order"]:
            run.order = [int(x) for x in f[2:]]
        elif f[:2] == ["ECNLAB", "red"]:
            run.red[f"{f[2]}->{f[3]}"] = dict(zip(RED_VARS, (float(x) for x in f[4:]), strict=True))
    return run


@dataclass
class Events:
    """One flow's packets entering the bottleneck and ACKs reaching its sender."""

    entries: list[tuple[float, int, bool]] = field(default_factory=list)  # (t, packet number, CWR)
    acks: list[tuple[float, int]] = field(default_factory=list)  # (t, ACK number)


def parse_ns2_trace(lines: list[str], bottleneck: tuple[int, int], senders: dict[int, int]) -> dict[int, Events]:
    """ns-2 ``trace-all`` lines -> Events per fid.

    ``bottleneck`` = (from node, to node); ``senders`` = fid -> sender node.
    Format: ``ev time from to type size flags fid src dst seqno uid``; flags[3] 'A' is CWR.
    """
    out: dict[int, Events] = {fid: Events() for fid in senders}
    entered: set[str] = set()
    for line in lines:
        f = line.split()
        if len(f) < 12 or f[4] not in ("tcp", "ack"):
            continue
        ev, t, a, b, fid = f[0], float(f[1]), int(f[2]), int(f[3]), int(f[7])
        if fid not in out:
            continue
        if f[4] == "tcp" and (a, b) == bottleneck and ev in "+d" and f[11] not in entered:
            entered.add(f[11])
            out[fid].entries.append((t, int(f[10]), f[6][3] == "A"))
        elif f[4] == "ack" and ev == "r" and b == senders[fid]:
            out[fid].acks.append((t, int(f[10])))
    return out


# --------------------------------------------------------------------------- ecnlab

NETS: dict[str, list[tuple[str, str, str, float]]] = {
    # (from, to, rate, delay ms), duplex; test-suite-ecn.tcl createlinks / createlinks3 / net6
    "net2": [("s1", "r1", "10Mbit", 2), ("s2", "r1", "10Mbit", 3), ("r1", "r2", "1.5Mbit", 20),
             ("s3", "r2", "10Mbit", 4), ("s4", "r2", "10Mbit", 5)],
    "net3": [("s1", "r1", "10Mbit", 2), ("s2", "r1", "10Mbit", 3), ("r1", "r2", "1.5Mbit", 20),
             ("r2", "r3", "100Mbit", 0), ("s3", "r3", "10Mbit", 4), ("s4", "r3", "10Mbit", 5)],
    "net6": [("s1", "r1", "8Mbit", 5), ("s2", "r1", "8Mbit", 5), ("r1", "k1", "800kbit", 20)],
}  # fmt: skip
NS2_DROPTAIL_LIMIT = 50  # ns-2 Queue limit_ default
# ns-2's RED draws from the simulator-wide MRG32k3a stream (seed 1); before the first RED
# draw, each TCP agent has drawn its boot_time_ twice (at creation and when $ns run resets
# it; ns2-tcp-semantics.md §10). The bottleneck's RED uses that stream (ns2_rng_skip); the
# other RED queues (ACK direction, net3's 100 Mb/s r2->r3) never reach an early decision.
NS2_DRAWS_PER_AGENT = 2
NS2_TICK_NS = 10_000_000  # tcpTick_


def mrg32k3a(n: int) -> list[float]:
    """The first ``n`` draws of ns-2's default generator: L'Ecuyer's MRG32k3a, all six
    state words 1 after ``seed 1`` (ns2-tcp-semantics.md §10; crates/aqm red/mrg.rs)."""
    m1, m2, s, out = 4294967087, 4294944443, [1] * 6, []
    for _ in range(n):
        p1 = (1403580 * s[1] - 810728 * s[0]) % m1
        p2 = (527612 * s[5] - 1370589 * s[3]) % m2
        s = [s[1], s[2], p1, s[4], s[5], p2]
        out.append(((p1 - p2) if p1 > p2 else (p1 - p2 + m1)) / (m1 + 1))
    return out


def boot_phases(spec: TestSpec, nodes: dict[str, int], order: list[int]) -> dict[int, int]:
    """Each TCP agent's ``boot_time_`` (ns): ``reset()`` draws uniform(tcpTick_) when the agent is
    created (in creation order) and again when ``$ns run`` resets the nodes (in ``order``, a node's
    agents in attach order); the last draw stays."""
    draws = mrg32k3a(NS2_DRAWS_PER_AGENT * len(spec.flows))
    run_order = [f.fid for n in order for f in spec.flows if nodes[f.src] == n]
    first_run_draw = len(spec.flows)
    return {fid: round(draws[first_run_draw + i] * NS2_TICK_NS) for i, fid in enumerate(run_order)}


RATES = {"10Mbit": 10e6, "8Mbit": 8e6}


def net_of(spec: TestSpec) -> str:
    return spec.net.removesuffix("-lossy")


def bottleneck_of(spec: TestSpec) -> tuple[str, str]:
    return ("r1", "k1") if net_of(spec) == "net6" else ("r1", "r2")


def _red(p: dict[str, float], rng_skip: int | None = None) -> dict[str, Any]:
    """ecnlab's ns2-personality RED with the parameters ns-2 resolved (thresh_ 0 = automatic, ...).

    The noecn tests set thresh_ = maxthresh_ = 1000, which ecnlab refuses (min_th < max_th);
    above the queue limit neither can be reached, so max_th = min_th + 1 acts the same.
    """
    max_th = p["maxthresh"] if p["maxthresh"] > p["thresh"] or p["thresh"] < p["limit"] else p["thresh"] + 1
    rng = {} if rng_skip is None else {"ns2_rng_skip": rng_skip}
    return rng | {
        "kind": "red", "personality": "ns2", "limit": int(p["limit"]), "min_th": p["thresh"],
        "max_th": max_th, "max_p": 1.0 / p["linterm"], "wq": p["q_weight"],
        "gentle": bool(p["gentle"]), "wait": bool(p["wait"]), "ecn": bool(p["setbit"]),
        "mean_pkt_size": int(p["mean_pktsize"]), "mark_p": p["mark_p"],
    }  # fmt: skip


def _links(spec: TestSpec, red: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    out = []
    for a, b, rate, delay in NETS[net_of(spec)]:
        if (a, b) == ("r1", "r2"):
            delay = spec.bottleneck_delay_ms
        link: dict[str, Any] = {"from": a, "to": b, "rate": rate, "delay": f"{delay}ms"}
        if f"{a}->{b}" in red:
            skip = NS2_DRAWS_PER_AGENT * len(spec.flows) if (a, b) == bottleneck_of(spec) else None
            link.update(queue=_red(red[f"{a}->{b}"], skip), reverse_queue=_red(red[f"{b}->{a}"]))
        out.append(link)
    return out


def _tcp(flow: FlowSpec, overrides: dict[str, str], sinks: dict[str, str], phase_ns: int) -> dict[str, Any]:
    tcp = {
        "personality": "ns2", "recovery": AGENTS[flow.agent], "mss": PKT, "rwnd": flow.window * PKT,
        "ecn": flow.ecn, "delayed_ack": flow.delack, "clock_phase": phase_ns / 1e9,
    }  # fmt: skip
    if overrides.get("bugFix_") == "false" and flow.agent in ("TCP", "TCP/Reno"):
        # with ecn_ 1, Tahoe's and Reno's dupack_action then fast-retransmit without any recover guard
        tcp["recover_guard_all"] = False
        tcp["guard_after_timeout"] = False
    if overrides.get("timerfix_") == "false":  # newtimer() before the RTT update and backoff reset
        tcp["timer_before_sample"] = True
    if sinks.get("SYN_immediate_ack_") == "false":  # a DelAck sink holds the ACK of packet 0
        tcp["syn_immediate_ack"] = False
    return tcp


MAPPED_OVERRIDES = ("bugFix_", "timerfix_")


def scenario(spec: TestSpec, red: RedParams, phases: dict[int, int] | None = None) -> dict[str, Any]:
    """The ecnlab scenario of one suite test (RED parameters and clock phases as ns-2 has them)."""
    phases = phases or {}
    names = sorted({n for a, b, _, _ in NETS[net_of(spec)] for n in (a, b)})
    over = spec.tcp_overrides
    flows = [
        {
            "name": f"f{f.fid}",
            "from": f.src,
            "to": f.dst,
            "start": f.start,
            "tcp": _tcp(f, over, spec.sink_globals, phases.get(f.fid, 0)),
        }
        for f in spec.flows
    ]
    fids = {f.fid for f in spec.flows}
    faults = [
        {"link": x.link, "flow": f"f{x.fid}", "action": "mark" if x.mark else "drop", "nth": n}
        for x in spec.faults if x.fid in fids for n in x.nths
    ]  # fmt: skip
    senders = sorted({f.src for f in spec.flows})
    return {
        "duration": spec.stop,
        "topology": {
            "kind": "explicit",
            "nodes": [{"name": n, "kind": "router" if n[0] == "r" else "host"} for n in names],
            "default_queue": {"kind": "droptail", "limit": NS2_DROPTAIL_LIMIT},
            "links": _links(spec, red),
        },
        "flows": flows,
        "faults": faults,
        "output": {"pcap": [f"{s}->r1" for s in senders] + [f"r1->{s}" for s in senders]},
    }


def access(spec: TestSpec, host: str) -> tuple[float, float]:
    """(rate bit/s, delay s) of the link between ``host`` and r1."""
    for a, b, rate, delay in NETS[net_of(spec)]:
        if {a, b} == {host, "r1"}:
            return RATES[rate], delay / 1000
    raise ValueError(f"{host} is not attached to r1")


def read_pcap(data: bytes) -> list[dict[str, Any]]:
    """A nanosecond raw-IPv4 pcap -> one dict per TCP packet (t, ports, seq, ack, flags, payload, len, ecn)."""
    magic = struct.unpack_from("<I", data)[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        ip = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        ihl, total = (ip[0] & 15) * 4, struct.unpack_from("!H", ip, 2)[0]
        sport, dport, seq, ack, doff, flags = struct.unpack_from("!HHIIBB", ip, ihl)
        out.append({
            "t": sec + frac * scale, "sport": sport, "dport": dport, "seq": seq, "ack": ack, "flags": flags,
            "payload": total - ihl - (doff >> 4) * 4, "len": total, "ecn": ip[1] & 3,
        })  # fmt: skip
    return out


SYN, ACK_FLAG, CWR_FLAG = 0x02, 0x10, 0x80


def _arrive(t: float, length: int, rate: float, delay: float) -> float:
    """When a packet whose transmission starts at ``t`` reaches the link's far end."""
    return t + math.ceil(length * 8e9 / rate) * 1e-9 + delay


def ecnlab_events(spec: TestSpec, pcaps: Path) -> dict[int, Events]:
    """Events per fid from the sender access-link pcaps (flows of one host in ascending server port)."""
    out: dict[int, Events] = {}
    for host in sorted({f.src for f in spec.flows}):
        rate, delay = access(spec, host)
        fwd = read_pcap((pcaps / f"{host}-r1.pcap").read_bytes())
        back = read_pcap((pcaps / f"r1-{host}.pcap").read_bytes())
        ports = sorted({p["dport"] for p in fwd})
        for fid, port in zip([f.fid for f in spec.flows if f.src == host], ports, strict=False):
            syn = next(p for p in fwd if p["dport"] == port and p["flags"] & SYN)
            ev = Events()
            for p in fwd:
                if p["dport"] == port and (p["flags"] & SYN or p["payload"] > 0):
                    rel = (p["seq"] - syn["seq"]) % 2**32
                    cwr = bool(p["flags"] & CWR_FLAG) and not p["flags"] & SYN
                    ev.entries.append((_arrive(p["t"], p["len"], rate, delay), -(-rel // PKT), cwr))
            for p in back:
                if p["sport"] == port and p["flags"] & ACK_FLAG:
                    rel = (p["ack"] - syn["seq"]) % 2**32
                    ev.acks.append((_arrive(p["t"], p["len"], rate, delay), (rel - 1) // PKT))
            # ns-2 halts at stoptime: nothing later is in all.tr
            ev.entries = [e for e in ev.entries if e[0] <= spec.stop]
            ev.acks = [a for a in ev.acks if a[0] <= spec.stop]
            out[fid] = ev
    return out


def run_ecnlab(spec: TestSpec, ns: Ns2Run, workdir: Path) -> tuple[dict[int, Events], dict[int, int]]:
    """Runs the ecnlab scenario; Events and ECN reductions per fid."""
    import ecnlab

    sc = scenario(spec, ns.red, boot_phases(spec, ns.nodes, ns.order))
    res = ecnlab.run(sc, out=workdir / "ecnlab")
    ecn = {int(f["id"][1:]): int(f["ecn_reductions"]) for f in res.summary["flows"]}
    return ecnlab_events(spec, workdir / "ecnlab"), ecn


# --------------------------------------------------------------------------- the record and the comparison


@dataclass
class Reactions:
    ecn_reductions: int
    fast_retransmits: int = 0
    timeouts: int = 0
    retransmitted: list[int] = field(default_factory=list)  # packet numbers, ascending, each once
    cwr: list[tuple[int, float]] = field(default_factory=list)  # (packet, time entering the bottleneck)
    rexmits: list[tuple[int, float]] = field(default_factory=list)

    def counts(self) -> tuple[int, int, int, list[int]]:
        return (self.ecn_reductions, self.fast_retransmits, self.timeouts, self.retransmitted)


def _dupcounts(acks: list[tuple[float, int]]) -> list[int]:
    """For each ACK: how many duplicates of the highest ACK so far it makes (0 for a new ACK)."""
    out, high, n = [], -2, 0
    for _, a in acks:
        n = n + 1 if a == high else 0
        high = max(high, a)
        out.append(n if a == high else 0)
    return out


def reactions(ev: Events, ecn_reductions: int, transit: float) -> Reactions:
    """The record of one flow (rules in the module docstring); ``transit``: sender to r1."""
    r = Reactions(ecn_reductions)
    dups, ack_times, used = _dupcounts(ev.acks), [t for t, _ in ev.acks], set()
    seen: set[int] = set()
    for t, pkt, cwr in ev.entries:
        if cwr:
            r.cwr.append((pkt, t))
        if pkt not in seen:
            seen.add(pkt)
            continue
        r.rexmits.append((pkt, t))
        sent = t - transit + 1e-6
        i = _last_le(ack_times, sent)
        if i < 0 or sent - ack_times[i] >= TIMEOUT_GAP:
            r.timeouts += 1
        elif dups[i] == 3 and i not in used:
            used.add(i)
            r.fast_retransmits += 1
    r.retransmitted = sorted({p for p, _ in r.rexmits})
    return r


def _last_le(times: list[float], t: float) -> int:
    import bisect

    return bisect.bisect_right(times, t) - 1


@dataclass
class Verdict:
    reactions_same: bool
    trace_same: bool
    difference: str  # the first difference, "" if none


KINDS = ("ECN reductions", "fast retransmits", "timeouts", "retransmitted")


def compare(ns2: dict[int, Reactions], ours: dict[int, Reactions]) -> Verdict:
    """Same reactions: equal counts and retransmitted sets per flow. Same trace: also every CWR
    packet and every retransmission the same packet, entering within TRACE_TOL of ns-2's."""
    for fid in sorted(ns2):
        a, b = ns2[fid], ours.get(fid, Reactions(-1))
        for what, x, y in zip(KINDS, a.counts(), b.counts(), strict=True):
            if x != y:
                return Verdict(False, False, f"fid {fid}: {what} ns-2 {_short(x)} vs ecnlab {_short(y)}")
    for fid in sorted(ns2):
        a, b = ns2[fid], ours[fid]
        for what, xs, ys in (("CWR", a.cwr, b.cwr), ("retransmission", a.rexmits, b.rexmits)):
            diff = _trace_diff(xs, ys)
            if diff:
                return Verdict(True, False, f"fid {fid}: {what} {diff}")
    return Verdict(True, True, "")


def _trace_diff(xs: list[tuple[int, float]], ys: list[tuple[int, float]]) -> str:
    for i, ((p, t), (q, u)) in enumerate(zip(xs, ys, strict=False)):
        if p != q or abs(t - u) > TRACE_TOL:
            return f"#{i + 1}: ns-2 pkt {p} at {t:.4f} s vs ecnlab pkt {q} at {u:.4f} s"
    if len(xs) != len(ys):
        return f"ns-2 {len(xs)} vs ecnlab {len(ys)}"
    return ""


def _short(x: Any) -> str:
    if isinstance(x, list):
        return "[" + " ".join(map(str, x[:8])) + (" ...]" if len(x) > 8 else "]")
    return str(x)


# --------------------------------------------------------------------------- running the suite


def _transit(spec: TestSpec, fid: int) -> float:
    src = next(f.src for f in spec.flows if f.fid == fid)
    rate, delay = access(spec, src)
    return (PKT + 40) * 8 / rate + delay


def run_test(suite: Path, name: str) -> dict[str, Any]:
    """Runs one test in both tools; a JSON-able result with both records and the verdict."""
    spec = parse_test(suite.read_text(), name)
    with tempfile.TemporaryDirectory(prefix=f"ns2ecn-{name}-") as tmp:
        ns = run_ns2(suite, name, Path(tmp))
        a, b = bottleneck_of(spec)
        senders = {f.fid: ns.nodes[f.src] for f in spec.flows}
        ns_ev = parse_ns2_trace(ns.trace, (ns.nodes[a], ns.nodes[b]), senders)
        our_ev, our_ecn = run_ecnlab(spec, ns, Path(tmp))
    ns_r = {fid: reactions(ev, ns.ecn_responses.get(fid, 0), _transit(spec, fid)) for fid, ev in ns_ev.items()}
    our_r = {fid: reactions(ev, our_ecn.get(fid, 0), _transit(spec, fid)) for fid, ev in our_ev.items()}
    v = compare(ns_r, our_r)
    return {
        "test": name,
        "reactions_same": v.reactions_same,
        "trace_same": v.trace_same,
        "difference": v.difference,
        "unmapped": {k: v for k, v in spec.tcp_overrides.items() if k not in MAPPED_OVERRIDES},
        "ns2": {str(k): _record(r) for k, r in ns_r.items()},
        "ecnlab": {str(k): _record(r) for k, r in our_r.items()},
    }


def _record(r: Reactions) -> dict[str, Any]:
    return {
        "ecn_reductions": r.ecn_reductions, "fast_retransmits": r.fast_retransmits, "timeouts": r.timeouts,
        "retransmitted": r.retransmitted, "cwr": [[p, round(t, 6)] for p, t in r.cwr],
        "rexmits": [[p, round(t, 6)] for p, t in r.rexmits],
    }  # fmt: skip


def run_suite(suite: Path, names: list[str] | None = None, jobs: int = 2) -> list[dict[str, Any]]:
    """Every test (or ``names``), ``jobs`` at a time; results in suite order."""
    from concurrent.futures import ThreadPoolExecutor

    names = names if names is not None else list_tests(suite.read_text())
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda n: run_test(suite, n), names))


def counts(results: list[dict[str, Any]]) -> tuple[int, int]:
    return sum(r["reactions_same"] for r in results), sum(r["trace_same"] for r in results)


def format_table(results: list[dict[str, Any]]) -> str:
    """Markdown: test, same reactions?, same trace?, the first difference; then the two counts."""
    yes = {True: "yes", False: "no"}
    rows = ["| test | same reactions | same trace | first difference |", "|---|---|---|---|"]
    for r in results:
        rows.append(f"| {r['test']} | {yes[r['reactions_same']]} | {yes[r['trace_same']]} | {r['difference']} |")
    n, m = counts(results)
    rows.append(f"\nsame reactions: {n}/{len(results)}; same packet trace: {m}/{len(results)}")
    return "\n".join(rows)

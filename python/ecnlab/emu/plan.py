"""A validated scenario → what a live emulation needs: hosts with addresses
and per-namespace settings, and the router's configuration.

The router gets the simulator's own links (``engine_spec``: same queue JSON,
same link indices, hence the same RNG streams) along each host-to-host route.
Linux TCP settings come from the scenario's ``tcp`` table where Linux has a
knob (``docs/emulation.md`` lists what maps and what does not).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import Any

from ecnlab.errors import ScenarioError
from ecnlab.lower import engine_spec
from ecnlab.model import Flow, Scenario, TcpSpec
from ecnlab.units import ns_to_s

__all__ = [
    "HostPlan",
    "Plan",
    "make_plan",
    "flow_start_ns",
    "LINUX_CC",
    "ECN_FALLBACK",
    "KERNEL_CCS",
    "SELF_PACED_CCS",
    "PRAGUE_LIKE_KNOBS",
]

#: scenario ``tcp.recovery`` → (the namespace's default congestion control, net.ipv4.tcp_sack).
#: Linux recovers with NewReno partial-ACK handling (RFC 6582) even without SACK; Tahoe has
#: no Linux counterpart. The congestion control itself (``tcp.cc``: reno, cubic) is set per
#: socket by the traffic programs (a namespace may default only to an allowed one).
LINUX_CC: dict[str, tuple[str, int]] = {
    "reno": ("reno", 0),
    "newreno": ("reno", 0),
    "sack": ("reno", 1),
}

#: ``tcp.cc`` values emulate can give Linux: reno and cubic (``net/ipv4/tcp_cong.c``, ``tcp_cubic.c``),
#: ``dctcp``, the kernel's own (``tcp_dctcp.c``, ``CONFIG_TCP_CONG_DCTCP``) where it has one, else
#: ecnlab's BPF DCTCP, loaded when the emulation starts (``ecnlab.emu.bpf``), and ``bbr``, mainline's
#: BBRv1 (``net/ipv4/tcp_bbr.c``), and ``prague``, ecnlab's BPF Prague-like: TCP Prague is out of tree
#: (L4STeam/linux ``net/ipv4/tcp_prague.c``) and needs AccECN, which this kernel cannot negotiate, so the
#: Prague-like runs Prague's congestion response over classic ECN feedback (``ecnlab.emu.bpf``). BBRv3
#: is out of tree too (google/bbr branch v3).
KERNEL_CCS = ("reno", "cubic", "dctcp", "bbr", "prague")

#: The congestion controls that pace themselves in Linux: BBR asks for pacing in ``bbr_init``
#: (``sk_pacing_status = SK_PACING_NEEDED``) and sets ``sk_pacing_rate`` on every ACK
#: (``bbr_set_pacing_rate``); without an fq qdisc on the device TCP paces the flow itself
#: (``tcp_needs_internal_pacing`` → ``tcp_internal_pacing`` in ``net/ipv4/tcp_output.c``, an hrtimer
#: per socket), with fq, fq does (``net/sched/sch_fq.c``). The TUN devices have no fq, so the kernel's
#: internal pacing it is: ``tcp.pacing`` of such a flow is the kernel's own, not a setting emulate makes.
#: The Prague-like asks for pacing as TCP Prague does (``prague_init``) and sets its rate on every ACK.
SELF_PACED_CCS = ("bbr", "prague")

#: The Prague knobs whose reference values the Prague-like has fixed (``ecnlab_prague_like.bpf.c``:
#: tcp_prague.c 0.7's RTT target and transition, no classic-AQM fallback).
PRAGUE_LIKE_KNOBS = (
    "prague_rtt_target_ns",
    "prague_rtt_transition",
    "prague_classic_fallback",
    "prague_version",
    "prague_fallback_fix",
)

#: scenario ``tcp.syn_ecn_fallback`` → ``net.ipv4.tcp_ecn_fallback``: with 1 (Linux's default) a
#: retransmitted SYN carries no ECN setup (``__tcp_retransmit_skb`` → ``tcp_ecn_clear_syn`` in
#: ``net/ipv4/tcp_output.c``), with 0 every SYN asks for ECN again (RFC 3168 §6.1.1.1's "MAY";
#: ``crates/tcp/src/rules/syn_fallback.rs`` is the simulator's rule).
ECN_FALLBACK = {"retransmissions": "1", "off": "0"}

#: Applications ecnlab.emu.traffic implements.
APP_KINDS = ("bulk", "serial", "request_response", "web")
#: TCP/IP header bytes on top of the MSS (IPv4 20 + TCP 20): the TUN MTU.
HEADERS = 40
#: Hosts live at 10.77.0.1, 10.77.0.2, ... (private, inside their own namespaces only).
ADDR_PREFIX = "10.77"
MAX_HOSTS = 250 * 250


@dataclass(frozen=True)
class HostPlan:
    """One scenario host: a namespace with one TUN device and Linux TCP settings."""

    name: str
    addr: str
    mtu: int
    sysctls: dict[str, str]
    #: ``ip route`` options for the route to the other hosts (init cwnd, min RTO, receive window, quick ACK).
    route_opts: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    hosts: tuple[HostPlan, ...]
    #: Links the router emulates: the engine spec's link dicts (with their index).
    links: tuple[dict[str, Any], ...]
    #: (from host index, to host index, router link positions in ``links``).
    routes: tuple[tuple[int, int, tuple[int, ...]], ...]

    def host(self, name: str) -> int:
        return next(i for i, h in enumerate(self.hosts) if h.name == name)

    def addr(self, name: str) -> str:
        return self.hosts[self.host(name)].addr


def make_plan(sc: Scenario) -> Plan:
    """Check that ``sc`` can be emulated and lay it out; ScenarioError otherwise."""
    _check_supported(sc)
    spec = engine_spec(sc)
    used = sorted({h for f in sc.flows for h in (f.src, f.dst)}, key=sc.topology.hosts.index)
    if len(used) > MAX_HOSTS:
        raise ScenarioError("flows", f"emulate supports at most {MAX_HOSTS} hosts", len(used))
    hosts = tuple(_host_plan(sc, name, i) for i, name in enumerate(used))
    paths: dict[tuple[str, str], list[int]] = {}
    for f in sc.flows:
        for a, b in ((f.src, f.dst), (f.dst, f.src)):
            if (a, b) not in paths:
                paths[(a, b)] = _shortest_path(spec, a, b)
    link_ids = sorted({i for p in paths.values() for i in p})
    pos = {li: k for k, li in enumerate(link_ids)}
    links = tuple(dict(spec["links"][li], index=li) for li in link_ids)
    names = [h.name for h in hosts]
    routes = tuple((names.index(a), names.index(b), tuple(pos[li] for li in p)) for (a, b), p in sorted(paths.items()))
    return Plan(hosts=hosts, links=links, routes=routes)


def _check_supported(sc: Scenario) -> None:
    if sc.topology.ecmp:
        raise ScenarioError(
            "topology.kind",
            "emulate routes one path per pair of hosts; ECMP fabrics (fat_tree, leaf_spine) run in the simulator",
            sc.topology.kind,
        )
    if sc.faults:
        raise ScenarioError("faults", "scripted faults are not supported by emulate (Linux TCP cannot be scripted)")
    for i, m in enumerate(sc.impairments):
        if m.flows:  # the router sees packets, not the scenario's flows
            raise ScenarioError(f"impairments[{i}].flows", "emulate applies impairments to every flow", list(m.flows))
    for link in sc.topology.links:
        if link.queue.red is not None and link.queue.red.quench:
            # The router forwards and counts but cannot emit ICMP, and Linux ignores Source Quench (RFC 6633).
            raise ScenarioError(
                f"links.{link.name}.queue.signal", "emulate supports the signals drop and mark", "quench"
            )
    for f in sc.flows:
        if f.app.kind not in APP_KINDS:
            raise ScenarioError(
                f"flows.{f.id}.kind", f"emulate supports the applications {', '.join(APP_KINDS)}", f.app.kind
            )
        for key, value, known, what in (
            ("cc", f.tcp.cc, KERNEL_CCS, "Linux here has no such congestion control"),
            ("recovery", f.tcp.recovery, tuple(LINUX_CC), "Linux has no such loss recovery"),
        ):
            if value not in known:
                raise ScenarioError(f"flows.{f.id}.tcp.{key}", f"{what}; emulate supports {', '.join(known)}", value)
        if f.tcp.cc == "bbr" and f.tcp.bbr_version != "v1":
            raise ScenarioError(
                f"flows.{f.id}.tcp.bbr_version", "this kernel has BBRv1 only (net/ipv4/tcp_bbr.c)", f.tcp.bbr_version
            )
        if f.tcp.pacing and f.tcp.cc not in SELF_PACED_CCS:
            # Linux paces Reno, CUBIC and DCTCP only under the fq qdisc (net/sched/sch_fq.c; TCP's own
            # pacing is for congestion controls that ask for it, SELF_PACED_CCS), and emulate installs none
            # (nor can it where CONFIG_NET_SCH_FQ is unset).
            paced = " and ".join(SELF_PACED_CCS)
            what = f"emulate cannot pace Linux {f.tcp.cc} here (no fq qdisc; only {paced} pace themselves)"
            raise ScenarioError(f"flows.{f.id}.tcp.pacing", what, True)
        if f.tcp.cc == "prague":
            _check_prague_like(f)
        elif f.tcp.ecn and f.tcp.accecn:
            # AccECN negotiation is net.ipv4.tcp_ecn = 3..5, which a kernel before "tcp: accecn: enable
            # AccECN" refuses with EINVAL (tcp_ecn_mode_max = 2 in net/ipv4/sysctl_net_ipv4.c).
            raise ScenarioError(
                f"flows.{f.id}.tcp.ecn", "emulate cannot negotiate AccECN (this kernel has none)", "accecn"
            )


def _check_prague_like(f: Flow) -> None:
    """What the Prague-like cannot do: Prague knobs other than the reference values it has. The
    AccECN that ``cc = "prague"`` needs becomes classic ECN negotiation with DCTCP's feedback (the
    summary warns)."""
    default = TcpSpec()
    for knob in PRAGUE_LIKE_KNOBS:
        ours, theirs = getattr(default, knob), getattr(f.tcp, knob)
        if theirs != ours:
            if knob.endswith("_ns"):  # a duration: shown in seconds, as the scenario writes it
                ours, theirs = f"{ns_to_s(ours):g} s", f"{ns_to_s(theirs):g} s"
            what = f"the Prague-like has only the reference's {ours!r}"
            raise ScenarioError(f"flows.{f.id}.tcp.{knob.removesuffix('_ns')}", what, theirs)


def _host_plan(sc: Scenario, name: str, i: int) -> HostPlan:
    """Per-namespace settings; every flow touching the host must agree on them, except ``ecn`` at a
    host that only accepts connections (:func:`_ecn_sysctl`)."""
    mine = [f for f in sc.flows if name in (f.src, f.dst)]
    tcp = _one(name, {dataclasses.replace(f.tcp, ecn=False) for f in mine})
    tcp = dataclasses.replace(tcp, ecn=mine[0].tcp.ecn)
    cc, sack = LINUX_CC[tcp.recovery]
    sysctls = {
        "net.ipv4.tcp_congestion_control": cc,  # new namespaces inherit the root's (bbr here)
        "net.ipv4.tcp_ecn": _ecn_sysctl(name, mine),
        "net.ipv4.tcp_ecn_fallback": ECN_FALLBACK[tcp.syn_ecn_fallback],
        "net.ipv4.tcp_sack": str(sack),
        "net.ipv4.tcp_no_metrics_save": "1",
        "net.ipv6.conf.all.disable_ipv6": "1",  # no IPv6 chatter on the TUN device
        "net.ipv6.conf.default.disable_ipv6": "1",
    }
    opts = [
        "initcwnd",
        str(tcp.init_cwnd),
        "rto_min",
        f"{max(1, tcp.min_rto_ns // 1_000_000)}ms",
        "window",  # the largest window the host advertises (RTAX_WINDOW clamps Linux's autotuning)
        str(tcp.rwnd_bytes),
    ]
    if not tcp.delayed_ack:
        opts += ["quickack", "1"]
    addr = f"{ADDR_PREFIX}.{i // 250}.{i % 250 + 1}"
    return HostPlan(name=name, addr=addr, mtu=tcp.mss + HEADERS, sysctls=sysctls, route_opts=tuple(opts))


def _ecn_sysctl(host: str, flows: list[Flow]) -> str:
    """``net.ipv4.tcp_ecn`` of a host: 1 (request and accept ECN) or 0 (neither) when its flows
    agree; when they differ and the host initiates none of them, 2 (accept ECN when the peer asks,
    Linux's default), so each connection negotiates ECN as its initiator's ``tcp.ecn`` says (RFC 3168
    §6.1.1: the SYN asks; the RFC 2884 testbed's server serves an ECN and a non-ECN client)."""
    ecns = {f.tcp.ecn for f in flows}
    if len(ecns) == 1:
        return "1" if ecns.pop() else "0"
    initiates = [f.id for f in flows if (f.src if f.initiator == "src" else f.dst) == host]
    if initiates:
        raise ScenarioError(
            f"flows (host {host})",
            "flows at one host may differ in tcp.ecn in emulate only where the host accepts every "
            f"connection (tcp_ecn is per host); it initiates {', '.join(initiates)}",
        )
    return "2"


def _one(host: str, tcps: set[TcpSpec]) -> TcpSpec:
    """The TCP settings of a host's flows; Linux settings are per namespace, so one set."""
    if len(tcps) != 1:
        keys = sorted(k for k in TcpSpec.__dataclass_fields__ if len({getattr(t, k) for t in tcps}) > 1)
        raise ScenarioError(
            f"flows (host {host})",
            f"flows at one host must share tcp settings in emulate (Linux's are per host); they differ in {keys}",
        )
    return next(iter(tcps))


def _shortest_path(spec: dict[str, Any], src: str, dst: str) -> list[int]:
    """Link indices of a fewest-hop path src → dst; hosts do not forward (as the engine)."""
    kinds = {n["name"]: n["kind"] for n in spec["nodes"]}
    out: dict[str, list[tuple[int, str]]] = {}
    for i, link in enumerate(spec["links"]):
        out.setdefault(link["from"], []).append((i, link["to"]))
    prev: dict[str, tuple[str, int]] = {}
    seen = {src}
    todo = deque([src])
    while todo:
        node = todo.popleft()
        if node == dst:
            break
        if node != src and kinds[node] == "host":
            continue
        for li, nxt in out.get(node, []):
            if nxt not in seen:
                seen.add(nxt)
                prev[nxt] = (node, li)
                todo.append(nxt)
    if dst not in prev:
        raise ScenarioError("topology", f"no route from {src} to {dst}")
    path = []
    node = dst
    while node != src:
        node, li = prev[node]
        path.append(li)
    return path[::-1]


def flow_start_ns(seed: int, k: int, f: Flow) -> int:
    """Flow ``k``'s start as ``ecnlab run`` draws it (``start = "A..B"``: uniform on the flow's stream)."""
    from ecnlab._core import flow_start_ns as draw

    return draw(seed, k, f.start_ns, f.start_spread_ns)

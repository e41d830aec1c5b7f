"""Typed, validated scenario: what :mod:`ecnlab.config` produces and :mod:`ecnlab.lower` consumes.

All quantities are in canonical integer units: nanoseconds (``*_ns``),
bits per second (``*_bps``) and bytes (``*_bytes``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "QueueSpec",
    "RedSpec",
    "TcpSpec",
    "Node",
    "Link",
    "Topology",
    "AppSpec",
    "FlowGroup",
    "Flow",
    "Fault",
    "Impairment",
    "Scenario",
]


@dataclass(frozen=True)
class RedSpec:
    """RED parameters (thresholds in packets, or in ``mean_pkt_size`` units in byte mode)."""

    min_th: float
    max_th: float
    max_p: float
    wq: float
    ecn: bool
    gentle: bool
    wait: bool
    mode: str
    mean_pkt_size: int
    # Whose RED (docs/performance.md); mark_p only for ns2, adaptive only for linux.
    personality: str = "floyd93"
    mark_p: float | None = None
    adaptive: bool = False
    # ns2 only: draw from ns-2's MRG32k3a (seed 1) after this many draws, not the queue's stream.
    ns2_rng_skip: int | None = None
    # signal = "quench": selected packets are forwarded and their source gets an ICMP Source Quench.
    quench: bool = False


@dataclass(frozen=True)
class PiSpec:
    """PI AQM (Hollot et al. 2001): gains given, or derived per link by ``pi_design``."""

    q_ref: float
    sample_hz: float
    ecn: bool
    mean_pkt_size: int
    a: float | None = None  # None: derived from (link rate, n_flows, rtt)
    b: float | None = None
    n_flows: int | None = None
    rtt_ns: int | None = None


@dataclass(frozen=True)
class QueueSpec:
    """An output queue of one of the engine's kinds (``scenario_schema.queue_kinds``); exactly one limit is set."""

    kind: str
    limit_pkts: int | None
    limit_bytes: int | None
    red: RedSpec | None = None
    pi: PiSpec | None = None
    # Report the time fraction with more than tail_delay · link rate queued (engine tail.rs).
    tail_delay_ns: int | None = None
    # Today's kinds (``ecnlab.queues``): the engine fields beside the limits, in schema order.
    fields: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class TcpSpec:
    """TCP settings of a flow (both endpoints); mirrors the engine's ``TcpConfig``."""

    personality: str = "rfc"  # the defaults below are its values (tcp_personalities.py)
    recovery: str = "reno"
    cc: str = "reno"
    mss: int = 1460
    init_cwnd: int = 2
    rwnd_bytes: int = 65535
    delayed_ack: bool = True
    delack_timeout_ns: int = 100_000_000
    ecn: bool = False
    ecn_plus: bool = False
    accecn: bool = False  # tcp.ecn = "accecn": RFC 9768 AccECN feedback (crates/tcp/src/accecn.rs)
    ecn_min_cwnd: int = 1
    clock_granularity_ns: int = 1_000_000
    min_rto_ns: int = 1_000_000_000
    initial_rto_ns: int = 1_000_000_000
    max_rto_ns: int = 60_000_000_000
    dupack_threshold: int = 3
    abc: int = 2
    limited_transmit: bool = True
    abe: bool = False
    newreno_timer: str = "impatient"
    window_scale: bool = True
    ecn_on_retransmit: bool = False
    recover_guard_all: bool = False
    window_arith: str = "rfc5681"
    syn_immediate_ack: bool = True
    rto_arith: str = "rfc6298"
    growth_arith: str = "rfc5681"  # how an ACK grows cwnd: RFC 5681/3465 or Linux's (acked_sacked, tcp_slow_start)
    tso: str = "none"  # segments one by one, or in Linux's TSO/GSO bursts (tcp_tso_autosize, tcp_tso_should_defer)
    rcv_autotune: str = "off"  # the window offered: rwnd throughout, or Linux's autotuning (tcp_rcv_space_adjust)
    clock_phase_ns: int = 0
    ecn_backoff: bool = False
    ack_ce_at_once: bool = True
    ecn_quickack: bool = False
    sack_is_lost: bool = True
    rtx_restart_on_fr: bool = False
    limited_transmit_all: bool = False
    guard_after_timeout: bool = True
    timer_before_sample: bool = False
    ssthresh_basis: str = "flight"
    sack_after_rto: bool = False
    rto_keeps_recovery_ssthresh: bool = False
    prr: bool = False
    dupacks_as_sacks: bool = False
    fin_with_data: bool = False
    rack: bool = False
    tlp: bool = False
    sack_recover_guard: bool = True
    ect_all_packets: bool = False
    idle_restart: str = "rfc5681"  # the rfc personality's (RFC 5681 §4.1)
    syn_ecn_fallback: str = "off"  # a retransmitted SYN asks for ECN again (RFC 3168 §6.1.1.1: the fallback is a MAY)
    accecn_checks: str = "off"  # AccECN trusts the path (RFC 9768's tests are MAYs)
    pacing: bool = False
    pacing_ss_ratio: int = 200  # Linux tcp_pacing_ss_ratio
    pacing_ca_ratio: int = 120  # Linux tcp_pacing_ca_ratio
    dctcp_shift_g: int = 4  # DCTCP g = 2^-shift (RFC 8257 §3.3, Linux dctcp_shift_g)
    dctcp_ect: int = 0  # DCTCP's codepoint: ECT(0) or ECT(1)
    dctcp_arith: str = "rfc8257"  # DCTCP in bytes (RFC 8257) or Linux's tcp_dctcp.c in whole segments
    prague_rtt_target_ns: int = 25_000_000  # TCP Prague's RTT-scaling target (reference RTT_TARGET)
    prague_rtt_transition: int | None = None  # rounds after slow start before RTT independence; None: the version's
    prague_classic_fallback: bool = False  # classic-ECN-AQM detection and fallback (reference: off)
    prague_version: str = "v0.7"  # which reference tcp_prague.c (crates/tcp/src/cc/prague.rs)
    prague_fallback_fix: bool = False  # the fallback's levels ×16 (cc/prague_classic.rs)
    prague_feedback: str = "accecn"  # "accecn" (the reference's) or "dctcp": classic ECN with DCTCP's echo
    bbr_version: str = "v1"  # mainline tcp_bbr.c or google/bbr v3 (crates/tcp/src/cc/bbr.rs)
    bbr_ecn_low: bool = False  # the route is a shallow-threshold ECN one: BBRv3's ECN response
    accecn_option: int = 2  # AccECN option: Linux tcp_ecn_option, 0 off, 1 minimum, 2 full (every segment)
    accecn_option_beacon: int = 3  # with 1: the option at least this many times per RTT (tcp_ecn_option_beacon)
    hystart: str = "off"  # CUBIC's slow-start exit: off, linux (HyStart) or hystart++ (RFC 9406)
    cubic_arith: str = "rfc9438"  # CUBIC in real numbers (RFC 9438) or Linux's integer tcp_cubic.c


#: TcpSpec fields named alike in the scenario, the resolved scenario and the engine JSON, copied
#: as they are (the ns-2.35 rules of the ns2 personality, docs/ns2-ecn-suite.md, and Linux's).
#: Each congestion control's knobs are copied the same way (``cc_knobs.py``).
NS2_RULE_KEYS = (
    "ecn_backoff",
    "ack_ce_at_once",
    "ecn_quickack",
    "sack_is_lost",
    "rtx_restart_on_fr",
    "limited_transmit_all",
    "guard_after_timeout",
    "timer_before_sample",
    # Linux's rules, as named in the linux personality (docs/model.md):
    "ssthresh_basis",
    "sack_after_rto",
    "rto_keeps_recovery_ssthresh",
    "prr",
    "dupacks_as_sacks",
    "fin_with_data",
    # How an ACK grows the window (crates/tcp/src/cc/reno.rs): rfc5681 or linux.
    "growth_arith",
    # Bursts as Linux's TSO/GSO buffers (crates/tcp/src/tso.rs): none or linux.
    "tso",
    # The receive window offered (crates/tcp/src/rcvbuf.rs): off (rwnd) or linux (autotuned).
    "rcv_autotune",
    "rack",
    "tlp",
    "sack_recover_guard",
    # ECT on every packet (Linux and ns-3 with DCTCP; on by default with cc = "dctcp"):
    "ect_all_packets",
    # The window after an idle period (crates/tcp/src/idle.rs): off, rfc5681 or linux.
    "idle_restart",
    # ECN setup on a retransmitted SYN (crates/tcp/src/rules/syn_fallback.rs): off or retransmissions.
    "syn_ecn_fallback",
    # AccECN's tests of the path (crates/tcp/src/rules/accecn_checks.rs): off, rfc9768 or linux.
    "accecn_checks",
    # Pacing (crates/tcp/src/pacing.rs): on/off and Linux's ratios, percent.
    "pacing",
    "pacing_ss_ratio",
    "pacing_ca_ratio",
)

#: The AccECN option's policy (crates/tcp/src/accecn.rs), only with ``ecn = "accecn"``.
ACCECN_KEYS = ("accecn_option", "accecn_option_beacon")


@dataclass(frozen=True)
class Node:
    """A host (ends connections) or a router (forwards)."""

    name: str
    kind: str


@dataclass(frozen=True)
class Link:
    """A unidirectional link named ``FROM->TO`` with its output queue at ``src``."""

    name: str
    src: str
    dst: str
    rate_bps: int
    delay_ns: int
    queue: QueueSpec
    loss: float = 0.0
    corrupt: float = 0.0


@dataclass(frozen=True)
class Topology:
    """The expanded network plus the resolved form of the topology table."""

    kind: str
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    resolved: dict[str, Any]
    #: Per-flow equal-cost multipath routing (the data-centre fabrics, ``fabrics.py``).
    ecmp: bool = False

    @functools.cached_property
    def hosts(self) -> list[str]:
        """Names of the hosts (computed once: flow entries look them up per entry)."""
        return [n.name for n in self.nodes if n.kind == "host"]

    @functools.cached_property
    def kinds(self) -> dict[str, str]:
        """Each node's kind (``"host"`` or ``"router"``) by name."""
        return {n.name: n.kind for n in self.nodes}

    @property
    def link_names(self) -> list[str]:
        """Names of all links, in order."""
        return [link.name for link in self.links]


@dataclass(frozen=True)
class ObjectSizeSpec:
    """One object-size distribution; only the fields of ``dist`` are meaningful."""

    dist: str
    alpha: float
    max_bytes: int
    min_bytes: int = 0
    mu: float = 0.0
    sigma: float = 0.0
    cut_bytes: int = 0
    tail_p: float = 0.0

    def engine(self) -> dict[str, object]:
        """The engine's ``ObjectSize`` JSON."""
        if self.dist == "bounded_pareto":
            return {"dist": self.dist, "alpha": self.alpha, "min_bytes": self.min_bytes, "max_bytes": self.max_bytes}
        return {
            "dist": self.dist,
            "mu": self.mu,
            "sigma": self.sigma,
            "cut_bytes": self.cut_bytes,
            "tail_p": self.tail_p,
            "alpha": self.alpha,
            "max_bytes": self.max_bytes,
        }


@dataclass(frozen=True)
class AppSpec:
    """What a flow's application does; only the fields of its ``kind`` are meaningful."""

    kind: str
    bytes: int | None = None
    files: int = 0
    file_bytes: int = 0
    gap_ns: int = 0
    request_bytes: int = 0
    response_bytes: int = 0
    think_ns: int = 0
    transactions: int | None = None
    # telnet: "tcplib" or "exponential" (mean_interarrival_ns); write_bytes per write.
    interarrival: str = "tcplib"
    mean_interarrival_ns: int = 0
    write_bytes: int = 1
    # ftp_arrivals: sizes uniform in [min_bytes, max_bytes], Poisson arrivals of mean gap mean_gap_ns.
    min_bytes: int = 0
    max_bytes: int = 0
    mean_gap_ns: int = 0
    # web (ecnlab.web, crates/sim/src/web.rs): request_bytes, think_ns (mean, between pages) and these.
    size: ObjectSizeSpec | None = None
    mean_session_gap_ns: int = 0
    pages_per_session: float = 1.0
    objects_per_page: float = 1.0
    # incast: request_bytes, response_bytes, transactions (queries; None until the run ends) and these.
    query_interval_ns: int = 0
    query_arrivals: str = "poisson"

    def is_finite(self) -> bool:
        """False for work without end (unlimited bulk, endless transactions)."""
        if self.kind == "bulk":
            return self.bytes is not None
        if self.kind in ("request_response", "incast"):
            return self.transactions is not None
        return self.kind == "serial"


@dataclass(frozen=True, init=False)
class FlowGroup:
    """One ``[[flows]]`` entry with defaults filled and ``from``/``to`` expanded."""

    index: int
    name: str
    app: AppSpec
    src: tuple[str, ...]
    dst: tuple[str, ...]
    count: int
    start_ns: int
    initiator: str
    tcp: TcpSpec
    start_spread_ns: int = 0  # start drawn uniformly from [start_ns, start_ns + start_spread_ns]

    def __init__(
        self,
        index: int,
        name: str,
        app: AppSpec,
        src: tuple[str, ...],
        dst: tuple[str, ...],
        count: int,
        start_ns: int,
        initiator: str,
        tcp: TcpSpec,
        start_spread_ns: int = 0,
    ) -> None:
        # The dataclass's own __init__ of a frozen class sets each field through
        # object.__setattr__; setting them in the instance's dict at once makes the same object in
        # half the time (a generated scenario has one entry per flow: ten thousand and more).
        fields = self.__dict__
        fields["index"], fields["name"], fields["app"] = index, name, app
        fields["src"], fields["dst"], fields["count"] = src, dst, count
        fields["start_ns"], fields["initiator"], fields["tcp"] = start_ns, initiator, tcp
        fields["start_spread_ns"] = start_spread_ns

    @property
    def size(self) -> int:
        """How many flows the entry makes: ``count`` per (src, dst) pair."""
        return len(self.src) * self.count

    def flow_id(self, k: int) -> str:
        """The id of the entry's ``k``-th flow (from 0): the name alone for a single flow, else
        ``name_{k+1}`` (the engine's ``FlowSpec::flow_id``)."""
        return self.name if self.size == 1 else f"{self.name}_{k + 1}"

    def flow_ids(self) -> Iterator[str]:
        """The ids of the entry's flows, in order."""
        return (self.flow_id(k) for k in range(self.size))

    def expand(self) -> list[Flow]:
        """The entry's flows, ``count`` per pair, pair by pair (the engine expands them the same way
        at run time; the front expands only for emulation and inspection)."""
        pairs = [(a, b) for a, b in zip(self.src, self.dst, strict=True) for _ in range(self.count)]
        return [
            Flow(
                self.flow_id(k),
                a,
                b,
                self.start_ns,
                self.initiator,
                self.app,
                self.tcp,
                self.index,
                self.start_spread_ns,
            )
            for k, (a, b) in enumerate(pairs)
        ]


@dataclass(frozen=True)
class Flow:
    """One concrete flow (one application instance between two hosts)."""

    id: str
    src: str
    dst: str
    start_ns: int
    initiator: str
    app: AppSpec
    tcp: TcpSpec
    group: int
    start_spread_ns: int = 0


@dataclass(frozen=True)
class Fault:
    """At ``link``, drop or mark the ``nth`` packet of ``flow`` (or the one carrying ``seq``)."""

    link: str
    flow: str
    action: str
    nth: int | None
    seq: int | None


@dataclass(frozen=True)
class Impairment:
    """At ``link``, ``action`` on the packets it applies to in [from_ns, until_ns), of ``flows``
    (empty: every flow), a ``fraction`` of them (``impairments.py``)."""

    link: str
    action: str
    fraction: float
    from_ns: int
    until_ns: int | None
    flows: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    """A validated scenario."""

    name: str
    description: str
    seed: int
    duration_ns: int
    warmup_ns: int
    sample_interval_ns: int
    topology: Topology
    tcp: TcpSpec
    groups: tuple[FlowGroup, ...]
    faults: tuple[Fault, ...]
    pcap: tuple[str, ...]
    timeseries_links: tuple[str, ...] = ()
    timeseries_flows: tuple[str, ...] = ("*",)
    stop_when_complete: bool = False
    impairments: tuple[Impairment, ...] = ()

    @functools.cached_property
    def flows(self) -> tuple[Flow, ...]:
        """Every concrete flow, expanded from :attr:`groups` on first use (a run never asks:
        the engine expands the groups itself)."""
        return tuple(f for g in self.groups for f in g.expand())

    @property
    def flow_count(self) -> int:
        """How many flows the scenario makes."""
        return sum(g.size for g in self.groups)

"""AccECN (RFC 9768) pcaps read back by tshark: the AE bit sits where Wireshark
decodes it (``tcp.flags.ae``, bit 8 of the flags beside the data offset), the
ACE field (AE, CWR, ECE) of every ACK equals ecnlab's own counter r.cep mod 8 at
that packet, and the AccECN option (kinds 172/174, §3.2.3, which tshark decodes as
``tcp.options.acc_ecn.*``) is where ``tcp.accecn_option`` puts it — on the SYN-ACK
with the initial counters, on data segments (whose payload leaves it room within the
MSS) and on ACKs — with byte counters equal to the payload bytes that arrived ECT(0)
and CE below that ACK, from their initial values 1 and 0.

One AccECN flow crosses a dumbbell; scripted faults CE-mark ten packets in a row
(more than the 3-bit field can count) on the bottleneck. With no loss and in-order
delivery, the receiver has counted exactly the CE data packets below an ACK's
acknowledgment number, so ACE = (5 + those) mod 8 (r.cep starts at 5, §3.2.2.1).
The flow runs twice: with Linux's default ``tcp_ecn_option = 2`` (full) and with 1
(minimum) without the beacon, where only Linux's demand rules put the option on.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ecnlab
from tshark_fields import captured_dumbbell, is_set, read_fields

pytestmark = pytest.mark.engine

MARKS = range(8, 18)
MSS = 1460  # the engine's default
ROOM = 12  # the AccECN option's 11 bytes, padded: data segments carry MSS - 12

POLICIES = {"full": "accecn_option = 2", "minimum": "accecn_option = 1\naccecn_option_beacon = 0"}

FIELDS = [
    "ip.dsfield.ecn",
    "tcp.flags.syn",
    "tcp.flags.ack",
    "tcp.flags.ae",
    "tcp.flags.ace",
    "tcp.flags.cwr",
    "tcp.flags.ece",
    "tcp.seq",
    "tcp.ack",
    "tcp.len",
    "ip.len",
    "tcp.checksum.status",
    "tcp.options.acc_ecn.ee0b",
    "tcp.options.acc_ecn.eceb",
    "tcp.options.acc_ecn.ee1b",
]


def _read(pcap: Path) -> list[dict[str, str]]:
    return read_fields(pcap, FIELDS, "tcp")


def _is(v: str) -> bool:
    return is_set(v)


def _ace(r: dict[str, str]) -> int:
    """(AE, CWR, ECE): Wireshark shows them as one 3-bit ``tcp.flags.ace`` once it has seen
    AccECN in use on the connection (the option), and as three flags before."""
    if r["tcp.flags.ace"]:
        return int(r["tcp.flags.ace"])
    return 4 * _is(r["tcp.flags.ae"]) + 2 * _is(r["tcp.flags.cwr"]) + _is(r["tcp.flags.ece"])


def _has_option(r: dict[str, str]) -> bool:
    return r["tcp.options.acc_ecn.ee0b"] != ""


def _option(r: dict[str, str]) -> tuple[int, int, int]:
    """(EE0B, ECEB, EE1B) as tshark decodes them."""
    return tuple(int(r[f"tcp.options.acc_ecn.{f}"]) for f in ("ee0b", "eceb", "ee1b"))  # type: ignore[return-value]


@pytest.fixture(scope="module", params=list(POLICIES))
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, list[dict[str, str]]], dict, str]:
    if not shutil.which("tshark"):
        pytest.skip("tshark is not installed: `make setup` installs it")
    d = tmp_path_factory.mktemp(f"accecn-{request.param}")
    scenario = d / "s.toml"
    scenario.write_text(captured_dumbbell('"accecn"', 100000, list(MARKS), POLICIES[request.param]))
    res = ecnlab.run(scenario, out=d / "out")
    files = {p.name: p for p in (d / "out").glob("*.pcap")}
    caps = {name: _read(files[f"{name}.pcap"]) for name in ("s1-R1", "R2-r1", "r1-R2")}
    return caps, res.summary, request.param


def test_handshake_flags_as_tshark_decodes_them(run: tuple) -> None:
    """RFC 9768 §3.1.1: the SYN has AE = CWR = ECE = 1; the SYN-ACK answers 010 for a
    Not-ECT SYN (Table 2); the first ACK answers 010 for a Not-ECT SYN-ACK (Table 4).
    §3.2.3.2.1: no option on the SYN ("MUST NOT"), the SYN-ACK's with the initial
    counters EE0B = EE1B = 1, ECEB = 0 (§3.2.1), and the Client's first segment after
    it, which carries the handshake ACK (here its first data segment), has one too."""
    caps, _, _ = run
    syn = caps["s1-R1"][0]
    assert _is(syn["tcp.flags.syn"]) and not _is(syn["tcp.flags.ack"])
    assert _ace(syn) == 0b111, syn
    assert not _has_option(syn)
    synack = caps["r1-R2"][0]
    assert _is(synack["tcp.flags.syn"]) and _is(synack["tcp.flags.ack"])
    assert _ace(synack) == 0b010, synack
    assert _option(synack) == (1, 0, 1), synack
    first_ack = caps["s1-R1"][1]
    assert _ace(first_ack) == 0b010, first_ack
    assert _option(first_ack) == (1, 0, 1), first_ack
    assert all(_ace(r) == 0b101 for r in caps["s1-R1"][2:])  # the Client's r.cep stays 5
    assert all(r["tcp.checksum.status"] == "1" for c in caps.values() for r in c)


def test_ace_of_every_ack_equals_the_receivers_counter(run: tuple) -> None:
    caps, summary, _ = run
    data = [r for r in caps["R2-r1"] if int(r["tcp.len"]) > 0]
    ce_ends = [int(r["tcp.seq"]) + int(r["tcp.len"]) for r in data if r["ip.dsfield.ecn"] == "3"]
    assert len(ce_ends) == len(MARKS)  # ten marks: r.cep goes 5 → 15, past the 3-bit wrap
    acks = [r for r in caps["r1-R2"] if not _is(r["tcp.flags.syn"])]
    assert acks
    for a in acks:
        r_cep = 5 + sum(1 for end in ce_ends if end <= int(a["tcp.ack"]))
        assert _ace(a) == r_cep % 8, (a, r_cep)
    # The sender decodes the same field: ecnlab's counters agree with the capture.
    (flow,) = summary["flows"]
    assert flow["ce_received"] == len(ce_ends)
    assert flow["ace_delta_ce"] == len(ce_ends)
    assert flow["ece_sent"] == 0 and flow["cwr_sent"] == 0
    assert _ace(acks[-1]) == (5 + len(ce_ends)) % 8


def test_data_segments_carry_the_option_within_the_mss(run: tuple) -> None:
    """Linux's ``tcp_current_mss``: a data segment that may carry the option leaves it
    room, so IP length ≤ MSS + 40 and full segments carry MSS − 12 bytes. With full
    every data segment carries it; with minimum (no beacon) the first two (the SYN-ACK's
    demand, Linux ``tcp_ecn_rcv_synack``). Their counters are the Client's: it received
    no data (EE0B = 1, ECEB = 0, EE1B = 1)."""
    caps, _, policy = run
    data = [r for r in caps["s1-R1"] if int(r["tcp.len"]) > 0]
    assert max(int(r["tcp.len"]) for r in data) == MSS - ROOM
    assert all(int(r["ip.len"]) <= MSS + 40 for r in data)
    with_option = [_has_option(r) for r in data]
    if policy == "full":
        assert all(with_option)
    else:
        assert with_option[:3] == [True, True, False] and not any(with_option[3:])
    assert all(_option(r) == (1, 0, 1) for r in data if _has_option(r))


def test_accecn_option_counters_equal_the_bytes_that_arrived(run: tuple) -> None:
    """RFC 9768 §3.2.3: EE0B = 1 + ECT(0) payload bytes, ECEB = CE payload bytes and
    EE1B = 1 (none sent ECT(1)) on every ACK that carries the option, counted from the
    capture at the receiver's side; and the data sender learnt the CE bytes from it
    (``accecn_ceb``). With full every ACK carries it (Linux's default ``tcp_ecn_option
    = 2``); with minimum every ACK that acknowledges a CE segment does (§3.2.3.3 "It
    SHOULD always include an AccECN Option if the r.ceb counter is incrementing"), and
    the ACKs between the first ones and the CE run do not."""
    caps, summary, policy = run
    data = [r for r in caps["R2-r1"] if int(r["tcp.len"]) > 0]
    acks = [r for r in caps["r1-R2"] if not _is(r["tcp.flags.syn"])]

    def below(ack: int, ecn: str) -> int:
        return sum(int(r["tcp.len"]) for r in data if r["ip.dsfield.ecn"] == ecn and int(r["tcp.seq"]) < ack)

    for a in acks:
        if _has_option(a):
            ack = int(a["tcp.ack"])
            assert _option(a) == (1 + below(ack, "2"), below(ack, "3"), 1), a
    full = policy == "full"
    previous = 1
    for a in acks:
        ack = int(a["tcp.ack"])
        newly_ce = below(ack, "3") > below(previous, "3")
        assert _has_option(a) or (not full and not newly_ce), a
        previous = max(previous, ack)
    if not full:
        assert not all(_has_option(a) for a in acks)
    ce_bytes = below(1 << 32, "3")
    assert ce_bytes == (MSS - ROOM) * len(MARKS)
    (flow,) = summary["flows"]
    assert flow["accecn_ceb"] == ce_bytes

"""AccECN (RFC 9768) pcaps read back by tshark: the AE bit sits where Wireshark
decodes it (``tcp.flags.ae``, bit 8 of the flags beside the data offset), the
ACE field (AE, CWR, ECE) of every ACK equals ecnlab's own counter r.cep mod 8 at
that packet, and the AccECN option's byte counters (kinds 172/174, §3.2.3, which
tshark decodes as ``tcp.options.acc_ecn.*``) equal the payload bytes that arrived
ECT(0) and CE below that ACK, from their initial values 1 and 0.

One AccECN flow crosses a dumbbell; scripted faults CE-mark ten packets in a row
(more than the 3-bit field can count) on the bottleneck. With no loss and in-order
delivery, the receiver has counted exactly the CE data packets below an ACK's
acknowledgment number, so ACE = (5 + those) mod 8 (r.cep starts at 5, §3.2.2.1).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ecnlab
from tshark_fields import captured_dumbbell, is_set, read_fields

pytestmark = pytest.mark.engine

MARKS = range(8, 18)

SCENARIO = captured_dumbbell('"accecn"', 100000, list(MARKS))

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


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[dict[str, str]]], dict]:
    if not shutil.which("tshark"):
        pytest.skip("tshark is not installed: `make setup` installs it")
    d = tmp_path_factory.mktemp("accecn")
    scenario = d / "s.toml"
    scenario.write_text(SCENARIO)
    res = ecnlab.run(scenario, out=d / "out")
    files = {p.name: p for p in (d / "out").glob("*.pcap")}
    caps = {name: _read(files[f"{name}.pcap"]) for name in ("s1-R1", "R2-r1", "r1-R2")}
    return caps, res.summary


def test_handshake_flags_as_tshark_decodes_them(run: tuple) -> None:
    """RFC 9768 §3.1.1: the SYN has AE = CWR = ECE = 1; the SYN-ACK answers 010 for a
    Not-ECT SYN (Table 2); the first ACK answers 010 for a Not-ECT SYN-ACK (Table 4)."""
    caps, _ = run
    syn = caps["s1-R1"][0]
    assert _is(syn["tcp.flags.syn"]) and not _is(syn["tcp.flags.ack"])
    assert _ace(syn) == 0b111, syn
    synack = caps["r1-R2"][0]
    assert _is(synack["tcp.flags.syn"]) and _is(synack["tcp.flags.ack"])
    assert _ace(synack) == 0b010, synack
    first_ack = caps["s1-R1"][1]
    assert _ace(first_ack) == 0b010, first_ack
    assert all(_ace(r) == 0b101 for r in caps["s1-R1"][2:])  # the Client's r.cep stays 5
    assert all(r["tcp.checksum.status"] == "1" for c in caps.values() for r in c)


def test_ace_of_every_ack_equals_the_receivers_counter(run: tuple) -> None:
    caps, summary = run
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


def test_accecn_option_counters_equal_the_bytes_that_arrived(run: tuple) -> None:
    """RFC 9768 §3.2.3: every ACK after the handshake carries the option (Linux's default
    ``tcp_ecn_option = 2``); EE0B = 1 + ECT(0) payload bytes, ECEB = CE payload bytes and
    EE1B = 1 (none sent ECT(1)), counted from the capture at the receiver's side; and the
    data sender learnt the CE bytes from it (``accecn_ceb``)."""
    caps, summary = run
    data = [r for r in caps["R2-r1"] if int(r["tcp.len"]) > 0]
    acks = [r for r in caps["r1-R2"] if not _is(r["tcp.flags.syn"])]

    def below(ack: int, ecn: str) -> int:
        return sum(int(r["tcp.len"]) for r in data if r["ip.dsfield.ecn"] == ecn and int(r["tcp.seq"]) < ack)

    for a in acks:
        ack = int(a["tcp.ack"])
        assert int(a["tcp.options.acc_ecn.ee0b"]) == 1 + below(ack, "2"), a
        assert int(a["tcp.options.acc_ecn.eceb"]) == below(ack, "3"), a
        assert int(a["tcp.options.acc_ecn.ee1b"]) == 1, a
    ce_bytes = below(1 << 32, "3")
    assert ce_bytes == 1460 * len(MARKS)
    (flow,) = summary["flows"]
    assert flow["accecn_ceb"] == ce_bytes

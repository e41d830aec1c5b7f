"""Impaired links in pcaps read back by tshark: captures before and after an impaired link
show the fields as the sender wrote them and as the impairment rewrote them, with good
checksums throughout.

One flow of 100 kB crosses a dumbbell; captures on both access links in both directions
(s1->R1 and r1->R2 before the bottleneck's two directions, R2->r1 and R1->s1 after them).

- ``classic`` (RFC 3168 ECN): R1->R2 makes every ECT packet CE (``ce_all``) and R2->R1
  clears ECE on the returning ACKs (``clear_ece``): the data leaves s1 ECT(0) and arrives
  CE, the ACKs leave r1 with ECE and arrive without it; the handshake is untouched.
- ``accecn`` (RFC 9768): R1->R2 rewrites ECT(0) to ECT(1) (``ect0_to_ect1``) and R2->R1
  zeroes the ACE field (``zero_ace``) and, after the handshake, strips the AccECN option
  (``strip_accecn_option``): the ACKs leave r1 with ACE set and the option, and arrive
  with neither.
"""

from __future__ import annotations

import shutil

import pytest

import ecnlab
from tshark_fields import is_set, read_fields

pytestmark = pytest.mark.engine

#: From STRIP_FROM on (after the handshake, which then negotiates the option).
STRIP_FROM = 0.1
IMPAIRMENTS = {
    "classic": ("true", ['link = "R1->R2"\naction = "ce_all"', 'link = "R2->R1"\naction = "clear_ece"']),
    "accecn": (
        '"accecn"',
        [
            'link = "R1->R2"\naction = "ect0_to_ect1"',
            'link = "R2->R1"\naction = "zero_ace"',
            f'link = "R2->R1"\naction = "strip_accecn_option"\nfrom = "{STRIP_FROM}s"',
        ],
    ),
}

FIELDS = [
    "frame.time_epoch",
    "ip.dsfield.ecn",
    "tcp.flags.syn",
    "tcp.flags.ack",
    "tcp.flags.ae",
    "tcp.flags.cwr",
    "tcp.flags.ece",
    "tcp.flags.ace",
    "tcp.len",
    "tcp.option_kind",
    "ip.checksum.status",
    "tcp.checksum.status",
]

CAPTURES = ("s1-R1", "R2-r1", "r1-R2", "R1-s1")


def _scenario(ecn: str, impairments: list[str]) -> str:
    entries = "".join(f"\n[[impairments]]\n{keys}\n" for keys in impairments)
    return f"""
seed = 3
duration = "3s"

[topology]
kind = "dumbbell"
pairs = 1
access_rate = "10Mbit"
access_delay = "1ms"
bottleneck_rate = "1.5Mbit"
bottleneck_delay = "10ms"

[tcp]
variant = "sack"
ecn = {ecn}

[[flows]]
name = "f"
kind = "bulk"
from = "s1"
to = "r1"
bytes = 100000

[output]
pcap = ["s1->R1", "R2->r1", "r1->R2", "R1->s1"]
{entries}"""


@pytest.fixture(scope="module", params=list(IMPAIRMENTS))
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict, dict]:
    assert shutil.which("tshark"), "tshark is not installed: `make setup` installs it"
    d = tmp_path_factory.mktemp(f"impair-{request.param}")
    ecn, impairments = IMPAIRMENTS[request.param]
    (d / "s.toml").write_text(_scenario(ecn, impairments))
    res = ecnlab.run(d / "s.toml", out=d / "out")
    caps = {name: read_fields(d / "out" / f"{name}.pcap", FIELDS, "tcp", "ip") for name in CAPTURES}
    return request.param, caps, res.summary


def _data(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [r for r in rows if int(r["tcp.len"]) > 0]


def _acks(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Segments after the handshake."""
    return [r for r in rows if not is_set(r["tcp.flags.syn"])]


def _has_option(r: dict[str, str]) -> bool:
    """The AccECN option, either order (kinds 172 and 174)."""
    return bool({"172", "174"} & set(r["tcp.option_kind"].split(",")))


def _ace(r: dict[str, str]) -> int:
    if r["tcp.flags.ace"]:
        return int(r["tcp.flags.ace"])
    return 4 * is_set(r["tcp.flags.ae"]) + 2 * is_set(r["tcp.flags.cwr"]) + is_set(r["tcp.flags.ece"])


def test_every_checksum_is_good(run: tuple) -> None:
    _, caps, _ = run
    for name, rows in caps.items():
        assert rows, name
        for r in rows:
            assert (r["ip.checksum.status"], r["tcp.checksum.status"]) == ("1", "1"), (name, r)


def test_data_ecn_field_before_and_after_the_bottleneck(run: tuple) -> None:
    kind, caps, summary = run
    before, after = _data(caps["s1-R1"]), _data(caps["R2-r1"])
    assert before and {r["ip.dsfield.ecn"] for r in before} == {"2"}, "sent ECT(0)"
    want = {"classic": "3", "accecn": "1"}[kind]  # CE, or ECT(1)
    assert {r["ip.dsfield.ecn"] for r in after} == {want}
    first = next(c for lk in summary["links"] if lk["name"] == "R1->R2" for c in lk["impairments"])
    assert first["rewritten"] == len(_data(caps["R2-r1"])), "one count per rewritten data packet"


def test_feedback_before_and_after_the_return_path(run: tuple) -> None:
    kind, caps, _ = run
    sent, arrived = _acks(caps["r1-R2"]), _acks(caps["R1-s1"])
    assert len(sent) == len(arrived) > 0
    if kind == "classic":
        assert any(is_set(r["tcp.flags.ece"]) for r in sent), "the receiver echoes the marks"
        assert not any(is_set(r["tcp.flags.ece"]) for r in arrived)
    else:
        assert all(_ace(r) != 0 for r in sent), "r.cep starts at 5 (RFC 9768 §3.2.2.1)"
        assert all(_ace(r) == 0 for r in arrived)
        assert _has_option(caps["R1-s1"][0]), "the SYN-ACK passes before the stripping starts"
        late = STRIP_FROM + 0.01  # the ACKs that entered R2->R1 after STRIP_FROM have reached s1
        assert any(_has_option(r) for r in sent if float(r["frame.time_epoch"]) > late)
        assert not any(_has_option(r) for r in arrived if float(r["frame.time_epoch"]) > late)


def test_handshake_flags_pass_the_flag_impairments(run: tuple) -> None:
    """``clear_ece`` and ``zero_ace`` leave SYN and SYN-ACK alone (the negotiation)."""
    kind, caps, _ = run
    synack_sent, synack_arrived = caps["r1-R2"][0], caps["R1-s1"][0]
    assert is_set(synack_sent["tcp.flags.syn"]) and is_set(synack_arrived["tcp.flags.syn"])
    assert _ace(synack_arrived) == _ace(synack_sent) != 0

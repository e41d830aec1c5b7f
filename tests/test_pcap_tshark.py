"""ecnlab's pcaps read back by an independent reader (tshark).

One ECN flow crosses a dumbbell; a scripted fault CE-marks its 6th packet on
the bottleneck. Captures of the path before the mark (s1->R1), after it
(R2->r1) and of the returning ACKs (r1->R2) must show the RFC 3168 handshake
and echo exactly, with correct checksums throughout.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import ecnlab
from tshark_fields import captured_dumbbell, is_set, read_fields

pytestmark = pytest.mark.engine

SCENARIO = captured_dumbbell("true", 200000, [6])

FIELDS = [
    "ip.dsfield.ecn",
    "tcp.flags.syn",
    "tcp.flags.ack",
    "tcp.flags.ece",
    "tcp.flags.cwr",
    "tcp.len",
    "tcp.options.sack_le",
    "ip.checksum.status",
    "tcp.checksum.status",
]


def _read(pcap: Path) -> list[dict[str, str]]:
    return read_fields(pcap, FIELDS, "tcp", "ip")


def _is(v: str) -> bool:
    return is_set(v)


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, str]]]:
    assert shutil.which("tshark"), "tshark is not installed: `make setup` installs it"
    d = tmp_path_factory.mktemp("pcap")
    scenario = d / "s.toml"
    scenario.write_text(SCENARIO)
    ecnlab.run(scenario, out=d / "out")
    files = {p.name: p for p in (d / "out").glob("*.pcap")}
    return {name: _read(files[f"{name}.pcap"]) for name in ("s1-R1", "R2-r1", "r1-R2")}


def test_every_checksum_is_good(captures: dict) -> None:
    for rows in captures.values():
        assert rows
        for r in rows:
            assert r["ip.checksum.status"] == "1" and r["tcp.checksum.status"] == "1", (
                r
            )  # 1 = Good (0 Bad, 2 Unverified)


def test_handshake_negotiates_ecn(captures: dict) -> None:
    syn = captures["s1-R1"][0]
    assert _is(syn["tcp.flags.syn"]) and not _is(syn["tcp.flags.ack"])
    assert _is(syn["tcp.flags.ece"]) and _is(syn["tcp.flags.cwr"])
    assert syn["ip.dsfield.ecn"] == "0"  # SYN is Not-ECT
    synack = captures["r1-R2"][0]
    assert _is(synack["tcp.flags.syn"]) and _is(synack["tcp.flags.ack"])
    assert _is(synack["tcp.flags.ece"]) and not _is(synack["tcp.flags.cwr"])
    assert synack["ip.dsfield.ecn"] == "0"  # no ECN+: SYN-ACK is Not-ECT


def test_data_is_ect0_and_exactly_one_packet_arrives_ce(captures: dict) -> None:
    sent = [r for r in captures["s1-R1"] if int(r["tcp.len"]) > 0]
    assert sent and all(r["ip.dsfield.ecn"] == "2" for r in sent)  # ECT(0) = 2, no retransmissions
    arrived = [r for r in captures["R2-r1"] if int(r["tcp.len"]) > 0]
    assert [r["ip.dsfield.ecn"] for r in arrived].count("3") == 1  # CE = 3


def test_receiver_echoes_ece_until_cwr(captures: dict) -> None:
    acks = [r for r in captures["r1-R2"] if not _is(r["tcp.flags.syn"])]
    ece = [_is(r["tcp.flags.ece"]) for r in acks]
    assert any(ece)
    first = ece.index(True)
    last = len(ece) - 1 - ece[::-1].index(True)
    assert all(ece[first : last + 1])  # one contiguous run of ECE
    assert all(r["ip.dsfield.ecn"] == "0" for r in acks)  # pure ACKs are Not-ECT
    cwr = [r for r in captures["s1-R1"] if _is(r["tcp.flags.cwr"]) and not _is(r["tcp.flags.syn"])]
    assert len(cwr) == 1 and int(cwr[0]["tcp.len"]) > 0  # CWR once, on new data


def test_window_scaling_and_no_misdecoded_ports(tmp_path: Path) -> None:
    """With rwnd = 4 MiB the SYN and SYN-ACK carry a window-scale option and
    tshark's calculated window is the advertised one; no packet is decoded as
    another protocol (port 5000 would be taken for RSL, with hundreds of "Malformed Packet")."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.replace('variant = "sack"', 'variant = "sack"\nrwnd = "4MiB"'))
    ecnlab.run(scenario, out=tmp_path / "out")
    pcap = tmp_path / "out" / "s1-R1.pcap"
    fields = ["tcp.flags.syn", "tcp.options.wscale.shift", "tcp.window_size", "_ws.col.Protocol", "_ws.expert.message"]
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    rows = [
        line.split("|") for line in subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    ]
    syn = rows[0]
    assert _is(syn[0]) and syn[1] == "7", syn  # 4 MiB >> 7 = 32768 <= 65535
    acks = [r for r in rows[1:] if not _is(r[0])]
    assert acks and all(int(r[2]) == 4 * 1024 * 1024 for r in acks), acks[:3]  # scaled back by tshark
    assert {r[3] for r in rows} == {"TCP"}, {r[3] for r in rows}
    assert not [r for r in rows if "Malformed" in r[4]]


def _frames(pcap: Path, *fields: str) -> list[list[str]]:
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines()]


def test_both_directions_of_a_path_in_one_capture(tmp_path: Path) -> None:
    """``"R1<->R2"`` writes both directions, data and ACKs, into
    ``R1-R2.both.pcap`` in time order (tcptrace and Wireshark's conversations need both)."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.replace('pcap = ["s1->R1", "R2->r1", "r1->R2"]', 'pcap = ["R1<->R2", "s1->R1"]'))
    res = ecnlab.run(scenario, out=tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").glob("*.pcap")) == ["R1-R2.both.pcap", "s1-R1.pcap"]
    rows = _frames(tmp_path / "out" / "R1-R2.both.pcap", "frame.time_epoch", "ip.src", "tcp.len")
    links = {link["name"]: link for link in res.summary["links"]}
    assert len(rows) == links["R1->R2"]["packets"] + links["R2->R1"]["packets"]
    times = [float(r[0]) for r in rows]
    assert times == sorted(times)
    senders = {r[1] for r in rows if int(r[2]) > 0}
    everyone = {r[1] for r in rows}
    assert len(senders) == 1 and len(everyone) == 2, (senders, everyone)  # data one way, ACKs the other


def test_a_capture_shows_the_queues_marks_and_not_its_drops(tmp_path: Path) -> None:
    """docs/scenario.md: a capture holds what the link transmits (taken after the queue, as
    tcpdump on a router's egress): marks made there are seen, packets dropped there are not."""
    text = SCENARIO.replace("limit = 100", "limit = 5").replace("bytes = 200000", "bytes = 2000000")
    text = text.replace('pcap = ["s1->R1", "R2->r1", "r1->R2"]', 'pcap = ["R1->R2"]')
    scenario = tmp_path / "s.toml"
    scenario.write_text(text.replace('action = "mark"', 'action = "drop"').replace("nth = 6", "nth = 40"))
    res = ecnlab.run(scenario, out=tmp_path / "out")
    q = next(q for q in res.summary["queues"] if q["link"] == "R1->R2")
    link = next(link for link in res.summary["links"] if link["name"] == "R1->R2")
    assert q["overflow_drops"] > 0 and link["fault_drops"] == 1
    rows = _frames(tmp_path / "out" / "R1-R2.pcap", "ip.dsfield.ecn")
    assert len(rows) == q["dequeued"] == link["packets"]
    assert q["arrivals"] == len(rows) + q["overflow_drops"] + q["early_drops"] + q["forced_drops"]

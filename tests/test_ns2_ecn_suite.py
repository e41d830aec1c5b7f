"""ns-2.35's ECN validation suite, ported (python/ecnlab/bench/ns2ecn.py, docs/ns2-ecn-suite.md).

The whole-suite test runs Debian's ns on test-suite-ecn.tcl and ecnlab on the same
84 experiments and checks that the number of tests with the same reactions and with
the same packet trace does not fall below what was measured when the floor was set.
The other tests pin the parsers on small hand-written inputs.
"""

from __future__ import annotations

import shutil
import struct

import pytest

from ecnlab.bench import ns2ecn
from ecnlab.bench.ns2ecn import Events, Reactions

# Measured with the ns2 personality of this commit (docs/ns2-ecn-suite.md); raise, never lower.
FLOOR_REACTIONS = 80
FLOOR_TRACE = 67

SUITE = ns2ecn.suite_file()
needs_ns2 = pytest.mark.skipif(
    SUITE is None or shutil.which("ns") is None, reason="needs ns and test-suite-ecn.tcl (Debian ns2, ns2-examples)"
)


@needs_ns2
def test_whole_suite_meets_the_floor() -> None:
    assert SUITE is not None
    names = ns2ecn.list_tests(SUITE.read_text())
    assert len(names) == 84
    results = ns2ecn.run_suite(SUITE)
    n, m = ns2ecn.counts(results)
    assert [r["test"] for r in results] == names
    assert n >= FLOOR_REACTIONS, ns2ecn.format_table(results)
    assert m >= FLOOR_TRACE, ns2ecn.format_table(results)
    # every test produced a record for each of its flows in both tools
    for r in results:
        assert r["ns2"].keys() == r["ecnlab"].keys(), r["test"]


TCL = """
Class Test/a_reno -superclass TestSuite
Test/a_reno instproc init {} {
        set net_	net2-lossy
        Agent/TCP set bugFix_ false
        $self next pktTraceFile
}
Test/a_reno instproc run {} {
	$self ecnsetup Reno 6.0 1 1
	$self drop_pkts {4 8 9}
	$errmodel1 set markecn_ true
	$self second_tcp Tahoe 1.0
	$ns_ run
}
Class Test/b_sack -superclass TestSuite
Test/b_sack instproc init {} {
        set net_	net2-lossy
	Test/b_sack instproc run {} [Test/c info instbody run ]
}
Test/c instproc run {} {
	$self ecnsetup Sack1 3.0
        set lossmodel [$self setloss]
        $lossmodel set offset_ 189
	$lossmodel set burstlen_ 3
}
"""


def test_parse_test_reads_setup_faults_and_overrides() -> None:
    assert ns2ecn.list_tests(TCL) == ["a_reno", "b_sack"]
    a = ns2ecn.parse_test(TCL, "a_reno")
    assert (a.net, a.stop, a.tcp_overrides) == ("net2-lossy", 6.0, {"bugFix_": "false"})
    flows = [(f.fid, f.agent, f.delack, f.start) for f in a.flows]
    assert flows == [(1, "TCP/Reno", True, 0.0), (2, "TCP", False, 1.0)]
    # ErrorModel/List indices are 0-based: index 4 is the 5th packet of fid 1
    assert [(x.link, x.fid, x.nths, x.mark) for x in a.faults] == [("r1->r2", 1, (5, 9, 10), True)]
    b = ns2ecn.parse_test(TCL, "b_sack")  # run body borrowed from another class
    assert [(x.fid, x.nths, x.mark) for x in b.faults] == [(0, (189, 190, 191), False)]
    assert b.flows[0].agent == "TCP/Sack1" and b.stop == 3.0


TRACE = """\
+ 0 0 2 tcp 40 C------ 0 0.0 4.0 0 0
+ 0.002 2 3 tcp 40 C------ 0 0.0 4.0 0 0
+ 0.04 2 3 tcp 1040 ------N 0 0.0 4.0 1 2
d 0.05 2 3 tcp 1040 ------N 0 0.0 4.0 2 3
+ 0.06 2 3 tcp 1040 ---A--N 0 0.0 4.0 3 4
d 0.07 2 3 tcp 1040 ---A--N 0 0.0 4.0 3 4
r 0.08 2 0 ack 40 C------ 0 4.0 0.0 1 9
- 0.08 2 3 tcp 1040 ------N 0 0.0 4.0 2 10
+ 0.09 2 3 tcp 1040 ------N 0 0.0 4.0 2 10
+ 0.09 2 3 tcp 1040 ------N 5 0.0 4.0 7 11
"""


def test_parse_ns2_trace_entries_and_acks() -> None:
    ev = ns2ecn.parse_ns2_trace(TRACE.splitlines(), (2, 3), {0: 0})
    # '+' lines and error-model 'd' lines (no '+' before) enter; a queue drop after '+' is not a second entry
    assert ev[0].entries == [(0.002, 0, False), (0.04, 1, False), (0.05, 2, False), (0.06, 3, True), (0.09, 2, False)]
    assert ev[0].acks == [(0.08, 1)]


def test_reactions_classify_fast_retransmit_and_timeout() -> None:
    ev = Events(
        entries=[(0.01 * i, i, False) for i in range(1, 8)] + [(0.105, 3, True), (0.9, 5, False)],
        acks=[(0.08, 2), (0.09, 2), (0.095, 2), (0.1, 2)],  # a new ACK, then three duplicates
    )
    r = ns2ecn.reactions(ev, 1, transit=0.003)
    assert (r.fast_retransmits, r.timeouts, r.retransmitted) == (1, 1, [3, 5])
    assert r.cwr == [(3, 0.105)]
    same = ns2ecn.compare({0: r}, {0: r})
    assert (same.reactions_same, same.trace_same) == (True, True)
    late = Reactions(1, 1, 1, [3, 5], [(3, 0.1065)], r.rexmits)
    v = ns2ecn.compare({0: r}, {0: late})
    assert (v.reactions_same, v.trace_same) == (True, False) and "CWR" in v.difference
    v = ns2ecn.compare({0: r}, {0: Reactions(1, 0, 2, [3, 5])})
    assert not v.reactions_same and "fast retransmits" in v.difference


def _pcap(packets: list[tuple[float, int, int, int, int, int]]) -> bytes:
    out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)
    for t, dport, seq, ack, flags, payload in packets:
        tcp = struct.pack("!HHIIBBHHH", 40000, dport, seq, ack, 5 << 4, flags, 30000, 0, 0) + bytes(payload)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, 20 + len(tcp), 0, 0, 64, 6, 0, bytes(4), bytes(4)) + tcp
        sec, ns = int(t), round((t - int(t)) * 1e9)
        out += struct.pack("<IIII", sec, ns, len(ip), len(ip)) + ip
    return out


def test_read_pcap_and_packet_numbers(tmp_path) -> None:
    isn = 2**32 - 500  # the relative numbers wrap
    fwd = _pcap([(0.0, 5001, isn, 0, 0x02 | 0x40 | 0x80, 0), (0.03, 5001, isn + 1, 1, 0x10, 1000),
                 (0.04, 5001, (isn + 1001) % 2**32, 1, 0x10 | 0x80, 1000)])  # fmt: skip
    assert [p["payload"] for p in ns2ecn.read_pcap(fwd)] == [0, 1000, 1000]
    (tmp_path / "s1-r1.pcap").write_bytes(fwd)
    (tmp_path / "r1-s1.pcap").write_bytes(b"")
    back = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)
    (tmp_path / "r1-s1.pcap").write_bytes(back)
    spec = ns2ecn.TestSpec("t", "net2-lossy", 3.0, [ns2ecn.FlowSpec(0, "TCP", "s1", "s3", 30, True, 0.0, False)], [])
    ev = ns2ecn.ecnlab_events(spec, tmp_path)[0]
    # SYN = packet 0 (its CWR is negotiation, not a reduction); data byte 1 = packet 1; byte 1001 = packet 2
    assert [(p, c) for _, p, c in ev.entries] == [(0, False), (1, False), (2, True)]
    # arrival at r1: start + 1040 B at 10 Mbit/s (832 us) + 2 ms
    assert ev.entries[1][0] == pytest.approx(0.03 + 0.000832 + 0.002)


def test_boot_phases_follow_ns2_draw_order() -> None:
    # ns2-tcp-semantics.md §10: seed 1 gives 0.000339577..., 0.555880715..., 0.0142046..., 0.0881226...
    assert ns2ecn.mrg32k3a(4) == pytest.approx([0.000339577223787, 0.5558807159828, 0.0142046606528, 0.0881226713139])
    one = ns2ecn.TestSpec("t", "net2-lossy", 3.0, [ns2ecn.FlowSpec(0, "TCP", "s1", "s3", 30, True, 0.0, False)], [])
    assert ns2ecn.boot_phases(one, {"s1": 0}, [4, 0, 5]) == {0: 5_558_807}  # the run-time draw (the second) stays
    two = ns2ecn.FlowSpec(1, "TCP", "s2", "s3", 30, True, 0.0, False)
    both = ns2ecn.TestSpec("t", "net2", 10.0, [two, one.flows[0]], [])
    # draws 1-2 at creation; at $ns run node 0 (fid 0) resets before node 1 (fid 1): draws 3, 4
    assert ns2ecn.boot_phases(both, {"s1": 0, "s2": 1}, [4, 0, 5, 1]) == {0: 142_047, 1: 881_227}

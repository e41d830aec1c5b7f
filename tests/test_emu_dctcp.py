"""Real Linux DCTCP through ecnlab's step marker: ``ecnlab.emu.bpf``.

On a kernel without DCTCP, ``tcp.cc = "dctcp"`` in ``ecnlab emulate`` loads ecnlab's BPF
struct_ops DCTCP (``python/ecnlab/emu/bpf/ecnlab_dctcp.bpf.c``, RFC 8257) and gives it to the
sockets. Checked against the simulator's DCTCP on one scenario: both keep the step-marked queue
near K without a drop or a retransmission (RFC 8257 §3.3: the window follows the fraction of
marks, so the queue hovers at K) and mark at the same rate within 1.5x; and both receivers
ACK a segment that changes the CE state at once, on its own (``tcp_dctcp.h``
``dctcp_ece_ack_update``: ``ICSK_ACK_NOW``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ecnlab.bench.ns2ecn import read_pcap
from ecnlab.emu import bpf

DCTCP = {
    "name": "emulate-dctcp",
    "seed": 1,
    "duration": "8s",
    "warmup": "2s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "access_rate": "1Gbit",
        "access_delay": "0s",
        "bottleneck_rate": "20Mbit",
        "bottleneck_delay": "5ms",
        "bottleneck_queue": {"kind": "step", "limit": 1000, "threshold": 20, "ecn": True},
    },
    "tcp": {"personality": "linux", "recovery": "sack", "cc": "dctcp", "rwnd": "4MiB"},
    "flows": [{"name": "dctcp", "from": "s*", "to": "r*"}],
}


def test_dctcp_maps_to_the_kernels_own_or_the_bpf_program(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bpf, "available", lambda: {"reno", "cubic", "bbr"})
    assert bpf.linux_cc("dctcp") == bpf.BPF_NAME and bpf.needed({"dctcp", "reno"})
    assert bpf.linux_cc("cubic") == "cubic" and not bpf.needed({"reno", "cubic"})
    monkeypatch.setattr(bpf, "available", lambda: {"reno", "dctcp"})
    assert bpf.linux_cc("dctcp") == "dctcp" and not bpf.needed({"dctcp"})


def test_without_the_tools_dctcp_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from ecnlab.emu.netns import EmulationError

    (tmp_path / "vmlinux").write_bytes(b"")
    monkeypatch.setattr(bpf, "BTF", tmp_path / "vmlinux")
    monkeypatch.setattr(bpf, "_has_bpf_tcp_ca", lambda: True)
    monkeypatch.setattr(bpf, "available", lambda: {"reno", "cubic"})
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(EmulationError, match=r"^tcp.cc = dctcp: this kernel has no DCTCP and `clang` is not installed"):
        bpf.ensure_dctcp()


def test_an_older_build_left_registered_is_replaced(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The registration outlives ecnlab (until reboot): a program registered from another source
    (e.g. before alpha's decay became the kernel's min_not_zero) gives way to this build's."""
    calls: list[list[str]] = []
    registered = {"reno", "cubic", bpf.BPF_NAME}
    obj = tmp_path / "ecnlab_dctcp-0123456789abcdef.bpf.o"
    monkeypatch.setattr(bpf, "REGISTERED_DIR", tmp_path / "run")
    monkeypatch.setattr(bpf, "why_not", lambda: None)
    monkeypatch.setattr(bpf, "available", lambda: set(registered))
    monkeypatch.setattr(bpf, "_build", lambda cache, source: obj)
    monkeypatch.setattr(bpf, "_run", lambda argv, what: calls.append(argv[2:4]) or "")
    assert bpf.ensure_dctcp() == bpf.BPF_NAME  # no record of which build: replaced
    assert calls == [["unregister", "name"], ["register", str(obj)]]
    record = tmp_path / "run" / "ecnlab_dctcp.registered"
    assert record.read_text().strip() == obj.name
    calls.clear()
    assert bpf.ensure_dctcp() == bpf.BPF_NAME  # this build: kept
    assert calls == []
    record.write_text("ecnlab_dctcp-fedcba9876543210.bpf.o\n")
    assert bpf.ensure_dctcp() == bpf.BPF_NAME  # another build: replaced
    assert calls == [["unregister", "name"], ["register", str(obj)]]


@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_real_linux_dctcp_keeps_the_queue_at_k(tmp_path) -> None:
    from ecnlab.emu.run import emulate
    from ecnlab.runner import run

    why = bpf.why_not() if bpf.needed({"dctcp"}) and bpf.BPF_NAME not in bpf.available() else None
    if why is not None:
        pytest.skip(f"no DCTCP for Linux here: {why}")
    emu = emulate(DCTCP, out=tmp_path / "emu").summary
    sim = run(DCTCP).summary
    for f in emu["flows"]:
        ss = f" {emu['emulation']['flows'][f['id']]['ss']} "
        assert f" {bpf.linux_cc('dctcp')} " in ss and " ecn " in ss, ss
    queues = [next(q for q in s["queues"] if q["link"] == "R1->R2") for s in (emu, sim)]
    for s, q in zip((emu, sim), queues, strict=True):
        assert q["early_drops"] + q["forced_drops"] + q["overflow_drops"] == 0
        assert sum(f["retransmits"] or 0 for f in s["flows"]) == 0
        assert 10 < q["avg_qlen_pkts"] < 30, q["avg_qlen_pkts"]  # K = 20
        assert sum(f["goodput_bps"] for f in s["flows"]) > 0.9 * 20e6 * 1448 / 1500
    ratio = queues[1]["marks"] / queues[0]["marks"]
    assert 1 / 1.5 < ratio < 1.5, (queues[1]["marks"], queues[0]["marks"])


#: One DCTCP flow at 10 Mbit/s, 40 ms through the step marker, the receiver's access link captured.
CE_ACKS = {
    **DCTCP,
    "name": "emulate-dctcp-ce-acks",
    "duration": "6s",
    "warmup": "1s",
    "topology": {**DCTCP["topology"], "pairs": 1, "bottleneck_rate": "10Mbit", "bottleneck_delay": "20ms"},
    "flows": [{"name": "dctcp", "from": "s1", "to": "r1"}],
    "output": {"pcap": ["R2<->r1"]},
}
CE = 3
ECE = 0x40


def share_acked_at_once(capture: Path) -> tuple[float, int]:
    """Of the data segments that change the CE state (in order), the share the receiver ACKs on
    their own before the next data segment: an ACK of exactly that segment's end, ECE iff it was CE."""
    pkts = read_pcap(capture.read_bytes())
    first = next(p for p in pkts if p["payload"] > 0)
    port, isn = first["sport"], first["seq"]
    waiting: tuple[int, bool] | None = None
    last_ce, edge, changes, alone = None, 0, 0, 0
    for p in pkts:
        if p["sport"] == port and p["payload"] > 0:
            end, ce = (p["seq"] - isn) % 2**32 + p["payload"], p["ecn"] == CE
            waiting = None
            if last_ce is not None and ce != last_ce and end > edge:
                changes += 1
                waiting = (end, ce)
            last_ce, edge = ce, max(edge, end)
        elif p["dport"] == port and waiting is not None:
            alone += ((p["ack"] - isn) % 2**32, bool(p["flags"] & ECE)) == waiting
            waiting = None
    return alone / max(1, changes), changes


@pytest.mark.emulation
@pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)")
def test_real_linux_dctcp_acks_each_change_of_ce_at_once(tmp_path) -> None:
    """tcp_dctcp.h dctcp_ece_ack_update sets ICSK_ACK_NOW on a change of the CE state: the segment
    is ACKed at once, not held for a second segment or the delayed-ACK timer (at a window of a few
    segments that timer costs about an RTT per change). The model's receiver (crates/tcp/src/recv.rs)
    does the same; the share is below 1 on both sides where the next segment arrives first."""
    from ecnlab.emu.run import emulate
    from ecnlab.runner import run

    why = bpf.why_not() if bpf.needed({"dctcp"}) and bpf.BPF_NAME not in bpf.available() else None
    if why is not None:
        pytest.skip(f"no DCTCP for Linux here: {why}")
    emulate(CE_ACKS, out=tmp_path / "emu")
    run(CE_ACKS, out=tmp_path / "sim")
    for side in ("emu", "sim"):
        share, changes = share_acked_at_once(tmp_path / side / "R2-r1.both.pcap")
        assert changes > 100, (side, changes)
        assert share > 0.5, (side, share, changes)

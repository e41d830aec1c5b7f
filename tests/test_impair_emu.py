"""Path impairments in the live emulator's router, on real Linux TCP (root, namespaces).

- ``ce_all`` at the bottleneck: every ECT packet the router rewrites reaches the receiving
  kernel CE (its ``IpExtInCEPkts``), and Linux's sender reacts to the echo.
- ``drop_ecn_syn`` on the sender's access link: the router drops the ECN-setup SYN;
  Linux retransmits its SYN without ECE and CWR (``net.ipv4.tcp_ecn_fallback``, the
  fall-back of RFC 3168 §6.1.1.1), which passes, and the connection runs without ECN.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ROOT
from ecnlab.emu import emulate
from ecnlab.emu.netns import leftovers

SCENARIO = ROOT / "scenarios" / "emulate-reno-ecn.toml"

pytestmark = [
    pytest.mark.emulation,
    pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)"),
]


def _emulate(out: Path, impairment: dict, **tcp: str) -> dict:
    overrides = {"duration": "3s", "impairments": [impairment], **{f"tcp.{k}": v for k, v in tcp.items()}}
    try:
        return emulate(SCENARIO, out=out, overrides=overrides).summary
    finally:
        assert leftovers(os.getpid()) == [], "namespaces left behind"


def _counts(summary: dict, link: str) -> dict:
    return next(lk for lk in summary["links"] if lk["name"] == link)["impairments"][0]


def test_router_ce_marks_every_ect_packet_and_linux_counts_them(tmp_path: Path) -> None:
    s = _emulate(tmp_path / "ce", {"link": "R1->R2", "action": "ce_all"})
    c = _counts(s, "R1->R2")
    assert c["rewritten"] > 0 and c["dropped"] == 0
    # The summary's counts are the router's at the end of the run; the receiver's kernel counter
    # is read once the traffic has drained, beside the router's final counts.
    final = s["emulation"]["router"]["final_impairments"]
    assert list(final) == ["R1->R2"]
    assert final["R1->R2"][0]["rewritten"] == s["emulation"]["nstat"]["r1"]["IpExtInCEPkts"] >= c["rewritten"]
    assert s["flows"][0]["bytes_delivered"] > 0


def test_linux_falls_back_to_a_plain_syn_when_the_ecn_setup_syn_is_dropped(tmp_path: Path) -> None:
    # Linux's fallback is on (tcp_ecn_fallback = 1) where the scenario asks for it
    s = _emulate(tmp_path / "syn", {"link": "s1->R1", "action": "drop_ecn_syn"}, syn_ecn_fallback="retransmissions")
    c = _counts(s, "s1->R1")
    flow = s["flows"][0]
    assert (c["rewritten"], c["dropped"]) == (0, 1), c
    assert not flow["ecn_negotiated"] and flow["bytes_delivered"] > 0

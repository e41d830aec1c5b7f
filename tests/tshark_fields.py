"""Reading pcaps back with tshark for the capture tests: one row per frame, the named fields."""

from __future__ import annotations

import subprocess
from pathlib import Path


def read_fields(pcap: Path, fields: list[str], *checks: str) -> list[dict[str, str]]:
    """``fields`` of every frame of ``pcap`` (tshark ``-T fields``); ``checks`` are protocol names
    (``"tcp"``, ``"ip"``) whose checksums tshark verifies (``<proto>.check_checksum:TRUE``)."""
    cmd = ["tshark", "-r", str(pcap)]
    for proto in checks:
        cmd += ["-o", f"{proto}.check_checksum:TRUE"]
    cmd += ["-T", "fields", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [dict(zip(fields, line.split("|"), strict=False)) for line in text.splitlines()]


def is_set(v: str) -> bool:
    """A decoded flag as tshark prints it (``1`` or ``True``)."""
    return v in ("1", "True")


def captured_dumbbell(ecn: str, nbytes: int, marks: list[int], tcp: str = "") -> str:
    """The capture tests' scenario: one bulk flow ``f`` of ``nbytes`` from s1 to r1 across a
    1.5 Mbit/s, 10 ms drop-tail bottleneck, SACK, ``tcp.ecn = ecn`` (a TOML value) and the
    ``[tcp]`` lines ``tcp``, its ``marks``-th packets CE-marked on R1->R2, and captures on
    both access links."""
    faults = "".join(f'\n[[faults]]\nlink = "R1->R2"\nflow = "f"\naction = "mark"\nnth = {n}\n' for n in marks)
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

[topology.bottleneck_queue]
kind = "droptail"
limit = 100

[tcp]
variant = "sack"
ecn = {ecn}
{tcp}

[[flows]]
name = "f"
kind = "bulk"
from = "s1"
to = "r1"
bytes = {nbytes}

[output]
pcap = ["s1->R1", "R2->r1", "r1->R2"]
{faults}"""

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

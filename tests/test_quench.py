"""RED's Source Quench mode (``signal = "quench"``): validation, lowering, and a tiny run.

A quench-mode gateway forwards the packets RED selects early and sends their
sources ICMP Source Quenches (RFC 792; Floyd 1994 §9.1 backward ECN); above
max_th it drops, as the paper's RED does.
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

import ecnlab
from conftest import SMALL, run_cli
from ecnlab import load_scenario
from ecnlab.lower import engine_spec, resolved_scenario

QUENCH = SMALL.replace("ecn = true\n\n[tcp]\necn = true", 'signal = "quench"\n\n[tcp]\necn = false')


def _load(text: str, **overrides: Any) -> Any:
    return load_scenario(tomllib.loads(text), overrides or None)


def _bottleneck(spec: dict[str, Any]) -> dict[str, Any]:
    return next(link["queue"] for link in spec["links"] if link["name"] == "R1->R2")


def test_quench_lowers_to_the_engine_and_resolves_back() -> None:
    assert 'signal = "quench"' in QUENCH
    sc = _load(QUENCH)
    q = _bottleneck(engine_spec(sc))
    assert (q["kind"], q["quench"], q["ecn"]) == ("red", True, False)
    resolved = resolved_scenario(sc)["topology"]["bottleneck_queue"]
    assert (resolved["signal"], resolved["ecn"]) == ("quench", False)
    # signal = "mark" is ecn = true; "drop" is the default; neither sends "quench" to the engine.
    for signal, ecn in (("mark", True), ("drop", False)):
        q = _bottleneck(engine_spec(_load(QUENCH, **{"topology.bottleneck_queue.signal": signal})))
        assert (q["ecn"], "quench" in q) == (ecn, False)


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (
            ["topology.bottleneck_queue.signal=quensh"],
            'topology.bottleneck_queue.signal = "quensh": must be one of drop, mark, quench (did you mean "quench"?)',
        ),
        (
            ["topology.bottleneck_queue.ecn=true"],
            'topology.bottleneck_queue.signal = "quench": contradicts ecn = true (signal = "mark" is ecn = true)',
        ),
        (
            ["topology.bottleneck_queue.kind=red_star"],
            'topology.bottleneck_queue.signal = "quench": is only available with kind red '
            "(RED* signals in the forced region)",
        ),
        (
            ["topology.bottleneck_queue.signal=1"],
            "topology.bottleneck_queue.signal = 1: must be one of drop, mark, quench",
        ),
    ],
)
def test_bad_signal_is_one_line_exit_2(tmp_path: Path, sets: list[str], message: str) -> None:
    (tmp_path / "s.toml").write_text(QUENCH)
    args = ["run", "s.toml", "--out", "results/x"]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args, cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"ecnlab: error: s.toml: {message}\n")
    assert not (tmp_path / "results").exists()


def test_signal_on_droptail_is_an_unknown_key(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(QUENCH)
    r = run_cli("validate", "s.toml", "--set", "topology.reverse_queue.signal=quench", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith("ecnlab: error: s.toml: topology.reverse_queue.signal: unknown key")


@pytest.mark.engine
def test_tiny_quench_run_quenches_and_drops_only_above_max_th(tmp_path: Path) -> None:
    # A buffer with room for every window (10 x 45 packets), so the only drops left are RED's.
    sets = {"output.pcap": ["R1->s1"], "topology.bottleneck_queue.limit": 1000}
    res = ecnlab.run(tomllib.loads(QUENCH), overrides=sets, out=tmp_path / "out")
    q = res.queues.set_index("link").loc["R1->R2"]
    assert q.quenches > 0
    assert (q.marks, q.early_drops, q.overflow_drops) == (0, 0, 0), "selected packets are forwarded, not dropped"
    assert q.forced_drops > 0, "above max_th the gateway drops, as the paper's RED does"
    flows = res.flows
    assert flows.quenches_received.sum() > 0
    assert 0 < flows.quench_reductions.sum() <= flows.quenches_received.sum()
    assert (flows.ecn_reductions == 0).all()
    # The pcap of the way back to s1 holds real ICMP Source Quenches.
    assert shutil.which("tshark"), "tshark is not installed: `make setup` installs it"
    pcap = next((tmp_path / "out").glob("R1-s1.pcap"))
    fields = ["-e", "icmp.type", "-e", "ip.len", "-e", "icmp.checksum.status"]
    cmd = ["tshark", "-r", str(pcap), "-Y", "icmp", "-T", "fields", *fields]
    rows = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split("\n")
    icmp = [r.split("\t") for r in rows if r]
    s1 = flows.set_index("id").loc[[i for i in flows.id if i.endswith("_1")], "quenches_received"].sum()
    assert len(icmp) >= s1 > 0
    assert all(r[0] == "4" and r[1].split(",")[0] == "56" and r[2] == "1" for r in icmp), icmp[:3]

"""Differential AQM runs against ns-3 (Debian libns3-dev, 3.37): the same scripted
arrivals and departures through ecnlab's queue and ns-3's queue disc
(``ecnlab.bench.aqmdiff``). Deterministic AQMs give the same events — every
drop, mark and departure at the same time, on the same packet; the randomised
ones (PIE, Adaptive RED) draw from other generators, so their counts are compared.
"""

from __future__ import annotations

import pytest

from ecnlab.bench import aqmdiff
from ecnlab.bench.measure import PeerFailed

pytestmark = pytest.mark.slow  # ns-3 runs beside the engine

EXACT = [name for name, case in aqmdiff.CASES.items() if case.exact]
STATISTICAL = [name for name, case in aqmdiff.CASES.items() if not case.exact]


def _both(name: str) -> tuple[list[dict], list[dict]]:
    why = aqmdiff.ns3_missing()
    if why is not None:
        pytest.fail(f"ns-3 replay cannot run: {why} (scripts/setup.sh installs libns3-dev)")
    case = aqmdiff.CASES[name]
    ops = aqmdiff.overload_script(**case.script)
    try:
        return aqmdiff.run_ecnlab(case, ops), aqmdiff.run_ns3(case, ops)
    except PeerFailed as e:
        pytest.fail(str(e))


@pytest.mark.parametrize("name", EXACT)
def test_deterministic_aqm_matches_ns3_event_for_event(name: str) -> None:
    ours, ns3 = _both(name)
    report = aqmdiff.compare(ours, ns3)
    assert report["identical"], report
    # The script exercises the AQM: it signals, and (with a Not-ECT share) drops.
    assert report["ecnlab"].get("mark", 0) + report["ecnlab"].get("drop_after", 0) > 50, report


@pytest.mark.parametrize("name", STATISTICAL)
def test_randomised_aqm_matches_ns3_counts(name: str) -> None:
    ours, ns3 = _both(name)
    a, b = aqmdiff.compare(ours, ns3)["ecnlab"], aqmdiff.compare(ours, ns3)["ns3"]
    assert a["deq"] == b["deq"], (a, b)
    signals = lambda c: c.get("mark", 0) + c.get("drop_before", 0) + c.get("drop_after", 0)  # noqa: E731
    assert signals(b) > 100
    assert abs(signals(a) - signals(b)) <= 0.02 * signals(b), (a, b)
    assert abs(a.get("mark", 0) - b.get("mark", 0)) <= max(5, 0.05 * b.get("mark", 0)), (a, b)


def test_overload_script_is_time_ordered_and_numbered() -> None:
    ops = aqmdiff.overload_script(seconds=0.01, arrival_gap_ns=[1_000_000, 3_000_000], service_gap_ns=2_000_000)
    times = [op["t_ns"] for op in ops]
    assert times == sorted(times)
    ids = [op["id"] for op in ops if op["op"] == "enq"]
    assert ids == list(range(len(ids))) == list(range(10 + 4))
    assert sum(op["op"] == "deq" for op in ops) == 4

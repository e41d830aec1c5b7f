"""The scenario front and the engine must not disagree on what is valid. The TCP
table is checked by the engine's own ``TcpConfig::validate`` at validation time (through
``_core.check_tcp``), and the front's ranges are the engine's: at each boundary both accept,
one step beyond the front refuses with one line."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS, run_cli

BASE = SCENARIOS / "dumbbell-red-ecn.toml"


def _validate(*sets: str) -> tuple[int, str]:
    args = ["validate", str(BASE)]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args, cwd=SCENARIOS)
    assert "Traceback" not in r.stderr
    return r.returncode, r.stderr.strip()


@pytest.mark.parametrize(
    ("key", "lo", "hi"),
    [("mss", 64, 65495), ("init_cwnd", 1, 100), ("dupack_threshold", 1, 1000), ("ecn_min_cwnd", 1, 2)],
)
def test_tcp_ranges_agree_with_the_engine(key: str, lo: int, hi: int) -> None:
    for v in (lo, hi):
        # rwnd at least one segment, as the engine requires.
        assert _validate(f"tcp.{key}={v}", "tcp.rwnd=4MiB") == (0, ""), (key, v)
    for v in (lo - 1, hi + 1):
        code, err = _validate(f"tcp.{key}={v}", "tcp.rwnd=4MiB")
        assert code == 2 and f"tcp.{key} = {v}: must be in [{lo}, {hi}]" in err, err


def test_engine_rule_is_reported_against_the_scenario_key() -> None:
    """rwnd >= mss is the engine's rule (crates/tcp/src/config.rs); validate reports it (it ran first)."""
    code, err = _validate("tcp.rwnd=1000")
    assert code == 2 and err.endswith("tcp.rwnd = 1000: must be >= mss"), err
    code, err = _validate("flows[0].tcp={rwnd=1000}")
    assert code == 2 and "flows[0].tcp.rwnd = 1000: must be >= mss" in err, err

"""Units in scenario files: durations, rates and sizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ecnlab.errors import ScenarioError
from ecnlab.units import ns_to_s, parse_duration, parse_duration_range, parse_rate, parse_size


@pytest.mark.parametrize(
    ("value", "ns"),
    [
        (1, 1_000_000_000),
        (0, 0),
        (0.02, 20_000_000),
        (1.5, 1_500_000_000),
        ("20ms", 20_000_000),
        ("1.5s", 1_500_000_000),
        ("100us", 100_000),
        ("100µs", 100_000),
        ("7ns", 7),
        (" 60 s ", 60_000_000_000),
        ("0.1ms", 100_000),
        ("1e-3s", 1_000_000),
        (".5s", 500_000_000),
    ],
)
def test_duration_to_ns(value: object, ns: int) -> None:
    assert parse_duration(value, "d") == ns


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("20", "not a duration"),
        ("20 minutes", "not a duration"),
        ("ms", "not a duration"),
        ("-1ms", "must be >= 0"),
        (-0.5, "must be >= 0"),
        (True, "must be a duration"),
        ([1], "must be a duration"),
        (float("inf"), "must be a finite number"),
        ("1e99s", r"must be at most 18446744073709551615 ns \(about 584 years\)"),
    ],
)
def test_bad_duration(value: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as e:
        parse_duration(value, "warmup")
    assert e.value.path == "warmup"


def test_positive_duration_rejects_zero() -> None:
    with pytest.raises(ScenarioError, match="must be > 0"):
        parse_duration("0s", "duration", positive=True)


@pytest.mark.parametrize(
    ("value", "bps"),
    [
        (1_500_000, 1_500_000),
        (1.5e6, 1_500_000),
        ("1.5Mbit", 1_500_000),
        ("10Mbps", 10_000_000),
        ("10mbit", 10_000_000),
        ("100kbit", 100_000),
        ("100Kbps", 100_000),
        ("1Gbit", 1_000_000_000),
        ("64bit", 64),
        ("2.5 Gbit/s", 2_500_000_000),
    ],
)
def test_rate_to_bps(value: object, bps: int) -> None:
    assert parse_rate(value, "r") == bps


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1.5Mbit", "must be > 0"),
        (0, "must be > 0"),
        ("1.5MB", "not a rate"),
        ("fast", "not a rate"),
        (False, "must be a rate"),
    ],
)
def test_bad_rate(value: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_rate(value, "rate")


@pytest.mark.parametrize(
    ("value", "size"),
    [
        (1500, 1500),
        (1500.0, 1500),
        ("1500B", 1500),
        ("64KB", 64_000),
        ("64KiB", 65_536),
        ("20MB", 20_000_000),
        ("20MiB", 20 * 2**20),
        ("1.5GB", 1_500_000_000),
        ("2 kb", 2000),
    ],
)
def test_size_to_bytes(value: object, size: int) -> None:
    assert parse_size(value, "s") == size


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "must be > 0"),
        (1.5, "whole number"),
        ("20Mb/s", "not a size"),
        ("-1KB", "must be > 0"),
        ("1x", "not a size"),
    ],
)
def test_bad_size(value: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_size(value, "bytes")


@given(st.integers(min_value=0, max_value=10**15))
def test_resolved_seconds_round_trip(ns: int) -> None:
    assert parse_duration(ns_to_s(ns), "d") == ns


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["ns", "us", "ms", "s"]))
def test_integer_durations_are_exact(n: int, unit: str) -> None:
    scale = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}[unit]
    assert parse_duration(f"{n}{unit}", "d") == n * scale


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(["k", "M", "G"]))
def test_integer_rates_are_exact(n: int, prefix: str) -> None:
    scale = {"k": 10**3, "M": 10**6, "G": 10**9}[prefix]
    assert parse_rate(f"{n}{prefix}bit", "r") == n * scale


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0s..2s", (0, 2 * 10**9)), ("1s .. 1.5s", (10**9, 5 * 10**8)), ("3ms", (3_000_000, 0)), (0.5, (5 * 10**8, 0))],
)
def test_duration_range(value: object, expected: tuple[int, int]) -> None:
    assert parse_duration_range(value, "flows[0].start") == expected


@pytest.mark.parametrize("value", ["0s...2s", "0s....2s", "1s..2s..3s", "1...2s", "0s.. .2s", "0s. ..2s"])
def test_duration_range_with_other_than_two_dots_is_refused(value: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_duration_range(value, "flows[0].start")
    assert str(e.value) == (
        f'flows[0].start = {value!r}: not a range (use "A..B": two durations around two dots, e.g. "0s..2s")'
    ).replace("'", '"')


@pytest.mark.parametrize(
    ("parse", "value", "unit"),
    [(parse_duration, "1.5ns", "nanoseconds"), (parse_size, "0.5B", "bytes"), (parse_rate, "1.5bit", "bit/s")],
)
def test_a_fraction_of_the_canonical_unit_is_refused_not_rounded(parse: object, value: str, unit: str) -> None:
    with pytest.raises(ScenarioError, match=f"must be a whole number of {unit}"):
        parse(value, "x")  # type: ignore[operator]

"""The public Python API checks its arguments at the door: whatever value a caller passes, it raises
one of ecnlab's own errors (ScenarioError for a bad argument or scenario, ResultError for a result that
is not there), with a one-line message, never a TypeError or KeyError from deep inside, and never
takes an integer for a file descriptor."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ecnlab
from ecnlab.config import TOP_KEYS
from ecnlab.errors import EcnlabError, ScenarioError

# TOML-like data, and what no TOML file holds (None, bytes, sets, objects, non-string keys).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.binary(max_size=4),
    st.dates(),
    st.just(object()),
    st.frozensets(st.integers(), max_size=2),
)
keys = st.one_of(st.sampled_from(TOP_KEYS), st.text(max_size=8), st.integers(), st.none())
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=8
)
anything = st.one_of(values, st.dictionaries(keys, values, max_size=5), st.builds(Path, st.text(max_size=8)))


def one_line(err: BaseException) -> None:
    assert isinstance(err, EcnlabError), f"{type(err).__name__}: {err}"
    text = str(err)
    assert text and "\n" not in text


def check(call: Any, *args: Any, **kwargs: Any) -> None:
    """``call`` either returns or raises one of ecnlab's errors, in one line."""
    try:
        call(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the point: any other type fails the test
        one_line(e)


API = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty directory, so that a text value taken as a path names nothing."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@API
@given(scenario=anything, overrides=anything, seed=anything)
def test_validate_and_load_scenario_raise_only_ecnlab_errors(
    elsewhere: Path, scenario: Any, overrides: Any, seed: Any
) -> None:
    check(ecnlab.validate, scenario, overrides, seed=seed)
    check(ecnlab.load_scenario, scenario, overrides, seed=seed)


@API
@given(scenario=anything, overrides=anything, seed=anything, out=anything)
def test_run_raises_only_ecnlab_errors(elsewhere: Path, scenario: Any, overrides: Any, seed: Any, out: Any) -> None:
    check(ecnlab.run, scenario, seed=seed, overrides=overrides, out=out)
    assert list(elsewhere.iterdir()) == []  # nothing was written


@API
@given(path=anything)
def test_readers_raise_only_ecnlab_errors(elsewhere: Path, path: Any) -> None:
    check(ecnlab.load_result, path)
    check(ecnlab.load, path)
    check(ecnlab.plot, path, x="max_p", y="goodput_bps")


def test_an_integer_is_not_a_file_descriptor() -> None:
    fd = sys.stdout.fileno()
    before = os.fstat(fd)
    for call in (ecnlab.run, ecnlab.validate, ecnlab.load_result, ecnlab.load):
        with pytest.raises(ScenarioError) as err:
            call(fd)
        assert str(err.value) in (
            f"scenario = {fd}: must be a TOML file's path (str or pathlib.Path) or a dict of TOML data",
            f"path = {fd}: must be a file path (a non-empty str or pathlib.Path)",
        )
    assert os.fstat(fd) == before  # still open


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ecnlab.validate(None), "scenario = <NoneType> None: must be a TOML file's path"),
        (lambda: ecnlab.validate(["a.toml"]), 'scenario = ["a.toml"]: must be a TOML file\'s path'),
        (lambda: ecnlab.validate({"seed": {1, 2}}), "seed = <set> {1, 2}: is not a TOML value"),
        (lambda: ecnlab.validate({}, overrides=5), 'overrides = 5: must be a dict {"key.path": value}'),
        (lambda: ecnlab.validate({}, overrides=[1]), 'overrides = 1: must be a dict {"key.path": value}'),
        (lambda: ecnlab.validate({}, overrides={"duration": None}), "--set duration = <NoneType> None: is not a"),
        (lambda: ecnlab.validate({}, seed="1"), 'seed = "1": must be an integer in [0, 2^64 - 1], or None'),
        (lambda: ecnlab.validate({}, seed=True), "seed = true: must be an integer"),
        (lambda: ecnlab.run({}, out=3), "out = 3: must be a file path"),
        (lambda: ecnlab.load_result(None), "path = <NoneType> None: must be a file path"),
        (lambda: ecnlab.validate({"when": dt.date(2020, 1, 1)}), "when: unknown key (allowed: description, duration,"),
    ],
)
def test_wrong_types_get_the_cli_one_line_message(call: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        call()
    assert str(err.value).startswith(message)

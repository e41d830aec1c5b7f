"""The engine's JSON writer (``crates/py/src/json_text.rs``) gives the same text as
``json.dumps(indent=2, ensure_ascii=False, allow_nan=False)`` (and, compact, as ``json.dumps`` with
the separators ``,`` and ``:``), and refuses what it refuses."""

from __future__ import annotations

import enum
import errno
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecnlab._core import dumps_compact, dumps_indented, dumps_indented_file, write_indented_file

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5)
    | st.tuples(inner, inner)
    | st.dictionaries(keys, inner, max_size=5)
    | st.dictionaries(st.text(max_size=3), scalars, max_size=8),
    max_leaves=40,
)


def stdlib(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)


def stdlib_compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(values)
def test_text_equals_the_standard_library(value: Any) -> None:
    assert dumps_indented(value) == stdlib(value)
    assert dumps_compact(value) == stdlib_compact(value)


@settings(max_examples=100, deadline=None)
@given(value=values)
def test_file_bytes_are_the_text_and_a_newline_in_utf8(value: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    data = (stdlib(value) + "\n").encode("utf-8")
    assert dumps_indented_file(value) == data
    path = tmp_path_factory.mktemp("json") / "v.json"
    write_indented_file(path, value)
    assert path.read_bytes() == data


def test_a_file_of_many_pieces_is_written_whole(tmp_path: Path) -> None:
    records = [{"id": f"f{i}", "x": i / 7, "tags": ["a\u00e9", None, True]} for i in range(40_000)]  # ~4 MiB
    write_indented_file(tmp_path / "big.json", {"flows": records})
    assert (tmp_path / "big.json").read_bytes() == (stdlib({"flows": records}) + "\n").encode("utf-8")


def test_a_file_that_cannot_be_created_raises_oserror_with_its_errno(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        write_indented_file(tmp_path / "missing" / "v.json", {"a": 1})
    assert e.value.errno == errno.ENOENT and e.value.strerror == os.strerror(errno.ENOENT)


def test_a_dict_that_recurs_is_written_each_time_it_occurs() -> None:
    shared = {"cc": "reno", "rwnd": [1, 2.5], "inner": {"k": None}}
    value = {"flows": [{"id": i, "tcp": shared, "app": {"kind": "bulk"}} for i in range(3)], "tcp": shared}
    value["also"] = [shared["inner"], shared]
    assert dumps_compact(value) == stdlib_compact(value)
    assert dumps_indented(value) == stdlib(value)


class Level(enum.IntEnum):
    LOW = 1


class Name(str):
    pass


def test_subclasses_are_written_as_their_base_type() -> None:
    value = {"level": Level.LOW, "name": Name("a\n\u00e9"), Name("k"): [Level.LOW, 1.5, None], "e": {}, "l": []}
    assert dumps_indented(value) == stdlib(value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, {"a": [1, math.nan]}, {"x": math.inf}])
def test_non_finite_floats_are_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        stdlib(bad)
    for dumps in (dumps_indented, dumps_compact, dumps_indented_file):
        with pytest.raises(ValueError):
            dumps(bad)


@pytest.mark.parametrize("bad", [{1, 2}, {"a": object()}, {(1, 2): 3}, [b"bytes"]])
def test_values_json_cannot_write_are_refused(bad: Any) -> None:
    with pytest.raises(TypeError):
        stdlib(bad)
    for dumps in (dumps_indented, dumps_compact, dumps_indented_file):
        with pytest.raises(TypeError):
            dumps(bad)

"""The engine's TOML reader (``crates/py/src/toml_read.rs``) gives the values Python's
``tomllib`` gives, and leaves to ``tomllib`` what it must report or build."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecnlab import _core
from ecnlab.config import read_toml
from ecnlab.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, keys in the same order, NaN equal to NaN."""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    "path", sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("**/*.toml") if ".venv" not in p.parts)
)
def test_every_toml_file_of_the_project_reads_as_tomllib_reads_it(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert _same(_core.parse_toml(text), tomllib.loads(text))


def _toml_string(s: str) -> str:
    """A TOML basic string: JSON's escapes, with DEL escaped too and other characters as they are."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_string(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return str(v)


scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats()
    | st.text(alphabet=st.characters(exclude_categories=("Cs",)))
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), values, max_size=6), st.lists(st.integers(0, 9), max_size=4))
def test_generated_documents_read_as_tomllib_reads_them(top: dict[str, Any], entries: list[int]) -> None:
    lines = [f"{_toml_string(k)} = {_toml_value(v)}" for k, v in top.items()]
    for n in entries:  # arrays of tables, as [[flows]] entries are written
        lines += ["[[entry]]", f"n = {n}", f'name = "e{n}"']
    text = "\n".join(lines) + "\n"
    assert _same(_core.parse_toml(text), tomllib.loads(text))


REFUSED = ['a = "unterminated\n', "a = 1\na = 2\n", "[t]\n[t]\n", "a = 01\n", "= 1\n", "a = 1_\n", "a = 0x\n"]
# A table defined twice, or a value or inline table or static array extended afterwards.
REFUSED += ["a = {b = 1}\na.c = 2\n", "a = []\n[[a]]\n", "[a]\nb = 1\n[a.b]\n", "a.b = 1\n[a]\n", "[[a]]\n[a]\n"]


@pytest.mark.parametrize("text", REFUSED)
def test_text_tomllib_refuses_is_left_to_tomllib(text: str, tmp_path: Path) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert _core.parse_toml(text) is None
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        read_toml(f)


def test_a_date_is_read_by_tomllib_as_a_datetime(tmp_path: Path) -> None:
    text = 'name = "x"\n[t]\nwhen = 1979-05-27T07:32:00Z\n'
    assert _core.parse_toml(text) is None
    f = tmp_path / "date.toml"
    f.write_text(text, encoding="utf-8")
    assert read_toml(f) == tomllib.loads(text)


@pytest.mark.parametrize(
    "text",
    ["a = 9223372036854775808\n", "a = -9223372036854775809\n", "a = 0xffffffffffffffff\n", "a = 1e400\n"],
)
def test_numbers_beyond_64_bits_are_read_by_tomllib(text: str, tmp_path: Path) -> None:
    assert _core.parse_toml(text) is None
    f = tmp_path / "big.toml"
    f.write_text(text, encoding="utf-8")
    assert _same(read_toml(f), tomllib.loads(text))


@pytest.mark.parametrize(
    "text", ["a = -nan\n", "a = +inf\n", "a = -inf\n", "a = 1.7976931348623157e308\n", "a = 5e-324\n"]
)
def test_extreme_floats_read_as_tomllib_reads_them(text: str) -> None:
    assert _same(_core.parse_toml(text), tomllib.loads(text))


def test_recurring_strings_are_one_object() -> None:
    data = _core.parse_toml('[[flows]]\nkind = "bulk"\n[[flows]]\nkind = "bulk"\n')
    assert data is not None
    a, b = data["flows"]
    assert next(iter(a)) is next(iter(b)) and a["kind"] is b["kind"]

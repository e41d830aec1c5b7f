"""``[[flows]]`` entries as a generator writes them: thousands that differ only in name, hosts and
start. Each distinct shape is checked once (``flows.EntryReader``); what it reads must be what
reading every entry on its own gives, errors included, and an error in the last of 10 000 entries
is the same one line as in the first."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SMALL, run_cli
from ecnlab._table import Table
from ecnlab.config import load_scenario
from ecnlab.errors import ScenarioError
from ecnlab.flows import EntryReader
from ecnlab.model import FlowGroup

ENTRIES = 10_000
LAST = ENTRIES - 1


def _generated(last: str) -> str:
    """SMALL with its one entry replaced by ENTRIES entries, one per line, over the ten pairs;
    ``last`` written as the last entry's extra keys."""
    head = SMALL[: SMALL.index("[[flows]]")]
    lines = [
        f'{{ name = "f{i}", kind = "bulk", from = "s{i % 10 + 1}", to = "r{i % 10 + 1}", start = "0s..1s" }},'
        for i in range(ENTRIES - 1)
    ]
    lines.append(f'{{ name = "f{LAST}", kind = "bulk", from = "s1", to = "r1", start = "0s..1s"{last} }},')
    return head.replace("[topology]", "flows = [\n" + "\n".join(lines) + "\n]\n\n[topology]", 1)


def test_ten_thousand_entries_make_one_flow_each(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(_generated(""))
    sc = load_scenario(tmp_path / "s.toml")
    assert [g.name for g in sc.groups] == [f"f{i}" for i in range(ENTRIES)]
    assert sc.groups[1234].src == ("s5",) and sc.groups[1234].dst == ("r5",)
    assert {(g.start_ns, g.start_spread_ns) for g in sc.groups} == {(0, 1_000_000_000)}
    assert len({id(g.tcp) for g in sc.groups}) == 1  # one shape: its TCP read and lowered once


def test_an_error_in_the_last_of_ten_thousand_entries_is_one_line(tmp_path: Path) -> None:
    cases = [
        (', tcp = { cc = "vegas" }', f'flows[{LAST}].tcp.cc = "vegas": must be one of reno, cubic, dctcp, prague, bbr'),
        (", count = 0", f"flows[{LAST}].count = 0: must be in [1, 100000]"),
        (
            ", cont = 2",
            f'flows[{LAST}].cont: unknown key for kind = "bulk", did you mean "count"? '
            "(allowed: bytes, count, from, initiator, kind, name, start, tcp, to)",
        ),
    ]
    for extra, message in cases:
        (tmp_path / "s.toml").write_text(_generated(extra))
        r = run_cli("validate", "s.toml", cwd=tmp_path)
        assert (r.returncode, r.stdout) == (2, "")
        assert r.stderr == f"ecnlab: error: s.toml: {message}\n"


def test_a_bad_host_or_start_in_the_last_entry_names_that_entry(tmp_path: Path) -> None:
    text = _generated("").replace(f'"f{LAST}", kind = "bulk", from = "s1"', f'"f{LAST}", kind = "bulk", from = "s11"')
    (tmp_path / "s.toml").write_text(text)
    r = run_cli("validate", "s.toml", cwd=tmp_path)
    assert r.stderr == f'ecnlab: error: s.toml: flows[{LAST}].from = "s11": no such host (hosts: r1..r10, s1..s10)\n'
    text = _generated("").replace('start = "0s..1s" },\n]', 'start = "0s..9s" },\n]')
    (tmp_path / "s.toml").write_text(text)
    r = run_cli("validate", "s.toml", cwd=tmp_path)
    assert r.stderr == (
        f'ecnlab: error: s.toml: flows[{LAST}].start = "0s..9s": must be before the end of the run (duration)\n'
    )


# Values each key may take in a generated entry: valid and invalid ones, and ones Python holds
# equal although TOML does not (1, 1.0 and true). An entry is one of a few shapes (its keys other
# than name, from, to and start) with keys of its own.
_OWN: dict[str, list[Any]] = {
    "name": ["a", "b", "bad name", 3],
    "from": ["s1", "s2", "s1", "s*", ["s1", "s2"], "R1", 5],
    "to": ["r1", "r2", "r1", "r*", ["r1", "r2"], "s1"],
    "start": ["0s", "0s..1s", "1s", "9s", 1, 1.0, True, "0s...1s"],
}
_SHAPE: dict[str, list[Any]] = {
    "kind": ["bulk", "udp"],
    "count": [1, 1.0, True, 2, 0],
    "initiator": ["src", "dst", "both"],
    "bytes": ["1MB", 1000, 1000.0, True, "lots"],
    "tcp": [{"cc": "cubic"}, {"cc": "vegas"}, {"mss": 1000}, {"mss": True}, {"mss": 1000, "cc": "cubic"}, {"mss": 0}],
}


def _part(values: dict[str, list[Any]], most: int) -> st.SearchStrategy[dict[str, Any]]:
    keys = st.lists(st.sampled_from(sorted(values)), unique=True, max_size=most)
    return keys.flatmap(lambda ks: st.fixed_dictionaries({k: st.sampled_from(values[k]) for k in ks}))


_OWN_PART = st.fixed_dictionaries(
    {k: st.sampled_from(_OWN[k]) for k in ("from", "to")},
    optional={k: st.sampled_from(_OWN[k]) for k in ("name", "start")},
)
entries = st.lists(_part(_SHAPE, 3), min_size=1, max_size=3).flatmap(
    lambda shapes: st.lists(
        st.tuples(_OWN_PART, st.sampled_from(shapes)).map(lambda t: t[0] | t[1]), min_size=1, max_size=12
    )
)


def _outcome(reader: EntryReader, index: int, entry: dict[str, Any]) -> FlowGroup | str:
    try:
        return reader.read(index, Table(entry, f"flows[{index}]"))
    except ScenarioError as e:
        return f"error: {e}"


_SMALL = load_scenario(tomllib.loads(SMALL))


def _reader() -> EntryReader:
    return EntryReader(_SMALL.topology, _SMALL.tcp, _SMALL.duration_ns)


@settings(max_examples=500, deadline=None)
@given(entries)
def test_entries_read_together_are_each_read_alone(generated: list[dict[str, Any]]) -> None:
    """Whatever repeats between entries, the reader shared by all of them gives every entry what
    a reader of that entry alone gives: the same flow group or the same error."""
    shared = _reader()
    for index, entry in enumerate(generated):
        assert _outcome(shared, index, entry) == _outcome(_reader(), index, entry)


@pytest.mark.parametrize(
    ("key", "first", "then"),
    [
        ("count", 1, True),
        ("count", 1, 1.0),
        ("bytes", 1000, 1000.0),
        ("start", 1, True),
        ("tcp", {"mss": 1000}, {"mss": 1000.0}),
        ("tcp", {"delayed_ack": True}, {"delayed_ack": 1}),
    ],
)
def test_values_python_holds_equal_are_read_as_their_toml_types(key: str, first: Any, then: Any) -> None:
    shared = _reader()
    for index, value in enumerate((first, then)):
        entry = {"from": "s1", "to": "r1", key: value}
        assert _outcome(shared, index, entry) == _outcome(_reader(), index, entry)

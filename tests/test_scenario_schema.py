"""The scenario keys the engine describes (ecnlab.scenario_schema, crates/sim/src/scenario_schema.rs)
are the keys the front accepts, with the engine's defaults, and the keys the docs list."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from ecnlab._table import Table
from ecnlab.docs_results import pages
from ecnlab.docs_schema import TABLES, main, render, stale
from ecnlab.errors import ScenarioError
from ecnlab.lower_tcp import _tcp_fields, tcp_engine
from ecnlab.model import TcpSpec
from ecnlab.params import default_queue, parse_queue, parse_tcp
from ecnlab.scenario_schema import KeyRow, app_rows, queue_kinds, queue_rows, tcp_rows

#: What a queue table must give besides the key under test.
NEEDS: dict[str, dict[str, Any]] = {
    "red": {"min_th": 5, "max_th": 15},
    "red_star": {"min_th": 5, "max_th": 15},
    "pi": {"q_ref": 20, "a": 1e-5, "b": 9e-6},
    "step": {"threshold": 20},
}
#: What a key of one personality needs beside it.
ONLY: dict[str, dict[str, Any]] = {"adaptive": {"personality": "linux"}}


def _scenario_value(row: KeyRow) -> Any:
    """The row's engine default as a scenario writes it (durations in seconds)."""
    return row.default / 1e9 if row.unit == "duration" else row.default


def _allowed(err: ScenarioError) -> set[str]:
    m = re.search(r"\(allowed: (.*)\)$", str(err))
    assert m is not None, str(err)
    return set(m.group(1).split(", "))


def test_the_tcp_table_accepts_exactly_the_schemas_keys() -> None:
    with pytest.raises(ScenarioError) as e:
        parse_tcp(Table({"no_such_key": 1}, "tcp"), TcpSpec())
    assert _allowed(e.value) == set(tcp_rows())


@pytest.mark.parametrize("kind", sorted(set(queue_kinds())))
def test_each_queue_kind_accepts_exactly_the_schemas_keys(kind: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_queue(Table({"kind": kind, "no_such_key": 1}, "q"), fallback=default_queue(), mss=1460)
    assert _allowed(e.value) == {"kind", *queue_rows(kind)}


def _tcp_rows_with_defaults() -> list[KeyRow]:
    return [r for r in tcp_rows().values() if r.default is not None and r.key != "variant"]


@pytest.mark.parametrize("row", _tcp_rows_with_defaults(), ids=lambda r: r.key)
def test_each_tcp_key_at_its_engine_default_leaves_the_rfc_defaults(row: KeyRow) -> None:
    tcp = parse_tcp(Table({row.key: _scenario_value(row)}, "tcp"), TcpSpec())
    assert tcp_engine(tcp) == {"personality": "rfc"}


def test_a_default_tcpspec_is_the_engines_rfc_personality() -> None:
    assert tcp_engine(TcpSpec()) == {"personality": "rfc"}


def test_every_engine_field_of_a_tcp_key_is_lowered() -> None:
    fields = {r.field for r in tcp_rows().values() if r.field is not None} - {"personality"}
    assert set(_tcp_fields(TcpSpec())) == fields


@pytest.mark.parametrize("kind", queue_kinds())
def test_each_queue_key_at_its_engine_default_is_accepted(kind: str) -> None:
    rows = queue_rows(kind)
    for key, row in rows.items():
        if row.default is None or key in NEEDS.get(kind, {}):
            continue
        table = {"kind": kind, **NEEDS.get(kind, {}), **ONLY.get(key, {}), key: _scenario_value(row)}
        q = parse_queue(Table(table, "q"), fallback=default_queue(), mss=1460)
        assert q.kind == kind


@pytest.mark.parametrize("kind", ["codel", "fq_codel", "pie", "dualpi2", "ared"])
def test_a_bare_queue_takes_the_engines_defaults(kind: str) -> None:
    q = parse_queue(Table({"kind": kind}, "q"), fallback=default_queue(), mss=1460)
    fields = dict(q.fields)
    for row in queue_rows(kind).values():
        if row.default_from == "field" and row.default is not None and row.field not in ("limit_pkts", None):
            assert fields[row.field] == row.default, row.key
    assert q.limit_pkts == queue_rows(kind)["limit"].default


def test_tcpspec_fields_are_the_schemas_keys_in_the_fronts_names() -> None:
    attrs = {f.name for f in dataclasses.fields(TcpSpec)} - {"accecn"}  # ecn = "accecn"
    from ecnlab.params import tcp_keys

    assert {attr for attr, _ in tcp_keys().values()} == attrs


@pytest.mark.parametrize("table", sorted(TABLES))
def test_the_docs_show_each_key_table_as_the_engine_describes_it(table: str) -> None:
    shown = [p for p in pages(ROOT) if f"<!-- keys: {table} -->" in p.read_text()]
    assert shown, f"no page shows the {table} key table"
    for page in shown:
        name = str(page.relative_to(ROOT))
        assert stale(page.read_text(), name) == [], f"run: python -m ecnlab.docs_schema --write ({name})"


def test_the_queue_table_has_one_line_per_key_and_meaning_with_every_kind() -> None:
    lines = render("queue").split("\n")[2:]
    keys = [line.split(" | ")[0].strip("| `") for line in lines]
    assert keys[0] == "kind"
    for kind in ("droptail", "red", "red_star", "pi", "codel", "pie", "fq_codel", "dualpi2", "ared", "step"):
        assert f'`"{kind}"`' in lines[0]
    every_key = {k for kind in queue_kinds() for k in queue_rows(kind)}
    assert set(keys[1:]) == every_key


def test_the_flow_kinds_and_their_keys_are_the_engines_applications() -> None:
    from ecnlab import flows

    assert flows.FLOW_KINDS == tuple(app_rows())
    for kind, rows in app_rows().items():
        assert set(flows._KIND_KEYS[kind]) == set(rows), kind


def test_an_engine_complaint_about_an_application_field_names_the_scenario_key() -> None:
    from ecnlab.engine_check import _app_key

    assert _app_key("count") == "transactions"
    assert _app_key("mean_think_ns") == "think"
    for rows in app_rows().values():
        for key, row in rows.items():
            if row.field is not None:
                assert _app_key(row.field) == key


def test_a_key_table_marker_naming_no_table_or_without_its_end_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "p.md"
    page.write_text("<!-- keys: nope -->\n<!-- /keys -->\n")
    assert main(["--root", str(tmp_path)]) == 2
    page.write_text("<!-- keys: tcp -->\n")
    assert main(["--root", str(tmp_path)]) == 2
    page.write_text("<!-- keys: tcp -->\nold\n<!-- /keys -->\n")
    assert main(["--root", str(tmp_path)]) == 1
    assert main(["--root", str(tmp_path), "--write"]) == 0
    assert main(["--root", str(tmp_path)]) == 0
    assert render("tcp") in page.read_text()

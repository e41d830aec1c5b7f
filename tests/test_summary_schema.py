"""The summary's schema lives in one place, the engine's output structs
(``crates/sim/src/output.rs``, read by ``schema.rs``, handed over as ``_core.summary_schema``).
Every engine result, the test fake's results, the emulator's records and ``RUN_METRICS`` are
checked against it or built from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from ecnlab import _core
from ecnlab.schema import KINDS, keys, optional, problems, record

GOLDEN = sorted((ROOT / "crates" / "sim" / "tests" / "golden").glob("*.json"))
RECORDS = {"flow": "flows", "queue": "queues", "link": "links"}


def test_schema_names_every_kind_and_its_optional_keys() -> None:
    for kind in KINDS:
        assert keys(kind) and optional(kind) <= set(keys(kind))
    assert "goodput_bps" in keys("flow") and "goodput_bps" not in optional("flow")
    assert {"telnet_writes", "web"} <= optional("flow") and optional("queue") == {"classes"}


def _short(path: Path, tmp_path: Path) -> str:
    """A golden input (every example, peer case and study cell) in 2 s form."""
    spec = json.loads(path.read_text())
    spec["duration_ns"] = min(spec["duration_ns"], 2_000_000_000)
    spec["warmup_ns"] = min(spec.get("warmup_ns", 0), 1_000_000_000)
    spec["stop_when_complete"] = False
    if spec.get("pcap_dir") is not None:
        spec["pcap_dir"] = str(tmp_path)
    return json.dumps(spec)


@pytest.mark.engine
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_engine_record_matches_the_schema(path: Path, tmp_path: Path) -> None:
    result, _, _, _, _ = _core.run_split(_short(path, tmp_path))
    assert problems("sim", result["sim"]) == []
    for kind, field in RECORDS.items():
        for rec in result[field]:
            assert problems(kind, rec) == [], rec  # type: ignore[arg-type]


@pytest.mark.engine
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_split_result_is_what_the_json_result_reads_as(path: Path, tmp_path: Path) -> None:
    """``run_split`` builds the result's objects directly (``crates/py/src/to_python.rs``): the
    same values and types as ``json.loads`` of ``run``'s JSON, keys in the same order (the time
    series apart, and a large group's flow records, which ``run_split`` hands over as columns)."""
    spec = _short(path, tmp_path)
    split, _, _, table, _ = _core.run_split(spec)
    whole = json.loads(_core.run(spec))
    assert whole.pop("timeseries") and split.pop("timeseries") == {"queue": [], "flow": []}
    if table is not None:
        kept = {f["id"] for f in split["flows"]}
        whole["flows"] = [f for f in whole["flows"] if f["id"] in kept]
    assert _core.dumps_indented(split) == _core.dumps_indented(whole)  # 1 and 1.0 differ as text


@pytest.mark.engine
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_engines_text_of_the_flow_records_is_the_writers(path: Path, tmp_path: Path) -> None:
    """``run_split``'s text of the result's ``flows`` (``crates/py/src/records_text.rs``) is what the
    summary's writer makes of the objects: a summary file is the same bytes written either way."""
    split, _, _, _, records = _core.run_split(_short(path, tmp_path))
    assert records is not None
    summary = {"seed": 1, "flows": split["flows"], "queues": split["queues"]}
    assert _core.dumps_indented_file(summary, records) == _core.dumps_indented_file(summary)
    written = tmp_path / "summary.json"
    _core.write_indented_file(written, summary, records)
    assert written.read_bytes() == _core.dumps_indented_file(summary)


def test_the_engines_text_is_used_only_for_its_own_list_as_it_was(tmp_path: Path) -> None:
    """The text stands for one list object at the summary's top level, as long as when it was
    made: a copy, a list placed deeper, or a list grown since are written from their objects."""
    split, _, _, _, records = _core.run_split(_short(GOLDEN[0], tmp_path))
    flows = split["flows"]
    for summary in ({"flows": list(flows)}, {"run": {"flows": flows}}):
        assert _core.dumps_indented_file(summary, records) == _core.dumps_indented_file(summary)
    flows.append({"id": "added"})
    summary = {"flows": flows}
    assert b'"added"' in _core.dumps_indented_file(summary, records)


def test_record_fills_in_schema_order_and_refuses_unknown_keys() -> None:
    rec = record("link", {"utilization": 0.5, "name": "a->b"})
    assert list(rec) == [k for k in keys("link") if k not in optional("link")]
    assert rec["name"] == "a->b" and rec["utilization"] == 0.5 and rec["packets"] is None
    assert "queue_frac_above" in record("link", {"queue_frac_above": 0.1})
    with pytest.raises(KeyError, match="goodput"):
        record("link", {"goodput": 1})
    assert problems("link", {"name": "x"})[0] == "link record lacks 'from'"


def test_the_fake_engine_writes_the_schema(tmp_path: Path) -> None:
    from ecnlab.config import load_scenario
    from ecnlab.lower import engine_spec
    from fake_core import fake_output

    out = fake_output(engine_spec(load_scenario(ROOT / "scenarios" / "explicit-two-bottlenecks.toml")))
    assert problems("sim", out["sim"]) == []
    for kind, field in RECORDS.items():
        assert out[field] and all(problems(kind, r) == [] for r in out[field])  # type: ignore[arg-type]


def test_run_metrics_read_only_schema_keys() -> None:
    """Every per-record key ``run_metrics`` reads is a key of the schema (a renamed engine field fails here)."""
    import ast
    import inspect

    from ecnlab import store

    tree = ast.parse(inspect.getsource(store.run_metrics))
    subscripts = [n.slice for n in ast.walk(tree) if isinstance(n, ast.Subscript)]
    read = {s.value for s in subscripts if isinstance(s, ast.Constant) and isinstance(s.value, str)}
    read |= {
        n.args[0].value
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "get" and isinstance(n.args[0], ast.Constant)
    }
    top = {"flows", "groups", "queries", "links", "queues", "sim", "fairness", "name", "link"}
    known = set(keys("flow")) | set(keys("queue")) | set(keys("link")) | set(keys("sim")) | set(keys("group")) | top
    known |= set(keys("query"))
    assert read and read <= known, read - known

"""Pages show their stored results as the files hold them (ecnlab.docs_results, ecnlab.bench.record)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from ecnlab.bench.record import check_record_path, provenance, write_record
from ecnlab.docs_results import ResultError, blocks, main, pages, render, rewrite, stale

PAGES = [p for p in pages(ROOT) if blocks(p.read_text(), str(p))]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_each_included_result_is_its_stored_file(page: Path) -> None:
    name = str(page.relative_to(ROOT))
    assert stale(page.read_text(), ROOT, name) == [], f"run: python -m ecnlab.docs_results --write ({name})"


def test_every_stored_result_is_included_and_names_its_command() -> None:
    included = {b.result for p in pages(ROOT) for b in blocks(p.read_text(), str(p))}
    stored = {str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "results").glob("*.json")}
    assert stored and stored == included
    for name in stored:
        doc = json.loads((ROOT / name).read_text())
        assert doc["command"].startswith("ecnlab bench ") and f"--record {name}" in doc["command"], name
        assert doc["commit"] != "unknown" and not doc["commit"].endswith("-dirty"), name


def _stored(tmp_path: Path, table: str = "| a |\n|---|\n| 1 |") -> Path:
    (tmp_path / "docs" / "results").mkdir(parents=True)
    path = tmp_path / "docs" / "results" / "r.json"
    write_record(path, ["bench", "peers", "--record", "docs/results/r.json"], table, {"a": 1})
    return path


def test_a_recorded_result_carries_command_commit_machine_and_date(tmp_path: Path) -> None:
    doc = json.loads(_stored(tmp_path).read_text())
    assert doc["command"] == "ecnlab bench peers --record docs/results/r.json"
    assert doc["table"] == "| a |\n|---|\n| 1 |" and doc["data"] == {"a": 1} and doc["format"] == "markdown"
    assert len(doc["commit"]) >= 12 and "cores" in doc["machine"] and len(doc["date"]) == 10
    assert doc["load"].endswith(" at the end") and " at the start, " in doc["load"]
    assert not list(tmp_path.rglob("*.part"))


def test_a_text_table_is_fenced_and_the_provenance_line_follows() -> None:
    stored = {"table": "a  b\n1  2", "format": "text", **provenance(["bench", "scaling"])}
    shown = render(stored).split("\n")
    assert shown[:4] == ["```text", "a  b", "1  2", "```"] and shown[4] == ""
    assert shown[5].startswith("Recorded by `ecnlab bench scaling` at ecnlab commit ")
    assert shown[5].endswith(" at the end).") and "(load average " in shown[5]


def test_details_are_stored_but_only_named_on_the_page(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "f.json"
    write_record(path, ["bench", "fidelity"], "| a |\n|---|\n| 1 |", [], details="| run | x |\n|---|---|\n| 1 | 2 |")
    doc = json.loads(path.read_text())
    assert doc["details"] == "| run | x |\n|---|---|\n| 1 | 2 |"
    shown = render(doc)
    assert "| run | x |" not in shown
    assert shown.endswith("Each run and the run-to-run spread: the stored file's `details`.")
    write_record(path, ["bench", "fidelity"], "| a |", [])
    assert "details" not in json.loads(path.read_text())


def test_a_changed_table_is_found_and_rewritten(tmp_path: Path) -> None:
    _stored(tmp_path)
    page = "# P\n\n<!-- result: docs/results/r.json -->\n| a |\n|---|\n| 2 |\n<!-- /result -->\n\nAfter.\n"
    (b,) = stale(page, tmp_path)
    assert b.result == "docs/results/r.json" and b.start == 2
    fresh = rewrite(page, tmp_path)
    assert "| 1 |" in fresh and "| 2 |" not in fresh and fresh.endswith("<!-- /result -->\n\nAfter.\n")
    assert stale(fresh, tmp_path) == [] and rewrite(fresh, tmp_path) == fresh


def test_the_command_checks_then_writes_the_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _stored(tmp_path)
    page = tmp_path / "docs" / "p.md"
    page.write_text("<!-- result: docs/results/r.json -->\nold\n<!-- /result -->\n")
    assert main(["--root", str(tmp_path)]) == 1
    assert "docs/p.md:1: differs from docs/results/r.json" in capsys.readouterr().out
    assert main(["--root", str(tmp_path), "--write"]) == 0 and "old" not in page.read_text()
    assert main(["--root", str(tmp_path), "--check"]) == 0


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("<!-- result: docs/results/r.json -->\nx\n", "p:1: result marker without <!-- /result -->"),
        ("x\n<!-- /result -->\n", "p:2: <!-- /result --> without a result marker before it"),
        ("<!-- result: a.json -->\n<!-- result: b.json -->\n", "p:2: a result marker inside the one of line 1"),
    ],
)
def test_a_broken_marker_is_one_line(page: str, message: str) -> None:
    with pytest.raises(ResultError) as e:
        blocks(page, "p")
    assert str(e.value) == message


def test_a_marker_in_a_code_block_is_an_example_and_a_text_result_keeps_its_fence(tmp_path: Path) -> None:
    (tmp_path / "docs" / "results").mkdir(parents=True)
    write_record(tmp_path / "docs" / "results" / "t.json", ["bench", "scaling"], "a  b", None, markdown=False)
    example = "```text\n<!-- result: docs/results/none.json -->\n<!-- /result -->\n```\n"
    page = example + "<!-- result: docs/results/t.json -->\n<!-- /result -->\n"
    (b,) = blocks(page)
    assert b.result == "docs/results/t.json"
    fresh = rewrite(page, tmp_path)
    assert fresh.startswith(example) and "```text\na  b\n```" in fresh
    assert blocks(fresh) == [blocks(fresh)[0]] and stale(fresh, tmp_path) == []


def test_a_missing_result_file_is_one_error_line_and_no_page_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stored(tmp_path)
    good = tmp_path / "docs" / "a.md"
    good.write_text("<!-- result: docs/results/r.json -->\nold\n<!-- /result -->\n")
    (tmp_path / "docs" / "b.md").write_text("<!-- result: docs/results/gone.json -->\n<!-- /result -->\n")
    assert main(["--root", str(tmp_path), "--write"]) == 2
    err = capsys.readouterr().err
    assert err == "ecnlab: error: docs/b.md:1: docs/results/gone.json: cannot be read (FileNotFoundError)\n"
    assert "old" in good.read_text()


@pytest.mark.parametrize(
    ("name", "why"),
    [("r.txt", "must end in .json"), ("nowhere/r.json", "the directory")],
)
def test_a_bad_record_path_is_refused_before_the_bench(tmp_path: Path, name: str, why: str) -> None:
    bad = check_record_path(tmp_path / name)
    assert bad is not None and bad.startswith("--record = ") and why in bad
    assert check_record_path(tmp_path / "r.json") is None


def test_bench_refuses_a_bad_record_path_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from ecnlab.cli import main as ecnlab

    assert ecnlab(["bench", "scaling", "--quick", "--record", "no/such/dir/r.json"]) == 2
    err = capsys.readouterr().err
    assert err == "ecnlab: error: --record = 'no/such/dir/r.json': the directory 'no/such/dir' does not exist\n"


def test_a_bench_child_imports_the_ecnlab_that_runs_the_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored result names the recording ecnlab's commit, so its child runs must import that ecnlab."""
    import subprocess
    import sys

    import ecnlab
    from ecnlab.bench.measure import ECNLAB_ROOT, clean_env

    here = str(Path(ecnlab.__file__).resolve().parents[1])
    assert ECNLAB_ROOT == Path(here)
    monkeypatch.setenv("PYTHONPATH", f"/nonexistent{__import__('os').pathsep}{here}")
    env = clean_env()
    assert env["PYTHONPATH"] == here
    probe = "import ecnlab, pathlib; print(pathlib.Path(ecnlab.__file__).resolve().parents[1])"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here
    monkeypatch.setenv("PYTHONPATH", "/nonexistent")
    assert "PYTHONPATH" not in clean_env()

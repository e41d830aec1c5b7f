"""The experiments framework (``ecnlab reproduce``), with a tiny experiment defined here for the test only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from conftest import SCENARIOS, run_cli
from ecnlab import experiments
from ecnlab.errors import ScenarioError
from ecnlab.experiments import Experiment, register, register_group, reproduce, to_markdown, unregister
from ecnlab.plots import plot
from ecnlab.store import SweepResults

SWEEP = f"""\
base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"
name = "{{ecn}}-s{{seed}}"
seeds = @SEEDS@
[set]
duration = "@DURATION@"
sample_interval = 0
"output.pcap" = []
[axes]
"tcp.ecn" = [false, true]
[alias]
ecn = "tcp.ecn"
"""


def summarize(res: SweepResults) -> list[tuple[str, pd.DataFrame]]:
    table = res.runs.groupby("ecn", sort=False)[["goodput_bps", "marks"]].mean().reset_index()
    return [("ecn-vs-goodput", table)]


def figures(res: SweepResults, outdir: Path) -> list[Path]:
    return [plot(res, x="ecn", y="goodput_bps", out=outdir / "goodput")[0]]


def section(res: SweepResults, tables: list[tuple[str, pd.DataFrame]], figs: list[Path]) -> tuple[str, str]:
    return "ECN on/off", f"Runs: {len(res.runs)}; tables: {len(tables)}; figures: {len(figs)}."


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[str]:
    """Register ``tiny-ecn`` (and a group ``tiny-group``) with sweep files in tmp_path; unregister after."""
    full, quick = tmp_path / "sweep.toml", tmp_path / "quick.toml"
    full.write_text(SWEEP.replace("@SEEDS@", "2").replace("@DURATION@", "10s"))
    quick.write_text(SWEEP.replace("@SEEDS@", "1").replace("@DURATION@", "3s"))
    kw = dict(summarize=summarize, figures=figures, report_section=section, sweep_file=full, quick_file=quick)
    register(Experiment(name="tiny-ecn", title="ECN on and off", **kw))  # type: ignore[arg-type]
    register(Experiment(name="tiny-plain", title="no analysis", sweep_file=full, quick_file=quick))
    register_group("tiny-group", ["tiny-ecn", "tiny-plain"])
    yield "tiny-ecn"
    for name in ("tiny-ecn", "tiny-plain", "tiny-group"):
        unregister(name)


@pytest.mark.engine
def test_reproduce_writes_tables_figures_and_report(tiny: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    outcome = reproduce(tiny, out=out, quick=True, jobs=2, progress=False)
    assert outcome.ok and outcome.dirs == {"tiny-ecn": out}
    csv = pd.read_csv(out / "tables" / "ecn-vs-goodput.csv")
    assert list(csv["ecn"]) == [False, True] and len(csv) == 2
    assert (
        (out / "tables" / "ecn-vs-goodput.md").read_text().startswith("| ecn | goodput_bps | marks |\n|---|---|---|\n")
    )
    assert (out / "goodput.png").exists() is False and (out / "figures" / "goodput.png").is_file()
    page = (out / "report.html").read_text()
    assert "<h1>tiny-ecn: ECN on and off</h1>" in page
    assert page.index("ECN on/off") < page.index("Means over seeds")  # the experiment's section comes first
    assert "Runs: 2; tables: 1; figures: 1." in page and 'src="figures/goodput.png"' in page
    assert "seeds</dt><dd>1</dd>" in page  # the quick sweep ran


def _always_fails(name: str, data: dict[str, object]) -> object:
    from ecnlab.sweep.execute import Outcome

    return Outcome(name, None, "engine: deliberately failed by the test")


def test_reproduce_with_every_run_failed_reports_it_without_analysis(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The analysis never sees an empty sweep (it failed with a KeyError traceback)."""
    import ecnlab.sweep.local as local

    monkeypatch.setattr(local, "compute_run", _always_fails)  # the fork workers inherit it
    out = tmp_path / "out"
    outcome = reproduce(tiny, out=out, quick=True, jobs=2, progress=False)
    assert not outcome.ok and not (out / "tables").exists()
    why = "all 2 runs failed (the first: engine: deliberately failed by the test)"
    assert f"ecnlab: tiny-ecn skipped: {why}" in capsys.readouterr().err
    assert why in (out / "report.html").read_text()


@pytest.mark.engine
def test_group_runs_each_member_into_its_own_directory(tiny: str, tmp_path: Path) -> None:
    outcome = reproduce("tiny-group", out=tmp_path, quick=True, jobs=1, progress=False)
    assert outcome.ok and outcome.dirs == {"tiny-ecn": tmp_path / "tiny-ecn", "tiny-plain": tmp_path / "tiny-plain"}
    assert (tmp_path / "tiny-plain" / "report.html").is_file()
    assert not (tmp_path / "tiny-plain" / "tables").exists()
    index = (tmp_path / "report.html").read_text()
    assert 'href="tiny-ecn/report.html"' in index and 'href="tiny-plain/report.html"' in index


def test_all_stands_for_every_registered_experiment(tiny: str) -> None:
    every = [e.name for e in experiments.resolve("all")]
    assert every == sorted(every)
    assert {"tiny-ecn", "tiny-plain", "allecn", "floyd-lan", "rfc2884-bulk"} <= set(every)
    assert "tiny-group" not in every and "all" in experiments.names()


def test_registry_names_and_errors(tiny: str) -> None:
    assert {"tiny-ecn", "tiny-plain", "tiny-group"} <= set(experiments.names())
    assert [e.name for e in experiments.resolve("tiny-group")] == ["tiny-ecn", "tiny-plain"]
    with pytest.raises(ValueError, match="already registered"):
        register(Experiment(name="tiny-ecn", title="again"))
    with pytest.raises(ScenarioError, match=r'experiment = "nope": unknown \(known: .*tiny-ecn'):
        experiments.resolve("nope")


def test_packaged_sweep_files_sit_beside_the_module() -> None:
    exp = Experiment(name="x", title="x", package="ecnlab.experiments")
    assert exp.sweep_path(quick=True) == Path(experiments.__file__).parent / "quick.toml"
    assert exp.sweep_path(quick=False).name == "sweep.toml"


def test_cli_reproduce_unknown_is_one_line(tmp_path: Path) -> None:
    res = run_cli("reproduce", "no-such-study", "--quick", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        'ecnlab: error: no-such-study: experiment = "no-such-study": unknown'
    )
    assert not (tmp_path / "o").exists()


def test_to_markdown() -> None:
    frame = pd.DataFrame({"a": [1, 2], "b": [0.123456, None], "c": ["x|y", "z"]})
    assert to_markdown(frame) == "| a | b | c |\n|---|---|---|\n| 1 | 0.1235 | x\\|y |\n| 2 |  | z |\n"

"""Sweep files: expansion (axes, labelled axes, zip, seeds, names) and bad files (exit 2, one line, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SCENARIOS, SMALL, run_cli
from ecnlab.errors import ScenarioError
from ecnlab.sweep import load_sweep

BASE = f'base = "{(SCENARIOS / "dumbbell-red-ecn.toml").as_posix()}"\n'


def write(tmp_path: Path, text: str, name: str = "sw.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_example_sweep_expands_to_grid_in_order() -> None:
    sweep = load_sweep(SCENARIOS / "sweep-red-ecn.toml")
    assert sweep.columns == ["ecn", "max_p"]
    assert len(sweep.runs) == 2 * 3 * 3
    assert [r.name for r in sweep.runs[:4]] == [
        "red-maxp0.02-s1",
        "red-maxp0.02-s2",
        "red-maxp0.02-s3",
        "red-maxp0.1-s1",
    ]
    last = sweep.runs[-1]
    assert last.name == "red+ecn-maxp0.5-s3" and last.axes == {"ecn": "red+ecn", "max_p": 0.5} and last.seed == 3
    # the overrides reached the validated, resolved scenario
    assert last.resolved["topology"]["bottleneck_queue"]["max_p"] == 0.5
    assert last.resolved["topology"]["bottleneck_queue"]["ecn"] is True
    assert sweep.runs[0].resolved["tcp"]["ecn"] is False
    assert last.resolved["duration"] == 20 and last.resolved["seed"] == 3 and last.resolved["name"] == last.name


def test_zip_alias_and_seed_list(tmp_path: Path) -> None:
    text = BASE + (
        'seeds = [7, 9]\nname = "{rate}-{maxp}-{seed}"\nzip = [["rate", "maxp"]]\n'
        '[alias]\nrate = "topology.bottleneck_rate"\nmaxp = "topology.bottleneck_queue.max_p"\n'
        '[axes]\n"topology.bottleneck_rate" = ["1Mbit", "2Mbit"]\n"topology.bottleneck_queue.max_p" = [0.1, 0.2]\n'
    )
    sweep = load_sweep(write(tmp_path, text))
    assert [r.name for r in sweep.runs] == ["1Mbit-0.1-7", "1Mbit-0.1-9", "2Mbit-0.2-7", "2Mbit-0.2-9"]
    assert sweep.runs[2].resolved["topology"]["bottleneck_rate"] == 2_000_000


def test_default_name_template_and_inline_base(tmp_path: Path) -> None:
    base = "[base]\n" + SMALL.replace("[topology", "[base.topology").replace("[tcp]", "[base.tcp]")
    base = base.replace("[[flows]]", "[[base.flows]]")
    text = 'seeds = 2\n[axes]\n"tcp.variant" = ["reno", "sack"]\n' + base
    sweep = load_sweep(write(tmp_path, text))
    assert [r.name for r in sweep.runs] == [
        "variant=reno,seed=1",
        "variant=reno,seed=2",
        "variant=sack,seed=1",
        "variant=sack,seed=2",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[axes]\n"tcp.ecn" = [true]\n', "base: required key is missing"),
        (
            BASE + '[axes]\n"topology.bottleneck_queue.max_p" = []\n',
            'axes."topology.bottleneck_queue.max_p" = []: must',
        ),
        (BASE + "[axes]\nqueue = {}\n", "axes.queue = {}: must have at least one labelled value"),
        (BASE + 'seeds = 0\n[axes]\n"tcp.ecn" = [true]\n', "seeds = 0: must be in [1, 100000]"),
        (BASE + 'seeds = []\n[axes]\n"tcp.ecn" = [true]\n', "seeds = []: must list at least one seed"),
        (BASE + 'name = "{nope}"\n[axes]\n"tcp.ecn" = [true]\n', 'name = "{nope}": unknown field {nope}'),
        (BASE + 'name = "x"\nseeds = 2\n[axes]\n"tcp.ecn" = [true]\n', 'name: gives the same run name "x" twice'),
        (BASE + 'zip = [["ecn", "nope"]]\n[axes]\n"tcp.ecn" = [true]\n', 'zip[0] = ["ecn", "nope"]: unknown axis'),
        (BASE + '[axes]\n"tcp.ecn" = [true]\n"topology.bottleneck_queue.ecn" = [true]\n', "give one an [alias]"),
        (BASE + '[axes]\n"tcp.mss" = [1460, "x"]\n', "values must be all numbers, all strings or all booleans"),
        (BASE + "axes = 3\n", "axes = 3: must be a table, not an integer"),
        (BASE + 'sedes = 3\n[axes]\n"tcp.ecn" = [true]\n', 'sedes: unknown key, did you mean "seeds"?'),
    ],
)
def test_bad_sweep_file_messages(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_sweep(write(tmp_path, text))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


# The four kinds of bad sweep the issue names, through the real CLI.
CLI_CASES = [
    (
        "unknown-axis",
        '[axes]\n"topology.bottleneck_queue.maxp" = [0.1]\n',
        "axes: the first value of each axis gives a bad scenario: topology.bottleneck_queue.maxp: unknown key for "
        'kind = "red", did you mean "max_p"?',
    ),
    # A misspelt axis is reported as such, not as a name template naming a field it lacks.
    (
        "misspelt-axis-and-template",
        'name = "{max_p}-s{seed}"\n[axes]\n"topology.bottleneck_queue.max_pp" = [0.1]\n',
        "axes: the first value of each axis gives a bad scenario: topology.bottleneck_queue.max_pp: unknown key for "
        'kind = "red", did you mean "max_p"?',
    ),
    ("empty-axis", '[axes]\n"tcp.variant" = []\n', 'axes."tcp.variant" = []: must have at least one value'),
    ("seeds-0", 'seeds = 0\n[axes]\n"tcp.variant" = ["reno"]\n', "seeds = 0: must be in [1, 100000]"),
    (
        "one-run-invalid",
        'name = "maxp{max_p}-s{seed}"\n[axes]\n"topology.bottleneck_queue.max_p" = [0.1, 1.5]\n',
        'run "maxp1.5-s1": topology.bottleneck_queue.max_p = 1.5: must be in (0, 1]',
    ),
]


@pytest.mark.parametrize(("case", "body", "message"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_bad_sweep_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, case: str, body: str, message: str
) -> None:
    sweep = write(tmp_path, BASE + body)
    out = tmp_path / "out"
    res = run_cli("sweep", str(sweep), "--out", str(out), "--jobs", "2", cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    # the scenario's own message follows; its "(allowed: ...)" list grows with the scenario format
    assert lines[0].startswith(f"ecnlab: error: {sweep}: {message}")
    assert res.stdout == ""
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sw.toml"]


def test_cli_refuses_a_directory_that_is_not_a_sweep(tmp_path: Path) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    res = run_cli("sweep", str(SCENARIOS / "sweep-red-ecn.toml"), "--out", str(out), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        f'ecnlab: error: {SCENARIOS / "sweep-red-ecn.toml"}: --out = "{out}": exists and is not an ecnlab sweep '
        "directory (no manifest.json)"
    ]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_docs_sweep_example_and_metric_list() -> None:
    import re
    import tomllib

    from ecnlab.store import RUN_METRICS
    from ecnlab.sweep import parse_sweep

    doc = (SCENARIOS.parent / "docs" / "sweeps.md").read_text()
    block = re.findall(r"```toml\n(.*?)```", doc, re.S)[0]
    sweep = parse_sweep(tomllib.loads(block), base_dir=SCENARIOS)
    assert sweep.columns == ["max_p", "ecn"] and len(sweep.runs) == 3 * 2 * 3
    assert sweep.runs[0].name == "red-maxp0.02-s1"
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    names = {n for line in rows for n in re.findall(r"`([a-z0-9_]+)`", line.split("|")[1])}
    assert set(RUN_METRICS) <= names, set(RUN_METRICS) - names


def test_cli_a_scenario_given_to_sweep_says_so(tmp_path: Path) -> None:
    """The error says a scenario was given, not 'seed: unknown key, did you mean "seeds"?'."""
    scenario = SCENARIOS / "dumbbell-red-ecn.toml"
    res = run_cli("sweep", str(scenario), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith(
        f"ecnlab: error: {scenario}: this is a scenario, not a sweep: run it with `ecnlab run`"
    )
    assert not (tmp_path / "out").exists()

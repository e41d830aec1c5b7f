"""One validator: the engine's own check of the whole lowered scenario (``_core.check_spec``,
``ecnlab_sim::check_json``) runs last in every scenario parse, so ``validate``, ``run`` and sweep
expansion refuse what the engine would refuse, and its JSON paths are reported in scenario keys.
``run`` leaves the check to the engine's run, which makes the same one before anything runs and
raises its fault as ``_core.SpecError``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import SCENARIOS
from ecnlab import _core, cli
from ecnlab.config import load_scenario
from ecnlab.engine_check import scenario_key
from ecnlab.lower import engine_spec

EXPLICIT = SCENARIOS / "explicit-two-bottlenecks.toml"


@pytest.fixture(scope="module")
def spec() -> tuple[Any, dict[str, Any]]:
    sc = load_scenario(EXPLICIT)
    return sc, engine_spec(sc, pcap_dir=".")


def _engine_error(sc: Any, spec: dict[str, Any], path: list[Any], value: Any) -> tuple[str, str]:
    """Break the lowered spec at ``path``, ask the engine's check, map its field back; a run of the
    broken spec raises the same fault."""
    broken = copy.deepcopy(spec)
    node = broken
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    err = _core.check_spec(json.dumps(broken))
    assert err is not None, path
    with pytest.raises(_core.SpecError) as refused:
        _core.run_split(json.dumps(broken))
    assert refused.value.args == err
    return err[0], scenario_key(sc, err[0])


def test_every_example_passes_the_engine_check() -> None:
    for path in sorted(SCENARIOS.glob("*.toml")):
        if path.name.startswith("sweep-"):
            continue
        sc = load_scenario(path)
        assert _core.check_spec(json.dumps(engine_spec(sc, pcap_dir="."))) is None, path.name


@pytest.mark.parametrize(
    ("path", "value", "engine", "key"),
    [
        (["duration_ns"], 0, "duration_ns", "duration"),
        (["links", 0, "rate_bps"], 0, "links[0].rate_bps", 'topology link "client1->A" rate'),
        (["links", 1, "loss"], 2.0, "links[1].loss", 'topology link "A->client1" loss'),
        (["links", 0, "queue", "limit_pkts"], 0, "links[0].queue.limit_pkts", 'topology link "client1->A" queue.limit'),
        (
            ["flows", 0, "tcp", "rwnd_bytes"],
            10,
            "flows[0].tcp.rwnd_bytes",
            'flows[0] (flows "bulk_1" … "bulk_2").tcp.rwnd',
        ),
        (["flows", 0, "tcp", "mss"], 10, "flows[0].tcp.mss", 'flows[0] (flows "bulk_1" … "bulk_2").tcp.mss'),
        (["flows", 0, "app", "bytes"], 0, "flows[0].app.bytes", 'flows[0] (flows "bulk_1" … "bulk_2").bytes'),
        (["flows", 0, "dst"], "nowhere", "flows[0].dst", 'flows[0] (flows "bulk_1" … "bulk_2").to'),
        (["flows", 1, "count"], 0, "flows[1].count", 'flows[1] (flow "downloads").count'),
        (
            ["faults"],
            [{"link": "A->B", "flow": "ghost", "action": "drop", "nth": 3, "seq": None}],
            "faults[0].flow",
            "faults[0].flow",
        ),  # fmt: skip
        (["timeseries_links"], ["nope"], "timeseries_links[0]", "output.timeseries_links"),
    ],
)
def test_engine_paths_map_to_scenario_keys(
    spec: tuple[Any, dict[str, Any]], path: list[Any], value: Any, engine: str, key: str
) -> None:
    sc, lowered = spec
    assert sc.flows[0].id == "bulk_1" and sc.topology.links[0].name == "client1->A"
    assert _engine_error(sc, lowered, path, value) == (engine, key)


def _refuse_flows(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The engine check, refusing flow 0's mss whatever it is: proves each command asks it."""
    calls: list[str] = []

    def check_spec(spec_json: str) -> tuple[str, str, str] | None:
        calls.append(spec_json)
        return ("flows[0].tcp.mss", "1460", "refused for this test")

    monkeypatch.setattr(_core, "check_spec", check_spec)
    return calls


def _refuse_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The engine's run, refusing flow 0's mss before it runs, as its check does in ``_refuse_flows``."""
    calls: list[str] = []

    def run_split(spec_json: str) -> Any:
        calls.append(spec_json)
        raise _core.SpecError("flows[0].tcp.mss", "1460", "refused for this test")

    monkeypatch.setattr(_core, "run_split", run_split)
    return calls


@pytest.mark.parametrize("command", ["validate", "run"])
def test_validate_and_run_ask_the_engine(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate`` asks the engine's check, ``run`` the engine's run (which checks before it runs):
    one question each, the same line in scenario keys, nothing written."""
    checks, runs = _refuse_flows(monkeypatch), _refuse_runs(monkeypatch)
    args = [command, str(EXPLICIT)] + (["--out", str(tmp_path / "r")] if command == "run" else [])
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f'ecnlab: error: {EXPLICIT}: flows[0] (flows "bulk_1" … "bulk_2").tcp.mss = 1460: '
        "refused for this test (the engine's rule for flows[0].tcp.mss)"
    )
    assert (len(checks), len(runs)) == ((1, 0) if command == "validate" else (0, 1))
    assert not (tmp_path / "r").exists() and list(tmp_path.iterdir()) == []


def test_sweep_expansion_asks_the_engine_for_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule broken by one run only (max_p = 0.5 with ECN) is found when the sweep is expanded."""
    from ecnlab.errors import ScenarioError
    from ecnlab.sweep import load_sweep

    real = _core.check_spec
    calls: list[str] = []

    def check_spec(spec_json: str) -> tuple[str, str, str] | None:
        calls.append(spec_json)
        links = json.loads(spec_json)["links"]
        i = next(i for i, link in enumerate(links) if link["name"] == "R1->R2")  # the bottleneck
        if links[i]["queue"].get("max_p") == 0.5 and links[i]["queue"].get("ecn"):
            return (f"links[{i}].queue.max_p", "0.5", "refused for this test")
        return real(spec_json)

    monkeypatch.setattr(_core, "check_spec", check_spec)
    with pytest.raises(ScenarioError) as e:
        load_sweep(SCENARIOS / "sweep-red-ecn.toml")
    assert str(e.value).startswith('run "red+ecn-maxp0.5-s1": topology link "R1->R2" queue.max_p = 0.5: refused')
    assert len(calls) > 2


def test_unit_fields_show_the_engine_value_without_passing_it_off_as_the_scenario_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ecnlab.errors import ScenarioError

    monkeypatch.setattr(_core, "check_spec", lambda _s: ("flows[0].tcp.min_rto_ns", "200000000", "must be <= x"))
    with pytest.raises(ScenarioError) as e:
        load_scenario(EXPLICIT)
    assert str(e.value) == (
        'flows[0] (flows "bulk_1" … "bulk_2").tcp.min_rto: must be <= x '
        "(the engine's rule: flows[0].tcp.min_rto_ns = 200000000)"
    )

"""The examples in docs/scenario.md are valid."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest

from conftest import ROOT
from ecnlab import load_scenario
from ecnlab.errors import ScenarioError

DOC = (ROOT / "docs" / "scenario.md").read_text()
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC, re.S)


def _block(first_line: str) -> str:
    found = [b for b in BLOCKS if b.startswith(first_line)]
    assert len(found) == 1, first_line
    return found[0]


def test_every_toml_block_parses() -> None:
    assert len(BLOCKS) >= 9
    for block in BLOCKS:
        tomllib.loads(block)


def test_the_opening_example_is_a_scenario() -> None:
    sc = load_scenario(tomllib.loads(BLOCKS[0]))
    assert [f.id for f in sc.flows] == [f"reno_{i}" for i in range(1, 11)]


def test_dumbbell_tcp_flows_faults_output_examples_together() -> None:
    top = _block('name = "ecn-vs-drop"')
    text = "\n".join(
        [
            top,
            _block('[topology]\nkind = "dumbbell"'),
            _block("[tcp]"),
            _block("[[flows]]"),
            _block("[[faults]]"),
            _block("[output]"),
        ]
    )
    sc = load_scenario(tomllib.loads(text))
    ids = [f.id for f in sc.flows]
    assert ids[:10] == [f"reno_{i}" for i in range(1, 11)]
    assert ids[10:18] == [f"fanin_{i}" for i in range(1, 9)]
    assert [(f.src, f.dst) for f in sc.flows[10:12]] == [("s1", "r1"), ("s1", "r1")]
    assert ids[18:23] == ["serial2", "request_response3", "telnet4_1", "telnet4_2", "ftp_arrivals5"]
    assert ids[23:] == [f"incast6_{i}" for i in range(1, 5)] and sc.flows[23].app.kind == "incast"
    assert {lk.name: lk.delay_ns for lk in sc.topology.links}["s3->R1"] == 5_000_000
    assert len(sc.faults) == 2 and sc.pcap == ("R1->R2", "r1<->R2")


def test_queue_example() -> None:
    data: dict[str, Any] = tomllib.loads(BLOCKS[0])
    data["topology"]["bottleneck_queue"] = tomllib.loads(_block("[topology.bottleneck_queue]"))["topology"][
        "bottleneck_queue"
    ]
    q = load_scenario(data).topology.links[20].queue
    assert q.limit_bytes == 90_000 and q.red is not None and q.red.mode == "byte"


def test_explicit_example() -> None:
    data = tomllib.loads(_block('[topology]\nkind = "explicit"'))
    data.update(duration=1, flows=[{"from": "client", "to": "server"}])
    sc = load_scenario(data)
    assert [lk.name for lk in sc.topology.links] == [
        "client->A",
        "A->client",
        "A->server",
        "server->A",
        "server->client",
    ]


@pytest.mark.parametrize(
    "line", [ln for ln in DOC.splitlines() if ln.startswith("ecnlab: error: s.toml: ") and "..." not in ln]
)
def test_documented_error_lines_are_real(line: str) -> None:
    """Each documented message comes out of the small test scenario with a matching edit."""
    from conftest import SMALL

    message = line.removeprefix("ecnlab: error: s.toml: ")
    edits = {
        "topology.bottleneck_queue.max_p": {"topology.bottleneck_queue.max_p": 1.5},
        "topology.bottleneck_queue.min_th": {"topology.bottleneck_queue.min_th": 15},
        "flows[0].to": {"flows[0].to": "r11"},
        "tcp.variant": {"tcp.variant": "cubic"},
        "topology.bottleneck_rate": {"topology.bottleneck_rate": "-1.5Mbit"},
        "output.timeseries_links": {"output.timeseries_links": ["R1->R2"]},
    }
    edit = next(v for k, v in edits.items() if message.startswith(k + " "))
    with pytest.raises(ScenarioError) as e:
        load_scenario(tomllib.loads(SMALL), edit)
    assert str(e.value) == message


README = (ROOT / "README.md").read_text()


def test_readme_front_door() -> None:
    """The title and a one-line pitch first, then the two commands; a 15-line scenario inline."""
    lines = README.splitlines()
    assert lines[0] == "# ecnlab" and lines[2]
    assert lines[4].startswith("`make demo`") and lines[5].startswith("`make test`")
    block = re.search(r"## A scenario\n\n```toml\n(.*?)```", README, re.S)
    assert block is not None and len(block.group(1).strip().splitlines()) <= 15
    sc = load_scenario(tomllib.loads(block.group(1)))
    assert sc.topology.kind == "dumbbell" and len(sc.flows) == 2
    assert "docs/performance.md" in README and "## Performance\n\nMeasured" in README
    for study in ("rfc2884", "floyd1994", "kuzmanovic2005", "allecn"):
        assert f"docs/experiments/{study}.md" in README, study


def test_readme_study_table_counts_each_pages_verdicts() -> None:
    """Each study row gives the verdict count its page opens with, and links the page."""
    row = r"^\| `[^|]+` \|[^|]+\|[^|]+\| ([^|]+) \| \[[^]]+\]\((docs/experiments/[^)]+)\) \|$"
    rows = re.findall(row, README, re.M)
    assert len(rows) >= 10
    for counts, page in rows:
        text = (ROOT / page).read_text()
        m = re.search(r"^Verdicts of the claims below: (.*)\.$", text, re.M)
        assert m is not None, page
        assert counts == m.group(1), page

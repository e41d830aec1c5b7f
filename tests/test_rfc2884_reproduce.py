"""RFC 2884 end to end on a tiny grid: `reproduce` writes the tables, figures and report section.

The grid is the quick one cut down (1 seed, 2 max_p values, Reno, low and high
congestion, 2 MB transfers, 60 s of transactions) so the test takes seconds;
the analysis, figures and report are the experiment's own.
"""

# The TOML inline tables of the tiny sweeps must stay on one line:
# ruff: noqa: E501
from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments import register, register_group, reproduce, unregister
from ecnlab.experiments.rfc2884 import EXPERIMENTS, HERE

pytestmark = pytest.mark.slow  # whole reproductions

BASE = (HERE / "testbed.toml").as_posix()
AXES_CONGESTION = """\
congestion.low = { "flows[0].count" = 2, duration = "200s" }
congestion.high = { "flows[0].count" = 10, duration = "400s" }
"""
FLOW_BG = (
    '{ name = "bg", kind = "bulk", from = "server", to = "c", count = 2, initiator = "dst", tcp = { ecn = false } }'
)

TINY = {
    "fairness": f"""\
base = "{BASE}"
seeds = 1
name = "bg={{background}}-maxp={{maxp}}-seed={{seed}}"
[set]
duration = "60s"
warmup = "20s"
flows = [
    {FLOW_BG},
    {{ name = "ecn", kind = "bulk", from = "server", to = "ecn_on", start = "20s", tcp = {{ ecn = true }} }},
    {{ name = "nonecn", kind = "bulk", from = "server", to = "ecn_off", start = "20s", tcp = {{ ecn = false }} }},
]
[alias]
maxp = "topology.links[4].queue.max_p"
[axes]
background.ecn = {{ "flows[0].tcp.ecn" = true }}
background.nonecn = {{ "flows[0].tcp.ecn" = false }}
"topology.links[4].queue.max_p" = [0.1, 0.5]
""",
    "bulk": f"""\
base = "{BASE}"
seeds = 1
name = "{{variant}}-{{congestion}}-maxp={{maxp}}-seed={{seed}}"
[set]
"flows[1].bytes" = "2MB"
"flows[2].bytes" = "2MB"
[alias]
maxp = "topology.links[4].queue.max_p"
[axes]
"tcp.variant" = ["reno"]
{AXES_CONGESTION}"topology.links[4].queue.max_p" = [0.1, 0.5]
""",
    "transactional": f"""\
base = "{BASE}"
seeds = 1
name = "{{variant}}-{{congestion}}-{{response}}-maxp={{maxp}}-seed={{seed}}"
[set]
flows = [
    {FLOW_BG},
    {{ name = "ecn", kind = "request_response", from = "server", to = "ecn_on", request_size = "1KiB", response_size = "5KiB", start = "20s", tcp = {{ ecn = true }} }},
    {{ name = "nonecn", kind = "request_response", from = "server", to = "ecn_off", request_size = "1KiB", response_size = "5KiB", start = "20s", tcp = {{ ecn = false }} }},
]
[alias]
maxp = "topology.links[4].queue.max_p"
[axes]
"tcp.variant" = ["reno"]
congestion.low = {{ "flows[0].count" = 2, duration = "80s" }}
congestion.high = {{ "flows[0].count" = 10, duration = "80s" }}
response."5KB" = {{ "flows[1].response_size" = "5KiB", "flows[2].response_size" = "5KiB" }}
response."20KB" = {{ "flows[1].response_size" = "20KiB", "flows[2].response_size" = "20KiB" }}
"topology.links[4].queue.max_p" = [0.1, 0.5]
""",
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run the tiny group once through `reproduce`; every test below reads its output."""
    d = tmp_path_factory.mktemp("rfc2884")
    names = [f"test-{exp.name}" for exp in EXPERIMENTS]
    try:  # whatever fails, the registry is left as found (other modules' tests resolve "all")
        for exp, name in zip(EXPERIMENTS, names, strict=True):
            kind = exp.name.removeprefix("rfc2884-")
            f = d / f"{kind}-tiny.toml"
            f.write_text(TINY[kind], encoding="utf-8")
            register(dataclasses.replace(exp, name=name, sweep_file=f, quick_file=f), replace=True)
        register_group("test-rfc2884", names, replace=True)
        outcome = reproduce("test-rfc2884", out=d / "out", quick=True, jobs=2, progress=False)
    finally:
        for n in [*names, "test-rfc2884"]:
            unregister(n)
    assert outcome.ok
    return d / "out"


def _table(out: Path, exp: str, name: str) -> pd.DataFrame:
    csv = out / f"test-rfc2884-{exp}" / "tables" / f"{name}.csv"
    assert (csv.with_suffix(".md")).is_file()
    return pd.read_csv(csv)


def test_fairness_table_shape(tiny: Path) -> None:
    t = _table(tiny, "fairness", "fairness")
    assert list(t.columns[:7]) == [
        "maxp",
        "background",
        "n",
        "paper_fairness",
        "fairness",
        "fairness_ci95",
        "diff_fairness",
    ]
    assert len(t) == 4 and set(t["background"]) == {"ecn", "nonecn"}
    assert ((t["fairness"] > 0.25) & (t["fairness"] <= 1.0)).all()
    # the paper gives 0.1 for both kinds of background, not 0.5
    assert t.loc[t["maxp"] == 0.1, "paper_fairness"].notna().all()
    assert t.loc[t["maxp"] == 0.5, "paper_fairness"].isna().all()
    assert t["diff_fairness"].dropna().sub(t["fairness"] - t["paper_fairness"]).abs().max() < 1e-12


def test_bulk_table_shape_and_ecn_behaviour(tiny: Path) -> None:
    t = _table(tiny, "bulk", "bulk")
    assert len(t) == 4 and set(t["congestion"]) == {"low", "high"}
    assert (t["unfinished"] == 0).all()
    # ECN reacts to marks instead of losses: fewer retransmissions than the non-ECN transfer at every point
    assert (t["retransmits_ecn"] < t["retransmits_nonecn"]).all()
    assert t.loc[(t["congestion"] == "high") & (t["maxp"] == 0.1), "paper_advantage"].item() == 0.5


def test_transactional_table_shape(tiny: Path) -> None:
    t = _table(tiny, "transactional", "transactional")
    assert len(t) == 8 and set(t["response"]) == {"5KB", "20KB"}
    assert (t["tps_ecn"] > 0).all() and (t["tps_nonecn"] > 0).all()
    # a 20 KB response takes longer than a 5 KB one at the same point
    five = t[t["response"] == "5KB"].set_index(["congestion", "maxp"])["tps_nonecn"]
    twenty = t[t["response"] == "20KB"].set_index(["congestion", "maxp"])["tps_nonecn"]
    assert (twenty < five).all()


@pytest.mark.parametrize("exp", ["fairness", "bulk", "transactional"])
def test_queue_region_table(tiny: Path, exp: str) -> None:
    q = _table(tiny, exp, f"{exp}_queue_region")
    assert (q["min_th"] == 23).all() and (q["max_th"] == 70).all()
    shares = q["share_below"] + q["share_inside"] + q["share_above"]
    assert (shares.sub(1.0).abs() < 1e-9).all()
    assert (q["share_above"] == 0).all()  # the threshold rule held: the average never went above max_th


@pytest.mark.parametrize(
    ("exp", "figures", "title"),
    [
        ("fairness", ["fairness_vs_maxp.png", "fairness_queue_region.png"], "§5.1 fairness"),
        ("bulk", ["bulk_advantage_vs_maxp.png", "bulk_retransmits_vs_maxp.png", "bulk_queue_region.png"], "§5.2 bulk"),
        ("transactional", ["transactional_tps_vs_maxp_reno.png", "transactional_gain_vs_maxp_high.png"], "§5.3"),
    ],
)
def test_figures_and_report_section(tiny: Path, exp: str, figures: list[str], title: str) -> None:
    d = tiny / f"test-rfc2884-{exp}"
    for name in figures:
        png = d / "figures" / name
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (d / "report.html").read_text(encoding="utf-8")
    assert title in page and "paper vs ecnlab" in page and "RED region check" in page
    assert "Where and why ecnlab differs from the paper" in page


def test_every_part_writes_claims_with_verdicts_and_its_key_figure(tiny: Path) -> None:
    from ecnlab.experiments.framework import Verdict, read_claims

    for kind in ("fairness", "bulk", "transactional"):
        got = read_claims(tiny / f"test-rfc2884-{kind}")
        assert got.found and len(got.claims) >= 2, kind
        assert all(isinstance(c.verdict, Verdict) and c.reason for c in got.claims)
        assert got.key_figure is not None and (tiny / f"test-rfc2884-{kind}" / got.key_figure).is_file()
    bulk = read_claims(tiny / "test-rfc2884-bulk").claims
    # the tiny grid has 0 < advantage at every point only if the table says so: the verdict follows the table
    t = _table(tiny, "bulk", "bulk")
    first = bulk[0]
    assert first.verdict == Verdict.of_share(int((t.advantage > 0).sum()), len(t))


def test_index_page_of_real_outputs_in_chromium(tiny: Path) -> None:
    """The group's index from real runs: the study's question, every part's claims and verdicts, its figure."""
    import html
    import re

    from chromium import dump_dom
    from ecnlab.experiments.framework import Verdict, read_claims
    from ecnlab.experiments.rfc2884 import STUDY

    dom = dump_dom(tiny / "report.html")
    m = re.search(r'<div class="study" id="study-rfc2884">(.*?)</div>', dom, re.S)
    assert m, "no rfc2884 row"
    row = m.group(1)
    assert html.escape(STUDY.question, quote=False) in row
    shown = re.findall(r'<li class="claim" data-verdict="([^"]+)">', row)
    written = [
        c for kind in ("fairness", "bulk", "transactional") for c in read_claims(tiny / f"test-rfc2884-{kind}").claims
    ]
    assert shown == [c.verdict.value for c in written] and set(shown) <= {v.value for v in Verdict}
    for c in written:
        assert html.escape(c.reason, quote=False) in row, c.reason
    img = re.search(r'<img class="key-figure" src="([^"]+)"[^>]*data-loaded-width="(\d+)"', row)
    assert img and img.group(1) == "test-rfc2884-fairness/figures/fairness_vs_maxp.png"
    assert int(img.group(2)) > 100, "the key figure did not load"
    for kind in ("fairness", "bulk", "transactional"):
        assert f'href="test-rfc2884-{kind}/report.html"' in row

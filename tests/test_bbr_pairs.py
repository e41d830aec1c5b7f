"""Senders two at a time through one bottleneck: scenarios/sweep-bbr-pairs.toml, each sender's part of a run
(ecnlab.analysis.senders) and ``ecnlab bench pairs`` that tabulates and records it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ecnlab
from conftest import SCENARIOS
from ecnlab.analysis.senders import bucket_mean_p99, flow_class, sender_cells, sender_rows
from ecnlab.cli import main as ecnlab_cli
from ecnlab.config import read_toml
from ecnlab.report import sweep_report
from ecnlab.store import SweepResults
from ecnlab.sweep import load_sweep, run_sweep
from ecnlab.sweep.spec import parse_sweep

SWEEP = SCENARIOS / "sweep-bbr-pairs.toml"
PAIRS = ("bbr1-bbr3", "bbr1-cubic", "bbr1-prague", "bbr3-cubic", "bbr3-prague", "cubic-prague")


def test_the_sweep_expands_to_every_pair_queue_path_and_seed() -> None:
    sweep = load_sweep(SWEEP)
    assert sweep.columns == ["pair", "aqm", "path"] and sweep.seeds == (1, 2)
    assert len(sweep.runs) == 6 * 3 * 2 * 2 == 72
    assert {r.axes["pair"] for r in sweep.runs} == set(PAIRS)
    for run in sweep.runs:
        a, b = run.resolved["flows"]
        assert f"{a['name']}-{b['name']}" == run.axes["pair"]
        assert a["tcp"]["ecn"] and b["tcp"]["ecn"]  # every sender negotiates ECN
        for flow in (a, b):
            version = flow["tcp"].get("bbr_version") if flow["tcp"]["cc"] == "bbr" else None
            assert flow["name"] != "bbr3" or (version == "v3" and flow["tcp"]["bbr_ecn_low"])


def _one_pair(tmp_path: Path, pair: str, aqms: list[str]) -> SweepResults:
    """``pair`` through ``aqms`` on the long path, one seed, 6 s runs."""
    data = read_toml(SWEEP)
    data["axes"]["pair"] = {pair: data["axes"]["pair"][pair]}
    data["axes"]["aqm"] = {q: data["axes"]["aqm"][q] for q in aqms}
    data["axes"]["path"] = {"44ms": data["axes"]["path"]["44ms"]}
    data["seeds"], data["set"] = 1, {"duration": "6s", "warmup": "2s"}
    sweep = parse_sweep(data, base_dir=SWEEP.parent)
    assert run_sweep(sweep, tmp_path / "out", jobs=1, progress=False).ok
    return ecnlab.load(tmp_path / "out")


def test_a_pairs_shares_sum_to_one_and_each_sender_sees_its_own_part_of_the_queue(tmp_path: Path) -> None:
    res = _one_pair(tmp_path, "cubic-prague", ["fq_codel", "dualpi2"])
    rows = sender_rows(res)
    assert len(rows) == 4 and list(rows["flow"]) == ["cubic", "prague"] * 2
    for _, run in rows.groupby("run"):
        assert run["share"].sum() == pytest.approx(1.0) and (run["share"] > 0).all()
    dual = rows[rows["aqm"] == "dualpi2"].set_index("flow")
    # Prague's ECT(1) packets wait in DualPI2's L queue, CUBIC's in the C queue
    assert dual.loc["prague", "sojourn_p99_ms"] < 1.0 < dual.loc["cubic", "sojourn_p99_ms"]
    fq = rows[rows["aqm"] == "fq_codel"].set_index("flow")
    assert fq.loc["prague", "sojourn_mean_ms"] != fq.loc["cubic", "sojourn_mean_ms"]
    assert (rows["marks"] > 0).any()
    cells = sender_cells(res)
    assert list(cells["n"]) == [1] * 4 and cells["share"].tolist() == rows["share"].tolist()


def test_the_report_has_the_per_sender_table_when_a_run_mixes_senders_and_a_missing_count_stays_missing(
    tmp_path: Path,
) -> None:
    res = _one_pair(tmp_path, "bbr1-cubic", ["red"])
    page = sweep_report(res).read_text()
    assert "Per sender" in page and "sojourn_mean_ms" in page
    rows = sender_rows(res)  # one FIFO: both senders' packets wait in the same queue
    assert rows["sojourn_p99_ms"].nunique() == 1 and rows["share"].sum() == pytest.approx(1.0)
    res.flows["ce_received_after_warmup"] = None  # as in emulate's records: no count, not zero
    assert sender_rows(res)["marks"].isna().all()


def test_the_last_axis_goes_across_only_when_its_values_name_the_same_senders() -> None:
    import pandas as pd

    from ecnlab.bench.pairs import format_pairs

    row = {"share": 0.5, "sojourn_mean_ms": 1.0, "sojourn_p99_ms": 2.0, "marks": 3, "drops": 0}
    same = pd.DataFrame([{"q": "red", "rtt": r, "flow": f, **row} for r in ("4ms", "44ms") for f in ("a", "b")])
    assert format_pairs(same, ["q", "rtt"]).split("\n")[2].startswith("| red | a / b | 0.50 / 0.50 | 0.50 / 0.50 |")
    other = same.assign(flow=["a", "b", "a", "c"])
    lines = format_pairs(other, ["q", "rtt"]).split("\n")
    assert lines[0].startswith("| q | rtt | senders | share |") and lines[3].startswith("| red | 44ms | a / c |")


def test_a_histograms_mean_and_p99_come_from_its_buckets() -> None:
    assert bucket_mean_p99([1_000_000, 2_000_000], [99, 1]) == pytest.approx((1.01, 1.0))
    assert bucket_mean_p99([2_000_000, 1_000_000], [2, 98]) == pytest.approx((1.02, 2.0))
    mean, p99 = bucket_mean_p99([], [])
    assert mean != mean and p99 != p99  # NaN: no packet left that part of the queue


def test_only_ect1_senders_go_to_the_l_queue() -> None:
    assert flow_class({"cc": "prague"}) == "L" and flow_class({"cc": "dctcp", "dctcp_ect": 1}) == "L"
    assert flow_class({"cc": "dctcp", "dctcp_ect": 0}) == "C" and flow_class({"cc": "bbr"}) == "C"


def test_bench_pairs_quick_records_one_row_per_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "pairs.json"
    argv = ["bench", "pairs", str(SWEEP), "--quick", "--jobs", "2", "--record", str(record)]
    assert ecnlab_cli(argv) == 0
    out = capsys.readouterr().out
    doc = json.loads(record.read_text())
    assert doc["command"] == "ecnlab " + " ".join(argv) and doc["format"] == "markdown"
    lines = doc["table"].split("\n")
    # one row per pair and queue, the two paths across
    assert lines[0].startswith("| pair | aqm | senders | share, 4ms | share, 44ms |") and len(lines) == 2 + 18
    assert doc["table"] in out
    assert len(doc["data"]) == 72 and {d["n"] for d in doc["data"]} == {1}
    for i in range(0, 72, 2):
        a, b = doc["data"][i : i + 2]
        assert (a["pair"], a["aqm"], a["path"]) == (b["pair"], b["aqm"], b["path"])
        assert a["share"] + b["share"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such.toml"], "ecnlab: error: no-such.toml: "),
        ([str(SCENARIOS / "bbr-vs-cubic.toml")], "this is a scenario, not a sweep"),
        ([str(SWEEP), "--jobs", "0"], "ecnlab: error: --jobs = 0: must be >= 1"),
    ],
)
def test_bench_pairs_refuses_bad_input_in_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ecnlab_cli(["bench", "pairs", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err

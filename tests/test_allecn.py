"""All-ECN study: metric functions on hand-made inputs, the paper's numbers, the RED rule, the sweep files."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments.allecn import paper
from ecnlab.experiments.allecn.analysis import paper_table, per_cell, rule_of_thumb, split_queue, transfer_times
from ecnlab.experiments.allecn.metrics import (
    accounting_problems,
    min_packets,
    overhead_metrics,
    queue_metrics,
    transfer_metrics,
)
from ecnlab.experiments.allecn.report import ordering_lines, report_text, rule_lines
from ecnlab.sweep.spec import load_sweep

HERE = Path(paper.__file__).parent

# --- metrics ---------------------------------------------------------------


def test_min_packets_is_the_segment_count() -> None:
    assert min_packets(102_400, 1460) == 71  # 70 full segments and one of 200 bytes
    assert min_packets(100_000, 1460) == 69
    assert min_packets(1460, 1460) == 1
    assert min_packets(1461, 1460) == 2
    with pytest.raises(ValueError):
        min_packets(0, 1460)


def test_transfer_metrics_pool_every_transfer() -> None:
    flows = pd.DataFrame({"transfer_times_s": [[1.0, 2.0], [3.0]]})
    m = transfer_metrics(flows)
    assert m["transfers"] == 3
    assert m["tt_mean_s"] == pytest.approx(2.0)
    assert m["tt_std_s"] == pytest.approx(1.0)  # sample std of 1, 2, 3


def _flows(**cols: list) -> pd.DataFrame:
    base = {
        "id": ["client_1", "client_2"],
        "data_packets_sent": [75, 80],
        "data_packets_received": [72, 73],
        "corrupted_received": [1, 0],
        "dst_acks_sent": [40, 44],
        "retransmits": [4, 9],
        "timeouts": [1, 2],
    }
    base.update(cols)
    return pd.DataFrame(base)


def test_overheads_against_the_minimum() -> None:
    m = overhead_metrics(_flows(), transfers=2, per_transfer_min=71)
    assert m["min_packets"] == 142
    assert m["excess_packets"] == 155 - 142
    assert m["network_overhead_pct"] == pytest.approx(100 * 13 / 142)
    assert m["receiver_excess"] == 145 - 142
    assert m["receiver_overhead_pct"] == pytest.approx(100 * 3 / 142)
    assert m["acks_per_transfer"] == 42
    assert (m["retransmits"], m["timeouts"], m["corrupted_received"]) == (13, 3, 1)


def test_overhead_without_waste_is_zero() -> None:
    flows = _flows(data_packets_sent=[71, 71], data_packets_received=[71, 71])
    m = overhead_metrics(flows, transfers=2, per_transfer_min=71)
    assert m["network_overhead_pct"] == 0 and m["receiver_overhead_pct"] == 0


def _queues(**b: int) -> pd.DataFrame:
    row = {"marks": 0, "early_drops": 0, "forced_drops": 0, "overflow_drops": 0}
    return pd.DataFrame(
        [
            {"link": "s1->R1", **row},
            {"link": "R1->R2", **{**row, **b}},
            {"link": "R2->R1", **row, "overflow_drops": 2},
        ]
    )


def test_queue_metrics_at_router_b_and_elsewhere() -> None:
    m = queue_metrics(_queues(marks=7, early_drops=3, forced_drops=1, overflow_drops=5))
    assert m["marks_B"] == 7
    assert m["drops_B"] == 9
    assert (m["early_drops_B"], m["forced_drops_B"], m["overflow_drops_B"]) == (3, 1, 5)
    assert m["drops_elsewhere"] == 2


def test_queue_metrics_needs_router_b() -> None:
    with pytest.raises(ValueError, match="R1->R2"):
        queue_metrics(_queues().iloc[[0, 2]])


def _done(**changes: object) -> pd.DataFrame:
    row = {
        "id": "client_1",
        "transfer_times_s": [1.0] * 11,
        "bytes_delivered": 11 * 102_400,
        "pkts_sent": 100,
        "pkts_delivered": 90,
        "pkts_dropped": 6,
        "pkts_corrupted": 3,
        "pkts_in_flight": 1,
    }
    row.update(changes)
    return pd.DataFrame([row])


def test_accounting_closes() -> None:
    assert accounting_problems(_done(), files=11, file_bytes=102_400) == []


def test_accounting_reports_a_missing_packet() -> None:
    problems = accounting_problems(_done(pkts_dropped=5), files=11, file_bytes=102_400)
    assert problems == ["client_1: sent 100 != delivered+dropped+corrupted+in flight 99"]


def test_accounting_reports_an_unfinished_transfer() -> None:
    problems = accounting_problems(_done(transfer_times_s=[1.0] * 10), files=11, file_bytes=102_400)
    assert problems and problems[0].startswith("client_1: 10/11 files")


# --- the paper's numbers and the RED rule ----------------------------------


def test_paper_percentages_imply_70_packets_per_transfer() -> None:
    """1960 and 535 excess packets are 10.18 % and 2.78 % of 25 x 11 x 70 (the 25-client case)."""
    pct = {p.scheme: p.value for p in paper.PAPER if p.metric == "network_overhead_pct"}
    excess = {(p.n, p.scheme): p.value for p in paper.PAPER if p.metric == "excess_packets"}
    minimum = 25 * 11 * paper.PAPER_MIN_PACKETS
    assert 100 * excess[(25, "DT")] / minimum == pytest.approx(pct["DT"], abs=0.01)
    assert 100 * excess[(25, "ECN")] / minimum == pytest.approx(pct["ECN"], abs=0.01)
    # and 102 400 bytes (not 100 000) is the file whose size / MSS is nearest 70
    assert abs(102_400 / 1460 - 70) < abs(100_000 / 1460 - 70)


def test_red_table_and_the_rule_for_ql_8() -> None:
    for ql, (lo, hi) in paper.RED_TABLE.items():
        assert paper.red_thresholds(ql) == (lo, hi)
        assert (lo, hi) == (5 * ql / 16, 15 * ql / 16)  # the rule every row follows
    assert paper.red_thresholds(8) == (2.5, 7.5)


def test_split_queue_labels() -> None:
    assert split_queue("ECN-64") == ("ECN", 64)
    assert split_queue("DT-8") == ("DT", 8)
    with pytest.raises(ValueError):
        split_queue("PIE-8")


# --- sweep files ------------------------------------------------------------


@pytest.mark.slow  # expands and checks every run of the full sweeps
@pytest.mark.parametrize(
    ("name", "runs", "delays"),
    [
        ("sweep.toml", 900, ["2ms", "5ms", "10ms", "20ms"]),
        ("quick.toml", 120, ["2ms", "20ms"]),
        ("errors.toml", 450, ["2ms", "20ms"]),
        ("errors-quick.toml", 120, ["2ms", "20ms"]),
    ],
)
def test_sweep_files_follow_the_paper(name: str, runs: int, delays: list[str]) -> None:
    sweep = load_sweep(HERE / name)
    assert len(sweep.runs) == runs
    assert list(sweep.axes[1].labels) == delays
    errors = name.startswith("errors")
    for run in sweep.runs:
        scheme, ql = split_queue(str(run.axes["queue"]))
        r = run.resolved
        q = r["topology"]["bottleneck_queue"]
        assert q["limit"] == ql
        assert r["tcp"]["ecn"] == (scheme == "ECN")
        if scheme == "DT":
            assert q["kind"] == "droptail"
        else:
            assert (q["kind"], q["min_th"], q["max_th"]) == ("red", *paper.red_thresholds(ql))
            assert (q["max_p"], q["wq"], q["gentle"], q["ecn"]) == (0.1, 0.002, True, scheme == "ECN")
        assert r["topology"]["access_corrupt"] == (0.01 if errors else 0.0)
        if errors:
            assert r["topology"]["hosts"]["s1"]["access_corrupt"] == 0.0
        flow = r["flows"][0]
        assert (flow["files"], flow["file_size"], flow["from"][0], flow["initiator"]) == (11, 102_400, "s1", "dst")
        assert r["stop_when_complete"] is True


# --- tables and the report from hand-made runs -------------------------------


def _runs() -> pd.DataFrame:
    """Two seeds of 10 clients, d = 20 ms, QL 32 and 64, each scheme, made-up metrics."""
    rows = []
    overhead = {
        ("DT", 32): 12.0,
        ("RED", 32): 9.0,
        ("ECN", 32): 5.0,
        ("DT", 64): 8.0,
        ("RED", 64): 6.0,
        ("ECN", 64): 2.0,
    }
    for seed in (1, 2):
        for (scheme, ql), ov in overhead.items():
            rows.append(
                {
                    "run": f"{scheme}-{ql}-{seed}",
                    "seed": seed,
                    "n": 10,
                    "d_ms": 20.0,
                    "scheme": scheme,
                    "ql": ql,
                    "network_overhead_pct": ov + seed,  # seeds 1 and 2: mean ov + 1.5
                    "receiver_overhead_pct": ov / 2,
                    "excess_packets": 10 * ov,
                    "acks_per_transfer": 40 + ov,
                    "tt_mean_s": 5.0 if scheme == "DT" else 5.1,
                    "tt_std_s": 1.0,
                    "transfers": 110,
                    "problems": "",
                }
            )
    return pd.DataFrame(rows)


def test_per_cell_averages_seeds() -> None:
    cells = per_cell(_runs())
    assert len(cells) == 6
    ecn64 = cells[(cells.scheme == "ECN") & (cells.ql == 64)].iloc[0]
    assert ecn64.seeds == 2
    assert ecn64.network_overhead_pct == pytest.approx(3.5)
    assert ecn64.network_overhead_pct_sd_seeds == pytest.approx(math.sqrt(0.5))
    assert list(cells.scheme[::2]) == ["DT", "RED", "ECN"]  # scheme order, then QL


def test_rule_of_thumb_compares_ecn_with_dt_at_twice_the_queue() -> None:
    rule = rule_of_thumb(per_cell(_runs()))
    assert list(rule.ql) == [32]  # DT at 128 is not in the sweep
    row = rule.iloc[0]
    assert (row["ECN@QL"], row["DT@2QL"], row["ECN<=DT@2QL"]) == (6.5, 9.5, True)
    line = rule_lines(rule, "network overhead")[0]
    assert "in 1 of 1" in line and "median -3.00" in line


def test_transfer_times_relative_to_dt() -> None:
    tt = transfer_times(per_cell(_runs()))
    assert list(tt.ql) == [32, 64]
    assert tt.ECN_vs_DT_pct.iloc[0] == pytest.approx(2.0)


def test_paper_table_lists_every_number_and_leaves_missing_cells_empty() -> None:
    table = paper_table(per_cell(_runs()), "allecn")
    absolute = table[~table.metric.str.contains("reduction")]
    assert len(absolute) == sum(1 for p in paper.PAPER if p.study == "allecn")
    # 10 clients, DT vs ECN excess packets at QL 64 are in the made-up sweep; 25 clients are not
    got = absolute.set_index(["metric", "n", "scheme"])["ecnlab"]
    assert got[("excess_packets", 10, "DT")] == 80.0
    assert got[("excess_packets", 10, "ECN")] == 20.0
    assert math.isnan(got[("excess_packets", 25, "DT")])
    red = table[table.metric.str.contains("reduction") & (table.n == 10)].iloc[0]
    assert red.ecnlab == pytest.approx(75.0)


def test_errors_table_has_a_row_per_delay_when_the_paper_gives_none() -> None:
    cells = per_cell(_runs())
    table = paper_table(cells, "allecn-errors")
    rx = table[table.metric == "receiver_overhead_pct"]
    assert len(rx) == 3 * len(cells.d_ms.unique())
    assert rx.paper_where.str.contains("delay not stated").all()


def test_ordering_line_says_whether_ecn_red_dt_holds() -> None:
    cells = per_cell(_runs())
    lines = ordering_lines(cells, ql=64)
    assert len(lines) == 1 and "10 clients" in lines[0] and "ECN < RED < DT holds" in lines[0]
    swapped = cells.copy()
    swapped.loc[swapped.scheme == "ECN", "network_overhead_pct"] = 99.0
    assert "does **not** hold" in ordering_lines(swapped, ql=64)[0]
    assert ordering_lines(cells, ql=128) == []  # no such cell


def test_report_text_has_every_part() -> None:
    cells = per_cell(_runs())
    tables = {
        "paper_vs_ecnlab": paper_table(cells, "allecn"),
        "rule_of_thumb_overhead": rule_of_thumb(cells),
        "rule_of_thumb_acks": rule_of_thumb(cells, "acks_per_transfer"),
        "transfer_times": transfer_times(cells),
        "cells": cells,
        "checks": pd.DataFrame(
            [
                {
                    "runs": 12,
                    "transfers": 1320,
                    "runs_with_accounting_problems": 0,
                    "first_problem": "",
                    "drops_outside_router_B": 0,
                }
            ]  # fmt: skip
        ),
    }
    text = report_text(tables, "allecn")
    for part in ("# The paper's numbers", "# The paper's claims", "# Checks", "# Why the numbers differ"):
        assert part in text
    assert "12 runs, 1320 transfers" in text


def test_report_text_states_no_measured_number_it_did_not_compute() -> None:
    """The fixed text quotes the paper's constants only; measured numbers live in the diagnostics' reports."""
    from ecnlab.experiments.allecn import report

    fixed = report.WHY + report.ERRORS_WHY + report.minimum_line()
    assert not re.search(r"\d{4}-\d{2}-\d{2}", fixed)
    assert f"{paper.PAPER_MIN_PACKETS} packets per transfer" in fixed
    assert not re.search(r"\d+\.\d+ ?%", fixed)

"""Distributions out of the engine: the sojourn histograms in ``sojourn.parquet`` (per queue, per
DualPI2 class, per FQ-CoDel flow), their CDF readers, and one warm-up rule for every counter."""

from __future__ import annotations

from pathlib import Path

import pytest

import ecnlab
from conftest import SCENARIOS
from ecnlab.distributions import SOJOURN_FILE, cdf, fct_cdf, read_sojourn, rtt_cdf, sojourn_cdf

PRAGUE = SCENARIOS / "dumbbell-prague.toml"  # 2 Prague + 2 CUBIC flows through DualPI2
SHORT = {"duration": "3s", "warmup": "1s", "sample_interval": "50ms"}
BOTTLENECK = "R1->R2"


def _run(tmp_path: Path, name: str, **overrides: object) -> tuple[Path, dict]:  # type: ignore[type-arg]
    out = tmp_path / name
    result = ecnlab.run(PRAGUE, overrides={**SHORT, **overrides}, out=out)
    return out, result.summary


@pytest.fixture(scope="module")
def dualpi2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:  # type: ignore[type-arg]
    return _run(tmp_path_factory.mktemp("dist"), "dualpi2")


@pytest.fixture(scope="module")
def fq_codel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:  # type: ignore[type-arg]
    return _run(tmp_path_factory.mktemp("dist"), "fq", **{"topology.bottleneck_queue": {"kind": "fq_codel"}})


def _queue(summary: dict, link: str) -> dict:  # type: ignore[type-arg]
    return next(q for q in summary["queues"] if q["link"] == link)


@pytest.mark.engine
def test_each_histogram_counts_exactly_the_packets_dequeued_after_the_warmup(dualpi2: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    out, summary = dualpi2
    hist = read_sojourn(out)
    q = _queue(summary, BOTTLENECK)
    at = hist[hist["link"] == BOTTLENECK]
    whole = at[at["class"].isna() & at["flow"].isna()]
    assert int(whole["count"].sum()) == q["dequeued_after_warmup"] > 0
    assert q["dequeued_after_warmup"] < q["dequeued"]  # the warm-up's packets are left out
    for c in q["classes"]:
        rows = at[at["class"] == c["name"]]
        assert int(rows["count"].sum()) == c["dequeued_after_warmup"], c["name"]
    assert set(at["class"].dropna()) == {"L", "C"}
    assert "summary.json" in {p.name for p in out.iterdir()} and (out / SOJOURN_FILE).is_file()


@pytest.mark.engine
def test_the_cdf_reads_the_summary_percentiles_off_the_same_buckets(dualpi2: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    out, summary = dualpi2
    q = _queue(summary, BOTTLENECK)
    c = sojourn_cdf(out)
    whole = c[(c["link"] == BOTTLENECK) & c["class"].isna() & c["flow"].isna()]
    assert whole["fraction"].is_monotonic_increasing and whole["fraction"].iloc[-1] == pytest.approx(1.0)
    assert whole["value"].iloc[-1] == pytest.approx(q["sojourn_max_ms"])
    for p, key in ((0.5, "sojourn_p50_ms"), (0.99, "sojourn_p99_ms")):
        first_at = whole[whole["fraction"] >= p]["value"].iloc[0]  # HDR: the first bucket reaching p
        assert first_at == pytest.approx(q[key]), key
    for (link, klass, flow), g in c.groupby(["link", "class", "flow"], dropna=False):
        assert g["fraction"].iloc[-1] == pytest.approx(1.0), (link, klass, flow)


@pytest.mark.engine
def test_a_per_flow_queue_keeps_one_histogram_per_flow(fq_codel: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    out, summary = fq_codel
    at = read_sojourn(out).query("link == @BOTTLENECK")
    flows = at[at["flow"].notna()]
    assert set(flows["flow"]) == {f["id"] for f in summary["flows"]}
    assert at["class"].isna().all()
    whole = at[at["flow"].isna()]
    assert (
        int(flows["count"].sum()) == int(whole["count"].sum()) == _queue(summary, BOTTLENECK)["dequeued_after_warmup"]
    )


@pytest.mark.engine
def test_every_counter_has_a_steady_state_value_below_its_whole_run_value(dualpi2: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    _, summary = dualpi2
    checked = 0
    for kind in ("flows", "queues"):
        for rec in summary[kind]:
            for key, value in rec.items():
                if key.endswith("_after_warmup"):
                    whole = rec[key.removesuffix("_after_warmup")]
                    assert 0 <= value <= whole, (kind, key)
                    checked += 1
    q = _queue(summary, BOTTLENECK)
    assert q["marks_after_warmup"] < q["marks"]  # slow start's marks fall in the first second
    f = summary["flows"][0]
    assert 0 < f["bytes_delivered_after_warmup"] < f["bytes_delivered"]
    assert checked > 50


@pytest.mark.engine
def test_without_a_warmup_the_steady_state_is_the_whole_run(tmp_path: Path) -> None:
    out, summary = _run(tmp_path, "cold", warmup="0s")
    q = _queue(summary, BOTTLENECK)
    assert q["marks_after_warmup"] == q["marks"] and q["dequeued_after_warmup"] == q["dequeued"]
    assert int(read_sojourn(out).query("link == @BOTTLENECK and `class`.isna()")["count"].sum()) == q["dequeued"]
    for f in summary["flows"]:
        assert (
            f["retransmits_after_warmup"] == f["retransmits"]
            and f["bytes_delivered_after_warmup"] == f["bytes_delivered"]
        )


@pytest.mark.engine
def test_the_histograms_are_byte_identical_for_the_same_seed(dualpi2: tuple[Path, dict], tmp_path: Path) -> None:  # type: ignore[type-arg]
    out, _ = dualpi2
    again, _ = _run(tmp_path, "again")
    assert (again / SOJOURN_FILE).read_bytes() == (out / SOJOURN_FILE).read_bytes()


@pytest.mark.engine
def test_rtt_samples_and_completion_times_get_the_same_cdf_reader(dualpi2: tuple[Path, dict], tmp_path: Path) -> None:  # type: ignore[type-arg]
    out, summary = dualpi2
    rtt = rtt_cdf(out)
    assert set(rtt["flow"]) == {f["id"] for f in summary["flows"]}
    assert rtt["value"].min() >= 40.0  # the path's 44 ms base RTT, never less
    short, done = _run(tmp_path, "short", **{"flows.0.bytes": 200_000, "flows.1.bytes": 200_000})  # all finish
    fct = fct_cdf(short)
    assert list(fct["entry"].unique()) == ["prague", "cubic"]
    want = sorted(f["completion_time_s"] - f["start_s"] for f in done["flows"] if f["id"].startswith("prague"))
    assert list(fct[fct["entry"] == "prague"]["value"]) == pytest.approx(want)


def test_cdf_weights_each_value_by_its_count() -> None:
    c = cdf([3.0, 1.0, 2.0, 1.0], [1, 2, 1, 0])
    assert list(c["value"]) == [1.0, 2.0, 3.0] and list(c["fraction"]) == pytest.approx([0.5, 0.75, 1.0])

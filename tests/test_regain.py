"""The time to regain W_max after a window reduction (``ecnlab.analysis.regain``): the one
definition on constructed cwnd series, RFC 9438's closed form, and an engine run against it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import ecnlab
from ecnlab.analysis.regain import (
    BETA,
    C,
    closed_form_regain_s,
    cubic_k_s,
    frame_reductions,
    median_regain_s,
    reductions,
)


def _series(points: list[tuple[float, float]], step: float = 0.1) -> tuple[list[float], list[float]]:
    """A cwnd series sampled every ``step`` s, linear between the given (t, cwnd) corners."""
    ts, ws = [], []
    for (t0, w0), (t1, w1) in zip(points, points[1:], strict=False):
        n = round((t1 - t0) / step)
        for k in range(n):
            ts.append(round(t0 + k * step, 9))
            ws.append(w0 + (w1 - w0) * k / n)
    ts.append(points[-1][0])
    ws.append(points[-1][1])
    return ts, ws


def test_a_reduction_over_several_samples_is_one_and_regains_at_the_first_sample_at_w_max():
    # Up to 100 at 1 s; down to 70 over 0.3 s (PRR brings cwnd down over about an RTT);
    # back up through 100 at 4.3 s.
    t, w = _series([(0, 50), (1.0, 100), (1.3, 70), (4.3, 100), (5.0, 110)])
    (r,) = reductions(t, w, flow="f")
    assert (r.flow, r.w_max, r.trough) == ("f", 100, 70)
    assert r.t_drop == pytest.approx(1.1), "the first sample that shows the fall"
    assert r.regain_s == pytest.approx(4.3 - 1.1)


def test_no_regain_when_reduced_again_first_or_the_samples_end():
    t, w = _series([(0, 100), (0.2, 70), (2.0, 95), (2.2, 66), (4.0, 90)])
    first, second = reductions(t, w)
    assert first.regain_s is None, "reduced again at 95 < 100"
    assert second.w_max == pytest.approx(95) and second.regain_s is None, "the samples end at 90 < 95"
    assert median_regain_s([first, second]) is None


def test_small_dips_are_not_reductions_and_do_not_stop_the_regain():
    # A 5 % dip on the way back (a sampling wobble, an application-limited moment) is not one.
    t, w = _series([(0, 100), (0.2, 70), (1.0, 90), (1.1, 85.5), (2.0, 100)])
    (r,) = reductions(t, w)
    assert r.regain_s == pytest.approx(2.0 - 0.1)
    assert reductions(t, w, min_drop=0.04)[1].w_max == pytest.approx(90)
    with pytest.raises(ValueError, match="min_drop"):
        reductions(t, w, min_drop=0)


def test_growth_that_plateaus_before_w_max_is_not_a_regain():
    t, w = _series([(0, 100), (0.2, 70), (3.0, 99.9), (6.0, 99.9)])
    assert reductions(t, w)[0].regain_s is None


def test_median_over_the_reductions_that_regained():
    t, w = _series([(0, 100), (0.1, 70), (2.1, 100), (3.0, 120), (3.1, 84), (4.1, 120), (5.0, 130), (5.1, 91)])
    reds = reductions(t, w)
    assert [r.regain_s for r in reds] == [pytest.approx(2.0), pytest.approx(1.0), None]
    assert median_regain_s(reds) == pytest.approx(1.5)


def test_closed_form_is_rfc_9438_k():
    """K = ∛(W_max·(1 − β)/C) when cwnd_epoch = β·W_max (RFC 9438 §4.2 eq. 2)."""
    assert cubic_k_s(100, 70) == pytest.approx(math.cbrt(100 * (1 - BETA) / C))
    assert cubic_k_s(100, 70) == pytest.approx(4.217, abs=1e-3)
    # Long RTT: the cubic curve is the earlier; one RTT of reduction first.
    assert closed_form_regain_s(100, 70, 100, 0.1) == pytest.approx(0.1 + 4.217, abs=1e-3)
    # Fast convergence: W_max = 0.85·W, so W itself is crossed K + ∛(0.15·W/C) after the epoch.
    fc = closed_form_regain_s(100, 70, 85, 0.2)
    assert fc == pytest.approx(0.2 + 2 * math.cbrt(15 / C), abs=1e-6)
    # Short RTT: the Reno-friendly estimate (α ≈ 0.529 segments per RTT) gets there first.
    assert closed_form_regain_s(100, 70, 100, 0.01) == pytest.approx(0.01 + 30 / 0.5294 * 0.01, rel=1e-3)


def _cubic_series(w: float, rtt: float, step: float, until: float) -> list[tuple[float, float, float]]:
    """(t, cwnd, ssthresh) of a window reduced from w at t = 1 s, one RTT of reduction, then
    RFC 9438's curve through W_max = w (no fast convergence)."""
    rows = []
    k = cubic_k_s(w, BETA * w)
    for i in range(round(until / step)):
        t = i * step
        if t < 1.0:
            rows.append((t, w, math.nan))
        elif t < 1.0 + rtt:
            rows.append((t, BETA * w, BETA * w))
        else:
            rows.append((t, C * (t - 1.0 - rtt - k) ** 3 + w, BETA * w))
    return rows


def test_frame_reductions_reads_the_flow_table_and_matches_the_closed_form():
    rows = _cubic_series(200, 0.1, 0.01, 12.0)
    frame = pd.DataFrame(
        {
            "flow": "a",
            "t_s": [r[0] for r in rows],
            "cwnd_bytes": [r[1] * 1000 for r in rows],
            "ssthresh_bytes": [r[2] * 1000 for r in rows],
            "srtt_ms": 100.0,
        }
    )
    (r,) = frame_reductions(frame, mss=1000)
    assert r.cubic_w_max == pytest.approx(200) and r.ssthresh == pytest.approx(140)
    assert r.regain_s == pytest.approx(r.closed_form_s, abs=0.02)
    assert frame_reductions(frame, mss=1000, after_s=2.0) == []


@pytest.mark.engine
def test_engine_cubic_regains_w_max_as_the_closed_form_says():
    """One CUBIC flow on a path far longer than its window (so the RTT stays put), two scripted
    losses: the first ends slow start (cwnd ≈ 400 segments, grown and cut between two samples),
    the second comes in congestion avoidance below that W_max, so fast convergence leaves CUBIC's
    W_max at 0.85·W. ecnlab's regain time is RFC 9438's within a few per cent."""
    from test_cubic import SCENARIO

    drop = SCENARIO["faults"][0]
    sc = {**SCENARIO, "duration": "20s", "sample_interval": "10ms", "faults": [drop, {**drop, "nth": 10000}]}
    res = ecnlab.run(sc)
    (r,) = frame_reductions(res.flow_timeseries, mss=1000)
    assert r.cubic_w_max == pytest.approx(r.w_max * (1 + BETA) / 2, rel=0.01), "fast convergence"
    assert r.regain_s is not None and r.closed_form_s is not None
    assert r.regain_s == pytest.approx(r.closed_form_s, rel=0.02), r


def test_cubic_w_max_follows_linux_integer_windows_and_double_reductions():
    """Linux keeps cwnd and ssthresh in whole segments (ssthresh = ⌊cwnd·717/1024⌋): a flow
    reduced at 101 segments every time leaves ssthresh 70 every time (70/β = 100 is short of
    101) and, 101 not being below 101, never fast convergence. A double reduction (a second
    mark one RTT into the first: 377 → 264 → 184) is two reductions, the second below the
    first's W_max, so fast convergence: W_max = 263·(1 + β)/2."""
    cycle = [(0.0, 101), (0.1, 70), (3.0, 101), (3.1, 101)]
    rows = [(k * 3.1 + t, w) for k in range(3) for t, w in cycle]
    t, w = _series(rows, step=0.01)
    sst = [None if x < 0.1 else 70.0 for x in t]
    reds = reductions(t, w, ssthresh=sst, srtt_s=[0.12] * len(t))
    assert len(reds) == 3 and all(r.cubic_w_max == 101 for r in reds), [r.cubic_w_max for r in reds]
    t, w = _series([(0, 377), (0.09, 264), (0.18, 184), (1.0, 200)], step=0.01)
    sst = [None if x < 0.01 else 264.0 if x < 0.1 else 184.0 for x in t]
    (r,) = reductions(t, w, ssthresh=sst)
    assert r.w_max == 377 and r.trough == 184
    assert r.cubic_w_max == pytest.approx(184 / BETA * (1 + BETA) / 2)


def test_frame_reductions_counts_whole_segments():
    """A simulated window 101.6 segments before the fall has W_max 101 and has regained it at
    101.2: the sender can have whole segments in flight only."""
    frame = pd.DataFrame(
        {
            "flow": "a",
            "t_s": [0.0, 0.1, 0.2, 0.3, 0.4],
            "cwnd_bytes": [101.6 * 1460, 71.1 * 1460, 90.0 * 1460, 100.9 * 1460, 101.2 * 1460],
            "ssthresh_bytes": [None, 71.1 * 1460, 71.1 * 1460, 71.1 * 1460, 71.1 * 1460],
            "srtt_ms": 100.0,
        }
    )
    (r,) = frame_reductions(frame, mss=1460)
    assert (r.w_max, r.trough) == (101, 71) and r.regain_s == pytest.approx(0.3)
    assert r.cubic_w_max == pytest.approx(101.571, abs=1e-3), "ssthresh/β, above the rounded-down sample"

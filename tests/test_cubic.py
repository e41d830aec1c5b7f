"""CUBIC (RFC 9438) in the engine: after one loss, one flow's cwnd (the run's time series)
follows the closed form W_cubic(t) = C·(t − K)³ + W_max, K = ∛(W_max·(1 − β)/C), from
β·W_max through W_max at t = K into the convex region. The rule-by-rule tests are in
crates/tcp/src/cc/cubic.rs; this one checks the seam feeds them (bytes acknowledged, RTT,
the reduction) as a run does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ecnlab

pytestmark = pytest.mark.engine

C, BETA = 0.4, 0.7

# 100 Mbit/s, 104 ms RTT: BDP 1300 segments, far above the window, so the RTT stays constant
# and the only reduction is the scripted drop (the 400th data packet, in slow start).
SCENARIO = {
    "name": "cubic-one-loss",
    "duration": "14s",
    "sample_interval": "50ms",
    "topology": {
        "kind": "dumbbell",
        "pairs": 1,
        "access_rate": "1Gbit",
        "access_delay": "1ms",
        "bottleneck_rate": "100Mbit",
        "bottleneck_delay": "50ms",
        "bottleneck_queue": {"kind": "droptail", "limit": 10000},
    },
    "tcp": {"recovery": "sack", "cc": "cubic", "rwnd": "64MiB", "mss": 1000},
    "flows": [{"name": "f", "kind": "bulk", "from": "s1", "to": "r1"}],
    "faults": [{"link": "R1->R2", "flow": "f", "action": "drop", "nth": 400}],
}


def test_cwnd_after_a_loss_follows_the_closed_form(tmp_path: Path) -> None:
    res = ecnlab.run(SCENARIO, out=tmp_path / "r")
    flow = res.summary["flows"][0]
    assert (flow["cc"], flow["recovery"], flow["fast_retransmits"], flow["timeouts"]) == ("cubic", "sack", 1, 0)
    s = res.flow_timeseries
    t = s["t_s"].to_numpy()
    w = s["cwnd_bytes"].to_numpy() / 1000
    reduced = s["ssthresh_bytes"].notna().to_numpy()
    t_red = t[reduced][0]
    ssthresh = s["ssthresh_bytes"].dropna().iloc[0] / 1000
    w_max = ssthresh / BETA  # RFC 9438 §4.6: ssthresh = β·FlightSize, and FlightSize = cwnd = W_max here
    k = (w_max * (1 - BETA) / C) ** (1 / 3)
    rtt = s["srtt_ms"].dropna().iloc[-1] / 1000
    window = (t > t_red + 0.5) & (t < t_red + k + 5)

    def error(t0: float) -> float:
        curve = C * (t[window] - t0 - k) ** 3 + w_max
        return float(np.abs(w[window] - curve).max())

    # The epoch starts at the first ACK after recovery, within a few RTTs of the reduction.
    starts = np.arange(t_red - 0.05, t_red + 3 * rtt, 0.005)
    best = min(starts, key=error)
    assert error(best) <= 0.01 * w_max, (best, error(best))
    assert t_red <= best <= t_red + 3 * rtt
    assert w[t > best + k + 4].min() > w_max * 1.05, "convex growth beyond W_max"


@pytest.mark.parametrize(("cc", "beta", "beta_ecn"), [("reno", 0.5, 0.8), ("cubic", BETA, 0.85)])
def test_abe_backs_off_by_beta_ecn_on_a_mark(cc: str, beta: float, beta_ecn: float) -> None:
    """RFC 8511 (tcp.abe): an ECN-Echo leaves FlightSize·β_ecn (0.8 Reno, 0.85 CUBIC) where
    the loss response leaves FlightSize·β; the same run up to the mark, so the same FlightSize."""
    ssthresh = {}
    for abe in (False, True):
        sc = {**SCENARIO, "tcp": {**SCENARIO["tcp"], "cc": cc, "ecn": True, "abe": abe}, "duration": "3s"}
        sc["faults"] = [{**SCENARIO["faults"][0], "action": "mark"}]
        res = ecnlab.run(sc)
        assert res.summary["flows"][0]["ecn_reductions"] == 1
        ssthresh[abe] = res.flow_timeseries["ssthresh_bytes"].dropna().iloc[0]
    assert ssthresh[True] / ssthresh[False] == pytest.approx(beta_ecn / beta, rel=0.01)

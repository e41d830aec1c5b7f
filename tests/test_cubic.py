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
from conftest import ROOT

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


@pytest.mark.engine
def test_one_flow_recovers_after_a_timeout_under_a_latched_ece() -> None:
    """A regression (crates/tcp/src/recovery.rs, module doc): one CUBIC flow over RED+ECN
    overshoots in slow start, times out with 478 kB in flight, and resends it go-back-N.
    The receiver echoes ECE until new data brings CWR (RFC 3168 §6.1.3), which the
    retransmissions do not carry; with growth forbidden on every ECE ACK the flow sat at
    one segment per RTT for 17 s (0.14 Mbit/s). After a timeout the window slow-starts
    on ECE ACKs too."""
    res = ecnlab.run(ROOT / "scenarios" / "dumbbell-cubic.toml", overrides=["topology.pairs=1", "duration=20s"])
    (flow,) = res.summary["flows"]
    assert flow["timeouts"] >= 1 and flow["ecn_reductions"] >= 1
    assert flow["goodput_bps"] > 2e6, flow["goodput_bps"]


@pytest.mark.parametrize("mode", ["linux", "hystart++"])
def test_hystart_ends_slow_start_before_the_buffer_overflows(mode: str) -> None:
    """Linux's HyStart (`tcp_cubic.c`) and HyStart++ (RFC 9406) leave slow start when the
    RTT grows, before a 1000-packet drop-tail buffer overflows; without them the slow start
    of one CUBIC flow (10 Mbit/s, 84 ms) overshoots into thousands of drops and two timeouts."""
    over = [
        "topology.pairs=1",
        "duration=20s",
        "tcp.ecn=false",
        'topology.bottleneck_queue={kind="droptail",limit=1000}',
    ]
    base = ROOT / "scenarios" / "dumbbell-cubic.toml"
    (off,) = ecnlab.run(base, overrides=[*over, 'tcp.hystart="off"']).summary["flows"]
    (on,) = ecnlab.run(base, overrides=[*over, f'tcp.hystart="{mode}"']).summary["flows"]
    assert off["pkts_dropped"] > 1000 and off["timeouts"] >= 1
    assert on["pkts_dropped"] < off["pkts_dropped"] / 10, (on["pkts_dropped"], off["pkts_dropped"])
    assert on["timeouts"] == 0 and on["goodput_bps"] > 9.5e6


def test_linux_personality_turns_hystart_on_for_cubic_only() -> None:
    from ecnlab.config import load_scenario

    base = ROOT / "scenarios" / "dumbbell-cubic.toml"
    assert load_scenario(base, ['tcp.personality="linux"']).flows[0].tcp.hystart == "linux"
    assert load_scenario(base, []).flows[0].tcp.hystart == "off"
    given = load_scenario(base, ['tcp.personality="linux"', 'tcp.hystart="hystart++"'])
    assert given.flows[0].tcp.hystart == "hystart++"
    reno = load_scenario(base, ['tcp.personality="linux"', 'tcp.cc="reno"'])
    assert reno.flows[0].tcp.hystart == "off"


def test_hystart_with_another_cc_is_refused_naming_the_key() -> None:
    from ecnlab.config import load_scenario
    from ecnlab.errors import ScenarioError

    with pytest.raises(ScenarioError) as e:
        load_scenario(ROOT / "scenarios" / "dumbbell-cubic.toml", ['tcp.cc="reno"', 'tcp.hystart="linux"'])
    assert "tcp.hystart" in str(e.value) and "cc = cubic" in str(e.value), str(e.value)


def _regain_after_the_loss(arith: str) -> tuple[float, float]:
    """The one-loss run with ``tcp.cubic_arith``: (seconds from the reduction until cwnd is
    back at the window before it, RFC 9438's K for that reduction)."""
    sc = {**SCENARIO, "tcp": {**SCENARIO["tcp"], "cubic_arith": arith}, "sample_interval": "10ms"}
    s = ecnlab.run(sc).flow_timeseries
    t = s["t_s"].to_numpy()
    w = np.floor(s["cwnd_bytes"].to_numpy() / 1000)
    i = int(np.argmax(s["ssthresh_bytes"].notna().to_numpy()))
    # The window reduced (slow start's last, between two samples): ssthresh = β·W (RFC 9438
    # §4.6; Linux ⌊W·717/1024⌋, within a segment of it).
    w_max = np.floor(s["ssthresh_bytes"].iloc[i] / 1000 / BETA)
    k = (w_max * (1 - BETA) / C) ** (1 / 3)
    back = np.nonzero((t > t[i] + 0.5) & (w >= w_max))[0]
    return float(t[back[0]] - t[i]), k


def test_linux_arithmetic_regains_w_max_before_k() -> None:
    """`tcp.cubic_arith = "linux"` (crates/tcp/src/cc/cubic_linux.rs): tcp_cubic.c's target
    is a whole number of segments, origin − ⌊C·(K − t)³⌋, so it equals W_max once C·(K − t)³ < 1,
    ∛(1/C) ≈ 1.36 s before K, and the whole window is back about then (K − 1.25 s here). RFC
    9438's real-valued window closes on W_max along the flat part of the curve and has the
    last whole segment only after K (K + 0.9 s here)."""
    rfc, k = _regain_after_the_loss("rfc9438")
    linux, _ = _regain_after_the_loss("linux")
    assert k <= rfc <= k + 1.4, (rfc, k)
    assert k - 1.5 <= linux <= k - 0.9, (linux, k)


def test_linux_personality_uses_linux_cubic_arithmetic() -> None:
    from ecnlab.config import load_scenario

    base = ROOT / "scenarios" / "dumbbell-cubic.toml"
    assert load_scenario(base, ['tcp.personality="linux"']).flows[0].tcp.cubic_arith == "linux"
    assert load_scenario(base, []).flows[0].tcp.cubic_arith == "rfc9438"
    given = load_scenario(base, ['tcp.personality="linux"', 'tcp.cubic_arith="rfc9438"'])
    assert given.flows[0].tcp.cubic_arith == "rfc9438"


@pytest.mark.parametrize("arith", ["rfc9438", "linux"])
def test_time_series_carry_w_max_and_the_epoch(arith: str) -> None:
    """The flow series' `cubic_w_max_segments` and `cubic_epoch_s`: W_max is 0
    until the loss, then the reduced window (ssthresh = β·W_max, whole segments with Linux's
    arithmetic); the epoch is null from the reduction until growth resumes after recovery,
    then starts within a few RTTs of it and stays put until the next reduction."""
    sc = {**SCENARIO, "tcp": {**SCENARIO["tcp"], "cubic_arith": arith}, "duration": "4s", "sample_interval": "10ms"}
    s = ecnlab.run(sc).flow_timeseries
    red = int(np.argmax(s["ssthresh_bytes"].notna().to_numpy()))
    w_max, epoch = s["cubic_w_max_segments"].to_numpy(), s["cubic_epoch_s"].to_numpy()
    assert (w_max[:red] == 0).all()
    assert w_max[-1] == pytest.approx(s["ssthresh_bytes"].iloc[red] / 1000 / BETA, abs=1.5)
    if arith == "linux":
        assert w_max[-1] == int(w_max[-1])
    after = epoch[red:]
    started = int(np.argmax(~np.isnan(after)))
    t_red = s["t_s"].iloc[red]
    assert np.isnan(after[0]) and t_red < after[started] < t_red + 0.5
    assert (after[started:] == after[started]).all(), "one epoch until the next reduction"

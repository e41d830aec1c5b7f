"""Emulate's per-flow ``TCP_INFO`` samples (``ecnlab.emu.traffic.Sampler``): real Linux CUBIC
through ecnlab's RED with ECN, its cwnd sampled on the run's grid into the simulator's flow
time series, and the window reductions and regain times read from it
(``ecnlab.analysis.regain``); real Linux BBR's own model (``TCP_CC_INFO``) in the same series.
Needs root (network namespaces, TUN devices)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ecnlab.analysis.regain import frame_reductions
from ecnlab.bench.fidelity import Point, scenario
from ecnlab.emu import emulate
from ecnlab.emu.netns import leftovers
from ecnlab.timeseries import EMU_FLOW_COLUMNS, read_flows

pytestmark = [
    pytest.mark.emulation,
    pytest.mark.skipif(os.geteuid() != 0, reason="live emulation needs root (network namespaces, TUN devices)"),
]

EVERY_S = 0.01


def test_tcp_info_samples_keep_to_the_grid_and_show_cubics_reductions(tmp_path: Path) -> None:
    # One CUBIC flow, 10 Mbit/s, 20 ms, RED+ECN: a reduction every ~1.7 s after slow start.
    sc = scenario(Point(10, 20, 1, "red", True, cc="cubic"), 10, 2)
    sc["sample_interval"] = EVERY_S
    sc["output"] = {"timeseries_flows": ["*"]}
    try:
        res = emulate(sc, out=tmp_path / "out")
    finally:
        assert leftovers(os.getpid()) == []
    s = read_flows(tmp_path / "out")
    assert list(s.columns) == ["flow", "t_s", *EMU_FLOW_COLUMNS]
    assert s["bbr_bw_bps"].isna().all() and (s["pacing_rate_bps"].dropna() > 0).all(), "CUBIC: no BBR model"
    t = s["t_s"].to_numpy()
    assert t[0] >= 0 and np.all(np.diff(t) > 0)
    # On the grid t0 + k·interval: the send loop wakes for each sample, so a sample is late by
    # the wake-up latency, not by up to a blocked send's timeout (20 ms) as before.
    late = t - np.floor(t / EVERY_S + 1e-9) * EVERY_S
    assert np.median(late) < 0.002, np.percentile(late, [50, 90, 99])
    assert len(t) >= 0.8 * 10 / EVERY_S, "about one sample per interval"
    info = res.summary["emulation"]["flows"]["bulk"]["tcp_info"]
    mss = info["snd_mss"]
    assert 1400 <= mss <= 1460 and np.all(s["cwnd_bytes"] % mss == 0), "cwnd = tcpi_snd_cwnd · tcpi_snd_mss"
    assert info["busy_time_us"] > 0 and info["snd_wnd"] > 0
    reds = frame_reductions(s, mss=mss, after_s=2)
    assert len(reds) >= 2, reds
    for r in reds:
        assert 0.6 <= r.trough / r.w_max <= 0.8, f"CUBIC's β = 0.7: {r}"
        assert r.ssthresh is not None and r.cubic_w_max is not None
    assert any(r.regain_s is not None and 0.2 < r.regain_s < 8 for r in reds), reds


def test_bbr_samples_hold_the_kernels_bandwidth_estimate_near_the_links_payload_rate(tmp_path: Path) -> None:
    # One BBR flow, 10 Mbit/s, 20 ms: after STARTUP the filter holds the bottleneck's payload rate
    # (1448 of each 1500-byte packet), min_rtt the base RTT plus a little, the gains PROBE_BW's.
    sc = scenario(Point(10, 20, 1, "red", True, cc="bbr"), 10, 3)
    sc["sample_interval"] = EVERY_S
    sc["output"] = {"timeseries_flows": ["*"]}
    try:
        emulate(sc, out=tmp_path / "out")
    finally:
        assert leftovers(os.getpid()) == []
    s = read_flows(tmp_path / "out")
    after = s[s["t_s"] > 3]
    payload_bps = 10e6 * 1448 / 1500
    bw = after["bbr_bw_bps"].to_numpy(dtype=float) / payload_bps
    assert 0.97 < np.median(bw) < 1.05, np.percentile(bw, [1, 50, 99])
    rtt = after["bbr_min_rtt_ms"].to_numpy(dtype=float)
    assert np.all((rtt >= 20) & (rtt < 30)), (rtt.min(), rtt.max())
    gains = set(after["bbr_pacing_gain"].round(4))
    assert {1.25, 0.75, 1.0} <= gains, gains
    # bbr_set_pacing_rate: gain · bw less the 1 % margin (TCP_INFO and TCP_CC_INFO are two calls:
    # an ACK between them may move the estimate, so most samples, not all)
    cruise = after[after["bbr_pacing_gain"] == 1.0]
    rate = cruise["pacing_rate_bps"].to_numpy(dtype=float) / cruise["bbr_bw_bps"].to_numpy(dtype=float)
    assert np.mean(np.abs(rate - 0.99) < 0.005) > 0.95, np.percentile(rate, [1, 50, 99])

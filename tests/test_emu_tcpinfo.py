"""The emulator's view of a Linux sender (``ecnlab.emu.tcpinfo``, ``ecnlab.emu.traffic.Sampler``):
``TCP_INFO``'s pacing rate and Linux BBR's own model (``TCP_CC_INFO``, ``bbr_get_info`` in
net/ipv4/tcp_bbr.c) on a loopback connection, and the flow table they fill
(``timeseries.from_flow_rows``). Needs a kernel with ``tcp_bbr`` (skipped otherwise)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ecnlab.emu.tcpinfo import BBR_UNIT, bbr_info, tcp_info
from ecnlab.emu.traffic import Sampler
from ecnlab.timeseries import EMU_FLOW_COLUMNS, FLOW_COLUMNS, FLOWS_FILE, from_flow_rows

#: BBR's pacing gains (tcp_bbr.c): STARTUP's bbr_high_gain = BBR_UNIT · 2885 / 1000 + 1, DRAIN's
#: bbr_drain_gain = BBR_UNIT · 1000 / 2885, PROBE_BW's cycle 5/4, 3/4, 1, and PROBE_RTT's 1.
BBR_GAINS = {(BBR_UNIT * 2885 // 1000 + 1) / BBR_UNIT, (BBR_UNIT * 1000 // 2885) / BBR_UNIT, 1.25, 0.75, 1.0}


def _available(cc: str) -> bool:
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        return cc in f.read().split()


pytestmark = pytest.mark.skipif(not _available("bbr"), reason="the kernel has no tcp_bbr")


@contextmanager
def _sending(cc: str, nbytes: int) -> Iterator[socket.socket]:
    """A loopback connection whose client, with congestion control ``cc``, has sent ``nbytes``
    and seen them acknowledged; the server reads everything."""
    srv = socket.create_server(("127.0.0.1", 0))
    got = threading.Event()

    def drain() -> None:
        conn, _ = srv.accept()
        with conn:
            left = nbytes
            while left > 0 and (data := conn.recv(1 << 16)):
                left -= len(data)
            got.set()
            conn.recv(1)  # until the client closes

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        cli.connect(srv.getsockname())
        cli.sendall(b"\x5a" * nbytes)
        assert got.wait(10), "the server read everything"
        deadline = time.monotonic() + 5
        while tcp_info(cli)["unacked"] and time.monotonic() < deadline:
            time.sleep(0.001)
        yield cli
    finally:
        cli.close()
        t.join(5)
        srv.close()


def test_bbr_info_reports_a_bandwidth_min_rtt_and_one_of_bbrs_gains() -> None:
    with _sending("bbr", 4 << 20) as s:
        b = bbr_info(s)
        info = tcp_info(s)
    assert b.bw_bps > 0
    # Both take the same RTT samples (tcp_clean_rtx_queue's ca_rtt_us); BBR keeps the least of
    # 10 s (bbr_update_min_rtt), TCP of 5 minutes (tcp_update_rtt_min), so never less than TCP's.
    assert info["min_rtt_us"] <= b.min_rtt_us < 1_000_000, (b, info["min_rtt_us"])
    assert b.pacing_gain in BBR_GAINS, b
    assert b.cwnd_gain in BBR_GAINS | {2.0}, b
    # bbr_set_pacing_rate: pacing_gain · bw less the 1 % margin, except in STARTUP, where the
    # rate only rises (bbr_init_pacing_rate from the handshake's RTT) while bw may lag it.
    if b.pacing_gain <= 1.25:
        assert info["pacing_rate"] * 8 == pytest.approx(b.pacing_gain * b.bw_bps * 0.99, rel=0.02)


def test_sampler_rows_carry_the_pacing_rate_and_bbrs_model_only_for_bbr() -> None:
    for cc, bbr in (("bbr", True), ("cubic", False)):
        with _sending(cc, 1 << 20) as s:
            sampler = Sampler(time.monotonic(), 0.01, bbr=bbr)
            sampler.poll(s)
        (row,) = sampler.rows
        assert len(row) == 1 + len(EMU_FLOW_COLUMNS)
        named = dict(zip(EMU_FLOW_COLUMNS, row[1:], strict=True))
        pacing = named["pacing_rate_bps"]
        assert pacing is not None and pacing > 0, (cc, named)
        model = [named[c] for c in ("bbr_bw_bps", "bbr_min_rtt_ms", "bbr_pacing_gain")]
        if bbr:
            assert all(v is not None and v > 0 for v in model), named
        else:
            assert model == [None, None, None], named


def test_flow_table_has_the_emulators_columns_and_leaves_missing_ones_null() -> None:
    short = [0.0, 14480, None, 20.5, 14480, 0]
    full = [0.01, 28960, None, 21.0, 28960, 1448, 9_600_000, 9_700_000, 20.1, 1.25]
    table = from_flow_rows({"a": [short], "b": [full]})[FLOWS_FILE]
    assert table.column_names == ["flow", "t_s", *EMU_FLOW_COLUMNS]
    assert EMU_FLOW_COLUMNS[: len(FLOW_COLUMNS)] == FLOW_COLUMNS
    rows = table.to_pylist()
    assert [rows[0][c] for c in EMU_FLOW_COLUMNS[len(FLOW_COLUMNS) :]] == [None] * 4
    assert rows[1]["bbr_bw_bps"] == 9_700_000 and rows[1]["bbr_pacing_gain"] == 1.25

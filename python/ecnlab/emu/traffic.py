"""The emulation's traffic: one small program, run inside a host's namespace
(``python -m ecnlab.emu.traffic '<json>'``), for each end of each flow.

Roles (``role``): ``listen`` (bind, print ``{"listening": port}``, accept) or
``connect``; the data direction is given by ``sends``. Applications
(``app.kind``), all bounded by ``deadline`` (monotonic seconds; CLOCK_MONOTONIC
is shared by all namespaces; ``netns`` only tags the command line):

- ``bulk``: one connection; the source sends until ``bytes`` or the end of
  the run; the sink counts bytes, noting the count at warm-up and at the end.
- ``serial``: ``files`` connections one after another, ``file_bytes`` each
  (source → sink), ``gap`` between.
- ``request_response``: per transaction one connection: the sink (client)
  sends ``request_bytes``, the source answers ``response_bytes`` and closes
  (netperf TCP_CRR).
- ``web``: HTTP/1.0-style sessions drawn from the simulator's web model
  (:mod:`ecnlab.emu.webtraffic`; the source is the server).

Each process prints one JSON line of results: bytes, times, the handshakes (the
initiator's ``connect_s``, from its first ``connect()`` call to the connection
established, the SYN-ACK received; ``syn_retransmits``, ``tcpi_total_retrans``
as a connection is established or accepted, which there counts only SYN or
SYN-ACK retransmissions: an accepted socket starts from the request's
``num_retrans``, ``tcp_create_openreq_child`` in ``net/ipv4/tcp_minisocks.c``),
and for the data sender the ``TCP_INFO`` of every connection plus ``ss -tino`` of the last one;
with ``sample_s`` > 0 a bulk sender also samples its ``TCP_INFO`` on the run's
grid (``series``: t, cwnd, ssthresh, srtt, bytes in flight, bytes acknowledged, the pacing
rate, and for BBR its bandwidth estimate, min_rtt and pacing gain from ``TCP_CC_INFO``).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from ecnlab.emu.tcpinfo import bbr_info, tcp_info

CHUNK = 1 << 16
PAYLOAD = b"\x5a" * CHUNK
POLL_S = 0.02
#: The shortest blocking wait of the send loop.
MIN_WAIT_S = 0.0005
#: Web servers accept many connections at once; a full accept queue would drop SYNs itself.
LISTEN_BACKLOG = 1024


class Deadline(Exception):
    """The run's end came before the application finished."""


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise Deadline
    return left


class Sampler:
    """The sender's ``TCP_INFO`` every ``every`` seconds on the run's grid (t0 + k·every),
    as the simulator samples its senders (``timeseries.py``, ``crates/sim/src/series.rs``);
    ``bbr``: also Linux BBR's model (``TCP_CC_INFO``), else those columns stay empty."""

    def __init__(self, t0: float, every: float, bbr: bool = False) -> None:
        self.t0, self.every, self.next, self.bbr = t0, every, t0, bbr
        self.rows: list[list[float | None]] = []

    def poll(self, sock: socket.socket) -> None:
        now = time.monotonic()
        if self.every <= 0 or now < self.next:
            return
        i = tcp_info(sock)
        mss = i["snd_mss"]
        ssthresh = None if i["snd_ssthresh"] >= 0x7FFFFFFF else i["snd_ssthresh"] * mss
        acked = max(0, i["bytes_acked"] - 1)  # tcpi_bytes_acked counts the SYN's sequence number
        in_flight = max(0, i["bytes_sent"] - i["bytes_retrans"] - acked)
        srtt = i["rtt_us"] / 1000 if i["rtt_us"] else None
        pacing = None if i["pacing_rate"] >= 2**63 else i["pacing_rate"] * 8  # ~0: unlimited
        model: list[float | None] = [None, None, None]
        if self.bbr:
            b = bbr_info(sock)
            model = [b.bw_bps, b.min_rtt_us / 1000, b.pacing_gain]
        row = [round(now - self.t0, 6), i["snd_cwnd"] * mss, ssthresh, srtt, in_flight, acked, pacing]
        self.rows.append(row + model)
        self.next += self.every * (1 + int((now - self.next) / self.every))

    def wait_s(self) -> float:
        """How long the send loop may block before the next sample is due (at least
        ``MIN_WAIT_S``: a zero timeout would make the socket non-blocking)."""
        if self.every <= 0:
            return POLL_S
        return max(MIN_WAIT_S, self.next - time.monotonic())


def _send(sock: socket.socket, n: int | None, deadline: float, sampler: Sampler | None = None) -> int:
    """Send ``n`` bytes (None: until the deadline); returns bytes handed to TCP. A blocked send
    wakes when the next sample is due, so samples keep to the grid (within the wake-up latency)."""
    sent = 0
    while n is None or sent < n:
        wait = POLL_S
        if sampler is not None:
            sampler.poll(sock)
            wait = min(wait, sampler.wait_s())
        try:
            sock.settimeout(min(wait, _remaining(deadline)))
        except Deadline:
            break
        want = CHUNK if n is None else min(CHUNK, n - sent)
        try:
            sent += sock.send(PAYLOAD[:want])
        except TimeoutError:
            continue
    return sent


class Counter:
    """Bytes received, with the count seen at warm-up and at the end of the run."""

    def __init__(self, warmup_at: float, end_at: float) -> None:
        self.total = 0
        self.at_warmup: int | None = None
        self.at_end: int | None = None
        self.warmup_at = warmup_at
        self.end_at = end_at
        self.last_byte_t: float | None = None

    def add(self, n: int) -> None:
        now = time.monotonic()
        if self.at_warmup is None and now >= self.warmup_at:
            self.at_warmup = self.total
        if self.at_end is None and now >= self.end_at:
            self.at_end = self.total
        self.total += n
        if n:
            self.last_byte_t = now


def _recv(sock: socket.socket, n: int | None, count: Counter, deadline: float) -> int:
    """Receive until ``n`` bytes, EOF or the deadline; returns bytes received."""
    got = 0
    while n is None or got < n:
        try:
            sock.settimeout(min(POLL_S, _remaining(deadline)))
        except Deadline:
            break
        try:
            data = sock.recv(CHUNK if n is None else min(CHUNK, n - got))
        except TimeoutError:
            count.add(0)
            continue
        count.add(len(data))
        if not data:
            break
        got += len(data)
    return got


def _await_acked(sock: socket.socket, n: int, deadline: float) -> None:
    """Wait until the peer acknowledged ``n`` payload bytes (and our FIN), or the deadline."""
    while time.monotonic() < deadline and tcp_info(sock)["bytes_acked"] < n + 1:
        time.sleep(0.01)


def _ss(peer: str) -> str:
    r = subprocess.run(["ss", "-tino", "dst", peer], capture_output=True, text=True, timeout=5)
    return " ".join(r.stdout.split())


def _tcp_socket(cc: str) -> socket.socket:
    """A TCP socket with the scenario's congestion control (``tcp.cc``). Per socket, as root:
    a network namespace other than the initial one may default only to those in
    ``net.ipv4.tcp_allowed_congestion_control`` (``tcp_set_default_congestion_control`` in
    ``net/ipv4/tcp_cong.c``: EPERM otherwise), while ``TCP_CONGESTION`` with ``CAP_NET_ADMIN`` takes
    any the kernel has (``tcp_set_congestion_control``).
    Accepted connections inherit the listener's."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    return s


def _connect(addr: str, port: int, deadline: float, cc: str) -> socket.socket:
    while True:
        s = _tcp_socket(cc)
        s.settimeout(min(5.0, _remaining(deadline)))
        try:
            s.connect((addr, port))
            return s
        except (ConnectionRefusedError, TimeoutError):
            s.close()
            time.sleep(0.05)


def _sleep_until(t: float) -> None:
    while (left := t - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))


def run(cfg: dict[str, Any], listener: socket.socket | None) -> dict[str, Any]:
    app = cfg["app"]
    t0, deadline = cfg["t0"], cfg["t0"] + cfg["duration_s"]
    count = Counter(t0 + cfg["warmup_s"], deadline)
    out: dict[str, Any] = {"connections": 0, "infos": [], "ss": None, "completions": [], "transactions": 0}
    out.update(connect_s=None, syn_retransmits=0)

    def connection() -> socket.socket:
        if listener is not None:
            listener.settimeout(_remaining(deadline))
            s, _ = listener.accept()
        else:
            began = time.monotonic()
            s = _connect(cfg["peer"], cfg["port"], deadline, cfg["cc"])
            if out["connect_s"] is None:
                out["connect_s"] = time.monotonic() - began
        out["connections"] += 1
        out["syn_retransmits"] += tcp_info(s)["total_retrans"]
        return s

    def finish(s: socket.socket) -> None:
        if cfg["sends"]:
            out["infos"].append(tcp_info(s))
            if app["kind"] == "bulk":  # one `ss` run (about 5 ms) per connection is too slow for TCP_CRR
                out["ss"] = _ss(cfg["peer"])
        s.close()

    if app["kind"] != "web":  # web keeps its own schedule from t0
        _sleep_until(t0 + cfg["start_s"])
    try:
        if app["kind"] == "web":
            from ecnlab.emu.webtraffic import run_web

            out.update(run_web(cfg, listener, count))
        elif app["kind"] == "bulk":
            s = connection()
            if cfg["sends"]:
                sampler = Sampler(t0, cfg.get("sample_s", 0.0), bbr=cfg["cc"] == "bbr")
                out["series"] = sampler.rows
                out["bytes_sent"] = _send(s, app["bytes"], deadline, sampler)
                s.shutdown(socket.SHUT_WR)
                if app["bytes"] is not None:  # a finished transfer: count its retransmissions too
                    _await_acked(s, out["bytes_sent"], deadline)
            else:
                _recv(s, None, count, deadline + cfg["drain_s"])
            finish(s)
        else:
            _transactions(cfg, app, connection, finish, count, out, deadline)
    except (Deadline, TimeoutError):
        pass
    count.add(0)
    out.update(
        bytes_total=count.total,
        bytes_at_warmup=count.at_warmup if count.at_warmup is not None else count.total,
        bytes_at_end=count.at_end if count.at_end is not None else count.total,
        last_byte_s=None if count.last_byte_t is None else count.last_byte_t - t0,
    )
    return out


def _transactions(
    cfg: dict[str, Any],
    app: dict[str, Any],
    connection: Callable[[], socket.socket],
    finish: Callable[[socket.socket], None],
    count: Counter,
    out: dict[str, Any],
    deadline: float,
) -> None:
    """serial and request_response: one connection per file or transaction."""
    t0 = cfg["t0"]
    n = app["files"] if app["kind"] == "serial" else app["count"]
    pause = app.get("gap_ns", app.get("think_ns", 0)) / 1e9
    done = 0
    while n is None or done < n:
        s = connection()
        if app["kind"] == "request_response":
            if cfg["sends"]:  # the server: read the request, answer, close
                _recv(s, app["request_bytes"], Counter(0, deadline), deadline)
                _send(s, app["response_bytes"], deadline)
            else:  # the client: ask, read the answer to EOF
                _send(s, app["request_bytes"], deadline)
                _recv(s, app["response_bytes"], count, deadline)
        elif cfg["sends"]:
            _send(s, app["file_bytes"], deadline)
        else:
            _recv(s, app["file_bytes"], count, deadline)
        if cfg["sends"]:
            s.shutdown(socket.SHUT_WR)
            _recv(s, None, Counter(0, deadline), min(deadline, time.monotonic() + 5))
        finish(s)
        if time.monotonic() > deadline:
            break  # finished after the end of the run: not counted (as in the simulator)
        done += 1
        out["completions"].append(time.monotonic() - t0)
        out["transactions"] = done
        if cfg["role"] == "connect":  # the initiator paces the connections
            _sleep_until(min(deadline, time.monotonic() + pause))


def main() -> int:
    cfg = json.loads(sys.argv[1])
    listener = None
    if cfg["role"] == "listen":
        listener = _tcp_socket(cfg["cc"])
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((cfg["addr"], cfg["port"]))
        listener.listen(LISTEN_BACKLOG)
        print(json.dumps({"listening": cfg["port"]}), flush=True)
    else:
        print(json.dumps({"ready": True}), flush=True)  # imports done: t0 can be chosen
    # The orchestrator fixes t0 after every listener is up: one line on stdin.
    cfg["t0"] = float(sys.stdin.readline())
    result = run(cfg, listener)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

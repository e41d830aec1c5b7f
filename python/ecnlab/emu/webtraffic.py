"""Web traffic on real sockets (flow kind ``web``): ecnlab's own small HTTP/1.0-style client and server.

The client draws everything from the simulator's own web model
(``ecnlab._core.WebSource`` wraps ``crates/sim/src/web.rs`` with the flow's
RNG stream, seeded as in ``ecnlab run``): Poisson session arrivals, geometric
pages per session and objects per page, object sizes (the scenario's size
mix), exponential think times between pages. Each object is one new TCP
connection: the client connects, sends a ``request_bytes`` request naming the
object's size (``GET <bytes>`` padded with spaces), the server answers with
that many bytes and closes, the client reads to the last byte and closes.
Objects of a page are fetched one after another; sessions overlap freely.

Response time of an object = from the moment the client calls ``connect()``
(its SYN leaves within the event loop's latency, well under a millisecond) to
the arrival of the object's last byte, on the monotonic clock; the model sees
the times in nanoseconds since the run's start, so its own summary code
(``WebOut``: percentiles, 20 ms histogram) produces the flow's ``web`` result.
Everything is bounded by the end of the run: objects unfinished then are
started but not completed (as in the simulator).
"""

from __future__ import annotations

import asyncio
import heapq
import json
import socket
import time
from typing import Any

from ecnlab.emu.tcpinfo import tcp_info

__all__ = ["run_web"]

CHUNK = 1 << 16
PAYLOAD = b"\x5a" * CHUNK
#: The server keeps answering this long after the end of the run (the client has stopped counting).
SERVER_LINGER_S = 1.0
#: TCP_INFO fields the server keeps per connection (the summary sums them).
CONN_FIELDS = ("ecn", "ecn_seen", "data_segs_out", "total_retrans")


def request(size: int, request_bytes: int) -> bytes:
    """``GET <size>`` padded with spaces to ``request_bytes`` (at least the header itself)."""
    head = f"GET {size} ".encode()
    return head + b" " * max(0, request_bytes - len(head))


def parse_request(data: bytes) -> int:
    """The object size a request names; ValueError for anything else."""
    parts = data.split()
    if len(parts) < 2 or parts[0] != b"GET" or not parts[1].isdigit():
        raise ValueError("not a web request")
    return int(parts[1])


def run_web(cfg: dict[str, Any], listener: socket.socket | None, counter: Any) -> dict[str, Any]:
    """One end of a web flow: the server (``sends``) or the client; returns its result dict."""
    if cfg["sends"]:
        assert listener is not None, "the web server end listens"
        return asyncio.run(_serve(cfg, listener))
    return asyncio.run(_client(cfg, counter))


# --- server --------------------------------------------------------------------------------------


async def _serve(cfg: dict[str, Any], listener: socket.socket) -> dict[str, Any]:
    out: dict[str, Any] = {"connections": 0, "infos": [], "last_info": None, "bad_requests": 0}
    request_bytes = cfg["app"]["request_bytes"]
    stop_at = cfg["t0"] + cfg["duration_s"] + SERVER_LINGER_S

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        out["connections"] += 1
        try:
            async with asyncio.timeout(max(0.0, stop_at - time.monotonic())):
                head = await reader.readexactly(request_bytes)
                size = parse_request(head)
                sent = 0
                while sent < size:
                    n = min(CHUNK, size - sent)
                    writer.write(PAYLOAD[:n])
                    await writer.drain()
                    sent += n
                writer.write_eof()
                await reader.read()  # until the client's FIN: the response is acknowledged by then
                info = tcp_info(writer.get_extra_info("socket"))
                out["infos"].append({k: info[k] for k in CONN_FIELDS})
                out["last_info"] = info
        except ValueError:
            out["bad_requests"] += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    listener.setblocking(False)
    server = await asyncio.start_server(handle, sock=listener)
    await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
    server.close()
    return out


# --- client --------------------------------------------------------------------------------------


class _Client:
    """The client's schedule: the model's pending connection starts, mirrored in a heap."""

    def __init__(self, cfg: dict[str, Any], counter: Any) -> None:
        from ecnlab._core import WebSource

        params = {k: v for k, v in cfg["app"].items() if k != "kind"}
        self.t0: float = cfg["t0"]
        start_ns = cfg.get("start_ns", round(cfg["start_s"] * 1e9))  # drawn as the engine draws it (emu/run.py)
        self.end_ns = round(cfg["duration_s"] * 1e9)
        base, spread = cfg.get("start_base_ns", start_ns), cfg.get("start_spread_ns", 0)
        self.src = WebSource(json.dumps(params), cfg["seed"], cfg["flow_index"], base, spread)
        self.pending = [start_ns]  # the model schedules exactly what its calls return
        self.wake = asyncio.Event()
        self.counter = counter
        self.peer, self.port, self.cc = cfg["peer"], cfg["port"], cfg["cc"]
        self.request_bytes: int = self.src.request_bytes()
        #: per object: [connection number, start s, bytes, done s or None]
        self.objects: list[list[Any]] = []
        self.tasks: set[asyncio.Task[None]] = set()

    def now_ns(self) -> int:
        return round((time.monotonic() - self.t0) * 1e9)

    def schedule(self, at: int | None) -> None:
        if at is not None:
            heapq.heappush(self.pending, at)
            self.wake.set()

    async def run(self) -> None:
        while (now := self.now_ns()) < self.end_ns:
            while self.pending and self.pending[0] <= now:
                heapq.heappop(self.pending)
                conn, size, next_session = self.src.start(now)
                self.schedule(next_session)
                self.objects.append([conn, now / 1e9, size, None])
                task = asyncio.create_task(self.fetch(conn, size))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            wait_ns = min(self.pending[0] if self.pending else self.end_ns, self.end_ns) - now
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=max(0.0, wait_ns / 1e9))
            except TimeoutError:
                pass
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the server with the scenario's congestion control (set before connect)."""
        from ecnlab.emu.traffic import _tcp_socket

        sock = _tcp_socket(self.cc)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (self.peer, self.port))
        except BaseException:
            sock.close()
            raise
        return await asyncio.open_connection(sock=sock)

    async def fetch(self, conn: int, size: int) -> None:
        """One object on its own connection; completes the model's object at the last byte."""
        writer = None
        try:
            async with asyncio.timeout(max(0.0, (self.end_ns - self.now_ns()) / 1e9)):
                reader, writer = await self.connect()
                writer.write(request(size, self.request_bytes))
                got = 0
                while got < size:
                    data = await reader.read(CHUNK)
                    self.counter.add(len(data))
                    if not data:
                        return
                    got += len(data)
                now = self.now_ns()
                self.objects[conn][3] = now / 1e9
                self.schedule(self.src.done(conn, now))
        except (TimeoutError, OSError):
            pass
        finally:
            if writer is not None:
                writer.close()


async def _client(cfg: dict[str, Any], counter: Any) -> dict[str, Any]:
    c = _Client(cfg, counter)
    await c.run()
    return {
        "connections": len(c.objects),
        "web": json.loads(c.src.summary_json()),
        "objects": c.objects,
    }

"""CPU steal during an emulation: time the hypervisor gave this machine's vCPUs to others.

Source: ``/proc/stat``, the ``cpu`` line's eighth value, *steal* — "time spent in other
operating systems when running in a virtualized environment", in ``USER_HZ`` ticks summed
over all CPUs (proc(5); ``os.sysconf("SC_CLK_TCK")``, 100 on Linux).

Why it matters: a live run's timing is real time. While the host under a virtual machine
runs something else, the router, the senders and the receivers all stop; the packets held
meanwhile then leave in a burst, the senders see RTT samples hundreds of milliseconds long,
and a queue that averages (RED) or times (CoDel) reads a burst no congestion made. Nothing
inside the machine shows it except this counter. Measured on the 2-vCPU machine of
docs/emulation.md: about 6 ms per second when the host is quiet, 0.3–2 s per second in
its busy spells, and 30–70 ms per second between spells on a busy day. :data:`PEAK_WARN_S`
(stolen within one sampling interval of one second) is a coarse line between them: on a
busy day nearly every run crosses it, some of them undisturbed, and a stall shorter than
the interval can stay under it; the windows at which the senders cut tell more
(docs/emulation.md, "CPU steal: a busy host stops both sides").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PEAK_WARN_S", "Steal", "StealMeter", "parse_steal_ticks", "read_steal_s"]

#: Stolen CPU time within one second (summed over CPUs) above which a run is called disturbed.
PEAK_WARN_S = 0.1
#: Sampling interval, seconds.
INTERVAL_S = 1.0


def parse_steal_ticks(proc_stat: str) -> int:
    """The aggregate ``cpu`` line's steal ticks (0 on kernels older than 2.6.11, which lack it)."""
    for line in proc_stat.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            return int(fields[8]) if len(fields) > 8 else 0
    raise ValueError("/proc/stat has no aggregate 'cpu' line")


def read_steal_s(path: Path = Path("/proc/stat")) -> float | None:
    """Steal since boot, seconds (None where there is no ``/proc/stat``)."""
    try:
        text = path.read_text()
    except OSError:
        return None
    return parse_steal_ticks(text) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Steal:
    total_s: float  # stolen over the measured span, summed over CPUs
    peak_s: float  # the most stolen within one sampling interval

    @property
    def disturbed(self) -> bool:
        return self.peak_s > PEAK_WARN_S


class StealMeter:
    """Samples steal every ``interval`` s on a thread between ``start()`` and ``stop()``."""

    def __init__(self, interval: float = INTERVAL_S, read: Callable[[], float | None] = read_steal_s) -> None:
        self._interval = interval
        self._read = read
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._first: float | None = None
        self._last: float | None = None
        self._peak = 0.0

    def _sample(self) -> None:
        now = self._read()
        if now is None:
            return
        if self._last is not None:
            self._peak = max(self._peak, now - self._last)
        else:
            self._first = now
        self._last = now

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def start(self) -> None:
        self._sample()
        self._thread = threading.Thread(target=self._loop, name="ecnlab-steal", daemon=True)
        self._thread.start()

    def stop(self) -> Steal | None:
        """The span's steal (None where ``/proc/stat`` cannot be read)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        if self._first is None or self._last is None:
            return None
        return Steal(round(self._last - self._first, 3), round(self._peak, 3))

"""Network namespaces with one TUN device each, created and always removed.

Names are ``ecnlab-<pid>-<n>-<host>``: unique per process and per run, so
parallel runs and leftovers of a killed run never collide, and
:func:`leftovers` can find what a process left behind. Deleting a namespace
removes its TUN device; processes started inside one are ended by whoever
started them (:mod:`ecnlab.emu.procs`).
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Sequence

from ecnlab.emu.plan import HostPlan

__all__ = ["Namespaces", "EmulationError", "leftovers", "remove_stale", "PREFIX"]

PREFIX = "ecnlab-"
TUN = "tun0"
#: The TUN device's own transmit queue is a hidden drop-tail queue: make it large.
TXQUEUELEN = 10000
_runs = itertools.count()


class EmulationError(RuntimeError):
    """Setting up or running the emulation failed (the message says what and where)."""


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        raise EmulationError(f"ip {' '.join(args)}: {r.stderr.strip() or r.returncode}")


def leftovers(pid: int | None = None) -> list[str]:
    """Namespaces named by ecnlab (of process ``pid`` if given) that exist now."""
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10)
    names = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    mine = f"{PREFIX}{pid}-" if pid is not None else PREFIX
    return [n for n in names if n.startswith(mine)]


def _owner(name: str) -> int | None:
    """The pid in ``ecnlab-<pid>-...``, if the name has one."""
    head = name.removeprefix(PREFIX).split("-", 1)[0]
    return int(head) if name.startswith(PREFIX) and head.isdigit() else None


def remove_stale() -> list[str]:
    """Remove what killed ecnlab processes left (SIGKILL gives them no chance to clean up): the
    processes that carry their name prefix (traffic programs, the router) and their namespaces
    (which takes the TUN devices with them). Only ecnlab's own: the ``ecnlab-<pid>-`` prefix of
    a pid that no longer runs. Returns the namespaces removed."""
    from ecnlab.runner import pid_alive

    stale = [n for n in leftovers() if (pid := _owner(n)) is not None and not pid_alive(pid)]
    prefixes = {f"{PREFIX}{_owner(n)}-" for n in stale}
    for ns in stale:  # processes still inside the namespace keep it alive
        r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=10)
        for inside in r.stdout.split():
            _kill(int(inside))
    for proc in _processes_with(prefixes):
        _kill(proc)
    for ns in stale:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True, timeout=10)
    return stale


def _processes_with(prefixes: set[str]) -> list[int]:
    from pathlib import Path

    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(prefix in cmd for prefix in prefixes):
            found.append(int(p.name))
    return found


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Namespaces:
    """``with Namespaces(hosts) as ns:`` creates one namespace per host; leaving removes them."""

    def __init__(self, hosts: Sequence[HostPlan]) -> None:
        self.hosts = tuple(hosts)
        run = next(_runs)
        #: Starts every name this run creates (namespaces; also tags the run's processes).
        self.prefix = f"{PREFIX}{os.getpid()}-{run}-"
        self.names = {h.name: f"{self.prefix}{h.name}"[:64] for h in self.hosts}
        self._created: list[str] = []

    def __enter__(self) -> Namespaces:
        remove_stale()  # what a killed run left (its namespaces, TUN devices, processes)
        try:
            for h in self.hosts:
                self._create(h)
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def _create(self, h: HostPlan) -> None:
        ns = self.names[h.name]
        _ip("netns", "add", ns)
        self._created.append(ns)
        ex = ("-n", ns)
        _ip(*ex, "link", "set", "lo", "up")
        for key, value in h.sysctls.items():
            self.sysctl(h.name, key, value)
        _ip(*ex, "tuntap", "add", "dev", TUN, "mode", "tun")
        _ip(*ex, "addr", "add", f"{h.addr}/32", "dev", TUN)
        _ip(*ex, "link", "set", TUN, "mtu", str(h.mtu), "txqueuelen", str(TXQUEUELEN), "up")
        others = sorted({o.addr for o in self.hosts if o is not h})
        for addr in others:
            _ip(*ex, "route", "add", f"{addr}/32", "dev", TUN, "src", h.addr, *h.route_opts)

    def sysctl(self, host: str, key: str, value: str) -> None:
        """Set ``key`` inside the host's namespace (checked by reading it back)."""
        ns = self.names[host]
        cmd = ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        if r.returncode != 0:
            raise EmulationError(f"{ns}: sysctl {key}={value}: {r.stderr.strip()}")

    def exec_prefix(self, host: str) -> list[str]:
        """Command prefix that runs a program inside the host's namespace."""
        return ["ip", "netns", "exec", self.names[host]]

    def remove(self) -> None:
        """Delete every namespace this object created (and with them their TUN devices)."""
        errors = []
        while self._created:
            ns = self._created.pop()
            r = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True, timeout=10)
            if r.returncode != 0 and ns in leftovers():
                errors.append(f"{ns}: {r.stderr.strip()}")
        if errors:
            raise EmulationError("could not remove namespaces: " + "; ".join(errors))

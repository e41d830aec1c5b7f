"""A kernel congestion control a scenario names, loaded before any namespace exists.

``TCP_CONGESTION`` on a socket finds the named ``tcp_congestion_ops`` among those registered,
and with ``CAP_NET_ADMIN`` loads its module when it is not (``tcp_set_congestion_control`` →
``tcp_ca_find_autoload`` in ``net/ipv4/tcp_cong.c``: ``request_module("tcp_%s")``); a kernel
without it answers ``ENOENT``. The traffic programs set it on every socket inside the
namespaces (``ecnlab.emu.traffic``); :func:`ensure_loaded` does it once on a socket of the
caller's own namespace first, so a missing one (``bbr``: ``CONFIG_TCP_CONG_BBR``,
``net/ipv4/tcp_bbr.c``) is one line before anything is built, and a module is in place before
the first flow starts. ecnlab's BPF DCTCP is registered its own way (``ecnlab.emu.bpf``).
"""

from __future__ import annotations

import socket

from ecnlab.emu.netns import EmulationError

__all__ = ["MODULE_CCS", "ensure_loaded"]

#: The ``tcp.cc`` values emulate hands to the kernel by name and checks here (reno is built in,
#: cubic nearly always; dctcp goes through ``ecnlab.emu.bpf``).
MODULE_CCS = ("bbr",)


def ensure_loaded(cc: str) -> None:
    """Load the kernel's ``cc`` (its module, where it is one); EmulationError if the kernel has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        except OSError as e:
            raise EmulationError(
                f"tcp.cc = {cc}: this kernel has no {cc} congestion control (tcp_{cc}: {e.strerror})"
            ) from None

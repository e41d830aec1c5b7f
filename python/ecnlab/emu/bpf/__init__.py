"""A real DCTCP for ``ecnlab emulate`` on kernels built without one: ``ecnlab_dctcp.bpf.c``.

A kernel built without ``CONFIG_TCP_CONG_DCTCP`` (no ``dctcp`` in
``net.ipv4.tcp_available_congestion_control``) may still have BPF struct_ops congestion control
(``net/ipv4/bpf_tcp_ca.c``) and its BTF (``CONFIG_DEBUG_INFO_BTF``), as the kernel's selftest
``tools/testing/selftests/bpf/progs/bpf_dctcp.c`` needs. ``ecnlab_dctcp.bpf.c`` beside this
module is RFC 8257 written as a ``tcp_congestion_ops`` (its header is the spec). A flow with
``tcp.cc = "dctcp"`` uses the kernel's own ``dctcp`` when it has one; otherwise
:func:`ensure_dctcp` compiles the program (clang, with a ``vmlinux.h`` that bpftool dumps from
the running kernel's BTF), registers it with ``bpftool struct_ops register`` and checks that
``ecnlab_dctcp`` is in ``net.ipv4.tcp_available_congestion_control``. The object is cached per
kernel release and source under ``$XDG_CACHE_HOME/ecnlab/bpf`` (default ``~/.cache``); the
registration lasts until reboot (``bpftool struct_ops unregister name ecnlab_dctcp`` removes it);
one left by another build of the source is replaced (:func:`ensure_dctcp`).
Needs root and the Debian packages clang, libbpf-dev and bpftool (``make setup`` installs them).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from ecnlab.emu.netns import EmulationError

__all__ = ["BPF_NAME", "available", "linux_cc", "ensure_dctcp", "needed", "why_not"]

#: The name ecnlab's BPF DCTCP registers under (the kernel's own would be ``dctcp``).
BPF_NAME = "ecnlab_dctcp"
SOURCE = "ecnlab_dctcp.bpf.c"
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
BTF = Path("/sys/kernel/btf/vmlinux")
#: Which object file (named by its source's and the kernel's digest) this boot registered.
REGISTERED = Path("/run/ecnlab/bpf/ecnlab_dctcp.registered")


def available() -> set[str]:
    """The congestion controls this kernel has now (built in, modules loaded, BPF registered)."""
    try:
        return set(AVAILABLE.read_text().split())
    except OSError:
        return set()


def linux_cc(cc: str) -> str:
    """The kernel's name for a scenario's ``tcp.cc``: ``dctcp`` is the kernel's own when it has
    one, else ecnlab's BPF program; reno and cubic are themselves."""
    if cc == "dctcp" and "dctcp" not in available():
        return BPF_NAME
    return cc


def needed(ccs: set[str]) -> bool:
    """Whether a scenario with these ``tcp.cc`` values needs the BPF DCTCP."""
    return "dctcp" in ccs and "dctcp" not in available()


def _run(argv: list[str], what: str) -> str:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        lines = (r.stderr or r.stdout).strip().splitlines()
        first = next((x for x in lines if "error" in x.lower()), lines[-1] if lines else "no output")
        raise EmulationError(f"BPF DCTCP: {what} failed: {first.strip()}")
    return r.stdout


def _build(cache: Path, source: Path) -> Path:
    """Compile ``source`` against this kernel's BTF into ``cache`` (reused while both are unchanged)."""
    release = os.uname().release
    key = hashlib.sha256(source.read_bytes() + release.encode()).hexdigest()[:16]
    obj = cache / release / f"ecnlab_dctcp-{key}.bpf.o"
    if obj.is_file():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    header = obj.parent / "vmlinux.h"  # the kernel's types, as the program's #include names them
    header.write_text(_run(["bpftool", "btf", "dump", "file", str(BTF), "format", "c"], "bpftool btf dump"))
    tmp = obj.with_suffix(".tmp")
    argv = ["clang", "-O2", "-g", "-target", "bpf", "-D__TARGET_ARCH_x86", f"-I{obj.parent}", "-c", str(source)]
    _run([*argv, "-o", str(tmp)], "clang")
    tmp.replace(obj)
    return obj


def _has_bpf_tcp_ca() -> bool:
    """Whether the kernel was built with BPF struct_ops congestion control (``bpf_tcp_ca``)."""
    try:
        with open("/proc/kallsyms", encoding="ascii", errors="replace") as f:
            return any(" bpf_tcp_ca_" in line for line in f)
    except OSError:
        return False


def why_not() -> str | None:
    """Why the BPF DCTCP cannot be built and loaded here (None: it can)."""
    if os.geteuid() != 0:
        return "loading a BPF congestion control needs root"
    if not BTF.is_file():
        return f"the kernel has no BTF ({BTF})"
    if not _has_bpf_tcp_ca():
        return "the kernel has no BPF congestion control (bpf_tcp_ca not in /proc/kallsyms)"
    for tool in ("clang", "bpftool"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (Debian: clang, bpftool, libbpf-dev; make setup installs them)"
    return None


def _registered_key() -> str | None:
    """Which build of the program this boot registered (None: none recorded)."""
    try:
        return REGISTERED.read_text().strip() or None
    except OSError:
        return None


def _record(obj: Path) -> None:
    REGISTERED.parent.mkdir(parents=True, exist_ok=True)
    tmp = REGISTERED.with_suffix(".tmp")
    tmp.write_text(obj.name + "\n")
    tmp.replace(REGISTERED)


def ensure_dctcp() -> str:
    """Register ecnlab's BPF DCTCP unless a DCTCP is already there; return the kernel's name for it.

    A registration left by another build of the program (an older source, recorded in
    ``REGISTERED``, which lives on a tmpfs as the registration lives until reboot) is replaced:
    sockets that use the old one keep it, new ones get this build's."""
    have = available()
    if "dctcp" in have:
        return "dctcp"
    why = why_not()
    if why is not None:
        raise EmulationError(f"tcp.cc = dctcp: this kernel has no DCTCP and {why}")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ecnlab" / "bpf"
    with resources.as_file(resources.files(__name__) / SOURCE) as source:
        obj = _build(cache, Path(source))
    if BPF_NAME in have:
        if _registered_key() == obj.name:
            return BPF_NAME
        _run(["bpftool", "struct_ops", "unregister", "name", BPF_NAME], "bpftool struct_ops unregister (older build)")
    _run(["bpftool", "struct_ops", "register", str(obj)], "bpftool struct_ops register")
    _record(obj)
    if BPF_NAME not in available():
        raise EmulationError(f"BPF DCTCP: registered, but {BPF_NAME} is not in {AVAILABLE}")
    return BPF_NAME

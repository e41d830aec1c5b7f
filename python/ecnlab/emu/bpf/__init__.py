"""ecnlab's BPF congestion controls for ``ecnlab emulate``: a real DCTCP on kernels built without
one (``ecnlab_dctcp.bpf.c``) and a Prague-like (``ecnlab_prague_like.bpf.c``).

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
``tcp.cc = "prague"`` runs ``ecnlab_prague_like.bpf.c`` beside it, registered as ``prague_like``
the same way (:func:`ensure`): TCP Prague's congestion response over DCTCP's classic-ECN feedback
(its header says which of Prague's rules it has and which this kernel cannot), as no mainline
kernel has TCP Prague and this one cannot negotiate AccECN nor send ECT(1).
Needs root and the Debian packages clang, libbpf-dev and bpftool (``make setup`` installs them).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ecnlab.emu.netns import EmulationError

__all__ = [
    "BPF_NAME",
    "PROGRAMS",
    "Program",
    "available",
    "linux_cc",
    "ensure",
    "ensure_dctcp",
    "needed",
    "programs_needed",
    "why_not",
]


@dataclass(frozen=True)
class Program:
    """One of ecnlab's BPF congestion controls: the ``tcp.cc`` that selects it, the name it
    registers under, its source beside this module, the kernel's own control preferred to it
    where the kernel has one (None: none is), and what messages call it."""

    cc: str
    name: str
    source: str
    kernel_own: str | None
    what: str


#: By ``tcp.cc``. The kernel's TCP Prague (out of tree) would need AccECN, which this kernel
#: cannot negotiate: ``prague`` always runs the Prague-like program.
PROGRAMS = {
    "dctcp": Program("dctcp", "ecnlab_dctcp", "ecnlab_dctcp.bpf.c", "dctcp", "DCTCP"),
    "prague": Program("prague", "prague_like", "ecnlab_prague_like.bpf.c", None, "Prague-like"),
}
#: The name ecnlab's BPF DCTCP registers under (the kernel's own would be ``dctcp``).
BPF_NAME = PROGRAMS["dctcp"].name
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
BTF = Path("/sys/kernel/btf/vmlinux")
#: Which object file (named by its source's and the kernel's digest) this boot registered, a file
#: per program (``NAME.registered``).
REGISTERED_DIR = Path("/run/ecnlab/bpf")


def available() -> set[str]:
    """The congestion controls this kernel has now (built in, modules loaded, BPF registered)."""
    try:
        return set(AVAILABLE.read_text().split())
    except OSError:
        return set()


def linux_cc(cc: str) -> str:
    """The kernel's name for a scenario's ``tcp.cc``: ``dctcp`` is the kernel's own when it has
    one, else ecnlab's BPF program; ``prague`` is the BPF Prague-like; the others are themselves."""
    prog = PROGRAMS.get(cc)
    if prog is None or (prog.kernel_own is not None and prog.kernel_own in available()):
        return cc
    return prog.name


def programs_needed(ccs: set[str]) -> list[Program]:
    """The BPF programs a scenario with these ``tcp.cc`` values needs, in ``PROGRAMS``' order."""
    return [p for cc, p in PROGRAMS.items() if cc in ccs and linux_cc(cc) == p.name]


def needed(ccs: set[str]) -> bool:
    """Whether a scenario with these ``tcp.cc`` values needs the BPF DCTCP."""
    return PROGRAMS["dctcp"] in programs_needed(ccs)


def _run(argv: list[str], what: str) -> str:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        lines = (r.stderr or r.stdout).strip().splitlines()
        first = next((x for x in lines if "error" in x.lower()), lines[-1] if lines else "no output")
        raise EmulationError(f"BPF {what} failed: {first.strip()}")
    return r.stdout


def _build(cache: Path, source: Path) -> Path:
    """Compile ``source`` against this kernel's BTF into ``cache`` (reused while both are unchanged)."""
    release = os.uname().release
    key = hashlib.sha256(source.read_bytes() + release.encode()).hexdigest()[:16]
    obj = cache / release / f"{source.name.removesuffix('.bpf.c')}-{key}.bpf.o"
    if obj.is_file():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    header = obj.parent / "vmlinux.h"  # the kernel's types, as the program's #include names them
    header.write_text(_run(["bpftool", "btf", "dump", "file", str(BTF), "format", "c"], "bpftool btf dump"))
    tmp = obj.with_suffix(".tmp")
    argv = ["clang", "-O2", "-g", "-target", "bpf", "-D__TARGET_ARCH_x86", f"-I{obj.parent}", "-c", str(source)]
    _run([*argv, "-o", str(tmp)], f"{source.name}: clang")
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
    """Why a BPF congestion control cannot be built and loaded here (None: it can)."""
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


def _registered_key(prog: Program) -> str | None:
    """Which build of the program this boot registered (None: none recorded)."""
    try:
        return (REGISTERED_DIR / f"{prog.name}.registered").read_text().strip() or None
    except OSError:
        return None


def _record(prog: Program, obj: Path) -> None:
    REGISTERED_DIR.mkdir(parents=True, exist_ok=True)
    path = REGISTERED_DIR / f"{prog.name}.registered"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(obj.name + "\n")
    tmp.replace(path)


def ensure_dctcp() -> str:
    """Register ecnlab's BPF DCTCP unless the kernel has its own; return the kernel's name for it."""
    return ensure(PROGRAMS["dctcp"])


def ensure(prog: Program) -> str:
    """Register ``prog`` unless the kernel's own control is there; return the kernel's name for it.

    A registration left by another build of the program (an older source, recorded under
    ``REGISTERED_DIR``, which lives on a tmpfs as the registration lives until reboot) is replaced:
    sockets that use the old one keep it, new ones get this build's."""
    have = available()
    if prog.kernel_own is not None and prog.kernel_own in have:
        return prog.kernel_own
    why = why_not()
    if why is not None:
        lacks = f"this kernel has no {prog.what}" if prog.kernel_own else f"the {prog.what} is a BPF program"
        raise EmulationError(f"tcp.cc = {prog.cc}: {lacks} and {why}")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ecnlab" / "bpf"
    with resources.as_file(resources.files(__name__) / prog.source) as source:
        obj = _build(cache, Path(source))
    if prog.name in have:
        if _registered_key(prog) == obj.name:
            return prog.name
        _run(
            ["bpftool", "struct_ops", "unregister", "name", prog.name],
            f"{prog.what}: bpftool struct_ops unregister (older build)",
        )
    _run(["bpftool", "struct_ops", "register", str(obj)], f"{prog.what}: bpftool struct_ops register")
    _record(prog, obj)
    if prog.name not in available():
        raise EmulationError(f"BPF {prog.what}: registered, but {prog.name} is not in {AVAILABLE}")
    return prog.name

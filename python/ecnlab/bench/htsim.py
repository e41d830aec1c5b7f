"""htsim (Broadcom/csg-htsim) as a benchmark peer, built from the user's own checkout.

ecnlab carries none of htsim: ``--htsim-src DIR`` (or ``ECNLAB_HTSIM_SRC``) names a checkout (its root or
its ``sim/`` directory). :func:`htsim_binary` copies ``sim/``'s sources into a cache directory keyed by a
hash of those files and of our driver, builds ``libhtsim.a`` there with htsim's own Makefile (its flags:
``-O3``), then links ``scripts/htsim_dumbbell.cc`` against it; a later run with the same sources reuses
both. :func:`run_htsim` runs the driver once on PARAMS.txt (``ns3cxx.params_text``) and reads its JSON line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ecnlab.bench.measure import PeerFailed, clean_env, last_json_line, run_measured
from ecnlab.bench.ns3cxx import params_text

__all__ = [
    "DRIVER_SOURCE",
    "ENV_VAR",
    "sim_dir",
    "htsim_binary",
    "htsim_commit",
    "run_htsim",
    "parse_result",
    "compiler",
    "compiler_version",
]

DRIVER_SOURCE = Path(__file__).resolve().parent / "scripts" / "htsim_dumbbell.cc"
ENV_VAR = "ECNLAB_HTSIM_SRC"
DRIVER_FLAGS = ("-O3", "-std=c++17", "-w")
RESULT_KEYS = ("run_s", "setup_s", "bottleneck_packets", "marks", "avg_qlen_pkts", "utilisation", "goodput_bps")


def sim_dir(src: Path) -> Path:
    """htsim's ``sim/`` directory under ``src`` (or ``src`` itself); raises PeerFailed in one line if neither."""
    for d in (src / "sim", src):
        if (d / "Makefile").is_file() and (d / "tcp.h").is_file() and (d / "ecnqueue.h").is_file():
            return d
    raise PeerFailed(f"--htsim-src = {str(src)!r}: no htsim sim/ directory there (Makefile, tcp.h, ecnqueue.h)")


def compiler() -> str:
    """The C++ compiler htsim's Makefile is run with: g++ as it names, else clang++."""
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx):
            return cxx
    raise PeerFailed("no C++ compiler: htsim builds with g++ (or clang++)")


def compiler_version() -> str:
    """The first line of ``compiler() --version``, e.g. ``g++ (Debian 12.2.0-14) 12.2.0``."""
    cxx = compiler()
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
    return out.splitlines()[0].strip() if out else cxx


def _sources(sim: Path) -> list[Path]:
    return sorted(p for p in sim.iterdir() if p.is_file() and (p.suffix in (".cpp", ".h") or p.name == "Makefile"))


def htsim_commit(src: Path) -> str:
    """The checkout's git commit (``-dirty`` if sim/ differs from it), or the sources' hash outside git."""
    sim = sim_dir(src)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(sim), *args], capture_output=True, text=True, timeout=30).stdout

    head = git("rev-parse", "HEAD").strip() if shutil.which("git") else ""
    if not head:
        return "sources sha256 " + _hash(_sources(sim))[:16]
    return head + ("-dirty" if git("status", "--porcelain", "--", ".").strip() else "")


def _hash(files: list[Path], extra: bytes = b"") -> str:
    h = hashlib.sha256(extra)
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ecnlab" / "htsim"


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        tail = " | ".join((r.stderr or r.stdout).strip().splitlines()[-3:])
        raise PeerFailed(f"{what} failed: {tail}")


def _library(sim: Path, cxx: str) -> Path:
    """``libhtsim.a`` built from ``sim``'s sources by htsim's Makefile, in the cache."""
    files = _sources(sim)
    lib_dir = _cache_dir() / f"lib-{_hash(files, cxx.encode())[:16]}"
    lib = lib_dir / "libhtsim.a"
    if lib.exists():
        return lib
    build = lib_dir.with_name(lib_dir.name + ".partial")
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    for f in files:
        shutil.copy2(f, build / f.name)
    jobs = str(min(os.cpu_count() or 1, 4))
    _run(["make", "-s", f"-j{jobs}", f"CC={cxx}", "libhtsim.a"], build, f"building htsim's libhtsim.a from {sim}")
    shutil.rmtree(lib_dir, ignore_errors=True)
    build.rename(lib_dir)  # whole: an interrupted build leaves only the .partial directory
    return lib


def htsim_binary(src: Path) -> Path:
    """Our driver linked against htsim's library from ``src``, built now if its sources changed."""
    sim = sim_dir(src)
    cxx = compiler()
    if shutil.which("make") is None:
        raise PeerFailed("make is not installed: htsim builds with its own Makefile")
    lib = _library(sim, cxx)
    key = _hash([DRIVER_SOURCE], (str(lib) + " ".join(DRIVER_FLAGS)).encode())[:16]
    binary = lib.parent / f"driver-{key}" / DRIVER_SOURCE.stem
    if binary.exists():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_suffix(".partial")
    cmd = [cxx, *DRIVER_FLAGS, f"-I{lib.parent}", "-o", str(partial), str(DRIVER_SOURCE), str(lib)]
    _run(cmd, binary.parent, f"compiling {DRIVER_SOURCE.name}")
    partial.rename(binary)
    return binary


def parse_result(stdout: str) -> dict[str, Any]:
    """The driver's JSON line; raises PeerFailed if it is missing or lacks a key."""
    res = last_json_line(stdout, "htsim")
    missing = [k for k in RESULT_KEYS if k not in res]
    if missing:
        raise PeerFailed(f"htsim: result line without {', '.join(missing)}")
    return res


def run_htsim(binary: Path, params: dict[str, Any], workdir: Path, *, timeout_s: float = 3600) -> dict[str, Any]:
    """Runs the driver once; its JSON line plus the whole process's wall time measured from outside."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.txt").write_text(params_text(params))
    m = run_measured([str(binary), "params.txt"], cwd=workdir, timeout_s=timeout_s, env=clean_env())
    res = parse_result(m.stdout)
    res.update(wall_s=m.wall_s)  # peak_rss_mib: the driver's own VmHWM
    return res

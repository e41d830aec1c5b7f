"""ecnlab's BPF Prague-like (``python/ecnlab/emu/bpf/ecnlab_prague_like.bpf.c``): it compiles
against the running kernel's BTF, the verifier takes it, and it registers as ``prague_like``
(skipped where the kernel has no BTF or BPF congestion control, the tools are missing or, for
registering, without root)."""

from __future__ import annotations

import os
import shutil
from importlib import resources
from pathlib import Path

import pytest

from ecnlab.emu import bpf

PRAGUE = bpf.PROGRAMS["prague"]


def _source() -> Path:
    return Path(str(resources.files(bpf) / PRAGUE.source))


def test_the_prague_like_is_named_within_the_kernels_sixteen_bytes() -> None:
    """TCP_CA_NAME_MAX is 16 with the NUL (include/net/tcp.h); the source's .name is the program's."""
    assert len(PRAGUE.name) <= 15
    assert f'.name = "{PRAGUE.name}"' in _source().read_text()


@pytest.mark.skipif(not bpf.BTF.is_file(), reason="the kernel has no BTF")
@pytest.mark.skipif(shutil.which("clang") is None or shutil.which("bpftool") is None, reason="needs clang and bpftool")
def test_the_prague_like_compiles_against_this_kernel(tmp_path: Path) -> None:
    try:
        obj = bpf._build(tmp_path, _source())
    except bpf.EmulationError as e:
        if "bpftool btf dump" in str(e):
            pytest.skip(f"cannot read the kernel's BTF here: {e}")
        raise
    assert obj.is_file() and obj.name.startswith("ecnlab_prague_like-") and obj.stat().st_size > 0
    assert bpf._build(tmp_path, _source()) == obj  # cached per kernel and source


@pytest.mark.skipif(os.geteuid() != 0, reason="registering a BPF congestion control needs root")
def test_the_prague_like_registers_as_prague_like() -> None:
    why = bpf.why_not()
    if why is not None:
        pytest.skip(why)
    assert bpf.ensure(PRAGUE) == "prague_like"
    assert "prague_like" in bpf.available()
    assert bpf.ensure(PRAGUE) == "prague_like"  # this build, already registered: kept

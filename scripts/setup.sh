#!/usr/bin/env bash
# Set up everything ecnlab needs, from the project's own files; safe to re-run.
#
#   1. Debian packages the tests and benchmarks use (tshark tcpdump tcptrace chromium iproute2 ns2
#      libns3-dev clang libbpf-dev bpftool), only if missing.
#   2. A Rust toolchain (rustup, minimal profile) if cargo is missing.
#   3. .venv with the pinned Python dependencies of pyproject.toml (re-installed
#      only when pyproject.toml changes).
#   4. The engine extension ecnlab._core, built in release mode into the venv
#      (cargo is incremental, so an unchanged tree rebuilds in about a second).
#   5. The live-emulation router as a standalone binary, ecnlab-router (release). `ecnlab emulate`
#      runs the same router from inside the extension (python -m ecnlab.emu.router); the binary
#      serves $ECNLAB_ROUTER and tests/test_emu_plan.py.
#
# Environment: PYTHON (default python3), CARGO_TARGET_DIR (default target/).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv
STAMPS=$VENV/.ecnlab-stamps
LOG=$(mktemp -t ecnlab-setup.XXXXXX)
trap 'rm -f "$LOG"' EXIT

say() { printf 'setup: %s\n' "$*"; }
quiet() {  # run a command, showing its output only if it fails
    if ! "$@" >"$LOG" 2>&1; then
        tail -n 40 "$LOG" >&2
        say "failed: $*" >&2
        exit 1
    fi
}
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# --- 1. Debian packages ---------------------------------------------------------------
DEB_PACKAGES=(tshark tcpdump tcptrace chromium)  # chromium: the report test renders report.html headless
DEB_PACKAGES+=(iproute2)  # ip, ss, nstat: live emulation (ecnlab emulate, tests/test_emu.py)
DEB_PACKAGES+=(ns2)  # ns-2's `ns`: tests/test_peers.py compares ecnlab with ns-2 (bench: ecnlab bench peers)
DEB_PACKAGES+=(ns2-examples)  # tcl/test/test-suite-ecn.tcl: tests/test_ns2_ecn_suite.py ports it (ecnlab bench ns2-ecn)
DEB_PACKAGES+=(libns3-dev)  # ns-3.37 C++ headers and libraries: the C++ ns-3 column of ecnlab bench peers
DEB_PACKAGES+=(clang libbpf-dev bpftool)  # ecnlab's BPF DCTCP for emulate on kernels without DCTCP (python/ecnlab/emu/bpf)
if command -v dpkg-query >/dev/null; then
    missing=()
    for pkg in "${DEB_PACKAGES[@]}"; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
        [[ $status == installed ]] || missing+=("$pkg")
    done
    if ((${#missing[@]})); then
        SUDO=()
        if ((EUID != 0)); then
            command -v sudo >/dev/null || { say "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
            SUDO=(sudo)
        fi
        say "installing Debian packages: ${missing[*]}"
        quiet "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
        quiet "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
else
    say "warning: not a Debian system; install ${DEB_PACKAGES[*]} yourself (the pcap tests need tshark)" >&2
fi

# --- 2. Rust --------------------------------------------------------------------------
if ! command -v cargo >/dev/null; then
    [[ -x $HOME/.cargo/bin/cargo ]] || {
        say "installing Rust (rustup, minimal profile)"
        command -v curl >/dev/null || { say "need curl to install Rust" >&2; exit 1; }
        curl -sSf https://sh.rustup.rs | quiet sh -s -- -y --profile minimal
    }
    export PATH=$HOME/.cargo/bin:$PATH
fi

# --- 3. Python venv and pinned dependencies -------------------------------------------
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    say "need Python >= 3.11 (found $("$PYTHON" --version 2>&1)); set PYTHON=..." >&2
    exit 1
}
if [[ ! -x $VENV/bin/python ]]; then
    say "creating .venv"
    quiet "$PYTHON" -m venv "$VENV"
fi
mkdir -p "$STAMPS"
pyver=$("$VENV/bin/python" -c 'import sys; print(sys.version)')
deps_key=$( (hash_of pyproject.toml; echo "$pyver") | sha256sum | cut -d' ' -f1)
if [[ $(cat "$STAMPS/deps" 2>/dev/null) != "$deps_key" ]]; then
    say "installing pinned Python dependencies"
    mapfile -t reqs < <("$VENV/bin/python" - <<'PY'
import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))
for r in p["build-system"]["requires"] + p["project"]["dependencies"]:
    print(r)
for name, group in p["project"].get("optional-dependencies", {}).items():
    if name == "peers":  # ns-3 (~1 GB): installed on demand by `ecnlab bench peers`
        continue
    for r in group:
        print(r)
PY
    )
    quiet "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${reqs[@]}"
    rm -f "$STAMPS/install"
    echo "$deps_key" >"$STAMPS/deps"
fi

# --- 4. The engine extension ------------------------------------------------------------
export VIRTUAL_ENV=$VENV PATH=$VENV/bin:$PATH
install_key=$(hash_of pyproject.toml Cargo.toml crates/py/Cargo.toml)
if [[ $(cat "$STAMPS/install" 2>/dev/null) != "$install_key" ]] || ! "$VENV/bin/python" -c 'import ecnlab' 2>/dev/null; then
    say "building the engine (release) and installing ecnlab into .venv"
    quiet maturin develop --release
    echo "$install_key" >"$STAMPS/install"
else
    quiet maturin develop --release --skip-install
fi

# --- 5. The live-emulation router -------------------------------------------------------
# target/release/ecnlab-router (or $CARGO_TARGET_DIR/release/...): ECNLAB_ROUTER=... ecnlab emulate runs it.
quiet cargo build --release -p ecnlab-emu
say "ready ($("$VENV/bin/python" -c 'import ecnlab._core as c; print("ecnlab", c.version())'))"

"""Shared helpers: a small scenario, and running the real CLI in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

# A small dumbbell used by the error, lowering and end-to-end tests.
SMALL = """\
seed = 1
duration = "5s"

[topology]
kind = "dumbbell"
pairs = 10
access_rate = "10Mbit"
access_delay = "1ms"
bottleneck_rate = "1.5Mbit"
bottleneck_delay = "20ms"

[topology.bottleneck_queue]
kind = "red"
limit = 60
min_th = 5
max_th = 15
max_p = 0.1
wq = 0.002
ecn = true

[tcp]
ecn = true

[[flows]]
kind = "bulk"
from = "s*"
to = "r*"
"""


@dataclass
class Cli:
    """The outcome of one ``python -m ecnlab`` call."""

    returncode: int
    stdout: str
    stderr: str


def ctrl_c_as_in_a_terminal() -> None:
    """``preexec_fn`` for a child that a test interrupts with SIGINT: a shell starts background
    jobs with SIGINT ignored (POSIX), children inherit that, and Python then never raises
    KeyboardInterrupt; Ctrl-C in a terminal reaches a foreground job with SIGINT at its default.
    Restoring it makes those tests mean the same under ``make test &``, CI or a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(*args: str, cwd: Path) -> Cli:
    """Run ``python -m ecnlab ARGS`` in ``cwd`` (the package from this source tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    proc = subprocess.run(
        [sys.executable, "-m", "ecnlab", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    return Cli(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """``tmp_path/s.toml`` holding the small dumbbell."""
    path = tmp_path / "s.toml"
    path.write_text(SMALL)
    return path


def check_snapshot(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/snapshots/NAME``; ECNLAB_UPDATE_SNAPSHOTS=1 rewrites it."""
    path = SNAPSHOTS / name
    if os.environ.get("ECNLAB_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text)
    assert path.exists(), f"missing snapshot {path}; run with ECNLAB_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(), f"{name} changed; if intended, rerun with ECNLAB_UPDATE_SNAPSHOTS=1"


def texts_outside(fig) -> list[str]:  # type: ignore[no-untyped-def]
    """Titles, axis labels and legend texts of ``fig`` whose box is not inside the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    texts: list[Text] = [fig._suptitle] if fig._suptitle is not None else []
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    out = []
    for t in texts:
        if not t.get_visible() or not t.get_text().strip():
            continue
        b = t.get_window_extent(renderer)
        if b.x0 < box.x0 - 1 or b.x1 > box.x1 + 1 or b.y0 < box.y0 - 1 or b.y1 > box.y1 + 1:
            out.append(t.get_text())
    return out


#: Markers whose tests are slow by their nature: live emulation (namespaces, real time) and the
#: wheel (a build and a clean venv). Tests slow for their size carry ``@pytest.mark.slow`` themselves.
SLOW_BY_NATURE = ("emulation", "wheel")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark live-emulation and wheel tests ``slow``, so ``-m "not slow"`` leaves them out."""
    for item in items:
        if any(item.get_closest_marker(m) for m in SLOW_BY_NATURE):
            item.add_marker(pytest.mark.slow)

"""Render a report page in headless Chromium and read the DOM back (index-page tests).

The report pages carry no script; :func:`dump_dom` renders a copy beside the page
with one small script that writes each image's ``naturalWidth`` into the DOM
(``data-loaded-width``), so a test can tell a figure that loaded from a broken one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

PROBE = """<script>window.addEventListener('load', () => {
  for (const img of document.images) img.setAttribute('data-loaded-width', String(img.naturalWidth));
  document.body.setAttribute('data-probed', 'yes');
});</script>"""


def need_chromium() -> str:
    """The Chromium binary, or skip the test in one line."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    return CHROMIUM


def dump_dom(page: Path) -> str:
    """The DOM of ``page`` after load, with every image's naturalWidth recorded."""
    binary = need_chromium()
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    # --no-sandbox: Chromium refuses to run as root with its sandbox (CI containers run as root)
    args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"]
    done = subprocess.run(
        [*args, "--virtual-time-budget=5000", "--dump-dom", probe.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    probe.unlink()
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'data-probed="yes"' in done.stdout, "the page did not finish loading"
    return done.stdout

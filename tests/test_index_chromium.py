"""The index page a reader starts from (``reproduce``'s ``report.html`` of a group), as headless
Chromium renders it: every study has its row with the question, each claim with a verdict and a
reason, and its key figure actually loads (the browser decoded the PNG at its relative path)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ecnlab.experiments import reproduce, resolve

pytestmark = pytest.mark.engine

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Run after load: every image's decoded width into an attribute that --dump-dom shows.
PROBE = """<script>window.addEventListener("load", () => {
  for (const img of document.images) img.setAttribute("data-width", String(img.naturalWidth));
});</script>"""


def _render(page: Path) -> str:
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
           "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed: `make setup` installs it")
def test_each_study_has_its_row_claims_and_loaded_figure(tmp_path: Path) -> None:
    assert reproduce("dctcp2010", out=tmp_path, quick=True, progress=False).ok
    dom = _render(tmp_path / "report.html")
    for e in resolve("dctcp2010"):
        m = re.search(rf'<div class="study" id="study-{e.name}">(.*?)</div>\s*</section>', dom, re.S)
        assert m, f"no row for {e.name}"
        row = m.group(1)
        assert e.question is not None and e.question in row
        verdicts = re.findall(r'<span class="verdict"[^>]*>([^<]+)</span>', row)
        assert verdicts and set(verdicts) <= {"holds", "partly", "does not hold", "not run"}, verdicts
        widths = re.findall(r'<img src="[^"]+" alt="[^"]*" data-width="(\d+)"', row)
        assert widths and int(widths[0]) > 100, f"{e.name}: key figure not loaded ({widths})"

"""``ecnlab report``: a static report.html, rendered in headless Debian Chromium (Playwright, no browser download)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import SCENARIOS, run_cli, texts_outside
from ecnlab.report import FIGURE_METRICS, Report, markdown_to_html, report_title, sweep_report
from ecnlab.sweep import load_sweep, run_sweep

EXAMPLE = SCENARIOS / "sweep-red-ecn.toml"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example sweep with its report, written by the CLI from the stored results only."""
    tmp = tmp_path_factory.mktemp("report")
    out = tmp / "sweep"
    assert run_sweep(load_sweep(EXAMPLE), out, jobs=2, progress=False, stream=io.StringIO()).ok
    shutil.rmtree(out / "runs")  # the report reads the tables and the manifest, never the runs
    res = run_cli("report", str(out), cwd=tmp)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"wrote {out / 'report.html'}"
    return out


@pytest.mark.engine
def test_report_has_sweep_versions_tables_and_figures(reported: Path) -> None:
    page = (reported / "report.html").read_text()
    assert EXAMPLE.read_text().splitlines()[-1].replace('"', "&quot;") in page  # the sweep definition
    assert "git commit" in page and "pyarrow" in page
    assert page.count("<table") == 2  # means over seeds, all runs
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert len(srcs) == len(FIGURE_METRICS)
    for src in srcs:
        assert not src.startswith(("/", "file:", "http")), src  # relative: the directory can move
        assert (reported / src).is_file()
    assert "<script" not in page
    assert "<h1>10 Reno flows through a 1.5 Mbit/s RED bottleneck: ECN on/off x max_p</h1>" in page


def test_a_report_is_titled_with_the_sweeps_description() -> None:
    assert report_title({"description": "RED: ECN on/off", "sweep_file": "a/s.toml"}) == "RED: ECN on/off"
    assert report_title({"description": "", "sweep_file": "a/s.toml"}) == "ecnlab sweep: s.toml"


def _write_checking_figures(sweep: Path, page: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Write the report of ``sweep`` to ``page``; for each figure saved, the texts (title, axis
    labels, legend) whose bounding box is not inside the figure, i.e. clipped in the image."""
    from matplotlib.figure import Figure

    clipped: dict[str, list[str]] = {}
    save = Figure.savefig

    def checking(fig: Figure, fname: Any, *args: Any, **kwargs: Any) -> Any:
        clipped[Path(str(fname)).name] = texts_outside(fig)
        return save(fig, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checking)
    sweep_report(sweep, out=page)
    monkeypatch.undo()
    return clipped


@pytest.mark.engine
@pytest.mark.slow  # a headless browser
def test_report_renders_in_headless_chromium(reported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screenshot test: every figure loads, no console error, and no figure's
    title or label is cut at its edge."""
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is not installed; run scripts/setup.sh")
    sync_api = pytest.importorskip("playwright.sync_api")
    page_path = tmp_path / "page" / "report.html"
    clipped = _write_checking_figures(reported, page_path, monkeypatch)
    assert len(clipped) == 2 * len(FIGURE_METRICS)  # PNG and SVG of each
    assert {name: texts for name, texts in clipped.items() if texts} == {}
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
            page.goto(page_path.as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])"
            )
            title = page.title()
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert len(images) == len(FIGURE_METRICS)
    assert all(complete and width > 0 for _, complete, width in images), images
    assert errors == []
    assert title == "10 Reno flows through a 1.5 Mbit/s RED bottleneck: ECN on/off x max_p"  # the description
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_report_api_sections_markdown_and_copied_figures(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    (elsewhere / "fig.svg").write_text("<svg/>")
    report = Report("title <&>")
    report.add_section(
        "Paper vs ecnlab",
        "RED with **ECN** keeps `goodput_bps` up.\n\n- one\n- two",
        figures=[elsewhere / "fig.png"],
        tables=[("Table 1", pd.DataFrame({"a": [1.23456789], "b": ["x<y"]}))],
    )
    page = report.write(tmp_path / "out" / "report.html").read_text()
    assert "<title>title &lt;&amp;&gt;</title>" in page
    assert "<b>ECN</b>" in page and "<code>goodput_bps</code>" in page and "<ul><li>one</li><li>two</li></ul>" in page
    assert '<img src="figures/fig.png"' in page and '<a href="figures/fig.svg">SVG</a>' in page
    assert (tmp_path / "out" / "figures" / "fig.png").is_file() and (tmp_path / "out" / "figures" / "fig.svg").is_file()
    assert "1.235" in page and "x&lt;y" in page and "<b>Table 1</b>" in page


def test_markdown_escapes_html() -> None:
    assert markdown_to_html("a <b> [x](http://e.org) *i*") == '<p>a &lt;b&gt; <a href="http://e.org">x</a> <i>i</i></p>'


@pytest.mark.engine
def test_report_tables_show_units_and_scroll_inside_the_page(reported: Path) -> None:
    """Goodput in Mbit/s and utilisation in %, not 1.2167e+06 without a unit and a fraction."""
    page = (reported / "report.html").read_text()
    assert "goodput per flow (Mbit/s)" in page and "utilisation (%)" in page
    assert (
        "goodput_bps"
        not in re.sub(r"<pre>.*?</pre>", "", page, flags=re.S).split("Means over seeds")[1].split("</table>")[0]
    )
    assert not re.search(r"<td>\d\.\d+e\+0[6-9]</td>", page), "no bit/s in scientific notation"
    assert page.count('<div class="wide"><table') == 2
    runs = pd.read_parquet(reported / "runs.parquet")
    first = f"{runs['utilization'].iloc[0] * 100:.4g}"
    assert f"<td>{first}</td>" in page

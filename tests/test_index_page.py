"""The index page of `ecnlab reproduce all`: every study's question, claims with verdicts, key figure, links.

The synthetic test writes each registered part's ``claims.json`` and a small
figure (as a reproduce would) and renders the index in headless Chromium; the
real-output test is in test_rfc2884_reproduce.py (a tiny reproduce of three parts).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from chromium import dump_dom  # noqa: E402
from ecnlab.experiments import ALL, resolve  # noqa: E402
from ecnlab.experiments.framework import Claim, Verdict, studies, write_claims  # noqa: E402
from ecnlab.experiments.index import rows, write_index  # noqa: E402


def _png(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [0, 1])
    fig.savefig(path, dpi=50)
    plt.close(fig)
    return path


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    """Every part's directory with its claims (one of each verdict in turn) and its key figure."""
    verdicts = list(Verdict)
    for i, e in enumerate(resolve(ALL)):
        d = tmp_path / e.name
        d.mkdir()
        fig = _png(d / "figures" / e.key_figure) if e.key_figure else None
        claims = [
            Claim(f"claim {j} of {e.name}", verdicts[(i + j) % 4], f"reason {j} of {e.name}", "§1") for j in (0, 1)
        ]
        write_claims(d, claims, fig)
    return tmp_path


def test_rows_group_parts_by_study(root: Path) -> None:
    found = {r.name: r for r in rows(root, resolve(ALL))}
    for s in studies():
        assert s.name in found, s.name
        assert found[s.name].question == s.question
        assert [e.name for e in found[s.name].parts] == [p.name for p in s.parts]
        assert len(found[s.name].claims) == 2 * len(s.parts)


def test_a_part_without_claims_is_listed_as_not_run(root: Path) -> None:
    (root / "kuz-testbed" / "claims.json").unlink()
    row = next(r for r in rows(root, resolve(ALL)) if r.name == "kuzmanovic2005")
    assert row.skipped == ["kuz-testbed"]


def test_index_in_chromium_shows_each_study_with_claims_and_loaded_figure(root: Path) -> None:
    page = write_index(ALL, root, resolve(ALL), quick=True)
    dom = dump_dom(page)
    for s in studies():
        m = re.search(rf'<div class="study" id="study-{re.escape(s.name)}">(.*?)</div>', dom, re.S)
        assert m, f"no row for {s.name}"
        row = m.group(1)
        assert html.escape(s.question, quote=False) in row
        for p in s.parts:
            assert f"claim 0 of {p.name}" in row and f"reason 1 of {p.name}" in row
            assert f'href="{p.name}/report.html"' in row
        verdicts = re.findall(r'<li class="claim" data-verdict="([^"]+)"', row)
        assert len(verdicts) == 2 * len(s.parts) and set(verdicts) <= {v.value for v in Verdict}
        img = re.search(r'<img class="key-figure" src="([^"]+)"[^>]*data-loaded-width="(\d+)"', row)
        assert img, f"no key figure for {s.name}"
        assert (root / img.group(1)).is_file() and int(img.group(2)) > 0, img.groups()


def test_a_broken_figure_is_seen_as_not_loaded(root: Path) -> None:
    """The probe can fail: a key figure whose file is gone loads with width 0."""
    page = write_index(ALL, root, resolve(ALL), quick=True)
    first = next(e for e in resolve(ALL) if e.key_figure)
    (root / first.name / "figures" / str(first.key_figure)).unlink()
    widths = re.findall(r'src="([^"]+)"[^>]*data-loaded-width="(\d+)"', dump_dom(page))
    assert (f"{first.name}/figures/{first.key_figure}", "0") in widths


def test_a_skipped_live_study_shows_its_question_why_and_its_report(root: Path) -> None:
    """rfc2884-testbed without root: one part, no claims, no figure; the row still says what it asks."""
    (root / "rfc2884-testbed" / "claims.json").unlink()
    dom = dump_dom(write_index(ALL, root, resolve(ALL), quick=True))
    m = re.search(r'<div class="study" id="study-rfc2884-testbed">(.*?)</div>', dom, re.S)
    assert m, "no row for rfc2884-testbed"
    row = m.group(1)
    assert "No claims: this study's parts did not run here." in row
    assert "Not run here (see their reports): rfc2884-testbed." in row
    assert 'href="rfc2884-testbed/report.html"' in row and "key-figure" not in row

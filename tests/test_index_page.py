"""The index page of `ecnlab reproduce all`: a summary table, then every study's claims, key figure, links.

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
from ecnlab.experiments.index import rows, verdict_counts, write_index  # noqa: E402


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


def test_verdict_counts_name_every_verdict() -> None:
    claims = [Claim("c", v, "r") for v in (Verdict.HOLDS,) * 5 + (Verdict.PARTLY,)]
    assert verdict_counts(claims) == "5 holds, 1 partly, 0 does not hold, 0 not run"
    assert verdict_counts([]) == "0 holds, 0 partly, 0 does not hold, 0 not run"


def _summary_rows(dom: str) -> dict[str, tuple[str, str]]:
    """The summary table's lines: study → (question, verdicts counted)."""
    found = re.findall(
        r'<tr class="summary-row" data-study="([^"]+)"><td><a href="#study-[^"]+">[^<]+</a></td>'
        r"<td>(.*?)</td><td class=\"counts\">(.*?)</td></tr>",
        dom,
        re.S,
    )
    return {name: (question, counts) for name, question, counts in found}


def test_the_page_opens_with_one_summary_line_per_study_counting_its_verdicts(root: Path) -> None:
    """floyd1994's parts get five claims that hold and one partly; the summary counts them, above every study."""
    floyd = next(s for s in studies() if s.name == "floyd1994")
    verdicts = [Verdict.HOLDS] * 5 + [Verdict.PARTLY]
    per_part = [verdicts[: len(verdicts) // 2], verdicts[len(verdicts) // 2 :]]
    for part, vs in zip(floyd.parts, per_part, strict=True):
        write_claims(root / part.name, [Claim(f"c{i}", v, "r") for i, v in enumerate(vs)], None)
    (root / "rfc2884-testbed" / "claims.json").unlink()
    dom = dump_dom(write_index(ALL, root, resolve(ALL), quick=True))
    summary = _summary_rows(dom)
    assert list(summary) == [r.name for r in rows(root, resolve(ALL))]
    assert summary["floyd1994"] == (
        html.escape(floyd.question, quote=False),
        "5 holds, 1 partly, 0 does not hold, 0 not run",
    )
    assert summary["rfc2884-testbed"][1] == "not run here"
    for s in studies():
        row = next(r for r in rows(root, resolve(ALL)) if r.name == s.name)
        assert summary[s.name][1] in (verdict_counts(row.claims), "not run here")
    assert dom.index('class="summary-row"') < dom.index('<div class="study"')

"""Every study page opens with today's answer, whose verdict count is its claims table's, and keeps no run log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT
from ecnlab.experiments.framework import Claim, Verdict, studies
from ecnlab.experiments.index import verdict_counts

PAGES = sorted(p for p in (ROOT / "docs" / "experiments").glob("*.md") if p.name != "README.md")


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 4)
    return text[start : end if end >= 0 else len(text)]


def claims_table_verdicts(text: str) -> list[Verdict]:
    """The verdict column of the page's claims table ("not run here" is not run; a note in brackets is dropped)."""
    rows = [ln for ln in _section(text, "Claims").splitlines() if ln.startswith("|")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    col = next(i for i, c in enumerate(head) if c.startswith("verdict"))
    out = []
    for row in rows[2:]:
        cell = [c.strip() for c in row.strip().strip("|").split("|")][col]
        name = re.sub(r"\s*\(.*\)$", "", cell).removesuffix(" here")
        out.append(Verdict(name))
    return out


def test_every_registered_study_has_a_page() -> None:
    for s in studies():
        if s.doc:
            assert (ROOT / s.doc) in PAGES, s.doc


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_page_opens_with_todays_answer_counting_its_claims(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert re.findall(r"^## .*", text, re.M)[0] == "## Today's answer"
    verdicts = claims_table_verdicts(text)
    assert verdicts, "no claims table"
    counts = verdict_counts([Claim("c", v, "r") for v in verdicts])
    assert f"Verdicts of the claims below: {counts}." in _section(text, "Today's answer")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_page_keeps_no_run_log(page: Path) -> None:
    """No dates, commit ids, ticket numbers or History sections: git history has those."""
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)
    assert not re.search(r"`[0-9a-f]{7,40}`|\bcommit [0-9a-f]{7}", text)
    assert "## History" not in text
    assert not re.search(r"\bissue \d+", text)

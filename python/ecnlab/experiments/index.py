"""The index page of ``ecnlab reproduce`` of several experiments: the page a reader starts from.

It opens with one summary table, one line per study: the study, its question
and its claims' verdicts counted by name ("5 holds, 1 partly, 0 does not
hold, 0 not run"). Then, for every study: its question, each claim with
ecnlab's verdict and a one-line reason, its key figure, then the links to the
parts' reports and tables. Everything is read from the ``claims.json`` each
part wrote, so nothing here is typed in by hand. Experiments outside a study
get a row of their own.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ecnlab.experiments.framework import Claim, Study, Verdict, read_claims, studies

if TYPE_CHECKING:
    from ecnlab.experiments import Experiment

__all__ = ["write_index", "Row", "rows", "verdict_counts", "summary_html"]

_VERDICT_CSS = """
.verdict { font-weight: 600; padding: 0 .35rem; border-radius: .2rem; white-space: nowrap; }
.v-holds { background: #d8f0d8; } .v-partly { background: #fbefc8; }
.v-does-not-hold { background: #f7d4d4; } .v-not-run { background: #e8e8e8; }
ul.claims { padding-left: 1.2rem; } ul.claims li { margin: .25rem 0; }
table.summary td { vertical-align: top; } table.summary td.counts { white-space: nowrap; }
.reason { color: #444; font-size: 14px; } p.question { font-style: italic; } p.part { margin: .6rem 0 0; }
"""


@dataclass
class Row:
    """One study on the index: its question, the parts that ran, their claims and a key figure."""

    name: str
    question: str
    parts: list[Experiment]
    claims: list[Claim] = field(default_factory=list)
    figure: str | None = None  # relative to the index page
    skipped: list[str] = field(default_factory=list)  # parts without claims.json (skipped or failed)


def rows(root: Path, exps: Sequence[Experiment]) -> list[Row]:
    """The index rows, one per study in the order first met; parts in the study's own order."""
    out: dict[str, Row] = {}
    order: dict[str, int] = {}
    for e in exps:
        study = _study(e)
        key = study.name if study is not None else e.name
        if key not in out:
            out[key] = Row(key, study.question if study is not None else e.title, [])
        out[key].parts.append(e)
        if study is not None:
            order |= {p.name: i for i, p in enumerate(study.parts)}
    for row in out.values():
        row.parts.sort(key=lambda e: order.get(e.name, len(order)))
        _fill(root, row)
    return list(out.values())


def _fill(root: Path, row: Row) -> None:
    """The row's claims, key figure and skipped parts, from what each part wrote."""
    for e in row.parts:
        got = read_claims(root / e.name)
        if not got.found:
            row.skipped.append(e.name)
            continue
        row.claims.extend(got.claims)
        if row.figure is None and got.key_figure is not None:
            row.figure = f"{e.name}/{got.key_figure}"


def _study(e: Experiment) -> Study | None:
    """The study an experiment belongs to (its ``study`` field), if registered."""
    return next((s for s in studies() if s.name == e.study), None) if e.study else None


def verdict_counts(claims: Sequence[Claim]) -> str:
    """The claims counted by verdict, every verdict named: "5 holds, 1 partly, 0 does not hold, 0 not run"."""
    return ", ".join(f"{sum(c.verdict is v for c in claims)} {v.value}" for v in Verdict)


def summary_html(found: Sequence[Row]) -> str:
    """One table, one line per study: its name (a link to its row), its question, its verdicts counted."""
    lines = []
    for row in found:
        name = html.escape(row.name)
        counts = verdict_counts(row.claims) if row.claims else "not run here"
        lines.append(
            f'<tr class="summary-row" data-study="{name}"><td><a href="#study-{name}">{name}</a></td>'
            f'<td>{html.escape(row.question)}</td><td class="counts">{html.escape(counts)}</td></tr>'
        )
    head = "<tr><th>study</th><th>question</th><th>verdicts of its claims</th></tr>"
    return f'<style>{_VERDICT_CSS}</style><table class="summary">{head}{"".join(lines)}</table>'


def _claim_html(c: Claim) -> str:
    css = "v-" + c.verdict.value.replace(" ", "-")
    src = f" ({html.escape(c.source)})" if c.source else ""
    return (
        f'<li class="claim" data-verdict="{html.escape(c.verdict.value)}">'
        f'<span class="verdict {css}">{html.escape(c.verdict.value)}</span> '
        f'{html.escape(c.text)}{src}<br><span class="reason">{html.escape(c.reason)}</span></li>'
    )


def _claims_html(claims: Sequence[Claim]) -> str:
    """The claims, under the name of the part that checked them when the study has several."""
    parts = list(dict.fromkeys(c.part for c in claims))
    if len(parts) == 1:
        return '<ul class="claims">' + "".join(_claim_html(c) for c in claims) + "</ul>"
    groups = []
    for part in parts:
        items = "".join(_claim_html(c) for c in claims if c.part == part)
        groups.append(f'<p class="part"><b>{html.escape(part)}</b></p><ul class="claims">{items}</ul>')
    return "".join(groups)


def _links(root: Path, e: Experiment) -> str:
    from ecnlab.report import REPORT_FILE

    tables = sorted((root / e.name / "tables").glob("*.md"))
    items = "".join(f'<a href="{e.name}/tables/{t.name}">{t.stem}</a> ' for t in tables)
    return f'<li><a href="{e.name}/{REPORT_FILE}">{html.escape(e.name)}</a>: {html.escape(e.title)}<br>{items}</li>'


def row_html(root: Path, row: Row) -> str:
    """A study's section body: question, claims, key figure, links."""
    out = [f'<div class="study" id="study-{html.escape(row.name)}">']
    out.append(f'<p class="question">{html.escape(row.question)}</p>')
    if row.claims:
        out.append(_claims_html(row.claims))
    else:
        out.append("<p>No claims: this study's parts did not run here.</p>")
    if row.skipped:
        out.append(f"<p>Not run here (see their reports): {html.escape(', '.join(row.skipped))}.</p>")
    if row.figure is not None:
        src = html.escape(row.figure)
        out.append(
            f'<figure><a href="{src}"><img class="key-figure" src="{src}" alt="{html.escape(row.name)} key figure">'
            f"</a><figcaption>{src}</figcaption></figure>"
        )
    out.append('<ul class="links">' + "".join(_links(root, e) for e in row.parts) + "</ul></div>")
    return "\n".join(out)


def write_index(name: str, root: Path, exps: Sequence[Experiment], *, quick: bool) -> Path:
    """``root/report.html``: the summary table, then every study's question, claims with verdicts, key figure, links."""
    from ecnlab.report import REPORT_FILE, Report

    form = "quick form" if quick else "full form"
    found = rows(root, exps)
    report = Report(f"ecnlab reproduce {name}", subtitle=f"{len(found)} studies, {len(exps)} experiments, {form}")
    report.add_section("Today's answers", html_body=summary_html(found))
    report.add_section("How to read this page", html_body=_legend())
    for row in found:
        report.add_section(row.name, html_body=row_html(root, row))
    return report.write(root / REPORT_FILE)


def _legend() -> str:
    return (
        "<p>Each study asks one question of a paper. Each claim is the paper's "
        "statement with ecnlab's verdict, computed from this run's results: "
        '<span class="verdict v-holds">holds</span> <span class="verdict v-partly">partly</span> '
        '<span class="verdict v-does-not-hold">does not hold</span> <span class="verdict v-not-run">not run</span>'
        " (the grid lacks the case). Quick forms use few seeds: read verdicts as indications and follow the "
        "links for the numbers.</p>"
    )

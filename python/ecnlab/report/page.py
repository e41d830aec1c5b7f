"""A static HTML report: sections of prose, figures and tables in one self-contained file.

The page uses no script, no web fonts and no network: it opens from disk in
any browser. Figures are copied into ``figures/`` beside the page (unless
they are already under the page's directory) and linked relatively, so the
directory can be moved or archived as a whole.

>>> r = Report("maxp sweep")
>>> r.add_section("Goodput", "RED *with* ECN keeps `goodput_bps` up.", figures=["f.png"])  # doctest: +SKIP
>>> r.write("out/sweep/report.html")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ecnlab.files import write_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Report", "Section", "markdown_to_html"]

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 68rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
pre { background: #f6f6f6; padding: .6rem; overflow-x: auto; font-size: 13px; }
code { background: #f2f2f2; padding: 0 .2rem; }
table { border-collapse: collapse; font-size: 13px; margin: .6rem 0; }
div.wide { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: .15rem .45rem; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .1rem 1rem; font-size: 14px; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
"""


@dataclass
class Section:
    """One ``<section>``: a title, HTML body, figures (image paths) and tables (captioned DataFrames)."""

    title: str
    body_html: str = ""
    figures: list[Path] = field(default_factory=list)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)


class Report:
    """An HTML report assembled from sections; :meth:`write` renders it."""

    def __init__(self, title: str, *, subtitle: str = "") -> None:
        self.title = title
        self.subtitle = subtitle
        self.sections: list[Section] = []

    def add_section(
        self,
        title: str,
        text: str = "",
        *,
        html_body: str | None = None,
        figures: Sequence[str | Path] = (),
        tables: Sequence[pd.DataFrame | tuple[str, pd.DataFrame]] = (),
    ) -> Section:
        """Add a section: ``text`` is light Markdown (or pass ``html_body``), then figures and tables."""
        body = html_body if html_body is not None else markdown_to_html(text)
        named = [t if isinstance(t, tuple) else ("", t) for t in tables]
        section = Section(title, body, [Path(f) for f in figures], named)
        self.sections.append(section)
        return section

    def write(self, path: str | Path) -> Path:
        """Write the page (and copy figures beside it); return its path."""
        page = Path(path)
        page.parent.mkdir(parents=True, exist_ok=True)
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="data:,">',
            f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head><body>",
            f"<h1>{html.escape(self.title)}</h1>",
        ]
        if self.subtitle:
            parts.append(f"<p>{html.escape(self.subtitle)}</p>")
        if len(self.sections) > 2:
            links = "".join(f'<li><a href="#s{i}">{html.escape(s.title)}</a></li>' for i, s in enumerate(self.sections))
            parts.append(f"<nav><ul>{links}</ul></nav>")
        for i, s in enumerate(self.sections):
            parts.append(self._section(i, s, page.parent))
        parts.append("</body></html>\n")
        write_text(page, "\n".join(parts))
        return page

    def _section(self, i: int, s: Section, root: Path) -> str:
        out = [f'<section id="s{i}"><h2>{html.escape(s.title)}</h2>', s.body_html]
        for fig in s.figures:
            out.append(_figure(fig, root))
        for caption, frame in s.tables:
            out.append(_table(caption, frame))
        out.append("</section>")
        return "\n".join(out)


def _figure(path: Path, root: Path) -> str:
    """An ``<img>`` of the PNG (linking the SVG when there is one), relative to the page."""
    rel = _place(path, root)
    svg = path.with_suffix(".svg")
    link = ""
    if path.suffix.lower() == ".png" and svg.is_file():
        link = f' · <a href="{html.escape(_place(svg, root))}">SVG</a>'
    alt = html.escape(path.stem.replace("-", " "))
    return (
        f'<figure><img src="{html.escape(rel)}" alt="{alt}">'
        f"<figcaption>{html.escape(path.name)}{link}</figcaption></figure>"
    )


def _place(path: Path, root: Path) -> str:
    """The figure's path relative to ``root``, copying it into ``root/figures`` if it lies elsewhere."""
    src = path.resolve()
    try:
        return src.relative_to(root.resolve()).as_posix()
    except ValueError:
        target = root / "figures" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        return f"figures/{path.name}"


def _table(caption: str, frame: pd.DataFrame) -> str:
    text = str(frame.to_html(index=False, border=0, na_rep="–", float_format=_fmt_float, escape=True))
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    return f'{cap}<div class="wide">{text}</div>'  # a wide table scrolls inside the page, not past it


def _fmt_float(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1e6 else f"{x:.4e}"


def markdown_to_html(text: str) -> str:
    """Light Markdown: paragraphs, ``- `` lists, ``# `` headings, `code`, **bold**, *italic*, [links](url)."""
    blocks = re.split(r"\n\s*\n", text.strip()) if text.strip() else []
    out = []
    for block in blocks:
        lines = block.splitlines()
        if all(line.lstrip().startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline(line.lstrip()[2:])}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
        elif lines[0].startswith("#"):
            level = min(len(lines[0]) - len(lines[0].lstrip("#")) + 2, 6)
            out.append(f"<h{level}>{_inline(lines[0].lstrip('#').strip())}</h{level}>")
            if lines[1:]:
                out.append(f"<p>{_inline(' '.join(lines[1:]))}</p>")
        else:
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(out)


def _inline(text: str) -> str:
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part)
        s = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)
        s = re.sub(r"\*(.+?)\*", r"<i>\1</i>", s)
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', s)
        out.append(s)
    return "".join(out)

"""What every study states in the same shape: its question, its paper's numbers beside ecnlab's
(:class:`PaperValue`), and its claims with a verdict and a one-line reason (:class:`Claim`).

A study gives :class:`~ecnlab.experiments.Experiment` a ``question`` (one sentence), a
``claims`` function ``(SweepResults, tables) -> list[Claim]`` computed from its results (never
written by hand), and a ``key_figure`` (the stem of one of its figures). ``reproduce`` then
writes ``claims.json`` and ``tables/claims.csv|md`` beside the report, adds a "Claims" section
to it, and the index page of a group shows every study's question, claims and key figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

import pandas as pd

__all__ = [
    "Verdict",
    "Claim",
    "PaperValue",
    "claims_frame",
    "claims_from_table",
    "write_claims",
    "read_claims",
    "CLAIMS_FILE",
]

CLAIMS_FILE = "claims.json"


class Verdict(str, Enum):
    """Whether ecnlab's results bear a claim out."""

    HOLDS = "holds"
    PARTLY = "partly"
    DOES_NOT_HOLD = "does not hold"
    NOT_RUN = "not run"

    @staticmethod
    def of_count(k: int, n: int) -> Verdict:
        """All n cases agree: holds; none: does not hold; some: partly; no case: not run."""
        if n == 0:
            return Verdict.NOT_RUN
        if k == n:
            return Verdict.HOLDS
        return Verdict.DOES_NOT_HOLD if k == 0 else Verdict.PARTLY


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked: ``text`` (the paper's words or their gist), ``source``
    (section or figure), the ``verdict`` and a one-line ``reason`` with the numbers."""

    text: str
    source: str
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class PaperValue:
    """A number the paper reports beside ecnlab's for the same quantity (``ecnlab`` None: not run)."""

    quantity: str
    source: str
    paper: float
    ecnlab: float | None
    unit: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ecnlab is None or self.paper == 0 or math.isnan(self.ecnlab):
            return None
        return self.ecnlab / self.paper


def claims_frame(claims: Sequence[Claim]) -> pd.DataFrame:
    """The claims as a table: claim, source, verdict, reason."""
    rows = [{"claim": c.text, "source": c.source, "verdict": c.verdict.value, "reason": c.reason} for c in claims]
    return pd.DataFrame(rows, columns=["claim", "source", "verdict", "reason"])


def write_claims(d: Path, claims: Sequence[Claim]) -> Path:
    """``d/claims.json``: the claims in order, verdicts as their words."""
    path = d / CLAIMS_FILE
    data = [{**asdict(c), "verdict": c.verdict.value} for c in claims]
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_claims(d: Path) -> list[Claim] | None:
    """The claims ``write_claims`` wrote in ``d`` (None when there are none)."""
    path = d / CLAIMS_FILE
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Claim(c["text"], c["source"], Verdict(c["verdict"]), c["reason"]) for c in data]


_WORDS = {
    "yes": Verdict.HOLDS,
    "holds": Verdict.HOLDS,
    "partly": Verdict.PARTLY,
    "no": Verdict.DOES_NOT_HOLD,
    "does not hold": Verdict.DOES_NOT_HOLD,
    "not run": Verdict.NOT_RUN,
}


def _verdict_of(value: object) -> Verdict:
    """A verdict from a study's own claims column: a boolean (None: not run) or a word."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Verdict.NOT_RUN
    if isinstance(value, bool):
        return Verdict.HOLDS if value else Verdict.DOES_NOT_HOLD
    return _WORDS[str(value).strip().lower()]


def claims_from_table(frame: pd.DataFrame, source: str, *, text: str = "claim", verdict: str = "ecnlab") -> list[Claim]:
    """The claims a study already tabulates (one row a claim: its ``text`` column, its ``verdict``
    column as a boolean or a word, ``source`` column if any) with the other columns as the reason."""
    rest = [c for c in frame.columns if c not in (text, verdict, "source", "section", "check")]
    out = []
    for row in frame.to_dict("records"):
        shown = [(k, _show(row[k])) for k in rest if _show(row[k])]
        reason = shown[0][1] if len(rest) == 1 and shown else "; ".join(f"{k} {v}" for k, v in shown)
        where = str(row.get("source") or row.get("section") or source)
        out.append(Claim(str(row[text]), where, _verdict_of(row[verdict]), reason or "–"))
    return out


def _show(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.3g}" if isinstance(v, float) else str(v)

"""RFC 2884's conclusions as the framework's claims, each checked on the summary tables.

Rules fixed before reading results (docs/experiments/rfc2884.md):

- a number the RFC prints is matched when ecnlab's mean is within
  ``PAPER_MATCH`` of it (relative);
- "no bias" between two cases: their 95 % intervals overlap at every max_p;
- a trend "rises" when the last mean is above the first (per TCP variant);
- "an advantage": the mean gain is above zero at the grid point.
"""

from __future__ import annotations

import pandas as pd

from ecnlab.experiments.framework import Claim, PaperValue, Verdict

__all__ = ["fairness_claims", "bulk_claims", "transactional_claims", "paper_values", "PAPER_MATCH"]

PAPER_MATCH = 0.02  # fairness indices: the RFC's are 0.979–0.997, so 2 % separates "close" from "far"
TREND_PAPER_MATCH = 0.5  # relative advantages: within half of the printed percentage


def paper_values(t: pd.DataFrame, metric: str, keys: list[str], source: str) -> list[PaperValue]:
    """Every grid point where the RFC prints a number, with ecnlab's mean and interval."""
    out = []
    for _, r in t[t[f"paper_{metric}"].notna()].iterrows():
        name = ", ".join(f"{k} {r[k]}" for k in keys)
        out.append(PaperValue(name, float(r[f"paper_{metric}"]), source, float(r[metric]), float(r[f"{metric}_ci95"])))
    return out


def _matched(values: list[PaperValue], rel: float, what: str, source: str) -> Claim:
    oks = [v.within(rel) for v in values]
    k, n = sum(bool(x) for x in oks), sum(x is not None for x in oks)
    worst = max(values, key=lambda v: abs(v.diff), default=None)
    reason = f"{k} of {n} printed numbers within {rel:.0%}"
    if worst is not None:
        reason += f"; farthest: {worst.name}: paper {worst.paper:.3g}, ecnlab {worst.ecnlab:.3g}"
    return Claim(f"ecnlab reproduces the RFC's {what}", Verdict.of_share(k, n), reason, source)


def _rises(t: pd.DataFrame, by: str, order: list[object], metric: str) -> tuple[list[bool | None], list[str]]:
    oks: list[bool | None] = []
    words = []
    for v, g in t.groupby("variant", sort=False):
        means = [g[g[by] == x][metric].mean() for x in order if (g[by] == x).any()]
        oks.append(None if len(means) < 2 else bool(means[-1] > means[0]))
        words.append(f"{v} " + " → ".join(f"{100 * m:+.0f} %" for m in means))
    return oks, words


def fairness_claims(t: pd.DataFrame) -> list[Claim]:
    """§5.1: the background's kind does not bias fairness; the printed indices."""
    both = t.pivot_table(index="maxp", columns="background", values=["fairness", "fairness_ci95"])
    if both["fairness"].shape[1] != 2:
        bias = Claim("ECN or non-ECN background flows do not bias fairness", Verdict.NOT_RUN, "one background only")
    else:
        gap = (both["fairness"].max(axis=1) - both["fairness"].min(axis=1)).abs()
        ok = gap <= both["fairness_ci95"].sum(axis=1)
        bias = Claim(
            "ECN or non-ECN background flows do not bias fairness",
            Verdict.of_share(int(ok.sum()), len(ok)),
            f"95 % intervals overlap at {int(ok.sum())} of {len(ok)} max_p values (largest gap {gap.max():.4f})",
            "§5.1",
        )
    printed = paper_values(t, "fairness", ["background", "maxp"], "§5.1 table")
    return [bias, _matched(printed, PAPER_MATCH, "Jain's indices", "§5.1 table")]


def bulk_claims(t: pd.DataFrame) -> list[Claim]:
    """§5.2: ECN's advantage is positive and grows with congestion and with max_p."""
    pos = t.advantage > 0
    by_c, words_c = _rises(t[t.maxp == 0.1], "congestion", ["low", "moderate", "high"], "advantage")
    high = t[t.congestion == "high"]
    by_p, words_p = _rises(high, "maxp", sorted(high.maxp.unique()), "advantage")
    printed = paper_values(t, "advantage", ["variant", "congestion", "maxp"], "§5.2")
    return [
        Claim("ECN gives 20 MB bulk transfers more goodput than non-ECN", Verdict.of_share(int(pos.sum()), len(pos)),
              f"mean advantage > 0 at {int(pos.sum())} of {len(pos)} grid points", "§5.2"),
        Claim("ECN's advantage grows with the congestion level (max_p 0.1)", Verdict.of_all(by_c),
              "; ".join(words_c) or "no max_p 0.1 points", "§5.2"),
        Claim("At high congestion ECN's advantage grows with max_p", Verdict.of_all(by_p),
              "; ".join(words_p) or "no high-congestion points", "§5.2"),
        _matched(printed, TREND_PAPER_MATCH, "bulk advantages", "§5.2"),
    ]  # fmt: skip


def transactional_claims(t: pd.DataFrame) -> list[Claim]:
    """§5.3: ECN raises the transaction rate, more so at higher congestion and for short responses."""
    pos = t.gain > 0
    first = t[t.response == t.response.iloc[0]] if len(t) else t
    by_c, words_c = _rises(first[first.maxp == 0.1], "congestion", ["moderate", "high"], "gain")
    sizes = list(dict.fromkeys(t.response))
    by_s, words_s = _rises(t, "response", sizes, "gain")
    shrinks = [None if x is None else not x for x in by_s]
    printed = paper_values(t, "gain", ["variant", "congestion", "response", "maxp"], "§5.3")
    return [
        Claim("ECN raises the transactions per second of TCP_CRR clients", Verdict.of_share(int(pos.sum()), len(pos)),
              f"mean gain > 0 at {int(pos.sum())} of {len(pos)} grid points", "§5.3"),
        Claim("The gain grows from moderate to high congestion (max_p 0.1, smallest response)", Verdict.of_all(by_c),
              "; ".join(words_c) or "no max_p 0.1 points", "§5.3"),
        Claim("The gain shrinks as the response grows", Verdict.of_all(shrinks),
              "mean gain by size " + ("; ".join(words_s) or "n/a"), "§5.3"),
        _matched(printed, TREND_PAPER_MATCH, "transactional gains", "§5.3"),
    ]  # fmt: skip

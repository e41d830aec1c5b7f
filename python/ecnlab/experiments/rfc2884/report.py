"""The RFC 2884 section of report.html: what the paper claims, what ecnlab shows, and why they differ.

Every sentence that states a number or a trend is computed from the summary
tables, and the paper's numbers are read from :mod:`.paper`, so the text
cannot claim agreement the data does not show. The
explanations of disagreements name mechanisms checked in ecnlab's own runs
(docs/experiments/rfc2884.md has the details).
"""

from __future__ import annotations

import math

import pandas as pd

from ecnlab.experiments.rfc2884.paper import BULK_ADVANTAGE, TRANSACTIONAL_GAIN, TRANSACTIONAL_TPS_ECN

__all__ = ["section", "trend_words", "pct", "paper_bulk_line", "paper_transactional_line"]

Tables = list[tuple[str, pd.DataFrame]]


def pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.0f} %"


def _pp(x: float) -> str:
    return f"{100 * x:.0f} %"


def paper_bulk_line() -> str:
    """The RFC's bulk advantages (paper.py): with congestion at max_p 0.1, with max_p at high congestion."""
    a = BULK_ADVANTAGE
    by_v = [
        f"{v}: {_pp(a[v, 'low', 0.1])} → {_pp(a[v, 'high', 0.1])} with congestion at max_p 0.1, "
        f"{_pp(a[v, 'high', 0.02])} → {_pp(a[v, 'high', 0.5])} with max_p at high congestion"
        for v in ("reno", "sack")
    ]
    return f"Paper: {'; '.join(by_v)}. The `bulk` table puts each number beside ecnlab's."


def paper_transactional_line() -> str:
    """The RFC's 5 KB transactional gains and the ECN client's rate (paper.py)."""
    g, tps = TRANSACTIONAL_GAIN, TRANSACTIONAL_TPS_ECN
    by_v = [
        f"{v}: {_pp(g[v, 'moderate', '5KB', 0.1])} → {_pp(g[v, 'high', '5KB', 0.1])} (moderate → high, max_p 0.1), "
        f"{_pp(g[v, 'high', '5KB', 0.02])} → {_pp(g[v, 'high', '5KB', 0.5])} (high congestion, rising max_p)"
        for v in ("reno", "sack")
    ]
    rate = f"{tps['reno', 'high', '5KB', 0.02]:g} → {tps['reno', 'high', '5KB', 0.5]:g}"
    return (
        f"Paper (5 KB responses): {'; '.join(by_v)}; Reno's ECN client {rate} transactions/s at high congestion, "
        "rising max_p; the gain shrinks as the response grows."
    )


def trend_words(values: list[float]) -> str:
    """'rises' / 'falls' (monotonically), else the direction from first to last, for a few means."""
    pairs = list(zip(values, values[1:], strict=False))
    if all(b > a for a, b in pairs):
        return "rises"
    if all(b < a for a, b in pairs):
        return "falls"
    if values[-1] > values[0]:
        return "rises overall, not monotonically,"
    if values[-1] < values[0]:
        return "falls overall, not monotonically,"
    return "does not change monotonically"


def _pick(t: pd.DataFrame, **where: object) -> pd.DataFrame:
    for k, v in where.items():
        t = t[t[k] == v]
    return t


def _region(q: pd.DataFrame) -> str:
    lo, hi = float(q["min_th"].iloc[0]), float(q["max_th"].iloc[0])
    return (
        f"RED region check (thresholds from the rule in `thresholds.py`: min_th {lo:g}, max_th {hi:g} packets): "
        f"the mean RED average over the measuring period ranged {q['avg_queue_pkts'].min():.1f}–"
        f"{q['avg_queue_pkts'].max():.1f} packets across the grid; on average {100 * q['share_inside'].mean():.0f} % "
        f"of the 1 s samples were inside [min_th, max_th], {100 * q['share_below'].mean():.0f} % below and "
        f"{100 * q['share_above'].mean():.0f} % above (largest share above at any point: "
        f"{100 * q['share_above'].max():.0f} %). The `*_queue_region` table lists every point."
    )


def _fairness(tables: Tables) -> str:
    t, q = dict(tables)["fairness"], dict(tables)["fairness_queue_region"]
    lines = []
    for bg in dict.fromkeys(t["background"]):
        g = _pick(t, background=bg)
        lines.append(f"- background {bg}: ecnlab {g['fairness'].min():.4f}–{g['fairness'].max():.4f} over max_p "
                     f"{g['maxp'].min():g}–{g['maxp'].max():g}; paper {g['paper_fairness'].min():.4f}–"
                     f"{g['paper_fairness'].max():.4f} where given")  # fmt: skip
    both = t.pivot_table(index="maxp", columns="background", values="fairness")
    gap = (both.max(axis=1) - both.min(axis=1)).max() if both.shape[1] == 2 else float("nan")
    ratio = (t["drops_nonecn"].sum() / t["marks_ecn"].sum()) if t["marks_ecn"].sum() else float("nan")
    return "\n\n".join([
        "Jain's index over all four flows (2 background + 2 competing), measured over the 100 s all four run.",
        "\n".join(lines),
        f"The paper's conclusion is that the kind of background flow does not bias the results. In ecnlab the "
        f"largest difference between ECN and non-ECN background at one max_p is {gap:.4f}. Packets dropped for "
        f"the non-ECN competing flow vs packets marked for the ECN one (paper: about equal): ratio {ratio:.2f} "
        f"over the whole grid.",
        _region(q),
    ])  # fmt: skip


def _bulk(tables: Tables) -> str:
    t, q = dict(tables)["bulk"], dict(tables)["bulk_queue_region"]
    out = ["Relative ECN advantage = (goodput ECN − goodput non-ECN) / goodput non-ECN of the two 20 MB transfers."]
    items = []
    for v in dict.fromkeys(t["variant"]):
        by_c = [_pick(t, variant=v, congestion=c, maxp=0.1)["advantage"].mean() for c in ("low", "moderate", "high")]
        hi = _pick(t, variant=v, congestion="high").sort_values("maxp")
        by_p = hi["advantage"].tolist()
        items.append(
            f"- {v}: at max_p 0.1 the advantage {trend_words(by_c)} with congestion "
            f"({', '.join(pct(x) for x in by_c)} for low/moderate/high); at high congestion it "
            f"{trend_words(by_p)} with max_p ({', '.join(pct(x) for x in by_p)} for max_p "
            f"{', '.join(f'{m:g}' for m in hi['maxp'])})"
        )
    out.append("\n".join(items))
    out.append(paper_bulk_line())
    hi = _pick(t, congestion="high")
    out.append(
        f"Retransmissions per 20 MB transfer, mean over the grid: ECN {t['retransmits_ecn'].mean():.1f}, "
        f"non-ECN {t['retransmits_nonecn'].mean():.1f}; timeouts: ECN {t['timeouts_ecn'].mean():.1f}, "
        f"non-ECN {t['timeouts_nonecn'].mean():.1f}. At high congestion the ECN transfer took "
        f"{hi['timeouts_ecn'].mean():.1f} timeouts while only {hi['dropped_ecn'].mean():.1f} of its packets were "
        f"dropped (its data is ECN-capable and RED marks it even above max_th): the rest are RFC 3168 §6.1.2 "
        f"holds — ecnlab halves a window of fewer than four segments to one, and a further ECE at one segment "
        f"waits for the retransmission timer. Unfinished transfers: {int(t['unfinished'].sum())}."
    )
    out.append(_region(q))
    return "\n\n".join(out)


def _transactional(tables: Tables) -> str:
    t, q = dict(tables)["transactional"], dict(tables)["transactional_queue_region"]
    out = [
        "Transactions per second of each TCP_CRR client over the 180 s after it starts; "
        "gain = (tps ECN − tps non-ECN) / tps non-ECN."
    ]
    items = []
    for v in dict.fromkeys(t["variant"]):
        sizes = list(dict.fromkeys(t["response"]))
        by_size = [_pick(t, variant=v, response=r)["gain"].mean() for r in sizes]
        five = _pick(t, variant=v, response=sizes[0])
        by_c = [_pick(five, congestion=c, maxp=0.1)["gain"].mean() for c in ("moderate", "high")]
        hi = _pick(five, congestion="high").sort_values("maxp")
        shown = ", ".join(f"{r} {pct(g)}" for r, g in zip(sizes, by_size, strict=True))
        items.append(
            f"- {v}: mean gain over the grid by response size: {shown} (it {trend_words(by_size)} with size); "
            f"{sizes[0]} at max_p 0.1, moderate → high congestion: {pct(by_c[0])} → {pct(by_c[-1])}; "
            f"{sizes[0]} at high congestion, max_p {hi['maxp'].min():g} → {hi['maxp'].max():g}: "
            f"{pct(hi['gain'].iloc[0])} → {pct(hi['gain'].iloc[-1])}, ECN client "
            f"{hi['tps_ecn'].iloc[0]:.2f} → {hi['tps_ecn'].iloc[-1]:.2f} transactions/s"
        )
    out.append("\n".join(items))
    out.append(paper_transactional_line())
    hi = _pick(t, congestion="high")
    out.append(
        f"Timeouts per 180 s, mean over the grid: ECN client {t['timeouts_ecn'].mean():.1f}, non-ECN client "
        f"{t['timeouts_nonecn'].mean():.1f}. At high congestion the ECN client lost "
        f"{hi['dropped_ecn'].mean():.1f} packets per run — SYN-ACKs, FINs and retransmissions, which are never "
        f"ECN-capable (RFC 3168 §6.1.1, §6.1.5), so RED drops them for ECN flows too — and took "
        f"{hi['timeouts_ecn'].mean():.1f} timeouts; a lost SYN-ACK costs the 3 s initial RTO, the same for "
        f"both clients, which shrinks the relative gain of short transactions most."
    )
    out.append(_region(q))
    return "\n\n".join(out)


WHY = """# Where and why ecnlab differs from the paper

- RED: ecnlab runs the Linux RED of the RFC's router (`tc red ecn`: ECT packets marked even above max_th, \
no gentle region) with thresholds from a stated rule, not the paper's unpublished hand tuning; the region \
check above shows whether the rule held.
- ECN at tiny windows: at 12 flows on a 6-packet pipe each flow's window is a few segments. ecnlab follows \
RFC 3168 §6.1.2 (a window of fewer than four segments is halved to one; a further ECE at one segment waits \
for the retransmission timer), so ECN flows take timeouts without any loss. Linux's ECN code keeps \
ssthresh ≥ 2 segments and never waits; the RFC's own 2.0 patch is not available to check.
- Short connections: SYN-ACK, FIN and retransmitted packets are never ECN-capable, so RED drops them for \
ECN and non-ECN clients alike, and a lost SYN-ACK costs the 3 s initial RTO.
- Hosts: the RFC's Linux 2.0/2.2 delayed-ACK heuristics, quick-ack start and fixed-point RED differ from \
ecnlab's models (docs/model.md); `testbed.toml` documents each choice.
- docs/experiments/rfc2884.md discusses each trend of the full run."""


def section(kind: str, tables: Tables) -> tuple[str, str]:
    body = {"fairness": _fairness, "bulk": _bulk, "transactional": _transactional}[kind](tables)
    titles = {
        "fairness": "RFC 2884 §5.1 fairness: paper vs ecnlab",
        "bulk": "RFC 2884 §5.2 bulk transfers: paper vs ecnlab",
        "transactional": "RFC 2884 §5.3 transactional transfers: paper vs ecnlab",
    }
    return titles[kind], body + "\n\n" + WHY

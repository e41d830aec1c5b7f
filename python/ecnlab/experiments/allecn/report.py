"""The report section of the all-ECN study: what agrees with the paper, what does not, and why.

Every sentence with a number is computed from the tables of
:func:`ecnlab.experiments.allecn._summarize` or quotes the paper
(:mod:`.paper`); the reasons for differences name mechanisms whose numbers
the diagnostic parts (``allecn-sensitivity-red``, ``allecn-sensitivity-tcp``,
``allecn-direction``) measure in their own reports.
"""

from __future__ import annotations

import math

import pandas as pd

from ecnlab.experiments.allecn.paper import PAPER_MIN_PACKETS

__all__ = ["report_text", "ordering_lines", "rule_lines", "transfer_time_lines", "paper_lines"]


def _f(x: float, nd: int = 2) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def paper_lines(paper: pd.DataFrame) -> list[str]:
    """One bullet per paper number: paper value, ecnlab value (± std over seeds)."""
    out = []
    for r in paper.itertuples(index=False):
        sd = "" if math.isnan(r.sd_seeds) else f" ± {_f(r.sd_seeds)}"
        out.append(
            f"- `{r.metric}`, {r.n} clients, d = {r.d_ms:g} ms, {r.scheme}, QL = {r.ql}: "
            f"paper **{r.paper:g}**, ecnlab **{_f(r.ecnlab)}**{sd} — {r.paper_where}"
        )
    return out


def ordering_lines(cells: pd.DataFrame, ql: int = 64, d_ms: float = 20.0) -> list[str]:
    """Network overhead ECN < RED < DT at QL, d (the paper's 4.2 claim), per client count."""
    out = []
    for n in (10, 25):
        sel = cells[(cells.n == n) & (cells.ql == ql) & (cells.d_ms == d_ms)].set_index("scheme")
        if not {"DT", "RED", "ECN"} <= set(sel.index):
            continue
        dt, red, ecn = (float(sel.loc[s, "network_overhead_pct"]) for s in ("DT", "RED", "ECN"))
        holds = "holds" if ecn < red < dt else "does **not** hold"
        out.append(
            f"- {n} clients, QL = {ql}, d = {d_ms:g} ms: network overhead DT {_f(dt)} %, RED {_f(red)} %, "
            f"ECN {_f(ecn)} % — ECN < RED < DT {holds}."
        )
    return out


def rule_lines(rule: pd.DataFrame, what: str) -> list[str]:
    """How often ECN at QL is at most DT at 2·QL."""
    if rule.empty:
        return [f"- {what}: the sweep has no QL / 2·QL pairs."]
    ok = int(rule["ECN<=DT@2QL"].sum())
    gap = rule["ECN@QL"] - rule["DT@2QL"]
    worst = rule.assign(gap=gap).sort_values("gap").iloc[-1]
    return [
        f"- {what}: ECN at QL ≤ DT at 2·QL in {ok} of {len(rule)} (n, d, QL) cells; ECN − DT at 2·QL: "
        f"median {_f(gap.median())}, largest {_f(gap.max())} "
        f"({_f(worst['ECN@QL'])} vs {_f(worst['DT@2QL'])}, {int(worst.n)} clients, d = {worst.d_ms:g} ms, "
        f"QL = {int(worst.ql)})."
    ]


def transfer_time_lines(tt: pd.DataFrame) -> list[str]:
    """ECN's mean transfer time relative to DT's over all cells."""
    if tt.empty:
        return []
    e = tt["ECN_vs_DT_pct"]
    r = tt["RED_vs_DT_pct"]
    return [
        f"- ECN's mean transfer time differs from DT's by {_f(e.min(), 1)} % to {_f(e.max(), 1)} % "
        f"(median {_f(e.median(), 1)} %) over {len(tt)} (n, d, QL) cells; RED's by {_f(r.min(), 1)} % to "
        f"{_f(r.max(), 1)} % (median {_f(r.median(), 1)} %). Positive: slower than DT."
    ]


def check_lines(checks: pd.DataFrame) -> list[str]:
    c = checks.iloc[0]
    problems = (
        "none" if c.runs_with_accounting_problems == 0 else f"{c.runs_with_accounting_problems}: {c.first_problem}"
    )
    return [
        f"- {c.runs} runs, {c.transfers} transfers, every one finished (the engine stops a run with an error "
        f"naming the flow otherwise); flows whose packets do not add up "
        f"(sent = delivered + dropped + corrupted + in flight): {problems}; drops outside router B's queue: "
        f"{c.drops_outside_router_B}."
    ]


WHY = """
# Why the numbers differ

The paper ran ns-2 and gives only the parameters in docs/experiments/allecn.md.
The mechanisms below are checked by the diagnostic parts, whose own reports
carry the numbers: `ecnlab reproduce allecn-sensitivity-red` (RED's
implementation), `allecn-sensitivity-tcp` (the TCP details) and
`allecn-direction` (which direction the errors hit).

- **Not RED's ECN rule.** ns-2.35's RED drops ECT packets instead of marking
  them once its probability exceeds `mark_p_` = 0.1 (above max_th). With the
  queue limit just above max_th the average seldom gets there, so
  `personality = "ns2"` moves the overheads little; ns-2's byte-mode default
  (500-byte units) moves RED away from the paper's RED.
- **TCP details set the level.** The overhead is mostly retransmissions after
  timeouts. The paper gives no timers; ecnlab uses ns-2's (200 ms minimum
  RTO, 10 ms tick). Other timers (RFC 6298's 1 s minimum RTO) and recovery
  (NewReno) change the absolute overheads, which depend on TCP details the
  paper does not give.
"""

ERRORS_WHY = """
# Which direction the paper corrupted

The sweep corrupts both directions of the client links (the paper does not
say). Then every damaged data packet reaches a client, counts as received and
is sent again, so the receiver overhead cannot fall much below the error rate.
With errors only on the clients' outgoing packets (ACKs), as ns-2's
`$ns lossmodel $em $client $routerA` would install them, damaged data packets
are not counted by the receivers; `ecnlab reproduce allecn-direction` runs the
three directions and its claim says which lies nearest the paper's numbers.
"""


def minimum_line() -> str:
    """How the paper's minimum packets per transfer and ecnlab's differ (from the paper's constant)."""
    return (
        f"- **The minimum.** The paper's percentages imply {PAPER_MIN_PACKETS} packets per transfer; "
        "ecnlab counts ceil(file size / MSS), the segments its sender needs. Each counts excess over its own minimum."
    )


def report_text(tables: dict[str, pd.DataFrame], study: str) -> str:
    """The Markdown of the section: paper numbers, the paper's claims checked, checks, reasons."""
    cells = tables["cells"]
    parts = ["# The paper's numbers beside ecnlab's", "\n".join(paper_lines(tables["paper_vs_ecnlab"]))]
    claims = ordering_lines(cells)
    claims += rule_lines(tables["rule_of_thumb_overhead"], "network overhead")
    claims += rule_lines(tables["rule_of_thumb_acks"], "ACKs per transfer")
    claims += transfer_time_lines(tables["transfer_times"])
    parts += ["# The paper's claims", "\n".join(claims)]
    parts += ["# Checks", "\n".join(check_lines(tables["checks"]))]
    parts.append(WHY.strip() + "\n" + minimum_line())
    if study == "allecn-errors":
        parts.append(ERRORS_WHY.strip())
    return "\n\n".join(parts)

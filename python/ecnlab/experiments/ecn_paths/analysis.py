"""Tables and claims of ``ecnlab reproduce ecn-paths``: each ECN stack on five paths against the same
stack without ECN, then the per-path costs weighted by how often measurements found each path.

Per run: the bulk download's goodput after the warm-up, the mean time of the 50 kB and of the 1 kB
transfers (from a connection's first SYN to its last byte at the client, so a lost SYN's timeout
counts), the bottleneck's p99 sojourn, and what the impairment did (packets rewritten per
connection opened, SYNs dropped). Cells: means over seeds with 95 % intervals. Effects: each ECN
stack against its ECN-off baseline on the same path and queue (``BASELINE``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict, cells

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["per_run", "grid", "effects", "expected", "claims", "PREVALENCE", "POPULATIONS", "BASELINE"]

KEYS = ["impairment", "stack", "queue"]
METRICS = ["goodput_mbps", "fct_ms", "connect_ms", "connects", "sojourn_p99_ms", "rewritten_per_conn", "syns_dropped"]
DATA_LINK, BACK_LINK, BOTTLENECK = "R1->R2", "R2->R1", "R1->R2"
#: Each ECN stack's ECN-off baseline: the same congestion control without ECN; Reno for DCTCP
#: and Prague, what Linux's DCTCP (``dctcp_reno``) and the Prague reference (``prague-reno``) run
#: when the handshake gives them no ECN.
BASELINE = {
    "reno": "reno-noecn",
    "reno-nofallback": "reno-noecn",
    "cubic": "cubic-noecn",
    "dctcp": "reno-noecn",
    "prague": "reno-noecn",
}
CLASSIC = ("reno", "cubic")
WITH_FALLBACK = ("reno", "cubic", "dctcp", "prague")


def _mean_ms(xs: list[float]) -> float:
    return 1000.0 * sum(xs) / len(xs) if xs else math.nan


def _impaired(s: dict[str, Any], link: str, key: str) -> int:
    (rec,) = (x for x in s["links"] if x["name"] == link)
    return sum(int(i[key]) for i in rec.get("impairments", []))


def _run_row(r: Any, s: dict[str, Any]) -> dict[str, Any]:
    f = {x["id"]: x for x in s["flows"]}
    (q,) = (x for x in s["queues"] if x["link"] == BOTTLENECK)
    conns = sum(int(x["connections"]) for x in s["flows"])
    return {
        "impairment": r.impairment,
        "stack": r.stack,
        "queue": r.queue,
        "seed": r.seed,
        "goodput_mbps": f["bulk"]["goodput_bps"] / 1e6,
        "bulk_bytes": f["bulk"]["bytes_delivered"],
        "fct_ms": _mean_ms(f["short"]["transfer_times_s"]),
        "connect_ms": _mean_ms(f["connect"]["transfer_times_s"]),
        "connects": len(f["connect"]["transfer_times_s"]),
        "ecn_negotiated": bool(f["bulk"]["ecn_negotiated"]),
        "sojourn_p99_ms": q["sojourn_p99_ms"],
        "rewritten_per_conn": _impaired(s, DATA_LINK, "rewritten") / max(conns, 1),
        "syns_dropped": _impaired(s, BACK_LINK, "dropped"),
    }


def per_run(res: SweepResults) -> pd.DataFrame:
    return pd.DataFrame([_run_row(r, res.summary(str(r.run))) for r in res.runs.itertuples()])


def grid(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per (impairment, stack, queue), with 95 % intervals."""
    return cells(runs, KEYS, METRICS)


def effects(g: pd.DataFrame) -> pd.DataFrame:
    """Each ECN stack against its baseline on the same path and queue: goodput ratio, time deltas."""
    base = g.set_index(KEYS)
    rows = []
    for c in g[g["stack"].isin(list(BASELINE))].itertuples():
        off = base.loc[(c.impairment, BASELINE[c.stack], c.queue)]
        rows.append(
            {
                "impairment": c.impairment,
                "stack": c.stack,
                "queue": c.queue,
                "goodput_ratio": c.goodput_mbps / off.goodput_mbps if off.goodput_mbps > 0 else math.nan,
                "d_connect_ms": c.connect_ms - off.connect_ms,
                "d_fct_ms": c.fct_ms - off.fct_ms,
                "fct_ratio": c.fct_ms / off.fct_ms,
                "sojourn_p99_ms": c.sojourn_p99_ms,
                "off_sojourn_p99_ms": off.sojourn_p99_ms,
                "connects": c.connects,
                "rewritten_per_conn": c.rewritten_per_conn,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Prevalence:
    """How often a measurement found a path impairment: the share, who measured it and what."""

    impairment: str
    share: float
    source: str
    measured: str


#: Shares of paths per impairment (docs/experiments/ecn-paths.md discusses each).
PREVALENCE = (
    Prevalence(
        "syn-blackhole",
        0.0042,
        "Trammell et al., PAM 2015",
        "0.42 % of the web servers probed did not connect with an ECN-setup SYN but did without",
    ),
    Prevalence(
        "bleach",
        0.0417,
        "Lim et al., arXiv:2208.14523, 2022",
        "4.17 % of the paths traced cleared the ECN field (1,112 of 129,252 routers)",
    ),
    Prevalence(
        "remark",
        0.02,
        "Trammell et al., PAM 2015",
        "about 2 % of IPv4 paths changed the ECN bits; taken here as ECT(1) remarked ECT(0), an upper bound",
    ),
    Prevalence(
        "ce-all", 0.0, "no measurement", "one ISP set CE on every packet of its customers (2016); no share known"
    ),
)
#: Populations: name → the shares that differ from PREVALENCE.
POPULATIONS = {
    "fixed": {},
    "mobile": {"bleach": 0.5},  # Mandalari et al., IEEE Communications Magazine 2018
}


def _shares(population: str) -> dict[str, float]:
    return {p.impairment: POPULATIONS[population].get(p.impairment, p.share) for p in PREVALENCE}


def expected(e: pd.DataFrame) -> pd.DataFrame:
    """Per population and ECN stack: the per-path effects (means over queues) weighted by the shares
    of paths, the clean path taking the rest."""
    by = e.groupby(["impairment", "stack"], sort=False)[
        ["goodput_ratio", "d_connect_ms", "d_fct_ms", "connects"]
    ].mean()
    rows = []
    for population in POPULATIONS:
        shares = _shares(population)
        shares["none"] = 1.0 - sum(shares.values())
        for stack in dict.fromkeys(e["stack"]):
            row: dict[str, Any] = {"population": population, "stack": stack}
            ok = {imp: w for imp, w in shares.items() if by.loc[(imp, stack), "connects"] > 0}
            for m in ("goodput_ratio", "d_connect_ms", "d_fct_ms"):
                row[m] = sum(w * by.loc[(imp, stack), m] for imp, w in ok.items()) / sum(ok.values())
            # Paths on which the stack never connects: their share, and the rest's effects above.
            row["never_connects"] = sum(w for imp, w in shares.items() if by.loc[(imp, stack), "connects"] == 0)
            row["ce_all_cost_per_0p1pct_ms"] = 0.001 * by.loc[("ce-all", stack), "d_fct_ms"]
            rows.append(row)
    return pd.DataFrame(rows)


def _share(ok: pd.Series) -> tuple[int, int]:
    return int(ok.sum()), len(ok)


def _claim(text: str, source: str, k_n: tuple[int, int], reason: str) -> Claim:
    return Claim(text=text, verdict=Verdict.of_share(*k_n), reason=reason, source=source)


def _words(d: pd.DataFrame, col: str, fmt: str = "{:.0f}") -> str:
    return "; ".join(f"{r.stack} {r.queue}: {fmt.format(getattr(r, col))}" for r in d.itertuples())


def _at(e: pd.DataFrame, impairment: str, stacks: tuple[str, ...] | list[str]) -> pd.DataFrame:
    return e[(e.impairment == impairment) & e["stack"].isin(list(stacks))]


def claims(g: pd.DataFrame, e: pd.DataFrame) -> list[Claim]:
    def at(imp: str, stacks: tuple[str, ...] | list[str]) -> pd.DataFrame:
        return _at(e, imp, stacks)

    hole = at("syn-blackhole", WITH_FALLBACK)
    never = g[(g.impairment == "syn-blackhole") & (g["stack"] == "reno-nofallback")]
    bleach = at("bleach", CLASSIC)
    ce = at("ce-all", CLASSIC)
    prague = at("bleach", ["prague"])
    classic_bleached = at("bleach", ["reno"])
    clean = at("none", CLASSIC)
    clean = clean[clean.queue != "fifo"]
    remark = g[(g["stack"] == "prague") & (g.queue == "dualpi2")].set_index("impairment")
    rm = (
        [remark.loc["remark", "sojourn_p99_ms"], remark.loc["none", "sojourn_p99_ms"]]
        if "remark" in remark.index
        else []
    )
    return [
        _claim(
            "A path that drops ECN-setup SYNs costs an ECN client one initial RTO (1 s) per connection "
            "when its retransmitted SYN gives ECN up",
            "RFC 3168 §6.1.1.1; Linux tcp_ecn_clear_syn",
            _share((hole.d_connect_ms >= 900) & (hole.d_connect_ms <= 1200)),
            "1 kB transfer time, ECN on − off (ms; 900–1200 counts): " + _words(hole, "d_connect_ms"),
        ),
        _claim(
            "Without that fallback an ECN client never connects through such a path",
            "RFC 3168 §6.1.1.1 (the fallback is a MAY)",
            _share((never.connects == 0) & (never.goodput_mbps == 0)),
            "reno without fallback, 1 kB transfers completed: "
            + "; ".join(f"{r.queue}: {r.connects:.0f}" for r in never.itertuples()),
        ),
        _claim(
            "Bleaching leaves classic ECN no worse than ECN off (goodput ≥ 0.95×, 50 kB time ≤ 1.05×)",
            "RFC 3168 §18",
            _share((bleach.goodput_ratio >= 0.95) & (bleach.fct_ratio <= 1.05)),
            "goodput on/off: " + _words(bleach, "goodput_ratio", "{:.2f}"),
        ),
        _claim(
            "CE on every packet collapses an RFC 3168 sender (goodput ≤ 0.1× ECN off)",
            "RFC 3168 §6.1.2",
            _share(ce.goodput_ratio <= 0.1),
            "goodput on/off: " + _words(ce, "goodput_ratio", "{:.3f}"),
        ),
        _claim(
            "AccECN detects bleaching in the handshake: after it, Prague's server sends nothing ECT "
            "for the box to bleach (≤ 2 packets rewritten per connection)",
            "RFC 9768 §3.2.2.4; Linux tcp_accecn_third_ack",
            _share(prague.rewritten_per_conn <= 2),
            "packets bleached per connection, Prague: "
            + _words(prague, "rewritten_per_conn", "{:.2f}")
            + "; classic Reno: "
            + _words(classic_bleached, "rewritten_per_conn", "{:.0f}"),
        ),
        _claim(
            "ECT(1) remarked ECT(0) puts Prague in DualPI2's classic queue: its p99 delay ≥ 5× the clean path's",
            "RFC 9331 §5.1; RFC 9332 §2.4",
            (int(rm[0] >= 5 * rm[1]), 1) if rm else (0, 0),
            f"DualPI2 sojourn p99, remarked / clean: {rm[0]:.1f} / {rm[1]:.1f} ms" if rm else "not run",
        ),
        _claim(
            "On a clean path ECN shortens 50 kB transfers through an AQM (time ≤ ECN off)",
            "RFC 8087 §3.1",
            _share(clean.d_fct_ms <= 0),
            "50 kB time, ECN on − off (ms): " + _words(clean, "d_fct_ms", "{:+.1f}"),
        ),
    ]


def answer(x: pd.DataFrame) -> str:
    """The report's paragraph on the expected cost and gain for a client population."""
    lines = []
    for r in x.itertuples():
        lines.append(
            f"- {r.population}, {r.stack}: 1 kB transfers {r.d_connect_ms:+.1f} ms, 50 kB transfers "
            f"{r.d_fct_ms:+.1f} ms, bulk goodput ×{r.goodput_ratio:.3f}"
            + (f"; no connection on {100 * r.never_connects:.2f} % of paths" if r.never_connects > 0 else "")
        )
    shares = "; ".join(f"{p.impairment} {100 * p.share:.2f} % ({p.source})" for p in PREVALENCE)
    return (
        "Expected effect of turning ECN on, per connection, over a population of paths (shares: "
        f"{shares}; mobile: bleaching 50 %, Mandalari et al. 2018; the clean path the rest; queues equally "
        "likely):\n\n" + "\n".join(lines)
    )

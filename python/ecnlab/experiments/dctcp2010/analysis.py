"""Tables and claims of ``ecnlab reproduce dctcp2010`` (Alizadeh et al., SIGCOMM 2010).

Cells are means over seeds with the half-width of a 95 % confidence interval (Student t,
``rfc2884.metrics.mean_ci95``). Queue occupancy is the switch port's time-average queue
after the warm-up, in packets and in KB of 1500-byte packets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict, mean_ci95


def _claim(text: str, source: str, verdict: Verdict, reason: str) -> Claim:
    return Claim(text=text, verdict=verdict, reason=reason, source=source)


if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = [
    "queue_cells",
    "threshold_cells",
    "incast_cells",
    "fabric_cells",
    "queue_claims",
    "threshold_claims",
    "incast_claims",
    "fabric_claims",
]

PACKET_KB = 1.5
LINE = {"1G": 1e9, "10G": 1e10}
PAYLOAD = 1460 / 1500  # payload share of a full packet: the goodput a busy link gives


def _cells(runs: pd.DataFrame, keys: list[str], metrics: dict[str, str]) -> pd.DataFrame:
    """Mean and CI half-width of each metric per cell (cells in the sweep's order)."""
    rows = []
    for key, g in runs.groupby(keys, sort=False):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        row["seeds"] = len(g)
        for out, col in metrics.items():
            m, h = mean_ci95([float(v) for v in g[col]])
            row[out], row[f"{out}_ci95"] = m, h
        rows.append(row)
    return pd.DataFrame(rows)


def queue_cells(res: SweepResults) -> pd.DataFrame:
    runs = res.runs.assign(goodput_gbps=res.runs.goodput_total_bps / 1e9)
    c = _cells(
        runs,
        ["rate", "nflows", "sender"],
        {"queue_pkts": "avg_qlen_pkts", "goodput_gbps": "goodput_gbps", "sojourn_p99_ms": "sojourn_p99_ms"},
    )
    c.insert(4, "queue_kb", c.queue_pkts * PACKET_KB)
    extra = runs.groupby(["rate", "nflows", "sender"], sort=False)[["marks", "drops", "timeouts"]].mean().reset_index()
    return c.merge(extra, on=["rate", "nflows", "sender"])


def threshold_cells(res: SweepResults) -> pd.DataFrame:
    runs = res.runs.assign(k_pkts=res.runs.k.astype(int), goodput_gbps=res.runs.goodput_total_bps / 1e9)
    c = _cells(runs, ["k_pkts", "sender"], {"goodput_gbps": "goodput_gbps", "queue_pkts": "avg_qlen_pkts"})
    c["utilisation"] = c.goodput_gbps / (10 * PAYLOAD)
    return c.sort_values(["sender", "k_pkts"], kind="stable").reset_index(drop=True)


def incast_cells(res: SweepResults) -> pd.DataFrame:
    rows = []
    for r in res.runs.itertuples():
        (q,) = res.summary(str(r.run))["queries"]
        rows.append(
            {
                "servers": int(str(r.servers)),
                "sender": r.sender,
                "qct_mean_ms": 1e3 * (q["qct_mean_s"] or float("nan")),
                "qct_p99_ms": 1e3 * (q["qct_p99_s"] or float("nan")),
                "timeout_share": q["queries_with_timeout"] / max(q["queries_issued"], 1),
                "completed_share": q["queries_completed"] / max(q["queries_issued"], 1),
            }
        )
    runs = pd.DataFrame(rows)
    metrics = {k: k for k in ("qct_mean_ms", "qct_p99_ms", "timeout_share", "completed_share")}
    c = _cells(runs, ["servers", "sender"], metrics)
    return c.sort_values(["sender", "servers"], kind="stable").reset_index(drop=True)


def _pick(c: pd.DataFrame, **where: object) -> pd.DataFrame:
    m = pd.Series(True, index=c.index)
    for k, v in where.items():
        m &= c[k].astype(str) == str(v)
    return c[m]


def queue_claims(c: pd.DataFrame) -> list[Claim]:
    """Abstract and §4.1: DCTCP holds the queue near K; "the same or better throughput than TCP,
    while using 90% less buffer space"; TCP with ECN through the same marker loses throughput."""
    cases = c[["rate", "nflows"]].drop_duplicates().itertuples(index=False)
    near_k, less_buffer, tcp_ecn_loses, parts_k, parts_b, parts_e = 0, 0, 0, [], [], []
    n_cases = 0
    for rate, n in cases:
        d, t, e = (_pick(c, rate=rate, nflows=n, sender=s) for s in ("dctcp", "tcp-droptail", "tcp-ecn"))
        if d.empty or t.empty:
            continue
        n_cases += 1
        k = 20 if rate == "1G" else 65
        dq, tq = float(d.queue_pkts.iloc[0]), float(t.queue_pkts.iloc[0])
        dg, tg = float(d.goodput_gbps.iloc[0]), float(t.goodput_gbps.iloc[0])
        near_k += dq <= 2 * k
        parts_k.append(f"{rate} {n}f {dq:.0f}/{k}")
        less_buffer += dq <= 0.1 * tq and dg >= 0.99 * tg
        parts_b.append(f"{rate} {n}f {dq:.0f} vs {tq:.0f} pkts, {dg:.2f} vs {tg:.2f} Gbit/s")
        if not e.empty:
            eg = float(e.goodput_gbps.iloc[0])
            tcp_ecn_loses += eg < 0.99 * dg
            parts_e.append(f"{rate} {n}f {eg:.2f} vs {dg:.2f}")
    return [
        _claim(
            "DCTCP keeps the queue around the marking threshold K",
            "§3.1, Fig. 13",
            Verdict.of_share(near_k, n_cases),
            "mean queue / K (packets): " + "; ".join(parts_k) + " (within 2·K counts)",
        ),
        _claim(
            "DCTCP delivers the same throughput as TCP with 90% less buffer",
            "abstract, §4.1",
            Verdict.of_share(less_buffer, n_cases),
            "DCTCP vs TCP drop-tail: " + "; ".join(parts_b),
        ),
        _claim(
            "TCP with ECN through the same shallow marker gives up throughput (halving per marked window)",
            "§3.4, §4.1",
            Verdict.of_share(tcp_ecn_loses, len(parts_e)),
            "goodput TCP+ECN vs DCTCP (Gbit/s): " + "; ".join(parts_e),
        ),
    ]


def threshold_claims(c: pd.DataFrame) -> list[Claim]:
    """§3.4: K > C·RTT/7 suffices for DCTCP (about 12 packets here); TCP needs far more."""
    guide = 83 / 7  # BDP 83 packets at 10 Gbit/s and 100 µs
    d = _pick(c, sender="dctcp")
    e = _pick(c, sender="tcp-ecn")
    above = d[d.k_pkts > guide]
    ok = int((above.utilisation >= 0.95).sum())
    reason = ", ".join(f"K {k}: {u:.2f}" for k, u in zip(d.k_pkts, d.utilisation, strict=True))
    claims = [
        _claim(
            "DCTCP reaches full throughput once K > C·RTT/7 (≈ 12 packets at 10 Gbit/s, 100 µs)",
            "§3.4",
            Verdict.of_share(ok, len(above)),
            f"DCTCP utilisation by K: {reason} (full: ≥ 0.95)",
        )
    ]
    if not e.empty and not d.empty:
        kd, ke = _smallest_full_k(d), _smallest_full_k(e)
        holds = kd is not None and (ke is None or ke > kd)
        claims.append(
            _claim(
                "TCP needs a larger K than DCTCP for the same throughput",
                "§3.4, §4.1",
                Verdict.HOLDS if holds else Verdict.DOES_NOT_HOLD,
                f"smallest K at ≥ 0.95 utilisation: DCTCP {kd}, TCP+ECN {ke if ke is not None else 'none tried'}",
            )
        )
    return claims


def _smallest_full_k(f: pd.DataFrame) -> int | None:
    """The smallest K whose utilisation is at least 0.95 (None: none of those tried)."""
    return next((int(k) for k, u in zip(f.k_pkts, f.utilisation, strict=True) if u >= 0.95), None)


def incast_claims(c: pd.DataFrame) -> list[Claim]:
    """§4.2.2: with a static buffer DCTCP suffers far fewer timeouts than TCP as the fan-in grows."""
    d = _pick(c, sender="dctcp").set_index("servers")
    t = _pick(c, sender="tcp").set_index("servers")
    ns = [n for n in d.index if n in t.index]
    fewer = sum(d.timeout_share[n] <= t.timeout_share[n] for n in ns)
    parts = [f"n {n}: {d.timeout_share[n]:.0%} vs {t.timeout_share[n]:.0%}" for n in ns]
    faster = sum(d.qct_p99_ms[n] <= t.qct_p99_ms[n] for n in ns)
    qparts = [f"n {n}: {d.qct_p99_ms[n]:.1f} vs {t.qct_p99_ms[n]:.1f}" for n in ns]
    return [
        _claim(
            "Under incast DCTCP has fewer queries that wait for a retransmission timeout than TCP",
            "§4.2.2, Fig. 18",
            Verdict.of_share(fewer, len(ns)),
            "share of queries with a timeout, DCTCP vs TCP: " + "; ".join(parts),
        ),
        _claim(
            "DCTCP's tail query completion time is no worse than TCP's",
            "§4.2.2, Fig. 18",
            Verdict.of_share(faster, len(ns)),
            "QCT p99 (ms), DCTCP vs TCP: " + "; ".join(qparts),
        ),
    ]


def fabric_cells(res: SweepResults) -> pd.DataFrame:
    """Per (sender, background): query completion times, queries with a timeout, the long flows' goodput."""
    rows = []
    for r in res.runs.itertuples():
        s = res.summary(str(r.run))
        (q,) = s["queries"]
        long_bps = sum(f["goodput_bps"] for f in s["flows"] if f["id"].startswith("long"))
        rows.append(
            {
                "sender": r.sender,
                "background": r.background,
                "qct_mean_ms": 1e3 * (q["qct_mean_s"] or float("nan")),
                "qct_p99_ms": 1e3 * (q["qct_p99_s"] or float("nan")),
                "timeout_share": q["queries_with_timeout"] / max(q["queries_issued"], 1),
                "long_mbps": long_bps / 1e6,
            }
        )
    metrics = {k: k for k in ("qct_mean_ms", "qct_p99_ms", "timeout_share", "long_mbps")}
    return _cells(pd.DataFrame(rows), ["sender", "background"], metrics)


def fabric_claims(c: pd.DataFrame) -> list[Claim]:
    """§2.3.2 / §4.2.3: long flows at the aggregator's port slow TCP's queries far more than DCTCP's
    (rules: the ratio of mean QCT with the long flows at the aggregator to elsewhere is larger for
    TCP; DCTCP's mean and p99 QCT there are below TCP's; DCTCP's long flows keep ≥ 90 % of TCP's
    goodput)."""
    cell = c.set_index(["sender", "background"])
    need = [(s, b) for s in ("dctcp", "tcp") for b in ("aggregator", "elsewhere")]
    if not all(k in cell.index for k in need):
        return [_claim("Queue buildup (DCTCP vs TCP on the fabric)", "§2.3.2", Verdict.NOT_RUN, "cells missing")]
    d, t = cell.loc["dctcp"], cell.loc["tcp"]
    rd = d.qct_mean_ms["aggregator"] / d.qct_mean_ms["elsewhere"]
    rt = t.qct_mean_ms["aggregator"] / t.qct_mean_ms["elsewhere"]
    agg_d, agg_t = d.loc["aggregator"], t.loc["aggregator"]
    faster = [bool(agg_d.qct_mean_ms < agg_t.qct_mean_ms), bool(agg_d.qct_p99_ms < agg_t.qct_p99_ms)]
    keeps = bool(agg_d.long_mbps >= 0.9 * agg_t.long_mbps)
    return [
        _claim(
            "Long flows sharing the aggregator's port slow TCP's queries far more than DCTCP's (queue buildup)",
            "§2.3.2",
            Verdict.of_bool(rt > rd),
            f"mean QCT, long flows at the aggregator / elsewhere: TCP {rt:.1f}x, DCTCP {rd:.1f}x",
        ),
        _claim(
            "With long flows at the aggregator's port, DCTCP completes queries faster than TCP (mean and p99)",
            "§4.2.3",
            Verdict.of_all(faster),
            f"QCT mean {agg_d.qct_mean_ms:.2f} vs {agg_t.qct_mean_ms:.2f} ms, p99 {agg_d.qct_p99_ms:.2f} vs "
            f"{agg_t.qct_p99_ms:.2f} ms; queries with a timeout {agg_d.timeout_share:.0%} vs {agg_t.timeout_share:.0%}",
        ),
        _claim(
            "DCTCP's long flows keep their throughput beside the queries (at least 90 % of TCP's)",
            "§4.2.3",
            Verdict.of_bool(keeps),
            f"long flows' goodput {agg_d.long_mbps:.0f} vs {agg_t.long_mbps:.0f} Mbit/s",
        ),
    ]

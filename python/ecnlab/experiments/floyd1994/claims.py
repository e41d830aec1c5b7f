"""Floyd 1994's qualitative claims (sections 6.2 and 7.2), each checked against ecnlab's runs.

The paper reports no numbers, so each claim gets a rule fixed before looking
at results (docs/experiments/floyd1994.md), applied to the per-run table of
:func:`ecnlab.experiments.floyd1994.metrics.per_run`:

- "high throughput": bulk throughput ≥ 90 % of the link (``HIGH``);
- "low telnet delay": no telnet packet delayed more than 100 ms, the paper's
  own threshold of a delay the user notices (section 6.1);
- "similar": within 10 % (``SIMILAR``).

Each check returns the numbers it looked at, so the table shows why a claim
is or is not shown. The paper's claims are checked on its three gateways
only; the statements of section ``SQ_SECTION`` go beyond the paper (it did
not simulate Source Quench, §9.1) and compare RED+SQ with RED+ECN and RED,
with the same rules:

- "as low as": at most ``SIMILAR`` above (mean over all runs of the grid);
- "small overhead": the quenches' bytes at most ``QUENCH_LOAD_MAX`` of the
  congested link's capacity in every run;
- "promptness an advantage": RED+SQ's mean average queue and mean forced drops
  at the congested gateway no higher than RED+ECN's. Verdicts: "yes", "no", "partly" (holds in some of the
cases the claim covers), "not run" (the grid does not contain the case).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ecnlab.experiments.framework import Claim, Verdict

__all__ = ["lan_claims", "wan_claims", "evaluate", "as_claims", "HIGH", "SIMILAR", "NOTICEABLE_S", "SQ_SECTION"]

HIGH = 0.9
SIMILAR = 0.10
NOTICEABLE_S = 0.1
QUENCH_LOAD_MAX = 0.01
SQ_SECTION = "9.1 (beyond)"

Check = Callable[[pd.DataFrame], tuple[str, str]]


def _cells(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    metrics = ["bulk_frac", "bulk_min_frac", "telnet_max_s", "telnet_mean_s", "telnet_over_100ms", "drops"]
    return runs.groupby(by, as_index=False)[metrics].mean()


def _share(ok: pd.Series) -> tuple[int, int]:
    return int(ok.sum()), int(len(ok))


def _verdict(k: int, n: int) -> str:
    if n == 0:
        return "not run"
    return "yes" if k == n else ("no" if k == 0 else "partly")


def _by_gateway(runs: pd.DataFrame, metric: str) -> pd.Series:
    return runs.groupby("gateway")[metric].mean()


# ----- LAN (section 6.2) ------------------------------------------------------------------


def lan_ecn_robust(runs: pd.DataFrame) -> tuple[str, str]:
    """With ECN: high throughput and no telnet packet > 100 ms in every cell."""
    c = _cells(runs[runs.gateway == "ECN"], ["clock", "window", "mode", "buffer_kb"])
    ok = (c.bulk_frac >= HIGH) & (c.telnet_max_s <= NOTICEABLE_S)
    k, n = _share(ok)
    bad = c[~ok]
    worst = ", ".join(
        f"{r.clock}/{r.window}pkt/{r['mode']}/{r.buffer_kb}kB: {r.bulk_frac:.2f}, {r.telnet_max_s:.2f}s"
        for _, r in bad.head(4).iterrows()
    )
    detail = f"{k} of {n} ECN cells have bulk ≥ {HIGH:.0%} and worst telnet ≤ 100 ms"
    return _verdict(k, n), detail + (f"; failing (bulk, worst delay): {worst}" if worst else "")


def lan_fine_clock_throughput(runs: pd.DataFrame) -> tuple[str, str]:
    c = _cells(runs[runs.clock == "0.1ms"], ["gateway", "window", "mode", "buffer_kb"])
    k, n = _share(c.bulk_frac >= HIGH)
    return _verdict(
        k, n
    ), f"{k} of {n} cells with the 0.1 ms clock have bulk ≥ {HIGH:.0%} (min {c.bulk_frac.min():.3f})"


def lan_fine_clock_telnet_drops(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[(runs.clock == "0.1ms") & (runs["mode"] == "pkt")]
    high = sel.telnet_max_s > NOTICEABLE_S
    rates = high.groupby(sel.gateway).mean()
    dt, red, ecn = (float(rates.get(g, float("nan"))) for g in ("DT", "RED", "ECN"))
    shown = dt > 0 and red > 0
    detail = (
        f"runs with a telnet packet > 100 ms (0.1 ms clock, packet mode): DT {dt:.0%}, RED {red:.0%}, ECN {ecn:.0%}"
    )
    return ("yes" if shown and dt > ecn and red > ecn else "partly" if shown or dt > 0 or red > 0 else "no"), detail


def lan_coarse_clock_red_loses(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[(runs.clock == "100ms") & (runs.window.astype(int) == 8)]
    if sel.empty:
        return "not run", ""
    small = sel[sel.buffer_kb == sel.buffer_kb.min()]
    red = small[small.gateway == "RED"].bulk_frac.mean()
    ecn = small[small.gateway == "ECN"].bulk_frac.mean()
    detail = f"100 ms clock, 8-packet window, {small.buffer_kb.min()} kB: RED bulk {red:.3f}, RED+ECN {ecn:.3f}"
    return ("yes" if red < HIGH and red < ecn else "no"), detail


def lan_droptail_small_window_no_drops(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[(runs.gateway == "DT") & (runs.window.astype(int) == 8)]
    k, n = _share(sel.drops == 0)
    return _verdict(k, n), f"{k} of {n} Drop-Tail runs with 8-packet windows drop nothing at the gateway"


def lan_droptail_unfair_small_buffers(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[(runs.gateway == "DT") & (runs.window.astype(int) == 64) & (runs.clock == "100ms")]
    if sel.empty:
        return "not run", ""
    c = sel.groupby("buffer_kb")[["bulk_frac", "bulk_min_frac"]].mean()
    fair = c.bulk_min_frac / (c.bulk_frac / 5)
    lo, hi = c.index.min(), c.index.max()
    detail = (
        f"Drop-Tail, 64-packet windows, 100 ms clock: bulk {c.bulk_frac.min():.3f}..{c.bulk_frac.max():.3f}; "
        f"smallest flow / fair share {fair[lo]:.2f} at {lo} kB, {fair[hi]:.2f} at {hi} kB"
    )
    high = bool((c.bulk_frac >= HIGH).all())
    unfair = bool(fair[lo] < 0.9)
    return ("yes" if high and unfair and fair[lo] <= fair[hi] else "partly" if high and unfair else "no"), detail


def lan_droptail_worst_delay(runs: pd.DataFrame) -> tuple[str, str]:
    worst = _by_gateway(runs, "telnet_max_s")
    over = _by_gateway(runs, "telnet_over_100ms")
    detail = "mean worst delay / share > 100 ms: " + ", ".join(
        f"{g} {worst.get(g, float('nan')):.3f}s / {over.get(g, float('nan')):.2%}" for g in ("DT", "RED", "ECN")
    )
    shown = worst.idxmax() == "DT" and over.idxmax() == "DT"
    return ("yes" if shown else "partly" if "DT" in (worst.idxmax(), over.idxmax()) else "no"), detail


def byte_mode_protects(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[runs.gateway != "ECN"]
    m = sel.groupby(["gateway", "mode"])[["telnet_over_100ms", "telnet_mean_s"]].mean()
    parts, better, compared = [], 0, 0
    for g in ("DT", "RED"):
        if (g, "pkt") not in m.index or (g, "byte") not in m.index:
            continue
        pkt, byte = m.loc[(g, "pkt")], m.loc[(g, "byte")]
        compared += 1
        better += int(byte.telnet_over_100ms < pkt.telnet_over_100ms)
        parts.append(f"{g}: > 100 ms {pkt.telnet_over_100ms:.2%} (packet) vs {byte.telnet_over_100ms:.2%} (byte)")
    return _verdict(better, compared), "; ".join(parts)


def ecn_least_sensitive(runs: pd.DataFrame) -> tuple[str, str]:
    keys = [k for k in ("clock", "load", "window", "mode", "buffer_kb") if k in runs.columns]
    c = _cells(runs, ["gateway", *keys])
    spread = c.groupby("gateway")[["bulk_frac", "telnet_max_s"]].std()
    detail = "std over cells of bulk / worst delay: " + ", ".join(
        f"{g} {spread.loc[g, 'bulk_frac']:.3f} / {spread.loc[g, 'telnet_max_s']:.3f}s" for g in spread.index
    )
    lowest = [spread[m].idxmin() == "ECN" for m in ("bulk_frac", "telnet_max_s")]
    return ("yes" if all(lowest) else "partly" if any(lowest) else "no"), detail


# ----- Beyond the paper: Source Quench (section 9.1) --------------------------------------


def _gw_means(runs: pd.DataFrame, metric: str) -> dict[str, float]:
    m = runs.groupby("gateway")[metric].mean()
    return {g: float(m[g]) for g in ("RED", "ECN", "SQ") if g in m}


def _fmt(metric: str, v: float) -> str:
    if metric == "telnet_mean_s":
        return f"{v * 1e3:.1f} ms"
    return f"{v:.3f} s" if metric == "telnet_max_s" else f"{v:.2%}"


def sq_telnet_delay(runs: pd.DataFrame) -> tuple[str, str]:
    """RED+SQ's telnet delay (mean, worst, share > 100 ms) against RED+ECN's."""
    if "SQ" not in set(runs.gateway) or "ECN" not in set(runs.gateway):
        return "not run", "needs RED+SQ and RED+ECN runs"
    parts, low = [], 0
    for metric in ("telnet_mean_s", "telnet_max_s", "telnet_over_100ms"):
        m = _gw_means(runs, metric)
        low += int(m["SQ"] <= m["ECN"] * (1 + SIMILAR))
        parts.append(f"{metric}: " + " / ".join(f"{g} {_fmt(metric, v)}" for g, v in m.items()))
    return {3: "yes", 0: "no"}.get(low, "partly"), "; ".join(parts)


def sq_throughput(runs: pd.DataFrame) -> tuple[str, str]:
    """RED+SQ's bulk throughput within SIMILAR of RED+ECN's, cell by cell."""
    keys = [k for k in ("clock", "load", "window", "mode", "buffer_kb") if k in runs.columns]
    c = _cells(runs[runs.gateway.isin(["ECN", "SQ"])], ["gateway", *keys]).set_index(["gateway", *keys]).bulk_frac
    if "SQ" not in c.index.get_level_values(0) or "ECN" not in c.index.get_level_values(0):
        return "not run", "needs RED+SQ and RED+ECN runs"
    sq, ecn = c.loc["SQ"], c.loc["ECN"]
    ok = (sq - ecn).abs() / ecn.where(ecn > 0) <= SIMILAR
    k, n = _share(ok)
    m = _gw_means(runs, "bulk_frac")
    detail = f"{k} of {n} cells within {SIMILAR:.0%}; mean bulk " + ", ".join(f"{g} {v:.3f}" for g, v in m.items())
    return _verdict(k, n), detail


def sq_overhead(runs: pd.DataFrame) -> tuple[str, str]:
    """RED rate-limits the quenches: their bytes stay a small share of the link, and most arrive."""
    sq = runs[runs.gateway == "SQ"]
    if sq.empty:
        return "not run", "needs RED+SQ runs"
    k, n = _share(sq.quench_load <= QUENCH_LOAD_MAX)
    acted = sq.quench_reductions.sum() / max(int(sq.quenches_received.sum()), 1)
    detail = (
        f"{k} of {n} runs with quench bytes ≤ {QUENCH_LOAD_MAX:.0%} of the link (max {sq.quench_load.max():.3%}); "
        f"{sq.quenches.mean():.0f} quenches per run at the gateway; {acted:.0%} of those received by the "
        "measured connections reduced a window (the rest were ignored: within a window already reduced, "
        "as is every later quench about a receiver's pure ACKs, in loss recovery, or before the handshake)"
    )
    return _verdict(k, n), detail


def sq_prompt(runs: pd.DataFrame) -> tuple[str, str]:
    """§9.1: a quench reaches the source sooner than an ECN echo; does the gateway see it (shorter
    average queue, fewer forced drops than with RED+ECN)?"""
    if "SQ" not in set(runs.gateway) or "ECN" not in set(runs.gateway):
        return "not run", "needs RED+SQ and RED+ECN runs"
    q, f = _gw_means(runs, "avg_qlen_pkts"), _gw_means(runs, "forced_drops")
    wins = int(q["SQ"] <= q["ECN"]) + int(f["SQ"] <= f["ECN"])
    detail = (
        f"mean queue RED+SQ {q['SQ']:.1f} vs RED+ECN {q['ECN']:.1f} packets; "
        f"forced drops per run {f['SQ']:.0f} vs {f['ECN']:.0f}"
    )
    return {2: "yes", 1: "partly", 0: "no"}[wins], detail


def sq_claims() -> list[tuple[str, str, Check]]:
    return [
        (SQ_SECTION, "Backward ECN (Source Quench from RED) gives telnet delay as low as forward ECN",
         sq_telnet_delay),
        (SQ_SECTION, "Bulk throughput with Source Quench matches RED+ECN", sq_throughput),
        (SQ_SECTION, "RED keeps the Source Quench overhead small (§9.1)", sq_overhead),
        (SQ_SECTION, "The promptness of backward notification is an advantage (§9.1): shorter queue, "
                     "fewer forced drops than RED+ECN", sq_prompt),
    ]  # fmt: skip


def lan_claims() -> list[tuple[str, str, Check]]:
    """(section, the paper's claim, check)."""
    return [
        ("6.2", "With ECN the throughput is high and the telnet delay low for every parameter set",
         lan_ecn_robust),
        ("6.2", "With a 0.1 ms TCP clock the throughput is high for Drop-Tail, RED and RED+ECN",
         lan_fine_clock_throughput),
        ("6.2", "0.1 ms clock: packet-mode Drop-Tail and RED occasionally drop telnet packets (high delay)",
         lan_fine_clock_telnet_drops),
        ("6.2", "RED without ECN, small buffers, 100 ms clock and small windows: bulk throughput suffers",
         lan_coarse_clock_red_loses),
        ("6.2", "Drop-Tail with small windows never drops packets", lan_droptail_small_window_no_drops),
        ("6.2", "Drop-Tail, large windows, 100 ms clock: throughput high but the smallest bulk connection "
                "gets less than its share at small buffers", lan_droptail_unfair_small_buffers),
        ("6", "Telnet delay is worst with Drop-Tail gateways", lan_droptail_worst_delay),
        ("6.2", "Byte-mode gateways give small telnet packets much lower delay", byte_mode_protects),
        ("6", "With ECN performance is less sensitive to the network parameters", ecn_least_sensitive),
        *sq_claims(),
    ]  # fmt: skip


# ----- WAN (section 7.2) ------------------------------------------------------------------


def wan_throughput_alike(runs: pd.DataFrame) -> tuple[str, str]:
    c = _cells(runs, ["load", "window", "mode", "buffer_kb", "gateway"])
    g = c.groupby(["load", "window", "mode", "buffer_kb"]).bulk_frac
    spread = (g.max() - g.min()) / g.max()
    k, n = _share(spread <= SIMILAR)
    return _verdict(
        k, n
    ), f"{k} of {n} cells have the gateways' bulk throughput within {SIMILAR:.0%} (largest spread {spread.max():.0%})"


def wan_ecn_lowest_delay(runs: pd.DataFrame) -> tuple[str, str]:
    mean = _by_gateway(runs, "telnet_mean_s")
    over = _by_gateway(runs, "telnet_over_100ms")
    worst = _by_gateway(runs, "telnet_max_s")
    detail = "mean delay / worst / share > 100 ms: " + ", ".join(
        f"{g} {mean[g] * 1e3:.1f}ms / {worst[g]:.3f}s / {over[g]:.2%}" for g in ("DT", "RED", "ECN") if g in mean
    )
    wins = [s.idxmin() == "ECN" for s in (mean, over, worst)]
    return ("yes" if all(wins) else "partly" if any(wins) else "no"), detail


def wan_dt_red_alike(runs: pd.DataFrame) -> tuple[str, str]:
    m = runs[runs.gateway != "ECN"].groupby("gateway")[["bulk_frac", "telnet_mean_s"]].mean()
    if not {"DT", "RED"} <= set(m.index):
        return "not run", "needs both Drop-Tail and RED runs"
    rel = (m.max() - m.min()) / m.max()
    delay_ms = m.telnet_mean_s * 1e3
    detail = (
        f"Drop-Tail vs RED: bulk {m.bulk_frac['DT']:.3f} vs {m.bulk_frac['RED']:.3f}, "
        f"mean telnet delay {delay_ms['DT']:.1f} vs {delay_ms['RED']:.1f} ms"
    )
    alike = int((rel <= 2 * SIMILAR).sum())
    return {2: "yes", 1: "partly", 0: "no"}[alike], detail


def wan_delay_grows_with_demand(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[runs.gateway != "ECN"]
    by_load = sel.groupby("load").telnet_mean_s.mean()
    by_win = sel.groupby(sel.window.astype(int)).telnet_mean_s.mean()
    nan = float("nan")
    load_ms = [by_load.get(k, nan) * 1e3 for k in ("moderate", "heavy")]
    win_ms = [by_win.get(k, nan) * 1e3 for k in (8, 64)]
    detail = (
        f"non-ECN mean telnet delay: moderate {load_ms[0]:.1f} ms, heavy {load_ms[1]:.1f} ms; "
        f"8-packet windows {win_ms[0]:.1f} ms, 64 {win_ms[1]:.1f} ms"
    )
    ok = [by_load.get("heavy", 0) > by_load.get("moderate", 1), by_win.get(64, 0) > by_win.get(8, 1)]
    return ("yes" if all(ok) else "partly" if any(ok) else "no"), detail


def wan_droptail_good_when_light(runs: pd.DataFrame) -> tuple[str, str]:
    sel = runs[
        (runs.gateway == "DT") & (runs.load == "moderate") & (runs.window.astype(int) == 8) & (runs["mode"] == "byte")
    ]
    ecn = runs[
        (runs.gateway == "ECN") & (runs.load == "moderate") & (runs.window.astype(int) == 8) & (runs["mode"] == "byte")
    ]
    if sel.empty:
        return "not run", ""
    detail = (
        f"Drop-Tail, byte mode, 4 bulk each way, 8-packet windows: worst telnet {sel.telnet_max_s.max():.3f}s, "
        f"bulk {sel.bulk_frac.mean():.3f} (RED+ECN {ecn.bulk_frac.mean():.3f})"
    )
    return ("yes" if sel.telnet_max_s.max() <= NOTICEABLE_S else "no"), detail


def wan_clock_not_major(runs: pd.DataFrame) -> tuple[str, str]:
    return "not run", "the WAN grid uses the 100 ms clock only, as the paper's figures do"


def wan_claims() -> list[tuple[str, str, Check]]:
    return [
        ("7.2", "Throughput is similar with Drop-Tail, RED and RED+ECN", wan_throughput_alike),
        ("7.2", "Telnet packet delay is much better with ECN", wan_ecn_lowest_delay),
        ("7.2", "Drop-Tail and RED without ECN give fairly similar results", wan_dt_red_alike),
        ("7.2", "Without ECN, telnet delay is worse with more bulk connections or larger windows",
         wan_delay_grows_with_demand),
        ("7.2", "Drop-Tail does particularly well with few bulk connections, small windows and byte mode",
         wan_droptail_good_when_light),
        ("7.2", "In the WAN a 100 ms TCP clock gives results similar to a 0.1 ms clock", wan_clock_not_major),
        *sq_claims(),
    ]  # fmt: skip


def evaluate(claims: list[tuple[str, str, Check]], runs: pd.DataFrame) -> pd.DataFrame:
    """The claims table: section, claim, ecnlab (verdict), numbers."""
    rows = []
    paper = runs[runs.gateway != "SQ"]  # the paper's claims are about its three gateways
    for section, text, check in claims:
        verdict, detail = check(runs if section == SQ_SECTION else paper)
        rows.append(
            {"section": section, "paper": text, "ecnlab_shows": verdict, "numbers": detail, "check": check.__name__}
        )
    return pd.DataFrame(rows)


_VERDICTS = {"yes": Verdict.HOLDS, "no": Verdict.DOES_NOT_HOLD, "partly": Verdict.PARTLY, "not run": Verdict.NOT_RUN}


def as_claims(table: pd.DataFrame) -> list[Claim]:
    """The rows of :func:`evaluate`'s table as the framework's claims (verdict, numbers as the reason)."""
    return [
        Claim(text=r.paper, verdict=_VERDICTS[r.ecnlab_shows], reason=r.numbers or r.check, source=f"§{r.section}")
        for r in table.itertuples(index=False)
    ]

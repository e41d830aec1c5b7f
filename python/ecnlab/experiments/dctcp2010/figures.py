"""Figures of ``ecnlab reproduce dctcp2010``: the queue each sender keeps (Fig. 1, 13), throughput
against K (§3.4), and incast's timeouts and tail QCT against the fan-in (Fig. 18). PNG and SVG
are written (fixed metadata, so the bytes repeat); the PNG paths are returned."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.plots import pyplot, save_figure

__all__ = ["queue_figure", "threshold_figure", "incast_figure", "fabric_figure"]

COLOUR = {"dctcp": "tab:green", "tcp-ecn": "tab:blue", "tcp-droptail": "tab:red", "tcp": "tab:red"}


def queue_figure(c: pd.DataFrame, outdir: Path) -> Path:
    """Mean queue (KB, log scale) per case, a bar per sender."""
    plt = pyplot()
    cases = list(dict.fromkeys(f"{r} {n} flows" for r, n in zip(c.rate, c.nflows, strict=True)))
    senders = list(dict.fromkeys(c.sender))
    fig, ax = plt.subplots(figsize=(7, 3.6))
    w = 0.8 / max(len(senders), 1)
    for j, s in enumerate(senders):
        d = c[c.sender == s]
        xs = [cases.index(f"{r} {n} flows") + j * w for r, n in zip(d.rate, d.nflows, strict=True)]
        ax.bar(xs, d.queue_kb, width=w, color=COLOUR.get(s), label=s)
    ax.set_xticks([i + w * (len(senders) - 1) / 2 for i in range(len(cases))], cases)
    ax.set_yscale("log")
    ax.set_ylabel("mean queue at the port (KB)")
    ax.legend(fontsize=8)
    ax.set_title("Queue occupancy: DCTCP vs TCP (Alizadeh et al. 2010, Fig. 1, 13)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "queue")


def threshold_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for s, d in c.groupby("sender", sort=False):
        ax.plot(d.k_pkts, d.utilisation, marker="o", color=COLOUR.get(str(s)), label=str(s))
    ax.axvline(83 / 7, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("marking threshold K (packets)")
    ax.set_ylabel("utilisation (goodput / payload capacity)")
    ax.set_title("Throughput vs K, 10 Gbit/s, 2 flows (dashed: C·RTT/7)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, outdir, "threshold")


def incast_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    for s, d in c.groupby("sender", sort=False):
        a.plot(d.servers, 100 * d.timeout_share, marker="o", color=COLOUR.get(str(s)), label=str(s))
        b.plot(d.servers, d.qct_p99_ms, marker="o", color=COLOUR.get(str(s)), label=str(s))
    a.set_xlabel("responders n")
    a.set_ylabel("queries with a timeout (%)")
    b.set_xlabel("responders n")
    b.set_ylabel("QCT p99 (ms)")
    a.legend(fontsize=8)
    fig.suptitle("Incast, 1 MB per query, static 100-packet port (Fig. 18)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "incast")


def fabric_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    places = list(dict.fromkeys(c.background))
    for j, (s, d) in enumerate(c.groupby("sender", sort=False)):
        d = d.set_index("background").reindex(places)
        xs = [i + 0.4 * j for i in range(len(places))]
        ax.bar(xs, d.qct_mean_ms, 0.4, yerr=d.qct_mean_ms_ci95, color=COLOUR.get(str(s)), label=f"{s} mean", capsize=2)
        ax.scatter(xs, d.qct_p99_ms, color="black", marker="_", s=200, zorder=3)
    ax.set_xticks([i + 0.2 for i in range(len(places))], [f"long flows {p}" for p in places], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("query completion time (ms; bar mean, dash p99)", fontsize=8)
    ax.legend(fontsize=8)
    fig.suptitle("Fat tree k = 8, 1 Gbit/s: 40 x 2 KiB queries beside 2 long flows (§2.3.2)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, outdir, "fabric")

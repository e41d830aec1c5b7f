"""Figures of ``ecnlab reproduce dctcp2010``: the queue each sender keeps (Fig. 1, 13), throughput
against K (§3.4), and incast's timeouts and tail QCT against the fan-in (Fig. 18). PNG and SVG
are written (fixed metadata, so the bytes repeat); the PNG paths are returned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["queue_figure", "threshold_figure", "incast_figure"]

COLOUR = {"dctcp": "tab:green", "tcp-ecn": "tab:blue", "tcp-droptail": "tab:red", "tcp": "tab:red"}


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, outdir: Path, name: str) -> Path:
    outdir.mkdir(parents=True, exist_ok=True)
    png = outdir / f"{name}.png"
    fig.savefig(png, dpi=110, metadata={"Software": None})
    fig.savefig(outdir / f"{name}.svg", metadata={"Date": None, "Creator": None})
    _plt().close(fig)
    return png


def queue_figure(c: pd.DataFrame, outdir: Path) -> Path:
    """Mean queue (KB, log scale) per case, a bar per sender."""
    plt = _plt()
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
    return _save(fig, outdir, "queue")


def threshold_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = _plt()
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
    return _save(fig, outdir, "threshold")


def incast_figure(c: pd.DataFrame, outdir: Path) -> Path:
    plt = _plt()
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
    return _save(fig, outdir, "incast")

"""kuz-deploy: incremental ECN deployment (Kuzmanovic 2005 §6, Fig. 10).

Per (deployment level, client class ECN / non-ECN): response times merged over
clients and seeds from the engine's 20 ms histograms (mean over objects, median
and 90th percentile as bin upper edges), and the paper's two claims.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ecnlab.experiments.kuzmanovic2005.persistent import BIN_S, _pct, queue_signals
from ecnlab.files import write_figure

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["classes", "claims", "twins", "twin_claim", "drops", "figure", "section"]

LEVELS = ("ecn5", "ecn50", "ecn95")


def _merge(res: SweepResults) -> dict[tuple[str, bool], dict[str, Any]]:
    acc: dict[tuple[str, bool], dict[str, Any]] = {}
    for r in res.runs.itertuples():
        for f in res.summary(str(r.run))["flows"]:
            w = f.get("web")
            if not w:
                continue
            a = acc.setdefault((str(r.deploy), bool(f["ecn"])), {"hist": None, "sum": 0.0, "n": 0, "clients": set()})
            h = np.asarray(w["response_hist"], dtype=np.int64)
            a["hist"] = h if a["hist"] is None else a["hist"] + h
            a["sum"] += (w["response_mean_s"] or 0.0) * w["objects_completed"]
            a["n"] += w["objects_completed"]
            a["clients"].add(f["dst"])
    return acc


def classes(res: SweepResults) -> tuple[pd.DataFrame, dict[tuple[str, bool], np.ndarray]]:
    """One row per (deploy, ecn): clients, objects, mean / p50 / p90 response time; and the histograms."""
    acc = _merge(res)
    rows = [
        {
            "deploy": d,
            "ecn_clients": e,
            "clients": len(a["clients"]),
            "objects": a["n"],
            "response_mean_s": a["sum"] / a["n"] if a["n"] else None,
            "response_p50_s": _pct(a["hist"], 0.5),
            "response_p90_s": _pct(a["hist"], 0.9),
        }
        for (d, e), a in sorted(acc.items())
    ]
    return pd.DataFrame(rows), {k: a["hist"] for k, a in acc.items()}


def drops(res: SweepResults) -> pd.DataFrame:
    """Per deployment level (means over seeds): the bottleneck's marks, drops and what the drops fell on."""
    rows = []
    for r in res.runs.itertuples():
        q = next(q for q in res.summary(str(r.run))["queues"] if q["link"] == "R1->R2")
        rows.append({"deploy": str(r.deploy), **queue_signals(q)})
    return pd.DataFrame(rows).groupby("deploy", as_index=False).mean(numeric_only=True).round(1)


def twins(res: SweepResults) -> pd.DataFrame:
    """Clients r6 and r16 share an RTT (88 ms): their mean response times per deployment level."""
    acc: dict[tuple[str, str], list[float]] = {}
    for r in res.runs.itertuples():
        for f in res.summary(str(r.run))["flows"]:
            w = f.get("web")
            if w and f["dst"] in ("r6", "r16"):
                a = acc.setdefault((str(r.deploy), f["dst"]), [0.0, 0.0, float(f["ecn"])])
                a[0] += (w["response_mean_s"] or 0.0) * w["objects_completed"]
                a[1] += w["objects_completed"]
    rows = [
        {
            "deploy": d,
            "client": c,
            "ecn": bool(a[2]),
            "objects": int(a[1]),
            "response_mean_s": a[0] / a[1] if a[1] else None,
        }
        for (d, c), a in sorted(acc.items())
    ]
    return pd.DataFrame(rows, columns=["deploy", "client", "ecn", "objects", "response_mean_s"])


def twin_claim(tw: pd.DataFrame) -> dict[str, Any]:
    """At 5 % the one ECN client (r16) against its RTT twin r6 (non-ECN): the fair version of the first claim."""
    m = {(r.deploy, r.client): r.response_mean_s for r in tw.itertuples()}
    e, n = m.get(("ecn5", "r16")), m.get(("ecn5", "r6"))
    return {
        "claim": "at 5 % the ECN client r16 is faster than its RTT twin r6 (non-ECN)",
        "values_s": f"{e} vs {n}",
        "ecnlab": None if e is None or n is None else bool(e < n),
    }


def claims(t: pd.DataFrame) -> pd.DataFrame:
    """§6: ECN clients gain at once (5 %); non-ECN clients degrade gradually as deployment grows."""
    m = {(r.deploy, bool(r.ecn_clients)): r.response_mean_s for r in t.itertuples()}
    gain = m.get(("ecn5", True)), m.get(("ecn5", False))
    plain = [m.get((lvl, False)) for lvl in LEVELS]
    rows = [
        {
            "claim": "at 5 % deployment ECN clients have lower mean response time than non-ECN clients",
            "values_s": f"{gain[0]} vs {gain[1]}",
            "ecnlab": None if None in gain else bool(gain[0] < gain[1]),  # type: ignore[operator]
        },
        {
            "claim": "non-ECN clients' mean response time grows with deployment (5 → 50 → 95 %)",
            "values_s": " → ".join(str(None if p is None else round(p, 4)) for p in plain),
            "ecnlab": None if None in plain else bool(plain[0] <= plain[1] <= plain[2]),  # type: ignore[operator]
        },
    ]
    return pd.DataFrame(rows)


def figure(h: dict[tuple[str, bool], np.ndarray], outdir: Path) -> list[Path]:
    """Fig. 10 shape: response-time CDFs of ECN and non-ECN clients per level, beside the uncongested run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for (d, e), hist in sorted(h.items()):
        if hist.sum() == 0:
            continue
        edges = np.arange(1, len(hist) + 1) * BIN_S
        label = "uncongested" if d == "uncongested" else f"{'ECN+' if e else 'no ECN'}, P(ECN) = {d[3:]} %"
        ax.step(edges[:-1], 100 * np.cumsum(hist)[:-1] / hist.sum(), where="post", label=label,
                linestyle="-" if e or d == "uncongested" else "--")  # fmt: skip
    ax.set(xlabel="response time (s)", ylabel="cumulative %", xlim=(0, 2), ylim=(0, 100), title="RED*, 98 % load")
    ax.legend(fontsize="small")
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / "kuz-deploy-cdf.png"
    write_figure(fig, path, dpi=110)
    plt.close(fig)
    return [path]


def section(tables: dict[str, pd.DataFrame]) -> str:
    from ecnlab.experiments import to_markdown

    return "\n\n".join(
        [
            "Response time = client SYN → last byte of the object. ECN and non-ECN clients have the same RTT mix "
            "(deploy.toml). The paper shows CDFs only (Fig. 10); its claims are qualitative.",
            to_markdown(tables["claims"]),
            to_markdown(tables["classes"]),
            "The bottleneck's marks and drops per level (means over seeds): RED* marks ECT packets above max_th "
            "and drops the Not-ECT ones, among them the SYN-ACKs of non-ECN clients (`drops_synack`; the "
            "servers send ECT SYN-ACKs only to clients that negotiate ECN).",
            to_markdown(tables["drops"]) if "drops" in tables else "",
            "Clients r6 and r16 have the same RTT (88 ms); r16 is the ECN client at 5 %, r6 the non-ECN one at 95 %:",
            to_markdown(tables["twins"]) if "twins" in tables else "",
        ]
    )

"""kuz-testbed: Kuzmanovic 2005 §7 on real Linux TCP (``ecnlab emulate``) beside the simulator.

Runs (``testbed.toml``): one named axis ``case`` = ENGINE_LINK_SCHEME. ``emu``
cases run in this process through the live-emulation router (one after
another: they take real time), ``sim`` cases through the simulator; both give
the same ``summary.json``, so the web analysis of kuz-persistent
(:func:`persistent._run_row`: normalised throughput, response-time
percentiles from the 20 ms histograms) applies to both. ``probe`` cases
capture one request/response flow to read the ECN codepoint of every SYN,
SYN-ACK, data packet and ACK (:mod:`.codepoints`); the emulated probe also
records which ``net.ipv4.tcp_ecn`` values this kernel accepts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ecnlab.experiments.kuzmanovic2005 import persistent
from ecnlab.experiments.kuzmanovic2005.codepoints import count_codepoints
from ecnlab.files import write_figure

if TYPE_CHECKING:
    from ecnlab.store import SweepResults
    from ecnlab.sweep.execute import Outcome
    from ecnlab.sweep.spec import Run

__all__ = [
    "unavailable",
    "compute",
    "emulated",
    "per_run",
    "cells",
    "sim_vs_emu",
    "claims",
    "codepoints",
    "figures",
    "section",
]

KERNEL_FILE = "kernel_ecn.json"
#: Captures of the probe (the server's and the client's access links).
PROBE_PCAPS = {"server s1->R1": "s1-R1.pcap", "client r1->R2": "r1-R2.pcap"}
LINK_TITLES = {"10M": "10 Mbit/s (congested)", "100M": "100 Mbit/s (uncongested)"}
#: Response-time histogram bins (20 ms) from 1 s on: a SYN or SYN-ACK lost costs Linux's 1 s initial RTO.
ONE_SECOND_BIN = round(1.0 / persistent.BIN_S)


def case_parts(case: str) -> tuple[str, str, str]:
    """``emu_10M_REDstar+ECN`` → (engine, link, scheme)."""
    engine, link, scheme = case.split("_", 2)
    return engine, link, scheme


# --- running -------------------------------------------------------------------------------------


def unavailable() -> str | None:
    """Why live emulation cannot run here (None: it can)."""
    from ecnlab.emu.netns import EmulationError
    from ecnlab.emu.run import router_command

    if os.geteuid() != 0:
        return "live emulation needs root (network namespaces and TUN devices); run as root to include it"
    if not os.path.exists("/dev/net/tun"):
        return "live emulation needs /dev/net/tun, which this machine lacks"
    for tool in ("ip", "ss", "nstat"):
        if shutil.which(tool) is None:
            return f"live emulation needs `{tool}` (iproute2), which is not installed"
    try:
        router_command()
    except EmulationError as e:
        return str(e)
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        return f"`ip netns` does not work here ({r.stderr.strip()})"
    return None


def compute(run: Run) -> Outcome:
    """One run: emulated (in this process, real time) or simulated; errors come back in the Outcome."""
    from ecnlab.sweep.execute import compute_run

    engine, link, _ = case_parts(str(run.axes["case"]))
    if engine == "sim":
        return compute_run(run.name, run.data)
    extra = (lambda: {KERNEL_FILE: json.dumps(kernel_ecn(), indent=1).encode()}) if link == "probe" else None
    return emulated(run, extra)


def emulated(run: Run, extra: Callable[[], dict[str, bytes]] | None = None) -> Outcome:
    """One run through ``ecnlab emulate`` in this process (real time): its output files (and ``extra()``'s)
    as the simulator's workers return them; an error comes back in the Outcome (rfc2884-testbed too)."""
    from ecnlab.config import load_scenario
    from ecnlab.emu.run import emulate_scenario
    from ecnlab.sweep.execute import Outcome

    try:
        sc = load_scenario(run.data)
        with tempfile.TemporaryDirectory(prefix="ecnlab-emu-") as tmp:
            out = Path(tmp) / "run"
            emulate_scenario(sc, out)
            files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
        files.update(extra() if extra is not None else {})
        return Outcome(run.name, files, None)
    except Exception as e:  # reported per run, as the simulator's; Ctrl-C still stops everything
        return Outcome(run.name, None, f"{type(e).__name__}: {e}")


def kernel_ecn() -> dict[str, Any]:
    """Which ``net.ipv4.tcp_ecn`` values this kernel accepts (0–2: RFC 3168; 3–5: AccECN in
    kernels that enable it) and which ``tcp_ecn*`` sysctls exist, tried in a fresh namespace."""
    from ecnlab.emu.netns import PREFIX

    ns = f"{PREFIX}{os.getpid()}-ecnprobe"
    accepted = []
    subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True, timeout=10)
    try:
        for v in range(6):
            cmd = ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"net.ipv4.tcp_ecn={v}"]
            if subprocess.run(cmd, capture_output=True, timeout=10).returncode == 0:
                accepted.append(v)
        names = subprocess.run(
            ["ip", "netns", "exec", ns, "sh", "-c", "ls /proc/sys/net/ipv4 | grep '^tcp_ecn'"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.split()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
    return {"kernel": os.uname().release, "tcp_ecn_accepted": accepted, "tcp_ecn_sysctls": names}


# --- analysis ------------------------------------------------------------------------------------


def _run_dir(res: SweepResults, run: str) -> Path:
    from ecnlab.store import RUNS_DIR

    return Path(res.path) / RUNS_DIR / run


def _web_row(summary: dict[str, Any]) -> dict[str, Any]:
    """kuz-persistent's per-run metrics, plus what the testbed adds."""
    row = persistent._run_row(summary)
    hist = persistent._hist(summary)
    n = int(hist.sum())
    row["objects_started"] = sum(f["web"]["objects_started"] for f in summary["flows"] if f.get("web"))
    row["share_ge_1s"] = float(hist[ONE_SECOND_BIN:].sum() / n) if n else None
    emu = summary.get("emulation")
    if emu is not None:  # SYN-ACK retransmissions: the servers' TCPSynRetrans (they send no SYNs)
        row["synack_retrans"] = sum(c["TcpExtTCPSynRetrans"] for h, c in emu["nstat"].items() if h.startswith("s"))
        row["lateness_p50_us"] = emu["router"]["lateness"]["p50_us"]
        row["lateness_p99_us"] = emu["router"]["lateness"]["p99_us"]
    return row


def per_run(res: SweepResults) -> pd.DataFrame:
    """One row per web run (probes excluded)."""
    rows = []
    for r in res.runs.itertuples():
        engine, link, scheme = case_parts(str(r.case))
        if link == "probe":
            continue
        base = {"case": str(r.case), "engine": engine, "link": link, "scheme": scheme, "seed": int(r.seed)}
        rows.append({**base, **_web_row(res.summary(str(r.run)))})
    return pd.DataFrame(rows).sort_values(["engine", "link", "scheme", "seed"], ignore_index=True)


def cells(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per case."""
    keys = ["case", "engine", "link", "scheme"]
    metrics = [c for c in runs.columns if c not in (*keys, "seed")]
    out = runs.groupby(keys, as_index=False)[metrics].mean()
    out["seeds"] = runs.groupby(keys).seed.nunique().to_numpy()
    return out


SIDE_BY_SIDE = (
    "offered_load",
    "utilization",
    "norm_throughput_pct",
    "response_mean_s",
    "response_p50_s",
    "response_p90_s",
    "share_ge_1s",
    "marks",
    "drops",
    "avg_qlen_pkts",
)


def sim_vs_emu(c: pd.DataFrame) -> pd.DataFrame:
    """The same scenario simulated and emulated: one row per (link, scheme, metric)."""
    rows = []
    for (link, scheme), g in c.groupby(["link", "scheme"], sort=True):
        by = {str(e): row for e, row in zip(g.engine, g.to_dict("records"), strict=True)}
        for m in SIDE_BY_SIDE:
            sim, emu = by.get("sim", {}).get(m), by.get("emu", {}).get(m)
            rows.append({"link": link, "scheme": scheme, "metric": m, "sim": sim, "emu": emu})
    return pd.DataFrame(rows)


def claims(c: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims the testbed checks (§5.2.3, §7), per engine, on the cell means."""
    t = c.set_index(["engine", "link", "scheme"])

    def get(engine: str, link: str, scheme: str, m: str) -> float | None:
        try:
            v = t.loc[(engine, link, scheme), m]
        except KeyError:
            return None
        return None if pd.isna(v) else float(v)

    def cmp(a: float | None, b: float | None) -> bool | None:
        return None if a is None or b is None else a < b

    rows = []
    for engine in ("emu", "sim"):
        red, pi = (get(engine, "10M", s, "response_mean_s") for s in ("REDstar+ECN", "PI"))
        tr, tp = (get(engine, "10M", s, "norm_throughput_pct") for s in ("REDstar+ECN", "PI"))
        un = get(engine, "100M", "PI", "response_mean_s")
        rows += [
            {"engine": engine, "claim": "congested: RED*+ECN mean response time < PI's", "holds": cmp(red, pi),
             "left": red, "right": pi},
            {"engine": engine, "claim": "congested: PI normalised throughput >= RED*+ECN's",
             "holds": None if tr is None or tp is None else tp >= tr, "left": tp, "right": tr},
            {"engine": engine, "claim": "uncongested mean response time < congested PI's", "holds": cmp(un, pi),
             "left": un, "right": pi},
        ]  # fmt: skip
    plus, red = (
        get("sim", "10M", "REDstar+ECN+", "response_mean_s"),
        get("sim", "10M", "REDstar+ECN", "response_mean_s"),
    )
    pi = get("sim", "10M", "PI", "response_mean_s")
    rows.append({"engine": "sim", "claim": "congested: ECN+ (ECT SYN-ACKs) lowers RED*+ECN's mean response time",
                 "holds": cmp(plus, red), "left": plus, "right": red})  # fmt: skip
    rows.append({"engine": "sim", "claim": "congested: RED*+ECN+ mean response time < PI's (the paper's claim)",
                 "holds": cmp(plus, pi), "left": plus, "right": pi})  # fmt: skip
    return pd.DataFrame(rows)


def codepoints(res: SweepResults) -> pd.DataFrame:
    """Packets per (probe case, capture, kind, ECN codepoint) in the probes' captures, summed over seeds."""
    rows = []
    for r in res.runs.itertuples():
        engine, link, scheme = case_parts(str(r.case))
        if link != "probe":
            continue
        for where, fname in PROBE_PCAPS.items():
            path = _run_dir(res, str(r.run)) / fname
            if not path.is_file():
                continue
            for (kind, cp), n in sorted(count_codepoints(path).items()):
                rows.append({"case": str(r.case), "capture": where, "kind": kind, "codepoint": cp, "packets": n})
    keys = ["case", "capture", "kind", "codepoint"]
    frame = pd.DataFrame(rows, columns=[*keys, "packets"])
    return frame.groupby(keys, as_index=False, sort=False).packets.sum()  # over seeds


def kernel_facts(res: SweepResults) -> pd.DataFrame:
    """What the emulated probe found about this kernel's ECN settings."""
    rows = []
    for r in res.runs.itertuples():
        path = _run_dir(res, str(r.run)) / KERNEL_FILE
        if path.is_file():
            k = json.loads(path.read_text())
            rows.append(
                {
                    "kernel": k["kernel"],
                    "tcp_ecn values accepted": " ".join(map(str, k["tcp_ecn_accepted"])),
                    "tcp_ecn* sysctls": " ".join(k["tcp_ecn_sysctls"]),
                }
            )
    return pd.DataFrame(rows, columns=["kernel", "tcp_ecn values accepted", "tcp_ecn* sysctls"]).drop_duplicates()


def hists(res: SweepResults) -> dict[str, np.ndarray]:
    """Response-time histograms merged over clients and seeds, per web case."""
    out: dict[str, np.ndarray] = {}
    for r in res.runs.itertuples():
        if case_parts(str(r.case))[1] == "probe":
            continue
        h = persistent._hist(res.summary(str(r.run)))
        out[str(r.case)] = out[str(r.case)] + h if str(r.case) in out else h
    return out


def figures(h: dict[str, np.ndarray], c: pd.DataFrame, outdir: Path) -> list[Path]:
    """Response-time CDFs (emulated | simulated; congested RED* vs PI beside uncongested) and
    normalised throughput bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    colors = {"REDstar+ECN": "tab:blue", "REDstar+ECN+": "tab:green", "PI": "tab:red"}
    for ax, engine in zip(axes, ("emu", "sim"), strict=True):
        for case, hist in sorted(h.items()):
            e, link, scheme = case_parts(case)
            if e != engine or hist.sum() == 0:
                continue
            edges = np.arange(1, len(hist) + 1) * persistent.BIN_S
            style = "-" if link == "10M" else ":"
            ax.step(edges[:-1], 100 * np.cumsum(hist)[:-1] / hist.sum(), where="post", ls=style,
                    color=colors.get(scheme), label=f"{LINK_TITLES.get(link, link)}, {scheme}")  # fmt: skip
        title = "emulated (Linux TCP)" if engine == "emu" else "simulated (ecnlab model)"
        ax.set(xlabel="response time (s)", title=title, xlim=(0, 3), ylim=(0, 100))
        ax.legend(fontsize="x-small", loc="lower right")
    axes[0].set_ylabel("cumulative % of objects")
    fig.tight_layout()
    cdf = outdir / "kuz-testbed-cdf.png"
    write_figure(fig, cdf, dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.4))
    labels = [str(x) for x in c.case]
    ax.bar(range(len(c)), c.norm_throughput_pct, color=[colors.get(str(s), "grey") for s in c.scheme])
    ax.set_xticks(range(len(c)), labels, rotation=30, ha="right", fontsize="small")
    ax.set(ylabel="normalised throughput (%)", title="goodput to the clients after warm-up / C")
    fig.tight_layout()
    bars = outdir / "kuz-testbed-throughput.png"
    write_figure(fig, bars, dpi=110)
    plt.close(fig)
    return [cdf, bars]


def _synack_sentence(cp: pd.DataFrame, case: str, who: str) -> str:
    sa = cp[(cp.case == case) & (cp.kind == "SYN-ACK") & (cp.capture.str.startswith("server"))]
    if sa.empty:
        return f"{who}: no SYN-ACK captured."
    parts = ", ".join(f"{int(n)} {p}" for p, n in zip(sa.codepoint, sa.packets, strict=True))
    return f"{who}: SYN-ACKs {parts}."


def section(tables: dict[str, pd.DataFrame]) -> str:
    """The report section: what was measured, computed from the tables."""
    from ecnlab.experiments import to_markdown

    cp, c = tables["codepoints"], tables["cells"]
    emu = c[c.engine == "emu"]
    retrans = ", ".join(
        f"{r.scheme} {r.synack_retrans:.0f} ({r.objects_started:.0f} objects)"
        for r in emu[emu.link == "10M"].itertuples()
        if "synack_retrans" in emu
    )
    late = (
        f"Router delivery lateness (median / p99 over the emulated runs): "
        f"{emu.lateness_p50_us.median():.0f} / {emu.lateness_p99_us.max():.0f} µs."
        if not emu.empty and "lateness_p50_us" in emu
        else ""
    )
    synacks = " ".join(
        [
            _synack_sentence(cp, "emu_probe_REDstar+ECN", "Linux (tcp_ecn=1 both ends, emulated)"),
            _synack_sentence(cp, "sim_probe_REDstar+ECN", "ecnlab model with ECN"),
            _synack_sentence(cp, "sim_probe_REDstar+ECN+", "ecnlab model with ECN+"),
        ]
    )
    return "\n\n".join(
        [
            "Real Linux TCP (`ecnlab emulate`: one namespace per host, ecnlab's own RED* and PI in the router) "
            "beside the simulator, same scenarios. The paper's §7 numbers are not in the fragment, so the "
            "comparison is with its claims and with the simulator. Linux has no ECN+: the emulated RED* runs "
            "are RED*+ECN, with Not-ECT SYN-ACKs that RED* drops above max_th (each drop costs the 1 s initial "
            "RTO: `share_ge_1s`, `synack_retrans`). The simulator's RED*+ECN+ shows what ECT SYN-ACKs change.",
            "**SYN-ACK codepoints measured in captures** (probe: one uncongested request/response flow). " + synacks,
            to_markdown(tables["kernel"]) if not tables["kernel"].empty else "(no emulated probe ran)",
            f"SYN-ACK retransmissions by the servers at 10 Mbit/s (emulated, nstat `TcpExtTCPSynRetrans`, "
            f"mean per run): {retrans or 'none measured'}.",
            "Claims (`holds` compares `left` with `right`; one seed in the quick form, so small differences "
            "are noise):",
            to_markdown(tables["claims"]),
            to_markdown(tables["sim_vs_emu"]),
            late,
        ]
    )

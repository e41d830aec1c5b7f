"""``ecnlab reproduce kuz-queue-tail | kuz-persistent | kuz-deploy | kuz-testbed | kuzmanovic2005``.

Kuzmanovic 2005, "The Power of ECN".

Files beside this module: ``base.toml`` (one run, every parameter with its
source), ``queue-tail.toml`` (Fig. 8 and 9: 3 link speeds × 6 loads × 2 mixes
× 3 seeds) and ``queue-tail-quick.toml`` (3 loads, 1 seed), ``persistent.toml`` /
``persistent-quick.toml`` (§5.2.3, §5.3: RED*+ECN+ vs PI), ``deploy.toml`` /
``deploy-quick.toml`` (§6, Fig. 10), ``testbed.toml`` / ``testbed-quick.toml`` (§7: real
Linux TCP via live emulation beside the simulator; skipped with one line where the
process cannot emulate). docs/experiments/kuzmanovic2005.md describes the
method and every choice.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ecnlab.experiments.framework import Claim, Part, Results, Study, claims_from_table
from ecnlab.experiments.kuzmanovic2005 import deploy, persistent, testbed
from ecnlab.experiments.kuzmanovic2005.queue_tail import cells, figure, paper_table, per_run, section

__all__ = ["summarize_queue_tail", "STUDY", "EXPERIMENTS"]

Tables = list[tuple[str, pd.DataFrame]]


def summarize_queue_tail(res: Results) -> Tables:
    c = cells(res.runs)
    return [("paper", paper_table(c)), ("cells", c), ("runs", res.runs)]


def figures_queue_tail(res: Results, outdir: Path) -> list[Path]:
    return figure(cells(res.runs), outdir)


def section_queue_tail(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 queue tails (Fig. 8, 9): ecnlab beside the paper", section(dict(tables))


def claims_queue_tail(res: Results, tables: Tables) -> list[Claim]:
    reason = ["mix", "C_mbit", "ecnlab_utilization", "ecnlab_p"]
    return claims_from_table(dict(tables)["paper"], text="paper", ok="agrees", reason=reason, source="Fig. 8, 9")


def summarize_persistent(res: Results) -> Tables:
    c = persistent.cells(res.runs)
    return [
        ("paper", persistent.paper_table(c)),
        ("claims", persistent.claims(c)),
        ("drops", persistent.drops_table(c)),
        ("cells", c),
        ("runs", res.runs),
    ]


def figures_persistent(res: Results, outdir: Path) -> list[Path]:
    return persistent.figure(persistent.hists(res.res), outdir)


def section_persistent(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 persistent congestion (§5.2.3, §5.3): ecnlab beside the paper", persistent.section(
        dict(tables)
    )


def claims_persistent(res: Results, tables: Tables) -> list[Claim]:
    t, c = dict(tables)["claims"], dict(tables)["cells"]
    t = t.assign(mean_response_s=[_responses(str(text), c) for text in t.claim])
    reason = ["gap_pct_points", "mean_response_s"]
    return claims_from_table(t, text="claim", ok="ecnlab", reason=reason, source="§5.2.3, §5.3")


def _responses(claim: str, c: pd.DataFrame) -> str | None:
    """The mean response times a response-time claim compares (``(cell)`` at the end of its text)."""
    if "response time" not in claim or not claim.endswith(")"):
        return None
    cell = claim.rsplit("(", 1)[1].rstrip(")")
    sel = c[c.cell == cell]
    return ", ".join(f"{r.scheme} {r.response_mean_s:.3f}" for r in sel.itertuples()) or None


def _classes(res: Results) -> tuple[pd.DataFrame, dict]:  # type: ignore[type-arg]
    return res.derive("classes", deploy.classes)  # type: ignore[no-any-return]


def summarize_deploy(res: Results) -> Tables:
    t, _ = _classes(res)
    tw = deploy.twins(res.res)
    c = pd.concat([deploy.claims(t), pd.DataFrame([deploy.twin_claim(tw)])], ignore_index=True)
    return [("claims", c), ("classes", t), ("drops", deploy.drops(res.res)), ("twins", tw)]


def figures_deploy(res: Results, outdir: Path) -> list[Path]:
    return deploy.figure(_classes(res)[1], outdir)


def section_deploy(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 incremental deployment (§6, Fig. 10): ecnlab beside the paper", deploy.section(dict(tables))


def claims_deploy(res: Results, tables: Tables) -> list[Claim]:
    return claims_from_table(dict(tables)["claims"], text="claim", ok="ecnlab", reason=["values_s"], source="§6")


def summarize_testbed(res: Results) -> Tables:
    c = testbed.cells(res.runs)
    return [
        ("claims", testbed.claims(c)),
        ("sim_vs_emu", testbed.sim_vs_emu(c)),
        ("codepoints", testbed.codepoints(res.res)),
        ("kernel", testbed.kernel_facts(res.res)),
        ("cells", c),
        ("runs", res.runs),
    ]


def figures_testbed(res: Results, outdir: Path) -> list[Path]:
    return testbed.figures(testbed.hists(res.res), testbed.cells(res.runs), outdir)


def section_testbed(res: Results, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 testbed (§7) on real Linux TCP, beside the simulator", testbed.section(dict(tables))


def claims_testbed(res: Results, tables: Tables) -> list[Claim]:
    t = dict(tables)["claims"]
    return claims_from_table(
        t, text="claim", ok="holds", reason=["left", "right"], source="§5.2.3, §7", prefix="engine"
    )


STUDY = Study(
    name="kuzmanovic2005",
    question=(
        "Kuzmanovic 2005, the power of ECN: with ECN-capable SYN-ACKs (ECN+), does RED with ECN give web "
        "traffic shorter response times than PI without ECN, and do ECN clients gain as deployment grows?"
    ),
    package=__name__,
    doc="docs/experiments/kuzmanovic2005.md",
    parts=(
        Part(
            name="kuz-queue-tail",
            title="Kuzmanovic 2005: P(queue > 5 ms·C) vs utilisation at 100/155/622 Mbit/s, web and general mixes",
            sweep="queue-tail.toml",
            quick="queue-tail-quick.toml",
            metrics=per_run,
            tables=summarize_queue_tail,
            figures=figures_queue_tail,
            section=section_queue_tail,
            claims=claims_queue_tail,
            key_figure="kuz-queue-tail.png",
        ),
        Part(
            name="kuz-persistent",
            title="Kuzmanovic 2005: RED*+ECN+ vs PI without ECN under persistent congestion (100 Mbit/s)",
            sweep="persistent.toml",
            quick="persistent-quick.toml",
            metrics=persistent.per_run,
            tables=summarize_persistent,
            figures=figures_persistent,
            section=section_persistent,
            claims=claims_persistent,
            key_figure="kuz-persistent-cdf.png",
        ),
        Part(
            name="kuz-deploy",
            title="Kuzmanovic 2005: incremental ECN deployment at 98 % load (5, 50, 95 % ECN clients)",
            sweep="deploy.toml",
            quick="deploy-quick.toml",
            tables=summarize_deploy,
            figures=figures_deploy,
            section=section_deploy,
            claims=claims_deploy,
            key_figure="kuz-deploy-cdf.png",
        ),
        Part(
            name="kuz-testbed",
            title="Kuzmanovic 2005 testbed: RED*+ECN vs PI on real Linux TCP (emulated), 10 and 100 Mbit/s",
            sweep="testbed.toml",
            quick="testbed-quick.toml",
            metrics=testbed.per_run,
            tables=summarize_testbed,
            figures=figures_testbed,
            section=section_testbed,
            claims=claims_testbed,
            key_figure="kuz-testbed-cdf.png",
            compute=testbed.compute,
            unavailable=testbed.unavailable,
        ),
    ),
).register()
EXPERIMENTS = tuple(STUDY.experiment(p) for p in STUDY.parts)

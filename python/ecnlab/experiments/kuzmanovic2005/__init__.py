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

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ecnlab.experiments import Experiment, register, register_group
from ecnlab.experiments.framework import Claim, claims_from_table
from ecnlab.experiments.kuzmanovic2005 import deploy, persistent, testbed
from ecnlab.experiments.kuzmanovic2005.queue_tail import cells, figure, paper_table, per_run, section

if TYPE_CHECKING:
    from ecnlab.store import SweepResults

__all__ = ["summarize_queue_tail", "EXPERIMENTS"]

Tables = list[tuple[str, pd.DataFrame]]


def summarize_queue_tail(res: SweepResults) -> Tables:
    runs = per_run(res)
    c = cells(runs)
    return [("paper", paper_table(c)), ("cells", c), ("runs", runs)]


def figures_queue_tail(res: SweepResults, outdir: Path) -> list[Path]:
    return figure(cells(per_run(res)), outdir)


def section_queue_tail(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 queue tails (Fig. 8, 9): ecnlab beside the paper", section(dict(tables))


def summarize_persistent(res: SweepResults) -> Tables:
    runs = persistent.per_run(res)
    c = persistent.cells(runs)
    return [
        ("paper", persistent.paper_table(c)),
        ("claims", persistent.claims(c)),
        ("drops", persistent.drops_table(c)),
        ("cells", c),
        ("runs", runs),
    ]


def figures_persistent(res: SweepResults, outdir: Path) -> list[Path]:
    return persistent.figure(persistent.hists(res), outdir)


def section_persistent(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 persistent congestion (§5.2.3, §5.3): ecnlab beside the paper", persistent.section(
        dict(tables)
    )


def summarize_deploy(res: SweepResults) -> Tables:
    t, _ = deploy.classes(res)
    tw = deploy.twins(res)
    c = pd.concat([deploy.claims(t), pd.DataFrame([deploy.twin_claim(tw)])], ignore_index=True)
    return [("claims", c), ("classes", t), ("drops", deploy.drops(res)), ("twins", tw)]


def figures_deploy(res: SweepResults, outdir: Path) -> list[Path]:
    return deploy.figure(deploy.classes(res)[1], outdir)


def section_deploy(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 incremental deployment (§6, Fig. 10): ecnlab beside the paper", deploy.section(dict(tables))


def summarize_testbed(res: SweepResults) -> Tables:
    runs = testbed.per_run(res)
    c = testbed.cells(runs)
    return [
        ("claims", testbed.claims(c)),
        ("sim_vs_emu", testbed.sim_vs_emu(c)),
        ("codepoints", testbed.codepoints(res)),
        ("kernel", testbed.kernel_facts(res)),
        ("cells", c),
        ("runs", runs),
    ]


def figures_testbed(res: SweepResults, outdir: Path) -> list[Path]:
    return testbed.figures(testbed.hists(res), testbed.cells(testbed.per_run(res)), outdir)


def section_testbed(res: SweepResults, tables: Tables, figs: list[Path]) -> tuple[str, str]:
    return "Kuzmanovic 2005 testbed (§7) on real Linux TCP, beside the simulator", testbed.section(dict(tables))


def _claims_kuz_queue_tail(res: SweepResults, tables: Tables) -> list[Claim]:
    return claims_from_table(dict(tables)["paper"], "Kuzmanovic 2005", text="paper", verdict="agrees")


def _claims_kuz_persistent(res: SweepResults, tables: Tables) -> list[Claim]:
    return claims_from_table(dict(tables)["claims"], "Kuzmanovic 2005", text="claim", verdict="ecnlab")


def _claims_kuz_deploy(res: SweepResults, tables: Tables) -> list[Claim]:
    return claims_from_table(dict(tables)["claims"], "Kuzmanovic 2005", text="claim", verdict="ecnlab")


def _claims_kuz_testbed(res: SweepResults, tables: Tables) -> list[Claim]:
    return claims_from_table(dict(tables)["claims"], "Kuzmanovic 2005", text="claim", verdict="holds")


def _here(name: str) -> Path:
    return Path(str(resources.files(__name__) / name))


EXPERIMENTS = (
    register(
        Experiment(
            name="kuz-queue-tail",
            title="Kuzmanovic 2005: P(queue > 5 ms·C) vs utilisation at 100/155/622 Mbit/s, web and general mixes",
            package=__name__,
            summarize=summarize_queue_tail,
            figures=figures_queue_tail,
            report_section=section_queue_tail,
            sweep_file=_here("queue-tail.toml"),
            quick_file=_here("queue-tail-quick.toml"),
            question=(
                "How often does the queue exceed 5 ms of the link's capacity as load grows, "
                "for web and general traffic mixes, at 100 to 622 Mbit/s?"
            ),
            claims=_claims_kuz_queue_tail,
        )
    ),
    register(
        Experiment(
            name="kuz-persistent",
            title="Kuzmanovic 2005: RED*+ECN+ vs PI without ECN under persistent congestion (100 Mbit/s)",
            package=__name__,
            summarize=summarize_persistent,
            figures=figures_persistent,
            report_section=section_persistent,
            sweep_file=_here("persistent.toml"),
            quick_file=_here("persistent-quick.toml"),
            question=(
                "Under persistent congestion, does RED*+ECN+ answer web requests faster than PI "
                "while PI keeps more throughput?"
            ),
            claims=_claims_kuz_persistent,
        )
    ),
    register(
        Experiment(
            name="kuz-deploy",
            title="Kuzmanovic 2005: incremental ECN deployment at 98 % load (5, 50, 95 % ECN clients)",
            package=__name__,
            summarize=summarize_deploy,
            figures=figures_deploy,
            report_section=section_deploy,
            sweep_file=_here("deploy.toml"),
            quick_file=_here("deploy-quick.toml"),
            question=(
                "As ECN deployment grows from 5 to 95 %, do ECN clients gain at once "
                "and non-ECN clients lose only gradually?"
            ),
            claims=_claims_kuz_deploy,
        )
    ),
    register(
        Experiment(
            name="kuz-testbed",
            title="Kuzmanovic 2005 testbed: RED*+ECN vs PI on real Linux TCP (emulated), 10 and 100 Mbit/s",
            package=__name__,
            summarize=summarize_testbed,
            figures=figures_testbed,
            report_section=section_testbed,
            sweep_file=_here("testbed.toml"),
            quick_file=_here("testbed-quick.toml"),
            compute=testbed.compute,
            unavailable=testbed.unavailable,
            question="On real Linux TCP through ecnlab's queues, do the simulated RED*+ECN versus PI results hold?",
            claims=_claims_kuz_testbed,
        )
    ),
)
register_group("kuzmanovic2005", ["kuz-queue-tail", "kuz-persistent", "kuz-deploy", "kuz-testbed"])

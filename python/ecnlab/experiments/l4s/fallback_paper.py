"""The 2025 fallback study's numbers per cell: TCP Prague's and CUBIC's shares of the bottleneck rate.

Source: "Reproducing and Solving a Fallback Issue in TCP Prague" (2025), repository
``github.com/Greenscreen23/prague-fallback-experiments`` at commit
5462b1fc2e69e82b7425ed9482f5b6cbca6d5630, files ``data/reproduce.csv`` (Figure 3) and
``data/extend.csv`` (Figures 4 and 5): the rows with ``classic_cca`` = cubic and ``aqm`` = DualPI2
(extend: also ``bdp`` = 8, ``omit`` = 10), kernel ``5.15.72-56eae305c-prague-91`` (the 0.6 module
unfixed) and ``5.15.725.15-prague-lhagen+`` (with the study's ``linux.diff``, the ×16 fix).
Each share is the mean over the study's runs (``n``: 10 in the reproduce grid, 30 in the extend
grid) of iperf3's server-side ``sum_received.bits_per_second`` divided by the bottleneck rate, as the
study's ``plotting/extend.ipynb`` (``transform_throughput``) computes it; its reproduce figure
prints the same mean in Mbit/s of 100. Prague's fallback is on in every run (``run.py``'s default
``-b 1``).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PAPER", "SOURCE", "paper_table"]

SOURCE = "Greenscreen23/prague-fallback-experiments data/{reproduce,extend}.csv"

# (grid, rate Mbit/s, RTT ms, buffer BDP, fix, runs, Prague's share, CUBIC's share)
PAPER: tuple[tuple[str, int, int, float, bool, int, float, float], ...] = (
    ("reproduce", 100, 10, 0.5, False, 10, 0.1167, 0.8362),
    ("reproduce", 100, 10, 1.0, False, 10, 0.0860, 0.8665),
    ("reproduce", 100, 10, 2.0, False, 10, 0.0855, 0.8670),
    ("reproduce", 100, 10, 4.0, False, 10, 0.0860, 0.8673),
    ("reproduce", 100, 10, 8.0, False, 10, 0.0856, 0.8679),
    ("reproduce", 100, 10, 0.5, True, 10, 0.4374, 0.5122),
    ("reproduce", 100, 10, 1.0, True, 10, 0.4364, 0.5134),
    ("reproduce", 100, 10, 2.0, True, 10, 0.4405, 0.5096),
    ("reproduce", 100, 10, 4.0, True, 10, 0.4364, 0.5139),
    ("reproduce", 100, 10, 8.0, True, 10, 0.4453, 0.5047),
    ("extend", 8, 4, 8.0, False, 30, 0.2012, 0.7527),
    ("extend", 8, 16, 8.0, False, 30, 0.4178, 0.5290),
    ("extend", 8, 64, 8.0, False, 30, 0.2459, 0.6810),
    ("extend", 8, 128, 8.0, False, 30, 0.1861, 0.7225),
    ("extend", 64, 4, 8.0, False, 30, 0.0707, 0.8846),
    ("extend", 64, 16, 8.0, False, 30, 0.1170, 0.8339),
    ("extend", 64, 64, 8.0, False, 30, 0.0965, 0.8266),
    ("extend", 64, 128, 8.0, False, 30, 0.0668, 0.8048),
    ("extend", 256, 4, 8.0, False, 30, 0.0497, 0.9056),
    ("extend", 256, 16, 8.0, False, 30, 0.0618, 0.8853),
    ("extend", 256, 64, 8.0, False, 30, 0.0450, 0.8118),
    ("extend", 256, 128, 8.0, False, 30, 0.0361, 0.7263),
    ("extend", 8, 4, 8.0, True, 30, 0.3222, 0.6316),
    ("extend", 8, 16, 8.0, True, 30, 0.6633, 0.2822),
    ("extend", 8, 64, 8.0, True, 30, 0.7245, 0.2112),
    ("extend", 8, 128, 8.0, True, 30, 0.6548, 0.2781),
    ("extend", 64, 4, 8.0, True, 30, 0.2918, 0.6616),
    ("extend", 64, 16, 8.0, True, 30, 0.5528, 0.3957),
    ("extend", 64, 64, 8.0, True, 30, 0.5862, 0.3509),
    ("extend", 64, 128, 8.0, True, 30, 0.3844, 0.4988),
    ("extend", 256, 4, 8.0, True, 30, 0.3410, 0.6126),
    ("extend", 256, 16, 8.0, True, 30, 0.5788, 0.3695),
    ("extend", 256, 64, 8.0, True, 30, 0.3607, 0.5446),
    ("extend", 256, 128, 8.0, True, 30, 0.1110, 0.6542),
)

COLUMNS = ["grid", "rate_mbit", "rtt_ms", "bdp", "fix", "paper_runs", "paper_share", "paper_cubic_share"]


def paper_table() -> pd.DataFrame:
    """The study's shares, one row per cell and kernel."""
    return pd.DataFrame(PAPER, columns=COLUMNS)

"""The numbers RFC 2884 reports (Salim & Ahmed, July 2000), keyed like ecnlab's sweep axes.

Only numbers the text states are here; the RFC's figures (in its PDF version,
ref. [27]) are not available, so every other grid point has no paper value.
Relative advantages are fractions (0.23 = 23 %).
"""

from __future__ import annotations

__all__ = ["FAIRNESS", "BULK_ADVANTAGE", "TRANSACTIONAL_GAIN", "TRANSACTIONAL_TPS_ECN"]

# §5.1 table: Jain's index, 2 background flows; key (background, maxp).
FAIRNESS: dict[tuple[str, float], float] = {
    ("ecn", 0.02): 0.996888,
    ("nonecn", 0.02): 0.991946,
    ("ecn", 0.05): 0.995987,
    ("nonecn", 0.05): 0.988286,
    ("ecn", 0.1): 0.985403,
    ("nonecn", 0.1): 0.989726,
    ("ecn", 0.2): 0.979368,
    ("nonecn", 0.2): 0.983342,
}

# §5.2, bulk relative ECN advantage; key (variant, congestion, maxp).
#  Reno: "at maximum drop probability of 0.1 ... from 23% to 50% as the congestion level increases from
#  low to high"; "for the case of high congestion as we vary the drop probability from 0.02 to 0.5 the
#  relative advantage of ECN increases from 10% to 60%".
#  SACK: "about 5% at low congestion to about 15% at high congestion" (maxp 0.1); "from 10% to 40%"
#  (high congestion, maxp 0.02 → 0.5). NewReno: no numbers.
BULK_ADVANTAGE: dict[tuple[str, str, float], float] = {
    ("reno", "low", 0.1): 0.23,
    ("reno", "high", 0.1): 0.50,
    ("reno", "high", 0.02): 0.10,
    ("reno", "high", 0.5): 0.60,
    ("sack", "low", 0.1): 0.05,
    ("sack", "high", 0.1): 0.15,
    ("sack", "high", 0.02): 0.10,
    ("sack", "high", 0.5): 0.40,
}

# §5.3, transactional relative gain; key (variant, congestion, response, maxp).
#  Reno 5 KB: maxp 0.1, moderate → high: 42 % → 62 %; high congestion, maxp rising (0.02 → 0.5 read as
#  the ends of the grid): 20 % → 140 %. SACK 5 KB: 47 % → 80 % and 15 % → 120 %.
TRANSACTIONAL_GAIN: dict[tuple[str, str, str, float], float] = {
    ("reno", "moderate", "5KB", 0.1): 0.42,
    ("reno", "high", "5KB", 0.1): 0.62,
    ("reno", "high", "5KB", 0.02): 0.20,
    ("reno", "high", "5KB", 0.5): 1.40,
    ("sack", "moderate", "5KB", 0.1): 0.47,
    ("sack", "high", "5KB", 0.1): 0.80,
    ("sack", "high", "5KB", 0.02): 0.15,
    ("sack", "high", "5KB", 0.5): 1.20,
}

# §5.3: "for the 5KB flow we observe that the number of transactions per second increases from 0.8 to
# 2.2" (high congestion, rising maxp). The text does not say whose rate; read as the ECN client's.
TRANSACTIONAL_TPS_ECN: dict[tuple[str, str, str, float], float] = {
    ("reno", "high", "5KB", 0.02): 0.8,
    ("reno", "high", "5KB", 0.5): 2.2,
}

"""The cells of the Prague fallback part of ``ecnlab reproduce l4s``: the 2025 study's two grids and its buffer rule.

"Reproducing and Solving a Fallback Issue in TCP Prague" (2025; scripts in
``Greenscreen23/prague-fallback-experiments``, ``experiment/``) runs one TCP Prague and one CUBIC
flow through DualPI2 (``target 5ms``) on two grids:

- **reproduce** (``start-scripts/reproduce.sh``): 100 Mbit/s, RTT 10 ms, buffers of 0.5, 1, 2, 4
  and 8 BDP; 60-s runs measured from the start (iperf3 ``-t 60``, no ``-O``).
- **extend** (``start-scripts/extend.sh``): buffers of 8 BDP, rates 4 … 256 Mbit/s and RTTs
  4 … 128 ms, of which ecnlab runs 8, 64 and 256 Mbit/s × 4, 16, 64 and 128 ms; 70-s runs whose
  first 10 s are left out (iperf3 ``-O 10 -t 60``).

The buffer (``topo.py``): ``limit = ⌊1000 · n · rate_Mbit · rtt_ms / 8⌋ // 1500 + 1`` packets,
n the buffer in BDP; the RTT is the delay host's netem, RTT/2 each way.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cell", "CELLS", "cell"]

MTU = 1500  # topo.py: btl_pkt_limit = btl_limit // 1500 + 1


@dataclass(frozen=True)
class Cell:
    """One grid point: which grid, the bottleneck rate (Mbit/s), the base RTT (ms) and the buffer (BDP)."""

    grid: str
    rate_mbit: int
    rtt_ms: int
    bdp: float

    @property
    def label(self) -> str:
        """The sweep's ``cell`` label, e.g. ``100M-10ms-0.5bdp``."""
        return f"{self.rate_mbit}M-{self.rtt_ms}ms-{self.bdp:g}bdp"

    @property
    def limit(self) -> int:
        """DualPI2's limit in packets, as the study's ``topo.py`` computes it."""
        return int(1000 * self.bdp * self.rate_mbit * self.rtt_ms / 8) // MTU + 1

    @property
    def warmup_s(self) -> int:
        """Seconds left out before measuring (the extend grid's iperf3 ``-O 10``)."""
        return 10 if self.grid == "extend" else 0

    @property
    def duration_s(self) -> int:
        """The run's length: the measured 60 s and the warm-up."""
        return 60 + self.warmup_s


CELLS: tuple[Cell, ...] = tuple(Cell("reproduce", 100, 10, b) for b in (0.5, 1.0, 2.0, 4.0, 8.0)) + tuple(
    Cell("extend", rate, rtt, 8.0) for rate in (8, 64, 256) for rtt in (4, 16, 64, 128)
)


def cell(label: str) -> Cell:
    """The cell of a sweep label."""
    found = next((c for c in CELLS if c.label == label), None)
    if found is None:
        raise KeyError(f"no fallback cell {label!r}")
    return found

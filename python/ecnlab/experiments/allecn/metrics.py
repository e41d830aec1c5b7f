"""The all-ECN study's metrics, exactly as the paper defines them (section 4.2, 4.4, 4.6).

Pure functions over one run's flows and queues (the rows of ``flows.parquet``
and ``queues.parquet`` for that run, or ``result.flows`` / ``result.queues``).

- **Minimum** packets of one transfer: the data segments a sender needs in an
  uncongested network, ``ceil(file_bytes / mss)`` (102 400 B at MSS 1460: 71).
- **Network overhead** (4.2): "the number of excess packets that the TCP sender
  transmits for the specified application payload (100 KB), over and above the
  minimum required in an uncongested network ... expressed as a percentage of
  this minimum", i.e. 100 · (data packets the server sent − minimum) / minimum,
  summed over every transfer of the run. It includes packets dropped at router
  B, corrupted ones and needless retransmissions.
- **Excess packets**: the same difference in packets (4.2: "445 packets more
  packets than what is required").
- **Receiver overhead** (4.2): 100 · (data packets that reached the clients −
  minimum) / minimum: duplicates and corrupted packets, not packets dropped
  on the way.
- **ACKs per transfer** (4.6): pure ACKs the clients sent, divided by the
  number of transfers.
- **Transfer time** (4.1): mean and standard deviation over the run's 11·n
  transfers, each from the client's first SYN to the file's last byte.
- Drops and marks at router B's queue towards the clients (``R1->R2``).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

__all__ = [
    "BOTTLENECK",
    "min_packets",
    "transfer_metrics",
    "overhead_metrics",
    "queue_metrics",
    "accounting_problems",
    "run_metrics",
]

# Router B's output queue towards the clients in the dumbbell of base.toml.
BOTTLENECK = "R1->R2"


def min_packets(file_bytes: int, mss: int) -> int:
    """Data segments one transfer needs without loss: ceil(file_bytes / mss)."""
    if file_bytes <= 0 or mss <= 0:
        raise ValueError(f"file_bytes and mss must be > 0, got {file_bytes}, {mss}")
    return math.ceil(file_bytes / mss)


def transfer_metrics(flows: pd.DataFrame) -> dict[str, float]:
    """Transfers finished and their time: mean and standard deviation (s) over all of them.

    The std is the sample std (n − 1) of the pooled 11·n transfer times, as the
    paper reports one number per run over "this sample of size 11n" (3.1).
    """
    times = [float(t) for ts in flows["transfer_times_s"] for t in ts]
    n = len(times)
    mean = sum(times) / n if n else math.nan
    var = sum((t - mean) ** 2 for t in times) / (n - 1) if n > 1 else math.nan
    return {"transfers": n, "tt_mean_s": mean, "tt_std_s": math.sqrt(var) if n > 1 else math.nan}


def overhead_metrics(flows: pd.DataFrame, transfers: int, per_transfer_min: int) -> dict[str, float]:
    """Network and receiver overhead (packets and % of the minimum) and ACKs per transfer."""
    minimum = transfers * per_transfer_min
    sent = int(flows["data_packets_sent"].sum())
    received = int(flows["data_packets_received"].sum())
    acks = int(flows["dst_acks_sent"].sum())

    def pct(x: int) -> float:
        return 100.0 * x / minimum if minimum else math.nan

    return {
        "min_packets": minimum,
        "data_sent": sent,
        "data_received": received,
        "corrupted_received": int(flows["corrupted_received"].sum()),
        "excess_packets": sent - minimum,
        "network_overhead_pct": pct(sent - minimum),
        "receiver_excess": received - minimum,
        "receiver_overhead_pct": pct(received - minimum),
        "acks_per_transfer": acks / transfers if transfers else math.nan,
        "retransmits": int(flows["retransmits"].sum()),
        "timeouts": int(flows["timeouts"].sum()),
    }


def queue_metrics(queues: pd.DataFrame, bottleneck: str = BOTTLENECK) -> dict[str, int]:
    """Marks and drops at router B's queue, and drops at every other queue (should be 0)."""
    drops = queues["early_drops"] + queues["forced_drops"] + queues["overflow_drops"]
    at_b = queues["link"] == bottleneck
    if at_b.sum() != 1:
        raise ValueError(f"expected one queue {bottleneck!r}, found {int(at_b.sum())}")
    b = queues[at_b].iloc[0]
    return {
        "marks_B": int(b["marks"]),
        "drops_B": int(drops[at_b].sum()),
        "early_drops_B": int(b["early_drops"]),
        "forced_drops_B": int(b["forced_drops"]),
        "overflow_drops_B": int(b["overflow_drops"]),
        "drops_elsewhere": int(drops[~at_b].sum()),
    }


def accounting_problems(flows: pd.DataFrame, files: int, file_bytes: int) -> list[str]:
    """Flows that did not finish every file, or whose packets do not add up (empty: all good).

    Every packet a flow sent (both directions) was delivered, dropped, corrupted
    or is still in flight; after ``stop_when_complete`` nothing of a finished
    transfer may be missing.
    """
    out = []
    for f in flows.itertuples(index=False):
        if len(f.transfer_times_s) != files or f.bytes_delivered != files * file_bytes:
            out.append(f"{f.id}: {len(f.transfer_times_s)}/{files} files, {f.bytes_delivered} bytes")
        total = f.pkts_delivered + f.pkts_dropped + f.pkts_corrupted + f.pkts_in_flight
        if f.pkts_sent != total:
            out.append(f"{f.id}: sent {f.pkts_sent} != delivered+dropped+corrupted+in flight {total}")
    return out


def run_metrics(flows: pd.DataFrame, queues: pd.DataFrame, *, files: int, file_bytes: int, mss: int) -> dict[str, Any]:
    """Every metric of one run (one row of the study's per-run table)."""
    tm = transfer_metrics(flows)
    om = overhead_metrics(flows, int(tm["transfers"]), min_packets(file_bytes, mss))
    problems = accounting_problems(flows, files, file_bytes)
    return {**tm, **om, **queue_metrics(queues), "problems": "; ".join(problems)}

"""Floyd 1994's metrics (sections 6.1 and 7.1), per run, from ``flows.parquet`` / ``queues.parquet`` rows.

- **Bulk throughput** (row 1): the bulk connections' delivered data as a
  fraction of the congested link's capacity over the whole run, counted on
  the wire (each 960-byte payload travels in a 1000-byte packet), as the
  paper's "effective throughput ... as a fraction of the total available
  bandwidth in bits per second".
- **Smallest bulk throughput** (row 2): the same for the bulk connection that
  got least, also as a fraction of the link (a fair share is 1/n).
- **Worst telnet delay** (row 3): the largest one-way delay of any telnet
  packet, seconds; **mean telnet delay** (row 4); **fraction > 100 ms** (row 5):
  over every telnet packet delivered (the engine measures each from its write
  to its in-order arrival, so a dropped packet carries its retransmission wait).
- Source Quench counters (RED+SQ only, zero elsewhere): quenches the
  congested gateway sent, quenches the counted connections received and the
  window reductions they made, and the quenches' bytes as a fraction of the
  link's capacity (``quench_load``).
- WAN row 5: mean throughput of the short FTP transfers (bit/s of payload,
  each transfer from its SYN to its last byte, averaged over transfers).

In the WAN only the left-to-right connections count (section 7.1: "the bulk-data
connections that go from a source on the left to a receiver on the right").
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["Setting", "LAN", "WAN", "run_metrics", "per_run", "split_gateway", "GATEWAYS", "MODES"]

# Drop-Tail, RED dropping, RED marking (with ECN-capable TCP), and beyond the paper (§9.1) RED
# sending ICMP Source Quenches for the packets it selects (backward ECN, TCP not ECN-capable).
GATEWAYS = ("DT", "RED", "ECN", "SQ")
GATEWAY_NAMES = {"DT": "Drop-Tail", "RED": "RED", "ECN": "RED+ECN", "SQ": "RED+SQ"}
QUENCH_BYTES = 56  # an ICMP Source Quench on the wire (RFC 792): 20 + 8 + 20 + 8
MODES = ("pkt", "byte")
NOTICEABLE_S = 0.1


@dataclass(frozen=True)
class Setting:
    """What the metrics need to know about a scenario (tests check it against the base TOML)."""

    duration_s: float
    link: str  # the congested link (data direction)
    mss: int
    bulk: str  # flow-id prefix of the counted bulk connections
    telnet: str
    ftp: str | None = None

    @property
    def wire_factor(self) -> float:
        """Bytes on the wire per payload byte of a full segment (40 bytes of IPv4 + TCP headers)."""
        return (self.mss + 40) / self.mss


LAN = Setting(duration_s=15.0, link="R1->R2", mss=960, bulk="bulk_", telnet="telnet_")
WAN = Setting(duration_s=10.0, link="R1->R2", mss=960, bulk="bulk_lr_", telnet="telnet_lr_", ftp="ftp_lr_")


def split_gateway(label: str) -> tuple[str, str, int]:
    """``"RED-byte-120"`` → ("RED", "byte", 120)."""
    gw, mode, buf = label.split("-")
    if gw not in GATEWAYS or mode not in MODES:
        raise ValueError(f"not a floyd1994 gateway label: {label!r}")
    return gw, mode, int(buf)


def _weighted(values: pd.Series, weights: pd.Series) -> float | None:
    total = float(weights.sum())
    return float((values * weights).sum() / total) if total > 0 else None


def run_metrics(
    flows: pd.DataFrame, queues: pd.DataFrame, s: Setting, duration_s: float | None = None
) -> dict[str, float | int | None]:
    """The paper's five rows (plus counters) for one run's flows and queues.

    ``duration_s``: the run's simulated time (default: the scenario's nominal one).
    """
    rate = float(queues.loc[queues.link == s.link, "rate_bps"].iloc[0])
    capacity_bytes = rate * (duration_s or s.duration_s) / 8
    bulk = flows[flows.id.str.startswith(s.bulk)]
    tel = flows[flows.id.str.startswith(s.telnet)]
    share = bulk.bytes_delivered.astype(float) * s.wire_factor / capacity_bytes
    delivered = tel.telnet_delivered.fillna(0).astype(float)
    q = queues[queues.link == s.link].iloc[0]
    quenches = int(q.get("quenches", 0))  # absent in stores written before RED+SQ existed
    counted = pd.concat([bulk, tel])
    out: dict[str, float | int | None] = {
        "bulk_frac": float(share.sum()),
        "bulk_min_frac": float(share.min()),
        "bulk_flows": len(bulk),
        "telnet_max_s": float(tel.telnet_delay_max_s.max()) if delivered.sum() > 0 else None,
        "telnet_mean_s": _weighted(tel.telnet_delay_mean_s.fillna(0), delivered),
        "telnet_over_100ms": _weighted(tel.telnet_frac_over_100ms.fillna(0), delivered),
        "telnet_packets": int(delivered.sum()),
        "telnet_written": int(tel.telnet_writes.fillna(0).sum()),
        "telnet_timeouts": int(tel.timeouts.sum()),
        "bulk_timeouts": int(bulk.timeouts.sum()),
        "drops": int(q.early_drops + q.forced_drops + q.overflow_drops),
        "marks": int(q.marks),
        "forced_drops": int(q.forced_drops),
        "avg_qlen_pkts": float(q.get("avg_qlen_pkts", float("nan"))),
        "utilization": float(q.utilization),
        # Source Quenches sent at the congested gateway, and what the counted connections got / acted on.
        "quenches": quenches,
        "quenches_received": int(counted.get("quenches_received", pd.Series(dtype=float)).sum()),
        "quench_reductions": int(counted.get("quench_reductions", pd.Series(dtype=float)).sum()),
        # The quenches' bytes (on the way back) as a fraction of the congested link's capacity.
        "quench_load": quenches * QUENCH_BYTES / capacity_bytes,
    }
    if s.ftp is not None:
        ftp = flows[flows.id.str.startswith(s.ftp)]
        done = ftp.transfers_completed.fillna(0).astype(float)
        out["ftp_goodput_bps"] = _weighted(ftp.transfer_goodput_mean_bps.fillna(0), done)
        out["ftp_transfers"] = int(done.sum())
    return out


def per_run(
    flows: pd.DataFrame,
    queues: pd.DataFrame,
    s: Setting,
    axes: list[str],
    durations: dict[str, float] | None = None,
) -> pd.DataFrame:
    """One row per run: the axes, gateway/mode/buffer split out, and :func:`run_metrics`.

    ``durations``: simulated seconds per run name (each run's ``sim.sim_time_s``).
    """
    rows = []
    qby = dict(tuple(queues.groupby("run", sort=False)))
    for run, f in flows.groupby("run", sort=False):
        first = f.iloc[0]
        gw, mode, buf = split_gateway(str(first["gateway"]))
        row = {"run": run, "seed": int(first["seed"]), **{a: first[a] for a in axes if a != "gateway"}}
        row.update(gateway=gw, mode=mode, buffer_kb=buf)
        row.update(run_metrics(f, qby[run], s, (durations or {}).get(str(run))))
        rows.append(row)
    return pd.DataFrame(rows)

"""Time to regain W_max after a window reduction, from a sender's sampled cwnd, and what
RFC 9438's closed form says it should be.

The one definition (``ecnlab bench fidelity --cc cubic`` uses it for the simulator's
flows and for Linux's ``TCP_INFO`` samples alike, ``timeseries-flows.parquet``):

- **Reduction.** A maximal run of samples over which cwnd never rises, starting where it
  falls (``cwnd[i] < cwnd[i-1]``), that ends at least ``min_drop`` (default 10 %) below the
  sample before it. One run is one reduction even when it spans several samples: Linux and
  the simulator's ``linux`` personality bring cwnd down over about one RTT (PRR, RFC 6937),
  and a second reduction right after the first (no sample of growth between) belongs to it.
- **W_max** = cwnd at the sample before the fall; **t_drop** = the time of the first sample
  that shows it.
- **Regain time** = from t_drop to the first later sample with cwnd ≥ W_max; ``None`` when
  another reduction starts first or the samples end first.

So a regain time is measured to within one sample interval at each end. cwnd counts whole
segments (:func:`frame_reductions` rounds the simulator's byte window down, as Linux keeps
``tcpi_snd_cwnd``). Near W_max CUBIC's curve is flat (within one segment of W_max for
∛(1/C) ≈ 1.4 s either side of K), so one segment more or less in W_max moves a regain time
by up to a second: compare many reductions, not one.

The closed form (RFC 9438 §4.2, eq. 2): after a reduction from W to cwnd_epoch = β·W the
window follows W_cubic(t) = C·(t − K)³ + W_max from the epoch's start, and reaches W_max
at K = ∛((W_max − cwnd_epoch)/C), which is K = ∛(W_max·(1 − β)/C) when W_max = W. With fast
convergence (§4.7: the reduction came below the previous W_max) CUBIC's W_max is
W·(1 + β)/2, under W, so cwnd crosses W later, at K + ∛((W − W_max)/C) (earlier, by the
same formula, when the sampled W is a little under CUBIC's W_max). The epoch starts
when the reduction ends, about one RTT after t_drop (CWR or recovery lasts a round trip), so
:func:`closed_form_regain_s` adds one RTT. In the Reno-friendly region (§4.3: W_est grows
by α_cubic = 3(1 − β)/(1 + β) segments per RTT until it reaches cwnd_prior = W) the window
may get back sooner: (W − cwnd_epoch)/α_cubic round trips; the closed form is the earlier
of the two.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "C",
    "BETA",
    "ALPHA_CUBIC",
    "MIN_DROP",
    "Reduction",
    "reductions",
    "frame_reductions",
    "cubic_k_s",
    "closed_form_regain_s",
    "median_regain_s",
]

#: RFC 9438 §5.1 and §4.6 (Linux ``bic_scale`` 41, ``beta`` 717/1024).
C = 0.4
BETA = 0.7
#: RFC 9438 §4.3 eq. 4.
ALPHA_CUBIC = 3 * (1 - BETA) / (1 + BETA)
#: A fall of cwnd smaller than this (fraction of W_max) is not a reduction.
MIN_DROP = 0.10


@dataclass(frozen=True)
class Reduction:
    """One window reduction of one flow (windows in segments, times in seconds)."""

    flow: str
    t_drop: float  # the first sample showing the fall
    w_max: float  # cwnd at the sample before the fall
    trough: float  # the lowest cwnd of the fall
    regain_s: float | None  # until cwnd ≥ w_max again; None: reduced again first, or the samples ended
    ssthresh: float | None = None  # ssthresh at the trough (cwnd_epoch), None if not sampled
    srtt_s: float | None = None  # smoothed RTT at the sample before the fall
    cubic_w_max: float | None = None  # CUBIC's W_max, from ssthresh/β and fast convergence
    closed_form_s: float | None = None  # closed_form_regain_s for this reduction


def reductions(
    t: Sequence[float],
    cwnd: Sequence[float],
    *,
    flow: str = "",
    ssthresh: Sequence[float | None] | None = None,
    srtt_s: Sequence[float | None] | None = None,
    min_drop: float = MIN_DROP,
) -> list[Reduction]:
    """Every reduction of one flow's cwnd series (see the module doc), in time order.

    ``ssthresh`` and ``srtt_s`` (same length, None where unknown) let each reduction carry
    CUBIC's W_max (every new ssthresh during the fall is one CUBIC reduction from
    ssthresh/β, Linux ``bictcp_recalc_ssthresh``, with fast convergence against the previous
    one) and the closed form's regain time."""
    if not 0 < min_drop < 1:
        raise ValueError(f"min_drop = {min_drop}: must be between 0 and 1")
    n = len(t)
    if len(cwnd) != n:
        raise ValueError(f"{n} times but {len(cwnd)} windows")
    runs: list[tuple[int, int]] = []  # every fall: (the sample before it, its trough)
    i = 1
    while i < n:
        if cwnd[i] < cwnd[i - 1]:
            j = i
            while j + 1 < n and cwnd[j + 1] <= cwnd[j]:
                j += 1
            runs.append((i - 1, j))
            i = j + 1
        else:
            i += 1
    falls = [(b, j) for b, j in runs if cwnd[j] <= (1 - min_drop) * cwnd[b]]
    cubic_w_max: dict[int, float] = {}
    if ssthresh is not None:
        w_c = 0.0  # 0: no reduction yet (and after a timeout, which the samples do not show)
        for b, j in runs:
            for at in _reductions_in_fall(cwnd, ssthresh, b, j, counted=cwnd[j] <= (1 - min_drop) * cwnd[b]):
                w_c = at * (1 + BETA) / 2 if at < w_c else at  # RFC 9438 §4.7, Linux integer windows alike
            cubic_w_max[b] = w_c
    out = []
    for k, (before, trough) in enumerate(falls):
        w = cwnd[before]
        end = falls[k + 1][0] + 1 if k + 1 < len(falls) else n  # the next fall's first sample
        regain = next((t[j] - t[before + 1] for j in range(trough + 1, end) if cwnd[j] >= w), None)
        epoch = ssthresh[trough] if ssthresh is not None else None
        cubic = cubic_w_max.get(before) if epoch is not None else None
        srtt = srtt_s[before] if srtt_s is not None else None
        closed = None
        if epoch is not None and cubic is not None and srtt is not None:
            closed = closed_form_regain_s(w, epoch, cubic, srtt)
        out.append(Reduction(flow, t[before + 1], w, cwnd[trough], regain, epoch, srtt, cubic, closed))
    return out


def _reductions_in_fall(
    cwnd: Sequence[float], ssthresh: Sequence[float | None], before: int, trough: int, *, counted: bool
) -> list[float]:
    """The window at each of CUBIC's reductions during one fall of cwnd (samples ``before`` to
    ``trough``): one per new ssthresh seen in it (a slow-start overshoot can grow and fall
    between two samples, so its sampled fall is small; a HyStart exit sets ssthresh without a
    fall and is not one), or, for a fall that counts as a reduction but shows no new value
    (the same ssthresh as the last time), its ssthresh at the trough. The window of a
    reduction is ssthresh/β; for the first in the fall the sample before it when that is
    consistent with the ssthresh (β·W within a segment of it), since Linux rounds ssthresh
    down to whole segments (ssthresh/β can be 1.4 segments short)."""
    values: list[float] = []
    prev = ssthresh[before]
    for x in range(before + 1, trough + 1):
        s = ssthresh[x]
        if s is not None and s != prev:
            values.append(s)
            prev = s
    at_trough = ssthresh[trough]
    if not values and counted and at_trough is not None:
        values.append(at_trough)
    out = []
    for i, s in enumerate(values):
        at = s / BETA
        if i == 0 and BETA * cwnd[before] <= s + 1:
            at = max(at, cwnd[before])
        out.append(at)
    return out


def cubic_k_s(w_max: float, cwnd_epoch: float) -> float:
    """K = ∛((W_max − cwnd_epoch)/C), seconds (RFC 9438 §4.2 eq. 2; windows in segments)."""
    return math.cbrt(max(0.0, w_max - cwnd_epoch) / C)


def closed_form_regain_s(w: float, cwnd_epoch: float, cubic_w_max: float, rtt_s: float) -> float:
    """Seconds from a reduction of cwnd from ``w`` to ``cwnd_epoch`` until cwnd is ``w`` again,
    by RFC 9438: one RTT of reduction, then the earlier of the cubic curve through
    ``cubic_w_max`` (W_cubic(t) = w at t = K + ∛((w − W_max)/C): K itself when w = W_max,
    later under fast convergence, w above W_max) and the Reno-friendly estimate (α_cubic
    segments per RTT)."""
    cubic = max(0.0, cubic_k_s(cubic_w_max, cwnd_epoch) + math.cbrt((w - cubic_w_max) / C))
    reno = max(0.0, w - cwnd_epoch) / ALPHA_CUBIC * rtt_s
    return rtt_s + min(cubic, reno)


def frame_reductions(
    frame: pd.DataFrame, *, mss: float, after_s: float = 0.0, min_drop: float = MIN_DROP
) -> list[Reduction]:
    """The reductions of every flow of a ``timeseries-flows`` table (pandas, the simulator's
    and emulate's columns), those with t_drop ≥ ``after_s`` (CUBIC's W_max still follows the
    earlier ones). cwnd in whole segments of ``mss`` bytes, rounded down: what the sender can
    have in flight, and how Linux keeps it (``tcpi_snd_cwnd``), so a simulated window a
    fraction of a segment short of W_max has not regained it, nor one a fraction above
    exceeded it; ssthresh in (fractional) segments."""
    import numpy as np
    import pandas as pd

    out: list[Reduction] = []
    for flow, f in frame.sort_values(["flow", "t_s"], kind="stable").groupby("flow", sort=True):
        seg = np.floor(f["cwnd_bytes"].to_numpy(dtype=float) / mss + 1e-9)
        sst = [None if pd.isna(x) else float(x) / mss for x in f["ssthresh_bytes"]]
        rtt = [None if pd.isna(x) else float(x) / 1000 for x in f["srtt_ms"]]
        found = reductions(f["t_s"].tolist(), seg.tolist(), flow=str(flow), ssthresh=sst, srtt_s=rtt, min_drop=min_drop)
        out += [r for r in found if r.t_drop >= after_s]
    return out


def median_regain_s(reds: Iterable[Reduction]) -> float | None:
    """The median regain time of the reductions that regained W_max (None if none did)."""
    times = [r.regain_s for r in reds if r.regain_s is not None]
    return statistics.median(times) if times else None

"""The PI AQM design rule: gains ``a``, ``b`` from link rate, flows and RTT.

Source: C. V. Hollot, V. Misra, D. Towsley, W. Gong, "On Designing Improved
Controllers for AQM Routers Supporting TCP Flows", IEEE INFOCOM 2001, §V.
The linearised TCP/queue plant (their eq. (3)–(4)) is

    P(s) = (C²/2N) · e^{−sR} / ((s + 2N/(R²C)) · (s + 1/R))

with C the link capacity in packets/s, N the (minimum) number of flows and R
the (maximum) round-trip time. The PI controller C(s) = K·(s/z + 1)/s is
designed (§V-B) by

    (D1) z = 2N/(R²C)                       — the zero cancels the TCP window pole;
    (D2) ω_g = 2N/(R²C)                     — the unity-gain crossover, the paper's choice;
    (D3) K = ω_g·|jω_g·R + 1|·(2N)²/(RC)³   — |C(jω_g)·P(jω_g)| = 1.

and implemented digitally at sampling frequency f = 1/T with the bilinear
(Tustin) transform s = (2/T)(1 − z⁻¹)/(1 + z⁻¹), which gives the difference
equation of ``crates/aqm/src/pi.rs`` with

    (D4) a = K·(1/z + T/2),   b = K·(1/z − T/2).

Check against the paper's worked example (C = 3750 pkt/s, N = 60, R = 246 ms,
f = 160 Hz): the paper prints K = 9.64e-6, z = 0.53 and a = 1.822e-5,
b = 1.816e-5; (D4) applied to the printed K and z reproduces a and b to four
digits (tests/test_pi.py). (D1)–(D3) evaluated here give z = 0.529 and
K = 9.78e-6 (1.5 % above the printed K; the paper does not show its rounding).
"""

from __future__ import annotations

import math

__all__ = ["pi_gains", "bilinear"]


def bilinear(k: float, z: float, sample_hz: float) -> tuple[float, float]:
    """(D4): the gains ``(a, b)`` of the sampled controller K·(s/z + 1)/s."""
    t = 1.0 / sample_hz
    return k * (1.0 / z + t / 2.0), k * (1.0 / z - t / 2.0)


def pi_gains(
    rate_bps: float, mean_pkt_bytes: float, n_flows: float, rtt_s: float, sample_hz: float
) -> tuple[float, float]:
    """``(a, b)`` by (D1)–(D4) for a link of ``rate_bps`` carrying packets of ``mean_pkt_bytes``."""
    c = rate_bps / (8.0 * mean_pkt_bytes)  # packets/s
    z = 2.0 * n_flows / (rtt_s * rtt_s * c)  # (D1)
    w_g = z  # (D2)
    k = w_g * math.hypot(w_g * rtt_s, 1.0) * (2.0 * n_flows) ** 2 / (rtt_s * c) ** 3  # (D3)
    return bilinear(k, z, sample_hz)

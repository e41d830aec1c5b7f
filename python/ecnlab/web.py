"""Web traffic (flow kind ``web``): object-size distributions and the offered-load arithmetic.

The engine model (sessions of pages of objects, one HTTP/1.0 connection per
object) is documented in ``crates/sim/src/web.rs``. Object sizes:

- ``bounded_pareto``: shape ``alpha`` on [``min_size``, ``max_size``]
  (Harchol-Balter's bounded Pareto; the mean below is its closed form).
- ``lognormal_pareto`` (SURGE, Barford & Crovella, SIGMETRICS 1998, Table 1):
  lognormal body (``mu``, ``sigma`` of ln bytes) below ``cut_size``; with
  probability ``tail_p`` a Pareto tail of scale ``cut_size`` and shape
  ``alpha``, capped at ``max_size``. SURGE's values: mu = 9.357,
  sigma = 1.318, cut = 133 KB, alpha = 1.1 (tail_p is the share above the cut).

The session arrival rate of a flow given ``offered_load`` (bit/s of response
payload) is load / (8 · pages · objects · E[size]), with the means of the
geometric page and object counts and the exact mean of the size distribution
(integer rounding of sizes ignored, < 1 byte per object).
"""

from __future__ import annotations

import math
from typing import Any

from ecnlab._table import Table, number
from ecnlab.errors import ScenarioError
from ecnlab.model import AppSpec, ObjectSizeSpec
from ecnlab.units import parse_duration, parse_rate, parse_size

__all__ = ["mean_size", "session_gap_ns", "parse_web", "WEB_KEYS", "SIZE_DISTS"]

SIZE_DISTS = ("bounded_pareto", "lognormal_pareto")


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _pareto_capped_mean(scale: float, alpha: float, cap: float) -> float:
    """E[min(X, cap)] for X ~ Pareto(scale, alpha): scale + ∫_scale^cap (scale/x)^alpha dx."""
    if alpha == 1.0:
        return scale + scale * math.log(cap / scale)
    return float(scale + scale**alpha * (cap ** (1 - alpha) - scale ** (1 - alpha)) / (1 - alpha))


def mean_size(s: ObjectSizeSpec) -> float:
    """The exact mean of the distribution in bytes (before integer rounding)."""
    if s.dist == "bounded_pareto":
        lo, hi, a = float(s.min_bytes), float(s.max_bytes), s.alpha
        norm = float(1.0 - (lo / hi) ** a)
        if a == 1.0:
            return lo * math.log(hi / lo) / norm
        return float(lo**a / norm * a / (a - 1.0) * (lo ** (1 - a) - hi ** (1 - a)))
    # Lognormal truncated at c: E[X | X < c] = e^{mu+sigma²/2}·Φ((ln c − mu − sigma²)/sigma) / Φ((ln c − mu)/sigma).
    lc = math.log(s.cut_bytes)
    body = math.exp(s.mu + s.sigma**2 / 2) * _phi((lc - s.mu - s.sigma**2) / s.sigma) / _phi((lc - s.mu) / s.sigma)
    tail = _pareto_capped_mean(float(s.cut_bytes), s.alpha, float(s.max_bytes))
    return (1.0 - s.tail_p) * body + s.tail_p * tail


def session_gap_ns(load_bps: float, s: ObjectSizeSpec, pages: float, objects: float) -> int:
    """Mean gap between session arrivals so that the flow offers ``load_bps`` of response payload."""
    bits_per_session = 8.0 * pages * objects * mean_size(s)
    return max(1, round(bits_per_session / load_bps * 1e9))


WEB_KEYS = (
    "request_size",
    "size",
    "mean_session_gap",
    "offered_load",
    "pages_per_session",
    "objects_per_page",
    "think",
)
_SIZE_KEYS = {
    "bounded_pareto": ("dist", "alpha", "min_size", "max_size"),
    "lognormal_pareto": ("dist", "mu", "sigma", "cut_size", "tail_p", "alpha", "max_size"),
}


def parse_web(ft: Table) -> AppSpec:
    """A ``web`` flow: sizes, session structure, and the session rate (given, or from ``offered_load``)."""
    size = parse_size_dist(Table(ft.raw("size"), ft.at("size")) if ft.has("size") else None, ft.at("size"))
    pages = ft.get("pages_per_session", number(1), 1.0)
    objects = ft.get("objects_per_page", number(1), 1.0)
    if ft.has("mean_session_gap") and ft.has("offered_load"):
        raise ScenarioError(
            ft.at("offered_load"), "give mean_session_gap or offered_load, not both", ft.raw("offered_load")
        )
    if ft.has("offered_load"):
        load = ft.get("offered_load", parse_rate)
        gap = session_gap_ns(load, size, pages, objects)
    else:
        gap = ft.get(
            "mean_session_gap",
            lambda v, p: parse_duration(v, p, positive=True),
            required_note="web needs mean_session_gap or offered_load",
        )
    return AppSpec(
        "web",
        request_bytes=ft.get("request_size", lambda v, p: parse_size(v, p, positive=True), 300),
        think_ns=ft.get("think", parse_duration, 0),
        size=size,
        mean_session_gap_ns=gap,
        pages_per_session=pages,
        objects_per_page=objects,
    )


def parse_size_dist(t: Table | None, path: str) -> ObjectSizeSpec:
    """The ``size`` inline table of a web flow."""
    if t is None:
        raise ScenarioError(path, "required key is missing (web needs an object-size distribution)")
    dist = t.get("dist", _choice_dist)
    t.check_keys(_SIZE_KEYS[dist], context=f'for dist = "{dist}"')
    alpha = t.get("alpha", number(0, 100, open_lo=True))
    max_bytes = t.get("max_size", lambda v, p: parse_size(v, p, positive=True))
    if dist == "bounded_pareto":
        lo = t.get("min_size", lambda v, p: parse_size(v, p, positive=True))
        if max_bytes <= lo:
            raise ScenarioError(t.at("max_size"), f"must be > min_size ({lo} bytes)", t.raw("max_size"))
        return ObjectSizeSpec(dist, alpha=alpha, max_bytes=max_bytes, min_bytes=lo)
    cut = t.get("cut_size", lambda v, p: parse_size(v, p, positive=True))
    if cut < 2 or max_bytes < cut:
        raise ScenarioError(t.at("max_size"), f"must be >= cut_size ({cut} bytes) >= 2", t.raw("max_size"))
    mu = t.get("mu", number(0, 40))
    sigma = t.get("sigma", number(0, 10, open_lo=True))
    if mu - math.log(cut) > 3 * sigma:
        raise ScenarioError(t.at("mu"), "puts the lognormal body almost entirely above cut_size", mu)
    tail_p = t.get("tail_p", number(0, 1, open_hi=True))
    return ObjectSizeSpec(dist, alpha=alpha, max_bytes=max_bytes, mu=mu, sigma=sigma, cut_bytes=cut, tail_p=tail_p)


def _choice_dist(value: Any, path: str) -> str:
    if value not in SIZE_DISTS:
        raise ScenarioError(path, f"must be one of {', '.join(SIZE_DISTS)}", value)
    return str(value)


def size_resolved(s: ObjectSizeSpec) -> dict[str, Any]:
    """The ``size`` table in scenario-file form."""
    if s.dist == "bounded_pareto":
        return {"dist": s.dist, "alpha": s.alpha, "min_size": s.min_bytes, "max_size": s.max_bytes}
    return {
        "dist": s.dist,
        "mu": s.mu,
        "sigma": s.sigma,
        "cut_size": s.cut_bytes,
        "tail_p": s.tail_p,
        "alpha": s.alpha,
        "max_size": s.max_bytes,
    }

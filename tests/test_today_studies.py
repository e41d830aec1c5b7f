"""The classic studies' questions asked of today's stacks and queues: ``rfc2884-today``,
``allecn-today`` and ``floyd-today`` in their quick forms. The shape of their outputs, the quick
files equal to the full ones but for the seeds, the claims following the tables, and what the
mechanisms predict:

- FQ-CoDel gives each flow its own queue and CoDel marks ECN flows instead of dropping them, so at
  1.5 Mbit/s the ECN bulk transfer of today's Linux stacks almost never times out while the
  non-ECN one does, hundreds of times (RFC 8290 §4, RFC 3168 §5);
- PIE marks only while its probability is at most 10 % and drops ECN-capable packets above it
  (RFC 8033 §5.1), so there the ECN transfer is dropped as well;
- FQ-CoDel serves telnet's sparse flows first: their packets wait less than behind RED+ECN's
  shared queue (RFC 8290 §4.1, Floyd 1994 §7's telnet delay).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from ecnlab.experiments import reproduce
from ecnlab.experiments.framework import Verdict

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: whole reproductions
EXP = Path(__file__).resolve().parents[1] / "python" / "ecnlab" / "experiments"


@pytest.fixture(scope="module")
def today(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("today")
    for study in ("rfc2884-today", "allecn-today", "floyd-today"):
        assert reproduce(study, out=d / study, quick=True, progress=False).ok
    return d


def _claims(d: Path) -> list[dict]:
    return json.loads((d / "claims.json").read_text())["claims"]


@pytest.mark.parametrize(
    ("folder", "full", "quick"),
    [("rfc2884_today", f"{k}.toml", f"{k}-quick.toml") for k in ("fairness", "bulk", "transactional", "bulk-15M")]
    + [("allecn_today", "sweep.toml", "sweep-quick.toml"), ("floyd_today", "wan.toml", "wan-quick.toml")],
)
def test_quick_forms_differ_only_in_seeds(folder: str, full: str, quick: str) -> None:
    a, b = (tomllib.loads((EXP / folder / f).read_text()) for f in (full, quick))
    for doc in (a, b):
        doc.pop("seeds"), doc.pop("description")
    assert a == b


def test_outputs(today: Path) -> None:
    for part, figure in (("fairness", "fairness_today.png"), ("bulk", "bulk_today.png"),
                         ("transactional", "transactional_today.png")):  # fmt: skip
        d = today / "rfc2884-today" / f"rfc2884-today-{part}"
        assert (d / "report.html").exists() and (d / "figures" / figure).exists()
        assert json.loads((d / "claims.json").read_text())["key_figure"] == f"figures/{figure}"
        assert all(c["reason"] for c in _claims(d))
    assert len(_claims(today / "allecn-today")) == 12
    assert len(_claims(today / "floyd-today")) == 3
    assert (today / "floyd-today" / "figures" / "telnet_today.png").exists()
    assert (today / "allecn-today" / "figures" / "overhead_today.png").exists()


def test_fq_codel_marks_ecn_transfers_and_pie_drops_them(today: Path) -> None:
    c = pd.read_csv(today / "rfc2884-today" / "rfc2884-today-bulk" / "tables" / "bulk.csv")
    linux = c[c["stack"] != "reno-1999"]
    fq, pie = linux[linux.aqm == "fq_codel"], linux[linux.aqm == "pie"]
    # Without ECN FQ-CoDel's drops end in dozens to a thousand timeouts per cell (fewer since
    # Linux's RTO, srtt + rttvar >= srtt + 200 ms, and growth by delivered data came to the
    # linux personality); with ECN next to none: at least 20 times as many.
    many = (fq.timeouts_nonecn > 20 * (fq.timeouts_ecn + 1)).all()
    assert (fq.timeouts_ecn <= 2).all() and many, fq[["timeouts_ecn", "timeouts_nonecn"]]
    assert (fq.dropped_ecn <= 2).all()
    assert (pie.dropped_ecn > 100).all(), pie.dropped_ecn  # PIE drops ECT packets while p > 10 %


def test_rfc2884_today_claims_follow_the_tables(today: Path) -> None:
    c = pd.read_csv(today / "rfc2884-today" / "rfc2884-today-transactional" / "tables" / "transactional.csv")
    claims = _claims(today / "rfc2884-today" / "rfc2884-today-transactional")
    seed = c[(c["stack"] == "reno-1999") & (c.aqm == "red")]
    k = int((seed.gain > 0).sum())
    assert claims[0]["verdict"] == Verdict.of_share(k, len(seed)).value
    assert f"mean > 0 at {k} of {len(seed)}" in claims[0]["reason"]


def test_allecn_today_ecn_saves_packets_under_fq_codel(today: Path) -> None:
    c = pd.read_csv(today / "allecn-today" / "tables" / "cells.csv")
    wide = c.pivot_table(index=["stack", "clients", "ql"], columns="scheme", values="network_overhead_pct")
    seed = wide.loc["reno-ns2"]
    assert (seed["FQ-CoDel+ECN"] < seed["FQ-CoDel"]).all(), seed[["FQ-CoDel", "FQ-CoDel+ECN"]]
    assert (seed["RED+ECN"] < seed["RED"]).all()


def test_floyd_today_fq_codel_keeps_telnet_fast(today: Path) -> None:
    c = pd.read_csv(today / "floyd-today" / "tables" / "cells.csv")
    wide = c.pivot_table(index=["stack", "window", "load", "buffer"], columns="gateway", values="telnet_mean_s")
    assert (wide["FQ-CoDel+ECN"] < wide["RED+ECN"]).all()
    fq = c[c.gateway.str.startswith("FQ-CoDel")]
    assert (fq.telnet_max_s < 0.1).all(), fq.telnet_max_s.max()

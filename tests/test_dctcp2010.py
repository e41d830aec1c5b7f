"""``ecnlab reproduce dctcp2010 --quick``: the shape of its outputs (cells, verdicts, claims.json,
figures, reports, the group index with each study's question, claims and key figure), and the
verdicts computed from the cells rather than written down (a claim fails when its numbers do)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ecnlab.experiments import reproduce
from ecnlab.experiments.dctcp2010 import analysis
from ecnlab.experiments.framework import Verdict

pytestmark = [pytest.mark.engine, pytest.mark.slow]  # slow: whole reproductions


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("dctcp2010")
    assert reproduce("dctcp2010", out=d, quick=True, progress=False).ok
    return d


def test_outputs_and_index(out: Path) -> None:
    for kind in ("queue", "threshold", "incast", "fabric"):
        d = out / f"dctcp2010-{kind}"
        assert (d / "report.html").exists() and (d / "figures" / f"{kind}.png").exists()
        doc = json.loads((d / "claims.json").read_text())
        assert doc["key_figure"] == f"figures/{kind}.png"
        claims = doc["claims"]
        assert claims and all(c["verdict"] in {v.value for v in Verdict} and c["reason"] for c in claims)
    index = (out / "report.html").read_text()
    assert 'id="study-dctcp2010"' in index and index.count('class="claim"') >= 7
    for kind in ("queue", "threshold", "incast", "fabric"):
        assert f"dctcp2010-{kind}/report.html" in index


def test_queue_cells_show_dctcp_near_k_and_droptail_deep(out: Path) -> None:
    """Alizadeh et al. §4.1: the DCTCP port queue stays near K (20 at 1 Gbit/s, 65 at 10);
    a drop-tail port with long TCP flows fills towards its 466 packets; DCTCP's goodput is
    TCP's. (In the quick form's short window a drop-tail run can show more than the link's
    payload rate: data SACKed before the warm-up reaches the application after it, when its
    hole is filled. TCP's side is taken at most at that rate.)"""
    c = pd.read_csv(out / "dctcp2010-queue" / "tables" / "cells.csv")
    for rate, k, gbps in (("1G", 20, 1.0), ("10G", 65, 10.0)):
        d = c[(c.rate == rate) & (c.sender == "dctcp")]
        t = c[(c.rate == rate) & (c.sender == "tcp-droptail")]
        assert (d.queue_pkts < 2 * k).all() and (t.queue_pkts > 200).all()
        tcp = np.minimum(t.goodput_gbps.to_numpy(), gbps * analysis.PAYLOAD)
        assert (d.goodput_gbps.to_numpy() >= 0.99 * tcp).all()


def test_claims_follow_the_numbers() -> None:
    """The same claim with numbers that break it gets the opposite verdict."""
    base = dict(rate="1G", nflows="2", seeds=1, queue_kb=0.0, sojourn_p99_ms=0.0, marks=0, drops=0, timeouts=0)
    good = pd.DataFrame(
        [
            {**base, "sender": "dctcp", "queue_pkts": 18.0, "goodput_gbps": 0.97},
            {**base, "sender": "tcp-droptail", "queue_pkts": 300.0, "goodput_gbps": 0.97},
            {**base, "sender": "tcp-ecn", "queue_pkts": 12.0, "goodput_gbps": 0.90},
        ]
    )
    assert [c.verdict for c in analysis.queue_claims(good)] == [Verdict.HOLDS] * 3
    bad = good.assign(queue_pkts=[250.0, 300.0, 12.0], goodput_gbps=[0.90, 0.97, 0.97])
    assert [c.verdict for c in analysis.queue_claims(bad)] == [Verdict.DOES_NOT_HOLD] * 3


def test_fabric_queue_buildup_slows_tcp_queries_not_dctcp(out: Path) -> None:
    """§2.3.2: two long flows into the aggregator's port fill TCP's drop-tail queue (100 packets),
    so the 2 KiB responses wait behind it and lose packets to timeouts; DCTCP keeps the port near
    K = 20 and its queries finish within a few RTTs. With the long flows elsewhere both finish in
    the same time (80 KiB at 1 Gbit/s plus a few RTTs)."""
    c = pd.read_csv(out / "dctcp2010-fabric" / "tables" / "cells.csv").set_index(["sender", "background"])
    far_d, far_t = c.loc[("dctcp", "elsewhere")], c.loc[("tcp", "elsewhere")]
    assert far_d.qct_mean_ms == pytest.approx(far_t.qct_mean_ms, rel=0.05) and far_d.qct_mean_ms < 1.0
    near_d, near_t = c.loc[("dctcp", "aggregator")], c.loc[("tcp", "aggregator")]
    assert near_d.qct_p99_ms < 5 < 10 * near_d.qct_p99_ms < near_t.qct_p99_ms, (near_d.qct_p99_ms, near_t.qct_p99_ms)
    assert near_t.timeout_share > 0.5 > 0.1 > near_d.timeout_share


def test_fabric_quick_form_differs_only_in_seeds() -> None:
    import tomllib

    here = Path(analysis.__file__).parent
    a, b = (tomllib.loads((here / f).read_text()) for f in ("fabric.toml", "fabric-quick.toml"))
    for doc in (a, b):
        doc.pop("seeds"), doc.pop("description")
    assert a == b

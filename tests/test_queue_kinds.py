"""Today's queue kinds in scenario files (ecnlab.queues): every kind validates and
resolves, and a bad parameter stops with one line naming the key, the value and what
is allowed (exit 2) — whether Python's parser or the engine's own check (through
``_core.check_queue``) refuses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SCENARIOS, run_cli
from ecnlab.config import load_scenario
from ecnlab.lower import engine_spec
from ecnlab.queues import modern_kinds
from ecnlab.scenario_schema import queue_kinds

BASE = SCENARIOS / "dumbbell-codel.toml"
Q = "topology.bottleneck_queue"


def _validate(*sets: str) -> tuple[int, str]:
    args = ["validate", str(BASE)]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args, cwd=BASE.parent.parent)
    assert "Traceback" not in r.stderr
    return r.returncode, r.stderr.strip()


@pytest.mark.parametrize("kind", modern_kinds())
def test_each_kind_validates_and_reaches_the_engine(kind: str) -> None:
    extra = {"step": {"threshold": 20}}.get(kind, {})
    data = {"kind": kind, **extra}
    code, err = _validate(f"{Q}={json.dumps(data).replace(':', '=')}")
    assert (code, err) == (0, ""), err
    assert kind in queue_kinds()


@pytest.mark.parametrize(
    ("kind", "sets", "message"),
    [
        ("codel", ["target=0"], "target = 0: must be > 0"),
        ("fq_codel", ["flows=0"], "flows = 0: must be in [1, 65536]"),
        ("pie", ["alpha=-1"], "alpha = -1: must be >= 0"),
        ("dualpi2", ["classic_protection=101"], "classic_protection = 101: must be in [0, 100]"),
        ("dualpi2", ['personality="ns3"'], 'personality = "ns3": must be one of linux, rfc'),
        ("dualpi2", ['ecn_mask="ect0"'], 'ecn_mask = "ect0": must be one of l4s_ect, cla_ect, any_ect'),
        ("dualpi2", ['drop_early="yes"'], 'drop_early = "yes": must be'),
        ("dualpi2", ["memory_limit=0"], "memory_limit = 0: must be > 0 bytes"),
        # Refused by the engine's own rule (crates/aqm/src/ared.rs), reported against the key.
        ("ared", ["bottom=0.7"], "bottom = 0.7: must be in (0, top = 0.5)"),
        ("dualpi2", ['typical_rtt="10ms"', "alpha=0.2"], "alpha = 0.2: cannot be given with typical_rtt or max_rtt"),
        ("step", ["threshold=5", 'threshold_delay="1ms"'], "threshold_delay: give exactly one of threshold"),
        ("fq_codel", ["limit_bytes=1000"], 'limit_bytes: unknown key for kind = "fq_codel"'),
    ],
)
def test_bad_parameter_is_one_line_naming_the_key(kind: str, sets: list[str], message: str) -> None:
    code, err = _validate(f'{Q}={{kind="{kind}"}}', *(f"{Q}.{s}" for s in sets))
    assert code == 2
    assert err.startswith(f"ecnlab: error: {BASE}: {Q}.{message}"), err
    assert "\n" not in err


def test_defaults_are_linux_and_resolve_to_engine_fields() -> None:
    sc = load_scenario(BASE, overrides={Q: {"kind": "dualpi2"}})
    q = next(link for link in engine_spec(sc)["links"] if link["name"] == "R1->R2")["queue"]
    assert q == {
        "kind": "dualpi2", "limit_pkts": 10000, "target_ns": 15_000_000, "tupdate_ns": 16_000_000,
        "alpha": 0.16, "beta": 3.2, "coupling": 2.0, "min_qlen_step": 0, "classic_protection_pct": 10,
        "ecn_mask": "l4s_ect", "drop_on_overload": True, "mtu_bytes": 1514, "personality": "linux",
        "step_thresh_ns": 1_000_000,
    }  # fmt: skip
    # tc-dualpi2's RTT helper: typical 20 ms, max 6x: target 20 ms, tupdate 20 ms, alpha 0.1*0.02/0.12^2, beta 0.3/0.12.
    sc = load_scenario(BASE, overrides={Q: {"kind": "dualpi2", "typical_rtt": "20ms"}})
    q = next(link for link in engine_spec(sc)["links"] if link["name"] == "R1->R2")["queue"]
    assert (q["target_ns"], q["tupdate_ns"]) == (20_000_000, 20_000_000)
    assert q["alpha"] == pytest.approx(0.1 * 0.02 / 0.12**2) and q["beta"] == pytest.approx(0.3 / 0.12)


def test_dualpi2_linux_options_reach_the_engine() -> None:
    """sch_dualpi2's drop_early, memory_limit and ecn_mask cla_ect lower to the engine's fields."""
    over = {"kind": "dualpi2", "drop_early": True, "memory_limit": "3MB", "ecn_mask": "cla_ect"}
    sc = load_scenario(BASE, overrides={Q: over})
    q = next(link for link in engine_spec(sc)["links"] if link["name"] == "R1->R2")["queue"]
    assert (q["drop_early"], q["memory_limit_bytes"], q["ecn_mask"]) == (True, 3_000_000, "cla_ect")


def test_fq_codel_run_reports_sojourn_and_marks_at_dequeue(tmp_path: Path) -> None:
    import ecnlab

    s = ecnlab.run(SCENARIOS / "dumbbell-fq-codel.toml", overrides={"duration": "8s", "warmup": "2s"}).summary
    q = next(x for x in s["queues"] if x["link"] == "R1->R2")
    assert q["marks"] > 0 and q["dequeue_marks"] == q["marks"], "FQ-CoDel marks at dequeue"
    assert (
        q["arrivals"] == q["enqueued"] + q["early_drops"] + q["forced_drops"] + q["overflow_drops"] - q["dequeue_drops"]
    )
    assert 0 <= q["sojourn_p50_ms"] <= q["sojourn_p99_ms"] <= q["sojourn_p999_ms"] <= q["sojourn_max_ms"]
    host = next(x for x in s["queues"] if x["link"] == "s1->R1")
    assert host["sojourn_p50_ms"] is None, "sojourn histograms are kept for router queues"
    ts = ecnlab.run(SCENARIOS / "dumbbell-fq-codel.toml", overrides={"duration": "8s", "warmup": "2s"}).timeseries
    series = ts[ts["link"] == "R1->R2"]
    assert series["delay_ms"].notna().all() and series["prob"].isna().all()
    assert series["marks"].is_monotonic_increasing and series["marks"].iloc[-1] == q["marks"]
    pie = ecnlab.run(SCENARIOS / "dumbbell-pie.toml", overrides={"duration": "4s", "warmup": "1s"}).timeseries
    ps = pie[pie["link"] == "R1->R2"]["prob"]
    assert ps.notna().all() and ps.max() > 0 and ps.between(0, 1).all()


def test_sampling_does_not_change_the_run() -> None:
    """Periodic updates are taken lazily; sampling the probability must not move anything."""
    import ecnlab

    for name in ("dumbbell-pie.toml", "dumbbell-dualpi2.toml", "dumbbell-ared.toml"):
        a = ecnlab.run(
            SCENARIOS / name, overrides={"duration": "4s", "warmup": "1s", "sample_interval": "10ms"}
        ).summary
        b = ecnlab.run(SCENARIOS / name, overrides={"duration": "4s", "warmup": "1s", "sample_interval": 0}).summary
        assert a["queues"] == b["queues"] and a["flows"] == b["flows"], name

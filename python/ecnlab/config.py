"""Scenario files: TOML (or a dict) → a validated :class:`~ecnlab.model.Scenario`.

Everything is checked before anything runs; the first problem raises
:class:`~ecnlab.errors.ScenarioError` with a one-line message naming the field
path, the value and what is allowed. See ``docs/scenario.md`` for the schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ecnlab import _core, arguments
from ecnlab._table import Table, boolean, integer, string
from ecnlab.engine_check import check_scenario
from ecnlab.errors import ScenarioError
from ecnlab.flows import default_timeseries_links, parse_faults, parse_flows, parse_pcap, parse_timeseries
from ecnlab.impairments import parse_impairments
from ecnlab.model import Scenario, TcpSpec
from ecnlab.overrides import apply_overrides, normalize
from ecnlab.params import parse_tcp
from ecnlab.topology import parse_topology
from ecnlab.units import parse_duration

__all__ = ["load_scenario", "parse_scenario", "read_toml", "ScenarioSource", "Overrides"]

ScenarioSource = str | Path | Mapping[str, Any]
Overrides = Mapping[str, Any] | Iterable[str] | None

TOP_KEYS = (
    "name",
    "description",
    "seed",
    "duration",
    "warmup",
    "sample_interval",
    "stop_when_complete",
    "topology",
    "tcp",
    "flows",
    "faults",
    "impairments",
    "output",
)
MAX_SAMPLES = 10_000_000


def read_toml(path: str | Path) -> dict[str, Any]:
    """The TOML data of ``path``; unreadable or malformed files raise ScenarioError."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        text = raw.decode()
    except OSError as e:
        raise ScenarioError("", f"cannot read file: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ScenarioError("", f"not valid UTF-8 TOML: {e.reason}") from None
    fast = _core.parse_toml(text)  # crates/py/src/toml_read.rs; None: tomllib's to read or refuse
    return fast if fast is not None else _read_with_tomllib(text)


def _read_with_tomllib(text: str) -> dict[str, Any]:
    """What :func:`read_toml` leaves to Python's ``tomllib`` (imported only then): its values, or
    its error."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"not valid TOML: {e}") from None


def load_scenario(
    source: ScenarioSource, overrides: Overrides = None, *, seed: int | None = None, engine_check: bool = True
) -> Scenario:
    """Read, override and validate a scenario (a TOML path or a dict of TOML data); arguments of
    the wrong type raise ScenarioError too (``arguments.py``). ``engine_check=False`` leaves the
    engine's check of the whole scenario to a run that follows at once: the engine makes it before
    anything runs and ``runner.py`` raises what it finds as this check would."""
    checked = arguments.scenario_source(source)
    changes, seed = arguments.overrides(overrides), arguments.seed(seed)
    settings = normalize(changes)
    if isinstance(checked, dict):  # a copy, so the caller's dict stays as it was
        data, default_name = apply_overrides(checked, settings), "scenario"
    else:  # read afresh: copied only to be changed
        data, default_name = read_toml(checked), checked.stem
        data = apply_overrides(data, settings) if settings else data
    if seed is not None:
        data["seed"] = seed
    return parse_scenario(data, default_name=default_name, engine_check=engine_check)


def _check_series_sampled(output: Table | None, sample_ns: int, chosen: dict[str, list[str]]) -> None:
    """Time series chosen (``output.timeseries_links`` / ``timeseries_flows`` other than their defaults,
    which the resolved scenario writes out) need sampling on."""
    for key, default in chosen.items():
        if output is not None and output.has(key) and not sample_ns and _differs_from_default(output, key, default):
            raise ScenarioError(
                output.at(key), "needs sample_interval > 0 (nothing is sampled without it)", output.raw(key)
            )


def _differs_from_default(output: Table, key: str, default: list[str]) -> bool:
    """Whether ``output.KEY`` chooses other than ``default`` (a string is a list of one)."""
    raw = output.raw(key)
    return ([raw] if isinstance(raw, str) else list(raw)) != default


def parse_scenario(data: Mapping[str, Any], *, default_name: str = "scenario", engine_check: bool = True) -> Scenario:
    """Validate TOML data (after overrides) into a Scenario (``engine_check``: as
    :func:`load_scenario`)."""
    root = Table(data, "")
    root.check_keys(TOP_KEYS)
    name = root.get("name", string, default_name)
    description = root.get("description", string, "")
    seed = root.get("seed", integer(0, 2**64 - 1), 1)
    duration = root.get("duration", lambda v, p: parse_duration(v, p, positive=True))
    warmup = root.get("warmup", parse_duration, 0)
    if warmup >= duration:
        raise ScenarioError("warmup", "must be shorter than duration", root.raw("warmup"))
    sample = root.get("sample_interval", parse_duration, 0)
    if sample and duration // sample > MAX_SAMPLES:
        raise ScenarioError(
            "sample_interval",
            f"too small: {duration // sample} samples per queue (max {MAX_SAMPLES})",
            root.raw("sample_interval"),
        )
    tcp = parse_tcp(root.table("tcp"), TcpSpec())
    topo = parse_topology(root.table("topology"), "topology", mss=tcp.mss)
    groups = parse_flows(root.tables("flows"), topo, tcp, duration)
    faults = parse_faults(root.tables("faults"), topo, groups)
    impairments = parse_impairments(root.tables("impairments"), topo, groups)
    pcap = parse_pcap(root.table("output"), topo)
    ts_links, ts_flows = parse_timeseries(root.table("output"), topo, groups)
    defaults = {"timeseries_links": default_timeseries_links(topo), "timeseries_flows": ["*"]}
    _check_series_sampled(root.table("output"), sample, defaults)
    stop_when_complete = root.get("stop_when_complete", boolean, False)
    if stop_when_complete:
        for g in groups:
            if not g.app.is_finite():
                raise ScenarioError(
                    f"flows[{g.index}]",
                    "stop_when_complete = true needs finite work (bulk bytes, or request_response transactions)",
                )
    sc = Scenario(
        name=name,
        description=description,
        seed=seed,
        duration_ns=duration,
        warmup_ns=warmup,
        sample_interval_ns=sample,
        topology=topo,
        tcp=tcp,
        groups=tuple(groups),
        faults=tuple(faults),
        pcap=tuple(pcap),
        timeseries_links=tuple(ts_links),
        timeseries_flows=tuple(ts_flows),
        stop_when_complete=stop_when_complete,
        impairments=tuple(impairments),
    )
    if engine_check:
        check_scenario(sc)  # last: the engine's own check of the whole scenario (one validator)
    return sc

"""Sweep files: a base scenario, axes, zipped axes, seeds and a run-name template.

A sweep expands into runs (the cartesian product of its axes, zipped axes
varying together, times the seeds). Every run's scenario is built with the
``--set`` machinery (:mod:`ecnlab.overrides`) and validated by the scenario
parser (:mod:`ecnlab.config`) before anything runs, so a bad axis value stops
the whole sweep with ``run "NAME": <the scenario's one-line error>``.
See ``docs/sweeps.md`` for the format.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from string import Formatter
from typing import Any

from ecnlab._table import Table, integer, string, type_name
from ecnlab.config import parse_scenario, read_toml
from ecnlab.errors import ScenarioError, fmt_path
from ecnlab.lower import resolved_scenario
from ecnlab.model import Scenario
from ecnlab.overrides import Override, apply_overrides, parse_path
from ecnlab.store import RUN_METRICS

__all__ = ["Axis", "Run", "Sweep", "load_sweep", "parse_sweep", "RESERVED_COLUMNS"]

SWEEP_KEYS = ("description", "base", "set", "axes", "alias", "zip", "seeds", "name")
MAX_SEED = 2**64 - 1
MAX_RUNS = 100_000
# Run names become directory names: keep them portable and visible.
_NAME_OK = re.compile(r"^[A-Za-z0-9_+=,@%-][A-Za-z0-9_.+=,@%-]*$")
# runs.parquet columns besides the axes; an axis may not take one of these names.
RESERVED_COLUMNS = frozenset({"run", "seed", *RUN_METRICS})

Label = str | int | float | bool


@dataclass(frozen=True)
class Axis:
    """One ``[axes]`` entry: ``column`` is its name in results and name templates."""

    key: str
    column: str
    labels: tuple[Label, ...]
    overrides: tuple[tuple[Override, ...], ...]  # per label: the scenario fields it sets


@dataclass(frozen=True)
class Run:
    """One run of a sweep: its name, seed, axis values and validated scenario data."""

    name: str
    seed: int
    axes: dict[str, Label]
    data: dict[str, Any]  # scenario TOML data with every override applied
    resolved: dict[str, Any]  # the resolved scenario (as in summary.json)
    # ``data`` validated (what load_scenario(data) gives): local workers run it without parsing again
    scenario: Scenario | None = dataclasses.field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file and its expanded, validated runs (in grid order)."""

    source: str  # the sweep file path as given, or "sweep"
    text: str  # the sweep file's text ("" for a dict)
    base_text: str  # the base scenario file's text ("" when inline)
    description: str
    axes: tuple[Axis, ...]
    seeds: tuple[int, ...]
    runs: tuple[Run, ...]

    @property
    def columns(self) -> list[str]:
        """The axis columns, in file order."""
        return [a.column for a in self.axes]


def load_sweep(path: str | Path) -> Sweep:
    """Read and expand a sweep file; any problem raises ScenarioError (one line)."""
    p = Path(path)
    data = read_toml(p)
    text = p.read_text(encoding="utf-8")
    return parse_sweep(data, base_dir=p.parent, source=str(path), text=text)


def parse_sweep(data: Mapping[str, Any], *, base_dir: Path, source: str = "sweep", text: str = "") -> Sweep:
    """Expand sweep TOML data into validated runs."""
    root = Table(data, "")
    if not root.has("axes") and (root.has("topology") or root.has("flows")):
        raise ScenarioError(
            "", "this is a scenario, not a sweep: run it with `ecnlab run`, or sweep it from a file with "
            f'base = "{source}" and an [axes] table (docs/sweeps.md)',
        )  # fmt: skip
    root.check_keys(SWEEP_KEYS)
    description = root.get("description", string, "")
    base, base_text = _base(root, base_dir)
    fixed = _overrides(_sub(root, "set"), "set")
    aliases = _aliases(_sub(root, "alias"))
    axes = _axes(_sub(root, "axes"), aliases)
    groups = _zip_groups(root, axes)
    seeds = _seeds(root)
    template = root.get("name", string, "") or _default_template(axes)
    _check_first_run(base, fixed, axes, seeds[0])
    _check_template(template, axes)
    runs = _expand(base, fixed, axes, groups, seeds, template)
    return Sweep(source, text, base_text, description, tuple(axes), tuple(seeds), tuple(runs))


def _sub(root: Table, key: str) -> Table:
    """The sub-table ``key``; an empty one when absent."""
    return root.table(key) or Table({}, key)


def _base(root: Table, base_dir: Path) -> tuple[dict[str, Any], str]:
    """``base = "file.toml"`` (relative to the sweep file) or an inline ``[base]`` table."""
    if not root.has("base"):
        raise ScenarioError("base", 'required key is missing (a scenario file, base = "x.toml", or a [base] table)')
    value = root.data["base"]
    if isinstance(value, Mapping):
        return dict(value), ""
    if not isinstance(value, str):
        raise ScenarioError("base", f"must be a file name or a table, not {type_name(value)}", value)
    path = base_dir / value
    try:
        return read_toml(path), path.read_text(encoding="utf-8")
    except ScenarioError as e:
        raise ScenarioError("base", f"{path}: {e}", value) from None


def _overrides(table: Table, where: str) -> tuple[Override, ...]:
    """A table of ``"dotted.path" = value`` entries."""
    out = []
    for key, value in table.data.items():
        out.append((parse_path(key, fmt_path(where, key)), value))
    return tuple(out)


def _aliases(table: Table) -> dict[str, str]:
    """``[alias] maxp = "topology.bottleneck_queue.max_p"``: short column names for dotted axes."""
    out = {}
    for alias, path in table.data.items():
        out[string(path, table.at(alias))] = alias
    return out


def _axes(table: Table, aliases: dict[str, str]) -> list[Axis]:
    if not table.data:
        raise ScenarioError("axes", "required: at least one axis (a dotted scenario path with a list of values)")
    axes = [_axis(table, key, value, aliases) for key, value in table.data.items()]
    unused = set(aliases) - set(table.data)
    if unused:
        raise ScenarioError("alias", f"names no axis: {', '.join(sorted(unused))} (axes: {', '.join(table.data)})")
    seen: dict[str, str] = {}
    for a in axes:
        if a.column in RESERVED_COLUMNS or not a.column.isidentifier():
            raise ScenarioError(
                table.at(a.key), f"column name {a.column!r} is taken or not an identifier; give the axis an [alias]"
            )
        if a.column in seen:
            raise ScenarioError(
                table.at(a.key),
                f"short name {a.column!r} is also the name of axis {seen[a.column]!r}; give one an [alias]",
            )
        seen[a.column] = a.key
    return axes


def _axis(table: Table, key: str, value: Any, aliases: dict[str, str]) -> Axis:
    """A dotted path with a list of values, or a named axis of labelled override tables."""
    where = table.at(key)
    if isinstance(value, list):
        if not value:
            raise ScenarioError(where, "must have at least one value", value)
        kinds = {_scalar_kind(v, where) for v in value}
        if len(kinds) > 1:
            raise ScenarioError(where, "values must be all numbers, all strings or all booleans", value)
        _check_unique([json.dumps(v) for v in value], where, value)
        path = parse_path(key, where)
        column = aliases.get(key, str(path[-1]))
        return Axis(key, column, tuple(value), tuple(((path, v),) for v in value))
    if isinstance(value, Mapping):
        if not value:
            raise ScenarioError(where, "must have at least one labelled value", {})
        labels, sets = [], []
        for label, fields in value.items():
            if not isinstance(fields, Mapping):
                raise ScenarioError(
                    fmt_path(where, label),
                    "a labelled value must be a table of scenario fields "
                    f'(to sweep a dotted path, quote it: "{key}.{label}" = [...])',
                    fields,
                )
            labels.append(label)
            sets.append(_overrides(Table(fields, fmt_path(where, label)), fmt_path(where, label)))
        return Axis(key, aliases.get(key, key), tuple(labels), tuple(sets))
    raise ScenarioError(where, f"must be a list of values or a table of labelled values, not {type_name(value)}", value)


def _scalar_kind(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    raise ScenarioError(
        where,
        f"values must be numbers, strings or booleans, not {type_name(value)} (use a named axis of labelled tables)",
        value,
    )


def _check_unique(items: list[str], where: str, value: Any) -> None:
    if len(set(items)) != len(items):
        raise ScenarioError(where, "values must be distinct", value)


def _zip_groups(root: Table, axes: list[Axis]) -> list[list[int]]:
    """Dimensions of the grid: each zip group varies together, every other axis alone."""
    by_name = {a.key: i for i, a in enumerate(axes)} | {a.column: i for i, a in enumerate(axes)}
    zipped: dict[int, list[int]] = {}
    raw = root.data.get("zip", [])
    if not isinstance(raw, list) or not all(isinstance(g, list) for g in raw):
        raise ScenarioError("zip", 'must be a list of lists of axis names, e.g. [["a", "b"]]', raw)
    for gi, group in enumerate(raw):
        where = f"zip[{gi}]"
        if len(group) < 2:
            raise ScenarioError(where, "must name at least two axes", group)
        idx = []
        for name in group:
            if name not in by_name:
                raise ScenarioError(where, f"unknown axis {name!r} (axes: {', '.join(a.key for a in axes)})", group)
            i = by_name[name]
            if i in zipped or i in idx:
                raise ScenarioError(where, f"axis {name!r} is already zipped", group)
            idx.append(i)
        lengths = {len(axes[i].labels) for i in idx}
        if len(lengths) > 1:
            raise ScenarioError(where, f"zipped axes must have equal lengths, got {[len(axes[i].labels) for i in idx]}")
        for i in idx:
            zipped[i] = idx
    dims, placed = [], set()
    for i in range(len(axes)):
        if i in placed:
            continue
        group = zipped.get(i, [i])
        placed.update(group)
        dims.append(group)
    return dims


def _seeds(root: Table) -> list[int]:
    """``seeds = N`` (seeds 1..N) or an explicit list of distinct seeds."""
    raw = root.data.get("seeds", 1)
    if isinstance(raw, list):
        if not raw:
            raise ScenarioError("seeds", "must list at least one seed", raw)
        seeds = [integer(0, MAX_SEED)(s, f"seeds[{i}]") for i, s in enumerate(raw)]
        _check_unique([str(s) for s in seeds], "seeds", raw)
        return seeds
    n = root.get("seeds", integer(1, MAX_RUNS), 1)
    return list(range(1, n + 1))


def _default_template(axes: list[Axis]) -> str:
    return ",".join(f"{a.column}={{{a.column}}}" for a in axes) + ",seed={seed}"


def _check_first_run(base: dict[str, Any], fixed: tuple[Override, ...], axes: list[Axis], seed: int) -> None:
    """An axis that names no scenario key is the error to report (not the name template it breaks)."""
    try:
        data = apply_overrides(base, [*fixed, *(o for a in axes for o in a.overrides[0])])
        data["seed"] = seed
        parse_scenario(data, default_name="sweep")
    except ScenarioError as e:
        raise ScenarioError("axes", f"the first value of each axis gives a bad scenario: {e}") from None


def _check_template(template: str, axes: list[Axis]) -> None:
    fields = ["seed", *(a.column for a in axes)]
    try:
        parsed = list(Formatter().parse(template))
    except ValueError as e:
        raise ScenarioError("name", f"bad template: {e}", template) from None
    for _, field, _, _ in parsed:
        if field is not None and field not in fields:
            raise ScenarioError("name", f"unknown field {{{field}}} (fields: {', '.join(fields)})", template)


def _expand(
    base: dict[str, Any],
    fixed: tuple[Override, ...],
    axes: list[Axis],
    dims: list[list[int]],
    seeds: list[int],
    template: str,
) -> list[Run]:
    """The grid in order (first axis slowest, seeds fastest), each run validated."""
    sizes = [len(axes[g[0]].labels) for g in dims]
    total = len(seeds)
    for s in sizes:
        total *= s
    if total > MAX_RUNS:
        raise ScenarioError("axes", f"the sweep has {total} runs (max {MAX_RUNS})")
    runs: list[Run] = []
    names: set[str] = set()
    for combo in itertools.product(*(range(s) for s in sizes)):
        pick = {i: k for g, k in zip(dims, combo, strict=True) for i in g}
        for seed in seeds:
            values = {a.column: a.labels[pick[i]] for i, a in enumerate(axes)}
            name = _run_name(template, values, seed)
            if name in names:
                raise ScenarioError("name", f'gives the same run name "{name}" twice; use every axis and {{seed}}')
            names.add(name)
            overrides = list(fixed)
            for i, a in enumerate(axes):
                overrides.extend(a.overrides[pick[i]])
            runs.append(_validated_run(name, seed, values, base, overrides))
    return runs


def _run_name(template: str, values: dict[str, Label], seed: int) -> str:
    shown = {k: _show(v) for k, v in values.items()}
    try:
        name = template.format(seed=seed, **shown)
    except (ValueError, KeyError, IndexError) as e:
        raise ScenarioError("name", f"cannot fill the template: {e}", template) from None
    if not _NAME_OK.match(name) or name in {".", ".."}:
        raise ScenarioError(
            "name",
            f'gives run name "{name}": use letters, digits and _ . + = , @ % - (no "/", spaces, or leading ".")',
            template,
        )
    return name


def _show(value: Label) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _validated_run(
    name: str, seed: int, values: dict[str, Label], base: dict[str, Any], overrides: list[Override]
) -> Run:
    try:
        data = apply_overrides(base, overrides)
        data["seed"] = seed
        data["name"] = name
        sc = parse_scenario(data, default_name=name)
    except ScenarioError as e:
        raise ScenarioError(f'run "{name}"', str(e)) from None
    # Round-trip through JSON so the resolved scenario compares equal to one read from summary.json.
    resolved = json.loads(json.dumps(resolved_scenario(sc)))
    return Run(name, seed, values, data, resolved, sc)


def parse_label_text(text: str) -> Label:
    """A ``--where axis=value`` value: a TOML literal, or the bare text."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    return value if isinstance(value, str | int | float | bool) else text

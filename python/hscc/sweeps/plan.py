"""A sweep made into runs: every point checked by the engine before anything
runs, each run's seed and its cache key.

Seeds: replicate r of a point gets the first 8 bytes of BLAKE2b over the
sweep's seed, the point's values (each field as the engine read it, e.g. "10ms"
and 0.01 alike) sorted by field path, and r. So a point keeps its seeds when
axes are reordered, renamed or extended with other values, and different points
and replicates get independent seeds.

Checking: `check` first puts each axis value through the engine once, at the first point
that has it (the value with every other axis at its first value), so a bad value is
refused at once, naming its axis and point, with engine work bounded by the number of
axis values, not of points. `make` then checks every other point as it builds its run
(combinations of values, and each run's memory and event estimate): each point is resolved
by the engine once in the sweep's process, and each run once more in the worker that runs it
(with its own seed, in its own process).

Cache key: SHA-256 over the engine's version and source digest and the run's
whole checked scenario, seed included, but not its name and description, which
change no number; and for each program file the run names, the digest of its
text and its headers' as the sweep read them (hscc.program_files), so that an
edited program is run anew. Two runs with the same key compute the same results.

Program files are read once, here: each job carries the text its runs build from
(hscc.program_files), so a worker that cannot read the file runs the same code.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hscc import _core, program_files
from hscc.errors import ScenarioError, field_parts, show
from hscc.scenario import Scenario, names_program, programs_anchored
from hscc.sweeps.paths import NOT_FOUND, PathError, lookup
from hscc.sweeps.spec import Point, Sweep, SweepError

_LABEL_ONLY = ("name", "description")


@dataclass(frozen=True)
class Job:
    """One run: a point's scenario (checked, JSON-ready, with its seed) and the replicate;
    `sources`, the program files it names, as the sweep read them; `events`, the engine's
    estimate of the events it takes (0: not known)."""

    point: int
    replicate: int
    seed: int
    key: str
    scenario: dict[str, Any]
    sources: tuple[program_files.Source, ...] = ()
    events: int = 0


@dataclass(frozen=True)
class Plan:
    """Every run of a sweep, and the points' values as typed columns (one list per field path)."""

    sweep: Sweep
    points: list[Point]
    columns: dict[str, list[Any]]
    jobs: list[Job]


def check(sweep: Sweep, max_memory: int | None = None, max_events: int | None = None) -> int:
    """Check each axis value once, at the first point that has it (SweepError naming the axis,
    the point and what is allowed); the number of points. One engine check per axis value."""
    _check_axis_values(sweep, max_memory, max_events)
    return math.prod(len(a) for a in sweep.axes)


def make(sweep: Sweep, max_memory: int | None = None, max_events: int | None = None) -> Plan:
    """Check every point (SweepError naming the axis, the point and what is allowed) and list its
    runs. Each point is resolved by the engine once: the points `check` resolved are kept."""
    seen = _check_axis_values(sweep, max_memory, max_events)
    points = sweep.points()
    checked_points = [
        seen[p.index] if p.index in seen else _check(sweep, p, max_memory, max_events, fast=True)
        for p in points
    ]
    checked = [c for c, _ in checked_points]
    columns = {
        path: _column([lookup(c, path) for c in checked], [dict(p.assign)[path] for p in points])
        for path in sweep.paths
    }
    try:
        sources = program_files.collect(checked)
    except program_files.ProgramSourceError as e:
        raise SweepError(str(e)) from None
    jobs = []
    for p, (c, events) in zip(points, checked_points, strict=True):
        values = sorted((path, columns[path][p.index]) for path in sweep.paths)
        mine = tuple(sources[f] for f in program_files.named(c))
        for r in range(sweep.replicates):
            seed = derive_seed(sweep.seed, values, r)
            scenario = {**c, "seed": seed}
            jobs.append(Job(p.index, r, seed, cache_key(scenario, mine), scenario, mine, events))
    return Plan(sweep, points, columns, jobs)


def _check_axis_values(
    sweep: Sweep, max_memory: int | None, max_events: int | None
) -> dict[int, tuple[dict[str, Any], int]]:
    """`check`'s work: `_check` of each point it checked, by point index (the first point,
    and each other axis value with every other axis at its first value)."""
    sizes = [len(a) for a in sweep.axes]
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    first = tuple((m.path, m.values[0]) for a in sweep.axes for m in a.members)
    seen = {0: _check(sweep, Point(0, first), max_memory, max_events)}
    for i, a in enumerate(sweep.axes):
        for k in range(1, len(a)):
            mine = {m.path: m.values[k] for m in a.members}
            assign = tuple((path, mine.get(path, v)) for path, v in first)
            index = k * strides[i]
            seen[index] = _check(sweep, Point(index, assign), max_memory, max_events)
    return seen


def derive_seed(seed: int, values: list[tuple[str, Any]], replicate: int) -> int:
    """The seed of one replicate of one point (see the module's doc)."""
    text = json.dumps([seed, values, replicate], separators=(",", ":"), sort_keys=True)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def cache_key(scenario: dict[str, Any], sources: tuple[program_files.Source, ...] = ()) -> str:
    """The run's content key (see the module's doc); `sources`, the program files it names."""
    numbers = {k: v for k, v in scenario.items() if k not in _LABEL_ONLY}
    keyed: dict[str, Any] = {
        "engine": _core.engine_version(),
        "digest": _core.engine_digest(),
        "scenario": numbers,
    }
    if sources:  # absent otherwise: the keys of runs without programs stay as they were
        keyed["programs"] = {s.path: s.digest for s in sources}
    text = json.dumps(keyed, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _check(
    sweep: Sweep, point: Point, max_memory: int | None, max_events: int | None, fast: bool = False
) -> tuple[dict[str, Any], int]:
    """The point's scenario checked by the engine, limits included, and the events the engine
    estimates it takes. `fast`: for a point whose values `check` has seen, straight to the
    engine (no walk of the data for depth, NaN or dates, done once per value), and the long
    way for the error's words if it is refused."""
    try:
        data = sweep.scenario_data(point)
    except PathError as e:
        raise SweepError(f"{_axis_of(sweep, None)}{point.describe()}: {e}") from None
    if fast:
        try:
            if "name" not in data and sweep.source:
                data["name"] = _core.safe_file_name(Path(sweep.source).stem)
            data = programs_anchored(data, sweep.source)
            resolved = _core.resolve(json.dumps(data, allow_nan=False))
            resolved.check(max_memory, max_events)
            checked: dict[str, Any] = json.loads(resolved.scenario)
            return checked, _events(resolved)
        except (ValueError, TypeError):
            pass  # refused: the checks below say why, in the words a user reads
    try:
        sc = Scenario.parse(data, sweep.source)
        resolved = sc.resolved()
        resolved.check(max_memory, max_events)
        checked = sc.to_dict()
    except ScenarioError as e:
        field = e.issues[0].field if e.issues else None
        raise SweepError(f"{_axis_of(sweep, field)}{point.describe()}: {_reason(e)}") from None
    except ValueError as e:  # the limits: the engine's (message, field, value, allowed)
        field = e.args[1] if len(e.args) == 4 else None
        raise SweepError(
            f"{_axis_of(sweep, field)}{point.describe()}: {ScenarioError.from_engine(e).issues[0]}"
        ) from None
    return checked, _events(resolved)


def _events(resolved: _core.Resolved) -> int:
    """The events the engine estimates the run takes."""
    events: int = json.loads(resolved.estimate())["events"]
    return events


def _axis_of(sweep: Sweep, field: str | None) -> str:
    """ "axis NAME, " for the axis that sets `field` (or a table above it), else ""."""
    if field is not None:
        parts = field_parts(field)
        for a in sweep.axes:
            for m in a.members:
                mine = field_parts(m.path)
                if parts[: len(mine)] == mine or mine[: len(parts)] == parts:
                    return f'axis "{a.name}", '
    return ""


def _reason(e: ScenarioError) -> str:
    return "; ".join(str(i) for i in e.issues) or str(e)


def _column(resolved: list[Any], written: list[Any]) -> list[Any]:
    """A field's values as one typed column: as the engine read them (seconds, bit/s, names)
    when they are all plain values of one kind, else as written (text). A program file stays
    as the sweep names it (the run records its absolute path), so that the column, the seeds
    derived from it and an experiment's series are the same wherever the sweep file lies."""
    if any(names_program(w) for w in written):
        return list(written)
    kinds = {_kind(v) for v in resolved}
    if len(kinds) == 1 and None not in kinds:
        if kinds == {"number"} and any(isinstance(v, float) for v in resolved):
            return [float(v) for v in resolved]
        return resolved
    return [w if isinstance(w, str) else _text(w) for w in written]


def _text(w: Any) -> str:
    """A value's text in a column, which its seeds are derived from: a table or list as
    Python writes it, whole, so that two values never share a text (and seeds) and a point
    keeps its seeds whatever `show` prints."""
    return repr(w) if isinstance(w, (dict, list, tuple)) else show(w)


def _kind(v: Any) -> str | None:
    if v is NOT_FOUND or v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return "text"

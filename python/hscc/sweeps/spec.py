"""Sweep files: a base scenario, the axes to vary, replicates and a seed.

    name = "loss"                       # default: the file's stem
    base = "../examples/two-reno-rtt.toml"   # a scenario file (relative to this file), or an inline [base] table
    replicates = 5                      # runs per point, each with its own seed (default 1)
    seed = 1                            # the sweep's seed (default: the base scenario's)

    [axes]                              # in order: the first is the plots' x axis
    "topology.bottleneck.loss" = { logspace = ["1e-6", "1e-2"], steps = 9 }
    "flows[1].algorithm" = ["reno", "ctcp"]
    rtt = { zip = { "topology.pairs[0].rtt" = ["10ms", "20ms"], "topology.pairs[1].rtt" = ["80ms", "160ms"] } }

An axis is a scenario field's dotted path with its values: a list, ``{ values =
[...] }``, or a range ``{ linspace = [a, b], steps = n }`` / ``{ logspace = [a, b],
steps = n }`` whose ends may carry units ("10ms", "1e-6", "100Mbps"); or, under any
name, ``{ zip = { path = values, ... } }``: fields that move together, each with the
same number of values. The points are every combination of the axes' values.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hscc import _core, units
from hscc.errors import ScenarioError, show
from hscc.inputs import InputError, finite_number, parse_toml, read_text
from hscc.reference import value_kind
from hscc.scenario import MAX_FILE_BYTES, Scenario
from hscc.sweeps.paths import PathError, normalize, put

MAX_RUNS = 1_000_000  # points × replicates; a sweep beyond this is a typo, not a plan
MAX_STEPS = 100_000
MAX_REPLICATES = 10_000
MAX_TEXT = (
    4096  # characters of a text value on an axis; the longest a scenario needs is a few dozen
)
# Not a field an axis may set: each run's seed is derived from the sweep's seed, the point and
# the replicate (hscc.sweeps.plan), so a swept seed would be overwritten.
RESERVED = ("seed",)
_RANGES = ("linspace", "logspace")
_TOP_KEYS = ("name", "description", "base", "replicates", "seed", "axes")


class SweepError(ValueError):
    """A sweep that cannot run as written: names the sweep key, the axis or the point, and what is allowed."""


@dataclass(frozen=True)
class Member:
    """One field an axis sets: its path and its values as written (numbers for ranges)."""

    path: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Axis:
    """One dimension of the sweep: a single field, or zipped fields that move together."""

    name: str
    members: tuple[Member, ...]

    def __len__(self) -> int:
        return len(self.members[0].values)


@dataclass(frozen=True)
class Point:
    """One combination of axis values: `assign` is (path, value as written) for every member of every axis."""

    index: int
    assign: tuple[tuple[str, Any], ...]

    def describe(self) -> str:
        return f"point {self.index} (" + ", ".join(f"{p} = {show(v)}" for p, v in self.assign) + ")"


@dataclass(frozen=True)
class Sweep:
    """A checked sweep: the base scenario's data, the axes, replicates and seed."""

    name: str
    base: dict[str, Any]
    axes: tuple[Axis, ...]
    replicates: int = 1
    seed: int = 0
    description: str | None = None
    source: str | None = None
    text: str | None = field(
        default=None, compare=False
    )  # the sweep file as read, for the manifest
    # The base as written, where known: each point sets its values there and is then
    # checked whole, so that the defaults and a `stack` profile's rows for one algorithm
    # follow the point's own values (its algorithm), not the base's.
    written: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def paths(self) -> list[str]:
        return [m.path for a in self.axes for m in a.members]

    def points(self) -> list[Point]:
        """Every combination of the axes' values, the last axis varying fastest."""
        ranges = [range(len(a)) for a in self.axes]
        out = []
        for i, combo in enumerate(itertools.product(*ranges)):
            assign = tuple(
                (m.path, m.values[k])
                for a, k in zip(self.axes, combo, strict=True)
                for m in a.members
            )
            out.append(Point(i, assign))
        return out

    def scenario_data(self, point: Point) -> dict[str, Any]:
        """The base scenario's data with the point's values set (not checked yet); the base is
        shared, not copied, except the tables and lists on the way to the fields set."""
        data = dict(self.written if self.written is not None else self.base)
        for path, value in point.assign:
            put(data, path, value, copy=True)
        return data


def load(path: str | Path) -> Sweep:
    """Read a sweep file; SweepError naming what is wrong."""
    path = Path(path)
    try:
        text = read_text(path, "sweep", MAX_FILE_BYTES)
        data = parse_toml(text, str(path))
    except InputError as e:
        raise SweepError(str(e)) from None
    return parse(data, source=str(path), text=text)


def parse(
    data: dict[str, Any], base: Any = None, source: str | None = None, text: str | None = None
) -> Sweep:
    """A Sweep from a sweep file's data (or the same keys from Python); `base` (a Scenario,
    a scenario file or a dict) stands in for the data's "base" key."""
    where = f"{source}: " if source else ""
    if not isinstance(data, dict):
        raise SweepError(f"{where}a sweep is a table of {', '.join(_TOP_KEYS)}")
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise SweepError(f"{where}{unknown[0]}: not a sweep key (allowed: {', '.join(_TOP_KEYS)})")
    scenario = _base(data.get("base") if base is None else base, source, where)
    replicates = _whole(data.get("replicates", 1), "replicates", 1, MAX_REPLICATES, where)
    seed = _whole(data.get("seed", scenario.seed), "seed", 0, 2**64 - 1, where)
    axes = _axes(data.get("axes", {}), where)
    seen: dict[str, tuple[str, str]] = {}  # normalized path → (axis, path as written)
    for a, written in axes:
        for m, w in zip(a.members, written, strict=True):
            if m.path in seen:
                other, other_written = seen[m.path]
                same = "" if w == other_written else f" (both are {m.path})"
                raise SweepError(
                    f"{where}axes.{a.name}: {w} is the field {other_written} already swept "
                    f"by axis {other!r}{same}; each field may be swept by one axis only"
                )
            seen[m.path] = (a.name, w)
    runs = math.prod(len(a) for a, _ in axes) * replicates
    if runs > MAX_RUNS:
        raise SweepError(
            f"{where}the sweep has {runs} runs (points × replicates); at most {MAX_RUNS} are allowed"
        )
    name = data.get("name")
    if name is not None and (
        not isinstance(name, str) or not name or _core.safe_file_name(name) != name
    ):
        raise SweepError(
            f"{where}name: {show(name)} is not allowed (a non-empty name usable as a file name)"
        )
    if name is None:
        name = _core.safe_file_name(Path(source).stem) if source else scenario.name
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise SweepError(f"{where}description: {show(description)} is not allowed (text)")
    base_data = scenario.to_dict()
    return Sweep(
        name,
        base_data,
        tuple(a for a, _ in axes),
        replicates,
        seed,
        description,
        source,
        text,
        scenario.written,
    )


def _base(base: Any, source: str | None, where: str) -> Scenario:
    if base is None:
        raise SweepError(
            f'{where}base: missing (a scenario file, e.g. base = "scenario.toml", or an inline [base] table)'
        )
    try:
        if isinstance(base, Scenario):
            return base
        if isinstance(base, (str, Path)):
            path = Path(base)
            if source is not None and not path.is_absolute():
                path = Path(source).parent / path
            return Scenario.from_toml(path)
        if isinstance(base, dict):
            return Scenario.parse(base, source)
    except ScenarioError as e:
        raise SweepError(f"{where}base: {e}") from None
    raise SweepError(
        f"{where}base: {show(base)} is not allowed (a scenario file name or an inline [base] table)"
    )


def _axes(axes: Any, where: str) -> list[tuple[Axis, tuple[str, ...]]]:
    """The axes, each with its members' paths as written (the Axis has them normalized)."""
    if not isinstance(axes, dict):
        raise SweepError(f"{where}axes: {show(axes)} is not allowed (a table: field path = values)")
    out = []
    for name, spec in axes.items():
        at = f"{where}axes.{_clip(str(name))}"
        if isinstance(spec, dict) and "zip" in spec:
            if set(spec) != {"zip"} or not isinstance(spec["zip"], dict) or not spec["zip"]:
                raise SweepError(
                    f"{at}: a zipped axis is {{ zip = {{ path = values, ... }} }} and nothing else"
                )
            written = tuple(str(p) for p in spec["zip"])
            members = tuple(
                _member(p, v, f"{at}.zip.{_clip(str(p))}") for p, v in spec["zip"].items()
            )
            lengths = {m.path: len(m.values) for m in members}
            if len(set(lengths.values())) > 1:
                shown = ", ".join(f"{p} has {n}" for p, n in lengths.items())
                raise SweepError(f"{at}: zipped fields need the same number of values ({shown})")
            out.append((Axis(str(name), members), written))
        else:
            member = _member(name, spec, at)
            out.append((Axis(member.path, (member,)), (str(name),)))
    return out


def _member(path: str, spec: Any, at: str) -> Member:
    try:
        path = normalize(path)
    except PathError as e:
        raise SweepError(f"{at}: {e}") from None
    if path in RESERVED:
        raise SweepError(
            f"{at}: {path} cannot be swept (each run's seed is derived from the sweep's seed, "
            "the point and the replicate: set `replicates` for more runs per point and the "
            "sweep's `seed` (default: the base scenario's) for other seeds)"
        )
    if path.rsplit(".", 1)[-1] == "stack":
        raise SweepError(
            f"{at}: {path} cannot be swept (a stack's profile sets the knobs a scenario leaves "
            "out, and a sweep's base is read first, every knob set: write a sweep per stack, "
            "`stack` in its base)"
        )
    if isinstance(spec, dict):
        kinds = [k for k in ("values", *_RANGES) if k in spec]
        extra = [k for k in spec if k not in ("values", "steps", *_RANGES)]
        if len(kinds) != 1 or extra or ("steps" in spec) != (kinds[0] in _RANGES):
            raise SweepError(
                f"{at}: {show(spec)} is not allowed (a list of values, {{ values = [...] }}, "
                "{ linspace = [a, b], steps = n } or { logspace = [a, b], steps = n })"
            )
        if kinds[0] == "values":
            spec = spec["values"]
        else:
            return Member(path, _range(kinds[0], spec[kinds[0]], spec["steps"], path, at))
    if not isinstance(spec, list) or not spec:
        raise SweepError(
            f"{at}: {show(spec)} is not allowed (a non-empty list of values, or a range)"
        )
    for i, v in enumerate(spec):
        if isinstance(v, str) and len(v) > MAX_TEXT:
            raise SweepError(
                f"{at}[{i}]: text of {len(v)} characters is not allowed (at most {MAX_TEXT})"
            )
    return Member(path, tuple(spec))


def _range(kind: str, ends: Any, steps: Any, path: str, at: str) -> tuple[Any, ...]:
    """`steps` values from a to b, evenly (linspace) or evenly in log (logspace); ends with units are
    read as the field reads them (see `_quantity`), so "10ms".."100ms" gives seconds."""
    if not isinstance(ends, list) or len(ends) != 2:
        raise SweepError(f"{at}.{kind}: {show(ends)} is not allowed (two ends, [a, b])")
    n = _whole(steps, f"{at}.steps", 1, MAX_STEPS, "")
    a, b = (_quantity(path, e, f"{at}.{kind}") for e in ends)
    if n == 1 and a != b:
        raise SweepError(f"{at}.steps: 1 is not allowed when the ends differ (at least 2 steps)")
    if kind == "logspace" and (a <= 0 or b <= 0):
        raise SweepError(
            f"{at}.logspace: {show(ends[0])}, {show(ends[1])} is not allowed (positive ends)"
        )
    if n == 1:
        return (a,)
    if kind == "linspace":
        values = [a + (b - a) * i / (n - 1) for i in range(n)]
    else:
        la, lb = math.log10(a), math.log10(b)
        values = [10 ** (la + (lb - la) * i / (n - 1)) for i in range(n)]
    values[0], values[-1] = a, b  # the ends exactly as given, without rounding
    if value_kind(path) == "integer":  # a whole-number field: the steps must be whole too
        if any(abs(v - round(v)) > 1e-9 * max(1, abs(v)) for v in values):
            raise SweepError(
                f"{at}: {n} steps from {a} to {b} are not whole numbers, which this field needs"
            )
        values = [int(round(v)) for v in values]
    return tuple(values)


def _quantity(path: str, value: Any, at: str) -> int | float:
    """A range end as a number in the field's base unit: a number as it is, a string
    with a unit read the way the engine reads the field (from its schema's kind)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SweepError(f"{at}: {show(value)} is not allowed (a number, or a string with a unit)")
    if not isinstance(value, str):
        why = finite_number(value)
        if why is not None:
            raise SweepError(f"{at}: {show(value)} is not allowed ({why})")
        return value
    if len(value) > 100:
        raise SweepError(f"{at}: {show(value)} is not allowed (a number or a quantity with a unit)")
    number = _read_quantity(path, value, at)
    why = finite_number(number)
    if why is not None:
        raise SweepError(f"{at}: {show(value)} is not allowed ({why})")
    return number


def _read_quantity(path: str, value: str, at: str) -> int | float:
    kind = value_kind(path)
    readers = {
        "time": units.seconds,
        "rate": units.rate,
        "size": units.size,
        "probability": units.probability,
    }
    if kind in readers:
        try:
            return readers[kind](value)
        except units.UnitError as e:
            raise SweepError(f"{at}: {show(value)} is not allowed ({e})") from None
    try:
        return int(value) if value.strip().lstrip("+-").isdigit() else float(value)
    except ValueError:
        raise SweepError(
            f"{at}: {show(value)} is not allowed (a number: {path} has no unit)"
        ) from None


def _whole(value: Any, key: str, lo: int, hi: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise SweepError(
            f"{where}{key}: {show(value)} is not allowed (a whole number from {lo} to {hi})"
        )
    return value


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


__all__ = ["Axis", "Member", "Point", "Sweep", "SweepError", "load", "parse"]

"""Scenarios: the TOML file format and the Python object that reads it.

The format is defined once, in the engine (crates/hscc-sim/src/scenario/spec/):
its fields, defaults, units and checks. ``Scenario.parse`` hands the data to
the engine, which checks all of it and returns it with every default filled in
and every quantity in SI numbers (seconds, bit/s, bytes); the field reference
(``hscc fields``, docs/scenario.md) is generated from the same definition.
Every rejected value raises ``ScenarioError`` naming the field, the value and
what is allowed.

    duration = "60s"
    [output]
    sample_interval = "100ms"
    [topology]
    kind = "dumbbell"
    bottleneck = { rate = "100Mbps", delay = "5ms", buffer = "1bdp" }
    pairs = [{ rtt = "40ms" }, { rtt = "120ms" }]
    [[flows]]
    pair = 0
    algorithm = "reno"

Besides [[flows]] (TCP), a scenario may have [[udp]], [[voip]], [[web]] and
[[changes]] entries.
"""

from __future__ import annotations

import copy
import datetime
import functools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeGuard

from hscc import _core
from hscc.errors import Issue, ScenarioError
from hscc.inputs import MAX_DEPTH, InputError, load_toml, too_deep

__all__ = ["Record", "Scenario"]

MAX_FILE_BYTES = 16 << 20  # a scenario file; the largest real one is a few kB


@functools.cache
def field_names() -> frozenset[str]:
    """Every field name the scenario format has, at any level."""
    from hscc.reference import schema_nodes

    return frozenset(name for node in schema_nodes() for name in node.get("properties", {}))


class Record:
    """A read-only view of one table of a checked scenario: its fields as
    attributes (None for an optional field that is not set), lists as lists."""

    __slots__ = ("_data",)
    _data: dict[str, Any]

    def __init__(self, data: dict[str, Any]):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        if name in self._data:
            return _view(self._data[name])
        if name in field_names():
            return None
        raise AttributeError(f"a scenario has no field {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a scenario is read-only: change the data and parse it again")

    def __getitem__(self, name: str) -> Any:
        return _view(self._data[name])

    def __contains__(self, name: str) -> bool:
        return name in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self._data == other._data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the fields, as JSON-ready data."""
        return copy.deepcopy(self._data)


def _view(value: Any) -> Any:
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_view(v) for v in value]
    return value


class Scenario(Record):
    """A whole experiment, checked by the engine: network, traffic, duration,
    seed and outputs, every default filled in, quantities in SI numbers."""

    __slots__ = ("_checked", "_resolved", "_source", "_written")
    _checked: dict[str, Any] | None
    _source: str | None
    _resolved: _core.Resolved | None
    _written: dict[str, Any] | None

    def __init__(
        self,
        checked: dict[str, Any] | None,
        source: str | None = None,
        resolved: _core.Resolved | None = None,
        written: dict[str, Any] | None = None,
    ):
        """`checked` None: the fields are read from `resolved` on first use (a check of
        10^5 flows never needs them)."""
        object.__setattr__(self, "_checked", checked)
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_resolved", resolved)
        object.__setattr__(self, "_written", written)

    def __reduce__(self) -> tuple[type[Scenario], tuple[dict[str, Any], str | None]]:
        # The engine's resolution stays behind (it is not picklable); a copy resolves anew.
        return (Scenario, (self._data, self._source))

    @property
    def _data(self) -> dict[str, Any]:  # type: ignore[override]
        if self._checked is None:
            object.__setattr__(self, "_checked", json.loads(self.resolved().scenario))
        return self._checked  # type: ignore[return-value]

    @property
    def source(self) -> str | None:
        """The file the scenario was read from, if any."""
        return self._source

    @property
    def written(self) -> dict[str, Any] | None:
        """The fields as written (program paths made absolute), before defaults and the
        `stack` profile filled the rest; None for a scenario made from checked data.
        A sweep sets its axes here: a profile's rows for one algorithm then follow the
        algorithm each point runs."""
        return copy.deepcopy(self._written) if self._written is not None else None

    # --- construction -------------------------------------------------------------------

    @classmethod
    def parse(cls, data: dict[str, Any], source: str | None = None) -> Scenario:
        """From a dict (parsed TOML or JSON); ScenarioError on any bad value."""
        return cls._parse(data, source, depth_checked=False)

    @classmethod
    def _parse(cls, data: dict[str, Any], source: str | None, depth_checked: bool) -> Scenario:
        """`parse`; `depth_checked`: `data` comes from `load_toml`, which bounded its nesting
        (walking 10^5 host pairs again costs a third of a second)."""
        if not isinstance(data, dict):
            raise ScenarioError([Issue("scenario", data, "a table of scenario fields")], source)
        where = None if depth_checked else too_deep(data)
        if where is not None:
            raise ScenarioError(
                [],
                source,
                f"{source or 'scenario'}: {where} is nested more than {MAX_DEPTH} tables or lists deep",
            )
        if "name" not in data and source:
            data = {**data, "name": _core.safe_file_name(Path(source).stem)}
        data = programs_anchored(data, source)
        try:
            resolved = _core.resolve(_engine_text(data))
        except ValueError as e:
            raise ScenarioError.from_engine(e, source, data) from None
        return cls(None, source, resolved, data)

    @classmethod
    def from_toml(cls, path: str | Path, seed: int | None = None) -> Scenario:
        """Read a scenario file, with `seed` in place of its own if given; ScenarioError when
        it is missing, not TOML, or invalid."""
        path = Path(path)
        try:
            data = load_toml(path, "scenario", MAX_FILE_BYTES)
        except InputError as e:
            raise ScenarioError([], str(path), str(e)) from None
        if seed is not None:
            data["seed"] = seed
        return cls._parse(data, str(path), depth_checked=True)

    @classmethod
    def coerce(
        cls, scenario: Scenario | str | Path | dict[str, Any], seed: int | None = None
    ) -> Scenario:
        """A Scenario from a Scenario, a TOML path or a dict, with `seed` if given (each
        resolved once)."""
        if isinstance(scenario, Scenario):
            return scenario if seed is None else scenario.with_seed(seed)
        if isinstance(scenario, (str, Path)):
            return cls.from_toml(scenario, seed)
        return cls.parse(scenario if seed is None else {**scenario, "seed": seed})

    def with_seed(self, seed: int) -> Scenario:
        """A copy with another seed (checked)."""
        return Scenario.parse({**self.to_dict(), "seed": seed}, self._source)

    # --- the engine's form --------------------------------------------------------------

    def resolved(self) -> _core.Resolved:
        """The engine's resolution of this scenario (configuration, labels, estimate), made
        once: when it was parsed, or on first use for one made from checked data."""
        if self._resolved is None:
            try:
                resolved = _core.resolve(self.engine_json())
            except ValueError as e:
                raise ScenarioError.from_engine(e, self._source) from None
            object.__setattr__(self, "_resolved", resolved)
            return resolved
        return self._resolved

    def to_engine(self) -> dict[str, Any]:
        """The form the engine runs: the checked scenario itself (SI numbers)."""
        return self.to_dict()

    def engine_json(self) -> str:
        """`to_engine()` as the JSON text the engine reads (without the copy)."""
        return json.dumps(self._data)

    def traffic(self) -> str:
        """E.g. "2 TCP flows, 1 UDP flow, 1 VoIP call, 1 web source"."""
        resolved = self.resolved()
        udp_sources = [source for source, _ in resolved.udp_labels]
        counts = [
            (len(resolved.tcp_labels), "TCP flow"),
            (sum(s.startswith("udp") for s in udp_sources), "UDP flow"),
            (sum(s.startswith("voip") for s in udp_sources) // 2, "VoIP call"),
            (len(resolved.web_labels), "web source"),
        ]
        return ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n)

    def flow_labels(self) -> list[tuple[int, str]]:
        """(index in `flows`, label) of every TCP flow the engine runs, counts expanded: the
        engine's labels ("ALGORITHM INDEX", or the entry's label, "LABEL #k" with a count),
        by which `[output] cc_log` names flows."""
        return self.resolved().tcp_labels

    def udp_labels(self) -> list[tuple[str, str]]:
        """(source, label) of every UDP flow the engine runs: [[udp]] entries, then two per
        [[voip]] call ("LABEL →", "LABEL ←")."""
        return self.resolved().udp_labels


def _engine_text(data: dict[str, Any]) -> str:
    """`data` as the JSON text the engine resolves: as it is when JSON can carry it (the
    usual case, one pass of the C encoder), else through `_as_json`."""
    try:
        return json.dumps(data, allow_nan=False)
    except (ValueError, TypeError):  # NaN or an infinity; a date, time or other object
        return json.dumps(_as_json(data))


def _as_json(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with what JSON cannot carry made text the engine will name in its
    error: NaN and infinities ("nan", "inf"), TOML dates and times (ISO text)."""

    def fix(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        if isinstance(v, (datetime.date, datetime.time)):
            return v.isoformat()
        if isinstance(v, dict):
            return {str(k): fix(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(x) for x in v]
        return v

    return {str(k): fix(x) for k, x in data.items()}  # depth is at most MAX_DEPTH (checked before)


def names_program(algorithm: object) -> TypeGuard[str]:
    """Whether an `algorithm` value names a program file (it ends in `.c`), as the engine's
    hscc_program::is_program decides."""
    return isinstance(algorithm, str) and algorithm.endswith(".c")


def programs_anchored(data: dict[str, Any], source: str | None) -> dict[str, Any]:
    """`data` with every algorithm that names a program file (a value ending in `.c`) made
    absolute: relative to the directory of the file `source` names (a scenario, sweep or
    experiment file), else to the working directory, so that the run records, and reruns,
    the file it ran."""
    base = Path(source).parent if source and Path(source).is_file() else Path.cwd()

    def anchor(entries: Any) -> Any:
        if not isinstance(entries, list):
            return entries
        out = []
        for e in entries:
            a = e.get("algorithm") if isinstance(e, dict) else None
            if names_program(a) and not Path(a).is_absolute():
                e = {**e, "algorithm": str((base / a).absolute())}
            out.append(e)
        return out

    return {k: anchor(v) if k in ("flows", "web") else v for k, v in data.items()}

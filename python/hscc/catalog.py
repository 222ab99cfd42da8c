"""The engine's congestion-control algorithms and their parameters, as data."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

from hscc import _core


@dataclass(frozen=True)
class Param:
    """One tunable parameter of an algorithm."""

    name: str
    doc: str
    default: float
    min: float
    max: float
    kind: str  # "real", "integer" or "bool"
    source: str

    def check(self, value: object) -> float:
        """The value as the engine takes it (bools as 0/1); ValueError saying what is allowed."""
        if self.kind == "bool":
            if isinstance(value, bool) or value in (0, 1):
                return float(value)
            raise ValueError("true or false")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(self.allowed())
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(self.allowed())
        if self.kind == "integer" and value != int(value):
            raise ValueError(self.allowed())
        if not self.min <= value <= self.max:
            raise ValueError(self.allowed())
        return float(value)

    def allowed(self) -> str:
        """E.g. "an integer from 1 to 10000"."""
        if self.kind == "bool":
            return "true or false"
        what = "an integer" if self.kind == "integer" else "a number"
        return f"{what} from {_num(self.min)} to {_num(self.max)}"

    def range_text(self) -> str:
        """E.g. "1…10000 (integer)"."""
        if self.kind == "bool":
            return "true/false"
        return f"{_num(self.min)}…{_num(self.max)}" + (
            " (integer)" if self.kind == "integer" else ""
        )

    def default_text(self) -> str:
        if self.kind == "bool":
            return "true" if self.default else "false"
        return _num(self.default)


@dataclass(frozen=True)
class Algorithm:
    """A congestion-control algorithm the engine offers."""

    name: str
    aliases: tuple[str, ...]
    summary: str
    source: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@lru_cache(maxsize=1)
def algorithms() -> tuple[Algorithm, ...]:
    """Every algorithm, in the engine's order."""
    return tuple(
        Algorithm(
            name=a["name"],
            aliases=tuple(a["aliases"]),
            summary=a["summary"],
            source=a["source"],
            params=tuple(Param(**p) for p in a["params"]),
        )
        for a in json.loads(_core.algorithms())
    )


def find(name: str) -> Algorithm | None:
    """The algorithm called `name` or one of its aliases (any case)."""
    key = name.lower()
    return next((a for a in algorithms() if key == a.name or key in a.aliases), None)


def known_names() -> str:
    """ "reno, multcp, ctcp, …" for error messages."""
    return ", ".join(a.name for a in algorithms())


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"

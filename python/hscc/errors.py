"""Errors a user can act on: each names the field, the value given and what is allowed."""

from __future__ import annotations

import re

MISSING = object()  # the value of a field that was not given


class Issue(ValueError):
    """One rejected value. Raised inside validators with a path relative to the model."""

    def __init__(self, field: str, value: object, allowed: str):
        super().__init__(f"{field}: {allowed}")
        self.field, self.value, self.allowed = field, value, allowed

    def at(self, prefix: str) -> Issue:
        """The same issue with its field under `prefix`."""
        if not prefix:
            return self
        sep = "" if self.field.startswith("[") or not self.field else "."
        return Issue(f"{prefix}{sep}{self.field}", self.value, self.allowed)

    def __str__(self) -> str:
        if self.value is MISSING:
            return f"{self.field}: missing ({self.allowed})"
        return f"{self.field}: {show(self.value)} is not allowed ({self.allowed})"


class ScenarioError(ValueError):
    """A scenario that cannot run as written; `issues` lists every rejected value."""

    def __init__(self, issues: list[Issue], source: str | None = None, message: str | None = None):
        self.issues, self.source = issues, source
        where = f"{source}: " if source else ""
        lines = [message or f"{where}invalid scenario"] + [f"  {i}" for i in issues]
        super().__init__("\n".join(lines))

    @classmethod
    def from_engine(
        cls, error: ValueError, source: str | None = None, data: object = None
    ) -> ScenarioError:
        """From the engine's ValueError(message, field, value, allowed); the value is
        shown as `data` (the scenario as given) has it when the field is found there."""
        if len(error.args) == 4:
            _, field, value, allowed = error.args
            if value == "missing":
                from hscc.reference import description

                generic = (
                    allowed == "a value: this field is required"
                )  # serde's words: say what the field is instead
                return cls(
                    [Issue(field, MISSING, (generic and description(field)) or allowed)], source
                )
            given = _lookup(data, field)
            shown = _Raw(value) if given is _NOT_FOUND or isinstance(given, (dict, list)) else given
            return cls([Issue(field, shown, allowed)], source)
        return cls([Issue("scenario", _Raw("?"), str(error))], source)


_NOT_FOUND = object()
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def field_parts(field: str) -> list[str]:
    """The parts of a field path: "flows[1].params.gamma" → ["flows", "1", "params", "gamma"]."""
    return [key or index for key, index in _PATH_PART.findall(field)]


def _lookup(data: object, field: str) -> object:
    """The value at a field path such as "flows[1].params.gamma" in `data`, or _NOT_FOUND."""
    for key, index in _PATH_PART.findall(field):
        if key and isinstance(data, dict) and key in data:
            data = data[key]
        elif index and isinstance(data, list) and int(index) < len(data):
            data = data[int(index)]
        else:
            return _NOT_FOUND
    return data


class RunError(RuntimeError):
    """The engine failed while running a valid scenario (a bug to report)."""


class ProgramError(RunError):
    """A user's congestion-control program failed in one of its hooks; the message names the
    file, the line and the hook, and the run stopped there."""


class _Raw(str):
    """A value already formatted by the engine."""


def show(value: object) -> str:
    """A value as it would be written in a scenario file."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

"""Errors a user can act on: each names the field, the value given and what is allowed."""

from __future__ import annotations

MISSING = object()  # the value of a field that was not given


class Issue(ValueError):
    """One rejected value. Raised inside validators with a path relative to the model."""

    def __init__(self, field: str, value: object, allowed: str):
        super().__init__(f"{field}: {allowed}")
        self.field, self.value, self.allowed = field, value, allowed

    def at(self, prefix: str) -> "Issue":
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
    def from_engine(cls, error: ValueError, source: str | None = None) -> "ScenarioError":
        """From the engine's ValueError(message, field, value, allowed)."""
        if len(error.args) == 4:
            _, field, value, allowed = error.args
            return cls([Issue(field, _Raw(value), allowed)], source)
        return cls([Issue("scenario", _Raw("?"), str(error))], source)


class RunError(RuntimeError):
    """The engine failed while running a valid scenario (a bug to report)."""


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

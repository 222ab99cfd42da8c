"""Errors a user can act on: each names the field, the value given and what is allowed."""

from __future__ import annotations

import re


class _Missing:
    def __reduce__(self) -> str:
        return "MISSING"  # pickled as the name: one MISSING in every process

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()  # the value of a field that was not given


class Issue(ValueError):
    """One rejected value. Raised inside validators with a path relative to the model.
    `hint`: '; did you mean "X"?' or empty; `where`: " (line L, column C)" or empty."""

    def __init__(self, field: str, value: object, allowed: str, hint: str = "", where: str = ""):
        super().__init__(f"{field}: {allowed}")
        self.field, self.value, self.allowed = field, value, allowed
        self.hint, self.where = hint, where

    def __reduce__(self) -> tuple[type[Issue], tuple[str, object, str, str, str]]:
        return (Issue, (self.field, self.value, self.allowed, self.hint, self.where))

    def at(self, prefix: str) -> Issue:
        """The same issue with its field under `prefix`."""
        if not prefix:
            return self
        sep = "" if self.field.startswith("[") or not self.field else "."
        return Issue(f"{prefix}{sep}{self.field}", self.value, self.allowed, self.hint, self.where)

    def __str__(self) -> str:
        if self.value is MISSING:
            return f"{self.field}: missing ({self.allowed}){self.where}"
        return (
            f"{self.field}: {show(self.value)} is not allowed ({self.allowed}){self.hint}"
            f"{self.where}"
        )


class ScenarioError(ValueError):
    """A scenario that cannot run as written; `issues` lists every rejected value."""

    def __init__(self, issues: list[Issue], source: str | None = None, message: str | None = None):
        self.issues, self.source, self._message = issues, source, message
        where = f"{source}: " if source else ""
        lines = [message or f"{where}invalid scenario"] + [f"  {i}" for i in issues]
        super().__init__("\n".join(lines))

    def __reduce__(
        self,
    ) -> tuple[type[ScenarioError], tuple[list[Issue], str | None, str | None]]:
        # Whole, as an isolated run's process sends it to its caller (hscc.isolated).
        return (ScenarioError, (self.issues, self.source, self._message))

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
            hint = suggestion(field, shown, allowed)
            return cls([Issue(field, shown, allowed, hint, _where(source, field))], source)
        return cls([Issue("scenario", _Raw("?"), str(error))], source)


# What the engine lists as allowed, where the rejected value or key is a misspelt name:
# "one of: reno, cubic" (a value), "one of the fields rate, delay" and "a parameter of
# ctcp: alpha, beta" (the field's own last key).
_NAMES = re.compile(r"^(?:(one of the fields |a parameter of [^:]+: )|one of:? )(.+)$")


def suggestion(field: str, value: object, allowed: str) -> str:
    """'; did you mean "X"?' for a value or key misspelt from the names `allowed` lists."""
    from hscc.suggest import did_you_mean

    m = _NAMES.match(allowed)
    if m is None:
        return ""
    names = [n.strip().strip('"') for n in re.split(r",\s*|\s+or\s+", m.group(2)) if n.strip()]
    if m.group(1):  # a key the format does not have: the field's last part is the misspelt one
        parts = [p for p in field_parts(field) if not p.isdigit()]
        word = parts[-1] if parts else field
    elif isinstance(value, str):
        word = value.strip('"')
    else:
        return ""
    return did_you_mean(word, names) if word not in names else ""


def _where(source: str | None, field: str) -> str:
    """ " (line L, column C)" of the key that `field` ends with in the file `source`: where
    that key is written once there, or once in the entry of an array of tables the field
    names ("flows[2].algorithm": the third [[flows]]); empty otherwise (the TOML reader
    keeps no positions)."""
    parts = field_parts(field)
    names = [p for p in parts if not p.isdigit()]
    if not source or not names or not source.endswith(".toml"):
        return ""
    try:
        with open(source, encoding="utf-8") as f:
            lines = f.read(1 << 20).splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    key = re.compile(
        rf"(?:^\s*\[{{1,2}}\s*|^\s*|[{{,]\s*)({re.escape(names[-1])})\s*(?:=|\]{{1,2}})"
    )
    found = _keys(key, lines, range(len(lines)))
    if len(found) > 1:
        found = _keys(key, lines, _entry(lines, parts))
    if len(found) != 1:
        return ""
    line, column = found[0]
    return f" (line {line}, column {column})"


def _keys(key: re.Pattern[str], lines: list[str], numbers: range) -> list[tuple[int, int]]:
    """(line, column) of each match of `key` on the lines `numbers` (from 0), comments left out."""
    return [(n + 1, m.start(1) + 1) for n in numbers for m in key.finditer(lines[n].split("#")[0])]


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]")


def _entry(lines: list[str], parts: list[str]) -> range:
    """The lines of the entry of an array of tables that `parts` index last
    (["flows", "2", "algorithm"]: from the third [[flows]] up to the next header that
    is not one of its sub-tables); empty when the file has no such entry."""
    at = max((i for i, p in enumerate(parts) if p.isdigit()), default=None)
    if at is None:
        return range(0)
    table, index = ".".join(parts[:at]), int(parts[at])
    seen, start = -1, None
    for n, line in enumerate(lines):
        m = _HEADER.match(line)
        if m is None:
            continue
        name = m.group(2).replace(" ", "")
        if start is not None and not name.startswith(table + "."):
            return range(start, n)
        if m.group(1) == "[[" and name == table:
            seen += 1
            if seen == index:
                start = n
    return range(start, len(lines)) if start is not None else range(0)


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


def died_because(programs: list[str]) -> str:
    """Why a process that ran a scenario may have died where no error could be raised, as a
    parenthesis: killed, out of memory, or one of `programs` (file names) doing what a
    hook's fault report cannot catch."""
    if not programs:
        return "(killed, or out of memory)"
    return (
        f"(killed, or out of memory; or {', '.join(programs)} wrote outside the memory a "
        "program may use or ended the process, which a hook's fault report cannot catch: the "
        "kernel's verifier refuses such a program and names the line, `hscc kernel load` "
        "shows it)"
    )


class _Raw(str):
    """A value already formatted by the engine."""


def show(value: object) -> str:
    """A value as it would be written in a scenario file; all but text cut at 80 characters."""
    text = _written(value)
    if isinstance(value, (str, _Raw)) or len(text) <= 80:
        return text
    return text[:77] + "..."


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _written(value: object) -> str:
    """`show` without the length cap: lists and tables in TOML's inline form."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_written(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        pairs = (
            f"{k if _BARE_KEY.match(str(k)) else _written(str(k))} = {_written(v)}"
            for k, v in value.items()
        )
        return "{ " + ", ".join(pairs) + " }"
    return repr(value)

"""Program files as read: those a scenario names (`named`), each with the headers it
includes from beside it and their digest (`read`), which a run's manifest records; and a
sweep's, which travel with its runs.

When a sweep is planned, each program file its scenarios name (`algorithm = "mycc.bpf.c"`)
is read once, with the headers of its own it includes, and every task that runs it carries
that text. A worker that reads the same text at the same paths builds the file where it is;
one that cannot (a Dask worker on another machine, or the file since moved, deleted or
edited) writes the text into its own program cache, `<cache>/sources/DIGEST/`, under the
file's absolute path, and builds that copy. Every run is then of the code the sweep was
planned with, and the run's cache key names that code by its digest.

The headers shipped are those the C compiler would read from beside the program: an
`#include "NAME"` found relative to the including file's directory (the compiler looks
there first, then in the shim's headers and the system's), followed through the headers it
finds. `#include <NAME>` never reads from beside the program, and a header named by a macro
cannot be found by reading the text: such a header is not shipped.

What the worker ran is reported as the original: the run's manifest names the original
path, and an error naming the copy's path names the original's.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hscc import _core
from hscc.scenario import names_program

MAX_BYTES = 4 << 20  # a program and its headers together; each task carries them
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_ENTRIES = ("flows", "web")  # the scenario's lists whose entries name an algorithm


class ProgramSourceError(ValueError):
    """A program file (or a header it includes) that cannot be read to send to the workers."""


@dataclass(frozen=True)
class Source:
    """A program file as the sweep read it: its absolute path, the digest of its text and
    its headers', and each file's (absolute path, bytes), the program first."""

    path: str
    digest: str
    files: tuple[tuple[str, bytes], ...]

    def on_disk(self) -> bool:
        """Whether every file reads here, at its path, as the sweep read it."""
        try:
            return all(Path(p).read_bytes() == data for p, data in self.files)
        except OSError:
            return False


def named(scenario: dict[str, Any]) -> list[str]:
    """The program files `scenario` (a checked scenario: paths absolute) names, in order."""
    out: list[str] = []
    for key in _ENTRIES:
        for e in scenario.get(key) or []:
            a = e.get("algorithm") if isinstance(e, dict) else None
            if names_program(a) and a not in out:
                out.append(a)
    return out


def read(
    path: str, purpose: str = "to send to the sweep's workers", limit: int | None = MAX_BYTES
) -> Source:
    """The program at `path` (absolute) and the headers it includes from beside it, at most
    `limit` bytes together; the error for a file that cannot be read says what it was read
    for (`purpose`)."""
    import hashlib  # here: a run without program files needs none of it

    files: dict[str, bytes] = {}
    todo = [Path(path)]
    total = 0
    while todo:
        f = todo.pop(0)
        try:
            data = f.read_bytes()
        except OSError as e:
            via = "" if str(f) == path else f" (included by {path} or one of its headers)"
            raise ProgramSourceError(f"cannot read {f}{via} {purpose}: {e.strerror or e}") from None
        total += len(data)
        if limit is not None and total > limit:
            raise ProgramSourceError(
                f"{path} and the headers it includes are more than {MAX_BYTES >> 20} MiB "
                "(every task of the sweep carries them): the program's own headers, at most that"
            )
        files[str(f)] = data
        for m in _INCLUDE.finditer(data):
            name = m.group(1).decode(errors="replace")
            header = Path(os.path.normpath(f.parent / name))
            if header.is_file() and str(header) not in files and header not in todo:
                todo.append(header)
    h = hashlib.sha256()
    for p, data in files.items():
        for part in (p.encode(), data):
            h.update(len(part).to_bytes(8, "little"))
            h.update(part)
    return Source(path, h.hexdigest(), tuple(files.items()))


def collect(scenarios: Iterable[dict[str, Any]]) -> dict[str, Source]:
    """Each program file the scenarios name, read once (ProgramSourceError if one cannot be)."""
    out: dict[str, Source] = {}
    for sc in scenarios:
        for p in named(sc):
            if p not in out:
                out[p] = read(p)
    return out


def cache_root() -> Path:
    """Where built programs are kept, as the engine finds it (hscc_program::cache_dir)."""
    return Path(_core.program_cache_dir())


def copy_of(source: Source) -> str:
    """The path of the program's copy in this machine's cache, written if missing: every file
    under `<cache>/sources/DIGEST/` at its absolute path, so a header is where the program's
    `#include` finds it. Written beside and renamed into place, so that a reader never sees
    half a copy and two workers writing one both succeed."""
    import tempfile  # here: a run without program files needs none of it

    root = cache_root() / "sources"
    final = root / source.digest[:32]
    program = final / source.path.lstrip("/")
    if program.is_file():
        return str(program)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{source.digest[:32]}-", dir=root))
    try:
        for p, data in source.files:
            target = tmp / p.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            tmp.rename(final)
        except OSError:
            if not program.is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(program)


def localize(
    scenario: dict[str, Any], sources: dict[str, Source]
) -> tuple[dict[str, Any], dict[str, str]]:
    """`scenario` with each program file that does not read here (it or a header of its own)
    as the sweep read it replaced by its copy in the cache; and the replacements, copy →
    original."""
    moved: dict[str, str] = {}
    for p in named(scenario):
        s = sources.get(p)
        if s is not None and not s.on_disk():
            moved[copy_of(s)] = p
    if not moved:
        return scenario, moved
    back = {original: copy for copy, original in moved.items()}
    return renamed(scenario, back), moved


def renamed(scenario: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`scenario` with each algorithm in `names` replaced by its value there (a copy: the
    lists changed are new, the rest shared)."""

    def entries(es: Any) -> Any:
        if not isinstance(es, list):
            return es
        return [
            {**e, "algorithm": names[e["algorithm"]]}
            if isinstance(e, dict) and e.get("algorithm") in names
            else e
            for e in es
        ]

    return {k: entries(v) if k in _ENTRIES else v for k, v in scenario.items()}


def told_as_original(message: str, moved: dict[str, str]) -> str:
    """`message` with each copy's path (and its directory's) named as the original's."""
    for copy, original in moved.items():
        message = message.replace(copy, original)
        message = message.replace(str(Path(copy).parent), str(Path(original).parent))
    return message

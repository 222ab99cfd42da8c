"""Where a run came from: versions, the source revision, the machine."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from hscc import _core


def version() -> str:
    """hscc's version: the package's, which maturin takes from the extension crate's
    Cargo.toml, as the engine's is (reading the installed metadata costs a run 20 ms)."""
    return _core.engine_version()


@lru_cache(maxsize=1)
def git_revision() -> dict[str, Any] | None:
    """{"commit", "dirty"} of the hscc source tree this package runs from, or None."""
    return revision_of(Path(__file__).resolve().parent)


def revision_of(start: Path) -> dict[str, Any] | None:
    """{"commit", "dirty"} of the hscc source tree holding `start`, or None (not in a git
    work tree, one that is not hscc's, no commit yet, or git missing or failing). Dirty:
    a tracked file differs from HEAD (staged or not); untracked files do not count."""
    top = _work_tree(start)
    if top is None or not (top / "crates" / "hscc-sim").is_dir():
        return None  # an installed copy, or some other repository around one
    try:
        # One process for both (a run's start-up pays for each): the header line
        # "# branch.oid <commit>" ("(initial)" before the first commit), then one line
        # per tracked file that differs from HEAD.
        status = _git(
            top, "status", "--porcelain=v2", "--branch", "--no-ahead-behind", "--untracked-files=no"
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = status.splitlines()
    commit = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), None)
    if commit is None or commit == "(initial)":
        return None
    return {"commit": commit, "dirty": any(not line.startswith("#") for line in lines)}


def _work_tree(start: Path) -> Path | None:
    """The top of the git work tree holding `start`, found as git finds it: the nearest
    directory with a `.git` (a directory, or a file in a linked worktree or submodule)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def describe_revision(git: dict[str, Any] | None) -> str:
    """A git revision for people: "git 0123456789ab" (+ " with local changes"), or "no git revision"."""
    if not git:
        return "no git revision"
    return f"git {git['commit'][:12]}{' with local changes' if git['dirty'] else ''}"


def environment() -> dict[str, Any]:
    return {
        "hscc_version": version(),
        "engine_version": _core.engine_version(),
        "engine_digest": _core.engine_digest(),
        "git": git_revision(),
        "python": platform.python_version(),
        "platform": platform_name(),
    }


@lru_cache(maxsize=1)
def platform_name() -> str:
    """`platform.platform()`, as "Linux-6.1.0-x86_64-with-glibc2.36", without the `uname -p`
    process Python starts for the processor field (a run's start-up pays for it): on Linux
    (GNU coreutils) `uname -p` says "unknown" or the machine, and the name shows neither."""
    if not sys.platform.startswith("linux"):
        return platform.platform()
    u = os.uname()
    libc, version = platform.libc_ver()
    parts = (u.sysname, u.release, u.machine, "with", libc + version)
    name = "-".join(p.strip() for p in parts if p.strip())
    for c in ' /\\:;"()':  # platform._platform's cleaning, in its order
        name = name.replace(c, "_" if c == " " else "-")
    name = name.replace("unknown", "")
    while "--" in name:
        name = name.replace("--", "-")
    return name.rstrip("-")


def programs(scenario: dict[str, Any]) -> dict[str, str]:
    """The program files `scenario` (checked: paths absolute) names -> the SHA-256 of their
    code as read now: the file's text and that of each header it includes from beside it,
    by its path relative to the file's directory (so a copy elsewhere, a sweep worker's,
    gives the same). Two runs that record the same digest ran the same code; a file that
    cannot be read any more is left out."""
    import hashlib  # here: only a run of program files records digests

    from hscc.program_files import ProgramSourceError, named, read

    out = {}
    for path in named(scenario):
        try:
            source = read(path, "to record its digest", limit=None)
        except ProgramSourceError:
            continue
        h = hashlib.sha256()
        for p, data in source.files:
            for part in (os.path.relpath(p, Path(path).parent).encode(), data):
                h.update(len(part).to_bytes(8, "little"))
                h.update(part)
        out[path] = h.hexdigest()
    return out


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
    )
    return out.stdout

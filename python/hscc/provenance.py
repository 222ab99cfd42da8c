"""Where a run came from: versions, the source revision, the machine."""

from __future__ import annotations

import platform
import subprocess
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
    here = Path(__file__).resolve().parent
    try:
        top = _git(here, "rev-parse", "--show-toplevel")
        if not (Path(top) / "crates" / "hscc-sim").is_dir():
            return None  # some other repository around an installed copy
        commit = _git(here, "rev-parse", "HEAD")
        dirty = bool(_git(here, "status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit, "dirty": dirty}


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
        "platform": platform.platform(),
    }


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
    )
    return out.stdout.strip()

"""Figures drawn again only when what they show, or the code that draws them, changed: a
sweep or a reproduction run again with nothing new (every run cached) rewrites no image,
which makes a cached `hscc reproduce all` take seconds rather than minutes.

A figure's key is a digest of the data it shows, its size and format, and the source of
the modules that draw figures; it is kept in a hidden file beside the images."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from hscc.atomic import write_bytes

_KEY_FILE = ".figures.key"
# Every module whose code decides how a figure looks.
_DRAWING = ("hscc.style", "hscc.units_table", "hscc.sweeps.plot", "hscc.reproduce.figure")


def key(*parts: str | bytes) -> str:
    """The digest of `parts` and of the drawing modules' source."""
    from importlib.util import find_spec

    h = hashlib.sha256()
    for (
        name
    ) in _DRAWING:  # found, not imported: a figure that need not be drawn needs no matplotlib
        spec = find_spec(name)
        h.update(Path(spec.origin if spec and spec.origin else name).read_bytes())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def fresh(directory: Path, digest: str, paths: Iterable[Path]) -> bool:
    """Whether every file of `paths` exists and was drawn from what `digest` keys."""
    try:
        stored = (directory / _KEY_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return stored == digest and all(p.is_file() for p in paths)


def remember(directory: Path, digest: str) -> None:
    """Record that the files in `directory` were drawn from what `digest` keys."""
    write_bytes(directory / _KEY_FILE, digest.encode("ascii") + b"\n")

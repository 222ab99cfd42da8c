"""Run directories: how hscc recognises its own and writes them without touching anything else.

A run directory is recognised by its ``manifest.json``: a JSON object with
``"kind": "hscc.run"`` and a known ``format`` (format 1, written before the
marker existed, by its own set of keys). Formats 1 and 2 also hold the
engine's configuration (``engine_config``); format 3 leaves it out, as the
scenario resolves to it, and its summary.json leaves out the links no packet
reached (``idle_links`` counts them; links.parquet has every row). hscc reads
all three and writes format 3. hscc replaces a run directory only
when asked to (``overwrite``) and only if everything in it is a file hscc
writes there; it never deletes or replaces anything else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hscc.atomic import NotWritable, atomic_dir

KIND = "hscc.run"
FORMAT = 3
_READ_FORMATS = (2, FORMAT)  # with the marker
FRAMES = ("flows", "links", "udp", "web", "timeseries", "queues")
FILES = ("manifest.json", "summary.json", *(f"{n}.parquet" for n in FRAMES))
PLOTS = (
    "plot.png",
    "plot.svg",
    "plot.pdf",
    "plot_cc_log.png",
    "plot_cc_log.svg",
    "plot_cc_log.pdf",
)  # written into the run directory by `hscc plot`
CC_LOG = "cc_log.parquet"  # the per-ACK log, when the scenario asks for it
OPTIONAL = (CC_LOG,)
DROPS = "drops.parquet"  # the captured links' drop log, with packet captures
CAPTURE = re.compile(
    r"(flow|link)-[0-9]+-[A-Za-z0-9._-]+\.pcap"
)  # `[output] pcap` files (docs/traces.md)
OWNED = frozenset(FILES + PLOTS + OPTIONAL + (DROPS,))
_FORMAT_1_KEYS = {"format", "hscc_version", "engine_version", "scenario", "engine_config"}
_MAX_MANIFEST_BYTES = 64 << 20


class RunDirError(ValueError):
    """A directory that is not a complete hscc run directory, or may not be written."""


def owned(name: str) -> bool:
    """Whether `name` is a file hscc writes in a run directory."""
    return name in OWNED or CAPTURE.fullmatch(name) is not None


def marker() -> dict[str, Any]:
    """The manifest keys that mark a run directory as hscc's."""
    return {"kind": KIND, "format": FORMAT}


def json_manifest(directory: Path) -> dict[str, Any] | None:
    """`directory`/manifest.json as a JSON object, or None (missing, a link, too large, not JSON)."""
    path = Path(directory) / "manifest.json"
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _MAX_MANIFEST_BYTES:
            return None
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    """The manifest of an hscc run directory, or None if `run_dir` is not one."""
    manifest = json_manifest(run_dir)
    if manifest is None:
        return None
    if manifest.get("kind") == KIND and manifest.get("format") in _READ_FORMATS:
        return manifest
    if manifest.get("format") == 1 and _FORMAT_1_KEYS <= manifest.keys():
        return manifest
    return None


def check_target(run_dir: Path, overwrite: bool) -> None:
    """RunDirError unless `run_dir` may be written: absent, an empty directory, or (with
    `overwrite`) an hscc run directory holding nothing but what hscc writes there."""
    run_dir = Path(run_dir)
    if not run_dir.exists() and not run_dir.is_symlink():
        return
    if run_dir.is_symlink() or not run_dir.is_dir():
        raise RunDirError(f"{run_dir} exists and is not a directory; refusing to replace it")
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir())
    if not entries:
        return
    if read_manifest(run_dir) is None:
        raise RunDirError(
            f"{run_dir} exists and is not an hscc run directory; refusing to replace it"
        )
    foreign = [e for e in entries if not owned(e)]
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise RunDirError(
            f"{run_dir} holds files hscc did not write ({shown}); refusing to replace it"
        )
    if not overwrite:
        raise RunDirError(
            f"{run_dir} holds a previous run; pass --overwrite (overwrite=True) to replace it"
        )


@contextmanager
def staging(run_dir: Path, overwrite: bool = False) -> Iterator[Path]:
    """A directory to fill that becomes `run_dir` atomically on success.

    Checks `run_dir` first, and creates the staging directory beside it at once,
    so an impossible or unwritable target is found before a long run, not after.
    """
    run_dir = Path(run_dir)
    try:
        with atomic_dir(run_dir, lambda d: check_target(d, overwrite)) as tmp:
            yield tmp
    except NotWritable as e:
        raise RunDirError(
            f"{run_dir}: cannot write a run directory there ({e.strerror or e})"
        ) from None

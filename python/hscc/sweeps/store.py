"""Where a sweep keeps its finished runs: one run directory per cache key.

A run is stored once, atomically (``hscc.atomic``), under its key; a key that
is there is never computed again. A directory being written when its writer
died is hidden and unlocked, and the next write into the store removes it, so a
killed sweep leaves no half runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from hscc.atomic import atomic_dir
from hscc.results import WEB, Result, load
from hscc.rundir import FILES, RunDirError, read_manifest
from hscc.sweeps.metrics import row


class RunStore:
    """Run directories by cache key under `root`."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key

    def has(self, key: str) -> bool:
        d = self.path(key)
        return read_manifest(d) is not None and all((d / f).is_file() for f in FILES)

    def save(self, key: str, files: dict[str, bytes]) -> Path:
        """Store a run's files under `key` (nothing is done if another writer stored it first)."""
        target = self.path(key)
        if self.has(key):
            return target
        try:
            with atomic_dir(target, _absent, clean=False) as tmp:  # the sweep cleaned the store once, at its start
                for name, data in files.items():
                    (tmp / name).write_bytes(data)
        except _Present:
            pass  # stored meanwhile by another sweep sharing the store
        return target

    def load(self, key: str) -> Result:
        return load(self.path(key))

    def metrics(self, key: str) -> dict:
        """A stored run's metrics row, from its summary.json (and web.parquet when it has
        web sources) rather than all its files: a cached run costs well under a millisecond."""
        d = self.path(key)
        try:
            summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
            web = pl.read_parquet(d / "web.parquet") if summary["web"] else pl.DataFrame(schema=WEB)
        except (OSError, ValueError, KeyError, pl.exceptions.PolarsError) as e:
            raise RunDirError(f"{d}: unreadable stored run: {e}") from None
        return row(summary, web)


class _Present(RunDirError):
    pass


def _absent(target: Path) -> None:
    if target.exists() or target.is_symlink():
        raise _Present(f"{target} exists")

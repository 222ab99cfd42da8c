"""Where a sweep keeps its finished runs: one run directory per cache key.

A run is stored once, atomically (``hscc.atomic``), under its key; a key that
is there is never computed again. A directory being written when its writer
died is hidden and unlocked, and the next sweep into the same directory removes
it when it starts (``sweepdir.prepare``), so a killed sweep leaves no half runs.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import polars as pl

from hscc.atomic import atomic_dir, fsync_dir, sync_dirs
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

    def save(self, runs: dict[str, dict[str, bytes]]) -> None:
        """Store runs (key → files), each atomically, with one flush to disk for all of
        them: a run is visible only once its files are durable. A key already stored
        (by another sweep sharing the store) is left as it is."""
        with ExitStack() as stack:
            staged = []
            for key, files in runs.items():
                if self.has(key):
                    continue
                # Cleaned once, when the sweep began. A run another sweep stores meanwhile
                # is replaced by this one: the same key, the same numbers.
                tmp = stack.enter_context(atomic_dir(self.path(key), _any, clean=False, sync=False))
                for name, data in files.items():
                    (tmp / name).write_bytes(data)
                staged.append(tmp)
            sync_dirs(staged)
        # Leaving the stack renamed each run into place; make the renames durable too.
        fsync_dir(self.root)

    def load(self, key: str) -> Result:
        return load(self.path(key))

    def metrics(self, key: str) -> dict[str, Any]:
        """A stored run's metrics row, from its summary.json (and web.parquet when it has
        web sources, links.parquet when summary.json left idle links out) rather than all
        its files: a cached run costs well under a millisecond."""
        d = self.path(key)
        try:
            summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
            web = pl.read_parquet(d / "web.parquet") if summary["web"] else pl.DataFrame(schema=WEB)
            return row(summary, lambda: web, lambda: pl.read_parquet(d / "links.parquet"))
        except (OSError, ValueError, KeyError, pl.exceptions.PolarsError) as e:
            raise RunDirError(f"{d}: unreadable stored run: {e}") from None


def _any(target: Path) -> None:
    """Any target may be written: a key's run is the same whoever stores it."""

"""Where a sweep keeps its finished runs: one run directory per cache key.

A run is stored once, atomically (``hscc.atomic``), under its key; a key that
is there is never computed again. A directory being written when its writer
died is hidden and unlocked, and the next sweep into the same directory removes
it when it starts (``sweepdir.prepare``), so a killed sweep leaves no half runs.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from hscc.atomic import fsync_dir, staging_dir, sync_dirs
from hscc.results import WEB, Result, load
from hscc.rundir import FILES, RunDirError, read_manifest
from hscc.sweeps.metrics import row


def write_run(run: str, files: dict[str, bytes]) -> None:
    """Write a run's files into a new directory `run` (strings: pathlib costs more than
    the writes), inside a staging directory; one an attempt that died left there is
    replaced. What could not be written whole is removed again."""
    try:
        os.mkdir(run)
    except FileExistsError:
        shutil.rmtree(run)
        os.mkdir(run)
    try:
        for name, data in files.items():
            with open(os.path.join(run, name), "wb") as f:
                f.write(data)
    except BaseException:
        shutil.rmtree(run, ignore_errors=True)
        raise


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
        them: written into one staging directory (`staging`), then `place`d."""
        runs = {k: files for k, files in runs.items() if not self._stored(k)}
        if not runs:
            return
        with self.staging() as staging:
            for key, files in runs.items():
                write_run(os.path.join(staging, key), files)
            self.place(staging, list(runs))

    @contextmanager
    def staging(self) -> Iterator[str]:
        """A staging directory in the store, for runs written as `staging/key`
        (`write_run`, by this process or by workers on this machine) and then `place`d;
        removed on exit with whatever it still holds."""
        self.root.mkdir(parents=True, exist_ok=True)
        with staging_dir(self.root, "runs") as staging:
            yield str(staging)

    def place(self, staging: str, keys: list[str]) -> None:
        """Make the runs `keys`, written whole into `staging`, durable and visible: one
        flush to disk for all of them, so that a run is visible only once its files are
        durable, then each renamed into place (a directory of its own with its locks per
        run cost the sweep's process more than the files). A key already stored (by
        another sweep sharing the store) is left as it is; a key whose directory is not a
        whole run (a file removed by hand) is replaced."""
        keys = [k for k in keys if not self._stored(k)]
        if not keys:
            return
        sync_dirs([Path(staging)])
        for key in keys:
            self._place(Path(staging), key)
        fsync_dir(self.root)  # the renames durable too

    def _stored(self, key: str) -> bool:
        return os.path.lexists(self.path(key)) and self.has(key)

    def _place(self, staging: Path, key: str) -> None:
        """Rename `staging / key` into place; a target there already is kept if it is a
        whole run (the same key, the same numbers), else moved into `staging` to go with it."""
        target = self.path(key)
        try:
            os.rename(staging / key, target)
            return
        except OSError:
            if not (target.exists() or target.is_symlink()):
                raise
        if self.has(key):
            return
        os.rename(target, staging / f"{key}.replaced")
        os.rename(staging / key, target)

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

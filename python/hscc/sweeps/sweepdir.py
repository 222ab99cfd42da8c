"""Sweep directories: what ``hscc sweep --out DIR`` writes, and how hscc knows its own.

    DIR/manifest.json     "kind": "hscc.sweep"; versions, git revision, the sweep file as run (its text),
                          the axes and their values, the base scenario (checked), replicates, seed
    DIR/points.parquet    one row per run (SweepResult.points)
    DIR/summary.parquet   mean, std and confidence interval per point and metric
    DIR/runs/KEY/         each run's own run directory, by cache key (the store)
    DIR/plots/*.png       each metric against the first axis; none for a sweep of one point

The manifest is written first, so a directory holding runs is always marked as
hscc's and a killed sweep can be resumed in it. Running a sweep again into its
directory resumes it: stored runs are reused, the tables, plots and manifest are
replaced by the new sweep's (they are made from the stored runs, so nothing is
lost). hscc refuses a directory that is neither empty nor a sweep directory.
"""

from __future__ import annotations

import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from hscc import provenance
from hscc.atomic import clean_stale, write_bytes
from hscc.rundir import RunDirError, json_manifest
from hscc.sweeps.result import SweepResult
from hscc.sweeps.spec import Sweep
from hscc.sweeps.store import RunStore

if TYPE_CHECKING:
    from hscc.sweeps.plot import Renderer

KIND = "hscc.sweep"
FORMAT = 1
RUNS = "runs"
PLOTS = "plots"
OWNED = {"manifest.json", "points.parquet", "summary.parquet", RUNS, PLOTS}


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of a sweep directory, or None if `directory` is not one."""
    manifest = json_manifest(directory)
    if manifest is not None and manifest.get("kind") == KIND and manifest.get("format") == FORMAT:
        return manifest
    return None


def check(directory: Path) -> None:
    """RunDirError unless `directory` may hold a sweep: absent, empty, or a sweep directory
    holding nothing but what hscc writes there."""
    directory = Path(directory)
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        raise RunDirError(f"{directory} exists and is not a directory; refusing to use it")
    if directory.is_dir() and any(directory.iterdir()):
        if read_manifest(directory) is None:
            raise RunDirError(
                f"{directory} exists and is not an hscc sweep directory; refusing to write into it"
            )
        foreign = sorted(
            p.name
            for p in directory.iterdir()
            if p.name not in OWNED and not p.name.startswith(".")
        )
        if foreign:
            raise RunDirError(
                f"{directory} holds files hscc did not write ({', '.join(foreign[:5])}); refusing to write into it"
            )


def prepare(directory: Path, sweep: Sweep, axes_columns: list[list[str]], runs: int) -> RunStore:
    """Check `directory` (see `check`), mark it as a sweep directory and return its store."""
    directory = Path(directory)
    check(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_manifest(directory, sweep, axes_columns, runs, None)
        (directory / RUNS).mkdir(exist_ok=True)
        clean_stale(directory / RUNS)  # half-written runs of a killed sweep
    except OSError as e:
        raise RunDirError(
            f"{directory}: cannot write a sweep directory there ({e.strerror or e})"
        ) from None
    return RunStore(directory / RUNS)


def write_manifest(
    directory: Path, sweep: Sweep, axes_columns: list[list[str]], runs: int, failed: int | None
) -> None:
    manifest = {
        "kind": KIND,
        "format": FORMAT,
        "name": sweep.name,
        "description": sweep.description,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **provenance.environment(),
        "sweep_file": sweep.source,
        "sweep": sweep.text,
        "axes": axes_columns,
        "values": {m.path: list(m.values) for a in sweep.axes for m in a.members},
        "replicates": sweep.replicates,
        "seed": sweep.seed,
        "base": sweep.base,
        "runs": runs,
        "complete": failed is not None,
        "failed": failed,
    }
    write_bytes(directory / "manifest.json", (json.dumps(manifest, indent=2) + "\n").encode())


def write_tables(directory: Path, result: SweepResult) -> None:
    """points.parquet and summary.parquet, each replaced atomically."""
    for name, frame in (("points", result.points), ("summary", result.summary())):
        buf = io.BytesIO()
        frame.write_parquet(buf)
        write_bytes(Path(directory) / f"{name}.parquet", buf.getvalue())


def has_plots(result: SweepResult) -> bool:
    """Whether a sweep's directory holds plots: not for one point (no axes, or one value on
    each), whose figures would each be a single dot with the numbers summary.parquet holds,
    for over a second of importing matplotlib and drawing."""
    return result.points["point"].n_unique() > 1


def write_plots(directory: Path, result: SweepResult, renderer: Renderer | None = None) -> None:
    """DIR/plots/, redrawn only if what they show changed; removed for a sweep of one point
    (`has_plots`), so that no plots of the sweep the directory held before lie beside its
    tables. `renderer`: who draws them (`plot.plot`'s)."""
    plots = Path(directory) / PLOTS
    if has_plots(result):
        from hscc.sweeps import plot  # a sweep of one point draws nothing: no matplotlib style

        plot.plot(result, plots, renderer=renderer)
    elif plots.is_dir() and not plots.is_symlink():
        shutil.rmtree(plots)


def load(directory: str | Path) -> SweepResult:
    """A sweep directory's results (RunDirError if it is not a complete one)."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    if manifest is None:
        raise RunDirError(f"{directory} is not an hscc sweep directory (no sweep manifest.json)")
    if not manifest.get("complete") or not (directory / "points.parquet").is_file():
        raise RunDirError(
            f"{directory}: the sweep did not finish; run it again with the same --out to resume it"
        )
    try:
        points = pl.read_parquet(directory / "points.parquet")
    except (OSError, pl.exceptions.PolarsError) as e:
        raise RunDirError(f"{directory}: unreadable sweep directory: {e}") from None
    return SweepResult(points, manifest["axes"], RunStore(directory / RUNS), directory)

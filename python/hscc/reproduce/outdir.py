"""Reproduction directories: what ``hscc reproduce NAME|all --out DIR`` writes, and how hscc knows its own.

One experiment (``hscc reproduce NAME``)::

    DIR/manifest.json       "kind": "hscc.reproduction"; the experiment, --quick, replicates, versions, claims
    DIR/sweep/              the sweep directory (its runs are reused when the command is run again)
    DIR/comparison.parquet  paper | hscc mean, 95 % CI | deviation | verdict, per measure, series and x
    DIR/comparison.md       the same as a Markdown table, with the claims
    DIR/values.parquet      the measure of every run (before averaging)
    DIR/figure.png          the figure redrawn the paper's way

The whole catalogue (``hscc reproduce all``)::

    DIR/manifest.json       "kind": "hscc.reproductions"
    DIR/NAME/               each experiment's directory, as above
    DIR/comparison.parquet  every experiment's cells
    DIR/report.html         self-contained report: scorecards, tables, figures, assumptions, notes

hscc refuses a directory that is neither empty nor one of these holding only what hscc wrote.
"""

from __future__ import annotations

import io
import json
from collections.abc import Set as AbstractSet
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from hscc import provenance
from hscc.atomic import write_bytes
from hscc.rundir import RunDirError, json_manifest

ONE, ALL = "hscc.reproduction", "hscc.reproductions"
FORMAT = 1
SWEEP = "sweep"
OWNED_ONE = {
    "manifest.json",
    SWEEP,
    "comparison.parquet",
    "comparison.md",
    "values.parquet",
    "figure.png",
}
OWNED_ALL = {"manifest.json", "comparison.parquet", "report.html"}


def kind(directory: Path) -> str | None:
    manifest = json_manifest(Path(directory))
    if (
        manifest is not None
        and manifest.get("kind") in (ONE, ALL)
        and manifest.get("format") == FORMAT
    ):
        found: str = manifest["kind"]
        return found
    return None


def check(directory: Path, want: str, names: AbstractSet[str] = frozenset()) -> None:
    """RunDirError unless `directory` may hold a reproduction of kind `want`: absent, empty, or
    one of that kind holding nothing but what hscc writes there (`names`: the experiments' directories)."""
    directory = Path(directory)
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        raise RunDirError(f"{directory} exists and is not a directory; refusing to use it")
    if not directory.is_dir() or not any(directory.iterdir()):
        return
    found = kind(directory)
    if found != want:
        what = {
            ONE: "the reproduction of one experiment",
            ALL: "a reproduction of the whole catalogue",
        }
        raise RunDirError(
            f"{directory} exists and is not {what[want]} (hscc reproduce wrote it? "
            f"{'it holds ' + what[found] if found else 'no'}); refusing to write into it"
        )
    owned = OWNED_ONE if want == ONE else OWNED_ALL | set(names)
    foreign = sorted(
        p.name for p in directory.iterdir() if p.name not in owned and not p.name.startswith(".")
    )
    if foreign:
        raise RunDirError(
            f"{directory} holds files hscc did not write ({', '.join(foreign[:5])}); refusing to write into it"
        )


def write_manifest(directory: Path, kind_: str, body: dict[str, Any]) -> None:
    manifest = {
        "kind": kind_,
        "format": FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **provenance.environment(),
        **body,
    }
    write_bytes(
        Path(directory) / "manifest.json",
        (json.dumps(manifest, indent=2, default=str) + "\n").encode(),
    )


def write_parquet(path: Path, frame: pl.DataFrame) -> None:
    buf = io.BytesIO()
    frame.write_parquet(buf)
    write_bytes(path, buf.getvalue())

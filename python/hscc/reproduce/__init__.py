"""The papers' experiments, rerun: each one a base scenario, a sweep, the paper's metric
and the published numbers (``experiments/PAPER/NAME.toml``), compared cell by cell.

    import hscc.reproduce as rep
    rep.catalogue()                                   # every experiment
    r = rep.reproduce("ctcp-table2", quick=True, out="repro/ctcp-table2")
    r.table                                           # paper | hscc mean, CI | deviation | verdict
    r.claims                                          # the paper's qualitative claims, checked
    rep.reproduce_all("repro/all", quick=True)        # every experiment and report.html

The same from the command line: ``hscc reproduce list``, ``hscc reproduce NAME --out DIR``,
``hscc reproduce all --out DIR`` (docs/reproductions.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from hscc import figure_cache
from hscc.atomic import write_bytes
from hscc.reproduce import compare, measures, outdir, tables
from hscc.reproduce.compare import VERDICTS, ClaimResult
from hscc.reproduce.experiment import (
    PAPERS,
    Experiment,
    ExperimentError,
    Variant,
    catalogue,
    find,
    load,
)
from hscc.reproduce.measures import MeasureError
from hscc.rundir import RunDirError
from hscc.sweeps import SweepResult
from hscc.sweeps import run as run_sweep
from hscc.sweeps.execute import Progress
from hscc.sweeps.spec import Sweep, SweepError
from hscc.sweeps.spec import parse as parse_sweep

__all__ = [
    "PAPERS",
    "ClaimResult",
    "Experiment",
    "ExperimentError",
    "MeasureError",
    "Reproduction",
    "RunDirError",
    "Variant",
    "catalogue",
    "find",
    "load",
    "reproduce",
    "reproduce_all",
    "resolve",
]


@dataclass
class Reproduction:
    """One experiment rerun: ``table`` (compare.SCHEMA), ``claims``, ``values`` (the measure
    of every run), the sweep's result, and how long it took."""

    experiment: Experiment
    quick: bool
    table: pl.DataFrame
    claims: list[ClaimResult]
    values: pl.DataFrame
    sweep: SweepResult
    wall_time_s: float
    figure: bytes = field(repr=False, default=b"")
    variant: Variant | None = None

    @property
    def failed_runs(self) -> int:
        return self.sweep.failed.height

    def counts(self) -> dict[str, int]:
        """Cells by verdict, the paper's claims held / checked, and hscc's design checks
        held / checked."""
        verdicts = self.table["verdict"].drop_nulls().to_list()
        out = {v: verdicts.count(v) for v in VERDICTS}
        paper = [c for c in self.claims if not c.design]
        design = [c for c in self.claims if c.design]
        out["claims_held"] = sum(c.holds for c in paper)
        out["claims"] = len(paper)
        out["design_checks_held"] = sum(c.holds for c in design)
        out["design_checks"] = len(design)
        return out


def resolve(name: str | Path | Experiment) -> Experiment:
    """An experiment from its catalogue name, an experiment file, or itself (ExperimentError)."""
    if isinstance(name, Experiment):
        return name
    found = find(str(name))
    if found is not None:
        return found
    if str(name).endswith(".toml") or Path(name).is_file():
        return load(name)
    from hscc.suggest import did_you_mean

    raise ExperimentError(
        f"experiment {str(name)!r} is not in the catalogue (hscc reproduce list) nor an experiment file"
        + did_you_mean(str(name), [e.name for e in catalogue()])
    )


def reproduce(
    name: str | Path | Experiment,
    out: str | Path | None = None,
    quick: bool = False,
    replicates: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
    variant: str | None = None,
) -> Reproduction:
    """Rerun one experiment through the sweep machinery and compare it with the paper.

    With `out`, everything is written there (see outdir) and a second call reuses the stored
    runs; `quick` runs the experiment's short version; `variant` names one of the experiment's
    set-up variants to run instead of its main set-up. ExperimentError, SweepError,
    MeasureError or RunDirError before anything runs if something is wrong."""
    exp = resolve(name)
    _check_replicates(replicates)
    chosen = exp.variant(variant) if variant is not None else None
    sweep = sweep_for(exp, quick, replicates, chosen)
    return _reproduce(exp, sweep, out, quick, jobs, dask, progress, chosen)


def _reproduce(
    exp: Experiment,
    sweep: Sweep,
    out: str | Path | None,
    quick: bool,
    jobs: int | None,
    dask: str | None,
    progress: Progress | None,
    variant: Variant | None = None,
) -> Reproduction:
    """`reproduce` of an experiment whose sweep (`sweep_for`) is already checked."""
    directory = Path(out) if out is not None else None
    if directory is not None:
        outdir.check(directory, outdir.ONE)
        directory.mkdir(parents=True, exist_ok=True)
        outdir.write_manifest(
            directory, outdir.ONE, _manifest(exp, quick, sweep.replicates, None, variant)
        )
    start = time.monotonic()
    result = run_sweep(sweep, directory / outdir.SWEEP if directory else None, jobs, dask, progress)
    values = measures.per_run(exp, result.distinct_runs())  # identical replicates are one run
    table = compare.cells(exp, values)
    checked = compare.claims(exp, table, quick)
    png, digest = _figure(exp, table, directory)
    rep = Reproduction(
        exp, quick, table, checked, values, result, time.monotonic() - start, png, variant
    )
    if directory is not None:
        outdir.write_parquet(directory / "values.parquet", values)
        outdir.write_parquet(directory / "comparison.parquet", table)
        write_bytes(directory / "comparison.md", tables.markdown(rep).encode())
        if digest:
            figure_cache.remember(directory, "")  # stale while the new figure is written
            write_bytes(directory / "figure.png", rep.figure)
            figure_cache.remember(directory, digest)
        outdir.write_manifest(
            directory, outdir.ONE, _manifest(exp, quick, sweep.replicates, rep, variant)
        )
    return rep


def _figure(exp: Experiment, table: pl.DataFrame, directory: Path | None) -> tuple[bytes, str]:
    """The figure as PNG, and the digest to record when it was drawn anew (empty when the
    directory's figure.png was drawn from the same table, experiment and style: read back;
    matplotlib is then not even imported)."""
    digest = ""
    if directory is not None:
        digest = figure_cache.key(table.write_csv(), exp.model_dump_json())
        stored = directory / "figure.png"
        if figure_cache.fresh(directory, digest, [stored]):
            return stored.read_bytes(), ""
    from hscc.reproduce import figure

    return figure.png(exp, table), digest


def _check_replicates(replicates: int | None) -> None:
    if replicates is not None and not 1 <= replicates <= 1000:
        raise SweepError(f"replicates: {replicates} is not allowed (1 to 1000)")


def reproduce_all(
    out: str | Path,
    quick: bool = False,
    replicates: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    only: list[str] | None = None,
    on_start: Callable[[Experiment, int, int], Progress | None] | None = None,
) -> list[Reproduction]:
    """Every experiment of the catalogue (or those named in `only`) into OUT/NAME, then
    OUT/comparison.parquet and OUT/report.html. `on_start(experiment, k, n)` as the k-th
    of n experiments (from 1) starts: the progress bar its sweep reports to, or None."""
    from hscc.reproduce import html

    exps = [resolve(n) for n in only] if only else list(catalogue())
    directory = Path(out)
    outdir.check(directory, outdir.ALL, {e.name for e in catalogue()} | {e.name for e in exps})
    # Every experiment's sweep file is checked before the first runs, and each checked once.
    sweeps = [sweep_for(e, quick, replicates) for e in exps]
    _check_replicates(replicates)
    directory.mkdir(parents=True, exist_ok=True)
    body = {"experiments": [e.name for e in exps], "quick": quick, "complete": False}
    outdir.write_manifest(directory, outdir.ALL, body)
    done = []
    for k, (e, sw) in enumerate(zip(exps, sweeps, strict=True), 1):
        progress = on_start(e, k, len(exps)) if on_start else None
        done.append(_reproduce(e, sw, directory / e.name, quick, jobs, dask, progress))
    outdir.write_parquet(directory / "comparison.parquet", pl.concat([r.table for r in done]))
    write_bytes(directory / "report.html", html.report(done).encode())
    outdir.write_manifest(
        directory,
        outdir.ALL,
        {
            **body,
            "complete": True,
            "wall_time_s": sum(r.wall_time_s for r in done),
            "scorecard": {r.experiment.name: r.counts() for r in done},
        },
    )
    return done


def sweep_for(
    exp: Experiment, quick: bool, replicates: int | None = None, variant: Variant | None = None
) -> Sweep:
    """The experiment's checked sweep, full length or --quick, of its main set-up or a variant
    (SweepError naming the experiment). With `quick`, the full-length sweep is read and
    checked too (its replicates, axes and base), so a file that only works with --quick is
    refused at once."""
    try:
        if quick:
            parse_sweep(exp.sweep_data(False, variant=variant), source=exp.file)
        return parse_sweep(exp.sweep_data(quick, replicates, variant), source=exp.file)
    except SweepError as e:
        raise SweepError(f"experiment {exp.name}: {e}") from None


def _manifest(
    exp: Experiment,
    quick: bool,
    replicates: int,
    rep: Reproduction | None,
    variant: Variant | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "experiment": exp.name,
        "paper": exp.paper,
        "source": exp.source,
        "file": exp.file,
        "variant": variant.model_dump() if variant else None,
        "quick": quick,
        "replicates": replicates,
        "complete": rep is not None,
    }
    if rep is not None:
        body.update(
            wall_time_s=rep.wall_time_s,
            counts=rep.counts(),
            failed_runs=rep.failed_runs,
            claims=[
                {"text": c.text, "holds": c.holds, "known_miss": c.known_miss, "detail": c.detail}
                for c in rep.claims
            ],
        )
    return body

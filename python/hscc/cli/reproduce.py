"""`hscc reproduce`: a paper's experiment rerun and compared with its published numbers."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hscc import console
from hscc.cli.options import exit_codes
from hscc.cli.sweep import sweep_progress
from hscc.console import fail as _fail
from hscc.console import print_whole
from hscc.exit_codes import BAD_INPUT, FAILED
from hscc.rundir import RunDirError

if TYPE_CHECKING:
    from hscc.reproduce.experiment import Experiment
    from hscc.sweeps.execute import Progress as SweepProgress


def reproduce(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="'list', an experiment of the catalogue, 'all', or an experiment file (.toml).",
            show_default=False,
        ),
    ],
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Directory to write: new, empty, or one this command wrote (its runs are reused).",
            show_default=False,
        ),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="The short version: fewer replicates and shorter runs, enough for the direction of the result.",
        ),
    ] = False,
    replicates: Annotated[
        int | None,
        typer.Option(
            "--replicates",
            "-r",
            help="Runs per point (default: the experiment's).",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="Worker processes (default: one per core).", show_default=False
        ),
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            help="Run on a Dask cluster: its scheduler's address, or 'local'.",
            show_default=False,
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="<name>",
            help="With 'all': just these experiments (repeat the option).",
            show_default=False,
        ),
    ] = None,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant",
            metavar="<name>",
            help="Run one of the experiment's set-up variants (a choice made the other way) instead of its main set-up.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No progress bar and no tables; print only the directory."
        ),
    ] = False,
) -> None:
    """Rerun a paper's experiment and compare it with the published numbers (hscc reproduce list: the catalogue).

    Writes the comparison (paper | hscc mean and 95 % CI | deviation | verdict) as comparison.parquet
    and comparison.md, the figure redrawn the paper's way, and, for 'all', report.html. A claim of
    the paper that does not hold in hscc is reported (an honest result, exit code 0); exit code 1
    if runs failed."""
    from hscc import reproduce as rep
    from hscc.reproduce import tables

    if name == "list":
        print_whole(tables.catalogue_table(rep.catalogue()))
        return
    if jobs is not None and not 1 <= jobs <= 4096:
        raise _fail(BAD_INPUT, f"--jobs: {jobs} is not allowed (1 to 4096 worker processes)")
    if only and name != "all":
        raise _fail(BAD_INPUT, "--only: only with 'all'")
    if variant is not None and name == "all":
        raise _fail(BAD_INPUT, "--variant: only with one experiment")
    experiment = None
    if name != "all":
        try:  # a misspelt name is said, with the name meant, before a missing --out
            experiment = rep.resolve(name)
            if variant is not None:
                experiment.variant(variant)
        except rep.ExperimentError as e:
            raise _fail(BAD_INPUT, str(e)) from None
    if out_dir is None:
        raise _fail(BAD_INPUT, "--out: missing (the directory to write the reproduction into)")
    # A SweepError is a ValueError.
    bad = (rep.ExperimentError, rep.MeasureError, RunDirError, ValueError)
    with exit_codes("reproduction", out_dir, bad), ExitStack() as stack:
        if name == "all":

            def started(e: Experiment, k: int, n: int) -> SweepProgress:
                stack.close()  # the previous experiment's bar
                if not quiet:
                    console.err.print(
                        f"experiment {k} of {n}: {e.name}: {e.title} ({e.source})",
                        soft_wrap=True,
                    )
                return stack.enter_context(sweep_progress(quiet))

            done = rep.reproduce_all(out_dir, quick, replicates, jobs, dask, only, started)
        else:
            bar = stack.enter_context(sweep_progress(quiet))
            chosen = experiment or name
            done = [rep.reproduce(chosen, out_dir, quick, replicates, jobs, dask, bar, variant)]
    if quiet:
        console.out.print(str(out_dir), soft_wrap=True)
    else:
        for r in done:
            print_whole(tables.terminal(r))
        if name == "all" and tables.scorecard(done):  # not when every one is a design check
            print_whole(tables.scorecard_table(done))
        written = (
            "report.html, comparison.parquet, NAME/"
            if name == "all"
            else "comparison.md, comparison.parquet, figure.png"
        )
        console.out.print(f"results: {out_dir}/  ({written})", soft_wrap=True)
    failed = sum(r.failed_runs for r in done)
    missed = [c.text for r in done for c in r.claims if not c.holds and not c.known_miss]
    known = sum(1 for r in done for c in r.claims if not c.holds and c.known_miss)
    if failed:
        console.err.print(
            f"{failed} runs failed (their errors are in the sweep's points.parquet)", soft_wrap=True
        )
    for r in done:
        identical = r.sweep.identical_warning()
        if identical is not None:
            console.err.print(f"warning: {r.experiment.name}: {identical}", soft_wrap=True)
    if known and not quiet:
        console.err.print(
            f"{known} of the papers' claims are known not to hold in hscc (each experiment's notes say why)",
            soft_wrap=True,
        )
    if missed:
        console.err.print(
            f"{len(missed)} of the papers' claims do not hold in hscc: " + "; ".join(missed[:5]),
            soft_wrap=True,
        )
    if failed:
        raise typer.Exit(FAILED)

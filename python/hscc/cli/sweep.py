"""`hscc sweep`: a scenario over the values of some of its fields, and the sweep's
progress bar (`hscc reproduce` shows it too). A quiet sweep imports no Rich: it prints
its sweep directory as plain text and draws no bar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hscc import console
from hscc.cli.options import MaxEvents, MaxMemory, exit_codes, parse_limits
from hscc.console import fail as _fail
from hscc.console import plain, print_whole
from hscc.exit_codes import BAD_INPUT, FAILED
from hscc.rundir import RunDirError

if TYPE_CHECKING:
    from hscc.sweeps.execute import Counts
    from hscc.sweeps.execute import Progress as SweepProgress


def sweep(
    sweep_file: Annotated[
        Path,
        typer.Argument(
            metavar="SWEEP",
            help="Sweep file (TOML): a base scenario and the axes to vary; see docs/sweeps.md.",
            show_default=False,
        ),
    ],
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Sweep directory: new, empty, or one this sweep (or an earlier version of it) wrote, to resume.",
            show_default=False,
        ),
    ],
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Worker processes (default: one per core); with --dask local, its workers.",
            show_default=False,
        ),
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            help="Run on a Dask cluster: its scheduler's address (tcp://host:8786), or 'local' for a LocalCluster.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar; print only the sweep directory.")
    ] = False,
    max_memory: MaxMemory = None,
    max_events: MaxEvents = None,
) -> None:
    """Run a scenario over the values of some of its fields, with replicates: cached, resumable, in parallel.

    Runs already in the sweep directory are not run again, so a killed or extended sweep
    is resumed by running the same command. Exit code 1 if some runs failed (their errors
    are in points.parquet)."""
    from hscc import sweeps
    from hscc.sweeps import sweepdir

    if jobs is not None and not 1 <= jobs <= 4096:
        raise _fail(BAD_INPUT, f"--jobs: {jobs} is not allowed (1 to 4096 worker processes)")
    memory, events = parse_limits(max_memory, max_events)
    with exit_codes("sweep", out_dir, (sweeps.SweepError, RunDirError)):
        sw = sweeps.load_file(sweep_file)
        with sweep_progress(quiet) as bar:
            result = sweeps.run(sw, out_dir, jobs, dask, bar, memory, events)
    failed = result.failed
    if quiet:
        plain(str(out_dir))
    else:
        from hscc import report

        print_whole(report.sweep_summary(result, console.out.width))
        plots = ", plots/" if sweepdir.has_plots(result) else ""
        console.out.print(
            f"results: {out_dir}/  (points.parquet, summary.parquet{plots})", soft_wrap=True
        )
    identical = result.identical_warning()
    if identical is not None:
        console.err.print(f"warning: {identical}", soft_wrap=True)
    if failed.height:
        first = failed.row(0, named=True)
        console.err.print(
            f"{failed.height} of {result.points.height} runs failed; the first (point {first['point']}, replicate "
            f"{first['replicate']}): {first['error']}",
            soft_wrap=True,
        )
        raise typer.Exit(FAILED)


@contextmanager
def sweep_progress(quiet: bool) -> Iterator[SweepProgress]:
    """The sweep's progress callback: one bar over the runs to compute, with every count beside
    it; none when quiet (Rich's progress bars are then not imported at all)."""
    if quiet:
        yield lambda _counts: None
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        BarColumn(bar_width=15),
        TextColumn("{task.fields[counts]}", markup=False),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=console.err,
        transient=True,
        disable=not console.err.is_terminal,
    ) as progress:
        task: list[TaskID] = []

        def update(c: Counts) -> None:
            todo = (
                c.total - c.cached
            )  # cached runs are not on the bar: they would make the ETA meaningless
            counts = f"{c.done} done, {c.running} running, {c.cached} cached, {c.failed} failed; points {c.points_complete}/{c.points_total}"
            if not task:
                task.append(progress.add_task("sweep", total=max(todo, 1), counts=counts))
            progress.update(task[0], completed=c.done + c.failed if todo else 1, counts=counts)

        yield update

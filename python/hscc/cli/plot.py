"""`hscc plot`: the figure of a run or of a sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hscc import console
from hscc.console import fail as _fail
from hscc.exit_codes import BAD_INPUT, FAILED, INTERRUPTED
from hscc.rundir import RunDirError
from hscc.suggest import did_you_mean


def plot(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="Run directory written by `hscc run`, or a sweep directory written by `hscc sweep`.",
            show_default=False,
        ),
    ],
    svg: Annotated[
        bool, typer.Option("--svg", help="Also write an SVG beside each image.")
    ] = False,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Image file; .png, .pdf or .svg chooses the format. Default: RUN_DIR/plot.png. A sweep: a directory (PNG files), or DIR/NAME.pdf|.svg|.png for DIR/NAME-METRIC.EXT (default SWEEP_DIR/plots/).",
            show_default=False,
        ),
    ] = None,
    size: Annotated[
        str,
        typer.Option(
            "--size",
            help="column (3.5 x 2.6 in), wide (7.16 x 3 in) or slide (10 x 5.625 in, 16:9); more rows of panels make a figure taller.",
        ),
    ] = "slide",
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing --out file.")
    ] = False,
    aggregate: Annotated[
        bool,
        typer.Option(
            "--aggregate",
            help="A run: one line per algorithm (its flows' summed goodput, mean cwnd) instead of one per flow.",
        ),
    ] = False,
) -> None:
    """Plot a run (throughput and cwnd per flow, queuing delay over time),
    or a sweep (each metric against the first axis, into SWEEP_DIR/plots/ or --out)."""
    from hscc import style
    from hscc.plot import NoTracesError
    from hscc.plot import plot as draw
    from hscc.sweeps import sweepdir
    from hscc.sweeps.plot import plot as draw_sweep

    if size not in style.SIZES:
        raise _fail(
            BAD_INPUT,
            f"--size: {size!r} is not known (one of: {', '.join(style.SIZES)}){did_you_mean(size, style.SIZES)}",
        )
    try:
        if sweepdir.read_manifest(run_dir) is not None:
            sweep = sweepdir.load(run_dir)
            target = out_file or run_dir / sweepdir.PLOTS
            fmt, prefix = "png", ""
            if target.suffix.lower() in style.FORMATS:  # DIR/NAME.EXT: the format, a prefix
                fmt, prefix, target = style.file_format(target), target.stem, target.parent
            paths = draw_sweep(
                sweep, target, overwrite=overwrite, size=size, fmt=fmt, prefix=prefix
            )
            if svg and fmt != "svg":
                paths += draw_sweep(
                    sweep, target, overwrite=overwrite, size=size, fmt="svg", prefix=prefix
                )
        else:
            target = out_file or run_dir / "plot.png"
            style.file_format(target)
            paths = draw(
                run_dir, out=target, svg=svg, overwrite=overwrite, size=size, aggregate=aggregate
            )
    except style.FormatError as e:
        raise _fail(BAD_INPUT, f"--out: {e}") from None
    except (RunDirError, NoTracesError) as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(INTERRUPTED, "interrupted") from None
    except OSError as e:
        raise _fail(FAILED, f"cannot write the plot: {e}") from None
    for p in paths:
        console.out.print(f"wrote {p}", soft_wrap=True)

"""`hscc testbed run` and `hscc compare`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from hscc.cli.options import OverwriteRun, QuietRun, command_exit_codes
from hscc.console import Group, err, out
from hscc.console import fail as _fail
from hscc.errors import ScenarioError
from hscc.exit_codes import BAD_INPUT, FAILED
from hscc.kernel.programs import KernelError
from hscc.rundir import RunDirError

if TYPE_CHECKING:
    from hscc.compare import Row

EXIT_CODES = "Exit codes: 0 ok, 1 failed (the kernel refused a step), 2 bad input or refused scenario, 130 interrupted."

testbed_app = typer.Typer(
    name="testbed",
    cls=Group,
    help=(
        "Run a scenario on this machine's Linux kernel: real TCP sockets in network namespaces, an HTB + pfifo "
        "bottleneck, a real-time delay line. Needs root. Writes the run directory a simulation writes. "
        f"See docs/testbed.md.\n\n{EXIT_CODES}"
    ),
    no_args_is_help=True,
)


@testbed_app.command("run", epilog=EXIT_CODES)
def run_(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="Run directory to write; must not exist or be empty.",
            show_default=False,
        ),
    ],
    overwrite: OverwriteRun = False,
    bpf: Annotated[
        bool,
        typer.Option(
            "--bpf",
            help="Run reno and cubic as hscc's eBPF programs (hscc_reno, hscc_cubic) instead of the kernel's own.",
        ),
    ] = False,
    quiet: QuietRun = False,
) -> None:
    """Run SCENARIO on the kernel in real time (its duration in wall-clock seconds) and write its run directory."""
    from hscc import load, report
    from hscc.scenario import Scenario
    from hscc.testbed import TestbedError, run

    with command_exit_codes(
        "kernel run",
        (ScenarioError, TestbedError, RunDirError),
        (KernelError, OSError),
        "interrupted; the namespaces, processes and registrations of this run are removed, nothing written",
    ):
        sc = Scenario.from_toml(scenario)
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            console=err,
            disable=quiet,
            transient=True,
        ) as progress:
            task = progress.add_task("kernel run", total=sc.duration)
            run(sc, out_dir, overwrite, bpf, lambda t: progress.update(task, completed=t))
        result = load(out_dir)
    if quiet:
        out.print(str(out_dir), soft_wrap=True)
        return
    out.print(report.summary(result))
    kernel = result.manifest["kernel_run"]
    for note in kernel["builtin_differences"]:
        err.print(Text.assemble(("note:", "bold"), " ", note), soft_wrap=True)
    if kernel["recovery_counter"]["unavailable"]:
        err.print(
            Text.assemble(
                ("note:", "bold"),
                " per-flow recoveries are null: ",
                kernel["recovery_counter"]["unavailable"],
            ),
            soft_wrap=True,
        )
    for flag in kernel["flags"]:
        err.print(Text.assemble(("warning:", "bold yellow"), " ", flag), soft_wrap=True)
    out.print(
        f"results: {out_dir}/  (plot: hscc plot {out_dir}; against the simulator: hscc compare SIM_DIR {out_dir})",
        soft_wrap=True,
    )


@testbed_app.command("limits", epilog=EXIT_CODES)
def limits_() -> None:
    """What this machine's testbed sustains (checked before every run), its clock and timers now."""
    from hscc.testbed import TestbedError, limits

    try:
        p = limits.probe()
    except TestbedError as e:
        raise _fail(FAILED, str(e)) from None
    t = p["timer_probe_1ms"]
    out.print(
        f"bottleneck rate: at most {limits.max_rate() / 1e6:g} Mbit/s\n"
        f"rate × longest base RTT: at most {limits.max_bdp() / 1e6:g} Mbit\n"
        f"a run is flagged when the delay line stalls over {limits.STALL_BOUND_S * 1e3:g} ms or sends over "
        f"{limits.LATE_SHARE_BOUND:.0%} of its packets more than 1 ms late\n"
        f"CLOCK_MONOTONIC resolution: {p['clock_res_ns']} ns\n"
        f"1 ms sleeps of the delay line ({'real time' if p['realtime'] else 'NOT real time: run as root'}): "
        f"{t['median_late_us']:g} µs late at the median, {t['max_late_us']:g} µs at most (200 sleeps, now)",
        soft_wrap=True,
    )


def compare(
    run_a: Annotated[
        Path,
        typer.Argument(
            metavar="DIR_A", help="A run directory (e.g. `hscc run`'s).", show_default=False
        ),
    ],
    run_b: Annotated[
        Path,
        typer.Argument(
            metavar="DIR_B",
            help="Another (e.g. `hscc testbed run`'s); ratios are B / A.",
            show_default=False,
        ),
    ],
    plot_file: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw both runs' goodput and cwnd on the same axes to this file (.png, .pdf or .svg).",
            show_default=False,
        ),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing --plot file.")
    ] = False,
    size: Annotated[
        str,
        typer.Option(
            "--size",
            help="The --plot's size: column (3.5 in wide), wide (7.16 in) or slide (10 in).",
        ),
    ] = "slide",
    aggregate: Annotated[
        bool,
        typer.Option(
            "--aggregate",
            help="The --plot draws one line per algorithm and run (its flows' summed goodput, "
            "mean cwnd) instead of one per flow.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Two runs side by side: per-flow goodput, retransmissions, recoveries and timeouts, Jain's index, queuing delay and loss, and each flow's window cuts (first cut, sawtooth period), with ratios B / A."""
    from hscc import compare as cmp
    from hscc import load, style

    try:
        if plot_file is not None:
            style.file_format(plot_file)
        style.check_size(size)
        a, b = load(run_a), load(run_b)
        if plot_file is not None and plot_file.exists() and not overwrite:
            raise RunDirError(f"{plot_file} exists; pass --overwrite to replace it")
        c = cmp.compare(a, b)
        names = cmp.names(a, run_a, b, run_b)
        if plot_file is not None:
            cmp.plot(a, b, names, plot_file, size, aggregate)
    except style.FormatError as e:
        raise _fail(BAD_INPUT, f"--plot: {e}") from None
    except style.SizeError as e:
        raise _fail(BAD_INPUT, f"--size: {e}") from None
    except RunDirError as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except OSError as e:
        raise _fail(FAILED, f"cannot write the plot: {e}") from None
    if as_json:
        out.print_json(json.dumps(c.to_dict()))
        return
    table = Table(
        "",
        f"A: {names[0]}",
        f"B: {names[1]}",
        "B / A",
        title=f"{run_a} vs {run_b}",
    )
    # Values in the units of `hscc run`'s table (one formatter, hscc.units_table): the unit
    # is in each value, so a row's name carries none.
    for r in c.flows:
        table.add_row(f"goodput {r.what}", *_cells(r))
    for r in [*c.counters, *c.totals, *c.windows]:
        table.add_row(re.sub(r" \((bit/)?s\)$", "", r.what), *_cells(r))
    out.print(table)
    for program, da, db in c.programs:
        if da == db:
            out.print(f"{program}: the same code in both runs (sha256 {da[:16]})", soft_wrap=True)
        else:
            err.print(
                f"{program}: A and B ran different code (sha256 {da[:16]} against {db[:16]}): "
                "the file, or a header it includes, changed between the runs",
                soft_wrap=True,
            )
    if c.unmatched:
        err.print(
            f"{c.unmatched} flows are in only one of the runs and not compared", soft_wrap=True
        )
    if plot_file is not None:
        out.print(f"wrote {plot_file}", soft_wrap=True)


def _cells(r: Row) -> tuple[str, str, str]:
    """A, B and B / A of a compared row: A and B as `hscc run` shows the metric."""
    from hscc.units_table import format_value

    ratio = "–" if r.ratio is None else f"{r.ratio:.3g}"
    return format_value(r.metric, r.a), format_value(r.metric, r.b), ratio

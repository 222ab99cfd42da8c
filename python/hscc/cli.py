"""The `hscc` command line.

Exit codes: 0 success; 1 the run failed (engine error, results not writable);
2 bad input or usage (invalid scenario, missing file, not a run directory);
130 interrupted (Ctrl-C): nothing is written.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.core import Command

from hscc.console import (
    BAD_INPUT,
    FAILED,
    INTERRUPTED,
    OK,
    Group,
    Lazy,
    did_you_mean,
    err,
    out,
    print_whole,
)
from hscc.console import fail as _fail
from hscc.errors import RunError, ScenarioError
from hscc.rundir import RunDirError, staging

if TYPE_CHECKING:
    from rich.progress import Progress

    from hscc.reproduce.experiment import Experiment
    from hscc.sweeps.execute import Counts
    from hscc.sweeps.execute import Progress as SweepProgress

# Each command imports what it needs when it runs: `hscc check` or `hscc run -q` loads no
# polars, plotting, sweeps, kernel or testbed code (tests/python/test_startup.py).

EXIT_CODES = "Exit codes: 0 ok, 1 run failed, 2 bad input or usage, 130 interrupted."


def _compare() -> Command:
    from hscc.testbed.cli import compare

    one = typer.Typer(add_completion=False)
    one.command("compare", epilog=EXIT_CODES)(compare)
    return typer.main.get_command(one)


def _kernel() -> Command:
    from hscc.kernel.cli import kernel_app

    return typer.main.get_group(kernel_app)


def _testbed() -> Command:
    from hscc.testbed.cli import testbed_app

    return typer.main.get_group(testbed_app)


class _Hscc(Group):
    """`hscc`: the kernel, testbed and compare commands are imported when one of them runs;
    `hscc --help` lists them by the first paragraph of their help, as written here
    (tests/python/test_startup.py checks it against theirs)."""

    lazy = {
        "compare": Lazy(
            "Two runs side by side: per-flow goodput, retransmissions, recoveries and timeouts, "
            "Jain's index, queuing delay and loss, and each flow's window cuts (first cut, "
            "sawtooth period), with ratios B / A.",
            _compare,
        ),
        "kernel": Lazy(
            "hscc's algorithms as eBPF struct_ops programs in the running Linux kernel "
            "(root, a kernel with BTF, clang, bpftool and libbpf-dev). A loaded program is "
            "offered to sockets as hscc_NAME (TCP_CONGESTION); it never becomes a default. "
            "See docs/kernel.md.",
            _kernel,
        ),
        "testbed": Lazy(
            "Run a scenario on this machine's Linux kernel: real TCP sockets in network "
            "namespaces, an HTB + pfifo bottleneck, a real-time delay line. Needs root. Writes "
            "the run directory a simulation writes. See docs/testbed.md.",
            _testbed,
        ),
    }


app = typer.Typer(
    name="hscc",
    cls=_Hscc,
    help=f"High-speed TCP congestion control: run scenarios on the packet-level simulator, list algorithms, plot results.\n\n{EXIT_CODES}",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

MaxMemory = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        help="Refuse runs the engine estimates to need more memory (e.g. 16GB). Default: 80% of the memory this process may use (RAM, ulimit -v and cgroup limit, the smallest).",
        show_default=False,
    ),
]
MaxEvents = Annotated[
    str | None,
    typer.Option(
        "--max-events",
        help="Refuse runs the engine estimates to need more events (e.g. 1e13). Default: 1e11, a few hours.",
        show_default=False,
    ),
]


def _limits(max_memory: str | None, max_events: str | None) -> tuple[int | None, int | None]:
    from hscc import limits

    try:
        memory = None if max_memory is None else limits.parse_memory(max_memory)
    except ValueError as e:
        raise _fail(BAD_INPUT, f"--max-memory: {max_memory!r} is not allowed ({e})") from None
    try:
        events = None if max_events is None else limits.parse_events(max_events)
    except ValueError as e:
        raise _fail(BAD_INPUT, f"--max-events: {max_events!r} is not allowed ({e})") from None
    return memory, events


def _version(value: bool) -> None:
    if value:
        from hscc import _core, provenance

        out.print(f"hscc {provenance.version()} (engine {_core.engine_version()})")
        raise typer.Exit(OK)


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """hscc: high-speed TCP congestion control toolkit."""


@app.command(epilog=EXIT_CODES)
def run(
    scenario: Annotated[
        Path, typer.Argument(help="Scenario file (TOML); see examples/.", show_default=False)
    ],
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Run directory to write; must not exist or be empty. Default: runs/NAME-TIMESTAMP.",
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace the previous run in --out (never anything hscc did not write).",
        ),
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option("--seed", "-s", help="Seed (0 to 2^64 - 1), overriding the scenario's."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No progress bar and no table; print only the run directory."
        ),
    ] = False,
    max_memory: MaxMemory = None,
    max_events: MaxEvents = None,
) -> None:
    """Run a scenario: progress in simulated time, a summary table, results written atomically."""
    from hscc import report
    from hscc.runner import start
    from hscc.scenario import Scenario

    if seed is not None and not 0 <= seed < 2**64:
        raise _fail(BAD_INPUT, f"--seed: {seed} is not allowed (0 to 2^64 - 1)")
    memory, events = _limits(max_memory, max_events)
    try:
        sc = Scenario.from_toml(scenario, seed)
        target = out_dir or _fresh(Path("runs") / f"{sc.name}-{datetime.now():%Y%m%d-%H%M%S}")
        with staging(
            target, overwrite
        ) as tmp:  # checks and reserves the target before a long run, not after
            ready = start(sc, max_memory=memory, max_events=events)
            if not quiet:
                err.print(
                    f"running {scenario}: {sc.duration:g} s simulated (Ctrl-C stops)",
                    soft_wrap=True,
                )
            with _progress(quiet) as progress:
                task = progress.add_task("simulating", total=sc.duration)
                result = ready.finish(lambda t, _: progress.update(task, completed=t))
            result.write_files(tmp)
    except ScenarioError as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except RunDirError as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(INTERRUPTED, "interrupted; no results written") from None
    except (RunError, OSError) as e:
        raise _fail(FAILED, f"run failed: {e}") from None
    if quiet:
        out.print(str(target), soft_wrap=True)
        return
    print_whole(report.summary(result))
    out.print(f"results: {target}/  (plot: hscc plot {target})", soft_wrap=True)


@app.command(epilog=EXIT_CODES)
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
    from hscc import report, sweeps

    if jobs is not None and not 1 <= jobs <= 4096:
        raise _fail(BAD_INPUT, f"--jobs: {jobs} is not allowed (1 to 4096 worker processes)")
    memory, events = _limits(max_memory, max_events)
    try:
        sw = sweeps.load_file(sweep_file)
        with _sweep_progress(quiet) as bar:
            result = sweeps.run(sw, out_dir, jobs, dask, bar, memory, events)
    except (sweeps.SweepError, RunDirError) as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(
            INTERRUPTED,
            f"interrupted; finished runs are kept in {out_dir} (run the same command to resume)",
        ) from None
    except (OSError, RuntimeError) as e:
        raise _fail(FAILED, f"sweep failed: {e}") from None
    failed = result.failed
    if quiet:
        out.print(str(out_dir), soft_wrap=True)
    else:
        print_whole(report.sweep_summary(result))
        out.print(f"results: {out_dir}/  (points.parquet, summary.parquet, plots/)", soft_wrap=True)
    identical = result.identical_warning()
    if identical is not None:
        err.print(f"warning: {identical}", soft_wrap=True)
    if failed.height:
        first = failed.row(0, named=True)
        err.print(
            f"{failed.height} of {result.points.height} runs failed; the first (point {first['point']}, replicate "
            f"{first['replicate']}): {first['error']}",
            soft_wrap=True,
        )
        raise typer.Exit(FAILED)


@app.command(epilog=EXIT_CODES)
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
            help="With 'all': just these experiments (repeat the option).",
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
    experiment = None
    if name != "all":
        try:  # a misspelt name is said, with the name meant, before a missing --out
            experiment = rep.resolve(name)
        except rep.ExperimentError as e:
            raise _fail(BAD_INPUT, str(e)) from None
    if out_dir is None:
        raise _fail(BAD_INPUT, "--out: missing (the directory to write the reproduction into)")
    try:
        with ExitStack() as stack:
            if name == "all":

                def started(e: Experiment) -> SweepProgress:
                    stack.close()  # the previous experiment's bar
                    if not quiet:
                        err.print(f"{e.name}: {e.title} ({e.source})", soft_wrap=True)
                    return stack.enter_context(_sweep_progress(quiet))

                done = rep.reproduce_all(out_dir, quick, replicates, jobs, dask, only, started)
            else:
                bar = stack.enter_context(_sweep_progress(quiet))
                chosen = experiment or name
                done = [rep.reproduce(chosen, out_dir, quick, replicates, jobs, dask, bar)]
    except (rep.ExperimentError, rep.MeasureError, RunDirError) as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except ValueError as e:  # SweepError
        raise _fail(BAD_INPUT, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(
            INTERRUPTED,
            f"interrupted; finished runs are kept in {out_dir} (run the same command to resume)",
        ) from None
    except (OSError, RuntimeError) as e:
        raise _fail(FAILED, f"reproduction failed: {e}") from None
    if quiet:
        out.print(str(out_dir), soft_wrap=True)
    else:
        for r in done:
            print_whole(tables.terminal(r))
        if name == "all":
            print_whole(tables.scorecard_table(done))
        written = (
            "report.html, comparison.parquet, NAME/"
            if name == "all"
            else "comparison.md, comparison.parquet, figure.png"
        )
        out.print(f"results: {out_dir}/  ({written})", soft_wrap=True)
    failed = sum(r.failed_runs for r in done)
    missed = [c.text for r in done for c in r.claims if not c.holds and not c.known_miss]
    known = sum(1 for r in done for c in r.claims if not c.holds and c.known_miss)
    if failed:
        err.print(
            f"{failed} runs failed (their errors are in the sweep's points.parquet)", soft_wrap=True
        )
    for r in done:
        identical = r.sweep.identical_warning()
        if identical is not None:
            err.print(f"warning: {r.experiment.name}: {identical}", soft_wrap=True)
    if known and not quiet:
        err.print(
            f"{known} of the papers' claims are known not to hold in hscc (each experiment's notes say why)",
            soft_wrap=True,
        )
    if missed:
        err.print(
            f"{len(missed)} of the papers' claims do not hold in hscc: " + "; ".join(missed[:5]),
            soft_wrap=True,
        )
    if failed:
        raise typer.Exit(FAILED)


@app.command(epilog=EXIT_CODES)
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
        out.print(f"wrote {p}", soft_wrap=True)


@app.command(epilog=EXIT_CODES)
def algorithms(
    name: Annotated[
        str | None,
        typer.Argument(help="Show only this algorithm (name or alias).", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Every congestion-control algorithm with its parameters, defaults, ranges and sources."""
    from hscc import catalog, report

    algos = catalog.algorithms()
    if name is not None:
        found = catalog.find(name)
        if found is None:
            raise _fail(
                BAD_INPUT,
                f'algorithm "{name}" is not known (one of: {catalog.known_names()})'
                + did_you_mean(
                    name, [n for a in catalog.algorithms() for n in (a.name, *a.aliases)]
                ),
            )
        algos = (found,)
    if as_json:
        out.print_json(json.dumps([asdict(a) for a in algos]))
    else:
        print_whole(report.algorithms(algos))


@app.command(epilog=EXIT_CODES)
def fields(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the JSON Schema of scenario files instead.")
    ] = False,
    run_directory: Annotated[
        bool,
        typer.Option(
            "--run-directory", help="Print the columns of a run directory's tables instead."
        ),
    ] = False,
) -> None:
    """Every field a scenario file may have: its kind of value, default and meaning (Markdown)."""
    from hscc import _core

    if run_directory:
        from hscc.results import columns_markdown

        out.print(columns_markdown(), soft_wrap=True)
    elif as_json:
        out.print_json(_core.scenario_schema())
    else:
        from hscc import reference

        out.print(reference.markdown(), soft_wrap=True)


@app.command(epilog=EXIT_CODES)
def check(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the engine's JSON form of the scenario.")
    ] = False,
    max_memory: MaxMemory = None,
    max_events: MaxEvents = None,
) -> None:
    """Validate a scenario without running it; print what the run would need."""
    from hscc import limits
    from hscc.scenario import Scenario

    memory, events = _limits(max_memory, max_events)
    try:
        sc = Scenario.from_toml(scenario)
        resolved = sc.resolved()
        need = limits.estimate(resolved)
        resolved.check(memory or limits.default_max_memory(), events)
    except ScenarioError as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except ValueError as e:
        raise _fail(BAD_INPUT, str(ScenarioError.from_engine(e, str(scenario)))) from None
    if as_json:
        out.print_json(resolved.scenario)
    else:
        out.print(
            f"{scenario}: valid ({sc.topology.kind}; {sc.traffic()}; {sc.duration:g} s; needs {need})",
            soft_wrap=True,
        )
        for line in _stack_lines(json.loads(resolved.stacks)):
            out.print(line, soft_wrap=True, highlight=False)


def _stack_lines(uses: list[dict[str, Any]]) -> list[str]:
    """What each flow entry's `stack` profile set (`Resolved.stacks`), one line per run of
    entries that took the same settings: `flows[0], flows[1]: stack "linux" set a = 1, ...;
    the scenario sets b = 2 (not 3)`."""
    from hscc import reference
    from hscc.units import format_seconds

    def shown(field: str, value: Any) -> str:
        if reference.value_kind(field) == "time" and isinstance(value, (int, float)):
            return format_seconds(value)
        return json.dumps(value)

    groups: list[tuple[list[int], str]] = []
    for u in uses:
        flow = u["flow"]
        theirs = dict((k, v) for k, v in u["overridden"])
        line = f'stack "{u["stack"]}" set ' + ", ".join(
            f"{s['knob']} = {s['value']}" for s in u["settings"] if s["knob"] not in theirs
        )
        if theirs:
            profile = {s["knob"]: s["value"] for s in u["settings"]}
            line += "; the scenario sets " + ", ".join(
                f"{k} = {shown(f'flows[{flow}].{k}', v)} (not {profile[k]})"
                for k, v in theirs.items()
            )
        if groups and groups[-1][1] == line:
            groups[-1][0].append(flow)
        else:
            groups.append(([flow], line))
    return [", ".join(f"flows[{i}]" for i in flows) + ": " + line for flows, line in groups]


@app.command("new-algorithm", epilog=EXIT_CODES)
def new_algorithm(
    name: Annotated[
        str,
        typer.Argument(
            help="The algorithm's name: a C identifier of at most 15 characters.",
            show_default=False,
        ),
    ],
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to write the two files.", show_default=False)
    ] = Path("."),
) -> None:
    """Write NAME.bpf.c, a commented congestion-control program with every hook (Reno as
    written), NAME.toml, a scenario that runs it against Reno, and NAME-sweep.toml, a sweep
    over one of its parameters (docs/programs.md)."""
    from importlib import resources

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,14}", name):
        raise _fail(
            BAD_INPUT,
            f"name {name!r}: a C identifier (letters, digits, _) of at most 15 characters "
            "(the kernel's TCP_CA_NAME_MAX is 16 with the terminating NUL)",
        )
    targets = {
        f"{name}.bpf.c": "algorithm.bpf.c",
        f"{name}.toml": "algorithm.toml",
        f"{name}-sweep.toml": "algorithm-sweep.toml",
    }
    for target in targets:
        if (directory / target).exists():
            raise _fail(BAD_INPUT, f"{directory / target} exists; choose another name or --dir")
    directory.mkdir(parents=True, exist_ok=True)
    for target, template in targets.items():
        text = resources.files("hscc").joinpath("templates", template).read_text()
        (directory / target).write_text(text.replace("__NAME__", name))
    out.print(f"wrote {', '.join(str(directory / t) for t in targets)}", soft_wrap=True)
    out.print(
        f"run it:   hscc run {directory / (name + '.toml')} --out runs/{name}", soft_wrap=True
    )
    out.print(
        f"sweep:    hscc sweep {directory / (name + '-sweep.toml')} --out runs/{name}-increase",
        soft_wrap=True,
    )
    out.print(f"kernel:   hscc kernel load {directory / (name + '.bpf.c')}", soft_wrap=True)
    out.print("guide:    docs/programs.md", soft_wrap=True)


def _fresh(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`, ... if it exists (two runs started in the same second)."""
    candidate, n = path, 1
    while candidate.exists() and n < 1000:
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


@contextmanager
def _sweep_progress(quiet: bool) -> Iterator[SweepProgress]:
    """The sweep's progress callback: one bar over the runs to compute, with every count beside it."""
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
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
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


def _progress(quiet: bool) -> Progress:
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        TextColumn("{task.completed:.1f} / {task.total:g} s simulated"),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,  # no bar in logs
    )


def entry() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(INTERRUPTED)


if __name__ == "__main__":
    entry()

"""`hscc run` and `hscc check`: one scenario, run or checked.

A quiet run imports no Rich: it prints its run directory as plain text, and the
progress bar is made only when there is a terminal to draw it on."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from hscc import console
from hscc.cli.options import (
    MaxEvents,
    MaxMemory,
    OverwriteRun,
    QuietRun,
    command_exit_codes,
    parse_limits,
)
from hscc.console import BAD_INPUT, FAILED, INTERRUPTED, OK, plain, print_whole
from hscc.console import fail as _fail
from hscc.errors import RunError, ScenarioError, died_because
from hscc.rundir import RunDirError, staging


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
    overwrite: OverwriteRun = False,
    seed: Annotated[
        int | None,
        typer.Option("--seed", "-s", help="Seed (0 to 2^64 - 1), overriding the scenario's."),
    ] = None,
    quiet: QuietRun = False,
    max_memory: MaxMemory = None,
    max_events: MaxEvents = None,
) -> None:
    """Run a scenario: progress in simulated time, a summary table, results written atomically."""
    from hscc.runner import start
    from hscc.scenario import Scenario, names_program

    if seed is not None and not 0 <= seed < 2**64:
        raise _fail(BAD_INPUT, f"--seed: {seed} is not allowed (0 to 2^64 - 1)")
    memory, events = parse_limits(max_memory, max_events)
    with command_exit_codes(
        "run", (ScenarioError, RunDirError), (RunError, OSError), "interrupted; no results written"
    ):
        sc = Scenario.from_toml(scenario, seed)
        target = out_dir or _fresh(Path("runs") / f"{sc.name}-{datetime.now():%Y%m%d-%H%M%S}")
        programs = sorted({f.algorithm for f in sc.flows if names_program(f.algorithm)})
        if programs and not os.environ.get(_ISOLATED):
            given = {
                "--out": target,
                "--seed": seed,
                "--max-memory": max_memory,
                "--max-events": max_events,
            }
            args = [str(scenario)] + [
                x for k, v in given.items() if v is not None for x in (k, str(v))
            ]
            args += ["--overwrite"] * overwrite + ["-q"] * quiet
            raise typer.Exit(_isolated(args, programs))
        with staging(
            target, overwrite
        ) as tmp:  # checks and reserves the target before a long run, not after
            ready = start(sc, max_memory=memory, max_events=events)
            if not quiet:
                console.err.print(
                    f"running {scenario}: {sc.duration:g} s simulated (Ctrl-C stops)",
                    soft_wrap=True,
                )
            with _progress(quiet, sc.duration) as progress:
                result = ready.finish(progress)
            result.write_files(tmp)
    if quiet:
        plain(str(target))
        return
    from hscc import report

    print_whole(report.summary(result))
    console.out.print(f"results: {target}/  (plot: hscc plot {target})", soft_wrap=True)


# Set in the process that runs a scenario with a program file, on behalf of `hscc run`.
_ISOLATED = "HSCC_RUN_ISOLATED"


def _isolated(args: list[str], programs: list[str]) -> int:
    """Run `hscc run ARGS` in a process of its own and return its exit code: a program that
    writes outside the memory it may use (its globals, its stack) can corrupt the simulator
    after its hook has returned, where no fault report can name it; that process then dies,
    and this one says which program it ran. Its output goes straight to the terminal."""
    import signal
    import subprocess

    # Ctrl-C reaches both processes: the run's says what it kept, this one waits for it.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The terminal's own streams are handed over (the progress bar draws on them); streams
    # this process was given in their place (a test's, a notebook's) get the output after.
    inherit = sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hscc", "run", *args],
            env={**os.environ, _ISOLATED: "1"},
            capture_output=not inherit,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    if not inherit:
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
    if done.returncode in (OK, FAILED, BAD_INPUT, INTERRUPTED):  # the run's own verdict
        return done.returncode
    if done.returncode < 0:
        try:
            how = f"ended by {signal.Signals(-done.returncode).name}"
        except ValueError:
            how = f"ended by signal {-done.returncode}"
    else:
        how = f"exited with status {done.returncode} before writing its results"
    names = [Path(p).name for p in programs]
    raise _fail(
        FAILED, f"run failed: the run's process {how} {died_because(names)}; no results written"
    )


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

    memory, events = parse_limits(max_memory, max_events)
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
        console.out.print_json(resolved.scenario)
    else:
        console.out.print(
            f"{scenario}: valid ({resolved.topology}; {sc.traffic()}; {resolved.duration:g} s; needs {need})",
            soft_wrap=True,
        )
        for line in _stack_lines(json.loads(resolved.stacks)):
            console.out.print(line, soft_wrap=True, highlight=False)


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


def _fresh(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`, ... if it exists (two runs started in the same second)."""
    candidate, n = path, 1
    while candidate.exists() and n < 1000:
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


@contextmanager
def _progress(quiet: bool, duration: float) -> Iterator[Callable[[float, float], None]]:
    """The run's progress callback: a bar in simulated time on a terminal; none when quiet
    or in a log (Rich's progress bars are then not imported at all)."""
    if quiet or not console.err.is_terminal:
        yield lambda _t, _duration: None
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        TextColumn("{task.completed:.1f} / {task.total:g} s simulated"),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=console.err,
        transient=True,
    ) as bar:
        task = bar.add_task("simulating", total=duration)
        yield lambda t, _duration: bar.update(task, completed=t)

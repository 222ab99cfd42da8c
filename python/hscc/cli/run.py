"""`hscc run` and `hscc check`: one scenario, run or checked.

A run imports no Rich: it prints its summary tables and run directory as plain text
(`text_table`), and the progress bar is made only for a run still going half a second
in, on a terminal."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
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
from hscc.console import fail as _fail
from hscc.console import plain
from hscc.errors import RunError, ScenarioError
from hscc.exit_codes import BAD_INPUT
from hscc.rundir import RunDirError, staging

_BAR_AFTER_S = 0.5  # wall time before a run shows its progress bar


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
    from hscc.scenario import Scenario

    if seed is not None and not 0 <= seed < 2**64:
        raise _fail(BAD_INPUT, f"--seed: {seed} is not allowed (0 to 2^64 - 1)")
    memory, events = parse_limits(max_memory, max_events)
    with command_exit_codes(
        "run", (ScenarioError, RunDirError), (RunError, OSError), "interrupted; no results written"
    ):
        sc = Scenario.from_toml(scenario, seed)
        target = out_dir or _fresh(Path("runs") / f"{sc.name}-{datetime.now():%Y%m%d-%H%M%S}")
        with staging(
            target, overwrite
        ) as tmp:  # checks and reserves the target before a long run, not after
            ready = start(sc, max_memory=memory, max_events=events)
            if not quiet:
                print(
                    f"running {scenario}: {sc.duration:g} s simulated (Ctrl-C stops)",
                    file=sys.stderr,
                    flush=True,
                )
            with _progress(quiet, sc.duration) as progress:
                result = ready.finish(progress)
            result.write_files(tmp)
    if quiet:
        plain(str(target))
        return
    from hscc import run_summary, text_table

    text_table.print_tables(run_summary.tables(result), run_summary.fairness(result))
    plain(f"results: {target}/  (plot: hscc plot {target})")


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
        return
    # Plain lines (no Rich): a check in a script or a loop costs its start-up.
    plain(
        f"{scenario}: valid ({resolved.topology}; {sc.traffic()}; {resolved.duration:g} s; needs {need})"
    )
    for line in _stack_lines(json.loads(resolved.stacks)):
        plain(line)


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
    """The run's progress callback: a bar in simulated time on a terminal, from
    _BAR_AFTER_S into the run; none when quiet or in a log. A run that ends sooner shows
    none and imports no Rich: drawing a bar would cost it more than it runs."""
    if quiet or not sys.stderr.isatty():
        yield lambda _t, _duration: None
        return
    started = time.monotonic()
    with ExitStack() as stack:
        update: Callable[[float], None] | None = None

        def report(t: float, _duration: float) -> None:
            nonlocal update
            if update is None:
                if time.monotonic() - started < _BAR_AFTER_S:
                    return
                update = stack.enter_context(_bar(duration))
            update(t)

        yield report


@contextmanager
def _bar(duration: float) -> Iterator[Callable[[float], None]]:
    """A Rich progress bar on standard error, cleared when it ends."""
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
        yield lambda t: bar.update(task, completed=t)

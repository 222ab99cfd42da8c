"""Run a scenario on the engine, in chunks of simulated time.

Each chunk releases the GIL and takes about a tenth of a second of wall time,
so a progress callback is called often and Ctrl-C (KeyboardInterrupt) stops
the run between chunks.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hscc import _core, algorithm, limits, provenance, rundir
from hscc.errors import ProgramError, RunError, ScenarioError
from hscc.program_files import named
from hscc.results import Result
from hscc.scenario import Scenario

if TYPE_CHECKING:
    import polars as pl

    from hscc.isolated import IsolatedRun

Progress = Callable[[float, float], None]  # (simulated seconds done, duration)

_CHUNK_WALL_S = 0.1


def run(
    scenario: Scenario | str | Path | dict[str, Any],
    seed: int | None = None,
    progress: Progress | None = None,
    max_memory: int | None = None,
    max_events: int | None = None,
    isolate: bool = True,
) -> Result:
    """Run a scenario (a Scenario, a TOML file path or a dict) and return its Result.

    `seed` overrides the scenario's seed. The run is refused before it starts
    if the engine's estimate passes `max_memory` bytes (default: 80 % of the memory
    this process may use, `limits.default_max_memory`) or `max_events` (default 10^11, a few hours). Raises ScenarioError for
    a scenario the engine cannot run, RunError if the engine fails while running.

    A scenario that names a program file runs in a process of its own (`hscc.isolated`),
    so that a program that kills its process raises RunError naming it instead of ending
    this one; the Result is the same. `isolate=False` runs it here (for a debugger, or to
    save the child's start, about 0.15 s a run). Built-in and Python algorithms always run
    here.
    """
    if progress is None:
        from hscc import notebook_progress

        if notebook_progress.in_notebook():  # no terminal: a line that updates in place
            progress = notebook_progress.run_line()
    return start(scenario, seed, max_memory, max_events, isolate).finish(progress)


def start(
    scenario: Scenario | str | Path | dict[str, Any],
    seed: int | None = None,
    max_memory: int | None = None,
    max_events: int | None = None,
    isolate: bool = True,
) -> Run | IsolatedRun:
    """A run built and ready (every check done, nothing simulated yet); `run` is start + finish.
    With `isolate`, one of a scenario that names a program file is built in a process of its
    own, which `finish` runs."""
    sc = Scenario.coerce(scenario, seed)
    as_run = sc.resolved().scenario
    if '.c"' in as_run and isolate:
        data = json.loads(as_run)
        if names := named(data):
            from hscc import isolated  # here: pickle and subprocess only for program files

            return isolated.start(sc, max_memory, max_events, names, _python_modules(data, sc))
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    try:
        sim = _core.Simulation(
            sc.resolved(), max_memory or limits.default_max_memory(), max_events
        )  # max_events None: the engine's default
    except ValueError as e:
        raise ScenarioError.from_engine(e, sc.source) from None
    # The program files just built, by the digest of their code (provenance.programs).
    code = provenance.programs(json.loads(as_run)) if '.c"' in as_run else {}
    return Run(sc, sim, started, t0, code)


def _python_modules(data: dict[str, Any], sc: Scenario) -> tuple[str, ...]:
    """The modules that define the Python algorithms `data` (`sc` checked) names, for the
    process that runs it to import; ScenarioError for one defined in __main__, which that
    process cannot import."""
    names = {name for _, name in algorithm.named_in(data)}
    main = algorithm.in_main(names)
    if main:
        name, cls = next(iter(main.items()))
        where = f"{sc.source}: " if sc.source else ""
        raise ScenarioError(
            [],
            sc.source,
            f"{where}algorithm {name!r}: its class {cls} is defined in __main__ (a notebook, "
            "or a script run directly), which the process that runs a scenario with a program "
            "file cannot import; define it in a module and import that, or pass "
            "isolate=False to run in this process (docs/programs.md)",
        )
    return algorithm.modules(names)


@dataclass
class Run:
    """A built simulation waiting to be run."""

    scenario: Scenario
    sim: _core.Simulation
    started: datetime
    t0: float
    programs: dict[str, str]  # program file -> the digest of its code (provenance.programs)

    def finish(self, progress: Progress | None = None) -> Result:
        """Simulate to the end and return the Result (RunError if the engine fails)."""
        sc, sim = self.scenario, self.sim
        with _engine_errors():
            wall = self._simulate(progress)
            cc_log = sim.take_cc_log()
            captures = dict(sim.take_captures())
            summary, tables = self._files(wall, list(captures))
            drops = json.loads(sim.capture_drops()) if captures else []
        manifest = {
            **rundir.marker(),
            "created": self.started.isoformat(timespec="seconds"),
            "wall_time_s": wall,
            "seed": sc.seed,
            "events": sim.events,
            **provenance.environment(),
            "scenario_file": sc.source,
            "scenario": json.loads(sc.resolved().scenario),  # a copy, cheaper than deepcopy
        }  # not the engine's configuration: the scenario resolves to it (`plot.capacities`)
        if self.programs:
            manifest["programs"] = dict(self.programs)
        labels = (
            sim.flow_labels() if cc_log or drops else []
        )  # the flows' labels, for the per-ACK log and the drops table
        return Result.from_engine(manifest, summary, dict(tables), labels, cc_log, captures, drops)

    def finish_summary(self) -> tuple[dict[str, Any], Callable[[str], pl.DataFrame]]:
        """Simulate to the end, for the numbers alone: the Result's `summary`, and a function
        giving one of its tables (`flows`, `links`, ...) as a DataFrame, its Parquet file
        written when asked for. What a sweep's worker needs when no run is stored, without
        the files, the manifest or the per-ACK log it would not keep."""
        with _engine_errors():
            wall = self._simulate(None)
            captures = [name for name, _ in self.sim.take_captures()]
            summary, _ = self._files(wall, captures, [])

        def table(name: str) -> pl.DataFrame:
            import io

            import polars as pl

            with _engine_errors():
                files = dict(self._files(wall, captures, [name])[1])
            return pl.read_parquet(io.BytesIO(files[name]))

        return json.loads(summary), table

    def _simulate(self, progress: Progress | None) -> float:
        """Run to the end; the wall time since the build started."""
        _advance(self.sim, progress)
        self.sim.finish()
        return time.perf_counter() - self.t0

    def _files(
        self, wall: float, captures: list[str], tables: list[str] | None = None
    ) -> tuple[bytes, list[tuple[str, bytes]]]:
        traces = self.scenario.output.traces
        return self.sim.files(wall, "flows" in traces, "queues" in traces, captures, tables)


@contextmanager
def _engine_errors() -> Iterator[None]:
    """The engine's errors as hscc's: RunError for a bug in the engine, not the user's
    mistake; ProgramError for a user's program that failed in a hook."""
    try:
        yield
    except RuntimeError as e:
        raise RunError(str(e)) from None
    except ValueError as e:
        raise ProgramError(str(e)) from None


def _advance(sim: _core.Simulation, progress: Progress | None) -> None:
    duration = sim.duration
    t, step = 0.0, duration / 1000
    while t < duration:
        t = min(duration, t + step)
        w0 = time.perf_counter()
        sim.run_until(t)
        wall = time.perf_counter() - w0
        # Aim each chunk at _CHUNK_WALL_S of wall time, growing at most 4× at once.
        step = step * min(4.0, _CHUNK_WALL_S / wall) if wall > 0 else step * 4
        if progress is not None:
            progress(t, duration)

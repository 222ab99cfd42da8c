"""Sweeps: many runs of one scenario over the values of some of its fields,
each point replicated with its own seeds, on every core or on a Dask cluster,
cached and resumable.

    import hscc
    result = hscc.sweep("examples/two-reno-rtt.toml",
                        {"topology.bottleneck.loss": {"logspace": ["1e-6", "1e-2"], "steps": 5},
                         "flows[1].algorithm": ["reno", "cubic"]},
                        replicates=5, out="sweeps/loss")
    result.points        # polars DataFrame, one row per run
    result.summary()     # mean, std and 95 % CI per point and metric

The same sweep as a file is ``hscc sweep FILE --out DIR`` (see ``hscc.sweeps.spec``
for the format, docs/sweeps.md for the whole story).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hscc import algorithm as _algorithm
from hscc import limits as _limits
from hscc.scenario import Scenario
from hscc.sweeps import execute, plan, spec, sweepdir
from hscc.sweeps.execute import Counts, Progress
from hscc.sweeps.result import SweepResult
from hscc.sweeps.spec import Sweep, SweepError

__all__ = ["Counts", "Sweep", "SweepError", "SweepResult", "load", "load_file", "run", "sweep"]


def sweep(
    base: Scenario | str | Path | dict[str, Any],
    axes: dict[str, Any] | None = None,
    replicates: int = 1,
    seed: int | None = None,
    *,
    out: str | Path | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
    max_memory: int | None = None,
    max_events: int | None = None,
) -> SweepResult:
    """Run `base` (a Scenario, a scenario file or a dict) at every combination of the `axes`' values,
    `replicates` times each.

    `axes` maps a field path to its values as a sweep file's ``[axes]`` does: a list,
    ``{"linspace": [a, b], "steps": n}``, ``{"logspace": [a, b], "steps": n}``, or under any name
    ``{"zip": {path: values, ...}}``. With `out` (a directory), runs are stored there and a
    sweep run again into it computes only what is missing; without, nothing is written.
    `jobs` worker processes (default one per core), or `dask`: a scheduler's address, or
    "local" for a LocalCluster. SweepError before anything runs if any point is invalid.
    """
    data: dict[str, Any] = {"axes": axes or {}, "replicates": replicates}
    if seed is not None:
        data["seed"] = seed
    return run(spec.parse(data, base=base), out, jobs, dask, progress, max_memory, max_events)


def _refuse_algorithms_of_main(made: plan.Plan) -> None:
    """SweepError if a run names a Python algorithm defined in __main__: a worker process
    imports the modules that define the algorithms, and cannot import __main__."""
    for job in made.jobs:
        for field, name in _algorithm.named_in(job.scenario):
            if main := _algorithm.in_main({name}):
                raise SweepError(
                    f"{field} = {name!r}: its class {main[name]} is defined in "
                    "__main__ (a script run directly, or a notebook), which the sweep's worker "
                    "processes cannot import; define it in a module and import that "
                    "(docs/programs.md)"
                )


def load_file(path: str | Path) -> Sweep:
    """Read and check a sweep file (SweepError naming what is wrong)."""
    return spec.load(path)


def run(
    sw: Sweep,
    out: str | Path | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
    max_memory: int | None = None,
    max_events: int | None = None,
) -> SweepResult:
    """Run a checked sweep (see `sweep`)."""
    if jobs is not None and jobs < 1:
        raise SweepError(f"jobs: {jobs} is not allowed (at least 1 worker process)")
    workers = jobs or execute.workers_default()
    memory = max_memory or _limits.default_max_memory()
    if dask is None:
        memory //= workers  # the runs in flight share this machine's memory
    if progress is None:
        from hscc import notebook_progress

        if notebook_progress.in_notebook():  # no terminal: a line that updates in place
            progress = notebook_progress.sweep_line()
    made = plan.make(sw, memory, max_events)
    axes = [[m.path for m in a.members] for a in sw.axes]
    directory = Path(out) if out is not None else None
    if directory is not None:
        sweepdir.check(directory)  # refused before a cluster is reached or anything is written
    # One run is computed here: on one core either way, a pool would add only its start-up
    # (a fork server importing hscc, then a worker: tenths of a second). Not with an algorithm
    # of __main__, which a pool's workers lack: a sweep then fails alike at every size.
    inline = dask is None and len({j.key for j in made.jobs}) == 1 and not _algorithm.any_in_main()
    if _algorithm.any_in_main():  # so never inline: refused at every size, before it starts
        _refuse_algorithms_of_main(made)
    # A sweep of several points draws plots: a pool of several workers (local or Dask) draws
    # them in parallel; otherwise this process does (as fast as one worker, and warm after a
    # first sweep). A local pool's fork server imports matplotlib for its workers.
    plots = directory is not None and len({j.point for j in made.jobs}) > 1
    draws = plots and dask is None and workers > 1
    with execute.open_pool(workers if dask is None else jobs, dask, inline, draws) as pool:
        store = (
            sweepdir.prepare(directory, sw, axes, len(made.jobs)) if directory is not None else None
        )
        outcomes = execute.execute(made.jobs, store, pool, (memory, max_events), progress)
        result = SweepResult.from_outcomes(made, outcomes, store, directory)
        if directory is not None:
            sweepdir.write_tables(directory, result)
            renderer = getattr(pool, "render", None) if plots and pool.workers > 1 else None
            sweepdir.write_plots(directory, result, renderer)
            sweepdir.write_manifest(directory, sw, axes, len(made.jobs), result.failed.height)
    return result


def load(directory: str | Path) -> SweepResult:
    """The results of a sweep directory written by `sweep(..., out=...)` or `hscc sweep`."""
    return sweepdir.load(directory)

"""What a worker process (local pool or Dask) does with one run: simulate it
and send back its files and metrics, or the engine's error. A worker on the
sweep's machine writes the files into the store's staging directory instead of
sending them, and the sweep's process makes them durable and renames them into
place (`store.RunStore.place`): so the files cross no pipe, and the sweep's
process, which has one core among the workers', does not write them."""

from __future__ import annotations

import importlib
import time
from typing import Any

from hscc import program_files
from hscc.errors import RunError, ScenarioError
from hscc.runner import Run, start
from hscc.scenario import Scenario
from hscc.sweeps import metrics
from hscc.sweeps.store import write_run


def run_job(
    scenario: dict[str, Any],
    max_memory: int | None,
    max_events: int | None,
    files: bool,
    sources: dict[str, program_files.Source] | None = None,
    isolate: bool = False,
    into: str | None = None,
) -> tuple[str, Any, Any]:
    """("ok", the run directory's files if `files` else None, metrics row) or ("failed", message, None).
    With `into` (and `files`), the files are written into that new directory instead
    (`store.write_run`) and "ok" has None for them; ("unwritten", the OSError, None) if
    they cannot be (a full disk), which ends the sweep as the store's own error would.

    `scenario` is in the checked form the sweep's plan made (`Scenario.to_dict()`), so it
    is not checked again here; building the simulation still refuses anything invalid.
    `sources`: the program files it names, as the sweep read them; one that does not read
    so here is built from that text (hscc.program_files), and the run and its errors
    name the original file. `isolate`: a run of a program file in a process of its own
    (`hscc.isolated`), for a run in the sweep's own process (a worker is one already)."""
    moved: dict[str, str] = {}
    try:
        if sources:
            scenario, moved = program_files.localize(scenario, sources)
        built = start(Scenario(scenario), None, max_memory, max_events, isolate)
        if not files and isinstance(built, Run):  # the numbers alone: no files, no manifest
            summary, table = built.finish_summary()
            return "ok", None, metrics.row(summary, lambda: table("web"), lambda: table("links"))
        result = built.finish()
    except (ScenarioError, RunError) as e:
        return "failed", program_files.told_as_original(str(e), moved), None
    except OSError as e:  # the copy could not be written
        return "failed", f"cannot write a program's copy into the cache: {e}", None
    if moved:
        manifest = result.manifest
        manifest["scenario"] = program_files.renamed(manifest["scenario"], moved)
        if "programs" in manifest:
            manifest["programs"] = {moved.get(p, p): d for p, d in manifest["programs"].items()}
    row = metrics.row(result.summary, lambda: result.web, lambda: result.links)
    if into is None:
        return "ok", result.files() if files else None, row
    try:
        write_run(into, result.files())
    except OSError as e:
        return "unwritten", e, None
    return "ok", None, row


def run_jobs(
    scenarios: list[dict[str, Any]],
    max_memory: int | None,
    max_events: int | None,
    files: bool,
    imports: tuple[str, ...] = (),
    sources: dict[str, program_files.Source] | None = None,
    isolate: bool = False,
    into: list[str] | None = None,
) -> tuple[list[tuple[str, Any, Any]], float]:
    """`run_job` for each of a task's scenarios, in order (short runs go a few to a task),
    after importing `imports`, the modules of the sweep's Python algorithms (importing one
    registers its algorithms in this process); `sources`, the program files they name;
    `isolate` and `into` (one per scenario), as `run_job`. Also the seconds the runs took here, all included (the engine
    is a fraction of a short run's), by which the sweep sizes its next tasks."""
    for module in imports:
        importlib.import_module(module)
    start = time.perf_counter()
    results = [
        run_job(s, max_memory, max_events, files, sources, isolate, into[i] if into else None)
        for i, s in enumerate(scenarios)
    ]
    return results, time.perf_counter() - start

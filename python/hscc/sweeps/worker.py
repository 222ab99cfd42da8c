"""What a worker process (local pool or Dask) does with one run: simulate it
and send back its files and metrics, or the engine's error. Nothing is written
here; the sweep's own process stores what comes back."""

from __future__ import annotations

import importlib
import time
from typing import Any

from hscc import program_files
from hscc.errors import RunError, ScenarioError
from hscc.runner import Run, start
from hscc.scenario import Scenario
from hscc.sweeps import metrics


def run_job(
    scenario: dict[str, Any],
    max_memory: int | None,
    max_events: int | None,
    files: bool,
    sources: dict[str, program_files.Source] | None = None,
    isolate: bool = False,
) -> tuple[str, Any, Any]:
    """("ok", the run directory's files if `files` else None, metrics row) or ("failed", message, None).

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
    return (
        "ok",
        result.files() if files else None,
        metrics.row(result.summary, lambda: result.web, lambda: result.links),
    )


def run_jobs(
    scenarios: list[dict[str, Any]],
    max_memory: int | None,
    max_events: int | None,
    files: bool,
    imports: tuple[str, ...] = (),
    sources: dict[str, program_files.Source] | None = None,
    isolate: bool = False,
) -> tuple[list[tuple[str, Any, Any]], float]:
    """`run_job` for each of a task's scenarios, in order (short runs go a few to a task),
    after importing `imports`, the modules of the sweep's Python algorithms (importing one
    registers its algorithms in this process); `sources`, the program files they name;
    `isolate`, as `run_job`. Also the seconds the runs took here, all included (the engine
    is a fraction of a short run's), by which the sweep sizes its next tasks."""
    for module in imports:
        importlib.import_module(module)
    start = time.perf_counter()
    results = [run_job(s, max_memory, max_events, files, sources, isolate) for s in scenarios]
    return results, time.perf_counter() - start

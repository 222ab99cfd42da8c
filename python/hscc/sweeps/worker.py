"""What a worker process (local pool or Dask) does with one run: simulate it
and send back its files and metrics, or the engine's error. Nothing is written
here; the sweep's own process stores what comes back."""

from __future__ import annotations

import importlib
import os
import select
import signal
import threading
from typing import Any

from hscc.errors import RunError, ScenarioError
from hscc.runner import run
from hscc.scenario import Scenario
from hscc.sweeps import metrics, programs


def run_job(
    scenario: dict[str, Any],
    max_memory: int | None,
    max_events: int | None,
    files: bool,
    sources: dict[str, programs.Source] | None = None,
) -> tuple[str, Any, Any]:
    """("ok", the run directory's files if `files` else None, metrics row) or ("failed", message, None).

    `scenario` is in the checked form the sweep's plan made (`Scenario.to_dict()`), so it
    is not checked again here; building the simulation still refuses anything invalid.
    `sources`: the program files it names, as the sweep read them; one that does not read
    so here is built from that text (hscc.sweeps.programs), and the run and its errors
    name the original file."""
    moved: dict[str, str] = {}
    try:
        if sources:
            scenario, moved = programs.localize(scenario, sources)
        result = run(Scenario(scenario), max_memory=max_memory, max_events=max_events)
    except (ScenarioError, RunError) as e:
        return "failed", programs.told_as_original(str(e), moved), None
    except OSError as e:  # the copy could not be written
        return "failed", f"cannot write a program's copy into the cache: {e}", None
    if moved:
        manifest = result.manifest
        manifest["scenario"] = programs.renamed(manifest["scenario"], moved)
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
    sources: dict[str, programs.Source] | None = None,
) -> list[tuple[str, Any, Any]]:
    """`run_job` for each of a task's scenarios, in order (short runs go a few to a task),
    after importing `imports`, the modules of the sweep's Python algorithms (importing one
    registers its algorithms in this process); `sources`, the program files they name."""
    for module in imports:
        importlib.import_module(module)
    return [run_job(s, max_memory, max_events, files, sources) for s in scenarios]


def die_with_sweep(sweep_pid: int) -> None:
    """Pool initializer: end this worker as soon as the sweep's process `sweep_pid` ends
    (SIGKILL included), so that no orphan goes on computing runs nobody will store.
    The worker's parent is the fork server, not the sweep, hence a watch on the sweep itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the sweep's to handle
    try:
        fd = os.pidfd_open(sweep_pid)
    except (AttributeError, OSError):
        return  # not Linux ≥ 5.3: the pool's own pipes end the worker when it next asks for work
    threading.Thread(
        target=_exit_when_readable, args=(fd,), daemon=True, name="hscc-sweep-watch"
    ).start()


def _exit_when_readable(fd: int) -> None:
    select.select([fd], [], [])  # a pidfd becomes readable when its process ends
    os._exit(1)

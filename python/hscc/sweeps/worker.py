"""What a worker process (local pool or Dask) does with one run: simulate it
and send back its files and metrics, or the engine's error. Nothing is written
here; the sweep's own process stores what comes back."""

from __future__ import annotations

import ctypes
import signal
import sys
from typing import Any

from hscc.errors import RunError, ScenarioError
from hscc.runner import run
from hscc.sweeps import metrics


def run_job(scenario: dict, max_memory: int | None, max_events: int | None) -> tuple[str, Any, Any]:
    """("ok", files, metrics row) or ("failed", message, None)."""
    try:
        result = run(scenario, max_memory=max_memory, max_events=max_events)
    except (ScenarioError, RunError) as e:
        return "failed", str(e), None
    return "ok", result.files(), metrics.row(result)


def die_with_parent() -> None:
    """Pool initializer: ask Linux to kill this worker when the sweep's process dies
    (SIGKILL included), so no orphan keeps computing a run nobody will store."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if sys.platform.startswith("linux"):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

"""The conditions of a part's measurement: the revision and whether the tree differs from
it, the engine's digest, the machine, the load average."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from . import ROOT

sys.path.insert(0, str(ROOT / "validation" / "results"))

import results  # noqa: E402


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _engine_digest() -> str | None:
    """The extension's engine digest; None where hscc's extension is not built."""
    try:
        from hscc import _core
    except ImportError:
        return None
    return _core.engine_digest()


def _modified() -> bool | None:
    """Whether tracked files differ from the revision (then it does not name what ran); the
    results this script writes, and the page made from them, are not code that ran."""
    status = results.git("status", "--porcelain", "--untracked-files=no")
    if status is None:
        return None
    ours = {"validation/results/performance.json", "docs/performance.md"}
    return any(line[3:] not in ours for line in status.splitlines() if line.strip())


def conditions(load_start: list[float], **extra: object) -> dict:
    return {
        "revision": results.revision(),
        "modified": _modified(),
        "engine": _engine_digest(),
        "machine": {"cpu": _cpu_model(), "cores": os.cpu_count(), "kernel": platform.release()},
        "load_average": {"start": load_start, "end": _load()},
        **extra,
    }

"""The sweeps part: scripts/bench-sweep.py run as it is, its figures read from its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import ROOT

SWEEP_REPS, SWEEP_REPS_QUICK = 3, 1
# A running Dask cluster's time for the tiny runs against the local pool's, in turn: the target.
DASK_TARGET = 1.3
# The stored runs' wall time on 2 workers against 1 worker's, each case: the target.
SPEED_UP_TARGET = 0.6


def _store_kind(path: str) -> str | None:
    """The file system under the sweeps' store (tmpfs, ext4...), from /proc/mounts: it sets
    the cost of a run directory."""
    try:
        mounts = [line.split()[1:3] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return None
    real = os.path.realpath(path)
    inside = [(m, kind) for m, kind in mounts if real == m or real.startswith(m.rstrip("/") + "/")]
    return max(inside, key=lambda mk: len(mk[0]))[1] if inside else None


def _rounded(values: list[float | None]) -> list[float | None]:
    # NaN (the new process's engine time, not measured) is not JSON: None.
    return [None if v is None or v != v else round(v, 4) for v in values]


def sweep_case(name: str) -> tuple[int, int]:
    """(workers, runs) of a case of bench-sweep.py's tiny runs, by its name (as its report)."""
    single = name.startswith(("1 run", "2 runs"))
    workers = 1 if "jobs=1" in name or name.startswith(("loop", "1 run")) else 2
    runs = 1 if name.startswith("1 run") else 2 if single else 200
    return workers, runs


def part_sweeps(quick: bool, tmp: Path) -> dict[str, object]:
    """bench-sweep.py run as it is, its figures read from the JSON it writes."""
    reps = SWEEP_REPS_QUICK if quick else SWEEP_REPS
    args = ["--reps", str(reps), *(["--no-dask"] if quick else [])]
    out = tmp / "sweeps.json"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench-sweep.py"), *args, "--json", str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        check=True,
    )
    raw = json.loads(out.read_text(encoding="utf-8"))
    tiny = []
    for name, pairs in raw["tiny"].items():
        workers, runs = sweep_case(name)
        tiny.append(
            {"name": name, "workers": workers, "runs": runs}
            | {
                "wall_s": _rounded([w for w, _ in pairs]),
                "engine_s": _rounded([e for _, e in pairs]),
            }
        )
    # CPU seconds per sweep by process group, for the cases bench-sweep.py counts.
    tiny_cpu = {
        name: {group: _rounded([s[group] for s in samples]) for group in samples[0]}
        for name, samples in raw.get("tiny_cpu", {}).items()
    }
    stored = [
        {
            "name": name,
            "engine_s": _rounded(r["E"]),
            "engine_cpu_s": _rounded(r["E cpu"]),
            "workers": [
                {
                    "jobs": jobs,
                    "wall_s": _rounded(r[f"jobs={jobs}"]),
                    "cpu_s": _rounded(r[f"cpu jobs={jobs}"]),
                    "own_cpu_s": _rounded(r[f"own cpu jobs={jobs}"]),
                }
                for jobs in (1, 2)
            ],
        }
        for name, r in raw["stored"].items()
    ]
    return {
        "command": "scripts/bench-sweep.py " + " ".join(args),
        "reps": reps,
        "store": _store_kind(tempfile.gettempdir()),
        "tiny": tiny,
        "tiny_cpu": tiny_cpu,
        # The rows measured in turn, pair by pair: [{label, local, dask}] (empty without Dask).
        "tiny_in_turn": raw.get("tiny_in_turn", []),
        "dask_target": DASK_TARGET,
        "speed_up_target": SPEED_UP_TARGET,
        "stored_runs": 200,
        "stored": stored,
    }

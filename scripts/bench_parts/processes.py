"""The timing of whole processes: the CPU time of the children waited for, hscc's CLI, and
one `hscc run -q` with the figures of its summary."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from . import ROOT


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _hscc_cli() -> list[str]:
    py = sys.executable
    script = Path(py).parent / "hscc"
    return [str(script)] if script.is_file() else [py, "-m", "hscc"]


def _timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    """(CPU time, user + system, of the whole process and those it waits for; its stdout)."""
    before = _child_cpu()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    cpu = _child_cpu() - before
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{p.stderr[-2000:]}")
    return cpu, p.stdout


def _hscc_run(scenario: Path, out: Path, env: dict[str, str]) -> dict:
    """`hscc run SCENARIO -q`: its CPU time, and from its summary.json the events, the data
    segments delivered and the engine's own (wall) time; the run directory then removed."""
    cpu, _ = _timed([*_hscc_cli(), "run", str(scenario), "-q", "--out", str(out)], ROOT, env)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    shutil.rmtree(out)
    return {
        "cpu_s": round(cpu, 4),
        "events": summary["events"],
        "data_segments": sum(f["delivered_segs"] for f in summary["flows"]),
        "data_segments_sent": sum(f["segs_sent"] for f in summary["flows"]),
        "acks": sum(f["acks_sent"] for f in summary["flows"]),
        # A packet sent on a link is one event (its arrival at the link's far end).
        "link_packets": {x["name"]: x["tx_packets"] for x in summary["links"]},
        "utilization": next(
            (x["utilization"] for x in summary["links"] if x["name"] == "bottleneck:fwd"), None
        ),
        "engine_wall_s": round(summary["wall_time_s"], 4),
    }


def _ratios(a: list[float], b: list[float]) -> list[float]:
    return [round(x / y, 3) for x, y in zip(a, b, strict=True)]

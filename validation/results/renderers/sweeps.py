"""performance.json's sweeps part: stored and tiny runs through the sweep harness."""

from __future__ import annotations

import statistics
from typing import Any

from .markdown import _met, _table
from .performance import _measured, _part


def _sweeps_stored(part: dict[str, Any]) -> str:
    n = part["stored_runs"]
    rows = []
    for case in part["stored"]:
        e, ecpu = statistics.median(case["engine_s"]), statistics.median(case["engine_cpu_s"])
        for i, w in enumerate(case["workers"]):
            wall = statistics.median(w["wall_s"])
            cpu, own = statistics.median(w["cpu_s"]), statistics.median(w["own_cpu_s"])
            rows.append(
                [
                    f"{case['name']} ({e / n * 1e3:.1f} ms of engine per run)" if i == 0 else "",
                    str(w["jobs"]),
                    f"{wall:.2f} s",
                    f"{wall / (e / w['jobs']):.2f}",
                    f"{(cpu - own) / n * 1e3:.1f} + {own / n * 1e3:.1f} ms",
                    f"{cpu / ecpu:.2f}",
                ]
            )
    head = [
        "case",
        "workers",
        "wall, median",
        "wall / (E / workers)",
        "CPU per run: workers + sweep's process",
        "CPU / engine's CPU",
    ]
    return (
        f"{n} stored runs of 1 simulated second each, store on {part['store']}.\n\n"
        + _table(head, rows)
        + _sweeps_speed_up(part)
    )


def _sweeps_speed_up(part: dict[str, Any]) -> str:
    """Each stored case's wall time on 2 workers against 1 worker's, and the target."""
    target, verdicts = part["speed_up_target"], []
    for case in part["stored"]:
        wall = {w["jobs"]: statistics.median(w["wall_s"]) for w in case["workers"]}
        ratio = wall[2] / wall[1]
        met = _met(ratio, target)
        verdicts.append(f"{case['name']} {ratio:.2f}×, {met}")
    return (
        f"\nTarget: 2 workers within {target}× of 1 worker's wall time: "
        + "; ".join(verdicts)
        + ".\n"
    )


def _sweeps_tiny(part: dict[str, Any]) -> str:
    cases = {c["name"]: c for c in part["tiny"]}
    loop = cases["loop of hscc.run"]
    engine = statistics.median(loop["engine_s"])
    total = loop["runs"]
    rows = []
    for c in part["tiny"]:
        wall = statistics.median(c["wall_s"])
        cached = "cached" in c["name"]
        e = 0.0 if cached else engine * c["runs"] / total
        per_run = c["runs"] == total
        rows.append(
            [
                c["name"],
                str(c["workers"]),
                f"{wall:.2f} s",
                f"{c['runs'] / wall:.0f}" if per_run else "",
                f"{(wall - e / c['workers']) / c['runs'] * 1e3:.1f}" if per_run else "",
            ]
        )
    head = ["case", "workers", "wall, median", "runs/s", "overhead ms per run"]
    return (
        f"{total} tiny runs (two Reno flows on 10 Mbit/s, 1 s simulated): engine time E "
        f"{engine:.3f} s, {engine / total * 1e3:.2f} ms per run; store on {part['store']}.\n\n"
        + _table(head, rows)
        + _sweeps_in_turn(part, cases)
        + _sweeps_cpu(part, cases)
    )


def _sweeps_in_turn(part: dict[str, Any], cases: dict[str, Any]) -> str:
    """The running cluster against the local pool, measured in turn pair by pair, and the
    target, held against the larger of the ratios; empty without those rows."""
    if not part.get("tiny_in_turn"):
        return ""
    lines, worst = [], 0.0
    for t in part["tiny_in_turn"]:
        local, dask = cases[t["local"]]["wall_s"], cases[t["dask"]]["wall_s"]
        ratios = [d / lo for d, lo in zip(dask, local, strict=True)]
        ratio = statistics.median(ratios)
        worst = max(worst, ratio)
        lines.append(
            f"{t['label']}, {ratio:.2f}× (the median of {len(ratios)} pairs: "
            f"{', '.join(f'{r:.2f}' for r in ratios)})"
        )
    target = part["dask_target"]
    met = _met(worst, target)
    return (
        "\nThe running cluster's time against the local pool's, the 200 runs out=None in turn: "
        + "; ".join(lines)
        + f". Target ≤ {target}× (both ways): {met}.\n"
    )


# The process groups bench-sweep.py counts, as the CPU table names them, in its columns.
_CPU_COLUMNS = ("the sweep's process", "workers", "Dask's scheduler")
_GROUPS = {
    "sweep": "the sweep's process",
    "pool": "workers",
    "workers": "workers",
    "scheduler": "Dask's scheduler",
}


def _sweeps_cpu(part: dict[str, Any], cases: dict[str, Any]) -> str:
    """CPU seconds per sweep by process group (the medians of the repetitions), beside the
    runs' own engine time, for the cases bench-sweep.py counts; empty without them."""
    counted = part.get("tiny_cpu") or {}
    if not counted:
        return ""
    med = statistics.median
    rows = []
    for name, groups in counted.items():
        spent = {_GROUPS[g]: med(v) for g, v in groups.items()}
        totals = [sum(sample) for sample in zip(*groups.values(), strict=True)]
        rows.append(
            [
                name,
                f"{med(cases[name]['engine_s']):.3f} s",
                *(f"{spent[label]:.3f} s" if label in spent else "–" for label in _CPU_COLUMNS),
                f"{med(totals):.3f} s",
            ]
        )
    head = ["case", "Σ of the runs' wall_time_s", *_CPU_COLUMNS, "CPU in all"]
    return (
        "\nCPU per sweep of those runs by process group (medians), the local pool's "
        "workers counted with its fork server, Dask's with their nannies:\n\n" + _table(head, rows)
    )


def perf_sweeps(doc: dict[str, Any], group: str | None) -> str:
    part = _part(doc, "sweeps")
    body = _sweeps_tiny(part) if group == "tiny" else _sweeps_stored(part)
    reps = part["reps"]
    of = "one repetition" if reps == 1 else f"the median of {reps} repetitions"
    return _measured(part) + f"`{part['command']}`, {of}. " + body

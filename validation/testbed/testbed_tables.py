"""The Markdown tables of a validation run (table.md) and its results.json: per kernel run,
the spread over seeds and repetitions, the trajectories, the models."""

from __future__ import annotations

import json
from pathlib import Path

from testbed_models import model_table


def write_tables(out: Path, rows: list[dict], spreads: list[dict]) -> None:
    (out / "results.json").write_text(json.dumps({"rows": rows, "spread": spreads}, indent=1))
    text = (
        table(rows)
        + "\n"
        + spread_table(spreads)
        + "\n"
        + trajectory_table(spreads)
        + "\n"
        + model_table(spreads)
    )
    (out / "table.md").write_text(text)
    print(text)


def table(rows: list[dict]) -> str:
    """One line per kernel run, against the simulator's seed-1 run."""
    head = (
        "| configuration | goodput sim → kernel (Mbit/s) | kernel / sim | per flow | Jain sim / kernel | "
        "loss sim / kernel | retrans sim / kernel | qdelay sim / kernel (ms) | stall (ms), load |"
    )
    out = [head, "|" + "---|" * 9]
    for r in rows:
        algos = r["algorithm_ratio"]
        per_algo = " ".join(f"{a} {v:.2f}" for a, v in algos.items()) if len(algos) > 1 else ""
        out.append(
            f"| {r['config']}{' #' + str(r['repetition'] + 1) if r['repetition'] else ''} | "
            f"{r['sim_goodput'] / 1e6:.1f} → {r['kernel_goodput'] / 1e6:.1f} | {r['kernel_goodput'] / r['sim_goodput']:.3f} | "
            f"{r['per_flow_ratio_min']:.2f}–{r['per_flow_ratio_max']:.2f} {per_algo} | "
            f"{r['jain_sim']:.3f} / {r['jain_kernel']:.3f} | {r['loss_sim']:.2e} / {r['loss_kernel']:.2e} | "
            f"{r['retrans_sim']:.2e} / {r['retrans_kernel']:.2e} | {r['qdelay_sim'] * 1e3:.1f} / {r['qdelay_kernel'] * 1e3:.1f} | "
            f"{r['max_stall_s'] * 1e3:.1f}{' FLAGGED' if r['flags'] else ''}, {r['load_avg']:.1f} |"
        )
    return "\n".join(out) + "\n"


def shares(runs: list[dict]) -> str:
    """Over `runs`: each algorithm's share of the aggregate goodput when they mix algorithms, else the
    smallest and largest flow's goodput over the fair share; "–" for one flow."""
    if not runs or len(runs[0]["flows"]) < 2:
        return "–"
    if len(runs[0]["algorithms"]) > 1:
        return ", ".join(
            f"{a} {_range([r['algorithms'][a] / r['goodput'] for r in runs], '.2f')}"
            for a in runs[0]["algorithms"]
        )
    fair = [r["goodput"] / len(r["flows"]) for r in runs]
    return (
        f"min {_range([min(r['flows']) / f for r, f in zip(runs, fair, strict=True)], '.2f')}, "
        f"max {_range([max(r['flows']) / f for r, f in zip(runs, fair, strict=True)], '.2f')}"
    )


def _range(values: list, fmt: str) -> str:
    """min–max (mean) of `values`, or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    if len(values) == 1:
        return format(values[0], fmt)
    return f"{format(min(values), fmt)}–{format(max(values), fmt)} ({format(sum(values) / len(values), fmt)})"


def spread_table(spreads: list[dict]) -> str:
    """Per configuration: the simulator over its seeds next to the kernel over its repetitions."""
    head = (
        "| configuration (s) | runs sim / kernel | goodput sim (Mbit/s) | goodput kernel | Jain sim | Jain kernel | "
        "shares sim | shares kernel | loss sim | loss kernel | retrans sim | retrans kernel |"
    )
    out = [head, "|" + "---|" * 12]
    for s in spreads:
        cells = []
        for key, fmt, scale in (("goodput", ".1f", 1e-6), ("jain", ".3f", 1)):
            cells += [
                _range([r[key] * scale if r[key] is not None else None for r in s[side]], fmt)
                for side in ("sim", "kernel")
            ]
        cells += [shares(s[side]) for side in ("sim", "kernel")]
        for key in ("loss", "retrans"):
            cells += [_range([r[key] for r in s[side]], ".2e") for side in ("sim", "kernel")]
        out.append(
            f"| {s['config']} ({s['seconds']:g}) | {len(s['sim'])} / {len(s['kernel'])} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(out) + "\n"


def trajectory_table(spreads: list[dict]) -> str:
    """Configurations of one flow: its slow-start exit and sawtooth, the simulator (seeds) against the kernel (repetitions)."""
    head = (
        "| configuration (s) | slow-start exit sim: s, cwnd | kernel | reductions sim | kernel | "
        "sawtooth period sim (s) | kernel |"
    )
    out = [head, "|" + "---|" * 7]
    for s in spreads:
        if len(s["sim"][0]["flows"]) != 1:
            continue
        cells = []
        for side in ("sim", "kernel"):
            t = [r["trajectory"] for r in s[side]]
            cells.append(
                f"{_range([x['exit_s'] for x in t], '.2f')}, {_range([x['exit_cwnd'] for x in t], '.0f')}"
            )
        for key, fmt in (("reductions", ".0f"), ("period_s", ".1f")):
            cells += [
                _range([r["trajectory"][key] for r in s[side]], fmt) for side in ("sim", "kernel")
            ]
        out.append(f"| {s['config']} ({s['seconds']:g}) | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"

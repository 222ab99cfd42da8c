"""validation/results/kernel.json's entries from a validation run: the simulator's seed 1 and
spread over its seeds against each kernel run and their spread."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from testbed_configs import CONFIGS
from testbed_models import model_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "results"))
import results as results_file  # noqa: E402


def _triple(values: list) -> float | list | None:
    """[min, max, mean] of the values, the one value, or None (as `_range` prints them)."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return [min(values), max(values), sum(values) / len(values)]


def shares_data(runs: list[dict]) -> dict | None:
    """`shares` as data: per algorithm, or the smallest and largest flow over the fair share."""
    if not runs or len(runs[0]["flows"]) < 2:
        return None
    if len(runs[0]["algorithms"]) > 1:
        return {
            a: _triple([r["algorithms"][a] / r["goodput"] for r in runs])
            for a in runs[0]["algorithms"]
        }
    fair = [r["goodput"] / len(r["flows"]) for r in runs]
    return {
        "min": _triple([min(r["flows"]) / f for r, f in zip(runs, fair, strict=True)]),
        "max": _triple([max(r["flows"]) / f for r, f in zip(runs, fair, strict=True)]),
    }


def _side(runs: list[dict]) -> tuple[dict, dict | None]:
    """One side's spread (goodput, Jain, shares, loss, retransmissions) and, for one flow, its trajectory."""
    spread = {
        "goodput_bps": _triple([r["goodput"] for r in runs]),
        "jain": _triple([r["jain"] for r in runs]),
        "shares": shares_data(runs),
        "loss": _triple([r["loss"] for r in runs]),
        "retrans": _triple([r["retrans"] for r in runs]),
    }
    if not runs or len(runs[0]["flows"]) != 1:
        return spread, None
    t = [r["trajectory"] for r in runs]
    return spread, {
        k: _triple([x[k] for x in t]) for k in ("exit_s", "exit_cwnd", "reductions", "period_s")
    }


def result_entries(rows: list[dict], spreads: list[dict]) -> list[dict]:
    """validation/results/kernel.json's entries for the configurations of this run (results.py has the schema):
    the simulator's seed 1 and spread over its seeds against each kernel run and their spread.
    A spread's `kernel_seeds`: kernel run k ran seed k and compares with the simulator's seed k
    (each run keeps its `seed`)."""
    models: dict[tuple[str, str], list] = {}
    for config, side, m in model_rows(spreads):
        models.setdefault((config, side), []).append(m)
    entries = []
    for s in spreads:
        name, c = s["config"], CONFIGS[s["config"]]
        kernel_seeds = s.get("kernel_seeds", False)
        runs = [r for r in rows if r["config"] == name]
        if not runs:
            continue
        first = runs[0]
        loads = [r["load_avg"] for r in runs]
        sim_spread, sim_traj = _side(s["sim"])
        kernel_spread, kernel_traj = _side(s["kernel"])
        measured = {
            "seeds": len(s["sim"]),
            "goodput_bps": first["sim_goodput"],
            "jain": first["jain_sim"],
            "loss": first["loss_sim"],
            "retrans": first["retrans_sim"],
            "qdelay_s": first["qdelay_sim"],
            "spread": sim_spread,
        }
        reference = {
            "runs": [
                {
                    "goodput_bps": r["kernel_goodput"],
                    "goodput_ratio": r["kernel_goodput"] / r["sim_goodput"],
                    "per_flow_ratio": [r["per_flow_ratio_min"], r["per_flow_ratio_max"]],
                    "algorithm_ratio": r["algorithm_ratio"]
                    if len(r["algorithm_ratio"]) > 1
                    else None,
                    "jain": r["jain_kernel"],
                    "loss": r["loss_kernel"],
                    "retrans": r["retrans_kernel"],
                    "qdelay_s": r["qdelay_kernel"],
                    "max_stall_s": r["max_stall_s"],
                    "flagged": bool(r["flags"]),
                    "load_avg": r["load_avg"],
                    **({"seed": r["seed"]} if kernel_seeds else {}),
                }
                for r in runs
            ],
            "spread": kernel_spread,
        }
        if sim_traj and kernel_traj:
            measured["trajectory"], reference["trajectory"] = sim_traj, kernel_traj
        if (name, "sim") in models or (name, "kernel") in models:
            measured["models"] = models.get((name, "sim"), [])
            reference["models"] = models.get((name, "kernel"), [])
        command = (
            f"sudo .venv/bin/python validation/testbed/validate.py --out DIR --only {name} --repeat {len(runs)}"
            + (f" --sim-seeds {len(s['sim'])}" if len(s["sim"]) > 1 else "")
            + (" --kernel-seeds" if kernel_seeds else "")
        )
        e = {
            "name": name,
            "group": results_file.kernel_group(name),
            "date": results_file.today(),
            "command": command,
            "source": results_file.run_source("validation/testbed/validate.py"),
            "conditions": f"Linux {platform.release()}; load average {min(loads):.1f}–{max(loads):.1f} as the kernel runs started"
            + ("; the testbed's limits lifted" if c.lift_limits else ""),
            "seconds": float(s["seconds"]),
            "flows": sum(n for _, n in c.flows),
            "measured": measured,
            "reference": reference,
            "tolerance": dict(results_file.KERNEL_TOLERANCE),
        }
        e["verdict"] = results_file.kernel_verdict(e)
        entries.append(e)
    return entries

"""The `linux` profile against the stored kernel runs, on the simulator's side only.

validation/testbed's Reno and CUBIC configurations whose kernel side runs Linux's
built-in reno and cubic (no variant, one RTT), simulated as written (hscc's
defaults) and with `stack = "linux"` and nothing else set, each beside the kernel
runs stored in validation/results/kernel.json: aggregate goodput and loss at the
bottleneck (drops / packets offered), with several flows each algorithm's mean share
(or the smallest and largest flow's over the fair share) against the kernel's and,
with random loss, the mean sRTT after the slow start, over the kernel runs' seeds 1..N
where they are draws of the random loss (validate.py --kernel-seeds), else seeds 1..N
(N the kernel runs, at least five) with random loss or several flows and seed 1 otherwise. Prints the Markdown table of
docs/validation/kernel.md ("The linux profile"); `--write` puts it between the page's
`<!-- printed: validation/testbed/stack_linux.py -->` markers, and
tests/python/test_testbed_validation.py fails when the page holds another table (the
simulations are deterministic). No root and no kernel runs: a few seconds.

    .venv/bin/python validation/testbed/stack_linux.py [--write]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import hscc
from hscc import compare

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import testbed_configs  # noqa: E402  (this directory's)
import testbed_entries  # noqa: E402
import testbed_summary  # noqa: E402


class Simulated(NamedTuple):
    goodput_bps: float
    loss: float
    shares: dict[str, float]
    srtt_s: float | None


def mean_shares(stored: dict | None) -> dict[str, float]:
    """The mean of each share `testbed_entries.shares_data` gives: a run's value or
    [min, max, mean] over runs ({} for one flow)."""
    return {k: v[2] if isinstance(v, list) else v for k, v in (stored or {}).items()}


def simulate(d: dict, seeds: Sequence[int]) -> Simulated:
    """Means over `seeds` of the scenario's aggregate goodput (bit/s), bottleneck loss, shares
    and, with random loss, the first flow's sRTT after the slow start (s; `testbed_summary.steady`)."""
    traced = bool(d["topology"]["bottleneck"].get("loss"))
    output = d["output"] if traced else {"sample_interval": "1s", "traces": []}
    runs = [hscc.run({**d, "seed": s, "output": output}) for s in seeds]
    sums = [
        {
            "goodput": float(r.flows["goodput_bps"].sum()),
            "flows": r.flows["goodput_bps"].to_list(),
            "algorithms": testbed_summary.by_algorithm(r),
        }
        for r in runs
    ]
    srtt = None
    if traced:
        steady = [testbed_summary.summary(r)["steady"] for r in runs]
        srtt = statistics.mean(x["mean_srtt_s"] for x in steady if x)
    return Simulated(
        statistics.mean(x["goodput"] for x in sums),
        statistics.mean(compare.loss(r) for r in runs),
        mean_shares(testbed_entries.shares_data(sums)),
        srtt,
    )


def share_ratios(sim: dict[str, float], kernel: dict[str, float]) -> str:
    """Each share of the simulator over the kernel's ("–": one flow)."""
    return ", ".join(f"{k} {sim[k] / kernel[k]:.3f}" for k in sim) or "–"


def ms(s: float | None) -> str:
    """Seconds as milliseconds, one decimal ("–": not measured)."""
    return "–" if s is None else f"{1e3 * s:.1f}"


PAGE = HERE.parents[1] / "docs" / "validation" / "kernel.md"
OPEN, CLOSE = "<!-- printed: validation/testbed/stack_linux.py -->\n", "<!-- end printed -->"


def table() -> str:
    """The Markdown table, one row per configuration, ending with a newline."""
    stored = json.loads((HERE.parents[0] / "results" / "kernel.json").read_text())
    kernel = {c["name"]: c for c in stored["configurations"] if c["group"] == "reno-cubic"}
    lines = [
        "| configuration | seeds / kernel runs | sim / kernel, defaults | sim / kernel, `linux` "
        "| loss kernel | loss sim, defaults | loss sim, `linux` "
        "| shares sim / kernel, defaults | `linux` "
        "| sRTT after 5 s (ms): kernel | defaults | `linux` |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in testbed_configs.CONFIGS.items():
        if (
            name not in kernel
            or c.variant
            or c.sim_rto
            or c.rtts
            or any(a not in ("reno", "cubic") for a, _ in c.flows)
        ):
            continue
        runs = kernel[name]["reference"]["runs"]
        k_goodput = statistics.mean(r["goodput_bps"] for r in runs)
        k_loss = statistics.mean(r["loss"] for r in runs)
        # Kernel runs of seeds 1..N (one random-loss draw each) against the same seeds.
        drawn = [r["seed"] for r in runs if "seed" in r]
        several = sum(n for _, n in c.flows) > 1
        # As many simulator seeds as kernel runs, at least five, where the seed changes the run.
        seeds = drawn or (range(1, max(5, len(runs)) + 1) if c.loss or several else range(1, 2))
        plain = testbed_configs.scenario(name, 30.0, "sim")
        d = simulate(plain, seeds)
        x = simulate({**plain, "stack": "linux"}, seeds)
        k_shares = mean_shares(kernel[name]["reference"]["spread"]["shares"])
        models = kernel[name]["reference"].get("models") or []
        k_srtt = [m["steady_srtt_s"] for m in models if m.get("steady_srtt_s")]
        k_srtt_mean = statistics.mean(k_srtt) if k_srtt and d.srtt_s else None
        lines.append(
            f"| {name} | {len(seeds)} / {len(runs)} "
            f"| {d.goodput_bps / k_goodput:.3f} | {x.goodput_bps / k_goodput:.3f} "
            f"| {k_loss:.2e} | {d.loss:.2e} | {x.loss:.2e} "
            f"| {share_ratios(d.shares, k_shares)} | {share_ratios(x.shares, k_shares)} "
            f"| {ms(k_srtt_mean)} | {ms(d.srtt_s)} | {ms(x.srtt_s)} |"
        )
    return "\n".join(lines) + "\n"


def printed(page: str) -> str:
    """The table between the page's markers."""
    start = page.index(OPEN) + len(OPEN)
    return page[start : page.index(CLOSE, start)]


def main() -> None:
    text = table()
    if sys.argv[1:] == ["--write"]:
        page = PAGE.read_text(encoding="utf-8")
        PAGE.write_text(page.replace(printed(page), text, 1), encoding="utf-8")
        print(f"wrote {PAGE}")
    elif sys.argv[1:]:
        sys.exit(f"unknown arguments {sys.argv[1:]} (allowed: --write)")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()

"""The `linux` profile against the stored kernel runs, on the simulator's side only.

validation/testbed's Reno and CUBIC configurations whose kernel side runs Linux's
built-in reno and cubic (no variant, one RTT), simulated as written (hscc's
defaults) and with `stack = "linux"` and nothing else set, each beside the kernel
runs stored in validation/results/kernel.json: aggregate goodput and loss at the
bottleneck (drops / packets offered), over the kernel runs' seeds 1..N where they
are draws of the random loss (validate.py --kernel-seeds), else seeds 1-5 with
random loss and seed 1 without, as validate.py measures them. Prints the Markdown table of
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

import hscc
from hscc import compare

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import testbed_configs  # noqa: E402  (this directory's)


def simulate(d: dict, seeds: Sequence[int]) -> tuple[float, float]:
    """Mean aggregate goodput (bit/s) and bottleneck loss of the scenario over `seeds`."""
    runs = [
        hscc.run({**d, "seed": s, "output": {"sample_interval": "1s", "traces": []}}) for s in seeds
    ]
    goodput = statistics.mean(float(r.flows["goodput_bps"].sum()) for r in runs)
    return goodput, statistics.mean(compare.loss(r) for r in runs)


PAGE = HERE.parents[1] / "docs" / "validation" / "kernel.md"
OPEN, CLOSE = "<!-- printed: validation/testbed/stack_linux.py -->\n", "<!-- end printed -->"


def table() -> str:
    """The Markdown table, one row per configuration, ending with a newline."""
    stored = json.loads((HERE.parents[0] / "results" / "kernel.json").read_text())
    kernel = {c["name"]: c for c in stored["configurations"] if c["group"] == "reno-cubic"}
    lines = [
        "| configuration | seeds / kernel runs | sim / kernel, defaults | sim / kernel, `linux` "
        "| loss kernel | loss sim, defaults | loss sim, `linux` |",
        "|---|---|---|---|---|---|---|",
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
        seeds = drawn or (range(1, 6) if c.loss else range(1, 2))
        plain = testbed_configs.scenario(name, 30.0, "sim")
        g0, l0 = simulate(plain, seeds)
        g1, l1 = simulate({**plain, "stack": "linux"}, seeds)
        lines.append(
            f"| {name} | {len(seeds)} / {len(runs)} | {g0 / k_goodput:.3f} | {g1 / k_goodput:.3f} "
            f"| {k_loss:.2e} | {l0:.2e} | {l1:.2e} |"
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

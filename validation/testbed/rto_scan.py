"""Which of validate.py's configurations the simulator runs differently with Linux's
RTO estimator (`rto_estimator = "linux"`) than with its default (RFC 6298's):
timeouts, goodput and Jain's index of seed 1, for each configuration where any differs.

    .venv/bin/python validation/testbed/rto_scan.py [--seconds 30]

Simulator only (a few minutes). docs/validation/kernel.md (the RTO at 10 Mbit/s × 100 ms)
quotes it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import hscc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import testbed_configs  # noqa: E402  (this directory's)


def run(name: str, seconds: float, estimator: str) -> tuple[int, float, float | None]:
    r = hscc.run(testbed_configs.scenario(name, seconds, "sim", seed=1, rto_estimator=estimator))
    return int(r.flows["timeouts"].sum()), r.summary["total_goodput_bps"], r.summary["jain_index"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    args = ap.parse_args()
    names = [
        n for n, c in testbed_configs.CONFIGS.items() if not c.sim_rto
    ]  # the -linux-rto ones set it already
    differ = 0
    for name in names:
        a, b = run(name, args.seconds, "rfc6298"), run(name, args.seconds, "linux")
        if a != b:
            differ += 1
            print(
                f"{name}: timeouts {a[0]} -> {b[0]}, goodput {a[1] / 1e6:.2f} -> {b[1] / 1e6:.2f} Mbit/s, "
                f"Jain {a[2]:.3f} -> {b[2]:.3f}",
                flush=True,
            )
    print(f"{differ} of {len(names)} configurations differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())

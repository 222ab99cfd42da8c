"""hscc's side of a configuration with its bottleneck queue one packet shorter and longer.

    python validation/ns2/queue_spread.py NAME [NAME ...] [--seed N] [--duration S]

Nothing in the ctcp-* and sync-* configurations is random (no host jitter, no UDP), so
each tool's run is one start-up, and one queue place can move which segments an overflow
takes, whether a fast retransmission survives and so the whole run. For each NAME this
runs hscc with the bottleneck's buffer N - 1, N and N + 1 packets (N the configuration's)
and prints the numbers the cross-check compares: how far apart runs that differ by one
packet are, beside the distance between the two tools (docs/validation/ns2.md, "The
queue limit").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ns2_configs as configs  # noqa: E402
import validate  # noqa: E402

from hscc.scenario import Scenario  # noqa: E402


def spread(c: configs.Config, seed: int = 1, duration: float | None = None) -> list[dict]:
    """hscc's compared numbers with the bottleneck buffer N - 1, N and N + 1 packets."""
    base = c.scenario(seed, duration)
    engine = Scenario.parse(base).to_engine()
    n = int(engine["topology"]["bottleneck"]["buffer"]["packets"])
    rows = []
    for packets in (n - 1, n, n + 1):
        s: dict[str, Any] = {**base, "topology": {**base["topology"]}}
        s["topology"]["bottleneck"] = {**s["topology"]["bottleneck"], "buffer": f"{packets}pkts"}
        with tempfile.TemporaryDirectory() as d:
            out = validate.run_hscc(s, Path(d))
        rows.append({"buffer": packets, **validate.summarize(out, c, engine, hscc_side=True)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+", choices=sorted(configs.CONFIGS), metavar="NAME")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, help="simulated seconds (default: the entry's)")
    args = ap.parse_args()
    print("| configuration | buffer | goodput ratio | loss events a / b | timeouts |")
    print("|---|---|---|---|---|")
    for name in args.names:
        for r in spread(configs.CONFIGS[name], args.seed, args.duration):
            ratio = "–" if r["ratio"] is None else f"{r['ratio']:.2f}"
            print(
                f"| {name} | {r['buffer']} | {ratio} | "
                f"{r['loss_events_a']} / {r['loss_events_b']} | {r['timeouts']} |"
            )


if __name__ == "__main__":
    main()

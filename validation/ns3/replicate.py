"""Independent replications of configurations in one tool: mean aggregate goodput ± standard error.

    <ns-3 venv>/bin/python replicate.py ns3 NAME[,NAME...] RUNS      # e.g. 20: seeds 1..20
    <hscc venv>/bin/python replicate.py hscc NAME[,NAME...] RUNS

One seed is one draw (a run's goodput varies by 3-5 % from seed to seed under
random loss); docs/validation/ns3.md has the 20-replication table this prints
(validation/results/ns3.json, "replications"). Replication k is seed k in hscc and run k under seed 1 in ns-3
(ns3_dumbbell.py), ns-3's independent substreams. ns-3's bindings are imported
once for all runs. Prints one JSON line per run, then a summary line per name.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import replace

import configs


def _ns3_runner():
    import ns3_dumbbell

    helpers, done = ns3_dumbbell._cpp_helpers, []

    def once(ns) -> None:  # the C++ helpers can be defined once per process
        if not done:
            helpers(ns)
            done.append(True)

    ns3_dumbbell._cpp_helpers = once

    def run(c: configs.Config) -> dict:
        out = ns3_dumbbell.run(configs.ns3_json(c))
        return {
            "rx_bytes": sum(f["rx_bytes"] for f in out["flows"]),
            "random_drops": out["bottleneck_random_drops"],
            "tx_packets": out["bottleneck_tx_packets"],
        }

    return run


def _hscc_runner():
    import hscc

    def run(c: configs.Config) -> dict:
        r = hscc.run(configs.hscc_scenario(c))
        links = {x["name"]: x for x in r.links.iter_rows(named=True)}
        return {
            "rx_bytes": int(r.flows["delivered_bytes"].sum()),
            "random_drops": int(sum(x["drops_random"] for x in links.values())),
            "tx_packets": int(links["L-R:fwd"]["tx_packets"]),
        }

    return run


def main(argv: list[str]) -> int:
    if (
        len(argv) != 4
        or argv[1] not in ("ns3", "hscc")
        or not argv[3].isdigit()
        or not 2 <= int(argv[3]) <= 1000
    ):
        print("usage: replicate.py ns3|hscc NAME[,NAME...] RUNS (2 to 1000)", file=sys.stderr)
        return 2
    names = argv[2].split(",")
    unknown = [n for n in names if n not in configs.CONFIGS]
    if unknown:
        print(
            f"unknown configuration(s) {unknown}; known: {sorted(configs.CONFIGS)}", file=sys.stderr
        )
        return 2
    run = _ns3_runner() if argv[1] == "ns3" else _hscc_runner()
    for name in names:
        goodputs = []
        for k in range(1, int(argv[3]) + 1):
            c = replace(configs.CONFIGS[name], seed=k)
            row = dict(run(c), name=name, seed=k)
            row["goodput_mbps"] = row["rx_bytes"] * 8 / c.duration / 1e6
            goodputs.append(row["goodput_mbps"])
            print(json.dumps(row), flush=True)
        se = statistics.stdev(goodputs) / len(goodputs) ** 0.5
        print(
            f"# {argv[1]} {name}: {len(goodputs)} runs, aggregate goodput {statistics.mean(goodputs):.3f} ± {se:.3f} Mbit/s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

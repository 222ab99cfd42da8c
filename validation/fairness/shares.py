"""How identical flows share a bottleneck, with and without the host jitter
(docs/fairness.md, "Measurements"): each set-up's share of the aggregate goodput per
flow index, over seeds.

Set-ups (all Reno, flows started together):
- four flows on one host pair (1 Gbit/s access, 24 ms each way), 100 Mbit/s
  bottleneck, 1 ms, 417 packets (1 BDP): the scenario of
  crates/hscc-sim/tests/engine/fairness.rs;
- the same four flows, each on its own host pair;
- the CTCP paper's test bed: 8 flows, each on its own pair, 700 Mbit/s, 100 ms
  RTT, 1500 packets;
- the bandwidth-stolen baseline of crates/hscc-sim/tests/engine/traffic.rs: 8
  flows, each on its own pair, 100 Mbit/s, 30 ms RTT, 400 packets (flows 0-3 are
  the "regular" half).

Without jitter (`host_jitter = 0`) a run does not depend on its seed: seeds 1 and 2
are run and must agree. With the default jitter, SEEDS seeds. Per set-up: the mean
share per index, the standard deviation per index over seeds, the mean Jain index,
the largest over the smallest share per run (median and largest), and for the
8-flow baseline the share of flows 0-3. For the four-flow 30-s set-up, also the
statistics the fairness test's threshold rests on: the shares' sd, skewness and
kurtosis, and the largest |t| of 100 disjoint batches of 20 seeds.

    python validation/fairness/shares.py [--jobs 2] [--scale 1]   # writes validation/results/fairness.json

--scale multiplies every seed count (0.1 for a trial; its file says so).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import hscc
from hscc import _core
from hscc.scenario import Scenario

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "results"))
import results  # noqa: E402

OUT = HERE.parent / "results" / "fairness.json"


def four_one_pair(duration: float, seed: int, jitter: bool) -> dict[str, Any]:
    flow: dict[str, Any] = {"pair": 0, "algorithm": "reno", "count": 4}
    if not jitter:
        flow["host_jitter"] = "0s"
    return {
        "name": "four-reno-one-pair",
        "duration": f"{duration:g}s",
        "seed": seed,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "1ms", "buffer": "417pkts"},
            "pairs": [{"rate": "1Gbps", "delay": "24ms"}],
        },
        "flows": [flow],
    }


def own_pairs(
    n: int, rate: str, delay: str, rtt: str, buffer: str, duration: float, seed: int, jitter: bool
) -> dict[str, Any]:
    flows: list[dict[str, Any]] = []
    for i in range(n):
        f: dict[str, Any] = {"pair": i, "algorithm": "reno"}
        if not jitter:
            f["host_jitter"] = "0s"
        flows.append(f)
    return {
        "name": f"{n}-reno-own-pairs",
        "duration": f"{duration:g}s",
        "seed": seed,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": delay, "buffer": buffer},
            "pairs": [{"rate": "10Gbps" if rate == "700Mbps" else "1Gbps", "rtt": rtt}] * n,
        },
        "flows": flows,
    }


# name, what it is, duration (s), seeds with jitter, scenario(duration, seed, jitter)
SETUPS = [
    ("four-one-pair-60s", "4 Reno, one host pair, 60 s", 60.0, 1000, four_one_pair),
    ("four-one-pair-30s", "4 Reno, one host pair, 30 s", 30.0, 2000, four_one_pair),
    ("four-one-pair-300s", "4 Reno, one host pair, 300 s", 300.0, 20, four_one_pair),
    (
        "four-own-pairs-60s",
        "4 Reno, a host pair each (1 Gbit/s), 60 s",
        60.0,
        20,
        lambda d, s, j: own_pairs(4, "100Mbps", "1ms", "50ms", "417pkts", d, s, j),
    ),
    (
        "ctcp-test-bed-60s",
        "CTCP test bed: 8 Reno, a pair each, 700 Mbit/s, 100 ms, 1500 packets, 60 s",
        60.0,
        8,
        lambda d, s, j: own_pairs(8, "700Mbps", "1ms", "100ms", "1500pkts", d, s, j),
    ),
    (
        "stolen-baseline-30s",
        "bandwidth-stolen baseline: 8 Reno, a pair each, 100 Mbit/s, 30 ms, 400 packets, 30 s",
        30.0,
        20,
        lambda d, s, j: own_pairs(8, "100Mbps", "10ms", "30ms", "400pkts", d, s, j),
    ),
]


def shares(job: tuple[int, int, bool]) -> list[float]:
    i, seed, jitter = job
    _, _, duration, _, make = SETUPS[i]
    run = hscc.run(Scenario.parse(make(duration, seed, jitter)))
    g = run.flows["goodput_bps"].to_list()
    total = sum(g)
    return [x / total for x in g]


def jain(s: list[float]) -> float:
    return sum(s) ** 2 / (len(s) * sum(x * x for x in s))


def summarize(runs: list[list[float]]) -> dict[str, Any]:
    k = len(runs[0])
    means = [statistics.fmean(r[i] for r in runs) for i in range(k)]
    sds = [statistics.stdev(r[i] for r in runs) if len(runs) > 1 else 0.0 for i in range(k)]
    ratios = [max(r) / min(r) for r in runs]
    out = {
        "seeds": len(runs),
        "mean_share": means,
        "sd_share": sds,
        "jain_mean": statistics.fmean(jain(r) for r in runs),
        "max_min_ratio": {"median": statistics.median(ratios), "max": max(ratios)},
    }
    if k == 8:
        half = [sum(r[:4]) for r in runs]
        out["first_half_share"] = {
            "mean": statistics.fmean(half),
            "sd": statistics.stdev(half) if len(half) > 1 else 0.0,
        }
    return out


def threshold_stats(runs: list[list[float]]) -> dict[str, Any]:
    """What four_identical_reno_flows_get_the_same_mean_share_over_twenty_seeds rests on."""
    pooled = [x for r in runs for x in r]
    m, sd = statistics.fmean(pooled), statistics.pstdev(pooled)
    skew = statistics.fmean(((x - m) / sd) ** 3 for x in pooled)
    kurt = statistics.fmean(((x - m) / sd) ** 4 for x in pooled)
    ts = []
    for b in range(len(runs) // 20):
        batch = runs[20 * b : 20 * b + 20]
        k = len(batch[0])
        means = [statistics.fmean(r[i] for r in batch) for i in range(k)]
        var = statistics.fmean(statistics.variance(r[i] for r in batch) for i in range(k))
        se = (var**0.5) / 20**0.5
        ts.append(max(abs(mu - 1 / k) / se for mu in means))
    return {
        "sd": sd,
        "skewness": skew,
        "kurtosis": kurt,
        "batches": len(ts),
        "largest_t": max(ts),
        "median_t": statistics.median(ts),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="times every seed count")
    results.add_arguments(ap, OUT)
    args = ap.parse_args()
    rows = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for i, (name, what, duration, n, _) in enumerate(SETUPS):
            fixed = list(pool.map(shares, [(i, 1, False), (i, 2, False)]))
            assert fixed[0] == fixed[1], f"{name}: without jitter two seeds differ"
            n = max(2, round(n * args.scale))
            runs = list(pool.map(shares, [(i, s, True) for s in range(1, n + 1)], chunksize=8))
            row = {
                "name": name,
                "description": what,
                "duration_s": duration,
                "no_jitter": summarize(fixed[:1]),
                "jitter": summarize(runs),
            }
            if name == "four-one-pair-30s":
                row["threshold"] = threshold_stats(runs)
            rows.append(row)
            print(f"{name}: {n} seeds, Jain {row['jitter']['jain_mean']:.3f}", flush=True)
    doc = {
        "command": "python validation/fairness/shares.py",
        "date": results.today(),
        "revision": results.revision(),
        "engine": _core.engine_digest(),
        "jitter": "8us (the default)",
        "scale": args.scale,
        "configurations": rows,
    }
    if not args.no_results:
        results.write(args.results, doc)
        print(f"wrote {args.results}")


if __name__ == "__main__":
    main()

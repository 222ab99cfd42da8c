"""Run one configuration's hscc scenario (from configs.hscc_scenario) as it is and write its metrics.

    <hscc venv>/bin/python hscc_side.py SCENARIO.json OUT.json

Runs in hscc's own virtual environment (it imports hscc); a field this
checkout does not know is refused by hscc with its name.
"""

from __future__ import annotations

import json
import sys
import time

import hscc


def metrics(result: hscc.Result) -> dict:
    duration = result.summary["duration_s"]
    half = duration / 2
    ts = result.timeseries
    dt = result.scenario.output.sample_interval
    flows = []
    for row in result.flows.iter_rows(named=True):
        samples = ts.filter(ts["flow"] == row["flow"])
        second = sum(
            b * dt / 8
            for t, b in zip(
                samples["time_s"].to_list(), samples["throughput_bps"].to_list(), strict=True
            )
            if t > half + dt / 2
        )
        flows.append(
            {
                "flow": row["flow"],
                "label": row["label"],
                "algorithm": row["algorithm"],
                "start_s": row["start_s"],
                "rx_bytes": int(row["delivered_bytes"]),
                "rx_bytes_half": int(row["delivered_bytes"] - round(second)),
                "recoveries": int(row["recoveries"]),
                "timeouts": int(row["timeouts"]),
                "ecn_reductions": int(row["ecn_reductions"]),
            }
        )
    links = {r["name"]: r for r in result.links.iter_rows(named=True)}
    bottleneck = links["L-R:fwd"]
    random = sum(r["drops_random"] for r in links.values())
    out = {
        "tool": "hscc",
        "version": hscc.__version__,
        "duration_s": duration,
        "flows": flows,
        # A step queue drops only when its buffer is full: every drop there is a queue drop.
        "bottleneck_queue_drops": int(bottleneck["drops_queue"] + bottleneck["drops_aqm"]),
        "bottleneck_random_drops": int(random),
        "bottleneck_tx_packets": int(bottleneck["tx_packets"]),
        "bottleneck_marks": int(bottleneck["marks"]),
        "wall_s": {"run": result.manifest["wall_time_s"]},
    }
    if "queues" in result.scenario.output.traces:
        # The backlog at each sample of the second half, as ns3_dumbbell.py samples it.
        q = result.queues.filter(result.queues["name"] == "L-R:fwd")
        samples = [
            n
            for t, n in zip(q["time_s"].to_list(), q["queue_pkts"].to_list(), strict=True)
            if t > half + dt / 2
        ]
        out["queue_mean_second_half"] = sum(samples) / len(samples)
        out["queue_samples"] = len(samples)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: hscc_side.py SCENARIO.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[1]) as fh:
        sc = json.load(fh)
    t0, c0 = time.perf_counter(), time.process_time()
    result = hscc.run(sc)
    out = dict(
        metrics(result),
        name=sc["name"],
        wall_total_s=time.perf_counter() - t0,
        cpu_s=time.process_time() - c0,
    )
    with open(argv[2], "w") as fh:
        json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

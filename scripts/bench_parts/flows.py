"""The flows part: the engine's time per data segment against the number of flows, through
the Python API, beside the lean probe's on the same dumbbell (`probe SECONDS FLOWS`)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from .parsers import parse_probe
from .probe import build_probe

# The flows part: N Reno flows, each on its own host pair of a 10 Gbit/s dumbbell (RTT
# 20 ms, 0.5 BDP of buffer), for FLOWS_SECONDS; the engine's time per data segment.
FLOWS = [10, 100, 1000, 10000]
FLOWS_QUICK = [10, 100]
FLOWS_SECONDS, FLOWS_SECONDS_QUICK = 4, 1  # whole seconds: the probe's unit
# Each count run this many times, the counts in turn, and the fastest build and loop kept:
# on a shared host one run's time moves by a fifth from one minute to the next.
FLOWS_REPEATS, FLOWS_REPEATS_QUICK = 3, 1


def flows_scenario(n: int, seconds: float) -> dict:
    """N Reno flows, one per host pair, on a 10 Gbit/s dumbbell with half a BDP of buffer."""
    return {
        "name": f"flows-{n}",
        "duration": f"{seconds}s",
        "seed": 1,
        "output": {"traces": []},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Gbps", "delay": "1ms", "buffer": "0.5bdp"},
            "pairs": [{"rate": "100Gbps", "rtt": "20ms"}] * n,
        },
        "flows": [{"pair": i, "algorithm": "reno"} for i in range(n)],
    }


def part_flows(quick: bool, tmp: Path) -> dict:
    """The engine's own time (the simulation loop, not the build or the files) per data
    segment, against the number of flows; the lean probe's loop on the same dumbbell."""
    from hscc import _core
    from hscc.scenario import Scenario

    exe = build_probe(tmp)
    seconds = FLOWS_SECONDS_QUICK if quick else FLOWS_SECONDS
    repeats = FLOWS_REPEATS_QUICK if quick else FLOWS_REPEATS
    best: dict[int, dict] = {}
    for _ in range(repeats):
        for n in FLOWS_QUICK if quick else FLOWS:
            data = flows_scenario(n, seconds)
            t0 = time.perf_counter()  # the build: checked, resolved (routes, estimate), assembled
            sim = _core.Simulation(Scenario.parse(data).resolved(), 16 << 30, None)
            built = time.perf_counter() - t0
            t0 = time.perf_counter()
            sim.run_until(sim.duration)
            engine = time.perf_counter() - t0
            sim.finish()
            summary = json.loads(sim.files(engine, False, False, [])[0])
            segments = sum(f["segs_sent"] for f in summary["flows"])
            out = subprocess.run(
                [str(exe), str(seconds), str(n)], capture_output=True, text=True, check=True
            ).stdout
            lean = parse_probe(out)
            print(
                f"  flows {n}: {engine:.3f} s, {engine / segments * 1e9:.0f} ns per segment; "
                f"probe {lean['wall_s'] / lean['data_segments_sent'] * 1e9:.0f} ns",
                flush=True,
            )
            seen = best.get(n)
            best[n] = {
                "flows": n,
                "build_s": round(min(built, seen["build_s"]) if seen else built, 4),
                "engine_s": round(min(engine, seen["engine_s"]) if seen else engine, 4),
                "events": sim.events,  # the same in every repeat: the run is deterministic
                "data_segments": segments,
                "utilization": next(
                    (x["utilization"] for x in summary["links"] if x["name"] == "bottleneck:fwd"),
                    None,
                ),
                "probe": {  # deterministic too but its loop's time
                    "loop_s": min(lean["wall_s"], seen["probe"]["loop_s"])
                    if seen
                    else lean["wall_s"],
                    "events": lean["events"],
                    "data_segments": lean["data_segments_sent"],
                    "utilization": lean["utilization"],
                },
            }
    return {
        "command": "scripts/bench.py: hscc's Python API, the engine's simulation loop timed; "
        "validation/probe/probe.rs SECONDS FLOWS, its loop timed",
        "seconds": seconds,
        "repeats": repeats,
        "counts": list(best.values()),
    }

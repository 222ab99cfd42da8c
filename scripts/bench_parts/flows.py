"""The flows part: the engine's time per data segment against the number of flows, through
the Python API, beside the lean probe's on the same dumbbell (`probe SECONDS FLOWS`)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from .cargo_benches import cache_args, callgrind, second_level_cache
from .parsers import parse_probe
from .probe import build_probe

# The flows part: N Reno flows, each on its own host pair of a 10 Gbit/s dumbbell (RTT
# 20 ms, 0.5 BDP of buffer), for FLOWS_SECONDS; the engine's time per data segment.
FLOWS = [10, 100, 1000, 10000]
FLOWS_QUICK = [10, 100]
# The first and the last count again with every flow on one host pair: the access links are
# then shared (a handful of links, in cache at any count), so what still grows with the
# flows is each flow's own state, its sender, receiver and timers.
ONE_PAIR = [10, 10000]
ONE_PAIR_QUICK = [10, 100]
FLOWS_SECONDS, FLOWS_SECONDS_QUICK = 4, 1  # whole seconds: the probe's unit
# Each count run this many times, the counts in turn, and the fastest build and loop kept:
# on a shared host one run's time moves by a fifth from one minute to the next.
FLOWS_REPEATS, FLOWS_REPEATS_QUICK = 3, 1
# The cache counts of the flows part: the simulation loop at the first and the last count
# under callgrind's cache simulation (this machine's second level as the last level), over
# the last MISSES seconds of a run of WARM + MISSES (the caches and the flows warmed).
MISSES_WARM, MISSES_SECONDS = 0.5, 0.3
MISSES_WARM_QUICK, MISSES_SECONDS_QUICK = 0.05, 0.05

# Run under callgrind by `loop_misses`: the scenario (a JSON file) to WARM seconds, then to its end,
# printing the events of the second call, the one counted (callgrind zeroes its counts as the
# simulation loop is entered).
_SECOND_LOOP = """
import json, sys
from hscc import _core
from hscc.scenario import Scenario
data, warm = json.loads(open(sys.argv[1]).read()), float(sys.argv[2])
sim = _core.Simulation(Scenario.parse(data).resolved(), 16 << 30, None)
sim.run_until(warm)
before = sim.events
sim.run_until(sim.duration)
print(json.dumps({"events": sim.events - before}))
"""
_LOOP = "hscc_sim::sim::Sim::run_until"


def flows_scenario(n: int, seconds: float, one_pair: bool = False) -> dict:
    """N Reno flows, one per host pair (or all on one), on a 10 Gbit/s dumbbell with half a
    BDP of buffer."""
    pairs = 1 if one_pair else n
    return {
        "name": f"flows-{n}",
        "duration": f"{seconds}s",
        "seed": 1,
        "output": {"traces": []},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Gbps", "delay": "1ms", "buffer": "0.5bdp"},
            "pairs": [{"rate": "100Gbps", "rtt": "20ms"}] * pairs,
        },
        "flows": [{"pair": i % pairs, "algorithm": "reno"} for i in range(n)],
    }


def loop_misses(
    n: int,
    warm: float,
    seconds: float,
    cache: tuple[int, int, int],
    tmp: Path,
    one_pair: bool = False,
) -> dict:
    """Instructions and cache misses of the simulation loop over `seconds` after `warm` of
    the flows dumbbell with `n` flows (on one host pair), per event, with `cache` as the last
    level."""
    counted = [
        *cache_args(cache),
        "--collect-atstart=no",
        f"--toggle-collect={_LOOP}",
        f"--zero-before={_LOOP}",
    ]
    name = f"flows-{n}" + ("-one-pair" if one_pair else "")
    scenario = tmp / f"{name}.json"  # a file: 10 000 pairs pass the argument limit
    scenario.write_text(json.dumps(flows_scenario(n, warm + seconds, one_pair)))
    command = [sys.executable, "-c", _SECOND_LOOP, str(scenario), str(warm)]
    stdout, counts = callgrind(name, command, counted, tmp)
    events = json.loads(stdout)["events"]
    c = counts["cache"]
    return {
        "flows": n,
        "one_pair": one_pair,
        "events": events,
        "per_event": {
            "instructions": round(counts["instructions"] / events, 1),
            "first_level_misses": round((c["D1mr"] + c["D1mw"]) / events, 2),
            "second_level_read_misses": round(c["DLmr"] / events, 2),
            "second_level_write_misses": round(c["DLmw"] / events, 2),
        },
    }


def engine_run(n: int, seconds: float, one_pair: bool = False) -> dict:
    """One run of the flows dumbbell through the Python API: the build and the simulation
    loop timed apart, with the counts the tables give."""
    from hscc import _core
    from hscc.scenario import Scenario

    data = flows_scenario(n, seconds, one_pair)
    t0 = time.perf_counter()  # the build: checked, resolved (routes, estimate), assembled
    sim = _core.Simulation(Scenario.parse(data).resolved(), 16 << 30, None)
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    sim.run_until(sim.duration)
    engine = time.perf_counter() - t0
    sim.finish()
    summary = json.loads(sim.files(engine, False, False, [])[0])
    return {
        "build_s": built,
        "engine_s": engine,
        "events": sim.events,  # the same in every repeat: the run is deterministic
        "data_segments": sum(f["segs_sent"] for f in summary["flows"]),
        "utilization": next(
            (x["utilization"] for x in summary["links"] if x["name"] == "bottleneck:fwd"),
            None,
        ),
    }


def _fastest(seen: dict | None, run: dict) -> dict:
    """A count's record after one more repeat: the fastest build and loop, every loop's time."""
    return {
        **run,
        "build_s": round(min(run["build_s"], seen["build_s"]) if seen else run["build_s"], 4),
        "engine_s": round(min(run["engine_s"], seen["engine_s"]) if seen else run["engine_s"], 4),
        # Every repeat's, in the order run: the spread the fastest is taken from.
        "engine_runs_s": [*(seen["engine_runs_s"] if seen else []), round(run["engine_s"], 4)],
    }


def part_flows(quick: bool, tmp: Path) -> dict:
    """The engine's own time (the simulation loop, not the build or the files) per data
    segment, against the number of flows, with a host pair each and on one; the lean probe's
    loop on the same dumbbell."""
    exe = build_probe(tmp)
    seconds = FLOWS_SECONDS_QUICK if quick else FLOWS_SECONDS
    repeats = FLOWS_REPEATS_QUICK if quick else FLOWS_REPEATS
    best: dict[int, dict] = {}
    one_pair: dict[int, dict] = {}
    for _ in range(repeats):
        for n in FLOWS_QUICK if quick else FLOWS:
            run = engine_run(n, seconds)
            out = subprocess.run(
                [str(exe), str(seconds), str(n)], capture_output=True, text=True, check=True
            ).stdout
            lean = parse_probe(out)
            print(
                f"  flows {n}: {run['engine_s']:.3f} s, "
                f"{run['engine_s'] / run['data_segments'] * 1e9:.0f} ns per segment; "
                f"probe {lean['wall_s'] / lean['data_segments_sent'] * 1e9:.0f} ns",
                flush=True,
            )
            seen = best.get(n)
            best[n] = {
                "flows": n,
                **_fastest(seen, run),
                "probe": {  # deterministic too but its loop's time
                    "loop_s": min(lean["wall_s"], seen["probe"]["loop_s"])
                    if seen
                    else lean["wall_s"],
                    "events": lean["events"],
                    "data_segments": lean["data_segments_sent"],
                    "utilization": lean["utilization"],
                },
            }
        for n in ONE_PAIR_QUICK if quick else ONE_PAIR:
            run = engine_run(n, seconds, one_pair=True)
            print(
                f"  flows {n} on one host pair: {run['engine_s']:.3f} s, "
                f"{run['engine_s'] / run['data_segments'] * 1e9:.0f} ns per segment",
                flush=True,
            )
            one_pair[n] = {"flows": n, **_fastest(one_pair.get(n), run)}
    warm, measured = (
        (MISSES_WARM_QUICK, MISSES_SECONDS_QUICK) if quick else (MISSES_WARM, MISSES_SECONDS)
    )
    cache = second_level_cache()  # None where sysfs gives no second level: no counts
    return {
        "command": "scripts/bench.py: hscc's Python API, the engine's simulation loop timed; "
        "validation/probe/probe.rs SECONDS FLOWS, its loop timed",
        "seconds": seconds,
        "repeats": repeats,
        "counts": list(best.values()),
        "one_pair": list(one_pair.values()),
        "cache": cache
        and {
            "command": f"valgrind --tool=callgrind --cache-sim=yes --toggle-collect={_LOOP}",
            "warm_s": warm,
            "seconds": measured,
            "second_level": {"bytes": cache[0], "ways": cache[1], "line": cache[2]},
            "counts": [
                *(loop_misses(n, warm, measured, cache, tmp) for n in (min(best), max(best))),
                loop_misses(max(one_pair), warm, measured, cache, tmp, one_pair=True),
            ],
        },
    }

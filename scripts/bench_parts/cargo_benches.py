"""The parts that run hscc-sim's Rust benches: testbed, callgrind, many_flows, loss_burst;
and building or finding the benches."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from collections.abc import Callable
from pathlib import Path

from . import ROOT
from .parsers import (
    parse_callgrind,
    parse_callgrind_misses,
    parse_loss_burst,
    parse_many_flows,
    parse_probe,
    parse_testbed,
)
from .probe import build_probe

# (simulated seconds, runs) of the testbed part; the quick trial's.
TESTBED = [(300, 2), (60, 3)]
TESTBED_QUICK = [(2, 1)]
# The callgrind variants: (name, group, the testbed bench's arguments after the seconds).
# group "algorithms": one algorithm on every flow; "features": Reno with one feature on.
CALLGRIND = [
    ("reno", "algorithms", []),
    ("bbr", "algorithms", ["cc=bbr"]),
    ("classic", "features", ["classic"]),
    ("red", "features", ["red"]),
    ("codel", "features", ["codel"]),
    ("codel-ecn", "features", ["codel", "ecn"]),
    ("pie", "features", ["pie"]),
    ("fq_codel", "features", ["fq_codel"]),
    ("cclog", "features", ["cclog"]),
    ("pcap", "features", ["pcap"]),
]
CALLGRIND_SECONDS, CALLGRIND_SECONDS_QUICK = 10, 1
MANY_FLOWS = [256, 1024]
MANY_FLOWS_RUNS = 3
LOSS_BURST_QUICK_WINDOWS = ["1000", "10000"]
LOSS_BURST_WINDOWS = ["1000", "10000", "40000", "80000"]
# Runs of the loss_burst bench per recovery: its verdict is their median ratio, since one run's
# moves across the target with the host's load.
LOSS_BURST_REPEATS = 5


def build_benches() -> dict[str, Path]:
    """Build the benches (release) and return their executables by name."""
    p = subprocess.run(
        [
            "cargo",
            "build",
            "--release",
            "--locked",
            "-p",
            "hscc-sim",
            "--benches",
            "--message-format=json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    found = {}
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            if "bench" in msg["target"]["kind"]:
                found[msg["target"]["name"]] = Path(msg["executable"])
    return found


def newest_benches() -> dict[str, Path]:
    """The newest built executable of each bench in target/release/deps (for --no-build)."""
    found = {}
    for name in ("testbed", "many_flows", "loss_burst"):
        exes = [
            p
            for p in (ROOT / "target" / "release" / "deps").glob(f"{name}-*")
            if p.suffix == "" and os.access(p, os.X_OK)
        ]
        if exes:
            found[name] = max(exes, key=lambda p: p.stat().st_mtime)
    return found


def run_bench(exe: Path, args: list[str], cwd: Path) -> str:
    p = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{exe.name} {' '.join(args)} failed:\n{p.stderr}")
    return p.stdout


def repeated(exe: Path, parse: Callable[[str], dict], arg: str, runs: int, tmp: Path) -> list:
    """`runs` runs of a bench with one argument, each parsed, each wall time printed."""
    outs = []
    for _ in range(runs):
        outs.append(parse(run_bench(exe, [arg], tmp)))
        print(f"  {exe.name.split('-')[0]} {arg}: {outs[-1]['wall_s']:.3f} s", flush=True)
    return outs


def part_testbed(exes: dict[str, Path], quick: bool, tmp: Path) -> dict:
    lengths = [
        {"seconds": seconds, "runs": repeated(exes["testbed"], parse_testbed, str(seconds), n, tmp)}
        for seconds, n in (TESTBED_QUICK if quick else TESTBED)
    ]
    return {"command": "cargo bench -p hscc-sim --bench testbed -- SECONDS", "lengths": lengths}


def second_level_cache() -> tuple[int, int, int] | None:
    """This machine's per-core second-level cache (bytes, ways, line bytes) from sysfs, as
    cachegrind's --LL takes it; None where Linux does not say."""
    d = Path("/sys/devices/system/cpu/cpu0/cache/index2")
    try:
        size = (d / "size").read_text().strip()
        ways = int((d / "ways_of_associativity").read_text())
        line = int((d / "coherency_line_size").read_text())
    except (OSError, ValueError):
        return None
    if not size.endswith("K") or not size[:-1].isdigit():
        return None
    return int(size[:-1]) * 1024, ways, line


def cache_args(cache: tuple[int, int, int] | None) -> list[str]:
    """callgrind's arguments to count the misses of the first level and of the second (as
    its last level): with the L3 as last level a run this size misses almost nothing."""
    return ["--cache-sim=yes", "--LL={},{},{}".format(*cache)] if cache else []


def callgrind(name: str, command: list[str], counted: list[str], tmp: Path) -> tuple[str, dict]:
    """`command` run under callgrind (with `counted`, its cache simulation's arguments): its
    stdout, and its instructions (and cache misses, when counted)."""
    p = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            *counted,
            f"--callgrind-out-file={tmp / f'callgrind.out.{name}'}",
            *command,
        ],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=False,
    )
    if p.returncode != 0:
        raise RuntimeError(f"callgrind of {' '.join(command)}:\n{p.stderr}")
    counts = {"instructions": parse_callgrind(p.stderr)}
    if counted:
        counts["cache"] = parse_callgrind_misses(p.stderr)
    print(f"  callgrind {name}: {counts['instructions']:,} instructions", flush=True)
    return p.stdout, counts


def part_callgrind(exes: dict[str, Path], quick: bool, tmp: Path) -> dict:
    seconds = CALLGRIND_SECONDS_QUICK if quick else CALLGRIND_SECONDS
    cache = second_level_cache()
    variants = []
    for name, group, args in CALLGRIND:
        counted = cache_args(cache) if name == "reno" else []  # beside the probe's
        stdout, counts = callgrind(name, [str(exes["testbed"]), str(seconds), *args], counted, tmp)
        out = parse_testbed(stdout)
        for k in ("wall_s", "events_per_s", "peak_memory_mb"):  # callgrind's, not the engine's
            out.pop(k, None)
        variants.append({"name": name, "group": group, "args": args} | counts | out)
    # The lean probe (validation/probe/probe.rs) for as long as the test bed: the instructions
    # (and cache misses) the least work takes, against the Reno row's.
    stdout, counts = callgrind(
        "probe", [str(build_probe(tmp)), str(seconds)], cache_args(cache), tmp
    )
    probe = parse_probe(stdout)
    probe.pop("wall_s")  # callgrind's
    return {
        "command": "valgrind --tool=callgrind target/release/deps/testbed-* SECONDS [ARGS]",
        "seconds": seconds,
        "variants": variants,
        "second_level": cache and {"bytes": cache[0], "ways": cache[1], "line": cache[2]},
        "probe": counts | probe,
    }


def part_many_flows(exes: dict[str, Path], quick: bool, tmp: Path) -> dict:
    runs = 1 if quick else MANY_FLOWS_RUNS
    counts = [
        {"flows": n, "runs": repeated(exes["many_flows"], parse_many_flows, str(n), runs, tmp)}
        for n in (MANY_FLOWS[:1] if quick else MANY_FLOWS)
    ]
    return {"command": "cargo bench -p hscc-sim --bench many_flows -- FLOWS", "counts": counts}


def part_loss_burst(exes: dict[str, Path], quick: bool, tmp: Path) -> dict:
    # 40 000 is the window whose burst ends in a timeout: the RTO path's cost is shown too.
    windows = LOSS_BURST_QUICK_WINDOWS if quick else LOSS_BURST_WINDOWS
    repeats = 1 if quick else LOSS_BURST_REPEATS
    recoveries: list[list[dict]] = [[], []]
    for _ in range(repeats):  # the recoveries in turn, so a change in load falls on both
        for runs, args in zip(recoveries, ([], ["newreno"]), strict=True):
            out = parse_loss_burst(run_bench(exes["loss_burst"], [*windows, *args], tmp))
            runs.append(out)
            ratio = loss_burst_ratio(out["windows"])
            print(f"  loss_burst {out['recovery']}: {out['runs']} runs, {ratio:.2f}×", flush=True)
    return {
        "command": "cargo bench -p hscc-sim --bench loss_burst -- "
        + " ".join(windows)
        + " [newreno]",
        "bench_runs": repeats,
        "recoveries": [loss_burst_median(runs) for runs in recoveries],
    }


def loss_burst_ratio(windows: list[dict]) -> float:
    """One bench run's verdict figure: its slowest window's ns per event over the first's."""
    return max(w["ns_per_event"] for w in windows) / windows[0]["ns_per_event"]


def loss_burst_median(runs: list[dict]) -> dict:
    """Bench runs of one recovery as one record: each window's median ns per event and wall
    time, the events, retransmissions and timeouts of the first run (the same in every run:
    the engine is deterministic), and each run's ratio (`loss_burst_ratio`)."""
    windows = [
        w
        | {
            "ns_per_event": statistics.median(r["windows"][i]["ns_per_event"] for r in runs),
            "wall_s": statistics.median(r["windows"][i]["wall_s"] for r in runs),
        }
        for i, w in enumerate(runs[0]["windows"])
    ]
    return {
        "recovery": runs[0]["recovery"],
        "runs": sum(r["runs"] for r in runs),
        "windows": windows,
        "ratios": [round(loss_burst_ratio(r["windows"]), 3) for r in runs],
    }

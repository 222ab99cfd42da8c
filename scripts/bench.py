"""The figures of docs/performance.md, measured and written as data:
validation/results/performance.json, which validation/results/render.py turns into the page's
tables.

    .venv/bin/python scripts/bench.py                       # every part, about 20 minutes on an idle 2-core machine
    .venv/bin/python scripts/bench.py --only sweeps         # the sweeps part alone, about 1 minute
    .venv/bin/python scripts/bench.py --only probe,simulators  # about 4 minutes, ns-3 most of it
    .venv/bin/python scripts/bench.py --only testbed,startup
    .venv/bin/python scripts/bench.py --quick --no-results  # a short trial of every part, printed
    .venv/bin/python validation/results/render.py --write   # then the page

The parts (`--only`, comma-separated; a run replaces the parts it measured and keeps the rest,
each written as it ends):

- testbed: the CTCP test-bed bench (crates/hscc-sim/benches/testbed.rs), 300 s simulated
  twice and 60 s three times: wall time, events, packets, utilization, peak memory;
- callgrind: the test bed under `valgrind --tool=callgrind`, 10 s simulated, with Reno, BBR
  (`cc=bbr`) and each optional feature the bench takes (queue disciplines, ECN, classic
  recovery, the per-ACK log, captures): instructions, a few thousand apart in 86 million
  from run to run; and the lean probe (compiled with rustc as for `probe`) beside Reno,
  both also with callgrind's cache simulation (this machine's second level as last level);
- many_flows: the many_flows bench with 256 and 1024 flows, three runs each;
- flows: 10 to 10 000 Reno flows, a host pair each, on a 10 Gbit/s dumbbell, 4 s simulated
  through the Python API: the build's time and the engine's per data segment, beside the lean
  probe's loop on the same dumbbell; at 10 and 10 000 flows also the simulation loop's
  instructions and cache misses per event under callgrind's cache simulation (0.3 s after
  0.5 s of warm-up);
- loss_burst: the loss_burst bench with Linux's recovery and with NewReno, five runs of each in
  turn (each reports the fastest of its own repeated runs per window): per window the median of
  the five, and each run's ratio of its slowest window to its first;
- startup: the CPU time (user + system, the process and those it waits for, from
  getrusage(RUSAGE_CHILDREN)) of short commands, the median of 15 runs each, the commands
  taken in turn run for run so that a change in the machine's load falls on all of them;
- probe: the CTCP test-bed shape (`hscc run -q`, 300 s simulated) with hscc's defaults and with
  host_jitter = 0, against the lean probe (validation/probe/probe.rs, compiled here with
  rustc -C opt-level=3 for any x86-64, as hscc is built): CPU time of each whole process, in
  turn, and events per data segment (hscc's from each run's summary.json: events, packets per
  link);
- simulators: hscc against ns-2.35 and ns-3.37 on the scenarios of SIMULATORS, each tool in
  turn: whole process (CPU time) and engine alone. Needs Debian's ns2 (`ns`), libns3-dev and
  g++ (validation/ns3/bench_dumbbell.cc is compiled here with g++ -O2);
- sweeps: scripts/bench-sweep.py's measurement (a sweep's cost per run beyond the engine:
  200 tiny runs, and 200 stored runs of the CTCP test bed and the two-Reno demo on 1 and 2
  workers), three repetitions, its figures read from its `--json` file; the quick trial
  takes one repetition and no Dask;
- memory: the whole process's peak resident memory (`hscc run -q`, its VmHWM) on eight large
  topologies and flow counts (up to 400 000 flows), two runs each, against the engine's
  estimate (docs/architecture.md); about 6 minutes and 2 GB.

The benches print their figures as text; the parsers of bench_parts/parsers.py read those lines
by their labels and stop with an error naming the missing line when a bench's output changes
(tests/python/test_bench_parsers.py holds them to captured outputs in tests/data/bench/).

Every part records its conditions: the tree's revision, the engine's digest, the machine,
and the load average (1, 5, 15 minutes) when it started and when it ended. Wall and CPU
times need an idle machine; instruction counts do not. The benches are built first
(`cargo build --release --locked -p hscc-sim --benches`; `--no-build` takes the newest ones in
target/release/deps).
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "results"))

import results  # noqa: E402
from bench_parts import flows, memory, probe, simulators, startup, sweeps  # noqa: E402
from bench_parts.cargo_benches import (  # noqa: E402
    build_benches,
    newest_benches,
    part_callgrind,
    part_loss_burst,
    part_many_flows,
    part_testbed,
)
from bench_parts.conditions import _load, conditions  # noqa: E402

PERFORMANCE = results.HERE / "performance.json"
SCHEMA = "hscc.performance/1"
COMMAND = "python scripts/bench.py"
PARTS = (
    "testbed",
    "callgrind",
    "many_flows",
    "flows",
    "loss_burst",
    "startup",
    "sweeps",
    "probe",
    "simulators",
    "memory",
)


BENCH_PARTS = {
    "testbed": part_testbed,
    "callgrind": part_callgrind,
    "many_flows": part_many_flows,
    "loss_burst": part_loss_burst,
}


def measure(part: str, exes: dict[str, Path], quick: bool) -> dict:
    load_start = _load()
    with tempfile.TemporaryDirectory(prefix=f"hscc-bench-{part}-") as d:
        tmp = Path(d)
        if part == "startup":
            data = startup.part_startup(quick, tmp)
        elif part == "flows":
            data = flows.part_flows(quick, tmp)
        elif part == "sweeps":
            data = sweeps.part_sweeps(quick, tmp)
        elif part == "probe":
            data = probe.part_probe(quick, tmp)
        elif part == "simulators":
            data = simulators.part_simulators(quick, tmp)
        elif part == "memory":
            data = memory.part_memory(quick, tmp)
        else:
            data = BENCH_PARTS[part](exes, quick, tmp)
    extra = {"quick": True} if quick else {}
    run = f"{COMMAND} --only {part}" + (" --quick" if quick else "")
    return {
        "date": datetime.date.today().isoformat(),
        "run": run,
        "source": results.run_source(run),
        "conditions": conditions(load_start, **extra),
    } | data


def merge(path: Path, parts: dict[str, dict]) -> dict:
    """The file with `parts` replaced and the other parts kept (a run of some parts does not
    erase the rest)."""
    doc: dict = (
        results.load(path)
        if path.is_file()
        else {"schema": SCHEMA, "command": COMMAND, "parts": {}}
    )
    doc["parts"] = {
        name: parts.get(name, doc["parts"].get(name))
        for name in PARTS
        if name in parts or name in doc["parts"]
    }
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--only",
        default=",".join(PARTS),
        metavar="PARTS",
        help=f"comma-separated parts to measure (default all: {','.join(PARTS)})",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a short trial: shorter runs, fewer repetitions (recorded as quick)",
    )
    ap.add_argument("--no-build", action="store_true", help="use the newest built benches")
    results.add_arguments(ap, PERFORMANCE)
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"unknown parts {', '.join(unknown)}: choose from {', '.join(PARTS)}")
    if "callgrind" in parts and shutil.which("valgrind") is None:
        ap.error("callgrind needs valgrind on PATH")
    exes: dict[str, Path] = {}
    if BENCH_PARTS.keys() & set(parts):  # the parts that run the cargo benches
        exes = newest_benches() if args.no_build else build_benches()
    start = time.monotonic()
    measured = {}
    for part in parts:
        print(f"{part} (load average {_load()[0]:.2f})", flush=True)
        measured[part] = measure(part, exes, args.quick)
        if not args.no_results:  # each part kept as it ends: a later part's failure loses none
            results.write(args.results, merge(args.results, {part: measured[part]}))
    print(f"measured in {time.monotonic() - start:.0f} s", flush=True)
    if args.no_results:
        print(results.dump(measured), end="")
        return 0
    print(f"wrote {args.results}; now: python validation/results/render.py --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())

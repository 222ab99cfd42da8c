"""Per-run overhead of sweeps: what a sweep of 200 tiny runs costs
beyond the engine's own time.

    .venv/bin/python scripts/bench-sweep.py              # about 1 minute on 2 cores
    .venv/bin/python scripts/bench-sweep.py --reps 1     # one of each measurement
    .venv/bin/python scripts/bench-sweep.py --only stored # the stored-runs case only

The runs: two Reno flows on a 10 Mbit/s dumbbell, 1 s simulated (about 1 ms
of engine time each); the sweep: 20 values of the second pair's RTT × 10
replicates = 200 runs. Measured, each `--reps` times, interleaved:

- engine: a plain loop of hscc.run over the same 200 scenarios in this process;
  its Σ wall_time_s (the engine's time: build, simulate, results) is the
  "engine time" E of every row below;
- hscc.sweep with jobs=1 and jobs=2, with out=DIR (runs stored) and out=None;
- the same sweeps with two runs, one per point (start-up and finishing: pool, tables,
  plots), and a sweep of one run stored (no pool, no plots);
- the jobs=2 sweep again into a directory that holds all its runs (all cached);
- dask="local" with jobs=2 (if dask.distributed is installed), the cluster's start
  included, and on a cluster already running (by its address): a scheduler and 2
  single-threaded workers, each a process of its own started with the `dask` command,
  with out=None also with a client of this process open to it (which the sweep uses),
  and with out=None in turn with the local pool, pair by pair (2 × reps + 1 pairs),
  back to back and each sweep after 0.5 s idle;
- `hscc sweep FILE --out DIR -j 2 -q` as a new process (imports and forkserver included);
- the stored-runs case: 200 stored runs (`replicates=200`, out=DIR) of 1 simulated
  second of the CTCP test bed (examples/ctcp-testbed.toml) and of the two-Reno demo
  (examples/two-reno-rtt.toml), on 1 and 2 workers, against the ideal E / workers,
  E being the engine's own time for the same 200 runs in a loop in this process;
  also in CPU time, every process of the sweep against the engine's own.

Printed: wall time (min / median), runs per second, overhead per run =
(wall − E / workers) / runs, and the speed-up from 1 to 2 workers; for the 200 runs
out=None on the local pool and on the running cluster, the CPU seconds of each process
group (the sweep's own process; the fork server and its workers; the scheduler, and the
worker command with its nannies and workers).
Everything is written into one temporary directory (TMPDIR points there for the
forkserver and Dask too), removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SCENARIO = """\
name = "tiny"
duration = "1s"
seed = 1

[output]
sample_interval = "100ms"

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [ { rate = "100Mbps", rtt = "40ms" }, { rate = "100Mbps", rtt = "80ms" } ]

[[flows]]
pair = 0
algorithm = "reno"

[[flows]]
pair = 1
algorithm = "reno"
"""
AXIS = "topology.pairs[1].rtt"
STEPS, REPLICATES = 20, 10
RUNS = STEPS * REPLICATES
SWEEP_FILE = f"""\
base = "tiny.toml"
replicates = {REPLICATES}
seed = 1

[axes]
"{AXIS}" = {{ linspace = ["40ms", "200ms"], steps = {STEPS} }}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--reps", type=int, default=3, help="repetitions of each measurement (default 3)"
    )
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask measurement")
    ap.add_argument(
        "--only",
        choices=("tiny", "stored"),
        help="only the 200 tiny runs, or only the stored-runs case",
    )
    ap.add_argument("--json", metavar="FILE", help="also write every measurement to FILE (JSON)")
    ap.add_argument("--inner", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps: at least 1")
    if args.inner:
        raw = {}
        if args.only != "stored":
            raw["tiny"], raw["tiny_cpu"] = measure(Path(args.inner), args.reps, not args.no_dask)
            raw["tiny_in_turn"] = [
                {"label": label, "local": local, "dask": dask}
                for label, _, local, dask in IN_TURN
                if dask in raw["tiny"]
            ]
        if args.only != "tiny":
            raw["stored"] = measure_stored_case(Path(args.inner), args.reps)
        if args.json:
            Path(args.json).write_text(json.dumps(raw, indent=1))
        return
    root = tempfile.mkdtemp(prefix="hscc-bench-sweep-")
    try:
        env = {**os.environ, "TMPDIR": root}
        cmd = [sys.executable, os.path.abspath(__file__), "--inner", root, "--reps", str(args.reps)]
        cmd += ["--no-dask"] if args.no_dask else []
        cmd += ["--only", args.only] if args.only else []
        cmd += ["--json", os.path.abspath(args.json)] if args.json else []
        code = subprocess.run(cmd, env=env).returncode
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(code)


@contextlib.contextmanager
def dask_cluster(root: Path, workers: int) -> Iterator[tuple[str, int, int]]:
    """A scheduler and `workers` single-threaded worker processes started with the `dask`
    command beside this Python: the scheduler's address, once every worker has joined, and
    the process ids of the scheduler and of the worker command (its nannies and workers are
    its descendants)."""
    from distributed import Client

    dask = str(Path(sys.executable).with_name("dask"))
    file = root / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--scheduler-file", str(file), "--port", "0", "--no-dashboard"],
            **quiet,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not file.exists():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                raise SystemExit("bench-sweep: the Dask scheduler did not start")
            time.sleep(0.1)
        procs.append(
            subprocess.Popen(
                [
                    dask,
                    "worker",
                    "--scheduler-file",
                    str(file),
                    "--nworkers",
                    str(workers),
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                **quiet,
            )
        )
        with Client(scheduler_file=str(file), timeout="60s") as client:
            client.wait_for_workers(workers, timeout=60)
            address = client.scheduler.address
        yield address, procs[0].pid, procs[1].pid
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def measure(
    root: Path, reps: int, with_dask: bool
) -> tuple[dict[str, list[tuple[float, float]]], dict[str, list[dict[str, float]]]]:
    """The tiny runs' cases: each one's (wall, Σ engine time) per repetition, and the CPU
    seconds by process group of the two cases `cpu_of` counts."""
    import tomllib

    import hscc
    from hscc.sweeps import execute

    (root / "tiny.toml").write_text(SCENARIO)
    (root / "sweep.toml").write_text(SWEEP_FILE)
    base = str(root / "tiny.toml")
    axes = {AXIS: {"linspace": ["40ms", "200ms"], "steps": STEPS}}
    one = {AXIS: ["40ms"]}  # one run: computed in this process, no plots (one point)
    two = {AXIS: ["40ms", "200ms"]}  # two points: pool, tables and plots as in the full sweep
    counter = iter(range(10**6))

    def new_dir() -> Path:
        return root / f"out{next(counter)}"

    # CPU seconds per sweep by process group, for the local pool's and the running cluster's
    # 200 runs out=None: where Dask's extra time goes on a machine whose cores the runs fill.
    cpu: dict[str, list[dict[str, float]]] = {}

    def cpu_of(name: str, groups: dict[str, int | None], *args: Any, **kwargs: Any):
        """`sweep(*args, **kwargs)`, and the CPU seconds it took in each process group
        (a root process id and its descendants; None: this process's descendants)."""
        before = {g: tree_cpu(pid) for g, pid in groups.items()}
        own = self_cpu()
        result = sweep(*args, **kwargs)
        time.sleep(0.3)  # the fork server reaps the workers that ended
        spent = {g: tree_cpu(pid) - before[g] for g, pid in groups.items()}
        own = self_cpu() - own
        if "pool" in spent:  # this process's descendants: itself excluded
            spent["pool"] -= own
        cpu.setdefault(name, []).append({"sweep": own, **spent})
        return result

    def sweep(axes_, replicates, jobs, out, dask=None, expect="ok"):
        t = time.perf_counter()
        r = hscc.sweep(base, axes_, replicates=replicates, seed=1, jobs=jobs, out=out, dask=dask)
        wall = time.perf_counter() - t
        execute.wait_closed()  # the client it closes in the background, not in the next one's time
        statuses = set(r.points["status"].to_list())
        if statuses != {expect}:
            raise SystemExit(
                f"bench-sweep: expected every run {expect!r}, got {sorted(statuses)}: {r.failed}"
            )
        return wall, float(r.points["wall_time_s"].sum())

    # The same 200 scenarios as the sweep (seeds differ; the work per run does not).
    scenarios = []
    for i in range(STEPS):
        for k in range(REPLICATES):
            d = tomllib.loads(SCENARIO)
            d["topology"]["pairs"][1]["rtt"] = f"{40 + 160 * i / (STEPS - 1):.6g}ms"
            d["seed"] = 1 + i * REPLICATES + k
            scenarios.append(d)

    from hscc.provenance import git_revision

    git = git_revision()
    revision = f" ({git['commit'][:10]}{', dirty' if git['dirty'] else ''})" if git else ""
    print(
        f"hscc {hscc.__version__}{revision}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {RUNS} runs of 1 s simulated; "
        f"{reps} repetitions each",
        flush=True,
    )
    # Warm up: forkserver, imports (polars, matplotlib), the engine.
    sweep(two, 1, 2, new_dir())
    sweep(two, 1, 2, None)
    for s in scenarios[:20]:
        hscc.run(s)

    rows: dict[str, list[tuple[float, float]]] = {}
    cases = [  # name, axes, replicates, jobs, stored
        ("sweep jobs=1 out=DIR", axes, REPLICATES, 1, True),
        ("sweep jobs=2 out=DIR", axes, REPLICATES, 2, True),
        ("sweep jobs=1 out=None", axes, REPLICATES, 1, False),
        ("sweep jobs=2 out=None", axes, REPLICATES, 2, False),
        ("2 runs, jobs=1 out=DIR", two, 1, 1, True),
        ("2 runs, jobs=2 out=DIR", two, 1, 2, True),
        ("2 runs, jobs=1 out=None", two, 1, 1, False),
        ("2 runs, jobs=2 out=None", two, 1, 2, False),
        ("1 run, out=DIR", one, 1, 2, True),
    ]
    full: Path | None = None
    for rep in range(reps):
        t = time.perf_counter()
        engine = sum(hscc.run(s).summary["wall_time_s"] for s in scenarios)
        rows.setdefault("loop of hscc.run", []).append((time.perf_counter() - t, engine))
        for name, ax, n, jobs, stored in cases:
            out = new_dir() if stored else None
            if name == "sweep jobs=2 out=None":
                rows.setdefault(name, []).append(cpu_of(name, {"pool": None}, ax, n, jobs, out))
                continue
            rows.setdefault(name, []).append(sweep(ax, n, jobs, out))
            if stored and jobs == 2 and ax is axes:
                full = out
        print(f"  repetition {rep + 1} of {reps} done (load {os.getloadavg()[0]:.2f})", flush=True)
    assert full is not None
    for _ in range(reps):
        rows.setdefault("sweep jobs=2 out=DIR, all cached", []).append(
            sweep(axes, REPLICATES, 2, full, expect="cached")
        )

    if with_dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("  dask.distributed is not installed: no Dask figures")
            with_dask = False
    if with_dask:
        for _ in range(reps):
            rows.setdefault("dask local jobs=2 out=DIR", []).append(
                sweep(axes, REPLICATES, 2, new_dir(), dask="local")
            )
            rows.setdefault("dask local jobs=2 out=None", []).append(
                sweep(axes, REPLICATES, 2, None, dask="local")
            )
            rows.setdefault("2 runs, dask local jobs=2 out=None", []).append(
                sweep(two, 1, 2, None, dask="local")
            )
        # A cluster already running, as a Dask user has one: a scheduler and two single-threaded
        # workers, each in a process of its own (the `dask` command); its start and its workers'
        # imports not counted, as the local pool's fork server is warm above.
        # Each sweep opens a client of its own and closes it, unless this process has one to
        # that scheduler open (as a notebook does), which the sweep uses: the last row.
        from distributed import Client

        with dask_cluster(root, 2) as (address, scheduler, workers):
            sweep(two, 1, 2, new_dir(), dask=address)
            cluster = {"scheduler": scheduler, "workers": workers}
            for _ in range(reps):
                for name, ax, n, out in (
                    ("dask cluster jobs=2 out=DIR", axes, REPLICATES, new_dir()),
                    ("dask cluster jobs=2 out=None", axes, REPLICATES, None),
                    ("2 runs, dask cluster jobs=2 out=None", two, 1, None),
                ):
                    if name == "dask cluster jobs=2 out=None":
                        rows.setdefault(name, []).append(
                            cpu_of(name, cluster, ax, n, 2, out, dask=address)
                        )
                        continue
                    rows.setdefault(name, []).append(sweep(ax, n, 2, out, dask=address))
                with Client(address, timeout="60s"):
                    rows.setdefault("dask cluster jobs=2 out=None, client open", []).append(
                        sweep(axes, REPLICATES, 2, None, dask=address)
                    )
            # The local pool and the cluster in turn, pair by pair: the ratio of the two
            # under the same conditions (the rows above each follow other cases).
            for _, idle, local, dask in IN_TURN:
                for _ in range(2 * reps + 1):
                    for name, to in ((local, None), (dask, address)):
                        time.sleep(idle)
                        rows.setdefault(name, []).append(sweep(axes, REPLICATES, 2, None, dask=to))

    cli = [
        str(Path(sys.executable).with_name("hscc")),
        "sweep",
        str(root / "sweep.toml"),
        "-j",
        "2",
        "-q",
        "--out",
    ]
    if Path(cli[0]).exists():
        for _ in range(reps):
            t = time.perf_counter()
            subprocess.run(cli + [str(new_dir())], check=True, stdout=subprocess.DEVNULL)
            rows.setdefault("hscc sweep -j 2 --out DIR (new process)", []).append(
                (time.perf_counter() - t, float("nan"))
            )

    report(rows)
    report_cpu(cpu)
    return rows, cpu


# The 200 runs out=None on the local pool and on the running cluster, in turn, pair i of
# each two rows measured together: back to back, and each sweep after an idle pause (s), so
# that none starts while the other's processes still finish their work; a cluster idle that
# long takes longer. (label, pause, the local pool's row, the cluster's row).
IN_TURN = [
    (
        label,
        idle,
        f"sweep jobs=2 out=None, in turn with the cluster, {label}",
        f"dask cluster jobs=2 out=None, in turn with the local pool, {label}",
    )
    for label, idle in (("back to back", 0.0), ("each after 0.5 s idle", 0.5))
]


STORED_CASES = {
    "CTCP test bed": "examples/ctcp-testbed.toml",
    "two-Reno demo": "examples/two-reno-rtt.toml",
}
STORED_RUNS = 200


def measure_stored_case(root: Path, reps: int) -> dict:
    """The stored-runs case: 200 stored runs of 1 simulated second, on 1 and 2 workers.

    Besides wall times, the CPU time of every process of the sweep (this one, the fork
    server and its workers, read from /proc) against the engine's own CPU time for the
    same runs: on a machine shared with other work the wall times say more about the
    others than about hscc, the CPU times much less."""
    import tomllib

    import hscc

    repo = Path(__file__).resolve().parent.parent
    bases = {}
    for name, path in STORED_CASES.items():
        data = tomllib.loads((repo / path).read_text())
        data["duration"] = "1s"
        bases[name] = data
    counter = iter(range(10**6))
    print(
        f"\nthe stored-runs case: {STORED_RUNS} stored runs of 1 s simulated, {reps} repetitions each, load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    for data in bases.values():  # warm up: forkserver, imports, engine
        hscc.sweep(
            data, None, replicates=4, seed=99, jobs=2, out=root / f"stored-warm{next(counter)}"
        )
    rows: dict[str, dict[str, list[float]]] = {}
    for rep in range(reps):
        for name, data in bases.items():
            r = rows.setdefault(name, {})
            engine_cpu, engine = engine_only(data, STORED_RUNS)
            r.setdefault("E", []).append(engine)
            r.setdefault("E cpu", []).append(engine_cpu)
            for jobs in (1, 2):
                c, own, t = tree_cpu(), self_cpu(), time.perf_counter()
                result = hscc.sweep(
                    data,
                    None,
                    replicates=STORED_RUNS,
                    seed=rep + 1,
                    jobs=jobs,
                    out=root / f"stored{next(counter)}",
                )
                wall = time.perf_counter() - t
                time.sleep(0.3)  # the fork server reaps the workers that ended
                r.setdefault(f"jobs={jobs}", []).append(wall)
                r.setdefault(f"cpu jobs={jobs}", []).append(tree_cpu() - c)
                r.setdefault(f"own cpu jobs={jobs}", []).append(self_cpu() - own)
                if set(result.points["status"].to_list()) != {"ok"}:
                    raise SystemExit(f"bench-sweep: a run of {name} failed: {result.failed}")
        print(f"  repetition {rep + 1} of {reps} done (load {os.getloadavg()[0]:.2f})", flush=True)
    med = statistics.median
    print(
        "\nwall: E = Σ of the engine's wall time over the 200 runs in a loop in this process; ideal = E / workers."
    )
    print(
        "cpu: every process of the sweep, against the engine's own CPU time for the same runs (E cpu).\n"
    )
    print(
        "| case | E, median | workers | wall s (min / median) | ideal E / workers | wall / ideal | CPU per run: engine / whole sweep "
        "(workers + the sweep's process) | CPU / engine CPU |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        e, ec = med(r["E"]), med(r["E cpu"])
        for jobs in (1, 2):
            walls, cpu, own = (
                r[f"jobs={jobs}"],
                med(r[f"cpu jobs={jobs}"]),
                med(r[f"own cpu jobs={jobs}"]),
            )
            print(
                f"| {name} | {e:.2f} s ({e / STORED_RUNS * 1e3:.1f} ms/run) | {jobs} | {min(walls):.2f} / {med(walls):.2f} | "
                f"{e / jobs:.2f} | {med(walls) / (e / jobs):.2f}× | {ec / STORED_RUNS * 1e3:.1f} / {cpu / STORED_RUNS * 1e3:.1f} ms "
                f"({(cpu - own) / STORED_RUNS * 1e3:.1f} + {own / STORED_RUNS * 1e3:.1f}) | "
                f"{cpu / ec:.2f}× |"
            )
    return rows


def engine_only(data: dict, runs: int) -> tuple[float, float]:
    """(CPU s, wall s) of the engine alone (what wall_time_s covers: build, simulate, finish) for `runs` seeds;
    the run's tables and files, made after, count as the sweep's overhead."""
    import hscc

    sc = hscc.Scenario.parse(data)
    cpu = wall = 0.0
    for i in range(runs):
        resolved = sc.with_seed(10_000 + i).resolved()
        c, t = time.process_time(), time.perf_counter()
        sim = hscc.Simulation(resolved)
        sim.run_until(sim.duration)
        sim.finish()
        cpu += time.process_time() - c
        wall += time.perf_counter() - t
    return cpu, wall


def self_cpu() -> float:
    """CPU seconds of this process's own threads (the sweep's: its loop, the store's writer, the pool's threads)."""
    t = os.times()
    return t.user + t.system


def tree_cpu(root: int | None = None) -> float:
    """CPU seconds of process `root` (default this one) and all its descendants, living or
    ended and reaped (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = (
                int(fields[1]),
                sum(int(x) for x in fields[11:15]),
            )  # ppid; utime stime cutime cstime
    total, todo = 0, [os.getpid() if root is None else root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0))[1]
        todo += [p for p, (ppid, _) in stats.items() if ppid == pid]
    return total / tick


def report(rows: dict[str, list[tuple[float, float]]]) -> None:
    med = statistics.median
    engine = med(e for _, e in rows["loop of hscc.run"])
    print(
        f"\nengine time E (Σ wall_time_s of the loop's {RUNS} runs): median {engine:.3f} s, "
        f"{engine / RUNS * 1e3:.2f} ms per run; ideal on 2 workers: {engine / 2:.3f} s\n"
    )
    print(
        "| case | workers | wall s (min / median) | runs/s | overhead ms/run | beyond the fixed cost | speed-up 1→2 | Σ wall_time_s in the runs |"
    )
    print("|---|---|---|---|---|---|---|---|")
    wall_of = {name: med(w for w, _ in v) for name, v in rows.items()}
    for name, v in rows.items():
        walls = [w for w, _ in v]
        single = name.startswith(("1 run", "2 runs"))
        workers = 1 if "jobs=1" in name or name.startswith(("loop", "1 run")) else 2
        runs = 1 if name.startswith("1 run") else 2 if single else RUNS
        cached = "cached" in name
        e = 0.0 if cached else engine * runs / RUNS
        overhead = (med(walls) - e / workers) / runs * 1e3
        speedup = ""
        if "jobs=2" in name and not single and not cached and not name.startswith("dask"):
            partner = name.replace("jobs=2", "jobs=1")
            if partner in wall_of:
                speedup = f"{wall_of[partner] / med(walls):.2f}×"
        beyond = ""
        fixed = (
            name.replace("sweep ", "2 runs, ").replace("dask", "2 runs, dask", 1)
            if name.startswith(("sweep", "dask"))
            else None
        )
        if fixed in wall_of and not cached:
            beyond = f"{(med(walls) - wall_of[fixed] - e / workers) / runs * 1e3:.1f}"
        inside = [s for _, s in v if s == s]
        shown = f"{med(inside):.3f}" if inside and not cached else ""
        rate = "" if single else f"{runs / med(walls):.0f}"
        over = "" if single else f"{overhead:.1f}"
        print(
            f"| {name} | {workers} | {min(walls):.2f} / {med(walls):.2f} | {rate} | {over} | {beyond} | {speedup} | {shown} |"
        )
    print(
        "\noverhead per run = (wall − E / workers) / runs (E = 0 for cached runs); a 2-run row (two points) is the sweep's "
        "fixed cost (pool, tables, plots), and 'beyond the fixed cost' subtracts it: (wall − wall of 2 runs − E / workers) / runs; "
        "the 1-run row, a sweep of one run: no pool, no plots."
    )
    for label, _, local, dask in IN_TURN:
        if dask not in rows:
            continue
        ratios = [d / lo for (d, _), (lo, _) in zip(rows[dask], rows[local], strict=True)]
        print(
            f"the running cluster against the local pool, in turn, {label} ({len(ratios)} pairs): "
            f"median {med(ratios):.2f}× ({', '.join(f'{r:.2f}' for r in ratios)})"
        )


def report_cpu(cpu: dict[str, list[dict[str, float]]]) -> None:
    """CPU seconds per sweep by process group, and in all (medians over the repetitions)."""
    if not cpu:
        return
    print("\nCPU seconds per sweep of the 200 runs, out=None, by process group (medians):")
    med = statistics.median
    for name, samples in cpu.items():
        shown = ", ".join(f"{g} {med(s[g] for s in samples):.3f}" for g in samples[0])
        print(f"  {name}: {shown}; all {med(sum(s.values()) for s in samples):.3f}")


if __name__ == "__main__":
    main()

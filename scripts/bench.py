"""The figures of docs/performance.md, measured and written as data:
validation/results/performance.json, which validation/results/render.py turns into the page's
tables.

    .venv/bin/python scripts/bench.py                       # every part, about 4 minutes on an idle 2-core machine
    .venv/bin/python scripts/bench.py --only sweeps         # the sweeps part alone, about 1 minute
    .venv/bin/python scripts/bench.py --only testbed,startup
    .venv/bin/python scripts/bench.py --quick --no-results  # a short trial of every part, printed
    .venv/bin/python validation/results/render.py --write   # then the page

The parts (`--only`, comma-separated; a run replaces the parts it measured and keeps the rest):

- testbed: the CTCP test-bed bench (crates/hscc-sim/benches/testbed.rs), 300 s simulated
  twice and 60 s three times: wall time, events, packets, utilization, peak memory;
- callgrind: the test bed under `valgrind --tool=callgrind`, 10 s simulated, with Reno, BBR
  (`cc=bbr`) and each optional feature the bench takes (queue disciplines, ECN, classic
  recovery, the per-ACK log, captures): instructions, which do not vary from run to run;
- many_flows: the many_flows bench with 256 and 1024 flows, three runs each;
- flows: 10 to 10 000 Reno flows, a host pair each, on a 10 Gbit/s dumbbell, 4 s simulated
  through the Python API: the build's time and the engine's per data segment;
- loss_burst: the loss_burst bench with Linux's recovery and with NewReno (the bench reports
  the fastest of its own repeated runs per window);
- startup: the CPU time (user + system, the process and those it waits for, from
  getrusage(RUSAGE_CHILDREN)) of short commands, the median of 15 runs each, the commands
  taken in turn run for run so that a change in the machine's load falls on all of them;
- sweeps: scripts/bench-sweep.py's measurement (a sweep's cost per run beyond the engine:
  200 tiny runs, and 200 stored runs of the CTCP test bed and the two-Reno demo on 1 and 2
  workers), three repetitions, its figures read from its `--json` file; the quick trial
  takes one repetition and no Dask.

The benches print their figures as text; the parsers below read those lines by their labels
and stop with an error naming the missing line when a bench's output changes
(tests/python/test_bench_parsers.py holds them to captured outputs in tests/data/bench/).

Every part records its conditions: the tree's revision, the engine's digest, the machine,
and the load average (1, 5, 15 minutes) when it started and when it ended. Wall and CPU
times need an idle machine; instruction counts do not. The benches are built first
(`cargo build --release -p hscc-sim --benches`; `--no-build` takes the newest ones in
target/release/deps).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "results"))

import results  # noqa: E402

PERFORMANCE = results.HERE / "performance.json"
SCHEMA = "hscc.performance/1"
COMMAND = "python scripts/bench.py"
PARTS = ("testbed", "callgrind", "many_flows", "flows", "loss_burst", "startup", "sweeps")

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
STARTUP_RUNS, STARTUP_RUNS_QUICK = 15, 3
# The flows part: N Reno flows, each on its own host pair of a 10 Gbit/s dumbbell (RTT
# 20 ms, 0.5 BDP of buffer), for FLOWS_SECONDS; the engine's time per data segment.
FLOWS = [10, 100, 1000, 10000]
FLOWS_QUICK = [10, 100]
FLOWS_SECONDS, FLOWS_SECONDS_QUICK = 4.0, 0.5
SWEEP_REPS, SWEEP_REPS_QUICK = 3, 1

# One Reno flow alone on a 10 Mbit/s link, 2 s simulated: a run whose cost is start-up.
ONE_FLOW = """\
name = "one-flow"
duration = "2s"
seed = 7

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }]

[[flows]]
pair = 0
algorithm = "reno"
"""


# ---------------------------------------------------------------- parsers of the benches' output


def _field(text: str, bench: str, label: str, pattern: str = r"(\S+)") -> re.Match:
    """The line `  LABEL   VALUE…` of a bench's output; an error naming it when it is missing."""
    m = re.search(rf"^\s*{re.escape(label)}\s+{pattern}", text, re.M)
    if m is None:
        raise ValueError(f"{bench} output: no line {label!r} (has the bench's output changed?)")
    return m


def _float(text: str, bench: str, label: str) -> float:
    return float(_field(text, bench, label).group(1))


def _int(text: str, bench: str, label: str) -> int:
    return int(_field(text, bench, label).group(1))


def parse_testbed(text: str) -> dict:
    """The testbed bench's figures (crates/hscc-sim/benches/testbed.rs)."""
    head = re.search(
        r"^testbed: (\d+) (\S+) flows, .*?, (\d+) s simulated, (.*) recovery$", text, re.M
    )
    if head is None:
        raise ValueError("testbed output: no first line 'testbed: N ALGO flows, …'")
    drops = _field(
        text,
        "testbed",
        "bottleneck drops/marks",
        r"(\d+) queue, (\d+) aqm, (\d+) marks; mean queuing delay ([\d.]+) ms",
    )
    counts = _field(
        text,
        "testbed",
        "recoveries",
        r"(\d+), timeouts (\d+), retransmissions (\d+), RACK-marked (\d+), probes (\d+), undos (\d+)",
    )
    out = {
        "flows": int(head.group(1)),
        "algorithm": head.group(2),
        "seconds": int(head.group(3)),
        "recovery": head.group(4),
        "queue": _field(text, "testbed", "queue", r"(.+)$").group(1).strip(),
        "utilization": _float(text, "testbed", "bottleneck utilization"),
        "drops_queue": int(drops.group(1)),
        "drops_aqm": int(drops.group(2)),
        "marks": int(drops.group(3)),
        "mean_qdelay_ms": float(drops.group(4)),
        "data_segments": _int(text, "testbed", "data segments delivered"),
        "packets": _int(text, "testbed", "packets delivered"),
        "events": _int(text, "testbed", "events"),
        **dict(
            zip(
                ("recoveries", "timeouts", "retransmissions", "rack_marked", "probes", "undos"),
                (int(g) for g in counts.groups()),
                strict=True,
            )
        ),
        "wall_s": _float(text, "testbed", "wall time"),
        "events_per_s": _float(text, "testbed", "events/s"),
    }
    log = re.search(r"^\s*per-ACK log\s+(\d+) rows, (\d+) ACKs sent", text, re.M)
    if log:
        out["cc_log_rows"] = int(log.group(1))
    captures = re.findall(r"^\s*capture (\S+)\s+(\d+) packets, ([\d.]+) MB", text, re.M)
    if captures:
        out["captures"] = {n: {"packets": int(p), "mb": float(mb)} for n, p, mb in captures}
    peak = re.search(r"^\s*peak memory\s+([\d.]+) MB", text, re.M)
    if peak:  # from /proc/self/status: Linux only
        out["peak_memory_mb"] = float(peak.group(1))
    return out


def parse_many_flows(text: str) -> dict:
    """The many_flows bench's figures (crates/hscc-sim/benches/many_flows.rs)."""
    head = re.search(r"^many flows: (\d+) reno flows", text, re.M)
    if head is None:
        raise ValueError("many_flows output: no first line 'many flows: N reno flows …'")
    jain = _field(text, "many_flows", "Jain index (long flows)", r"(.+)$").group(1).strip()
    web = _field(text, "many_flows", "web transfers completed", r"(\d+) of (\d+)")
    m = re.fullmatch(r"Some\(([\d.eE+-]+)\)", jain)
    return {
        "flows": int(head.group(1)),
        "utilization": _float(text, "many_flows", "bottleneck utilization"),
        "jain": float(m.group(1)) if m else None,
        "web_completed": int(web.group(1)),
        "web_started": int(web.group(2)),
        "wall_s": _float(text, "many_flows", "wall time"),
        "data_segments_per_s": _float(text, "many_flows", "data segments/s"),
        "events_per_s": _float(text, "many_flows", "events/s"),
    }


def parse_loss_burst(text: str) -> dict:
    """The loss_burst bench's table (crates/hscc-sim/benches/loss_burst.rs): per window, the
    events of one run and the fastest run's wall time and ns per event."""
    head = re.search(r"^loss burst: (\w+), .*; fastest of (\d+) runs in all$", text, re.M)
    if head is None:
        raise ValueError("loss_burst output: no first line 'loss burst: RECOVERY, …'")
    rows = [
        {
            "window": int(w),
            "events": int(ev),
            "wall_s": float(wall),
            "ns_per_event": float(ns),
            "retransmissions": int(rt),
        }
        for w, ev, wall, ns, rt in re.findall(
            r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+[\d.]+×$", text, re.M
        )
    ]
    if not rows:
        raise ValueError("loss_burst output: no rows under 'window events wall s …'")
    return {"recovery": head.group(1), "runs": int(head.group(2)), "windows": rows}


def parse_callgrind(stderr: str) -> int:
    """The instructions callgrind counted (its `Collected : N` line on stderr)."""
    m = re.search(r"^==\d+== Collected : (\d+)", stderr, re.M)
    if m is None:
        raise ValueError("callgrind output: no line '==PID== Collected : N'")
    return int(m.group(1))


# ---------------------------------------------------------------- conditions


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _engine_digest() -> str | None:
    """The extension's engine digest; None where hscc's extension is not built."""
    try:
        from hscc import _core
    except ImportError:
        return None
    return _core.engine_digest()


def _modified() -> bool | None:
    """Whether tracked files differ from the revision (then it does not name what ran); the
    results this script writes, and the page made from them, are not code that ran."""
    status = results.git("status", "--porcelain", "--untracked-files=no")
    if status is None:
        return None
    ours = {"validation/results/performance.json", "docs/performance.md"}
    return any(line[3:] not in ours for line in status.splitlines() if line.strip())


def conditions(load_start: list[float], **extra: object) -> dict:
    return {
        "revision": results.revision(),
        "modified": _modified(),
        "engine": _engine_digest(),
        "machine": {"cpu": _cpu_model(), "cores": os.cpu_count(), "kernel": platform.release()},
        "load_average": {"start": load_start, "end": _load()},
        **extra,
    }


# ---------------------------------------------------------------- running


def build_benches() -> dict[str, Path]:
    """Build the benches (release) and return their executables by name."""
    p = subprocess.run(
        ["cargo", "build", "--release", "-p", "hscc-sim", "--benches", "--message-format=json"],
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


def part_callgrind(exes: dict[str, Path], quick: bool, tmp: Path) -> dict:
    seconds = CALLGRIND_SECONDS_QUICK if quick else CALLGRIND_SECONDS
    variants = []
    for name, group, args in CALLGRIND:
        out_file = tmp / f"callgrind.out.{name}"
        p = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out_file}",
                str(exes["testbed"]),
                str(seconds),
                *args,
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(f"callgrind of testbed {seconds} {' '.join(args)}:\n{p.stderr}")
        out = parse_testbed(p.stdout)
        for k in ("wall_s", "events_per_s", "peak_memory_mb"):  # callgrind's, not the engine's
            out.pop(k, None)
        variants.append(
            {"name": name, "group": group, "args": args, "instructions": parse_callgrind(p.stderr)}
            | out
        )
        print(f"  callgrind {name}: {variants[-1]['instructions']:,} instructions", flush=True)
    return {
        "command": "valgrind --tool=callgrind target/release/deps/testbed-* SECONDS [ARGS]",
        "seconds": seconds,
        "variants": variants,
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
    recoveries = []
    for args in ([], ["newreno"]):
        out = parse_loss_burst(run_bench(exes["loss_burst"], [*windows, *args], tmp))
        recoveries.append(out)
        print(f"  loss_burst {out['recovery']}: {out['runs']} runs", flush=True)
    return {
        "command": "cargo bench -p hscc-sim --bench loss_burst -- "
        + " ".join(windows)
        + " [newreno]",
        "recoveries": recoveries,
    }


def startup_commands(tmp: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    """(what the page calls it, argv, extra environment) of each start-up command."""
    py = sys.executable
    script = Path(py).parent / "hscc"
    hscc = [str(script)] if script.is_file() else [py, "-m", "hscc"]
    scenario = tmp / "one-flow.toml"
    scenario.write_text(ONE_FLOW, encoding="utf-8")
    # With bytecode, as an install leaves it: compiled first, since an environment with
    # PYTHONDONTWRITEBYTECODE set never writes it (that variable does not stop reading it).
    subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "python" / "hscc")], check=True)
    # Without bytecode: a copy of the package without __pycache__, and none written, so
    # Python compiles every hscc module it imports (the standard library keeps its own).
    bare = tmp / "bare"
    shutil.copytree(
        ROOT / "python" / "hscc", bare / "hscc", ignore=shutil.ignore_patterns("__pycache__")
    )
    nobc = {"PYTHONPATH": str(bare), "PYTHONDONTWRITEBYTECODE": "1"}
    return [
        ("`python -c pass`", [py, "-c", "pass"], {}),
        ('`python -c "import hscc"`', [py, "-c", "import hscc"], {}),
        ('`python -c "import hscc.cli"`', [py, "-c", "import hscc.cli"], {}),
        ("`hscc --version`", [*hscc, "--version"], {}),
        (
            "`hscc check examples/two-reno-rtt.toml`",
            [*hscc, "check", "examples/two-reno-rtt.toml"],
            {},
        ),
        (
            "`hscc run` of 1 Reno flow, 10 Mbit/s, 2 s simulated, `-q`",
            [*hscc, "run", str(scenario), "-q", "--out", "OUT"],
            {},
        ),
        ("the same with its summary table", [*hscc, "run", str(scenario), "--out", "OUT"], {}),
        ('`python -c "import hscc.cli"`, without bytecode', [py, "-c", "import hscc.cli"], nobc),
        (
            "the quiet `hscc run`, without bytecode",
            [*hscc, "run", str(scenario), "-q", "--out", "OUT"],
            nobc,
        ),
    ]


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def part_startup(quick: bool, tmp: Path) -> dict:
    commands = startup_commands(tmp)
    base = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    runs = STARTUP_RUNS_QUICK if quick else STARTUP_RUNS
    cpu: list[list[float]] = [[] for _ in commands]
    n = 0
    for rep in range(runs + 1):  # the first pass leaves the bytecode: not counted
        for i, (_, argv, env) in enumerate(commands):
            n += 1
            argv = [str(tmp / f"run{n}") if a == "OUT" else a for a in argv]
            before = _child_cpu()
            p = subprocess.run(
                argv,
                cwd=ROOT,
                env={**base, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)} failed:\n{p.stderr}")
            if rep:
                cpu[i].append(_child_cpu() - before)
    print("  startup: done", flush=True)
    return {
        "command": "each command in turn, run for run; CPU from getrusage(RUSAGE_CHILDREN)",
        "python": platform.python_version(),
        "runs": runs,
        "commands": [
            # paths by their names: the interpreter's and the temporary directory's are this machine's
            {"name": name, "argv": [Path(a).name if a.startswith("/") else a for a in argv]}
            | {"cpu_s": [round(c, 4) for c in cs], "median_s": round(statistics.median(cs), 4)}
            for (name, argv, _), cs in zip(commands, cpu, strict=True)
        ],
    }


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


def part_flows(quick: bool) -> dict:
    """The engine's own time (the simulation loop, not the build or the files) per data
    segment, against the number of flows."""
    from hscc import _core
    from hscc.scenario import Scenario

    seconds = FLOWS_SECONDS_QUICK if quick else FLOWS_SECONDS
    counts = []
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
        counts.append(
            {
                "flows": n,
                "build_s": round(built, 4),
                "engine_s": round(engine, 4),
                "events": sim.events,
                "data_segments": segments,
                "utilization": next(
                    (x["utilization"] for x in summary["links"] if x["name"] == "bottleneck:fwd"),
                    None,
                ),
            }
        )
        print(
            f"  flows {n}: {engine:.3f} s, {engine / segments * 1e9:.0f} ns per segment", flush=True
        )
    return {
        "command": "scripts/bench.py: hscc's Python API, the engine's simulation loop timed",
        "seconds": seconds,
        "counts": counts,
    }


def _store_kind(path: str) -> str | None:
    """The file system under the sweeps' store (tmpfs, ext4...), from /proc/mounts: it sets
    the cost of a run directory."""
    try:
        mounts = [line.split()[1:3] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return None
    real = os.path.realpath(path)
    inside = [(m, kind) for m, kind in mounts if real == m or real.startswith(m.rstrip("/") + "/")]
    return max(inside, key=lambda mk: len(mk[0]))[1] if inside else None


def _rounded(values: list[float | None]) -> list[float | None]:
    # NaN (the new process's engine time, not measured) is not JSON: None.
    return [None if v is None or v != v else round(v, 4) for v in values]


def sweep_case(name: str) -> tuple[int, int]:
    """(workers, runs) of a case of bench-sweep.py's tiny runs, by its name (as its report)."""
    single = name.startswith(("1 run", "2 runs"))
    workers = 1 if "jobs=1" in name or name.startswith(("loop", "1 run")) else 2
    runs = 1 if name.startswith("1 run") else 2 if single else 200
    return workers, runs


def part_sweeps(quick: bool, tmp: Path) -> dict[str, object]:
    """bench-sweep.py run as it is, its figures read from the JSON it writes."""
    reps = SWEEP_REPS_QUICK if quick else SWEEP_REPS
    args = ["--reps", str(reps), *(["--no-dask"] if quick else [])]
    out = tmp / "sweeps.json"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench-sweep.py"), *args, "--json", str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        check=True,
    )
    raw = json.loads(out.read_text(encoding="utf-8"))
    tiny = []
    for name, pairs in raw["tiny"].items():
        workers, runs = sweep_case(name)
        tiny.append(
            {"name": name, "workers": workers, "runs": runs}
            | {
                "wall_s": _rounded([w for w, _ in pairs]),
                "engine_s": _rounded([e for _, e in pairs]),
            }
        )
    stored = [
        {
            "name": name,
            "engine_s": _rounded(r["E"]),
            "engine_cpu_s": _rounded(r["E cpu"]),
            "workers": [
                {
                    "jobs": jobs,
                    "wall_s": _rounded(r[f"jobs={jobs}"]),
                    "cpu_s": _rounded(r[f"cpu jobs={jobs}"]),
                    "own_cpu_s": _rounded(r[f"own cpu jobs={jobs}"]),
                }
                for jobs in (1, 2)
            ],
        }
        for name, r in raw["stored"].items()
    ]
    return {
        "command": "scripts/bench-sweep.py " + " ".join(args),
        "reps": reps,
        "store": _store_kind(tempfile.gettempdir()),
        "tiny": tiny,
        "stored_runs": 200,
        "stored": stored,
    }


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
            data = part_startup(quick, tmp)
        elif part == "flows":
            data = part_flows(quick)
        elif part == "sweeps":
            data = part_sweeps(quick, tmp)
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
    if set(parts) - {"startup", "flows", "sweeps"}:
        exes = newest_benches() if args.no_build else build_benches()
    start = time.monotonic()
    measured = {}
    for part in parts:
        print(f"{part} (load average {_load()[0]:.2f})", flush=True)
        measured[part] = measure(part, exes, args.quick)
    print(f"measured in {time.monotonic() - start:.0f} s", flush=True)
    if args.no_results:
        print(results.dump(measured), end="")
        return 0
    results.write(args.results, merge(args.results, measured))
    print(f"wrote {args.results}; now: python validation/results/render.py --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())

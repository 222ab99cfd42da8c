"""The figures of docs/performance.md, measured and written as data:
validation/results/performance.json, which validation/results/render.py turns into the page's
tables.

    .venv/bin/python scripts/bench.py                       # every part, about 8 minutes on an idle 2-core machine
    .venv/bin/python scripts/bench.py --only sweeps         # the sweeps part alone, about 1 minute
    .venv/bin/python scripts/bench.py --only probe,simulators  # about 4 minutes, ns-3 most of it
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
- probe: the CTCP test-bed shape (`hscc run -q`, 300 s simulated) with hscc's defaults and with
  host_jitter = 0, against the lean probe (validation/probe/probe.rs, compiled here with
  rustc -C opt-level=3 -C target-cpu=native): CPU time of each whole process, in turn, and
  events per data segment (hscc's from each run's summary.json: events, packets per link);
- simulators: hscc against ns-2.35 and ns-3.37 on the scenarios of SIMULATORS, each tool in
  turn: whole process (CPU time) and engine alone. Needs Debian's ns2 (`ns`), libns3-dev and
  g++ (validation/ns3/bench_dumbbell.cc is compiled here with g++ -O2);
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
(`cargo build --release --locked -p hscc-sim --benches`; `--no-build` takes the newest ones in
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
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "results"))

import results  # noqa: E402

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
)

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
# The probe part: pairs of runs (probe, then hscc), simulated seconds; the target ratio.
PROBE_PAIRS, PROBE_PAIRS_QUICK = 3, 1
PROBE_SECONDS, PROBE_SECONDS_QUICK = 300, 10
PROBE_TARGET = 1.2
# The simulators part: pairs of runs (each tool in turn), and the quick trial's length.
SIMULATOR_PAIRS, SIMULATOR_PAIRS_QUICK = 3, 1
SIMULATOR_SECONDS_QUICK = 1.0

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

# The CTCP test-bed shape with hscc's defaults (Linux's recovery, host jitter, traces every
# 100 ms): what the lean probe is held against. SECONDS is filled in.
TESTBED_TOML = """\
name = "ctcp-testbed-reno"
duration = "{seconds}s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = {{ rate = "700Mbps", delay = "1ms", buffer = "1500pkts" }}
pairs = [{{ rate = "10Gbps", rtt = "100ms" }}]

[[flows]]
pair = 0
algorithm = "reno"
count = 8
{flow_extra}"""
# hscc's variants of the test bed in the probe part: (name, what the flows set beyond it).
PROBE_VARIANTS = [("defaults", ""), ("host_jitter = 0", 'host_jitter = "0s"\n')]

# The scenarios of hscc against ns-2 and ns-3, in one place: (name, flows, bottleneck rate
# bit/s, buffer packets, access rate bit/s, RTT s, seconds simulated). Every one a dumbbell with
# a 1-ms bottleneck, the flows on one host pair whose sender access link has the rest of the
# RTT (the receiver's has no delay), Reno with SACK, 1448-byte segments (1500-byte packets in
# hscc and ns-2; ns-3 puts 1490 bytes on its PPP wire), an initial window of 2, an ACK per
# segment, no timestamps, a 200-ms minimum RTO, from 0 s. hscc runs them with stack = "ns2"
# (ns-2.35's Sack1 agent and sink), ns-2 as validation/ns2/ns2_tcl.py translates that
# scenario, ns-3 with TcpNewReno, SACK and TcpClassicRecovery.
SIMULATORS = [
    ("100 Mbit/s", 2, 100e6, 333, 1e9, 0.04, 40.0),
    ("1 Gbit/s", 4, 1e9, 3333, 10e9, 0.04, 10.0),
    ("700 Mbit/s (the CTCP test bed)", 8, 700e6, 1500, 10e9, 0.1, 10.0),
]
SIMULATOR_MSS, SIMULATOR_INIT_CWND, SIMULATOR_MIN_RTO = 1448, 2, 0.2
BOTTLENECK_DELAY = 0.001
SIMULATOR_TOML = """\
name = "{name}"
duration = "{seconds}s"
seed = 1
stack = "ns2"

[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate:.0f}bps", delay = "{delay}s", buffer = "{buffer}pkts" }}
pairs = [{{ rate = "{access:.0f}bps", rtt = "{rtt}s" }}]

[[flows]]
pair = 0
algorithm = "reno"
count = {flows}
mss = {mss}
init_cwnd = {init_cwnd}
min_rto = "{min_rto}s"
"""
NS3_LIBS = ["applications", "internet", "point-to-point", "traffic-control", "network", "core"]


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


def parse_probe(text: str) -> dict:
    """The lean probe's figures (validation/probe/probe.rs)."""
    head = re.search(r"^probe: (\d+) Reno flows, .* (\d+) s simulated$", text, re.M)
    if head is None:
        raise ValueError("probe output: no first line 'probe: N Reno flows, …'")
    return {
        "flows": int(head.group(1)),
        "seconds": int(head.group(2)),
        "events": _int(text, "probe", "events"),
        "data_segments_sent": _int(text, "probe", "data segments sent"),
        "data_segments": _int(text, "probe", "data segments delivered"),
        "drops": _int(text, "probe", "bottleneck drops"),
        "utilization": _float(text, "probe", "bottleneck utilization"),
        "wall_s": _float(text, "probe", "wall time"),
    }


def parse_ns3(text: str) -> dict:
    """validation/ns3/bench_dumbbell.cc's line: Simulator::Run's CPU time, events, bytes."""
    m = re.search(r"^\{.*\}$", text, re.M)
    if m is None:
        raise ValueError("bench_dumbbell output: no JSON line")
    out = json.loads(m.group(0))
    missing = {"run_cpu_s", "events", "rx_bytes"} - set(out)
    if missing:
        raise ValueError(f"bench_dumbbell output: no {', '.join(sorted(missing))}")
    return out


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


# ---------------------------------------------------------------- the probe and other simulators


def _hscc_cli() -> list[str]:
    py = sys.executable
    script = Path(py).parent / "hscc"
    return [str(script)] if script.is_file() else [py, "-m", "hscc"]


def _timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    """(CPU time, user + system, of the whole process and those it waits for; its stdout)."""
    before = _child_cpu()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    cpu = _child_cpu() - before
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{p.stderr[-2000:]}")
    return cpu, p.stdout


def _hscc_run(scenario: Path, out: Path, env: dict[str, str]) -> dict:
    """`hscc run SCENARIO -q`: its CPU time, and from its summary.json the events, the data
    segments delivered and the engine's own (wall) time; the run directory then removed."""
    cpu, _ = _timed([*_hscc_cli(), "run", str(scenario), "-q", "--out", str(out)], ROOT, env)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    shutil.rmtree(out)
    return {
        "cpu_s": round(cpu, 4),
        "events": summary["events"],
        "data_segments": sum(f["delivered_segs"] for f in summary["flows"]),
        "data_segments_sent": sum(f["segs_sent"] for f in summary["flows"]),
        "acks": sum(f["acks_sent"] for f in summary["flows"]),
        # A packet sent on a link is one event (its arrival at the link's far end).
        "link_packets": {x["name"]: x["tx_packets"] for x in summary["links"]},
        "utilization": next(
            (x["utilization"] for x in summary["links"] if x["name"] == "bottleneck:fwd"), None
        ),
        "engine_wall_s": round(summary["wall_time_s"], 4),
    }


def _tool_version(package: str) -> str | None:
    p = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    return p.stdout.strip() if p.returncode == 0 else None


def _ratios(a: list[float], b: list[float]) -> list[float]:
    return [round(x / y, 3) for x, y in zip(a, b, strict=True)]


def part_probe(quick: bool, tmp: Path) -> dict:
    """hscc's CLI on the CTCP test-bed shape against the lean probe, whole processes in turn."""
    exe = tmp / "probe"
    rustc = ["rustc", "-C", "opt-level=3", "-C", "target-cpu=native"]
    subprocess.run(
        [*rustc, str(ROOT / "validation" / "probe" / "probe.rs"), "-o", str(exe)], check=True
    )
    seconds = PROBE_SECONDS_QUICK if quick else PROBE_SECONDS
    pairs = PROBE_PAIRS_QUICK if quick else PROBE_PAIRS
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    scenarios = []
    for _, extra in PROBE_VARIANTS:
        scenario = tmp / f"testbed-{len(scenarios)}.toml"
        scenario.write_text(TESTBED_TOML.format(seconds=seconds, flow_extra=extra), "utf-8")
        scenarios.append(scenario)
    warm = tmp / "warm.toml"  # the bytecode written and the files cached: not counted
    warm.write_text(TESTBED_TOML.format(seconds=1, flow_extra=""), encoding="utf-8")
    _hscc_run(warm, tmp / "warm", env)
    probe: list[dict] = []
    hscc: list[list[dict]] = [[] for _ in PROBE_VARIANTS]
    for i in range(pairs):
        cpu, out = _timed([str(exe), str(seconds)], tmp)
        probe.append({"cpu_s": round(cpu, 4)} | parse_probe(out))
        for runs, scenario in zip(hscc, scenarios, strict=True):
            runs.append(_hscc_run(scenario, tmp / f"run{i}", env))
        print(
            f"  probe {probe[-1]['cpu_s']:.3f} s, hscc "
            + ", ".join(f"{runs[-1]['cpu_s']:.3f} s" for runs in hscc),
            flush=True,
        )
    probe_cpu = [p["cpu_s"] for p in probe]
    ratio = _ratios([h["cpu_s"] for h in hscc[0]], probe_cpu)
    return {
        "command": "validation/probe/probe.rs SECONDS against hscc run testbed.toml -q, in turn",
        "compiler": " ".join([*rustc, "probe.rs"]),
        "rustc": subprocess.run(
            ["rustc", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip(),
        "seconds": seconds,
        "pairs": pairs,
        "scenario": TESTBED_TOML.format(seconds=seconds, flow_extra=""),
        "target": PROBE_TARGET,
        "probe": probe,
        "hscc": [
            {"name": name, "runs": runs, "ratio": _ratios([r["cpu_s"] for r in runs], probe_cpu)}
            for (name, _), runs in zip(PROBE_VARIANTS, hscc, strict=True)
        ],
        "median_ratio": statistics.median(ratio),
    }


def simulator_scenario(
    name: str, flows: int, rate: float, buffer: int, access: float, rtt: float, seconds: float
) -> str:
    """The hscc scenario (TOML) of a row of SIMULATORS."""
    return SIMULATOR_TOML.format(
        name=re.sub(r"\W+", "-", name).strip("-"),
        seconds=seconds,
        rate=rate,
        delay=BOTTLENECK_DELAY,
        buffer=buffer,
        access=access,
        rtt=rtt,
        flows=flows,
        mss=SIMULATOR_MSS,
        init_cwnd=SIMULATOR_INIT_CWND,
        min_rto=SIMULATOR_MIN_RTO,
    )


def _hscc_engine(data: dict) -> dict:
    """The engine alone through the Python API: the CPU time of the simulation loop."""
    from hscc import _core
    from hscc.scenario import Scenario

    sim = _core.Simulation(Scenario.parse(data).resolved(), 16 << 30, None)
    c0 = time.process_time()
    sim.run_until(sim.duration)
    cpu = time.process_time() - c0
    sim.finish()
    return {"cpu_s": round(cpu, 4), "events": sim.events}


def _ns2_scripts(data: dict, d: Path) -> tuple[Path, Path]:
    """ns-2's script of the scenario, and the same ending at 0 s (its start-up and set-up)."""
    sys.path.insert(0, str(ROOT / "validation" / "ns2"))
    import ns2_tcl

    from hscc.scenario import Scenario

    engine = Scenario.parse(data).to_engine()
    full, zero = d / "full.tcl", d / "zero.tcl"
    full.write_text(ns2_tcl.script(engine), encoding="utf-8")
    zero.write_text(ns2_tcl.script({**engine, "duration": 0.0}), encoding="utf-8")
    return full, zero


def _ns2_delivered(d: Path) -> int:
    raw = json.loads((d / "ns2-out.json").read_text(encoding="utf-8"))
    return sum(row[0] + 1 for row in raw["end"])  # ack_: the last segment acknowledged


def part_simulators(quick: bool, tmp: Path) -> dict:
    """hscc against ns-2 and ns-3 on the scenarios of SIMULATORS, each tool in turn."""
    for tool, package in (("ns", "ns2"), ("g++", "g++")):
        if shutil.which(tool) is None:
            raise RuntimeError(f"the simulators part needs {tool} (apt-get install {package})")
    if not Path("/usr/include/ns3/core-module.h").is_file():
        raise RuntimeError("the simulators part needs ns-3's headers (apt-get install libns3-dev)")
    ns3 = tmp / "bench_dumbbell"
    gxx = ["g++", "-O2", "-std=c++17"]
    subprocess.run(
        [
            *gxx,
            str(ROOT / "validation" / "ns3" / "bench_dumbbell.cc"),
            *(f"-lns3-{lib}" for lib in NS3_LIBS),
            "-o",
            str(ns3),
        ],
        check=True,
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    pairs = SIMULATOR_PAIRS_QUICK if quick else SIMULATOR_PAIRS
    scenarios = []
    for name, flows, rate, buffer, access, rtt, seconds in SIMULATORS:
        seconds = SIMULATOR_SECONDS_QUICK if quick else seconds
        text = simulator_scenario(name, flows, rate, buffer, access, rtt, seconds)
        data = tomllib.loads(text)
        d = tmp / data["name"]
        d.mkdir()
        toml = d / "scenario.toml"
        toml.write_text(text, encoding="utf-8")
        full, zero = _ns2_scripts(data, d)
        ns3_args = [flows, rate, BOTTLENECK_DELAY, buffer, access, rtt / 2 - BOTTLENECK_DELAY]
        ns3_args += [0, seconds, SIMULATOR_MSS, SIMULATOR_INIT_CWND, SIMULATOR_MIN_RTO]
        _hscc_run(toml, d / "warm", env)
        runs: dict[str, list] = {"hscc": [], "hscc_engine": [], "ns2": [], "ns3": []}
        for i in range(pairs):
            runs["hscc"].append(_hscc_run(toml, d / f"run{i}", env))
            runs["hscc_engine"].append(_hscc_engine(data))
            cpu, _ = _timed(["ns", full.name], d)
            delivered = _ns2_delivered(d)
            cpu0, _ = _timed(["ns", zero.name], d)
            runs["ns2"].append(
                {
                    "cpu_s": round(cpu, 4),
                    "zero_cpu_s": round(cpu0, 4),
                    "engine_cpu_s": round(cpu - cpu0, 4),
                    "data_segments": delivered,
                }
            )
            cpu, out = _timed([str(ns3), *map(str, ns3_args)], d)
            r = parse_ns3(out)
            runs["ns3"].append(
                {
                    "cpu_s": round(cpu, 4),
                    "engine_cpu_s": round(r["run_cpu_s"], 4),
                    "events": r["events"],
                    "data_segments": r["rx_bytes"] // SIMULATOR_MSS,
                }
            )
            print(
                f"  {name}: hscc {runs['hscc'][-1]['cpu_s']:.2f} s "
                f"(engine {runs['hscc_engine'][-1]['cpu_s']:.2f}), "
                f"ns-2 {runs['ns2'][-1]['cpu_s']:.2f} s (0 s: {cpu0:.2f}), "
                f"ns-3 {cpu:.2f} s (run {r['run_cpu_s']:.2f})",
                flush=True,
            )
        h, he = [r["cpu_s"] for r in runs["hscc"]], [r["cpu_s"] for r in runs["hscc_engine"]]
        ratios = {
            tool: {
                "whole": _ratios([r["cpu_s"] for r in runs[tool]], h),
                "engine": _ratios([r["engine_cpu_s"] for r in runs[tool]], he),
            }
            for tool in ("ns2", "ns3")
        }
        scenarios.append(
            {
                "name": name,
                "flows": flows,
                "rate_bps": rate,
                "buffer_packets": buffer,
                "access_bps": access,
                "rtt_s": rtt,
                "seconds": seconds,
                "scenario": text,
                "ns3_args": ns3_args,
                "runs": runs,
                "ratios": ratios,
            }
        )
    return {
        "command": "hscc run SCENARIO -q, ns SCRIPT.tcl, bench_dumbbell ARGS, in turn",
        "ns2": _tool_version("ns2"),
        "ns3": _tool_version("libns3-dev"),
        "ns3_compiler": " ".join([*gxx, "bench_dumbbell.cc", *(f"-lns3-{x}" for x in NS3_LIBS)]),
        "pairs": pairs,
        "mss": SIMULATOR_MSS,
        "init_cwnd": SIMULATOR_INIT_CWND,
        "min_rto_s": SIMULATOR_MIN_RTO,
        "bottleneck_delay_s": BOTTLENECK_DELAY,
        "scenarios": scenarios,
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
        elif part == "probe":
            data = part_probe(quick, tmp)
        elif part == "simulators":
            data = part_simulators(quick, tmp)
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
    if set(parts) - {"startup", "flows", "sweeps", "probe", "simulators"}:
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

"""The memory part: the whole process's peak (`hscc run -q`) on large topologies and flow
counts against the engine's estimate of it, which `hscc run` and `hscc check` hold a run to
before they start it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MEMORY_RUNS, MEMORY_RUNS_QUICK = 2, 1

# The flows part's dumbbell (10 Gbit/s bottleneck with half a BDP of buffer, 100 Gbit/s host
# pairs of 20 ms RTT, Reno): (what the page calls it, host pairs, [[flows]] entries as
# (pair, count), seconds simulated).
CASES = [
    ("100 000 host pairs, a flow each", 100_000, [(i, 1) for i in range(100_000)], 0.2),
    ("100 000 host pairs, one flow", 100_000, [(0, 1)], 2.0),
    ("10 000 host pairs, 10 flows each", 10_000, [(i, 10) for i in range(10_000)], 0.2),
    ("100 000 flows on one pair, an entry each", 1, [(0, 1)] * 100_000, 0.2),
    ("20 000 flows on one pair", 1, [(0, 20_000)], 2.0),
    ("100 000 flows on one pair", 1, [(0, 100_000)], 0.2),
    ("100 000 flows on one pair", 1, [(0, 100_000)], 2.0),
    ("400 000 flows on one pair", 1, [(0, 400_000)], 0.2),
]
QUICK_CASES = [0, 4]  # a wide topology and many flows, the two shapes


def scenario_toml(pairs: int, entries: list[tuple[int, int]], seconds: float) -> str:
    lines = [
        'name = "memory"',
        f'duration = "{seconds}s"',
        "seed = 1",
        "[output]",
        "traces = []",
        "[topology]",
        'kind = "dumbbell"',
        'bottleneck = { rate = "10Gbps", delay = "1ms", buffer = "0.5bdp" }',
        "pairs = [" + ", ".join(['{ rate = "100Gbps", rtt = "20ms" }'] * pairs) + "]",
    ]
    for pair, count in entries:
        lines += ["[[flows]]", f"pair = {pair}", 'algorithm = "reno"']
        if count > 1:
            lines.append(f"count = {count}")
    return "\n".join(lines) + "\n"


def estimate(path: Path) -> int:
    """The engine's estimate of the run's peak, bytes (what `hscc check` prints), in a process
    of its own: the bench does not keep the resolved scenario."""
    code = (
        "import sys\nfrom hscc import limits\nfrom hscc.scenario import Scenario\n"
        "print(limits.estimate(Scenario.from_toml(sys.argv[1]).resolved()).memory_bytes)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"estimating {path} failed:\n{out.stderr[-2000:]}")
    return int(out.stdout)


# `hscc run` in a process that reports its own peak as it exits: VmHWM, the high-water mark of
# the memory it mapped since its exec. A child's ru_maxrss would not do: Linux carries over
# the size of the process it was forked from (the bench's own, hundreds of MB after the
# sweeps part), so small runs measured as large as the bench.
_REPORT_PEAK = """
import atexit, os, sys
def report():
    with open("/proc/self/status", encoding="ascii") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(os.environ["HSCC_BENCH_PEAK"], "w", encoding="ascii") as f:
        f.write(str(kib * 1024))
atexit.register(report)
sys.argv = ["hscc", *sys.argv[1:]]
from hscc.__main__ import entry
entry()
"""


def peak(path: Path, out: Path) -> int:
    """The peak resident memory of `hscc run -q` on `path`, bytes (the process's VmHWM; the
    run directory then removed)."""
    report = out.with_name(out.name + ".peak")
    argv = [sys.executable, "-c", _REPORT_PEAK, "run", str(path), "-q", "--max-memory", "64GB"]
    argv += ["--out", str(out)]
    env = {**os.environ, "HSCC_BENCH_PEAK": str(report)}
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace")
        raise RuntimeError(f"{' '.join(argv)} failed:\n{err[-2000:]}")
    shutil.rmtree(out, ignore_errors=True)
    peak_bytes = int(report.read_text(encoding="ascii"))
    report.unlink()
    return peak_bytes


def part_memory(quick: bool, tmp: Path) -> dict:
    runs = MEMORY_RUNS_QUICK if quick else MEMORY_RUNS
    cases = []
    for k, (name, pairs, entries, seconds) in enumerate(CASES):
        if quick and k not in QUICK_CASES:
            continue
        path = tmp / f"case-{k}.toml"
        path.write_text(scenario_toml(pairs, entries, seconds), encoding="utf-8")
        print(f"  {name}, {seconds:g} s", flush=True)
        peaks = [peak(path, tmp / f"run-{k}-{i}") for i in range(runs)]
        cases.append(
            {
                "name": name,
                "seconds": seconds,
                "estimate_bytes": estimate(path),
                "peak_bytes": peaks,
            }
        )
    interpreter = peak_of_python(tmp)
    return {"runs": runs, "cases": cases, "interpreter_bytes": interpreter}


def peak_of_python(tmp: Path) -> int:
    """The peak of a run too small to matter: what the interpreter and the modules `hscc run`
    imports hold, which the estimate does not count."""
    path = tmp / "small.toml"
    path.write_text(scenario_toml(1, [(0, 1)], 0.2), encoding="utf-8")
    return peak(path, tmp / "small-run")

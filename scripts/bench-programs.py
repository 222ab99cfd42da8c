"""What a user's algorithm costs against the same algorithm built in (docs/programs.md, Cost).

    .venv/bin/python scripts/bench-programs.py                 # about 2 minutes on a 2-core machine
    .venv/bin/python scripts/bench-programs.py --no-callgrind  # CPU times only, about 1 minute
    .venv/bin/python scripts/bench-programs.py --quick         # a short trial of each part

Two parts, printed:

- program: Linux's selftests' bpf_cubic.c (scripts/linux-selftests.sh) against the built-in
  `cubic` with `hystart = true`, on the CTCP test bed's shape (examples/ctcp-testbed.toml with
  its 8 flows all running the one algorithm). Instructions of the engine's event loop
  (`Sim::run_until`, every hook call inside it) under callgrind over 10 simulated seconds, and
  the CPU time of `hscc.run` over 60 s, median of alternating pairs. Exit code 1 if the
  program's instructions are more than 1.5 times the built-in's.
- python: an `hscc.Algorithm` subclass with Reno's hooks against the built-in `reno`, one flow
  at 20 Mbit/s for 60 s: the CPU time of `hscc.run`, median of alternating pairs, and the
  difference per ACK and per hook call (the calls counted in a separate run).

The program is built once before anything is timed (builds are cached, $HSCC_CACHE_DIR).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 1.5  # the program's instructions against the built-in's, at most


def selftests() -> Path:
    r = subprocess.run(
        ["bash", str(ROOT / "scripts/linux-selftests.sh")], capture_output=True, text=True
    )
    if r.returncode != 0:
        sys.exit(f"bench-programs: {r.stderr.strip()}")
    return Path(r.stdout.strip())


def testbed(algorithm: str, params: dict[str, Any], duration: str) -> dict[str, Any]:
    """examples/ctcp-testbed.toml with its 8 flows running `algorithm`, no traces."""
    base = tomllib.loads((ROOT / "examples/ctcp-testbed.toml").read_text())
    return {
        **base,
        "name": "bench-programs",
        "duration": duration,
        "output": {"traces": []},
        "flows": [{"pair": 0, "algorithm": algorithm, "params": params, "count": 8}],
    }


def one_flow(algorithm: str, duration: str) -> dict[str, Any]:
    return {
        "name": "bench-python",
        "duration": duration,
        "seed": 1,
        "output": {"traces": []},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "5ms", "buffer": "1bdp"},
            "pairs": [{"rate": "1Gbps", "rtt": "40ms"}],
        },
        "flows": [{"pair": 0, "algorithm": algorithm}],
    }


def cpu_of(scenario: dict[str, Any]) -> tuple[float, Any]:
    import hscc

    t = time.process_time()
    res = hscc.run(scenario)
    return time.process_time() - t, res


def pairs(a: dict[str, Any], b: dict[str, Any], n: int) -> tuple[list[float], list[float]]:
    """CPU seconds of `a` and `b`, run alternately n times each (a first, then b first)."""
    ta: list[float] = []
    tb: list[float] = []
    for i in range(n):
        for which in "ab" if i % 2 == 0 else "ba":
            (ta if which == "a" else tb).append(cpu_of(a if which == "a" else b)[0])
    return ta, tb


CALLGRIND = """
import json, sys
import hscc
hscc.run(json.loads(sys.argv[1]))
"""


def instructions(scenario: dict[str, Any], tmp: Path) -> int:
    """Instructions of the engine's event loop (Sim::run_until and what it calls) in one
    hscc.run, under callgrind."""
    out = tmp / "callgrind.out"
    r = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=*Sim::run_until*",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-c",
            CALLGRIND,
            json.dumps(scenario),
        ],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]),
        },
    )
    if r.returncode != 0:
        sys.exit(f"bench-programs: callgrind failed:\n{r.stderr[-2000:]}")
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m or int(m.group(1)) == 0:
        sys.exit(f"bench-programs: no instructions in Sim::run_until:\n{r.stderr[-2000:]}")
    return int(m.group(1))


def part_program(quick: bool, callgrind: bool) -> bool:
    src = str(selftests() / "bpf_cubic.c")
    builtin = ("cubic", {"hystart": True})
    program = (src, {})
    cpu_duration, n = ("10s", 3) if quick else ("60s", 5)
    cpu_of(testbed(*program, "1s"))  # build (or find in the cache) before timing
    ok = True
    print("program: Linux's bpf_cubic.c against the built-in cubic (hystart = true),")
    print("  examples/ctcp-testbed.toml's shape with 8 flows")
    if callgrind:
        seconds = "2s" if quick else "10s"
        with tempfile.TemporaryDirectory() as tmp:
            p = instructions(testbed(*program, seconds), Path(tmp))
            b = instructions(testbed(*builtin, seconds), Path(tmp))
        ok = p <= LIMIT * b
        print(
            f"  instructions in Sim::run_until over {seconds}: program {p:.3g}, built in {b:.3g}: "
            f"{p / b:.2f}x ({'within' if ok else 'beyond'} {LIMIT}x)"
        )
    tp, tb = pairs(testbed(*program, cpu_duration), testbed(*builtin, cpu_duration), n)
    ratios = [a / b for a, b in zip(tp, tb, strict=True)]
    print(
        f"  CPU time of hscc.run over {cpu_duration}, median of {n} alternating pairs: "
        f"program {statistics.median(tp):.3f} s, built in {statistics.median(tb):.3f} s: "
        f"{statistics.median(ratios):.2f}x (pairs {min(ratios):.2f}-{max(ratios):.2f})"
    )
    return ok


def part_python(quick: bool) -> None:
    import hscc

    class BenchReno(hscc.Algorithm):
        name = "bench_pyreno"

    calls: Counter[str] = Counter()

    class CountedReno(hscc.Algorithm):
        name = "bench_pycount"

    for hook in (
        "init",
        "ssthresh",
        "cong_avoid",
        "set_state",
        "cwnd_event",
        "in_ack_event",
        "pkts_acked",
        "undo_cwnd",
    ):

        def counted(self: Any, *args: Any, _hook: str = hook) -> Any:
            calls[_hook] += 1
            return getattr(hscc.Algorithm, _hook)(self, *args)

        setattr(CountedReno, hook, counted)

    duration, n = ("20s", 3) if quick else ("60s", 7)
    _, counted_run = cpu_of(one_flow("bench_pycount", duration))
    acks = int(counted_run.flows["acks_sent"][0])
    tp, tb = pairs(one_flow("bench_pyreno", duration), one_flow("reno", duration), n)
    extra = statistics.median(tp) - statistics.median(tb)
    total_calls = sum(calls.values())
    print(f"python: hscc.Algorithm with Reno's hooks against the built-in reno, 1 flow, {duration}")
    print(
        f"  CPU time of hscc.run, median of {n} alternating pairs: Python "
        f"{statistics.median(tp):.3f} s, built in {statistics.median(tb):.3f} s"
    )
    print(
        f"  {acks} ACKs, {total_calls} hook calls ({total_calls / acks:.2f} an ACK: "
        + ", ".join(f"{k} {v}" for k, v in calls.most_common())
        + ")"
    )
    print(
        f"  the interpreter's cost: {extra / acks * 1e6:.2f} µs an ACK, "
        f"{extra / total_calls * 1e6:.2f} µs a hook call"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="shorter runs and fewer pairs")
    ap.add_argument(
        "--no-callgrind", action="store_true", help="skip the instruction counts (valgrind)"
    )
    ap.add_argument(
        "--only", choices=("program", "python"), help="one part (default: both)", default=None
    )
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "python"))
    callgrind = not args.no_callgrind
    if callgrind and shutil.which("valgrind") is None:
        sys.exit("bench-programs: valgrind is not installed (or pass --no-callgrind)")
    ok = True
    if args.only in (None, "program"):
        ok = part_program(args.quick, callgrind)
    if args.only in (None, "python"):
        part_python(args.quick)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

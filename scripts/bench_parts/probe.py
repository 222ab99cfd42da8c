"""The probe part: hscc's CLI on the CTCP test-bed shape against the lean probe
(validation/probe/probe.rs), whole processes in turn."""

from __future__ import annotations

import os
import statistics
import subprocess
from pathlib import Path

from . import ROOT
from .parsers import parse_probe
from .processes import _hscc_run, _ratios, _timed

# The probe part: pairs of runs (probe, then hscc), simulated seconds; the target ratio.
PROBE_PAIRS, PROBE_PAIRS_QUICK = 5, 1
PROBE_SECONDS, PROBE_SECONDS_QUICK = 300, 10
PROBE_TARGET = 1.2
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


# How the probe is built: optimized as hscc's release builds are, for the same baseline x86-64
# target (hscc's extension and benches are built for any x86-64; valgrind cannot run AVX-512).
PROBE_RUSTC = ["rustc", "-C", "opt-level=3"]


def build_probe(tmp: Path) -> Path:
    """The lean probe compiled into `tmp`."""
    exe = tmp / "probe"
    subprocess.run(
        [*PROBE_RUSTC, str(ROOT / "validation" / "probe" / "probe.rs"), "-o", str(exe)],
        check=True,
    )
    return exe


def part_probe(quick: bool, tmp: Path) -> dict:
    """hscc's CLI on the CTCP test-bed shape against the lean probe, whole processes in turn."""
    exe = build_probe(tmp)
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
        "compiler": " ".join([*PROBE_RUSTC, "probe.rs"]),
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

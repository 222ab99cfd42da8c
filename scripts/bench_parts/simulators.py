"""The simulators part: hscc against ns-2 and ns-3 on the scenarios of SIMULATORS, each
tool in turn; the scenarios and their translations for each tool."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from . import ROOT
from .parsers import parse_ns3
from .processes import _hscc_run, _ratios, _timed

# The simulators part: pairs of runs (each tool in turn), and the quick trial's length.
SIMULATOR_PAIRS, SIMULATOR_PAIRS_QUICK = 3, 1
SIMULATOR_SECONDS_QUICK = 1.0
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


def _tool_version(package: str) -> str | None:
    p = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    return p.stdout.strip() if p.returncode == 0 else None


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

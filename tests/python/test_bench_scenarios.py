"""scripts/bench.py's scenarios are valid as each tool takes them: the CTCP test-bed shape of
the probe part for hscc, and each scenario of the simulators part for hscc and for the ns-2
translation (validation/ns2/ns2_tcl.py). Nothing is run or timed."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "validation" / "ns2"))

import ns2_tcl  # noqa: E402
from bench_parts import probe, simulators  # noqa: E402

from hscc.scenario import Scenario  # noqa: E402


@pytest.mark.parametrize("extra", [extra for _, extra in probe.PROBE_VARIANTS])
def test_the_probe_parts_test_bed(extra):
    text = probe.TESTBED_TOML.format(seconds=300, flow_extra=extra)
    engine = Scenario.parse(tomllib.loads(text)).to_engine()
    assert engine["duration"] == 300
    assert sum(f["count"] for f in engine["flows"]) == 8
    assert engine["topology"]["bottleneck"]["buffer"] == {"packets": 1500}


@pytest.mark.parametrize("row", simulators.SIMULATORS, ids=[r[0] for r in simulators.SIMULATORS])
def test_each_simulator_scenario_translates_to_ns2(row):
    name, flows, rate, buffer, access, rtt, seconds = row
    text = simulators.simulator_scenario(name, flows, rate, buffer, access, rtt, seconds)
    engine = Scenario.parse(tomllib.loads(text)).to_engine()
    flow = engine["flows"][0]
    assert (flow["count"], flow["mss"], flow["init_cwnd"]) == (
        flows,
        simulators.SIMULATOR_MSS,
        simulators.SIMULATOR_INIT_CWND,
    )
    assert flow["min_rto"] == simulators.SIMULATOR_MIN_RTO
    assert not flow["delayed_ack"] and not flow["timestamps"]
    assert engine["topology"]["bottleneck"]["rate"] == rate
    tcl = ns2_tcl.script(engine)
    assert f"$ns queue-limit $L $R {buffer + 1}" in tcl  # ns-2 holds its limit - 1 waiting
    assert f"$ns at {float(seconds)!r} finish" in tcl
    assert "$ns at 0.0 finish" in ns2_tcl.script({**engine, "duration": 0.0})

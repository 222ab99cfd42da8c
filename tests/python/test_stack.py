"""Reference-stack profiles (`stack = "linux"`, `"ns3"`): what `hscc check` prints of them,
the field reference's tables, and a scenario read with one."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from conftest import ONE_FLOW
from hscc import reference
from hscc.cli import app
from hscc.scenario import Scenario

runner = CliRunner()

CUBIC_AND_RENO = """
name = "stacks"
duration = "10s"
stack = "linux"

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }]

[[flows]]
pair = 0
algorithm = "cubic"

[[flows]]
pair = 0
algorithm = "cubic"

[[flows]]
pair = 0
algorithm = "reno"
min_rto = "1s"

[[flows]]
pair = 0
algorithm = "reno"
stack = "ns3"
"""


def _profile(name: str) -> dict:
    return next(p for p in reference.stack_profiles() if p["name"] == name)


def test_check_prints_what_each_profile_set(write_toml):
    r = runner.invoke(app, ["check", str(write_toml(CUBIC_AND_RENO))])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert "valid (dumbbell; 4 TCP flows;" in lines[0]
    # The two cubic entries took the same settings: one line; HyStart is cubic's alone.
    assert lines[1].startswith('flows[0], flows[1]: stack "linux" set loss_detection = "rack"')
    assert "params.hystart = true" in lines[1] and 'rto_estimator = "linux"' in lines[1]
    # A knob the scenario sets is named, with what the profile would have set.
    assert lines[2].startswith('flows[2]: stack "linux" set ')
    assert "params.hystart" not in lines[2] and "min_rto = " not in lines[2].split(";")[0]
    assert lines[2].endswith('; the scenario sets min_rto = 1 s (not "200ms")')
    # A flow entry's own stack wins over the scenario's.
    assert lines[3].startswith('flows[3]: stack "ns3" set loss_detection = "dupack"')
    assert 'min_rto = "1s"' in lines[3] and 'ack_counting = "acks"' in lines[3]
    # Every knob of the profile's table is on its line.
    for s in _profile("linux")["settings"]:
        if s["algorithm"] in (None, "cubic"):
            assert f"{s['knob']} = {s['value']}" in lines[1], s["knob"]
    assert len(lines) == 4


def test_check_prints_nothing_more_without_stack(one_flow):
    r = runner.invoke(app, ["check", str(one_flow)])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 1 and "stack" not in r.stdout


def test_an_unknown_stack_is_refused_by_name(write_toml):
    path = write_toml(ONE_FLOW.replace('algorithm = "reno"', 'algorithm = "reno"\nstack = "bsd"'))
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 2
    text = " ".join(r.output.split())
    assert 'flows[0].stack: "bsd" is not allowed' in text
    for name in ("linux", "ns2", "ns3"):
        assert f'"{name}"' in text


def test_the_normalized_scenario_keeps_the_profiles_values_and_reads_back_the_same(write_toml):
    sc = Scenario.from_toml(write_toml(CUBIC_AND_RENO))
    flows = sc.to_dict()["flows"]
    assert sc.stack == "linux" and "stack" not in flows[0] and flows[3]["stack"] == "ns3"
    assert (flows[0]["rto_estimator"], flows[0]["params"]["hystart"]) == ("linux", 1.0)
    assert (flows[2]["min_rto"], flows[3]["min_rto"], flows[3]["delack_timeout"]) == (1, 1, 0.2)
    reread = Scenario.parse(sc.to_dict())
    assert reread.to_dict() == sc.to_dict()
    assert json.loads(reread.resolved().stacks) == json.loads(sc.resolved().stacks)


def test_the_field_reference_has_each_profiles_table_from_the_engine():
    doc = reference.markdown()
    assert "## Reference stacks (`stack`)" in doc
    for p in reference.stack_profiles():
        assert f'### `stack = "{p["name"]}"`' in doc
        for s in p["settings"]:
            assert f"| `{s['knob']}` | `{s['value']}` | {s['algorithm'] or 'every'} |" in doc


def _ns3_configs():
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "validation" / "ns3" / "configs.py"
    spec = importlib.util.spec_from_file_location("ns3_configs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_ns3_harness_takes_ns3s_settings_from_the_profile():
    """validation/ns3's hscc side says `stack = "ns3"`: read, each flow has the settings of
    docs/validation/ns3.md's "Matched settings", each algorithm as its ns-3 class."""
    configs = _ns3_configs()
    by_class = {  # ack_counting, ssthresh_from, params
        "newreno": ("acks", "pipe", {}),
        "linuxreno": ("segments", "cwnd", {}),
        "highspeed": ("segments", "pipe", {}),
        "cubic": ("segments", "cwnd", {"hystart": 1.0}),
        "scalable": ("segments", "pipe", {"a": 0.02, "low_window": 50.0, "legacy_decrease": 0.0}),
        "vegas": (
            "segments",
            "cwnd",
            {"alpha": 2.0, "beta": 4.0, "gamma": 1.0, "paper_diff": 1.0, "smoothed_rtt": 1.0},
        ),
        # TcpBbr's: no long-term sampling, no ACK-aggregation allowance to speak of, HighGain 2.89.
        "bbr": (
            "segments",
            "cwnd",
            {
                "high_gain": 740.0,
                "drain_gain": 89.0,
                "extra_acked_gain": 0.0,
                "lt_loss_thresh": 256.0,
            },
        ),
        "dctcp": ("segments", "cwnd", {}),
    }
    for c in configs.CONFIGS.values():
        scenario = configs.hscc_scenario(c)
        assert scenario["stack"] == "ns3"
        read = Scenario.parse(scenario).to_dict()
        for f, spec in zip(read["flows"], c.flows, strict=True):
            assert (f["ack_counting"], f["ssthresh_from"], f["params"]) == by_class[spec.algo]
            assert (f["min_rto"], f["delack_timeout"], f["delack_segments"]) == (
                configs.MIN_RTO,
                configs.DELACK_TIMEOUT,
                c.delack,
            )
            assert (f["mss"], f["init_cwnd"], f["recovery"]) == (configs.SEGMENT, 10, c.recovery)
            assert (f["loss_detection"], f["host_jitter"], f["timestamps"]) == ("dupack", 0, True)
            assert f["ecn"] is (
                spec.algo == "dctcp"
            )  # TcpDctcp::Init turns ECN on; no other class does

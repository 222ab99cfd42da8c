"""End-to-end runs whose numbers are checked."""

from __future__ import annotations

from itertools import pairwise

import pytest

import hscc
from conftest import EXAMPLES, ONE_FLOW
from hscc import Scenario

PAYLOAD = 1448 / 1500  # goodput counts payload; the link carries 52 header bytes per 1448


def test_one_flow_fills_the_link(one_flow):
    r = hscc.run(one_flow)
    link = r.bottlenecks.row(0, named=True)
    assert link["name"] == "bottleneck:fwd"
    assert link["utilization"] >= 0.90
    f = r.flows.row(0, named=True)
    capacity = 10e6 * PAYLOAD
    assert 0.85 * capacity <= f["goodput_bps"] <= capacity
    assert f["share"] == 1.0 and r.jain_index == pytest.approx(1.0)
    assert f["base_rtt_s"] == pytest.approx(0.020, abs=0.002)  # 20 ms plus serialization
    # Queuing delay can never exceed a full 1-BDP buffer drained at 10 Mbit/s (20 ms + one packet).
    assert 0 < link["mean_qdelay_s"] <= link["p99_qdelay_s"] <= 0.0215


def test_two_reno_flows_with_different_rtts(tmp_path):
    r = hscc.run(EXAMPLES / "two-reno-rtt.toml")
    short, long_ = r.flows.to_dicts()
    assert (short["label"], long_["label"]) == ("reno 40ms", "reno 120ms")
    assert short["base_rtt_s"] == pytest.approx(0.040, abs=0.001)
    assert long_["base_rtt_s"] == pytest.approx(0.120, abs=0.001)
    # Reno's RTT unfairness: the 40 ms flow grows its window 3× as fast and takes most of the link.
    assert short["goodput_bps"] > 3 * long_["goodput_bps"]
    total = short["goodput_bps"] + long_["goodput_bps"]
    assert 0.9 * 100e6 * PAYLOAD <= total <= 100e6 * PAYLOAD
    assert short["share"] + long_["share"] == pytest.approx(1.0)
    fwd = r.bottlenecks.row(0, named=True)
    assert fwd["utilization"] >= 0.9 and fwd["drops"] > 0
    assert fwd["p99_qdelay_s"] <= 0.121  # 1000-packet buffer at 100 Mbit/s: 120 ms
    g = r.flows["goodput_bps"]
    assert r.jain_index == pytest.approx(g.sum() ** 2 / (2 * (g**2).sum()))
    # The traces agree with the totals: 600 samples per flow, mean throughput = goodput.
    ts = r.timeseries.filter(r.timeseries["flow"] == 0)
    assert ts.height == 600 and ts["time_s"][-1] == pytest.approx(60.0)
    assert ts["throughput_bps"].mean() == pytest.approx(short["goodput_bps"], rel=1e-6)
    assert r.queues["name"].unique().sort().to_list() == ["bottleneck:fwd", "bottleneck:rev"]


def test_runs_are_deterministic_and_the_seed_can_be_overridden(one_flow):
    sc = Scenario.from_toml(one_flow)
    lossy = Scenario.parse(
        {
            **sc.to_dict(),
            "topology": {
                **sc.to_dict()["topology"],
                "bottleneck": {"rate": "10Mbps", "delay": "5ms", "buffer": "1bdp", "loss": 1e-3},
            },
        }
    )
    a, b = hscc.run(lossy), hscc.run(lossy)
    assert a.flows.equals(b.flows) and a.timeseries.equals(b.timeseries)
    c = hscc.run(lossy, seed=8)
    assert c.summary["seed"] == 8 and c.manifest["seed"] == 8 and c.scenario.seed == 8
    assert c.bottlenecks["drops_random"][0] > 0
    assert c.flows["goodput_bps"][0] != a.flows["goodput_bps"][0]  # other random losses


def test_a_finite_transfer_completes(write_toml):
    path = write_toml(ONE_FLOW.replace("pair = 0", 'pair = 0\nsize = "1MB"'))
    f = hscc.run(path).flows.row(0, named=True)
    assert f["delivered_bytes"] == 1_000_000
    # 1 MB at 10 Mbit/s is 0.83 s on the wire; slow start from 10 segments adds a few RTTs.
    assert 0.83 < f["completion_s"] < 1.5
    assert f["end_s"] == f["completion_s"]


def test_progress_is_reported_up_to_the_duration(one_flow):
    seen = []
    hscc.run(one_flow, progress=lambda t, d: seen.append((t, d)))
    assert seen and seen[-1] == (10.0, 10.0)
    assert all(t1 < t2 for (t1, _), (t2, _) in pairwise(seen))


def test_without_traces_the_time_series_are_empty(write_toml):
    path = write_toml(
        ONE_FLOW.replace('sample_interval = "100ms"', 'sample_interval = "100ms"\ntraces = []')
    )
    r = hscc.run(path)
    assert r.timeseries.is_empty() and r.queues.is_empty()
    assert r.flows["mean_srtt_s"][0] is None
    assert r.bottlenecks["utilization"][0] >= 0.9  # the summary is still there


def test_run_takes_a_dict():
    r = hscc.run(
        {
            "duration": "2s",
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "5Mbps", "delay": "10ms"},
                "pairs": [{"delay": "1ms"}],
            },
            "flows": [{"pair": 0, "algorithm": "cubic"}],
        }
    )
    assert r.flows["algorithm"].to_list() == ["cubic"]
    assert r.flows["goodput_bps"][0] > 0


def test_a_run_builds_and_estimates_its_scenario_once(write_toml, tmp_path):
    """One resolve per run: `hscc run FILE --seed N` and `hscc.run(path, seed=)` build the
    engine configuration once and estimate it once, labels and limits included."""
    from typer.testing import CliRunner

    from hscc import _core
    from hscc.cli import app

    path = write_toml(ONE_FLOW)
    before = _core.work_counts()
    hscc.run(path, seed=7)
    after = _core.work_counts()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)

    before = after
    out = CliRunner().invoke(
        app, ["run", str(path), "--seed", "3", "-q", "--out", str(tmp_path / "r")]
    )
    assert out.exit_code == 0, out.output
    after = _core.work_counts()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)


def test_the_labels_come_from_the_engine(write_toml):
    """Every source's label follows one rule (the engine's): TCP "ALGORITHM INDEX" or its label,
    UDP "PATTERN INDEX", a VoIP call's two directions, web "web INDEX"."""
    sc = Scenario.parse(
        {
            "duration": "1s",
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "10Mbps", "delay": "5ms", "buffer": "20pkts"},
                "pairs": [{"rtt": "20ms"}],
            },
            "flows": [{"pair": 0, "algorithm": "Compound", "count": 2}, {"pair": 0, "label": "x"}],
            "udp": [{"pair": 0, "pattern": "poisson", "rate": "1Mbps"}],
            "voip": [{"pair": 0, "label": "call"}],
        }
    )
    assert sc.flow_labels() == [(0, "ctcp 0"), (0, "ctcp 1"), (1, "x")]
    assert sc.udp_labels() == [
        ("udp[0]", "poisson 0"),
        ("voip[0]", "call →"),
        ("voip[0]", "call ←"),
    ]
    assert hscc._core.safe_file_name("../a/b") == "_a_b"

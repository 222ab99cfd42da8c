"""The papers' metrics as single calls: numbers checked against what they must be."""

from __future__ import annotations

import pytest

import hscc


def scenario(
    algorithms: list[str],
    rtts: list[str],
    duration: str = "30s",
    loss: str = "0",
    sample: str = "100ms",
) -> dict:
    return {
        "name": "metrics",
        "duration": duration,
        "seed": 2,
        "output": {"sample_interval": sample},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "2ms", "buffer": "1bdp", "loss": loss},
            "pairs": [{"rate": "1Gbps", "rtt": r} for r in rtts],
        },
        "flows": [{"pair": i, "algorithm": a} for i, a in enumerate(algorithms)],
    }


def test_bandwidth_stolen_is_zero_for_reno_and_large_for_scalable():
    reno = hscc.bandwidth_stolen(scenario(["reno"] * 4, ["40ms"] * 4), tested=[2, 3])
    # The baseline replaces Reno by Reno: the same run, so exactly nothing is stolen.
    assert reno.stolen == 0.0 and reno.p_bps == reno.q_bps > 5e6
    stcp = hscc.bandwidth_stolen(
        scenario(["reno", "reno", "scalable", "scalable"], ["40ms"] * 4), tested=[2, 3]
    )
    assert stcp.p_bps == reno.p_bps
    assert stcp.stolen > 0.2, stcp.stolen
    assert stcp.test.flows["algorithm"].to_list() == ["reno", "reno", "scalable", "scalable"]
    assert stcp.baseline.flows["algorithm"].to_list() == ["reno"] * 4


def test_bandwidth_stolen_rejects_a_bad_index():
    with pytest.raises(
        hscc.ScenarioError,
        match=r"tested: 7 is not allowed \(indices of \[\[flows\]\] entries, 0 to 1\)",
    ):
        hscc.bandwidth_stolen(scenario(["reno", "reno"], ["40ms"] * 2), tested=[7])


def test_rtt_unfairness_shows_in_ratio_and_short_term_jain():
    r = hscc.run(scenario(["reno", "reno"], ["20ms", "80ms"], duration="60s"))
    ratio = r.throughput_ratio([0], [1])
    assert ratio > 1.5, ratio
    j = r.short_term_jain(window=1.0, start=10.0)
    assert 0.5 < j < 0.95, j
    fair = hscc.run(scenario(["reno"] * 3, ["40ms"] * 3, duration="60s"))
    assert fair.short_term_jain(1.0, 10.0) > j


def test_short_term_jain_needs_traces():
    s = scenario(["reno", "reno"], ["40ms", "40ms"], duration="5s")
    s["output"]["traces"] = ["queues"]
    assert hscc.run(s).short_term_jain() is None


def test_sync_tcp_flows_detect_congestion_signals_together():
    # Sync-TCP always on after slow start (§VI.B's "always enabled" case): with the
    # default switching rule a flow leaving slow start into a queue above Th_qd stays legacy.
    s = scenario(["sync"] * 3, ["60ms", "80ms", "100ms"], duration="60s", loss="1e-6")
    for f in s["flows"]:
        f["params"] = {"switching": 0}
    r = hscc.run(s)
    events, seen = r.signal_synchronization()
    assert events >= 5, events
    assert seen / events >= 0.8, (seen, events)
    # The same numbers in summary.json and in a sweep's row (the reproduction of §VI.A reads them there).
    assert r.summary["signal_sync"] == {"events": events, "seen_by_all": seen}
    from hscc.sweeps.metrics import row

    assert row(r.summary, lambda: r.web, lambda: r.links)["signal_sync"] == seen / events
    # Chosen by hand, the same flows give the same; a flow the run does not have is refused by name.
    assert r.signal_synchronization(flows=[0, 1, 2]) == (events, seen)
    with pytest.raises(ValueError, match="flows: 7 is not a flow of this run"):
        r.signal_synchronization(flows=[0, 7])
    # Loss-based flows report no delay signals: nothing to synchronize.
    assert hscc.run(scenario(["reno"], ["40ms"], duration="10s")).signal_synchronization() == (0, 0)


def test_jain_is_undefined_without_flows_or_traffic() -> None:
    # One answer, the engine's, for simulated runs, kernel runs, sweeps and comparisons.
    from hscc import _core
    from hscc.compare import jain

    assert _core.jain_index([]) is None
    assert _core.jain_index([0.0, 0.0]) is None
    assert _core.jain_index([3.0, 3.0]) == 1.0
    assert jain([]) is None and jain([1.0, 0.0]) == 0.5


def test_stolen_share_is_the_engines() -> None:
    from hscc import _core

    assert _core.stolen_share(10.0, 4.0) == 0.6
    assert _core.stolen_share(0.0, 4.0) == 0.0

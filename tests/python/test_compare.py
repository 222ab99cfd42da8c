"""hscc compare's window trajectory: the cuts found in a sampled cwnd series, by hand and
against the simulator's own count of window reductions."""

from __future__ import annotations

import pytest

import hscc
from hscc.compare import compare, trajectories, trajectory


def times(n: int) -> list[float]:
    return [round(0.1 * (k + 1), 6) for k in range(n)]


def test_slow_start_then_a_sawtooth():
    cwnd = [10, 20, 40, 80, 40, 45, 50, 55, 60, 30, 35, 40, 45, 50, 25]
    t = trajectory(times(len(cwnd)), cwnd)
    # Peaks before each cut: 80 at 0.4 s (slow start ends), 60 at 0.9 s, 50 at 1.4 s.
    assert t.cuts_s == [0.4, 0.9, 1.4] and t.peaks == [80, 60, 50]
    assert t.period_s == pytest.approx(0.5)


def test_a_cut_spread_over_samples_is_one_cut_and_wiggles_are_none():
    # 100 → 70 over three samples (a recovery longer than the sampling interval): one cut of 30 %.
    assert trajectory(times(5), [100, 90, 80, 70, 75]).cuts_s == [0.1]
    # Falls of 5 % and 4 % (a delay-based algorithm's steps) are not cuts; 10 % is.
    assert trajectory(times(4), [100, 95, 100, 96]).cuts_s == []
    assert trajectory(times(2), [100, 90]).cuts_s == [0.1]
    # A timeout to one segment is a cut; a flat or growing window has none and no period.
    t = trajectory(times(4), [50, 1, 2, 4])
    assert t.peaks == [50] and t.period_s is None
    assert trajectory(times(3), [5, 5, 6]).cuts_s == [] and trajectory([], []).cuts_s == []


def test_the_median_period_ignores_a_second_cut_right_after_slow_start():
    cwnd = [100, 50, 40, 45, 50, 55, 25, 30, 35, 40, 20]
    t = trajectory(times(len(cwnd)), cwnd)
    # Cuts at 0.1 (100 → 40) ... one decline; then 55 at 0.6 and 40 at 1.0: intervals 0.5, 0.4.
    assert t.cuts_s == [0.1, 0.6, 1.0] and t.period_s == pytest.approx(0.45)


def test_a_reno_flows_cuts_are_its_recoveries_and_its_period_is_the_sawtooths():
    sc = {
        "duration": "20s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "5ms", "buffer": {"bdp": 1.0}},
            "pairs": [{"rtt": "40ms"}],
        },
        "flows": [{"pair": 0, "algorithm": "reno"}],
    }
    r = hscc.run(sc)
    t = trajectories(r)[0]
    flow = r.flows.row(0, named=True)
    assert flow["timeouts"] == 0 and len(t.cuts_s) == flow["recoveries"] >= 4
    # Reno's tooth: from W/2 to W = BDP + buffer ≈ 133 segments, one segment per RTT, the RTT from
    # 40 to 80 ms as the queue fills: (133 / 2) RTTs × 60 ms ≈ 4.0 s.
    assert t.period_s == pytest.approx(4.0, rel=0.15)
    assert t.cuts_s[0] == pytest.approx(
        flow["slow_start_s"], abs=0.1 + 0.04
    )  # the sample before it, or the next
    rows = {w.what: w for w in compare(r, r).windows}
    assert (
        rows["reno 0: window cuts"].ratio == 1.0
        and rows["reno 0: median time between cuts (s)"].a == t.period_s
    )

"""The testbed's queue sampler when `tc` is slower than the sample interval
(no kernel: `tc` is replaced by a function that takes 25 ms, as one call can
on a loaded machine). Grid points that pass during a call are skipped, so the
samples stay on the grid and end with the run; the interval utilization
spans the skipped points."""

from __future__ import annotations

import time

import pytest

from hscc.testbed import record
from hscc.testbed.plan import Plan

CALL_S = 0.025


def _slow_tc(sent: list[int]):
    def qdiscs(router: str) -> list[dict]:
        time.sleep(CALL_S)
        sent[0] += 10_000
        return [{"dev": dev, "parent": "1:1", "qlen": 0, "backlog": 0, "drops": 0, "bytes": sent[0], "packets": 0}
                for _, dev, _, _ in record.LINKS]
    return qdiscs


def test_a_slow_tc_skips_grid_points_and_stops_with_the_run(monkeypatch):
    monkeypatch.setattr(record, "qdiscs", _slow_tc([0]))
    interval, duration = 0.01, 0.3
    samples = record.sample_queues("unused", time.monotonic() + 0.02, interval, duration, {})
    times = [t for t, _ in samples]
    assert times == sorted(times)
    assert times[-1] < duration + CALL_S + 0.05  # before the fix: 31 calls, about 0.78 s
    assert len(samples) < 0.5 * (duration / interval + 1)  # a 25 ms call covers 2–3 grid points
    grid = [round(t / interval) for t in times]
    assert len(set(grid)) == len(grid)  # one sample per grid point at most


def test_the_interval_utilization_spans_the_skipped_grid_points():
    plan = Plan(scenario=None, duration=0.05, interval=0.01, rate_bps=8_000_000, buffer=("packets", 10), loss=0.0,
                fwd_delay=(0.01,), rev_delay=(0.01,), flows=())
    def at(t, sent):
        return (t, {dev: {"qlen": 0, "backlog": 0, "drops": 0, "bytes": sent} for _, dev, _, _ in record.LINKS})
    # 10 kB in the first interval, then 20 kB over two (the sample at 0.02 s was skipped): 1.0 of the rate each.
    rows = record._queues(plan, [at(0.0, 0), at(0.0101, 10_000), at(0.0302, 30_000)]).filter(record.pl.col("link") == 0)
    assert rows["time_s"].to_list() == pytest.approx([0.01, 0.03])
    assert rows["utilization"].to_list() == pytest.approx([1.0, 1.0])

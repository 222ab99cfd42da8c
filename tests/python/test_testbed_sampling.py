"""The testbed's queue sampler when `tc` is slower than the sample interval
(no kernel: `tc` is replaced by a function that takes 25 ms, as one call can
on a loaded machine). Grid points that pass during a call are skipped, so the
samples stay on the grid and end with the run; the interval utilization
spans the skipped points."""

from __future__ import annotations

import time

import pytest

from hscc.testbed import limits, record
from hscc.testbed.plan import Plan

CALL_S = 0.025


def _slow_tc(sent: list[int]):
    def qdiscs(router: str) -> list[dict]:
        time.sleep(CALL_S)
        sent[0] += 10_000
        return [
            {
                "dev": dev,
                "parent": "1:1",
                "qlen": 0,
                "backlog": 0,
                "drops": 0,
                "bytes": sent[0],
                "packets": 0,
            }
            for _, dev, _, _ in record.LINKS
        ]

    return qdiscs


def test_a_slow_tc_skips_grid_points_and_stops_with_the_run(monkeypatch):
    monkeypatch.setattr(record, "qdiscs", _slow_tc([0]))
    interval, duration = 0.01, 0.3
    samples = record.sample_queues("unused", time.monotonic() + 0.02, interval, duration, {})
    times = [s.t for s in samples]
    assert all(s.asked <= s.t for s in samples)
    assert times == sorted(times)
    assert times[-1] < duration + CALL_S + 0.05  # before the fix: 31 calls, about 0.78 s
    assert len(samples) < 0.5 * (duration / interval + 1)  # a 25 ms call covers 2–3 grid points
    grid = [round(t / interval) for t in times]
    assert len(set(grid)) == len(grid)  # one sample per grid point at most


def test_the_interval_utilization_spans_the_skipped_grid_points():
    plan = Plan(
        scenario=None,
        duration=0.05,
        interval=0.01,
        rate_bps=8_000_000,
        buffer=("packets", 10),
        loss=0.0,
        fwd_delay=(0.01,),
        rev_delay=(0.01,),
        flows=(),
    )

    def at(t, sent):
        return record.QueueSample(
            t,
            {
                dev: {"qlen": 0, "backlog": 0, "drops": 0, "bytes": sent}
                for _, dev, _, _ in record.LINKS
            },
            t,
        )

    # 10 kB in the first interval, then 20 kB over two (the sample at 0.02 s was skipped): 1.0 of the rate each.
    rows = record._queues(plan, [at(0.0, 0), at(0.0101, 10_000), at(0.0302, 30_000)]).filter(
        record.pl.col("link") == 0
    )
    assert rows["time_s"].to_list() == pytest.approx([0.01, 0.03])
    assert rows["utilization"].to_list() == pytest.approx([1.0, 1.0])


def _sample(asked: float, t: float, backlog: int, sent: int) -> record.QueueSample:
    return record.QueueSample(t, {"tf": {"backlog": backlog, "bytes": sent}}, asked)


def test_a_bottleneck_that_stops_serving_its_backlog_is_a_stall():
    # 100 Mbit/s = 12.5 MB/s. 0 → 0.1 s: 150 kB waiting, 1.25 MB could go, sent 1.2 MB: served. 0.1 → 0.2 s
    # (the second call asked at 0.19, so 0.08 s surely passed: 1 MB could go, capped by the 150 kB waiting),
    # sent 30 kB = 20 % of 150 kB: a stall. 0.2 → 0.3 s: only 12 kB waiting (under ten packets), nothing
    # sent: not counted (a tc snapshot is not instantaneous).
    samples = [
        _sample(0.0, 0.01, 150_000, 0),
        _sample(0.1, 0.11, 150_000, 1_200_000),
        _sample(0.19, 0.2, 12_000, 1_230_000),
        _sample(0.3, 0.31, 0, 1_230_000),
    ]
    stalls = limits.service_stalls(samples, "tf", 100e6)
    assert stalls == [
        {
            "t_s": 0.11,
            "interval_s": pytest.approx(0.08),
            "backlog_bytes": 150_000,
            "sent_share": pytest.approx(0.2),
        }
    ]
    flags = limits.flags(
        {d: {"max_late_s": 0.001, "late_1ms_share": 0.0, "overflow": 0} for d in ("fwd", "rev")},
        {"fwd": stalls, "rev": []},
    )
    assert flags == [
        "fwd: the bottleneck held a backlog but sent under 50% of what it could in 1 interval(s), worst 20% over "
        "80 ms at 0.1 s (the machine stopped serving it, upstream of the delay line)"
    ]


def test_overlapping_snapshots_and_a_busy_link_are_not_stalls():
    # A call that returned after the next was asked (no time surely between them), and a link sending at its rate.
    assert (
        limits.service_stalls(
            [_sample(0.0, 0.05, 10**6, 0), _sample(0.04, 0.06, 10**6, 0)], "tf", 100e6
        )
        == []
    )
    assert (
        limits.service_stalls(
            [_sample(0.0, 0.0, 10**6, 0), _sample(0.1, 0.1, 10**6, 1_250_000)], "tf", 100e6
        )
        == []
    )

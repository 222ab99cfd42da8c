"""Confidence intervals cut to the values a metric can take (Jain's index and a share in
[0, 1], a throughput at least 0), never past a replicate, and shown as "mean [low, high]"
where cut, "mean ± half" where not."""

from __future__ import annotations

import math

import polars as pl
import pytest

from hscc.sweeps.result import SweepResult
from hscc.units_table import clip_interval, format_interval, physical_range

pytestmark = pytest.mark.timeout(10)


def test_physical_ranges_by_kind():
    assert physical_range("jain_index") == (0.0, 1.0)
    assert physical_range("bottleneck:fwd.utilization") == (0.0, 1.0)
    assert physical_range("flows[1].goodput_bps") == (0.0, math.inf)
    assert physical_range("bottleneck:fwd.mean_qdelay_s") == (0.0, math.inf)
    assert physical_range("flows[0].algorithm") == (-math.inf, math.inf)


def test_clip_interval_cuts_to_bounds_but_never_past_a_replicate():
    assert clip_interval(0.77, 1.08, (0.0, 1.0), (0.85, 0.99)) == (0.77, 1.0)
    assert clip_interval(-3.0, 5.0, (0.0, math.inf), (0.5, 4.0)) == (0.0, 5.0)
    # a replicate at 1.02 says the range is wrong for it: the interval stops there, not at 1
    assert clip_interval(0.9, 1.1, (0.0, 1.0), (0.95, 1.02)) == (0.9, 1.02)


def test_format_interval_symmetric_and_cut():
    assert format_interval("total_goodput_bps", 9.62e7, 9.58e7, 9.66e7) == "96.2 ± 0.4 Mbit/s"
    assert format_interval("jain_index", 0.926, 0.77, 1.0) == "0.926 [0.77, 1]"
    assert format_interval("flows[0].goodput_bps", 2e6, 0.0, 5e6) == "2 [0, 5] Mbit/s"
    assert format_interval("bottleneck:fwd.utilization", 0.97, 0.9, 1.0) == "97 [90, 100]%"
    assert format_interval("jain_index", 0.9, None, None) == "0.9"


def _sweep(jain: list[float], goodput: list[float]) -> SweepResult:
    n = len(jain)
    points = pl.DataFrame(
        {
            "point": [0] * n,
            "replicate": list(range(n)),
            "seed": list(range(n)),
            "status": ["ok"] * n,
            "error": [None] * n,
            "run": [f"r{i}" for i in range(n)],
            "flows[0].algorithm": ["reno"] * n,
            "jain_index": jain,
            "flows[0].goodput_bps": goodput,
        },
        schema_overrides={"replicate": pl.UInt32, "seed": pl.UInt64, "error": pl.String},
    )
    return SweepResult(points, [["flows[0].algorithm"]])


def test_sweep_summary_cuts_jains_index_at_one_and_goodput_at_zero():
    jain, goodput = [0.7, 0.99, 1.0], [1e6, 9e6, 2e6]
    s = _sweep(jain, goodput).summary()
    row = {r["metric"]: r for r in s.iter_rows(named=True)}
    t = 0.95 * math.sqrt(2 / (1 - 0.95**2))  # t with 2 degrees of freedom: P(|T| ≤ t) = t/√(2+t²)
    for name, xs, (lo, hi) in (
        ("jain_index", jain, (0, 1)),
        ("flows[0].goodput_bps", goodput, (0, math.inf)),
    ):
        mean = sum(xs) / 3
        half = t * (sum((x - mean) ** 2 for x in xs) / 2) ** 0.5 / 3**0.5
        assert mean + half > hi or mean - half < lo  # the uncut interval leaves the range
        r = row[name]
        assert r["ci_low"] == pytest.approx(max(lo, mean - half))
        assert r["ci_high"] == pytest.approx(min(hi, mean + half))


def test_sweep_table_shows_a_cut_interval_as_low_high(monkeypatch):
    from hscc import report

    table = report.sweep_summary(_sweep([0.7, 0.99, 1.0], [1e6, 9e6, 2e6]))
    cells = [str(c) for col in table.columns for c in col._cells]  # noqa: SLF001
    assert any(c.startswith("0.897 [") and c.endswith(", 1]") for c in cells), cells

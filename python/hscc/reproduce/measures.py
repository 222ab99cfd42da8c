"""The papers' metrics, computed the paper's way from a sweep's runs.

Every kind gives one number per run (per row of ``SweepResult.points``), except
``stolen`` and ``change``, which compare each run with the mean of the baseline
series' runs at the same x:

- ``goodput``: goodput of the [[flows]] entries ``a`` summed (all flows without
  ``a``), Mbit/s;
- ``ratio``: goodput of entries ``a`` over goodput of entries ``b`` (a throughput
  ratio, e.g. short-RTT over long-RTT flows);
- ``share``: goodput of entries ``a`` over the run's total goodput;
- ``utilization``: the monitored ``link``'s utilisation (0–1);
- ``stolen``: bandwidth stolen (CTCP §VI.B) = BSR (TCP-FIT §V): (P − Q)/P, Q the
  goodput of entries ``a`` (the Reno flows) in this run, P their mean goodput in the
  ``baseline`` series (all Reno) at the same x; not computed for the baseline itself;
- ``change``: (Q − P)/P of a metric ``column`` against the ``baseline`` series
  (Sync-TCP Figs. 1–2: "VoIP delay +56 %");
- ``column``: any metric column of the sweep × ``scale``; ``sum``: several added up;
  both less the columns ``minus`` (e.g. the drops of slow start and of UDP traffic,
  where a paper counts only a TCP flow's losses after slow start);
- ``available``: goodput of entries ``a`` (all flows without ``a``) over the capacity
  the UDP sources leave, ``capacity`` (bit/s) minus the sum of the metric ``columns``
  (e.g. ``udp[0].throughput_bps``) — CTCP Table 1's utilisation "normalized by the
  theoretical available bandwidth left over by UDP traffic".
"""

from __future__ import annotations

from typing import Any

import polars as pl

from hscc.reproduce.experiment import Experiment, Measure
from hscc.sweeps.result import SweepResult

MBPS = 1e-6
LONG_SCHEMA = {
    "measure": pl.String,
    "series": pl.String,
    "x": pl.Float64,
    "replicate": pl.UInt32,
    "value": pl.Float64,
}


class MeasureError(ValueError):
    """A measure that the sweep's runs cannot give (a missing column, points that collide)."""


def paper_x(exp: Experiment, value: Any) -> float:
    """The paper's x for a swept value (0 for an experiment without an x axis)."""
    if exp.x.axis is None:
        return 0.0
    key = value if isinstance(value, str) else format(value, "g")
    if exp.x.map:
        if key not in exp.x.map:
            raise MeasureError(
                f"{exp.name}: x value {key!r} of {exp.x.axis} is not in x.map ({', '.join(exp.x.map)})"
            )
        return float(exp.x.map[key])
    if isinstance(value, str) or isinstance(value, bool):
        raise MeasureError(
            f"{exp.name}: x axis {exp.x.axis} has text values ({value!r}); give x.map"
        )
    return round(float(value) * exp.x.factor, 12)


def per_run(exp: Experiment, result: SweepResult) -> pl.DataFrame:
    """One row per run and measure: measure, series, x (the paper's), replicate, value."""
    points = result.points
    ok = points.filter(pl.col("status") != "failed")
    for axis in (exp.x.axis, exp.series.axis if exp.series else None):
        if axis is not None and axis not in result.fields:
            raise MeasureError(
                f"{exp.name}: {axis} is not swept (the sweep's fields: {', '.join(result.fields) or 'none'})"
            )
    series = (
        [exp.series_name(v) for v in ok[exp.series.axis]] if exp.series else ["hscc"] * ok.height
    )
    xs = [paper_x(exp, v) for v in ok[exp.x.axis]] if exp.x.axis else [0.0] * ok.height
    keyed = ok.with_columns(pl.Series("series", series, pl.String), pl.Series("x", xs, pl.Float64))
    collide = (
        keyed.group_by(["series", "x"])
        .agg(pl.col("point").n_unique().alias("n"))
        .filter(pl.col("n") > 1)
    )
    if collide.height:
        raise MeasureError(
            f"{exp.name}: several points of the sweep give series {collide['series'][0]!r} at x = "
            f"{collide['x'][0]:g}; every axis must be the x axis or the series axis (or zipped with one)"
        )
    frames = [_one(exp, m, keyed) for m in exp.measures]
    return pl.concat(frames) if frames else pl.DataFrame(schema=LONG_SCHEMA)


def _one(exp: Experiment, m: Measure, runs: pl.DataFrame) -> pl.DataFrame:
    if m.kind in ("stolen", "change"):
        base_name = exp.series_name(m.baseline)
        if m.kind == "stolen":
            value = _goodput(runs, m.a)
        else:
            assert m.column is not None  # Measure's validator: a change measure names its column
            value = _col(runs, m.column)
        runs = runs.with_columns(value.alias("_q"))
        base = (
            runs.filter(pl.col("series") == base_name)
            .group_by("x")
            .agg(pl.col("_q").mean().alias("_p"))
        )
        if base.is_empty():
            raise MeasureError(
                f"{exp.name}: measure {m.name!r} needs the baseline series {m.baseline!r} in the sweep"
            )
        runs = runs.filter(pl.col("series") != base_name).join(base, on="x", how="left")
        sign = -1.0 if m.kind == "stolen" else 1.0
        value = sign * (pl.col("_q") - pl.col("_p")) / pl.col("_p")
    elif m.kind == "goodput":
        value = _goodput(runs, m.a) * MBPS
    elif m.kind == "ratio":
        value = _goodput(runs, m.a) / _goodput(runs, m.b)
    elif m.kind == "share":
        value = _goodput(runs, m.a) / _col(runs, "total_goodput_bps")
    elif m.kind == "utilization":
        value = _col(runs, f"{m.link}.utilization")
    elif m.kind == "column":
        assert m.column is not None  # Measure's validator: a column measure names it
        value = (_col(runs, m.column) - _sum(runs, m.minus)) * m.scale
    elif m.kind == "available":
        assert m.columns is not None  # Measure's validator: so does an available measure
        value = _goodput(runs, m.a) / (pl.lit(m.capacity) - _sum(runs, m.columns))
    else:  # sum
        assert m.columns is not None  # Measure's validator: and a sum measure
        value = (_sum(runs, m.columns) - _sum(runs, m.minus)) * m.scale
    return runs.select(
        pl.lit(m.name).alias("measure"),
        "series",
        "x",
        pl.col("replicate").cast(pl.UInt32),
        value.cast(pl.Float64).alias("value"),
    )


def _goodput(runs: pl.DataFrame, groups: list[int] | None) -> pl.Expr:
    if groups is None:
        return _col(runs, "total_goodput_bps")
    return sum((_col(runs, f"flows[{g}].goodput_bps") for g in groups), pl.lit(0.0))


def _sum(runs: pl.DataFrame, names: list[str]) -> pl.Expr:
    return sum((_col(runs, c) for c in names), pl.lit(0.0))


def _col(runs: pl.DataFrame, name: str) -> pl.Expr:
    if name not in runs.columns:
        near = [c for c in runs.columns if c.split(".")[0] == name.split(".")[0]][:6]
        raise MeasureError(
            f"metric column {name!r} is not in the sweep's results"
            + (f" (there are {', '.join(near)}, …)" if near else "")
        )
    return pl.col(name).cast(pl.Float64)

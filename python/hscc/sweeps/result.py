"""A sweep's results: one row per run, and the mean with its confidence interval per point."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import polars as pl

from hscc import student_t
from hscc.results import Result
from hscc.sweeps import metrics
from hscc.sweeps.execute import Outcome
from hscc.sweeps.plan import Plan
from hscc.sweeps.store import RunStore
from hscc.units_table import clip_interval, physical_range

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The columns every row has before the swept fields and the metrics (see `SweepResult.points`).
RUN_COLUMNS = {
    "point": pl.UInt32,
    "replicate": pl.UInt32,
    "seed": pl.UInt64,
    "status": pl.String,
    "error": pl.String,
    "run": pl.String,
}


class SweepResult:
    """Everything a sweep produced.

    ``points``: one row per run — ``point`` (index of the combination of axis
    values), ``replicate``, ``seed``, ``status`` ("ok", "cached" or "failed"),
    ``error`` (the engine's message for a failed run), ``run`` (its cache key:
    the run directory under the store), then one column per swept field (named
    by its path, as the engine read it: seconds, bit/s, names), then the run's
    metrics (``hscc.sweeps.metrics``; null for a failed run).
    """

    def __init__(
        self,
        points: pl.DataFrame,
        axes: list[list[str]],
        store: RunStore | None = None,
        directory: Path | None = None,
    ):
        self.points, self.axes, self.store, self.directory = points, axes, store, directory

    @property
    def fields(self) -> list[str]:
        """The swept fields' columns, axis by axis."""
        return [p for members in self.axes for p in members]

    @property
    def metrics(self) -> list[str]:
        """The metric columns."""
        skip = set(RUN_COLUMNS) | set(self.fields)
        return [c for c in self.points.columns if c not in skip]

    @property
    def failed(self) -> pl.DataFrame:
        """The runs that failed, with their messages."""
        return self.points.filter(pl.col("status") == "failed")

    def identical_points(self) -> list[int]:
        """Points whose replicates (two or more that ran) gave the same value for every metric:
        nothing those runs drew from the seed, so they are one run repeated, not a sample."""
        schema = self.points.schema  # made anew on every access: once, not per column
        numeric = [c for c in self.metrics if schema[c].is_numeric() and c not in metrics.MACHINE]
        ok = self.points.filter(pl.col("status") != "failed")
        if not numeric or ok.is_empty():
            return []
        per_point = ok.group_by("point", maintain_order=True).agg(
            pl.len().alias("_runs"), *[pl.col(c).n_unique() for c in numeric]
        )
        same = per_point.filter(
            (pl.col("_runs") > 1) & pl.all_horizontal([pl.col(c) == 1 for c in numeric])
        )
        return [int(p) for p in same["point"]]

    def identical_warning(self) -> str | None:
        """What `identical_points` means for the reader, or None when every point's replicates
        differ."""
        points = self.identical_points()
        if not points:
            return None
        shown = ", ".join(str(p) for p in points[:10]) + (", …" if len(points) > 10 else "")
        return (
            f"the replicates of {len(points)} point{'s' if len(points) > 1 else ''} ({shown}) "
            "are identical: nothing in those runs draws from the seed, so they count as one run "
            "and their confidence intervals mean nothing (host_jitter, start_jitter, random "
            "loss, or a start or access_delay distribution make replicates differ)"
        )

    def distinct_runs(self) -> SweepResult:
        """The same sweep with each point of `identical_points` kept as its first replicate."""
        same = self.identical_points()
        if not same:
            return self
        keep = ~pl.col("point").is_in(same) | (
            pl.col("replicate") == pl.col("replicate").min().over("point")
        )
        return SweepResult(self.points.filter(keep), self.axes, self.store, self.directory)

    def run(self, row: int) -> Result:
        """The Result of the run in row `row` of `points` (needs a sweep stored on disk)."""
        if self.store is None:
            raise ValueError("this sweep kept no runs (give it a directory: out=...)")
        r = self.points.row(row, named=True)
        if r["status"] == "failed":
            raise ValueError(f"run {row} failed: {r['error']}")
        return self.store.load(r["run"])

    def summary(self, confidence: float = 0.95) -> pl.DataFrame:
        """One row per point and metric: the swept fields, ``metric``, ``n`` (runs with a value),
        ``mean``, ``std`` (sample standard deviation), ``ci_low`` and ``ci_high`` (Student-t
        interval of the mean at `confidence`, cut to the values the metric can take,
        `hscc.units_table.physical_range`, e.g. [0, 1] for Jain's index, never past a
        replicate; null below 2 runs)."""
        if not 0 < confidence < 1:
            raise ValueError(
                f"confidence: {confidence} is not allowed (between 0 and 1, e.g. 0.95)"
            )
        schema = self.points.schema  # made anew on every access: once, not per column
        numeric = [c for c in self.metrics if schema[c].is_numeric()]
        keys = ["point", *self.fields]
        ok = self.points.filter(pl.col("status") != "failed")
        if not numeric or ok.is_empty():
            return pl.DataFrame(
                schema={
                    **{k: schema[k] for k in keys},
                    "metric": pl.String,
                    "n": pl.UInt32,
                    "mean": pl.Float64,
                    "std": pl.Float64,
                    "ci_low": pl.Float64,
                    "ci_high": pl.Float64,
                }
            )
        long = (
            ok.select(keys + numeric)
            .with_columns(pl.col(numeric).cast(pl.Float64))
            .unpivot(index=keys, on=numeric, variable_name="metric", value_name="value")
        )
        stats = long.group_by(keys + ["metric"], maintain_order=True).agg(
            pl.col("value").drop_nulls().len().cast(pl.UInt32).alias("n"),
            pl.col("value").mean().alias("mean"),
            pl.col("value").std(ddof=1).alias("std"),
            pl.col("value").min().alias("_min"),
            pl.col("value").max().alias("_max"),
        )
        half = (
            pl.Series([student_t.quantile(confidence, n - 1) for n in stats["n"]], dtype=pl.Float64)
            * stats["std"]
            / stats["n"].cast(pl.Float64).sqrt()
        )
        low: list[float | None] = []
        high: list[float | None] = []
        for m, mean, h, lo, hi in zip(
            stats["metric"], stats["mean"], half, stats["_min"], stats["_max"], strict=True
        ):
            if mean is None or h is None or math.isnan(h):
                low.append(None)
                high.append(None)
                continue
            a, b = clip_interval(mean - h, mean + h, physical_range(m), (lo, hi))
            low.append(a)
            high.append(b)
        return (
            stats.drop("_min", "_max")
            .with_columns(
                pl.Series("ci_low", low, pl.Float64), pl.Series("ci_high", high, pl.Float64)
            )
            .sort(["point"], maintain_order=True)
        )

    @overload
    def plot(
        self,
        out_dir: None = None,
        metrics: list[str] | None = None,
        overwrite: bool = False,
        size: str | None = None,
        fmt: str = "png",
    ) -> dict[str, Figure]: ...
    @overload
    def plot(
        self,
        out_dir: str | Path,
        metrics: list[str] | None = None,
        overwrite: bool = False,
        size: str | None = None,
        fmt: str = "png",
    ) -> list[Path]: ...
    def plot(
        self,
        out_dir: str | Path | None = None,
        metrics: list[str] | None = None,
        overwrite: bool = False,
        size: str | None = None,
        fmt: str = "png",
    ) -> dict[str, Figure] | list[Path]:
        """Each metric (default: the headline ones) against the first axis, one line per value
        of the others (`hscc.sweeps.plot`): without `out_dir`, the matplotlib figures by metric
        name (a notebook shows them); with `out_dir`, one file per metric written there in
        `fmt` (png, pdf or svg; an existing file replaced only with `overwrite`), and the
        paths returned. `size`: column, wide or slide (default: `hscc.style.DEFAULT_SIZE`)."""
        from hscc import style
        from hscc.sweeps import plot

        size = size or style.DEFAULT_SIZE
        if out_dir is None:
            return plot.figures(self, metrics, size)
        return plot.plot(self, out_dir, metrics, overwrite, size, fmt)

    def _repr_html_(self) -> str:
        """The summary `hscc sweep` prints, for a notebook."""
        from hscc import report

        return report.html(report.sweep_summary(self))

    def __repr__(self) -> str:
        n = self.points.height
        failed = self.failed.height
        return f"<hscc.SweepResult {n} runs over {' × '.join(m[0] for m in self.axes) or 'no axes'}{f', {failed} failed' if failed else ''}>"

    @classmethod
    def from_outcomes(
        cls,
        plan: Plan,
        outcomes: list[Outcome],
        store: RunStore | None,
        directory: Path | None = None,
    ) -> SweepResult:
        rows: list[dict[str, Any]] = []
        for job, o in zip(plan.jobs, outcomes, strict=True):
            row = {
                "point": job.point,
                "replicate": job.replicate,
                "seed": job.seed,
                "status": o.status,
                "error": o.error,
                "run": job.key if o.status != "failed" else None,
            }
            row.update({path: col[job.point] for path, col in plan.columns.items()})
            row.update(o.metrics or {})
            rows.append(row)
        schema = dict(RUN_COLUMNS)
        frame = (
            pl.from_dicts(rows, schema_overrides=schema, infer_schema_length=None)
            if rows
            else pl.DataFrame(schema=schema)
        )
        axes = [[m.path for m in a.members] for a in plan.sweep.axes]
        return cls(frame, axes, store, directory)

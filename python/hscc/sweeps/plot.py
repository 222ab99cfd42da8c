"""Plots of a sweep: each metric's mean against the first axis, one line per value
of the other axes, with the confidence interval of the mean as error bars."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hscc.atomic import write_bytes
from hscc.rundir import RunDirError
from hscc.sweeps.metrics import headline

if TYPE_CHECKING:
    from hscc.sweeps.result import SweepResult

_MAX_LINES = 12


def plot(
    result: SweepResult,
    out_dir: str | Path,
    metrics: list[str] | None = None,
    overwrite: bool = False,
) -> list[Path]:
    """Write OUT_DIR/METRIC.png for each metric (default: the headline metrics); returns
    the paths. An existing file is replaced only with `overwrite` (or when `out_dir` is
    the sweep directory's own plots)."""
    if not result.axes:
        raise ValueError("a sweep without axes has nothing to plot against")
    metrics = metrics if metrics is not None else headline(result.metrics)
    unknown = [m for m in metrics if m not in result.metrics]
    if unknown:
        raise ValueError(
            f"metric {unknown[0]!r} is not in the sweep (one of: {', '.join(result.metrics[:20])}, ...)"
        )
    out_dir = Path(out_dir)
    own = (
        result.directory is not None
        and out_dir.resolve() == (Path(result.directory) / "plots").resolve()
    )
    paths = [out_dir / f"{_file_name(m)}.png" for m in metrics]
    if not (overwrite or own):
        for p in paths:
            if p.exists() or p.is_symlink():
                raise RunDirError(f"{p} exists; pass --overwrite (overwrite=True) to replace it")
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = result.summary()
    for metric, path in zip(metrics, paths, strict=True):
        fig = figure(result, summary.filter(pl.col("metric") == metric), metric)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=120)
        write_bytes(path, buf.getvalue())
    return paths


def figure(result: SweepResult, stats: pl.DataFrame, metric: str) -> Figure:
    """One metric's figure: x = the first axis's (first) field."""
    x_field = result.axes[0][0]
    others = [members[0] for members in result.axes[1:]]
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs_all = stats[x_field].unique(maintain_order=True).to_list()
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all)
    positions = None if numeric else {x: i for i, x in enumerate(xs_all)}
    groups = (
        stats.partition_by(others, maintain_order=True, as_dict=True) if others else {(): stats}
    )
    for n, (values, part) in enumerate(groups.items()):
        if n == _MAX_LINES:
            ax.text(
                0.01,
                0.01,
                f"{len(groups) - _MAX_LINES} more lines not drawn",
                transform=ax.transAxes,
                fontsize=8,
            )
            break
        xs = part[x_field].to_list()
        if positions is not None:
            xs = [positions[x] for x in xs]
        mean = part["mean"].to_list()
        low = [
            m - lo if lo is not None and m is not None else 0
            for m, lo in zip(mean, part["ci_low"].to_list(), strict=True)
        ]
        high = [
            hi - m if hi is not None and m is not None else 0
            for m, hi in zip(mean, part["ci_high"].to_list(), strict=True)
        ]
        label = ", ".join(f"{f} = {v}" for f, v in zip(others, values, strict=True)) or None
        ax.errorbar(xs, mean, yerr=[low, high], marker="o", capsize=3, label=label)
    if numeric:
        positive = [x for x in xs_all if x > 0]
        if len(positive) == len(xs_all) and len(xs_all) > 2 and max(xs_all) / min(xs_all) >= 100:
            ax.set_xscale("log")
    else:
        ax.set_xticks(range(len(xs_all)), [str(x) for x in xs_all])
    ax.set_xlabel(x_field)
    ax.set_ylabel(metric)
    most = stats["n"].max()
    n_runs = most if isinstance(most, int) else 0
    ax.set_title(
        f"{metric}: mean of {n_runs} run{'s' if n_runs != 1 else ''} per point"
        + (", 95 % CI" if n_runs and n_runs > 1 else ""),
        fontsize=10,
    )
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize=8)
    return fig


def _file_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", metric).strip("_") or "metric"

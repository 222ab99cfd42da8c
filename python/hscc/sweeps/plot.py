"""Plots of a sweep: each metric's mean against the first axis, one line per value
of the other axes, with the confidence interval of the mean as error bars. Labels
and units from `hscc.units_table`, the look from `hscc.style`."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl

from hscc import figure_cache, style
from hscc.atomic import write_bytes
from hscc.rundir import RunDirError
from hscc.sweeps.metrics import headline
from hscc.units_table import Metric, axis_label, field_label, metric, physical_range, scale

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from hscc.sweeps.result import SweepResult

_MAX_LINES = 12

# (result, metrics, size, fmt, summary) → each metric's file, in order: `render`, or the
# same work dealt among a sweep's workers.
Renderer: TypeAlias = Callable[["SweepResult", list[str], str, str, pl.DataFrame], list[bytes]]


def plot(
    result: SweepResult,
    out_dir: str | Path,
    metrics: list[str] | None = None,
    overwrite: bool = False,
    size: str = style.DEFAULT_SIZE,
    fmt: str = "png",
    prefix: str = "",
    renderer: Renderer | None = None,
) -> list[Path]:
    """Write OUT_DIR/NAME.FMT for each metric (default: the headline metrics; NAME from the
    metric, `file_name`, after `prefix` and a dash when given); returns the paths. `fmt`:
    png, pdf or svg; `size`: column, wide or slide. An existing file is replaced only with
    `overwrite` (or when `out_dir` is the sweep directory's own plots). `renderer` draws
    the files (default `render`, here)."""
    style.file_format(f"plot.{fmt}")
    style.check_size(size)
    metrics = _metrics(result, metrics)
    out_dir = Path(out_dir)
    own = (
        result.directory is not None
        and out_dir.resolve() == (Path(result.directory) / "plots").resolve()
    )
    names = file_names(metrics)
    paths = [out_dir / f"{prefix + '-' if prefix else ''}{names[m]}.{fmt}" for m in metrics]
    if not (overwrite or own):
        for p in paths:
            if p.exists() or p.is_symlink():
                raise RunDirError(f"{p} exists; pass --overwrite (overwrite=True) to replace it")
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = result.summary().filter(pl.col("metric").is_in(metrics))
    digest = ""
    if own:  # the sweep's own plots: drawn again only when the summary or the style changed
        digest = figure_cache.key(summary.write_csv(), "\n".join(metrics), size, fmt)
        if figure_cache.fresh(out_dir, digest, paths):
            return paths
        figure_cache.remember(out_dir, "")  # stale while the new files are written
    for data, path in zip(
        (renderer or render)(result, metrics, size, fmt, summary), paths, strict=True
    ):
        write_bytes(path, data)
    if digest:
        figure_cache.remember(out_dir, digest)
    return paths


def render(
    result: SweepResult, metrics: list[str], size: str, fmt: str, summary: pl.DataFrame
) -> list[bytes]:
    """Each metric's figure as a file of format `fmt`, in order; `summary`, the result's."""
    return [style.render(fig, fmt) for fig in figures(result, metrics, size, summary).values()]


def figures(
    result: SweepResult,
    metrics: list[str] | None = None,
    size: str = style.DEFAULT_SIZE,
    summary: pl.DataFrame | None = None,
) -> dict[str, Figure]:
    """Each metric's figure (default: the headline metrics), by metric name, in order;
    `summary`: the result's summary, if already computed."""
    style.check_size(size)
    metrics = _metrics(result, metrics)
    summary = result.summary() if summary is None else summary
    return {
        name: figure(result, summary.filter(pl.col("metric") == name), name, size)
        for name in metrics
    }


def _metrics(result: SweepResult, metrics: list[str] | None) -> list[str]:
    if not result.axes:
        raise ValueError("a sweep without axes has nothing to plot against")
    metrics = metrics if metrics is not None else headline(result.metrics)
    unknown = [m for m in metrics if m not in result.metrics]
    if unknown:
        raise ValueError(
            f"metric {unknown[0]!r} is not in the sweep (one of: {', '.join(result.metrics[:20])}, ...)"
        )
    return metrics


def figure(
    result: SweepResult, stats: pl.DataFrame, name: str, size: str = style.DEFAULT_SIZE
) -> Figure:
    """One metric's figure: x = the first axis's (first) field, y in the metric's unit."""
    with style.context(size):
        fig = style.new_figure(size)
        _draw(result, stats, name, fig)
    return fig


def _draw(result: SweepResult, stats: pl.DataFrame, name: str, fig: Figure) -> None:
    x_field = result.axes[0][0]
    others = [members[0] for members in result.axes[1:]]
    m = metric(name)
    divisor, unit = scale(m.kind, stats["mean"].to_list())
    ax = fig.add_subplot()
    xs_all = stats[x_field].unique(maintain_order=True).to_list()
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all)
    x = metric(x_field)
    x_div, x_unit = scale(x.kind, xs_all) if numeric and x.kind in ("rate", "time") else (1.0, "")
    if numeric:
        xs_all = [v / x_div for v in xs_all]
    nonnegative = physical_range(name)[0] >= 0
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
            xs = [positions[v] for v in xs]
        else:
            xs = [v / x_div for v in xs]
        mean: list[Any] = [None if v is None else v / divisor for v in part["mean"].to_list()]
        low = [
            (mu - lo / divisor) if lo is not None and mu is not None else 0
            for mu, lo in zip(mean, part["ci_low"].to_list(), strict=True)
        ]
        high = [
            (hi / divisor - mu) if hi is not None and mu is not None else 0
            for mu, hi in zip(mean, part["ci_high"].to_list(), strict=True)
        ]
        # The legend's title names the other axes; each entry their values.
        label = ", ".join(str(v) for v in values) or m.title
        colour = (
            style.algorithm_colour(str(values[0]))
            if len(others) == 1 and others[0].endswith(".algorithm")
            else f"C{n % 10}"
        )
        ax.errorbar(
            xs, mean, yerr=[low, high], marker="o", ms=3, capsize=2, label=label, color=colour
        )
    if numeric:
        positive = [x for x in xs_all if x > 0]
        if len(positive) == len(xs_all) and len(xs_all) > 2 and max(xs_all) / min(xs_all) >= 100:
            ax.set_xscale("log")
        style.single_value_axis(ax, xs_all, log=ax.get_xscale() == "log")
    else:
        ax.set_xticks(range(len(xs_all)), [str(x) for x in xs_all])
        if len(xs_all) == 1:
            ax.set_xlim(-1, 1)
    ax.set_xlabel(axis_label(Metric(x_field, field_label(x_field), "", x.kind), x_unit))
    ax.set_ylabel(axis_label(m, unit))
    if ax.get_yscale() == "linear":
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)  # no "1e7" offset
    most = stats["n"].max()
    n_runs = most if isinstance(most, int) else 0
    ax.set_title(
        f"mean of {n_runs} run{'s' if n_runs != 1 else ''} per point"  # the metric: the y label
        + (", 95 % CI" if n_runs and n_runs > 1 else "")
        + (" (cut to the metric's range)" if n_runs > 1 and _cut(stats) else ""),
        loc="left",
    )
    if nonnegative:
        ax.set_ylim(bottom=0)
    ax.legend(title=", ".join(field_label(o) for o in others) if others else None)


def _cut(stats: pl.DataFrame) -> bool:
    """Whether an interval was cut to the metric's range (`SweepResult.summary`): its two
    halves differ."""
    for mean, low, high in zip(stats["mean"], stats["ci_low"], stats["ci_high"], strict=True):
        if None not in (mean, low, high) and not math.isclose(
            mean - low, high - mean, rel_tol=1e-9, abs_tol=1e-12 * max(1.0, abs(mean))
        ):
            return True
    return False


def file_name(name: str) -> str:
    """A metric's plot file name, without extension: "flows[1].goodput_bps" → "flows-1-goodput",
    "bottleneck:fwd.mean_qdelay_s" → "bottleneck-fwd-mean-qdelay"."""
    owner, _, base = name.rpartition(".")
    base = re.sub(r"_(bps|s)$", "", base)
    words = re.split(r"[^A-Za-z0-9]+", f"{owner} {base}")
    return "-".join(w for w in words if w).lower() or "metric"


def file_names(names: list[str]) -> dict[str, str]:
    """`file_name` of each metric; two metrics that would share a name keep their full names."""
    short = {n: file_name(n) for n in names}
    taken = [v for v in short.values()]
    return {
        n: (v if taken.count(v) == 1 else re.sub(r"[^A-Za-z0-9_.-]+", "_", n).strip("_"))
        for n, v in short.items()
    }

"""An experiment's figure redrawn the paper's way: its x axis, its series, one panel per
measure; hscc's means with their 95 % confidence intervals as lines, the published
numbers as open markers of the same colour."""

from __future__ import annotations

import math
import textwrap
from typing import Any

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hscc import style
from hscc.reproduce.experiment import Experiment

# A panel is about 3.6 in wide and 2.8 in high: longer titles and axis labels are wrapped
# onto more lines rather than run into the next panel.
LABEL_CHARS = 40
TITLE_CHARS = 48
TITLE_PER_INCH = 12

COLOURS = [
    "tab:blue",
    "tab:red",
    "tab:green",
    "tab:orange",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:gray",
    "tab:olive",
    "tab:cyan",
]


def png(exp: Experiment, table: pl.DataFrame) -> bytes:
    """The figure as PNG bytes (`table`: compare.cells)."""
    return style.render(figure(exp, table), "png")


def figure(exp: Experiment, table: pl.DataFrame, size: str = "wide") -> Figure:
    """The figure: one panel per measure, side by side; one legend with every series drawn."""
    n = len(exp.measures)
    with style.context(size):
        width, height = style.SIZES[size]
        fig = Figure(figsize=(max(width, 3.6 * n), height + 1.2), layout="constrained")
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
        series = list(dict.fromkeys(table["series"].to_list()))
        colour = colours(series, exp)
        for i, m in enumerate(exp.measures):
            ax = fig.add_subplot(1, n, i + 1)
            t = table.filter(pl.col("measure") == m.name)
            if exp.x.axis is None:
                _bars(ax, t, series, colour)
            else:
                _lines(ax, t, series, colour)
                ax.set_xscale(exp.x.scale)
                ax.set_xlabel(exp.x.label)
                style.single_value_axis(
                    ax,
                    t.filter(pl.col("mean").is_not_null() | pl.col("paper").is_not_null())[
                        "x"
                    ].to_list(),
                    log=exp.x.scale == "log",
                )
            if m.log:
                ax.set_yscale("log")
                if exp.x.axis is None:
                    _log_bar_floor(ax, t)
            ax.set_ylabel(textwrap.fill(m.label, LABEL_CHARS))
            ax.set_title(textwrap.fill(m.source or exp.source, TITLE_CHARS))
        seen: dict[str, Any] = {}  # every panel's series, once: a series may be in one panel only
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(label, handle)
        style.figure_legend(fig, list(seen.values()), list(seen))
        # about 12 characters of the title's font per inch: a long title wraps, not cut at
        # both edges of a one-panel figure
        fig.suptitle(
            textwrap.fill(f"{exp.name}: {exp.title}", int(fig.get_figwidth() * TITLE_PER_INCH))
        )
    return fig


def colours(series: list[str], exp: Experiment | None = None) -> dict[str, str]:
    """By algorithm when every series is one (the same colour as in run plots: a series
    named "Cubic TCP" for the algorithm cubic is CUBIC's orange), else in turn."""
    algorithm = {s.lower(): s.lower() for s in series}
    if exp is not None and exp.series is not None and exp.series.axis.endswith(".algorithm"):
        algorithm.update({name.lower(): key for key, name in exp.series.names.items()})
    keys = [algorithm.get(s.lower(), s.lower()) for s in series]
    if series and all(style.known_algorithm(k) for k in keys):
        return {s: style.algorithm_colour(k) for s, k in zip(series, keys, strict=True)}
    return {s: COLOURS[i % len(COLOURS)] for i, s in enumerate(series)}


def _lines(ax: Axes, t: pl.DataFrame, series: list[str], colour: dict[str, str]) -> None:
    # One x value: hscc's series side by side around it (3 % apart), not drawn over each other.
    xs = t.filter(pl.col("mean").is_not_null())["x"].unique().to_list()
    drawn = [
        s for s in series if t.filter((pl.col("series") == s) & pl.col("mean").is_not_null()).height
    ]
    for s in series:
        rows = t.filter(pl.col("series") == s).sort("x")
        ours = rows.filter(pl.col("mean").is_not_null())
        if ours.height and len(xs) == 1 and len(drawn) > 1:
            k = drawn.index(s) - (len(drawn) - 1) / 2
            ours = ours.with_columns(pl.col("x") * (1 + 0.03 * k))
        if ours.height:
            low = (ours["mean"] - ours["ci_low"].fill_null(ours["mean"])).to_list()
            high = (ours["ci_high"].fill_null(ours["mean"]) - ours["mean"]).to_list()
            ax.errorbar(
                ours["x"].to_list(),
                ours["mean"].to_list(),
                yerr=[low, high],
                color=colour[s],
                marker="o",
                ms=4,
                capsize=3,
                label=f"{s} (hscc)",
            )
        paper = rows.filter(pl.col("paper").is_not_null())
        if paper.height:
            ax.plot(
                paper["x"].to_list(),
                paper["paper"].to_list(),
                color=colour[s],
                marker="s",
                ms=7,
                mfc="none",
                ls="--",
                lw=0.8,
                label=f"{s} (paper)",
            )


def _bars(ax: Axes, t: pl.DataFrame, series: list[str], colour: dict[str, str]) -> None:
    present = [s for s in series if t.filter(pl.col("series") == s).height]
    for i, s in enumerate(present):
        row = t.filter(pl.col("series") == s).row(0, named=True)
        if row["mean"] is not None:
            err = [
                [row["mean"] - (row["ci_low"] if row["ci_low"] is not None else row["mean"])],
                [(row["ci_high"] if row["ci_high"] is not None else row["mean"]) - row["mean"]],
            ]
            ax.bar(
                i, row["mean"], yerr=err, color=colour[s], alpha=0.7, capsize=3, label=f"{s} (hscc)"
            )
    paper = [
        (i, row["paper"])
        for i, s in enumerate(present)
        for row in t.filter(pl.col("series") == s).head(1).iter_rows(named=True)
        if row["paper"] is not None
    ]
    if paper:  # one series: every published value, one legend entry
        ax.plot(
            [i for i, _ in paper],
            [v for _, v in paper],
            color="black",
            marker="s",
            ms=8,
            mfc="none",
            ls="none",
            label="paper",
        )
    ax.set_xticks(range(len(present)), present, rotation=20, fontsize=8)


def _log_bar_floor(ax: Axes, t: pl.DataFrame) -> None:
    """Bars on a log axis start at its bottom, which matplotlib would put just under the
    shortest bar (a bar of 108 beside one of 275 then looks 20 times shorter): the bottom is
    a power of ten at least ten times below every value drawn, so bars compare as numbers."""
    drawn = [
        v
        for c in ("mean", "ci_low", "paper")
        for v in t[c].drop_nulls().to_list()
        if v is not None and v > 0
    ]
    if drawn:
        ax.set_ylim(bottom=10.0 ** (math.floor(math.log10(min(drawn))) - 1))

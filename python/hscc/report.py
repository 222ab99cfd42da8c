"""Rich tables for the terminal and notebooks: a run's summary, a sweep's, the algorithm catalogue."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from hscc import run_summary
from hscc.run_summary import MAX_ROWS
from hscc.units_table import format_interval

if TYPE_CHECKING:
    from hscc.catalog import Algorithm
    from hscc.results import Result
    from hscc.sweeps.result import SweepResult

_NOTEBOOK_WIDTH = 120  # characters: a notebook cell is wider than a terminal


def html(table: RenderableType) -> str:
    """`table` as a notebook shows it (`_repr_html_`): the terminal's table in HTML, colours inline."""
    # Not a Jupyter console: inside a kernel Rich would also display the table as it prints,
    # and the notebook would show it twice (that display and this method's HTML).
    console = Console(
        record=True,
        width=_NOTEBOOK_WIDTH,
        file=io.StringIO(),
        color_system="truecolor",
        force_jupyter=False,
    )
    console.print(table)
    return console.export_html(
        inline_styles=True, code_format="<pre style='font-family:monospace'>{code}</pre>"
    )


def summary(result: Result) -> Group:
    """Per flow: algorithm, RTT, goodput, share, retransmissions; per bottleneck:
    utilization, drops, mean and p99 queuing delay; Jain's index (`run_summary`'s tables)."""
    return Group(*map(_rich, run_summary.tables(result)), Text(run_summary.fairness(result)))


def _rich(table: run_summary.Table) -> Table:
    """A `run_summary.Table` as a compact Rich table: the column that may wrap shares
    what the terminal leaves; the others never wrap."""
    t = Table(
        title=table.title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        caption=table.caption,
        caption_justify="left",
        caption_style="dim",
    )
    for c in table.columns:
        wraps = c == table.wrap
        t.add_column(
            c,
            justify="left" if c in table.left else "right",
            no_wrap=not wraps,
            ratio=1 if wraps else None,
        )
    for i, row in enumerate(table.rows):
        if i in table.sections:
            t.add_section()
        t.add_row(*row)
    return t


def sweep_summary(result: SweepResult, width: int | None = None) -> Table:
    """Per point: the swept values and the mean ± 95 % CI half-width of the first plotted
    metrics (up to 3; with `width`, those that fit in it, one at least: a name is never cut,
    and a table as wide as the terminal is read without its lines wrapping)."""
    from hscc.console import table_width
    from hscc.sweeps.metrics import headline

    metrics = headline(result.metrics)[:3]
    table = _sweep_table(result, metrics)
    while width is not None and len(metrics) > 1 and table_width(table) > width:
        metrics = metrics[:-1]
        table = _sweep_table(result, metrics)
    left = len(headline(result.metrics)) - len(metrics)
    if left > 0:
        table.caption = (
            f"{left} more default metric{'s' if left > 1 else ''} (and every other) "
            "in summary.parquet"
        )
    return table


def _sweep_table(result: SweepResult, metrics: list[str]) -> Table:
    stats = result.summary()
    points = stats.partition_by("point", maintain_order=True) if stats.height else []
    t = Table(
        title=f"{result.points.height} runs, {len(points)} points: mean ± 95 % CI "
        "(Student-t; [low, high]: cut to the metric's range)",
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        caption_justify="left",
        caption_style="dim",
    )
    for c in ("point", *result.fields, *metrics):
        # Field and metric names are typed into sweep files and plot calls: never cut.
        t.add_column(c, justify="left" if c in result.fields else "right", no_wrap=True)
    for part in points[:MAX_ROWS]:
        by_metric = {r["metric"]: r for r in part.iter_rows(named=True)}
        first = part.row(0, named=True)
        t.add_row(
            str(first["point"]),
            *[str(first[f]) for f in result.fields],
            *[_mean_ci(m, by_metric.get(m)) for m in metrics],
        )
    if len(points) > MAX_ROWS:
        t.add_row(f"… {len(points) - MAX_ROWS} more (summary.parquet)")
    return t


def _mean_ci(metric: str, r: dict[str, Any] | None) -> str:
    """ "96.2 ± 0.4 Mbit/s", or "0.93 [0.77, 1]" for an interval cut to the metric's range:
    the units of `hscc run`'s table (`hscc.units_table`)."""
    if r is None:
        return "–"
    return format_interval(metric, r["mean"], r["ci_low"], r["ci_high"])


def algorithms(algos: tuple[Algorithm, ...]) -> Group:
    """Every algorithm with its parameters, defaults, ranges and sources."""
    parts: list[Text | Table] = []
    for a in algos:
        aliases = f" (also {', '.join(a.aliases)})" if a.aliases else ""
        head = Text.assemble(
            (a.name, "bold cyan"), aliases, " — ", a.summary, "\n", ("source: " + a.source, "dim")
        )
        parts.append(head)
        if a.params:
            t = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1, 0, 1))
            for col in ("parameter", "default", "range", "meaning", "source of the default"):
                # The parameter's name is typed into scenario files: never split or cut.
                t.add_column(
                    col,
                    style="green" if col == "parameter" else None,
                    no_wrap=col in ("parameter", "default"),
                    overflow="fold",
                    ratio=2 if col == "meaning" else 1 if col == "source of the default" else None,
                )
            for p in a.params:
                t.add_row(p.name, p.default_text(), p.range_text(), p.doc, p.source)
            parts.append(t)
        else:
            parts.append(Text("  no parameters", style="dim"))
        parts.append(Text(""))
    return Group(*parts)

"""Rich tables for the terminal and notebooks: a run's summary, a sweep's, the algorithm catalogue."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from hscc.units import format_rate, format_seconds
from hscc.units_table import format_interval

if TYPE_CHECKING:
    from hscc.catalog import Algorithm
    from hscc.results import Result
    from hscc.sweeps.result import SweepResult

MAX_ROWS = 40  # flows shown in the terminal; the files hold them all
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
    utilization, drops, mean and p99 queuing delay; Jain's index. From summary.json's rows
    (the tables' rows, without polars: a run's table costs no DataFrame); the web sources'
    response-time bins, and the links no packet reached, are only in the Parquet tables."""
    from hscc.results import monitored_links

    s = result.summary
    kernel = result.manifest.get("kernel_run")
    how = f"on Linux {kernel['kernel']}" if kernel else "simulated"
    flows = _table(
        f"{s.get('name') or 'run'}: {s['duration_s']:g} s {how} in {s['wall_time_s']:.2f} s, seed {s['seed']}",
        "flow",
        "algorithm",
        "RTT",
        "sRTT",
        "goodput",
        "share",
        "retrans",
    )
    flows.caption = "RTT: base, no queuing · sRTT: mean smoothed · share: of total goodput"
    rows: list[dict[str, Any]] = s["flows"]
    for f in rows[:MAX_ROWS]:
        srtt = f["mean_srtt_s"]
        flows.add_row(
            f["label"],
            f["algorithm"],
            format_seconds(f["base_rtt_s"]),
            format_seconds(srtt) if srtt is not None else "–",
            format_rate(f["goodput_bps"]),
            f"{100 * f['share']:.1f}%",
            str(f["retrans"]),
        )
    if len(rows) > MAX_ROWS:
        flows.add_row(f"… {len(rows) - MAX_ROWS} more", "(flows.parquet)", *[""] * 5)
    if len(rows) > 1:
        flows.add_section()
        flows.add_row(
            "all",
            "",
            "",
            "",
            format_rate(s["total_goodput_bps"]),
            "100%",
            str(sum(f["retrans"] for f in rows)),
        )

    links = _table(
        "bottlenecks (monitored links)",
        "link",
        "rate",
        "utilization",
        "drops",
        "mean qdelay",
        "p99 qdelay",
    )
    for link in monitored_links(s, lambda: result.links):  # Result.bottlenecks
        links.add_row(
            link["name"],
            format_rate(link["rate_bps"]),
            f"{100 * link['utilization']:.1f}%",
            str(link["drops"]),
            format_seconds(link["mean_qdelay_s"]),
            format_seconds(link["p99_qdelay_s"]),
        )
    jain = s["jain_index"]
    footer = Text(
        f"Jain's fairness index of the TCP goodputs: {jain:.3f}"
        if jain is not None
        else "Jain's fairness index: undefined (no TCP goodput)"
    )
    parts = [
        t
        for t in (flows if rows else None, links, _udp(result), _web(result))
        if t is not None and t.row_count
    ]
    return Group(*parts, footer)


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


def _udp(result: Result) -> Table | None:
    t = _table(
        "UDP flows", "flow", "source", "throughput", "loss", "mean delay", "p99 delay", "jitter"
    )
    for u in result.summary["udp"][:MAX_ROWS]:
        t.add_row(
            u["label"],
            u["source"],
            format_rate(u["throughput_bps"]),
            f"{100 * u['loss_rate']:.2f}%",
            format_seconds(u["mean_delay_s"]),
            format_seconds(u["p99_delay_s"]),
            format_seconds(u["jitter_s"]),
        )
    return t


def _web(result: Result) -> Table | None:
    t = _table(
        "web transfers: response times by size",
        "source",
        "size (bytes)",
        "done",
        "mean",
        "median",
        "p90",
    )
    for w in result.summary.get("web", []):
        bins = result.web.filter(result.web["web"] == w["web"]).to_dicts()
        t.add_row(w["label"], "all", f"{w['completed']} of {w['started']}", "", "", "")
        for b in bins:
            t.add_row(
                "",
                f"{b['size_min']}–{b['size_max']}",
                str(b["count"]),
                format_seconds(b["mean_s"]),
                format_seconds(b["median_s"]),
                format_seconds(b["p90_s"]),
            )
    return t


def _table(title: str, *columns: str) -> Table:
    """A compact table: the first column left (wrapping when the terminal is narrow), the others right-aligned."""
    t = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        caption_justify="left",
        caption_style="dim",
    )
    for i, c in enumerate(columns):
        t.add_column(
            c,
            justify="right" if i >= 2 or c == "rate" else "left",
            no_wrap=i > 0 or c == "link",  # a link's name is typed in [[changes]] and metrics
            ratio=1 if i == 0 and c != "link" else None,
        )
    return t


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

"""Plots of a run: throughput and congestion window per flow, queuing delay per
monitored link, over time, in the house style (`hscc.style`). Drawn with
matplotlib's Agg renderer (no display)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hscc import cclog, style
from hscc.atomic import write_bytes
from hscc.results import Result, load
from hscc.rundir import PLOTS, RunDirError, read_manifest
from hscc.units import format_rate, format_seconds
from hscc.units import rate as parse_rate
from hscc.units import seconds as parse_seconds
from hscc.units_table import scale

_PER_FLOW_LEGEND = 10  # above this many flows, one legend entry per [[flows]] entry
_CAPACITY_STYLES: tuple[Any, ...] = ((0, (4, 2)), (0, (1, 1.5)), (0, (6, 1, 1, 1)))
_LOAD_COLOURS = ("#b0b0b0", "#d9c9a3", "#b8d3e8")
_QUEUE_COLOURS = ("black", "#7f7f7f", "#8c564b", "#6a3d9a", "#b15928")


class NoTracesError(ValueError):
    """A run recorded without flow or queue time series has nothing to plot."""


def plot(
    run: Result | str | Path,
    out: str | Path | None = None,
    svg: bool = False,
    overwrite: bool = False,
    size: str = style.DEFAULT_SIZE,
) -> list[Path]:
    """Draw the run's plot to `out` (default RUN_DIR/plot.png) in the format its extension
    names (.png, .pdf or .svg; `style.FormatError` otherwise), and an SVG beside it with
    `svg`. Returns the paths written. A run with a per-ACK log also gets its plot
    (`hscc.cclog.figure`) beside it, as OUT_cc_log.EXT. `size`: column, wide or slide.

    A run directory's own plot is replaced; any other existing file only with `overwrite`."""
    result = run if isinstance(run, Result) else load(run)
    if out is None:
        if isinstance(run, Result):
            raise ValueError(
                "out: a file name is needed when plotting a Result that is not in a run directory"
            )
        out = Path(run) / "plot.png"
    out = Path(out)
    style.file_format(out)
    style.check_size(size)
    figures = []
    if not (result.cc_log.height and result.timeseries.is_empty() and result.queues.is_empty()):
        figures.append((out, figure(result, size)))
    if result.cc_log.height:
        figures.append(
            (out.with_name(f"{out.stem}_cc_log{out.suffix}"), cclog.figure(result, size))
        )
    suffixes = [out.suffix] + ([".svg"] if svg and out.suffix.lower() != ".svg" else [])
    paths = [(path.with_suffix(s), fig) for path, fig in figures for s in suffixes]
    for path, _ in paths:
        _check_replaceable(path, overwrite)
    for path, fig in paths:
        write_bytes(path, style.render(fig, style.file_format(path)))
    return [p for p, _ in paths]


def _check_replaceable(path: Path, overwrite: bool) -> None:
    if overwrite or not (path.exists() or path.is_symlink()):
        return
    if (
        path.name in PLOTS
        and path.is_file()
        and not path.is_symlink()
        and read_manifest(path.parent) is not None
    ):
        return  # the run directory's own plot
    raise RunDirError(f"{path} exists; pass --overwrite (overwrite=True) to replace it")


def figure(result: Result, size: str = style.DEFAULT_SIZE) -> Figure:
    """The three-panel figure of a run: throughput (with each carrying link's capacity as a
    step line that follows [[changes]]), congestion window, queuing delay. Colour by
    algorithm, line style by flow; every line is in the legend."""
    if result.timeseries.is_empty() and result.queues.is_empty():
        raise NoTracesError(
            'the run has no time series: set [output] sample_interval and traces = ["flows", "queues"]'
        )
    with style.context(size):
        fig = style.new_figure(size, rows=3)
        ax_thr, ax_cwnd, ax_q = fig.subplots(3, 1, sharex=True)
        _draw(result, fig, ax_thr, ax_cwnd, ax_q, size)
    return fig


def _draw(result: Result, fig: Figure, ax_thr: Axes, ax_cwnd: Axes, ax_q: Axes, size: str) -> None:
    ts, qs, flows = result.timeseries, result.queues, result.flows
    s = result.summary
    duration = float(s["duration_s"])
    how = (
        f"on Linux {result.manifest['kernel_run']['kernel']}"
        if "kernel_run" in result.manifest
        else "simulated"
    )
    n = flows.height
    title = f"{s.get('name') or 'hscc run'}: {n} TCP flow{'s' if n != 1 else ''}, {duration:g} s {how}, seed {s['seed']}"
    jain = s.get("jain_index")
    if jain is not None:
        title += f"; Jain's index {jain:.3f}"
    others = _other_traffic(result)
    width_chars = int(style.SIZES[size][0] * 72 / style.FONT_SIZES[size] * 1.6)
    fig.suptitle(
        "\n".join(textwrap.wrap(title, width_chars) + textwrap.wrap(others, width_chars + 10))
    )

    schedules = _capacities(result)
    top_rate = max(
        [_peak(ts["throughput_bps"])] + [r for sch in schedules.values() for _, r in sch]
    )
    divisor, unit = scale("rate", [top_rate])
    for row, (colour, ls, label) in zip(flows.iter_rows(named=True), _styles(flows), strict=True):
        f = ts.filter(pl.col("flow") == row["flow"])
        if f.is_empty():
            continue
        lw = (1.2 if n <= _PER_FLOW_LEGEND else 0.7) * (0.7 if size == "column" else 1.0)
        ax_thr.plot(
            f["time_s"], f["throughput_bps"] / divisor, color=colour, ls=ls, lw=lw, label=label
        )
        ax_cwnd.plot(f["time_s"], f["cwnd"], color=colour, ls=ls, lw=lw, label=label)
    capacity = 0.0
    same: dict[tuple[tuple[float, float], ...], list[str]] = {}  # links of one schedule: one line
    for name, schedule in schedules.items():
        same.setdefault(tuple(schedule), []).append(name)
    for i, (steps, names) in enumerate(same.items()):
        times = [t for t, _ in steps] + [duration]
        rates = [r for _, r in steps] + [steps[-1][1]]
        capacity = max(capacity, *rates)
        changes = " → ".join(format_rate(r) for _, r in steps)
        ax_thr.step(
            times,
            [r / divisor for r in rates],
            where="post",
            color=style.CAPACITY_COLOUR,
            lw=0.9,
            ls=_CAPACITY_STYLES[i % len(_CAPACITY_STYLES)],
            label=f"capacity of {', '.join(names)} ({changes})",
        )
    if _has_other_traffic(result) and not qs.is_empty():
        # The link's whole load (TCP, UDP, VoIP, web): utilization × capacity per sample.
        for i, (name, schedule) in enumerate(schedules.items()):
            q = qs.filter(pl.col("name") == name)
            if q.is_empty():
                continue
            cap = [_rate_at(schedule, t) for t in q["time_s"].to_list()]
            carried = [
                u * c / divisor for u, c in zip(q["utilization"].to_list(), cap, strict=True)
            ]
            ax_thr.plot(
                q["time_s"],
                carried,
                color=_LOAD_COLOURS[i % len(_LOAD_COLOURS)],
                lw=0.9,
                label=f"all traffic on {name}",
                zorder=1,
            )
    thr_title = "goodput per flow, per sampling interval"
    if capacity and _peak(ts["throughput_bps"]) > 1.3 * capacity:
        # In-order delivery after a loss is repaired comes in bursts above the link rate; keep the scale readable.
        ax_thr.set_ylim(0, 1.3 * capacity / divisor)
        thr_title += f" (bursts above {format_rate(1.3 * capacity)} clipped)"
    qs_shown = _queued_links(qs)
    for i, name in enumerate(qs_shown):
        q = qs.filter(pl.col("name") == name)
        ax_q.plot(
            q["time_s"],
            q["qdelay_s"] * 1e3,
            color=_QUEUE_COLOURS[i % len(_QUEUE_COLOURS)],
            lw=1.0,
            label=f"queuing delay at {name}",
        )

    ax_thr.set_ylabel(f"throughput ({unit})")
    ax_thr.set_title(thr_title, loc="left")
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_cwnd.set_title("congestion window per flow", loc="left")
    ax_q.set_ylabel("queuing delay (ms)")
    ax_q.set_title("queuing delay per monitored queue (mean per interval)", loc="left")
    ax_q.set_xlabel("time (s)")
    for ax in (ax_thr, ax_cwnd, ax_q):
        ax.set_ylim(bottom=0)
        ax.set_xlim(0, duration)
    if not qs_shown:
        ax_q.text(
            0.5, 0.5, "no queue traces recorded", transform=ax_q.transAxes, ha="center", color="0.4"
        )
    _legend(fig, [ax_thr, ax_cwnd, ax_q], size)


def _legend(fig: Figure, axes: list[Axes], size: str) -> None:
    """One legend for the figure: every labelled line once, in drawing order."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    if not seen:
        return
    cols = {"column": 1, "wide": 2}.get(size, 3)
    fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=cols)


def _styles(flows: pl.DataFrame) -> list[tuple[str, Any, str]]:
    """(colour, line style, legend label) per flow, in the table's order: colour by algorithm,
    line style by flow within its algorithm (by [[flows]] entry when there are many flows,
    whose lines then share their entry's label)."""
    per_flow = flows.height <= _PER_FLOW_LEGEND
    nth: dict[str, dict[Any, int]] = {}
    out = []
    for row in flows.iter_rows(named=True):
        algorithm = row["algorithm"]
        key = row["flow"] if per_flow else row["spec"]
        index = nth.setdefault(algorithm, {}).setdefault(key, len(nth[algorithm]))
        if per_flow:
            label = f"{row['label']} ({algorithm}, RTT {format_seconds(row['base_rtt_s'])}): {format_rate(row['goodput_bps'])}"
            if algorithm.lower() in str(row["label"]).lower():
                label = f"{row['label']} (RTT {format_seconds(row['base_rtt_s'])}): {format_rate(row['goodput_bps'])}"
        else:
            count = int((flows["spec"] == row["spec"]).sum())
            label = f"flows[{row['spec']}]: {count} × {algorithm}, RTT {format_seconds(row['base_rtt_s'])}"
        out.append((style.algorithm_colour(algorithm), style.line_style(index), label))
    return out


def _capacities(result: Result) -> dict[str, list[tuple[float, float]]]:
    """Each monitored link that carried data: its rate from t = 0 and after each [[changes]] entry, as
    (time, bit/s) steps."""
    changes = result.manifest.get("scenario", {}).get("changes", []) or []
    out: dict[str, list[tuple[float, float]]] = {}
    for link in result.bottlenecks.iter_rows(named=True):
        if not link["mean_qdelay_s"] > 0:  # carried no queued data: an ACK path
            continue
        steps = []
        for c in changes:
            if c.get("link") == link["name"] and c.get("rate") is not None:
                try:
                    steps.append((parse_seconds(c["at"]), parse_rate(c["rate"])))
                except ValueError:
                    continue
        steps.sort()
        initial = _initial_rate(result, link["name"], float(link["rate_bps"]), steps)
        out[link["name"]] = [(0.0, initial)] + [s for s in steps if s[0] > 0]
    return out


def _initial_rate(
    result: Result, name: str, table_rate: float, steps: list[tuple[float, float]]
) -> float:
    """The link's rate before its first change: the scenario's, when the links table holds a changed rate."""
    config = result.manifest.get("engine_config", {})
    for link in config.get("links", []) if isinstance(config, dict) else []:
        if isinstance(link, dict) and link.get("name") == name and "rate_bps" in link:
            return float(link["rate_bps"])
    if steps and table_rate == steps[-1][1]:
        scenario = result.manifest.get("scenario", {})
        bottleneck = scenario.get("topology", {}).get("bottleneck", {})
        if isinstance(bottleneck, dict) and bottleneck.get("rate") is not None:
            try:
                return parse_rate(bottleneck["rate"])
            except ValueError:
                pass
    return table_rate


def _rate_at(schedule: list[tuple[float, float]], t: float) -> float:
    rate = schedule[0][1]
    for at, r in schedule:
        if at <= t:
            rate = r
    return rate


def _has_other_traffic(result: Result) -> bool:
    return bool(result.udp.height or result.summary.get("web"))


def _other_traffic(result: Result) -> str:
    """One line on the traffic that has no time series: UDP, VoIP, web."""
    parts = []
    for u in result.udp.iter_rows(named=True):
        parts.append(
            f"{u['label']} ({u['source']}) {format_rate(u['throughput_bps'])}, loss {100 * u['loss_rate']:.2g}%"
        )
    for w in result.summary.get("web", []) or []:
        parts.append(f"web {w['label']}: {w['completed']} of {w['started']} transfers done")
    return ("also on the network: " + "; ".join(parts)) if parts else ""


def _queued_links(qs: pl.DataFrame) -> list[str]:
    """Monitored links that ever queued a packet (all of them if none did)."""
    if qs.is_empty():
        return []
    names = qs["name"].unique(maintain_order=True).to_list()
    busy = (
        qs.group_by("name", maintain_order=True)
        .agg(pl.col("queue_pkts").max())
        .filter(pl.col("queue_pkts") > 0)["name"]
        .to_list()
    )
    return busy or names


def _peak(column: pl.Series) -> float:
    """The largest value of a numeric column (0 for an empty one)."""
    top = column.max()
    return float(top) if isinstance(top, (int, float)) else 0.0

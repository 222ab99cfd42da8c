"""Plots of a run in the house style (`hscc.style`): throughput and congestion window per
flow (or per algorithm, `aggregate`), each carrying link's capacity as a step line that
follows [[changes]] with the traffic the link carried, queuing delay per monitored link,
over time; and, where a run has them, panels for its UDP and VoIP sources and its web
transfers. Drawn with matplotlib's Agg renderer (no display)."""

from __future__ import annotations

import json
import math
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
from hscc.units_table import axis_label, metric, scale

_PER_FLOW_LEGEND = 10  # above this many flows, one legend entry per [[flows]] entry
_CARRYING = 0.1  # a monitored link this busy (or with changes) gets its capacity drawn
_PS_PER_S = 1e12  # the engine's times (its configuration's) are integer picoseconds
_CAPACITY_STYLES: tuple[Any, ...] = ("--", (0, (1, 1.5)), (0, (6, 1, 1, 1)))
_WEB_COLOURS = ("#6a3d9a", "#33a02c", "#b15928", "#8c564b")
_QUEUE_COLOURS = ("black", "#7f7f7f", "#8c564b", "#6a3d9a", "#b15928")


class NoTracesError(ValueError):
    """A run recorded without flow or queue time series has nothing to plot."""


def plot(
    run: Result | str | Path,
    out: str | Path | None = None,
    svg: bool = False,
    overwrite: bool = False,
    size: str = style.DEFAULT_SIZE,
    aggregate: bool = False,
) -> list[Path]:
    """Draw the run's plot to `out` (default RUN_DIR/plot.png) in the format its extension
    names (.png, .pdf or .svg; `style.FormatError` otherwise), and an SVG beside it with
    `svg`. Returns the paths written. A run with a per-ACK log also gets its plot
    (`hscc.cclog.figure`) beside it, as OUT_cc_log.EXT. `size`: column, wide or slide;
    `aggregate`: one line per algorithm instead of one per flow.

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
        figures.append((out, figure(result, size, aggregate)))
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


def figure(result: Result, size: str = style.DEFAULT_SIZE, aggregate: bool = False) -> Figure:
    """The run's figure. Over time: throughput per flow (per algorithm with `aggregate`),
    each carrying link's capacity (a step line that follows [[changes]]) with the traffic it
    carried, congestion window, queuing delay; then a panel for UDP and VoIP sources and one
    for web transfers where the run has them. Colour by algorithm, line style by flow; one
    legend with every drawn line. A column is one panel wide, wide and slide two."""
    if result.timeseries.is_empty() and result.queues.is_empty():
        raise NoTracesError(
            'the run has no time series: set [output] sample_interval and traces = ["flows", "queues"]'
        )
    schedules = capacities(result)
    tcp = not result.timeseries.is_empty()
    kinds = (
        (["throughput"] if tcp else [])
        + (["links"] if schedules else [])
        + (["cwnd"] if tcp else [])
        + (["queues"] if not result.queues.is_empty() else [])
    )
    extra = (["udp"] if result.udp.height else []) + (["web"] if result.web.height else [])
    cols = 1 if style.check_size(size) == "column" else 2
    time_rows = math.ceil(len(kinds) / cols)
    extra_rows = math.ceil(len(extra) / cols)
    with style.context(size):
        fig = style.new_figure(size, rows=time_rows + extra_rows)
        grid = fig.add_gridspec(time_rows + extra_rows, cols)
        axes: dict[str, Axes] = {}
        first: Axes | None = None
        for i, kind in enumerate(kinds):
            ax = fig.add_subplot(grid[i // cols, i % cols], sharex=first)
            first = first or ax
            axes[kind] = ax
        for i, kind in enumerate(extra):
            axes[kind] = fig.add_subplot(grid[time_rows + i // cols, i % cols])
        _draw(result, fig, axes, schedules, size, aggregate)
    return fig


def _draw(
    result: Result,
    fig: Figure,
    axes: dict[str, Axes],
    schedules: dict[str, list[tuple[float, float]]],
    size: str,
    aggregate: bool,
) -> None:
    qs, flows = result.queues, result.flows
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
    fig.suptitle(title, wrap=True)
    if "throughput" in axes:
        _flows(result, axes["throughput"], axes["cwnd"], size, aggregate)
    if "links" in axes:
        _links(result, axes["links"], schedules, duration)
    if "queues" in axes:
        _queues(qs, axes["queues"])
    time_axes = [ax for k, ax in axes.items() if k not in ("udp", "web")]
    cols = 1 if size == "column" else 2
    for i, ax in enumerate(time_axes):
        ax.set_ylim(bottom=0)
        ax.set_xlim(0, duration)
        if i + cols < len(time_axes):  # another time panel below: the time axis is shown there
            ax.tick_params(labelbottom=False)
        else:
            ax.set_xlabel(axis_label(metric("time_s"), "s"))
    if "udp" in axes:
        _udp(result, axes["udp"])
    if "web" in axes:
        _web(result, axes["web"])
    seen: dict[str, Any] = {}
    for ax in axes.values():
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    style.figure_legend(fig, list(seen.values()), list(seen), max_cols={"column": 1}.get(size, 3))
    for ax in time_axes:  # "congestion window (segments)" is as tall as a short panel
        ax.set_ylabel(ax.get_ylabel().replace(" (", "\n("))
    fig.align_ylabels(time_axes)


def _flows(result: Result, ax_thr: Axes, ax_cwnd: Axes, size: str, aggregate: bool) -> None:
    """Goodput and cwnd per flow (line style by flow) or, with `aggregate`, per algorithm."""
    ts, flows = result.timeseries, result.flows
    n = flows.height
    thin = (0.7 if size == "column" else 1.0) * (1.2 if n <= _PER_FLOW_LEGEND or aggregate else 0.7)
    divisor, unit = scale("rate", [_peak(ts["throughput_bps"])])
    if aggregate:
        thr_title = "goodput per algorithm (sum of its flows)"
        lines = per_algorithm(ts, flows)
        cwnd_title = "congestion window per algorithm (mean of its flows)"
        divisor, unit = scale("rate", [_peak(x) for _, _, x, _, _ in lines])
        for colour, label, thr_values, cwnd_values, times in lines:
            ax_thr.plot(times, thr_values / divisor, color=colour, lw=thin, label=label)
            ax_cwnd.plot(times, cwnd_values, color=colour, lw=thin, label=label)
    else:
        thr_title = "goodput per flow"
        cwnd_title = "congestion window per flow"
        for row, (colour, ls, label) in zip(
            flows.iter_rows(named=True), _styles(flows), strict=True
        ):
            f = ts.filter(pl.col("flow") == row["flow"])
            if f.is_empty():
                continue
            ax_thr.plot(
                f["time_s"],
                f["throughput_bps"] / divisor,
                color=colour,
                ls=ls,
                lw=thin,
                label=label,
            )
            ax_cwnd.plot(f["time_s"], f["cwnd"], color=colour, ls=ls, lw=thin, label=label)
    top = style.robust_top(ax_thr)
    if top is not None:
        # In-order delivery after a loss is repaired comes in bursts (and slow start in a spike)
        # far above the rest; keep the scale for the rest.
        ax_thr.set_ylim(0, top)
        ax_thr.text(
            0.99,
            0.98,
            f"peaks above {format_rate(top * divisor)} cut",
            transform=ax_thr.transAxes,
            ha="right",
            va="top",
            fontsize="small",
            color="0.35",
        )
    ax_thr.set_ylabel(axis_label(metric("goodput_bps"), unit))
    ax_thr.set_title(thr_title, loc="left")
    ax_cwnd.set_ylabel(axis_label(metric("cwnd"), "segments"))
    ax_cwnd.set_title(cwnd_title, loc="left")


def _queues(qs: pl.DataFrame, ax: Axes) -> None:
    """Queuing delay of each monitored queue that ever held a packet (all, if none did)."""
    shown = _queued_links(qs)
    divisor, unit = scale("time", [_peak(qs["qdelay_s"])])
    if divisor == 1.0 and unit == "s" and _peak(qs["qdelay_s"]) == 0:
        divisor, unit = 1e-3, "ms"  # nothing queued: an axis in ms, not s
    for i, name in enumerate(shown):
        q = qs.filter(pl.col("name") == name)
        ax.plot(
            q["time_s"],
            q["qdelay_s"] / divisor,
            color=_QUEUE_COLOURS[i % len(_QUEUE_COLOURS)],
            lw=1.0,
            label=f"queuing delay at {name}",
        )
    ax.set_ylabel(axis_label(metric("qdelay_s"), unit))
    ax.set_title("queuing delay (mean per interval)", loc="left")
    if _peak(qs["qdelay_s"]) == 0:
        ax.text(0.5, 0.5, "no packet waited", transform=ax.transAxes, ha="center", color="0.4")


def per_algorithm(ts: pl.DataFrame, flows: pl.DataFrame) -> list[tuple[str, str, Any, Any, Any]]:
    """(colour, label, summed goodput, mean cwnd, times) per algorithm, in the flows' order."""
    out = []
    for algorithm in flows["algorithm"].unique(maintain_order=True).to_list():
        members = flows.filter(pl.col("algorithm") == algorithm)
        per_time = (
            ts.filter(pl.col("flow").is_in(members["flow"].to_list()))
            .group_by("time_s")
            .agg(pl.col("throughput_bps").sum(), pl.col("cwnd").cast(pl.Float64).mean())
            .sort("time_s")
        )
        k = members.height
        total = float(members["goodput_bps"].sum())
        label = f"{algorithm}: {k} flow{'s' if k != 1 else ''}, {format_rate(total)} in all"
        out.append(
            (
                style.algorithm_colour(algorithm),
                label,
                per_time["throughput_bps"],
                per_time["cwnd"],
                per_time["time_s"],
            )
        )
    return out


def _links(
    result: Result, ax: Axes, schedules: dict[str, list[tuple[float, float]]], duration: float
) -> None:
    """Each carrying link's capacity as a step line over the run, and what it carried (all
    traffic: utilization × capacity, per sampling interval)."""
    qs = result.queues
    top = max(r for sch in schedules.values() for _, r in sch)
    divisor, unit = scale("rate", [top])
    same: dict[tuple[tuple[float, float], ...], list[str]] = {}  # links of one schedule: one line
    for name, schedule in schedules.items():
        same.setdefault(tuple(schedule), []).append(name)
    colour = {name: _QUEUE_COLOURS[i % len(_QUEUE_COLOURS)] for i, name in enumerate(schedules)}
    for i, (steps, names) in enumerate(same.items()):
        times = [t for t, _ in steps] + [duration]
        rates = [r for _, r in steps] + [steps[-1][1]]
        changes = " → ".join(format_rate(r) for _, r in steps)
        ax.step(
            times,
            [r / divisor for r in rates],
            where="post",
            color=colour[names[0]] if len(names) == 1 else style.CAPACITY_COLOUR,
            lw=1.3,
            ls=_CAPACITY_STYLES[i % len(_CAPACITY_STYLES)],
            label=f"capacity of {', '.join(names)} ({changes})",
        )
    for name, schedule in schedules.items():
        q = qs.filter(pl.col("name") == name) if not qs.is_empty() else qs
        if q.is_empty():
            continue
        times = q["time_s"].to_list()
        dt = times[1] - times[0] if len(times) > 1 else 0.0
        carried = [
            u * rate_at(schedule, t - dt / 2) / divisor
            for u, t in zip(q["utilization"].to_list(), times, strict=True)
        ]
        if len(schedules) == 1:  # the load as an area (two links' areas would overlap)
            ax.fill_between(times, carried, color=colour[name], alpha=0.12, lw=0)
        ax.plot(
            times,
            carried,
            color=colour[name],
            lw=0.8,
            alpha=0.6,
            label=f"carried by {name} (all traffic)",
        )
    ax.set_ylim(0, 1.1 * top / divisor)
    ax.set_ylabel(axis_label(metric("rate_bps"), unit))
    ax.set_title("capacity and load per link", loc="left")


def _udp(result: Result, ax: Axes) -> None:
    """Per UDP or VoIP flow: mean delay (bar) and 99th percentile (marker); its rate and loss
    in its name."""
    udp = result.udp
    divisor, unit = scale("time", udp["p99_delay_s"].to_list())
    names = [
        f"{u['label']}\n{format_rate(u['throughput_bps'])}, {100 * u['loss_rate']:.2g}% lost"
        for u in udp.iter_rows(named=True)
    ]
    ys = list(range(udp.height))
    ax.barh(ys, (udp["mean_delay_s"] / divisor).to_list(), color="#b8c8d8", label="mean delay")
    ax.plot(
        (udp["p99_delay_s"] / divisor).to_list(),
        ys,
        ls="none",
        marker="|",
        ms=9,
        mew=1.5,
        color="black",
        label="p99 delay",
    )
    ax.set_yticks(ys, names)
    ax.set_ylim(max(len(ys), 3) - 0.5, -0.5)  # top down; a lone bar as thick as one of three
    ax.set_xlabel(axis_label(metric("delay_s"), unit))
    ax.set_title("UDP and VoIP: one-way delay", loc="left")
    ax.grid(axis="y", visible=False)


def _web(result: Result, ax: Axes) -> None:
    """Per web source: median and 90th percentile response time by transfer size."""
    web = result.web
    done = {w["label"]: w for w in result.summary.get("web", []) or []}
    divisor, unit = scale("time", web["p90_s"].to_list())
    for i, (label, part) in enumerate(
        web.partition_by("label", maintain_order=True, as_dict=True).items()
    ):
        name = str(label[0])
        centre = [
            math.sqrt(a * (b + 1)) for a, b in zip(part["size_min"], part["size_max"], strict=True)
        ]
        colour = _WEB_COLOURS[i % len(_WEB_COLOURS)]
        w = done.get(name)
        note = f" ({w['completed']} of {w['started']} done)" if w else ""
        ax.plot(
            centre,
            (part["median_s"] / divisor).to_list(),
            color=colour,
            marker="o",
            ms=3,
            label=f"{name}{note}: median",
        )
        ax.plot(
            centre,
            (part["p90_s"] / divisor).to_list(),
            color=colour,
            marker="^",
            ms=3,
            ls="--",
            label=f"{name}: p90",
        )
    ax.set_xscale("log")
    ax.set_xlabel(axis_label(metric("size_bytes"), "bytes"))
    ax.set_ylabel(axis_label(metric("response_s"), unit))
    ax.set_ylim(bottom=0)
    ax.set_title("web: response time by transfer size", loc="left")


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
        rtt = format_seconds(row["base_rtt_s"])
        if per_flow:
            label = f"{row['label']} ({algorithm}, RTT {rtt}): {format_rate(row['goodput_bps'])}"
            if algorithm.lower() in str(row["label"]).lower():
                label = f"{row['label']} (RTT {rtt}): {format_rate(row['goodput_bps'])}"
        else:
            count = int((flows["spec"] == row["spec"]).sum())
            label = f"flows[{row['spec']}]: {count} × {algorithm}, RTT {rtt}"
        out.append((style.algorithm_colour(algorithm), style.line_style(index), label))
    return out


def capacities(result: Result) -> dict[str, list[tuple[float, float]]]:
    """Each monitored link that carried data: its rate from t = 0 and after each change, as
    (time in s, bit/s) steps. Read from the engine's configuration of the run (the links'
    rates and the changes, in picoseconds: `_engine_config`), or, for a run without one,
    the links table's rate throughout."""
    config = _engine_config(result)
    links: list[Any] = []
    changes: list[Any] = []
    if isinstance(config, dict):
        links = (config.get("topology") or {}).get("links") or []
        changes = config.get("changes") or []
    initial: dict[str, float] = {}
    by_index: dict[int, str] = {}
    for i, link in enumerate(links):
        cfg = link.get("cfg") if isinstance(link, dict) else None
        rate = _number(cfg.get("rate_bps")) if isinstance(cfg, dict) else None
        if rate is not None:
            initial[str(link.get("name"))] = rate
            by_index[i] = str(link.get("name"))
    out: dict[str, list[tuple[float, float]]] = {}
    for link in result.bottlenecks.iter_rows(named=True):
        name = link["name"]
        steps = sorted(
            (at, rate)
            for at, link_index, rate in map(_change, changes)
            if by_index.get(link_index) == name and rate is not None
        )
        if not initial and not steps:
            steps = _scenario_steps(result, name)
        if not steps and not float(link["utilization"] or 0) >= _CARRYING:
            continue  # an ACK path, or a link the flows hardly used
        start = initial.get(name, float(link["rate_bps"]))
        schedule = [(0.0, start)]
        for at, r in steps:
            if at <= 0:
                schedule[0] = (0.0, r)
            elif r != schedule[-1][1]:
                schedule.append((at, r))
        out[name] = schedule
    return out


def _engine_config(result: Result) -> Any:
    """What the engine ran: manifest.json's `engine_config` where it has one (formats 1
    and 2), else the resolve of its scenario when that has [[changes]] (without changes the
    links table's rates are the whole story, and a large topology takes seconds to resolve);
    None when there is nothing to read or the scenario no longer resolves (a program file
    moved away)."""
    if "engine_config" in result.manifest:
        return result.manifest["engine_config"]
    scenario = result.manifest.get("scenario")
    if not isinstance(scenario, dict) or not scenario.get("changes"):
        return None
    try:
        return json.loads(result.scenario.resolved().config())
    except ValueError:  # ScenarioError among them
        return None


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _change(c: Any) -> tuple[float, int, float | None]:
    """(time in s, link index, new rate or None) of an engine change record; (0, -1, None)
    for anything else."""
    if not isinstance(c, dict):
        return 0.0, -1, None
    at, link = _number(c.get("at")), c.get("link")
    if at is None or not isinstance(link, int):
        return 0.0, -1, None
    return at / _PS_PER_S, link, _number(c.get("rate_bps"))


def _scenario_steps(result: Result, name: str) -> list[tuple[float, float]]:
    """A format-1 run directory has no engine record of its changes: read the scenario's."""
    out = []
    for c in result.manifest.get("scenario", {}).get("changes", []) or []:
        if isinstance(c, dict) and c.get("link") == name and c.get("rate") is not None:
            try:
                out.append((parse_seconds(c["at"]), parse_rate(c["rate"])))
            except ValueError:
                continue
    return sorted(out)


def rate_at(schedule: list[tuple[float, float]], t: float) -> float:
    """The rate of a `capacities` schedule at time `t` (s)."""
    rate = schedule[0][1]
    for at, r in schedule:
        if at <= t:
            rate = r
    return rate


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

"""Plots of a run: throughput and congestion window per flow, queuing delay per
monitored link, over time. Drawn with matplotlib's Agg renderer (no display)."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hscc import cclog
from hscc.atomic import write_bytes
from hscc.results import Result, load
from hscc.rundir import PLOTS, RunDirError, read_manifest
from hscc.units import format_rate, format_seconds

_PER_FLOW_LEGEND = 10  # above this many flows, one colour and legend entry per [[flows]] entry


class NoTracesError(ValueError):
    """A run recorded without flow or queue time series has nothing to plot."""


def plot(
    run: Result | str | Path,
    out: str | Path | None = None,
    svg: bool = False,
    overwrite: bool = False,
) -> list[Path]:
    """Draw the run's plot; write PNG (and SVG) to `out` (default RUN_DIR/plot.png). Returns the paths.
    A run with a per-ACK log also gets its plot (`hscc.cclog.figure`) beside it, as OUT_cc_log.png.

    A run directory's own plot is replaced; any other existing file only with `overwrite`."""
    result = run if isinstance(run, Result) else load(run)
    if out is None:
        if isinstance(run, Result):
            raise ValueError(
                "out: a file name is needed when plotting a Result that is not in a run directory"
            )
        out = Path(run) / "plot.png"
    out = Path(out).with_suffix(".png")
    figures = []
    if not (result.cc_log.height and result.timeseries.is_empty() and result.queues.is_empty()):
        figures.append((out, figure(result)))
    if result.cc_log.height:
        figures.append((out.with_name(f"{out.stem}_cc_log.png"), cclog.figure(result)))
    suffixes = (".png", ".svg") if svg else (".png",)
    paths = [(path.with_suffix(s), fig) for path, fig in figures for s in suffixes]
    for path, _ in paths:
        _check_replaceable(path, overwrite)
    for path, fig in paths:
        buf = io.BytesIO()
        fig.savefig(buf, format=path.suffix[1:], dpi=150)
        write_bytes(path, buf.getvalue())
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


def figure(result: Result) -> Figure:
    """The three-panel figure of a run."""
    ts, qs, flows = result.timeseries, result.queues, result.flows
    if ts.is_empty() and qs.is_empty():
        raise NoTracesError(
            'the run has no time series: set [output] sample_interval and traces = ["flows", "queues"]'
        )
    fig = Figure(figsize=(11, 9), layout="constrained")
    FigureCanvasAgg(fig)
    ax_thr, ax_cwnd, ax_q = fig.subplots(3, 1, sharex=True)
    s = result.summary
    how = (
        f"on Linux {result.manifest['kernel_run']['kernel']}"
        if "kernel_run" in result.manifest
        else "simulated"
    )
    title = f"{s.get('name') or 'hscc run'}: {flows.height} flow{'s' if flows.height != 1 else ''}, {s['duration_s']:g} s {how}, seed {s['seed']}"
    jain = s.get("jain_index")
    fig.suptitle(title + (f"; Jain's index {jain:.3f}" if jain is not None else ""), fontsize=13)

    scale, unit = _rate_scale(_peak(ts["throughput_bps"]), result.bottlenecks)
    styles = _styles(flows)
    for row in flows.iter_rows(named=True):
        f = ts.filter(pl.col("flow") == row["flow"])
        color, label = styles[row["flow"]]
        ax_thr.plot(f["time_s"], f["throughput_bps"] / scale, color=color, lw=1.2, label=label)
        ax_cwnd.plot(f["time_s"], f["cwnd"], color=color, lw=1.2)
    capacity, thr_title = 0.0, "goodput per flow, per sampling interval"
    changed = {
        c["link"]
        for c in result.manifest["scenario"].get("changes", [])
        if c.get("rate") is not None
    }
    rates: dict[int, list[str]] = {}
    for link in result.bottlenecks.iter_rows(named=True):
        if (
            link["mean_qdelay_s"] > 0 and link["name"] not in changed
        ):  # carried data at a fixed rate
            rates.setdefault(link["rate_bps"], []).append(link["name"])
    for rate, names in rates.items():
        capacity = max(capacity, rate)
        ax_thr.axhline(
            rate / scale,
            color="0.45",
            ls="--",
            lw=1,
            label=f"capacity {format_rate(rate)} ({', '.join(names)})",
        )
    if capacity and _peak(ts["throughput_bps"]) > 1.3 * capacity:
        # In-order delivery after a loss is repaired comes in bursts above the link rate; keep the scale readable.
        ax_thr.set_ylim(0, 1.3 * capacity / scale)
        thr_title += f" (bursts above {format_rate(1.3 * capacity)} after loss repair are clipped)"
    qs_shown = _queued_links(qs)
    for name in qs_shown:
        q = qs.filter(pl.col("name") == name)
        ax_q.plot(q["time_s"], q["qdelay_s"] * 1e3, lw=1.2, label=name)

    ax_thr.set_ylabel(f"throughput ({unit})")
    ax_thr.set_title(thr_title, fontsize=10, loc="left")
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_cwnd.set_title("congestion window per flow", fontsize=10, loc="left")
    ax_q.set_ylabel("queuing delay (ms)")
    ax_q.set_title(
        "mean queuing delay of packets leaving each monitored link's queue", fontsize=10, loc="left"
    )
    ax_q.set_xlabel("time (s)")
    for ax in (ax_thr, ax_cwnd, ax_q):
        ax.grid(True, color="0.9")
        ax.set_ylim(bottom=0)
        ax.margins(x=0)
    ax_thr.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    if qs_shown:
        ax_q.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    else:
        ax_q.text(
            0.5, 0.5, "no queue traces recorded", transform=ax_q.transAxes, ha="center", color="0.4"
        )
    return fig


def _styles(flows: pl.DataFrame) -> dict[int, tuple[str, str | None]]:
    """(colour, legend label or None) per flow: one per flow, or one per [[flows]] entry when many."""
    colors = [f"C{i % 10}" for i in range(10)]
    out: dict[int, tuple[str, str | None]] = {}
    per_flow = flows.height <= _PER_FLOW_LEGEND
    seen: set[int] = set()
    for row in flows.iter_rows(named=True):
        rtt = format_seconds(row["base_rtt_s"])
        if per_flow:
            out[row["flow"]] = (
                colors[row["flow"] % 10],
                f"{row['label']} · RTT {rtt} · {format_rate(row['goodput_bps'])}",
            )
        else:
            group = row["spec"]
            label = None if group in seen else f"flows[{group}]: {row['algorithm']} · RTT {rtt}"
            seen.add(group)
            out[row["flow"]] = (colors[group % 10], label)
    return out


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


def _rate_scale(peak: float, bottlenecks: pl.DataFrame) -> tuple[float, str]:
    top = max([peak or 0.0] + bottlenecks["rate_bps"].to_list())
    for factor, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if top >= 10 * factor:
            return factor, unit
    return 1.0, "bit/s"

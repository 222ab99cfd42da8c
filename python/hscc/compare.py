"""Two runs side by side (`hscc compare A B`): typically the simulator and the
kernel testbed on the same scenario, but any two run directories.

Flows are matched by their engine index (the same scenario gives the same
order). Every number is computed the same way for both runs from the run
directory's tables, so estimator differences do not pass for differences of
the runs: the queuing delay is the mean over the sampled backlog of the first
monitored link divided by its rate (queues table; the links table's value when
a run has no queue trace), the loss is that link's drops over the packets
offered to it. Ratios are B / A.

A flow's window trajectory is summarised from its sampled cwnd by its window
cuts: a cut is a run of consecutive falling samples that loses at least
CUT_FRACTION of the window it started from (a multiplicative decrease or a
timeout, spread over as many samples as its recovery lasts). The first cut
ends a loss-terminated slow start (HyStart leaves slow start without one, so
it shows as a later first cut); the median time between cuts is the
sawtooth's period.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from hscc import _core
from hscc.results import Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COUNTERS = ("retrans", "recoveries", "timeouts")  # per flow, as the flows table names them


@dataclass(frozen=True)
class Row:
    what: str
    a: float | None
    b: float | None
    metric: str = ""  # its name in hscc.units_table: how its values are shown

    @property
    def ratio(self) -> float | None:
        return self.b / self.a if self.a and self.b is not None else None


CUT_FRACTION = 0.1


@dataclass(frozen=True)
class Comparison:
    flows: list[Row]  # goodput per flow, bit/s
    counters: list[
        Row
    ]  # per flow: retransmitted segments, recoveries, timeouts (None where a run has no count)
    totals: list[Row]  # aggregate goodput, Jain, queuing delay, loss, retransmissions
    windows: list[
        Row
    ]  # per flow: first window cut (time, cwnd before it), cuts, median time between cuts
    unmatched: int  # flows only one run has
    # The program files both runs ran (by path, else by file name): (A's path, A's digest of
    # its code, B's), from the manifests (provenance.programs).
    programs: list[tuple[str, str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "programs": [
                {"program": p, "a": da, "b": db, "same": da == db} for p, da, db in self.programs
            ],
            "flows": [{"flow": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.flows],
            "counters": [
                {"what": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.counters
            ],
            "totals": [{"what": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.totals],
            "windows": [
                {"what": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.windows
            ],
            "unmatched_flows": self.unmatched,
        }


@dataclass(frozen=True)
class Trajectory:
    cuts_s: list[float]  # time of the last sample before each cut (the window's peak)
    peaks: list[int]  # cwnd at those samples (segments)

    @property
    def period_s(self) -> float | None:
        """Median time between successive cuts: the sawtooth's period (the median, so that a
        second cut right after slow start's does not count as a short tooth)."""
        c = self.cuts_s
        return statistics.median(b - a for a, b in pairwise(c)) if len(c) > 1 else None


def trajectory(times: list[float], cwnd: list[int]) -> Trajectory:
    """The window cuts in a sampled cwnd series (see the module's doc)."""
    cuts, peaks, k = [], [], 1
    while k < len(cwnd):
        if cwnd[k] < cwnd[k - 1]:
            start = k - 1
            while k + 1 < len(cwnd) and cwnd[k + 1] < cwnd[k]:
                k += 1
            if cwnd[k] <= (1 - CUT_FRACTION) * cwnd[start]:
                cuts.append(times[start])
                peaks.append(cwnd[start])
        k += 1
    return Trajectory(cuts, peaks)


def trajectories(r: Result) -> dict[int, Trajectory]:
    """Each flow's window trajectory from the run's cwnd samples."""
    ts = r.timeseries.sort("flow", "time_s")
    return {
        int(f): trajectory(g["time_s"].to_list(), g["cwnd"].to_list())
        for (f,), g in ts.group_by("flow", maintain_order=True)
    }


def jain(x: list[float]) -> float | None:
    """Jain's fairness index, (Σx)² / (n Σx²); None without flows or traffic (the engine's)."""
    return _core.jain_index(x)


def queuing_delay(r: Result) -> float | None:
    """Mean sampled backlog / rate of the first monitored link (s)."""
    links = r.bottlenecks
    if links.height == 0:
        return None
    link = links.row(0, named=True)
    q = r.queues.filter(pl.col("link") == link["link"])
    if q.height:
        return float((q["queue_bytes"].cast(pl.Float64) * 8 / link["rate_bps"]).mean())
    mean_qdelay: float = link["mean_qdelay_s"]
    return mean_qdelay


def loss(r: Result, drops: str = "drops") -> float | None:
    """Drops at the first monitored link over the packets offered to it; `drops` names which of the
    links table's drop counters (all of them by default; "drops_random": the random losses alone)."""
    links = r.bottlenecks
    if links.height == 0:
        return None
    link = links.row(0, named=True)
    offered = link["tx_packets"] + link["drops"]
    return link[drops] / offered if offered else 0.0


def retrans(r: Result) -> float:
    """Retransmitted segments over segments sent, all flows."""
    sent = int(r.flows["segs_sent"].sum())
    return int(r.flows["retrans"].sum()) / sent if sent else 0.0


def compare(a: Result, b: Result) -> Comparison:
    ga = dict(
        zip(
            a.flows["flow"].to_list(),
            zip(a.flows["label"].to_list(), a.flows["goodput_bps"].to_list(), strict=True),
            strict=True,
        )
    )
    gb = dict(zip(b.flows["flow"].to_list(), b.flows["goodput_bps"].to_list(), strict=True))
    common = [i for i in ga if i in gb]
    flows = [Row(ga[i][0], ga[i][1], gb[i], "goodput_bps") for i in common]
    xa, xb = [ga[i][1] for i in common], [gb[i] for i in common]
    ca, cb = ({row["flow"]: row for row in r.flows.iter_rows(named=True)} for r in (a, b))
    counters = [
        Row(f"{ga[i][0]}: {name}", ca[i][name], cb[i][name], name)
        for i in common
        for name in COUNTERS
    ]

    totals = [
        Row("goodput, all flows (bit/s)", sum(xa), sum(xb), "total_goodput_bps"),
        Row("Jain's index", jain(xa), jain(xb), "jain_index"),
        Row("queuing delay, mean (s)", queuing_delay(a), queuing_delay(b), "mean_qdelay_s"),
        Row("loss at the bottleneck", loss(a), loss(b), "loss_rate"),
        Row("retransmitted segments / sent", retrans(a), retrans(b), "retrans_ratio"),
    ]
    ta, tb = trajectories(a), trajectories(b)
    empty = Trajectory([], [])
    windows = []
    for i in common:
        x, y, label = ta.get(i, empty), tb.get(i, empty), ga[i][0]
        windows += [
            Row(f"{label}: first window cut (s)", _first(x.cuts_s), _first(y.cuts_s), "time_s"),
            Row(f"{label}: cwnd before the first cut", _first(x.peaks), _first(y.peaks), "cwnd"),
            Row(f"{label}: window cuts", len(x.cuts_s), len(y.cuts_s), "window_cuts"),
            Row(f"{label}: median time between cuts (s)", x.period_s, y.period_s, "time_s"),
        ]
    return Comparison(
        flows, counters, totals, windows, len(ga) + len(gb) - 2 * len(common), programs(a, b)
    )


def programs(a: Result, b: Result) -> list[tuple[str, str, str]]:
    """The program files both runs recorded (manifest `programs`), paired by path, else by
    file name where that is one file on each side: (A's path, A's digest, B's digest)."""
    pa: dict[str, str] = a.manifest.get("programs") or {}
    pb: dict[str, str] = b.manifest.get("programs") or {}
    out = [(p, d, pb[p]) for p, d in pa.items() if p in pb]
    rest_a = {p: d for p, d in pa.items() if p not in pb}
    rest_b = {p: d for p, d in pb.items() if p not in pa}
    for p, d in rest_a.items():
        name = Path(p).name
        same_a = [q for q in rest_a if Path(q).name == name]
        same_b = [q for q in rest_b if Path(q).name == name]
        if len(same_a) == 1 and len(same_b) == 1:
            out.append((p, d, rest_b[same_b[0]]))
    return out


def _first(xs: list[Any]) -> float | None:
    return xs[0] if xs else None


def engine(r: Result) -> str:
    """What ran it: "simulator" or "kernel VERSION"."""
    k = r.manifest.get("kernel_run")
    return f"kernel {k['kernel']}" if k else "simulator"


def names(a: Result, path_a: str | Path, b: Result, path_b: str | Path) -> tuple[str, str]:
    """How to call the two runs in a table or legend: what ran each, and, when that is the same
    (two simulator runs), which directory and seed each is, so that the names differ."""
    na, nb = engine(a), engine(b)
    if na != nb:
        return na, nb
    pa, pb = Path(path_a), Path(path_b)
    da, db = pa.name or str(pa), pb.name or str(pb)
    if da == db:
        da, db = str(pa), str(pb)
    sa, sb = a.summary.get("seed"), b.summary.get("seed")
    if da == db and sa != sb:
        return f"{na}, seed {sa}", f"{nb}, seed {sb}"
    if da == db:
        return f"A: {na}", f"B: {nb}"
    return f"{na} {da}", f"{nb} {db}"


def figure(
    a: Result, b: Result, names: tuple[str, str], size: str | None = None, aggregate: bool = False
) -> Figure:
    """Goodput and cwnd of both runs on the same axes: A solid, B dashed; colour by algorithm
    and shade by flow (with `aggregate`, one line per algorithm: its flows' summed goodput
    and mean cwnd, as `hscc plot --aggregate`); one legend with every line."""
    from hscc import style
    from hscc.plot import per_algorithm
    from hscc.units_table import axis_label, metric, scale

    size = size or style.DEFAULT_SIZE
    top = max(float(r.timeseries["throughput_bps"].max() or 0) for r in (a, b))  # type: ignore[arg-type]
    divisor, unit = scale("rate", [top])
    with style.context(size):
        fig = style.new_figure(size, rows=2)
        ax_thr, ax_cwnd = fig.subplots(2, 1, sharex=True)
        for run, ls, name in ((a, "-", names[0]), (b, "--", names[1])):
            ts = run.timeseries
            if aggregate:
                for colour, label, thr, cwnd, times in per_algorithm(ts, run.flows):
                    label = f"{label} ({name})"
                    ax_thr.plot(times, thr / divisor, ls, color=colour, lw=1.2, label=label)
                    ax_cwnd.plot(times, cwnd, ls, color=colour, lw=1.2, label=label)
                continue
            nth: dict[str, int] = {}
            for row in run.flows.iter_rows(named=True):
                f = ts.filter(pl.col("flow") == row["flow"])
                if f.is_empty():
                    continue
                k = nth[row["algorithm"]] = nth.get(row["algorithm"], -1) + 1
                n = int((run.flows["algorithm"] == row["algorithm"]).sum())
                color = _shade(style.algorithm_colour(row["algorithm"]), k, n)
                label = f"{row['label']} ({name})"
                ax_thr.plot(
                    f["time_s"], f["throughput_bps"] / divisor, ls, color=color, lw=1.1, label=label
                )
                ax_cwnd.plot(f["time_s"], f["cwnd"], ls, color=color, lw=1.1, label=label)
        # Two lines each: the panels of a 16:9 slide are short.
        ax_thr.set_ylabel(axis_label(metric("goodput_bps"), unit).replace(" (", "\n("))
        ax_cwnd.set_ylabel(axis_label(metric("cwnd"), "segments").replace(" (", "\n("))
        ax_cwnd.set_xlabel(axis_label(metric("time_s"), "s"))
        for ax in (ax_thr, ax_cwnd):
            ax.set_ylim(bottom=0)
        cut = style.robust_top(ax_thr)
        if cut is not None:  # a slow-start spike or a burst after a repair: keep the rest in view
            ax_thr.set_ylim(0, cut)
            ax_thr.set_title(f"peaks above {cut:.3g} {unit} cut", loc="right", fontsize="small")
        seen: dict[str, Any] = {}
        for ax in (ax_thr, ax_cwnd):
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(label, handle)
        style.figure_legend(fig, list(seen.values()), list(seen), max_cols=4)
        fig.suptitle(f"{names[0]} (solid) and {names[1]} (dashed)", wrap=True)
        fig.align_ylabels()
    return fig


def _shade(colour: str, k: int, n: int) -> tuple[float, float, float]:
    """`colour` for the k-th of n flows of one algorithm: the first as is, the last darkest
    (at 40 %), the others evenly between."""
    from matplotlib.colors import to_rgb

    f = 1.0 - 0.6 * k / (n - 1) if n > 1 else 1.0
    r, g, b = to_rgb(colour)
    return (r * f, g * f, b * f)


def plot(
    a: Result,
    b: Result,
    names: tuple[str, str],
    out: Path,
    size: str | None = None,
    aggregate: bool = False,
) -> None:
    """Write the figure to `out` (PNG, PDF or SVG by its suffix), atomically."""
    from hscc import style
    from hscc.atomic import write_bytes

    fig = figure(a, b, names, size, aggregate)
    write_bytes(out, style.render(fig, style.file_format(out)))

"""Two runs side by side (`hscc compare A B`): typically the simulator and the
kernel testbed on the same scenario, but any two run directories.

Flows are matched by their engine index (the same scenario gives the same
order). Every number is computed the same way for both runs from the run
directory's tables, so estimator differences do not pass for differences of
the runs: the queuing delay is the mean over the sampled backlog of the first
monitored link divided by its rate (queues table; the links table's value when
a run has no queue trace), the loss is that link's drops over the packets
offered to it. Ratios are B / A.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from hscc.results import Result

COUNTERS = ("retrans", "recoveries", "timeouts")  # per flow, as the flows table names them


@dataclass(frozen=True)
class Row:
    what: str
    a: float | None
    b: float | None

    @property
    def ratio(self) -> float | None:
        return self.b / self.a if self.a and self.b is not None else None


@dataclass(frozen=True)
class Comparison:
    flows: list[Row]  # goodput per flow, bit/s
    counters: list[Row]  # per flow: retransmitted segments, recoveries, timeouts (None where a run has no count)
    totals: list[Row]  # aggregate goodput, Jain, queuing delay, loss, retransmissions
    unmatched: int  # flows only one run has

    def to_dict(self) -> dict:
        return {
            "flows": [{"flow": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.flows],
            "counters": [{"what": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.counters],
            "totals": [{"what": r.what, "a": r.a, "b": r.b, "ratio": r.ratio} for r in self.totals],
            "unmatched_flows": self.unmatched,
        }


def jain(x: list[float]) -> float | None:
    """Jain's fairness index, (Σx)² / (n Σx²); None without flows or traffic."""
    sq = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * sq) if x and sq > 0 else None


def queuing_delay(r: Result) -> float | None:
    """Mean sampled backlog / rate of the first monitored link (s)."""
    links = r.bottlenecks
    if links.height == 0:
        return None
    link = links.row(0, named=True)
    q = r.queues.filter(pl.col("link") == link["link"])
    if q.height:
        return float((q["queue_bytes"].cast(pl.Float64) * 8 / link["rate_bps"]).mean())
    return link["mean_qdelay_s"]


def loss(r: Result) -> float | None:
    """Drops at the first monitored link over the packets offered to it."""
    links = r.bottlenecks
    if links.height == 0:
        return None
    link = links.row(0, named=True)
    offered = link["tx_packets"] + link["drops"]
    return link["drops"] / offered if offered else 0.0


def compare(a: Result, b: Result) -> Comparison:
    ga = dict(zip(a.flows["flow"].to_list(), zip(a.flows["label"].to_list(), a.flows["goodput_bps"].to_list())))
    gb = dict(zip(b.flows["flow"].to_list(), b.flows["goodput_bps"].to_list()))
    common = [i for i in ga if i in gb]
    flows = [Row(ga[i][0], ga[i][1], gb[i]) for i in common]
    xa, xb = [ga[i][1] for i in common], [gb[i] for i in common]
    ca, cb = ({row["flow"]: row for row in r.flows.iter_rows(named=True)} for r in (a, b))
    counters = [Row(f"{name} {ga[i][0]}", ca[i][name], cb[i][name]) for i in common for name in COUNTERS]

    def retrans(r: Result) -> float:
        sent = r.flows["segs_sent"].sum()
        return r.flows["retrans"].sum() / sent if sent else 0.0

    totals = [
        Row("goodput, all flows (bit/s)", sum(xa), sum(xb)),
        Row("Jain's index", jain(xa), jain(xb)),
        Row("queuing delay, mean (s)", queuing_delay(a), queuing_delay(b)),
        Row("loss at the bottleneck", loss(a), loss(b)),
        Row("retransmitted segments / sent", retrans(a), retrans(b)),
    ]
    return Comparison(flows, counters, totals, len(ga) + len(gb) - 2 * len(common))


def figure(a: Result, b: Result, names: tuple[str, str]):
    """Throughput and cwnd of both runs on the same axes: A solid, B dashed, one colour per flow."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 7), layout="constrained")
    FigureCanvasAgg(fig)
    ax_thr, ax_cwnd = fig.subplots(2, 1, sharex=True)
    colors = [f"C{i % 10}" for i in range(max(a.flows.height, b.flows.height, 1))]
    for run, style, name in ((a, "-", names[0]), (b, "--", names[1])):
        ts = run.timeseries
        for row in run.flows.iter_rows(named=True):
            f = ts.filter(pl.col("flow") == row["flow"])
            color = colors[row["flow"] % len(colors)]
            ax_thr.plot(f["time_s"], f["throughput_bps"] / 1e6, style, color=color, lw=1.1, label=f"{row['label']} ({name})")
            ax_cwnd.plot(f["time_s"], f["cwnd"], style, color=color, lw=1.1)
    ax_thr.set_ylabel("goodput (Mbit/s)")
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_cwnd.set_xlabel("time (s)")
    ax_thr.legend(fontsize=8, ncol=2)
    fig.suptitle(f"{names[0]} (solid) and {names[1]} (dashed)")
    return fig


def plot(a: Result, b: Result, names: tuple[str, str], out: Path) -> None:
    """Write the figure to `out` (PNG or SVG by its suffix), atomically."""
    from hscc.atomic import write_bytes

    buf = io.BytesIO()
    figure(a, b, names).savefig(buf, format=out.suffix[1:] or "png", dpi=130)
    write_bytes(out, buf.getvalue())

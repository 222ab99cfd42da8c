"""The per-ACK congestion-control log (``[output] cc_log``): every hook call of
the chosen flows' algorithms as one table, ``Result.cc_log`` and
``cc_log.parquet``, and its plot. Columns (docs/traces.md):

flow, label; time_s (the sender's clock at the call, µs resolution); hook
("init", "ssthresh", "cong_avoid", "set_state", "cwnd_event", "in_ack_event",
"pkts_acked", "undo_cwnd", "cong_control", "skb_marked_lost", or "sender": the
sender's own change of the window outside any hook);

the hook's inputs, null where the hook has none: ack (cong_avoid's sequence
number, bytes), flags (in_ack_event), acked (segments: pkts_acked's
cumulatively acknowledged, cong_avoid's acked, cong_control's acked_sacked),
rtt_us (-1: no sample), in_flight (pkts_acked: Linux's bytes delivered since
the newest segment the ACK delivers was sent, 0 unless the algorithm reads it;
cong_control: segments in flight before the ACK), losses,
rs_delivered, rs_interval_us, rs_app_limited (cong_control's rate sample),
rs_tx_in_flight, rs_lost (cong_control: the flight when the sample's segment was
sent, and the segments marked lost since; skb_marked_lost: the same for the lost
segment, whose rs_app_limited is its own),
new_state (set_state), event (cwnd_event);

the sender state the hook saw (Linux's ``struct tcp_sock`` fields, segments
unless said): snd_cwnd, snd_ssthresh (2147483647 = infinite), snd_cwnd_cnt,
snd_cwnd_clamp, prior_cwnd, mss_cache (bytes), srtt_us (µs, unshifted),
min_rtt_us, snd_una, snd_nxt (bytes, wrapping), packets_out, sacked_out,
lost_out, retrans_out, delivered, lost, max_packets_out, is_cwnd_limited,
app_limited, ca_state, pacing_rate (bytes/s);

what the call left: cwnd_after, ssthresh_after, cwnd_cnt_after,
pacing_rate_after, ret (ssthresh's and undo_cwnd's return value, cong_control
1 if it handled the ACK; null for the other hooks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from hscc import _core

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from hscc.results import Result

INFINITE_SSTHRESH = 0x7FFF_FFFF
_HOOKS, _STATES, _EVENTS = (pl.Enum(names) for names in _core.cc_log_names())
_CODES = {"hook": _HOOKS, "new_state": _STATES, "ca_state": _STATES, "event": _EVENTS}
_BOOLS = ("rs_app_limited", "is_cwnd_limited", "app_limited")
# Which hooks have each input (null for the others).
_INPUTS = {
    "ack": ("cong_avoid",),
    "flags": ("in_ack_event",),
    "acked": ("pkts_acked", "cong_avoid", "cong_control"),
    "rtt_us": ("pkts_acked", "cong_control"),
    "in_flight": ("pkts_acked", "cong_control"),
    "losses": ("cong_control",),
    "rs_delivered": ("cong_control",),
    "rs_interval_us": ("cong_control",),
    "rs_app_limited": ("cong_control", "skb_marked_lost"),
    "rs_tx_in_flight": ("cong_control", "skb_marked_lost"),
    "rs_lost": ("cong_control", "skb_marked_lost"),
    "new_state": ("set_state",),
    "event": ("cwnd_event",),
    "ret": ("ssthresh", "undo_cwnd", "cong_control"),
}


def frame(columns: list[tuple[str, str, bytes]] | None, labels: list[str]) -> pl.DataFrame:
    """The log as a DataFrame, from the engine's columns (`Simulation.take_cc_log`);
    `labels` are the flows' labels by engine index. Empty without a log."""
    if columns is None:
        return empty()
    import numpy as np  # here, not at import: numpy starts BLAS threads in every process that imports hscc (sweep workers)

    raw = {
        name: pl.Series(name, np.frombuffer(data, dtype=np.dtype(dtype)))
        for name, dtype, data in columns
    }
    out = {}
    for name, s in raw.items():
        if name in _CODES:
            s = (
                pl.Series(name, _CODES[name].categories)
                .gather(s.cast(pl.UInt32))
                .cast(_CODES[name])
            )
        elif name in _BOOLS:
            s = s.cast(pl.Boolean)
        out[name] = s
    df = pl.DataFrame(out)
    hook = pl.col("hook").cast(pl.String)
    df = df.with_columns(
        pl.Series("label", labels, pl.String).gather(df["flow"]),
        (pl.col("time_us").cast(pl.Float64) * 1e-6).alias("time_s"),
        *(
            pl.when(hook.is_in(hooks)).then(pl.col(c)).otherwise(None).alias(c)
            for c, hooks in _INPUTS.items()
        ),
    )
    first = ["flow", "label", "time_s", "hook"]
    return df.select(first + [c for c in df.columns if c not in first and c != "time_us"])


def empty() -> pl.DataFrame:
    """A log with no rows (a run that logged nothing)."""
    return pl.DataFrame()


def recoveries(log: pl.DataFrame) -> pl.DataFrame:
    """Periods in Recovery or Loss (and CWR) of each flow: flow, state, start_s, end_s
    (from the set_state calls; a period still open ends at the flow's last call)."""
    rows = []
    for (flow,), f in log.group_by("flow", maintain_order=True):
        changes = f.filter(pl.col("hook") == "set_state").select("time_s", "new_state").rows()
        last = f["time_s"].max()
        for (t, state), nxt in zip(changes, [c[0] for c in changes[1:]] + [last], strict=True):
            if state in ("recovery", "loss", "cwr"):
                rows.append({"flow": flow, "state": state, "start_s": t, "end_s": nxt})
    return pl.DataFrame(
        rows,
        schema={"flow": pl.UInt32, "state": pl.String, "start_s": pl.Float64, "end_s": pl.Float64},
    )


_SHADE = {"recovery": ("C3", 0.15), "loss": ("C3", 0.35), "cwr": ("C1", 0.15)}


def figure(result: Result, size: str | None = None) -> Figure:
    """cwnd and ssthresh after every call of each logged flow, one panel per
    flow, its recovery (light red), timeout (dark red) and CWR (orange) periods shaded.
    `size`: column, wide or slide (`hscc.style`; default its default)."""
    from matplotlib.patches import Patch

    from hscc import style
    from hscc.units_table import Metric, axis_label, metric

    size = size or style.DEFAULT_SIZE
    log = result.cc_log
    flows = log["flow"].unique(maintain_order=True).to_list()
    with style.context(size):
        fig = style.new_figure(size, rows=len(flows))
        axes = fig.subplots(len(flows), 1, sharex=True, squeeze=False)[:, 0]
        fig.suptitle(
            f"{result.summary.get('name') or 'hscc run'}: congestion window after every hook call"
        )
        periods = recoveries(log)
        for ax, flow in zip(axes, flows, strict=True):
            f = log.filter(pl.col("flow") == flow)
            for start, end, state in (
                periods.filter(pl.col("flow") == flow).select("start_s", "end_s", "state").rows()
            ):
                color, alpha = _SHADE[state]
                ax.axvspan(start, end, color=color, alpha=alpha, lw=0)
            ax.step(f["time_s"], f["cwnd_after"], where="post", color="C0", lw=1, label="cwnd")
            ssthresh = f.select(
                pl.when(pl.col("ssthresh_after") < INFINITE_SSTHRESH).then(pl.col("ssthresh_after"))
            ).to_series()
            ax.step(f["time_s"], ssthresh, where="post", color="C2", lw=1, label="ssthresh")
            ax.set_title(f"{f['label'][0]}: {f.height} calls", loc="left")
            ax.set_ylabel(axis_label(Metric("window", "window", "", "segments"), "segments"))
            ax.set_ylim(bottom=0)
            ax.margins(x=0)
        handles = axes[0].get_legend_handles_labels()[0] + [
            Patch(color=c, alpha=a, label=s) for s, (c, a) in _SHADE.items()
        ]
        style.figure_legend(fig, handles, [str(h.get_label()) for h in handles], max_cols=5)
        axes[-1].set_xlabel(axis_label(metric("time_s"), "s"))
    return fig

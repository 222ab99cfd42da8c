"""One run's numbers as `hscc compare` computes them, and the first flow's cwnd trajectory:
what validate.py spreads over seeds and repetitions."""

from __future__ import annotations

import polars as pl

from hscc import compare

# The steady state the models describe starts after the slow-start overshoot and its recovery
# (over by 2 s in every random-loss configuration: their trajectories' exit times).
STEADY_FROM_S = 5.0


def by_algorithm(r) -> dict[str, float]:
    """Summed goodput per algorithm (bit/s)."""
    out: dict[str, float] = {}
    for row in r.flows.iter_rows(named=True):
        out[row["algorithm"]] = out.get(row["algorithm"], 0.0) + row["goodput_bps"]
    return out


def trajectory(times: list[float], cwnd: list[int]) -> dict:
    """A flow's cwnd trajectory from its samples, as `hscc compare` reads it (`compare.trajectory`: a cut
    is a run of falling samples losing at least 10 % of the window): the slow-start exit (the peak
    before the first cut: when, how large), the number of cuts and the median time between them."""
    t = compare.trajectory(times, cwnd)
    return {
        "exit_s": t.cuts_s[0] if t.cuts_s else None,
        "exit_cwnd": t.peaks[0] if t.peaks else None,
        "reductions": len(t.cuts_s),
        "period_s": t.period_s,
    }


def steady(f: dict, first: pl.DataFrame) -> dict | None:
    """The first flow after STEADY_FROM_S: delivered segments per second and the mean sampled
    sRTT, from its samples (None for a run too short to have ten samples there)."""
    after = first.filter(pl.col("time_s") > STEADY_FROM_S + 1e-9)
    if after.height < 10 or not f["delivered_segs"]:
        return None
    segment = f["delivered_bytes"] / f["delivered_segs"]
    return {
        "from_s": STEADY_FROM_S,
        "delivered_rate": after["throughput_bps"].mean() / 8 / segment,
        "mean_srtt_s": after["srtt_s"].mean(),
    }


def summary(r) -> dict:
    """One run's numbers, computed as `hscc compare` computes them (for the spread over seeds or
    repetitions), and the first flow's cwnd trajectory."""
    goodputs = r.flows["goodput_bps"].to_list()
    f = r.flows.row(0, named=True)
    first = r.timeseries.filter(pl.col("flow") == f["flow"]).sort("time_s")
    return {
        "goodput": sum(goodputs),
        "flows": goodputs,
        "algorithms": by_algorithm(r),
        "jain": compare.jain(goodputs),
        "loss": compare.loss(r),
        "retrans": compare.retrans(r),
        "send_rate": f["segs_sent"] / (f["end_s"] - f["start_s"]),
        "mean_srtt_s": f["mean_srtt_s"],
        # the loss rate the models take: the random drops, not a slow start's overflow (tens of drops in one loss event)
        "random_loss": compare.loss(r, "drops_random"),
        "steady": steady(f, first),
        "trajectory": trajectory(first["time_s"].to_list(), first["cwnd"].to_list()),
    }

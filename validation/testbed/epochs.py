"""A single flow's loss epochs in the kernel and in the simulator, from a
`validate.py --out DIR` run of a one-flow configuration: what docs/validation/kernel.md
reports for TCP-FIT's first epoch and for TCP-Africa and CTCP at 0.25 BDP.

    .venv/bin/python validation/testbed/epochs.py DIR NAME [--host-jitter 0.1ms,0.5ms --seeds 3]

For each side (the simulation, run again with its per-ACK log; each kernel run
in DIR/kernel/NAME-K): the loss recoveries (the simulator's `set_state` to
recovery; the kernel's samples entering `recovery` or `loss`), the window after
each reduction (ssthresh), the cuts the trajectory counts (`compare.trajectory`),
and for the second epoch (the end of the second recovery to the third) the window's growth and
sRTT above the minimum with the bottleneck's queue empty (at most 2 packets)
and not. The simulator's samples of the state: per-ACK; the kernel's: one per
sample interval, so a recovery that ends into the next within one interval
shows as one.
`--host-jitter`: the simulation again with each of these `host_jitter`s
(seeds 1..--seeds): recoveries, the median period of the cuts, goodput, and
the second epoch's sRTT above the minimum with the queue empty.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

import hscc
from hscc import compare

sys.path.insert(0, str(Path(__file__).resolve().parent))
import testbed_configs  # noqa: E402  (this directory's)

EMPTY_QUEUE_PKTS = 2


def simulated(
    name: str, seconds: float, host_jitter: str | None = None, seed: int = 1
) -> hscc.Result:
    """The configuration's simulation with the per-ACK log of its flow."""
    sc = testbed_configs.scenario(name, seconds, "sim", seed=seed, host_jitter=host_jitter)
    sc["output"]["cc_log"] = {"flows": [sc["flows"][0]["label"]]}
    return hscc.run(sc)


def recoveries(r: hscc.Result) -> tuple[list[float], list[tuple[float, int]]]:
    """(when each recovery starts, [(when, ssthresh)] at each reduction)."""
    if r.cc_log.height:
        log = r.cc_log
        starts = log.filter(
            (pl.col("hook") == "set_state")
            & pl.col("new_state").cast(pl.String).is_in(["recovery", "loss"])
        )
        cuts = log.filter(pl.col("hook") == "ssthresh")
        return starts["time_s"].to_list(), list(
            zip(cuts["time_s"].to_list(), cuts["ret"].to_list(), strict=True)
        )
    ts = r.timeseries.sort("time_s")
    t, state, ssthresh = ts["time_s"].to_list(), ts["ca_state"].to_list(), ts["ssthresh"].to_list()
    starts = [
        t[i]
        for i in range(1, len(t))
        if state[i] in ("recovery", "loss") and state[i - 1] not in ("recovery", "loss")
    ]
    cuts = [(t[i], ssthresh[i]) for i in range(1, len(t)) if ssthresh[i] != ssthresh[i - 1]]
    return starts, cuts


def opened(r: hscc.Result, after: float) -> float:
    """When the flow is next open (out of recovery) after `after` (s)."""
    if r.cc_log.height:
        log = r.cc_log.filter(
            (pl.col("hook") == "set_state")
            & (pl.col("new_state").cast(pl.String) == "open")
            & (pl.col("time_s") > after)
        )
    else:
        log = r.timeseries.filter((pl.col("ca_state") == "open") & (pl.col("time_s") > after))
    return log["time_s"].min() if log.height else after


def epoch(r: hscc.Result, t0: float, t1: float) -> dict:
    """Growth (segments/s) and sRTT above the run's minimum RTT (ms; 10th percentile and median)
    from t0 to t1, with the forward queue empty and not."""
    lowest = r.flows["min_rtt_s"][0]
    ts = r.timeseries.sort("time_s").with_columns(
        pl.col("cwnd").cast(pl.Int64).diff().alias("grew"),
        ((pl.col("srtt_s") - lowest) * 1e3).alias("above_ms"),
    )
    dt = ts["time_s"][1] - ts["time_s"][0]
    q = r.queues.filter(pl.col("link") == 0).select("time_s", "queue_pkts")
    j = ts.filter((pl.col("time_s") > t0) & (pl.col("time_s") < t1)).join(q, on="time_s")
    out = {}
    for label, part in (
        ("empty", j.filter(pl.col("queue_pkts") <= EMPTY_QUEUE_PKTS)),
        ("queued", j.filter(pl.col("queue_pkts") > EMPTY_QUEUE_PKTS)),
    ):
        if part.height:
            out[label] = {
                "samples": part.height,
                "growth_per_s": part["grew"].sum() / (part.height * dt),
                "above_min_ms_p10": part["above_ms"].quantile(0.1),
                "above_min_ms_median": part["above_ms"].median(),
            }
    return out


def describe(side: str, r: hscc.Result) -> None:
    starts, cuts = recoveries(r)
    ts = r.timeseries.sort("time_s")
    t = compare.trajectory(ts["time_s"].to_list(), ts["cwnd"].to_list())
    f = r.flows.row(0, named=True)
    print(f"{side}: recoveries {f['recoveries']}, goodput {f['goodput_bps'] / 1e6:.1f} Mbit/s")
    print(f"  recoveries start (s): {[round(x, 2) for x in starts]}")
    print(f"  reductions (s, ssthresh): {[(round(a, 2), b) for a, b in cuts]}")
    print(f"  cuts the trajectory counts: {len(t.cuts_s)} at {[round(x, 2) for x in t.cuts_s]}")
    if len(starts) >= 3:
        for label, e in epoch(r, opened(r, starts[1]), starts[2]).items():
            print(
                f"  second epoch, queue {label}: {e['samples']} samples, growth {e['growth_per_s']:.1f} segments/s, "
                f"sRTT above the minimum {e['above_min_ms_p10']:.3f} (10th percentile) / {e['above_min_ms_median']:.3f} ms (median)"
            )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, help="a validate.py --out directory")
    ap.add_argument("name", choices=sorted(testbed_configs.CONFIGS))
    ap.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="the simulation's length (as validate.py ran it)",
    )
    ap.add_argument(
        "--host-jitter", default="", help="comma-separated host_jitter values for sensitivity runs"
    )
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    if (
        len(testbed_configs.CONFIGS[args.name].flows) != 1
        or testbed_configs.CONFIGS[args.name].flows[0][1] != 1
    ):
        raise SystemExit(f"{args.name}: one flow only")
    describe("simulator", simulated(args.name, args.seconds))
    kernel = sorted((args.out / "kernel").glob(f"{args.name}-[0-9]*"))
    if not kernel:
        print(f"no kernel runs of {args.name} under {args.out / 'kernel'}", file=sys.stderr)
    for d in kernel:
        describe(f"kernel {d.name}", hscc.load(d))
    for jitter in filter(None, args.host_jitter.split(",")):
        for seed in range(1, args.seeds + 1):
            r = simulated(args.name, args.seconds, jitter, seed)
            t = compare.trajectory(r.timeseries["time_s"].to_list(), r.timeseries["cwnd"].to_list())
            f = r.flows.row(0, named=True)
            starts, _ = recoveries(r)
            empty = (
                epoch(r, opened(r, starts[1]), starts[2]).get("empty") if len(starts) >= 3 else None
            )
            noise = (
                f", sRTT above the minimum with the queue empty {empty['above_min_ms_p10']:.3f} / "
                f"{empty['above_min_ms_median']:.3f} ms"
                if empty
                else ""
            )
            print(
                f"host_jitter {jitter}, seed {seed}: recoveries {f['recoveries']}, period {t.period_s:.2f} s, "
                f"goodput {f['goodput_bps'] / 1e6:.1f} Mbit/s{noise}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

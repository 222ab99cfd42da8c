"""Simulator against kernel: each configuration run by `hscc run` and by
`hscc testbed run` from the same scenario, compared with `hscc compare`.

    sudo .venv/bin/python validation/testbed/validate.py --out runs/testbed-validation [--only NAME] [--seconds 30] [--repeat 2] [--sim-seeds 10]

Writes under --out: NAME.sim.toml and NAME.kernel.toml (the same but for a
variant's change, see Config), sim/NAME/ (and sim/NAME-seedS/ for --sim-seeds),
kernel/NAME-K/ (run directories), table.md (every table of the run) and
results.json. It also puts each configuration it compared with the kernel, with
today's date, into validation/results/kernel.json (--results PATH elsewhere,
--no-results not at all), replacing that configuration's entry and keeping the
others; `python validation/results/render.py --write` then updates
docs/validation/kernel.md. Runs without the kernel (--repeat 0) or with a
changed host jitter (--sim-host-jitter) are not validations and write nothing there. The kernel runs one at a time (they are real time and
share the machine); each row says the machine's load average as the kernel run
started and the delay line's worst stall (FLAGGED beyond the testbed's bound).
A second table gives the spread: the simulator over seeds 1..N (the seed
draws its host jitter) next to the kernel over its repetitions. Nothing is
tuned to match: both sides run the scenario as written, except the variants
named in Config, which match the two sides' configurations in a stated way.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from hscc import compare, load, runner
from hscc import testbed as tb
from hscc.scenario import Scenario

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "results"))
import results as results_file  # noqa: E402


@dataclass(frozen=True)
class Config:
    flows: tuple[tuple[str, int], ...]  # (algorithm, count), in engine order
    rate: int  # Mbit/s
    rtt: int  # ms
    buffer: str
    loss: float = 0.0
    # "": both sides run the scenario as written (the kernel's built-in reno/cubic);
    # "sim-hystart": the simulator's cubic with hystart = true, as Linux's built-in cubic runs (the kernel side unchanged);
    # "bpf": the kernel runs hscc's eBPF programs (hscc_reno, hscc_cubic, ... with the scenario's parameters)
    # instead of the built-in reno and cubic (other algorithms always run as their program).
    variant: str = ""
    seconds: float | None = (
        None  # this configuration's length, whatever --seconds says (per-flow shares need long runs)
    )
    interval: str = (
        "100ms"  # the sample interval ("10ms" for a cwnd trajectory: slow start doubles every RTT)
    )
    rtts: tuple[
        int, ...
    ] = ()  # one dumbbell pair per RTT (ms), the i-th (algorithm, count) on pair i; () : one pair of `rtt`
    sim_rto: str = ""  # the simulator's flows' rto_estimator ("linux": Linux's, as the kernel side runs); "": the default
    sim_quick_acks: int = 0  # the simulator's flows' quick_acks: segments its receiver ACKs one by one, as the kernel's did
    lift_limits: bool = False  # beyond the testbed's default limits: run with them lifted to this configuration (flagged here)
    random_ts_offset: bool = (
        True  # False: timestamps without per-connection offsets on both sides (tcp_timestamps = 2)
    )


CONFIGS = {
    "reno-1-100M-40ms": Config((("reno", 1),), 100, 40, "1bdp"),
    "cubic-1-100M-40ms": Config((("cubic", 1),), 100, 40, "1bdp"),
    "cubic-1-100M-40ms-sim-hystart": Config(
        (("cubic", 1),), 100, 40, "1bdp", variant="sim-hystart"
    ),
    "cubic-1-100M-40ms-bpf": Config((("cubic", 1),), 100, 40, "1bdp", variant="bpf"),
    "reno-1-100M-40ms-0.25bdp": Config((("reno", 1),), 100, 40, "0.25bdp"),
    "cubic-1-100M-40ms-0.25bdp": Config((("cubic", 1),), 100, 40, "0.25bdp"),
    "reno-4-100M-40ms": Config((("reno", 4),), 100, 40, "1bdp"),
    "reno-4-100M-40ms-120s": Config((("reno", 4),), 100, 40, "1bdp", seconds=120),
    "cubic-4-100M-40ms": Config((("cubic", 4),), 100, 40, "1bdp"),
    "reno2-cubic2-100M-40ms": Config((("reno", 2), ("cubic", 2)), 100, 40, "1bdp"),
    "reno2-cubic2-100M-40ms-sim-hystart": Config(
        (("reno", 2), ("cubic", 2)), 100, 40, "1bdp", variant="sim-hystart"
    ),
    "reno-1-200M-80ms": Config((("reno", 1),), 200, 80, "1bdp"),
    "cubic-1-200M-80ms": Config((("cubic", 1),), 200, 80, "1bdp"),
    "reno-1-50M-20ms-loss1e-3": Config((("reno", 1),), 50, 20, "1bdp", 1e-3),
    "cubic-1-50M-20ms-loss1e-3": Config((("cubic", 1),), 50, 20, "1bdp", 1e-3),
    # The validated ranges: 10 Mbit/s, the testbed's limit (300 Mbit/s x 80 ms), 100 ms, random loss 1e-4 and 1e-2, three RTTs.
    "reno-1-10M-100ms": Config((("reno", 1),), 10, 100, "1bdp"),
    "cubic-1-10M-100ms": Config((("cubic", 1),), 10, 100, "1bdp"),
    "reno-4-10M-100ms": Config((("reno", 4),), 10, 100, "1bdp"),
    "reno-1-300M-80ms": Config((("reno", 1),), 300, 80, "1bdp"),
    "cubic-1-300M-80ms": Config((("cubic", 1),), 300, 80, "1bdp"),
    "reno-1-50M-20ms-loss1e-4": Config((("reno", 1),), 50, 20, "1bdp", 1e-4),
    "cubic-1-50M-20ms-loss1e-4": Config((("cubic", 1),), 50, 20, "1bdp", 1e-4),
    "reno-1-50M-20ms-loss1e-2": Config((("reno", 1),), 50, 20, "1bdp", 1e-2),
    "cubic-1-50M-20ms-loss1e-2": Config((("cubic", 1),), 50, 20, "1bdp", 1e-2),
    "cubic-1-10M-100ms-bpf": Config((("cubic", 1),), 10, 100, "1bdp", variant="bpf"),
    "cubic-1-10M-100ms-sim-hystart": Config(
        (("cubic", 1),), 10, 100, "1bdp", variant="sim-hystart"
    ),
    "cubic-1-300M-80ms-bpf": Config((("cubic", 1),), 300, 80, "1bdp", variant="bpf"),
    "cubic-1-300M-80ms-sim-hystart": Config(
        (("cubic", 1),), 300, 80, "1bdp", variant="sim-hystart"
    ),
    # The top of the validated range, 500 Mbit/s x 100 ms (the delay line with a thread per direction).
    "reno-1-500M-100ms": Config((("reno", 1),), 500, 100, "1bdp", lift_limits=True),
    "reno-4-500M-100ms": Config((("reno", 4),), 500, 100, "1bdp", lift_limits=True),
    "cubic-1-500M-100ms-bpf": Config(
        (("cubic", 1),), 500, 100, "1bdp", variant="bpf", lift_limits=True
    ),
    "cubic-1-500M-100ms-sim-hystart": Config(
        (("cubic", 1),), 500, 100, "1bdp", variant="sim-hystart", lift_limits=True
    ),
    "reno3-100M-20-60-120ms": Config(
        (("reno", 1), ("reno", 1), ("reno", 1)), 100, 120, "1bdp", seconds=60, rtts=(20, 60, 120)
    ),
}
# The eBPF issue's seed algorithms (and, more briefly, other programs of bpf/) as their struct_ops programs,
# reno as hscc_reno: alone with a BDP and a quarter-BDP buffer and with random loss 1e-3, and sharing with
# one Reno flow at both buffers.
SEEDS = ("ctcp", "africa", "fit", "sync")
OTHERS = (
    "highspeed",
    "scalable",
    "vegas",
    "illinois",
    "multcp",
    "bic",
    "htcp",
    "veno",
    "westwood",
    "fast",
    "ctcp-la",
    "lp",
)
for _a in SEEDS + OTHERS:
    CONFIGS[f"{_a}-1-100M-40ms"] = Config(((_a, 1),), 100, 40, "1bdp", variant="bpf")
    CONFIGS[f"{_a}1-reno1-100M-40ms"] = Config(
        ((_a, 1), ("reno", 1)), 100, 40, "1bdp", variant="bpf"
    )
# One flow sampled every 10 ms, for its cwnd trajectory (slow-start exit, sawtooth), reno and cubic as hscc's programs.
for _a in ("reno", "cubic") + SEEDS:
    CONFIGS[f"{_a}-1-100M-40ms-trajectory"] = Config(
        ((_a, 1),), 100, 40, "1bdp", variant="bpf", interval="10ms"
    )
    CONFIGS[f"{_a}-1-100M-40ms-0.25bdp-trajectory"] = Config(
        ((_a, 1),), 100, 40, "0.25bdp", variant="bpf", interval="10ms"
    )
for _a in SEEDS:
    CONFIGS[f"{_a}1-reno1-100M-40ms-120s"] = Config(
        ((_a, 1), ("reno", 1)), 100, 40, "1bdp", variant="bpf", seconds=120
    )
    CONFIGS[f"{_a}-1-100M-40ms-0.25bdp"] = Config(((_a, 1),), 100, 40, "0.25bdp", variant="bpf")
    CONFIGS[f"{_a}-1-50M-20ms-loss1e-3"] = Config(((_a, 1),), 50, 20, "1bdp", 1e-3, variant="bpf")
    CONFIGS[f"{_a}1-reno1-100M-40ms-0.25bdp"] = Config(
        ((_a, 1), ("reno", 1)), 100, 40, "0.25bdp", variant="bpf"
    )
# Trajectories with random loss (the same packets dropped on both sides: the loss follows the seed) and with sharing
# (the first flow's, Reno against CUBIC).
for _a in ("reno", "cubic"):
    CONFIGS[f"{_a}-1-50M-20ms-loss1e-3-trajectory"] = Config(
        ((_a, 1),), 50, 20, "1bdp", 1e-3, variant="bpf", interval="10ms"
    )
CONFIGS["reno1-cubic1-100M-40ms-trajectory"] = Config(
    (("reno", 1), ("cubic", 1)), 100, 40, "1bdp", variant="bpf", interval="10ms"
)
# 10 Mbit/s x 100 ms (and CUBIC at 500 Mbit/s x 100 ms) with the simulator's flows on Linux's RTO estimator (docs/validation/kernel.md: its RFC 6298 RTO,
# SRTT + a few ms behind a full queue's steady 200-ms RTT, timed out in recovery where Linux's, SRTT + 200 ms, did not).
for _name in (
    "cubic-1-10M-100ms-bpf",
    "reno-1-10M-100ms",
    "reno-4-10M-100ms",
    "cubic-1-500M-100ms-bpf",
    "cubic-1-500M-100ms-sim-hystart",
):
    CONFIGS[f"{_name}-linux-rto"] = dataclasses.replace(CONFIGS[_name], sim_rto="linux")
# With HyStart on both sides, the simulator's receivers opening their window as the testbed's kernel receivers did
# (docs/validation/kernel.md): quick_acks is what the kernel runs' manifests report (receivers.window_opening: rcv_ssthresh
# from about 64 kB to the window clamp, 2 segments per segment ACKed; the clamp is SO_RCVLOWAT's 4 MB at 10 Mbit/s
# and 15 MB at 300 Mbit/s, autotuned to 5 MB at 100 Mbit/s), and the RTO Linux's.
for _name, _quick in (
    ("cubic-1-10M-100ms-sim-hystart", 1427),
    ("cubic-1-100M-40ms-sim-hystart", 1790),
    ("cubic-1-300M-80ms-sim-hystart", 5160),
):
    CONFIGS[f"{_name}-quick-acks"] = dataclasses.replace(
        CONFIGS[_name], sim_rto="linux", sim_quick_acks=_quick
    )
# BBR: Linux's built-in bbr against the simulator's, alone across rates, RTTs and buffers, two flows, and sharing with
# CUBIC (HyStart on both sides); and hscc's program, hscc_bbr, in the kernel.
for _name, _cfg in {
    "bbr-1-100M-40ms": Config((("bbr", 1),), 100, 40, "1bdp"),
    "bbr-1-10M-100ms": Config((("bbr", 1),), 10, 100, "1bdp"),
    "bbr-1-300M-80ms": Config((("bbr", 1),), 300, 80, "1bdp"),
    "bbr-1-100M-40ms-0.25bdp": Config((("bbr", 1),), 100, 40, "0.25bdp"),
    "bbr-1-100M-40ms-8bdp": Config((("bbr", 1),), 100, 40, "8bdp"),
    "bbr-2-100M-40ms": Config((("bbr", 2),), 100, 40, "1bdp"),
    "bbr1-cubic1-100M-40ms-sim-hystart": Config(
        (("bbr", 1), ("cubic", 1)), 100, 40, "1bdp", variant="sim-hystart"
    ),
    "bbr-1-100M-40ms-bpf": Config((("bbr", 1),), 100, 40, "1bdp", variant="bpf"),
}.items():
    CONFIGS[_name] = _cfg
# TCP-LP reads the receiver's timestamp clock: Linux's random per-connection offset leaves its delay
# arithmetic no indication after the first, none leaves it yielding at every delayed ACK (docs/algorithms.md).
for _name in ("lp-1-100M-40ms", "lp1-reno1-100M-40ms"):
    CONFIGS[f"{_name}-no-ts-offset"] = dataclasses.replace(CONFIGS[_name], random_ts_offset=False)
# The two pairs whose 30-s shares differed most (docs/validation/kernel.md: a 30-s pair is decided in its first second).
for _a in ("multcp", "veno"):
    CONFIGS[f"{_a}1-reno1-100M-40ms-120s"] = Config(
        ((_a, 1), ("reno", 1)), 100, 40, "1bdp", variant="bpf", seconds=120
    )


def scenario(
    name: str,
    seconds: float,
    side: str,
    seed: int = 1,
    host_jitter: str | None = None,
    rto_estimator: str | None = None,
) -> dict:
    """The scenario `side` ("sim" or "kernel") runs; `host_jitter` and `rto_estimator` set the simulator's
    (sensitivity runs; the configuration's `sim_rto` otherwise)."""
    c = CONFIGS[name]
    rto = rto_estimator or c.sim_rto
    bottleneck = {"rate": f"{c.rate}Mbps", "delay": "1ms", "buffer": c.buffer, "loss": c.loss}
    hystart = c.variant == "sim-hystart" and side == "sim"
    # The simulator side as `stack = "linux"` where its knobs are that profile's: Linux's RTO estimator, and
    # HyStart for every cubic flow (none with "-bpf", whose kernel side runs hscc_cubic without it).
    linux = (
        side == "sim"
        and c.sim_rto == "linux"
        and (hystart or all(a != "cubic" for a, _ in c.flows))
    )
    if linux:
        hystart, rto = False, rto_estimator if rto_estimator != "linux" else None
    return {
        "name": name,
        "duration": f"{c.seconds or seconds}s",
        "seed": seed,
        **({"stack": "linux"} if linux else {}),
        "output": {"sample_interval": c.interval, "traces": ["flows", "queues"]},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bottleneck,
            "pairs": [{"rate": "10Gbps", "rtt": f"{rtt}ms"} for rtt in (c.rtts or (c.rtt,))],
        },
        "flows": [
            {
                "pair": i if c.rtts else 0,
                "algorithm": a,
                "count": n,
                "label": f"{a}-{c.rtts[i]}ms" if c.rtts else a,
                **({"params": {"hystart": True}} if hystart and a == "cubic" else {}),
                **({"rto_estimator": rto} if rto and side == "sim" else {}),
                **({"quick_acks": c.sim_quick_acks} if c.sim_quick_acks and side == "sim" else {}),
                **({"host_jitter": host_jitter} if host_jitter and side == "sim" else {}),
                **({} if c.random_ts_offset else {"random_ts_offset": False}),
            }
            for i, (a, n) in enumerate(c.flows)
        ],
    }


def _toml(d: dict) -> str:
    """The scenario as TOML (the few shapes used above)."""

    def value(v):
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    lines = [f"{k} = {value(v)}" for k, v in d.items() if k not in ("output", "topology", "flows")]
    lines += ["", "[output]", *(f"{k} = {value(v)}" for k, v in d["output"].items())]
    t = d["topology"]
    lines += [
        "",
        "[topology]",
        f"kind = {value(t['kind'])}",
        f"bottleneck = {value(t['bottleneck'])}",
        f"pairs = {value(t['pairs'])}",
    ]
    for f in d["flows"]:
        lines += ["", "[[flows]]", *(f"{k} = {value(v)}" for k, v in f.items())]
    return "\n".join(lines) + "\n"


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
        "trajectory": trajectory(first["time_s"].to_list(), first["cwnd"].to_list()),
    }


def padhye(p: float, rtt: float, t0: float) -> float:
    """Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), eq. (31), b = 1 (Linux counts acknowledged
    segments, so cwnd grows one per RTT with delayed ACKs too): send rate, segments/s
    (crates/hscc-sim/tests/validation.rs has the same)."""
    return 1 / (
        rtt * math.sqrt(2 * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * p / 8)) * p * (1 + 32 * p * p)
    )


def mathis(p: float, rtt: float) -> float:
    """Mathis, Semke, Mahdavi, Ott (CCR 1997): 1/RTT · √(3/2p) segments/s."""
    return math.sqrt(1.5 / p) / rtt


def model_rows(spreads: list[dict]):
    """Single Reno flows with random loss: each run's send rate against the models at the random loss rate
    it realized (`compare.loss` of the random drops), its mean sampled sRTT and an RTO of that plus Linux's 200 ms minimum, as
    Padhye et al. validated theirs. Where Mathis's rate exceeds the link's the flow is link-limited and
    the models do not apply: "link-limited". Yields (configuration, side, row)."""
    for s in spreads:
        c = CONFIGS[s["config"]]
        if not c.loss or c.flows != (("reno", 1),):
            continue
        link_rate = c.rate * 1e6 / 12_000  # packets/s
        for side in ("sim", "kernel"):
            for i, r in enumerate(s[side]):
                p, rtt = r.get("random_loss"), r["mean_srtt_s"]
                if not p or not rtt:
                    continue
                model = padhye(p, rtt, rtt + 0.2)
                yield (
                    s["config"],
                    side,
                    {
                        "run": f"{side} seed {i + 1}" if side == "sim" else f"kernel #{i + 1}",
                        "random_loss": p,
                        "mean_srtt_s": rtt,
                        "send_rate": r["send_rate"],
                        "mathis": mathis(p, rtt),
                        "padhye": model,
                        "verdict": f"{r['send_rate'] / model:.2f}"
                        if mathis(p, rtt) < link_rate
                        else "link-limited",
                    },
                )


def model_table(spreads: list[dict]) -> str:
    """`model_rows` as a table."""
    out = [
        "| configuration | run | random loss realized | mean sRTT (ms) | send rate (seg/s) | Mathis | Padhye | rate / Padhye |",
        "|" + "---|" * 8,
    ]
    for config, _, m in model_rows(spreads):
        out.append(
            f"| {config} | {m['run']} | {m['random_loss']:.2e} | {m['mean_srtt_s'] * 1e3:.1f} | {m['send_rate']:.0f} | "
            f"{m['mathis']:.0f} | {m['padhye']:.0f} | {m['verdict']} |"
        )
    return "\n".join(out) + "\n"


def sim_run(out: Path, name: str, seed: int) -> Path:
    """Where a configuration's simulator run of `seed` is written (seed 1 is the one the rows compare with)."""
    return out / "sim" / (name if seed == 1 else f"{name}-seed{seed}")


def kernel_run(out: Path, name: str, k: int) -> Path:
    """Where a configuration's `k`-th kernel run (from 0) is written."""
    return out / "kernel" / f"{name}-{k}"


def lifted_limits(name: str) -> dict[str, str]:
    """The testbed's limits ($HSCC_TESTBED_MAX_RATE, $HSCC_TESTBED_MAX_BDP) a configuration runs with: its
    own rate and rate × longest RTT where it lifts them, else none (the defaults)."""
    c = CONFIGS[name]
    if not c.lift_limits:
        return {}
    rate = c.rate * 1e6
    return {
        "HSCC_TESTBED_MAX_RATE": f"{rate:g}",
        "HSCC_TESTBED_MAX_BDP": f"{rate * max(c.rtts or (c.rtt,)) / 1e3:g}",
    }


def run_kernel(scenario: Scenario, out: Path, use_bpf: bool, tries: int = 40) -> None:
    """`hscc testbed run`, waiting (up to `tries` × 15 s) while another run holds a program this one registers."""
    for _ in range(tries - 1):
        try:
            tb.run(scenario, out, overwrite=True, use_bpf=use_bpf)
            return
        except tb.TestbedError as e:
            if "registered already" not in str(e):
                raise
            print(f"waiting: {e}", file=sys.stderr, flush=True)
            time.sleep(15)
    tb.run(scenario, out, overwrite=True, use_bpf=use_bpf)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="run length of configurations that do not set their own",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="kernel runs per configuration (0: the simulator only)",
    )
    ap.add_argument(
        "--sim-seeds",
        type=int,
        default=1,
        help="simulator runs per configuration, seeds 1..N (the seed draws the host jitter); rows compare with seed 1",
    )
    ap.add_argument(
        "--sim-host-jitter",
        metavar="TIME",
        help="the simulator's flows' host_jitter (e.g. 50us), to measure its effect; not the default",
    )
    results_file.add_arguments(ap, results_file.KERNEL)
    ap.add_argument(
        "--retable",
        action="store_true",
        help="run nothing: read the run directories under --out again and rewrite its tables (after a change of how they are read)",
    )
    args = ap.parse_args()
    if args.retable:
        return retable(args.out)
    names = args.only or list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        ap.error(f"--only {unknown[0]}: no such configuration (one of: {', '.join(CONFIGS)})")
    args.out.mkdir(parents=True, exist_ok=True)
    results, spreads = [], []
    for name in names:
        c = CONFIGS[name]
        sims = []
        for seed in range(1, args.sim_seeds + 1):
            toml = args.out / f"{name}.sim{'' if seed == 1 else f'-seed{seed}'}.toml"
            toml.write_text(_toml(scenario(name, args.seconds, "sim", seed, args.sim_host_jitter)))
            sim_dir = sim_run(args.out, name, seed)
            runner.run(Scenario.from_toml(toml)).write(sim_dir, overwrite=True)
            sims.append(load(sim_dir))
        sim = sims[0]
        ktoml = args.out / f"{name}.kernel.toml"
        ktoml.write_text(_toml(scenario(name, args.seconds, "kernel")))
        kernels = []
        for k in range(args.repeat):
            kdir = kernel_run(args.out, name, k)
            load_avg = os.getloadavg()
            lifted = lifted_limits(name)
            os.environ.update(lifted)
            try:
                run_kernel(Scenario.from_toml(ktoml), kdir, c.variant == "bpf")
            finally:
                for key in lifted:
                    del os.environ[key]
            kern = load(kdir)
            kernels.append(kern)
            cmp = compare.compare(sim, kern)
            totals = {r.what: r for r in cmp.totals}
            ratios = [r.ratio for r in cmp.flows if r.ratio is not None]
            algos_s, algos_k = by_algorithm(sim), by_algorithm(kern)
            line = kern.manifest["kernel_run"]["delay_line"]
            row = {
                "config": name,
                "repetition": k,
                "load_avg": load_avg[0],
                "seconds": c.seconds or args.seconds,
                "sim_goodput": totals["goodput, all flows (bit/s)"].a,
                "kernel_goodput": totals["goodput, all flows (bit/s)"].b,
                "sim_flows": [r.a for r in cmp.flows],
                "kernel_flows": [r.b for r in cmp.flows],
                "per_flow_ratio_min": min(ratios),
                "per_flow_ratio_max": max(ratios),
                "algorithm_ratio": {a: algos_k[a] / algos_s[a] for a in algos_s if algos_s[a]},
                "jain_sim": totals["Jain's index"].a,
                "jain_kernel": totals["Jain's index"].b,
                "loss_sim": totals["loss at the bottleneck"].a,
                "loss_kernel": totals["loss at the bottleneck"].b,
                "retrans_sim": totals["retransmitted segments / sent"].a,
                "retrans_kernel": totals["retransmitted segments / sent"].b,
                "qdelay_sim": totals["queuing delay, mean (s)"].a,
                "qdelay_kernel": totals["queuing delay, mean (s)"].b,
                "flags": kern.manifest["kernel_run"]["flags"],
                "max_stall_s": max(line[d]["max_late_s"] for d in ("fwd", "rev")),
                "late_hist_us": {d: line[d]["late_hist_us"] for d in ("fwd", "rev")},
            }
            results.append(row)
            print(json.dumps(row), flush=True)
        spreads.append(
            {
                "config": name,
                "seconds": c.seconds or args.seconds,
                "sim": [summary(r) for r in sims],
                "kernel": [summary(r) for r in kernels],
            }
        )
    write_tables(args.out, results, spreads)
    if args.repeat > 0 and not args.sim_host_jitter and not args.no_results:
        results_file.update(
            args.results,
            result_entries(results, spreads),
            "sudo .venv/bin/python validation/testbed/validate.py --out DIR --repeat 2 --sim-seeds 5",
            **results_file.KERNEL_TOP,
        )
        print(
            f"wrote {args.results} (python validation/results/render.py --write updates the docs)"
        )
    return 0


def _triple(values: list) -> float | list | None:
    """[min, max, mean] of the values, the one value, or None (as `_range` prints them)."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return [min(values), max(values), sum(values) / len(values)]


def _shares_data(runs: list[dict]) -> dict | None:
    """`shares` as data: per algorithm, or the smallest and largest flow over the fair share."""
    if not runs or len(runs[0]["flows"]) < 2:
        return None
    if len(runs[0]["algorithms"]) > 1:
        return {
            a: _triple([r["algorithms"][a] / r["goodput"] for r in runs])
            for a in runs[0]["algorithms"]
        }
    fair = [r["goodput"] / len(r["flows"]) for r in runs]
    return {
        "min": _triple([min(r["flows"]) / f for r, f in zip(runs, fair, strict=True)]),
        "max": _triple([max(r["flows"]) / f for r, f in zip(runs, fair, strict=True)]),
    }


def _side(runs: list[dict]) -> tuple[dict, dict | None]:
    """One side's spread (goodput, Jain, shares, loss, retransmissions) and, for one flow, its trajectory."""
    spread = {
        "goodput_bps": _triple([r["goodput"] for r in runs]),
        "jain": _triple([r["jain"] for r in runs]),
        "shares": _shares_data(runs),
        "loss": _triple([r["loss"] for r in runs]),
        "retrans": _triple([r["retrans"] for r in runs]),
    }
    if not runs or len(runs[0]["flows"]) != 1:
        return spread, None
    t = [r["trajectory"] for r in runs]
    return spread, {
        k: _triple([x[k] for x in t]) for k in ("exit_s", "exit_cwnd", "reductions", "period_s")
    }


def result_entries(rows: list[dict], spreads: list[dict]) -> list[dict]:
    """validation/results/kernel.json's entries for the configurations of this run (results.py has the schema):
    the simulator's seed 1 and spread over its seeds against each kernel run and their spread."""
    models: dict[tuple[str, str], list] = {}
    for config, side, m in model_rows(spreads):
        models.setdefault((config, side), []).append(m)
    entries = []
    for s in spreads:
        name, c = s["config"], CONFIGS[s["config"]]
        runs = [r for r in rows if r["config"] == name]
        if not runs:
            continue
        first = runs[0]
        loads = [r["load_avg"] for r in runs]
        sim_spread, sim_traj = _side(s["sim"])
        kernel_spread, kernel_traj = _side(s["kernel"])
        measured = {
            "seeds": len(s["sim"]),
            "goodput_bps": first["sim_goodput"],
            "jain": first["jain_sim"],
            "loss": first["loss_sim"],
            "retrans": first["retrans_sim"],
            "qdelay_s": first["qdelay_sim"],
            "spread": sim_spread,
        }
        reference = {
            "runs": [
                {
                    "goodput_bps": r["kernel_goodput"],
                    "goodput_ratio": r["kernel_goodput"] / r["sim_goodput"],
                    "per_flow_ratio": [r["per_flow_ratio_min"], r["per_flow_ratio_max"]],
                    "algorithm_ratio": r["algorithm_ratio"]
                    if len(r["algorithm_ratio"]) > 1
                    else None,
                    "jain": r["jain_kernel"],
                    "loss": r["loss_kernel"],
                    "retrans": r["retrans_kernel"],
                    "qdelay_s": r["qdelay_kernel"],
                    "max_stall_s": r["max_stall_s"],
                    "flagged": bool(r["flags"]),
                    "load_avg": r["load_avg"],
                }
                for r in runs
            ],
            "spread": kernel_spread,
        }
        if sim_traj and kernel_traj:
            measured["trajectory"], reference["trajectory"] = sim_traj, kernel_traj
        if (name, "sim") in models or (name, "kernel") in models:
            measured["models"] = models.get((name, "sim"), [])
            reference["models"] = models.get((name, "kernel"), [])
        command = (
            f"sudo .venv/bin/python validation/testbed/validate.py --out DIR --only {name} --repeat {len(runs)}"
            + (f" --sim-seeds {len(s['sim'])}" if len(s["sim"]) > 1 else "")
        )
        e = {
            "name": name,
            "group": results_file.kernel_group(name),
            "date": results_file.today(),
            "command": command,
            "source": results_file.run_source("validation/testbed/validate.py"),
            "conditions": f"Linux {platform.release()}; load average {min(loads):.1f}–{max(loads):.1f} as the kernel runs started"
            + ("; the testbed's limits lifted" if c.lift_limits else ""),
            "seconds": float(s["seconds"]),
            "flows": sum(n for _, n in c.flows),
            "measured": measured,
            "reference": reference,
            "tolerance": dict(results_file.KERNEL_TOLERANCE),
        }
        e["verdict"] = results_file.kernel_verdict(e)
        entries.append(e)
    return entries


def write_tables(out: Path, rows: list[dict], spreads: list[dict]) -> None:
    (out / "results.json").write_text(json.dumps({"rows": rows, "spread": spreads}, indent=1))
    text = (
        table(rows)
        + "\n"
        + spread_table(spreads)
        + "\n"
        + trajectory_table(spreads)
        + "\n"
        + model_table(spreads)
    )
    (out / "table.md").write_text(text)
    print(text)


def retable(out: Path) -> int:
    """The tables of an earlier `validate.py --out OUT` again, each run's numbers read anew from its run directory."""
    saved = json.loads((out / "results.json").read_text())
    spreads = []
    for s in saved["spread"]:
        name = s["config"]
        sims = [sim_run(out, name, seed) for seed in range(1, len(s["sim"]) + 1)]
        kernels = [kernel_run(out, name, k) for k in range(len(s["kernel"]))]
        spreads.append(
            {
                **s,
                "sim": [summary(load(d)) for d in sims],
                "kernel": [summary(load(d)) for d in kernels],
            }
        )
    write_tables(out, saved["rows"], spreads)
    return 0


def table(rows: list[dict]) -> str:
    """One line per kernel run, against the simulator's seed-1 run."""
    head = (
        "| configuration | goodput sim → kernel (Mbit/s) | kernel / sim | per flow | Jain sim / kernel | "
        "loss sim / kernel | retrans sim / kernel | qdelay sim / kernel (ms) | stall (ms), load |"
    )
    out = [head, "|" + "---|" * 9]
    for r in rows:
        algos = r["algorithm_ratio"]
        per_algo = " ".join(f"{a} {v:.2f}" for a, v in algos.items()) if len(algos) > 1 else ""
        out.append(
            f"| {r['config']}{' #' + str(r['repetition'] + 1) if r['repetition'] else ''} | "
            f"{r['sim_goodput'] / 1e6:.1f} → {r['kernel_goodput'] / 1e6:.1f} | {r['kernel_goodput'] / r['sim_goodput']:.3f} | "
            f"{r['per_flow_ratio_min']:.2f}–{r['per_flow_ratio_max']:.2f} {per_algo} | "
            f"{r['jain_sim']:.3f} / {r['jain_kernel']:.3f} | {r['loss_sim']:.2e} / {r['loss_kernel']:.2e} | "
            f"{r['retrans_sim']:.2e} / {r['retrans_kernel']:.2e} | {r['qdelay_sim'] * 1e3:.1f} / {r['qdelay_kernel'] * 1e3:.1f} | "
            f"{r['max_stall_s'] * 1e3:.1f}{' FLAGGED' if r['flags'] else ''}, {r['load_avg']:.1f} |"
        )
    return "\n".join(out) + "\n"


def shares(runs: list[dict]) -> str:
    """Over `runs`: each algorithm's share of the aggregate goodput when they mix algorithms, else the
    smallest and largest flow's goodput over the fair share; "–" for one flow."""
    if not runs or len(runs[0]["flows"]) < 2:
        return "–"
    if len(runs[0]["algorithms"]) > 1:
        return ", ".join(
            f"{a} {_range([r['algorithms'][a] / r['goodput'] for r in runs], '.2f')}"
            for a in runs[0]["algorithms"]
        )
    fair = [r["goodput"] / len(r["flows"]) for r in runs]
    return (
        f"min {_range([min(r['flows']) / f for r, f in zip(runs, fair, strict=True)], '.2f')}, "
        f"max {_range([max(r['flows']) / f for r, f in zip(runs, fair, strict=True)], '.2f')}"
    )


def _range(values: list, fmt: str) -> str:
    """min–max (mean) of `values`, or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    if len(values) == 1:
        return format(values[0], fmt)
    return f"{format(min(values), fmt)}–{format(max(values), fmt)} ({format(sum(values) / len(values), fmt)})"


def spread_table(spreads: list[dict]) -> str:
    """Per configuration: the simulator over its seeds next to the kernel over its repetitions."""
    head = (
        "| configuration (s) | runs sim / kernel | goodput sim (Mbit/s) | goodput kernel | Jain sim | Jain kernel | "
        "shares sim | shares kernel | loss sim | loss kernel | retrans sim | retrans kernel |"
    )
    out = [head, "|" + "---|" * 12]
    for s in spreads:
        cells = []
        for key, fmt, scale in (("goodput", ".1f", 1e-6), ("jain", ".3f", 1)):
            cells += [
                _range([r[key] * scale if r[key] is not None else None for r in s[side]], fmt)
                for side in ("sim", "kernel")
            ]
        cells += [shares(s[side]) for side in ("sim", "kernel")]
        for key in ("loss", "retrans"):
            cells += [_range([r[key] for r in s[side]], ".2e") for side in ("sim", "kernel")]
        out.append(
            f"| {s['config']} ({s['seconds']:g}) | {len(s['sim'])} / {len(s['kernel'])} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(out) + "\n"


def trajectory_table(spreads: list[dict]) -> str:
    """Configurations of one flow: its slow-start exit and sawtooth, the simulator (seeds) against the kernel (repetitions)."""
    head = (
        "| configuration (s) | slow-start exit sim: s, cwnd | kernel | reductions sim | kernel | "
        "sawtooth period sim (s) | kernel |"
    )
    out = [head, "|" + "---|" * 7]
    for s in spreads:
        if len(s["sim"][0]["flows"]) != 1:
            continue
        cells = []
        for side in ("sim", "kernel"):
            t = [r["trajectory"] for r in s[side]]
            cells.append(
                f"{_range([x['exit_s'] for x in t], '.2f')}, {_range([x['exit_cwnd'] for x in t], '.0f')}"
            )
        for key, fmt in (("reductions", ".0f"), ("period_s", ".1f")):
            cells += [
                _range([r["trajectory"][key] for r in s[side]], fmt) for side in ("sim", "kernel")
            ]
        out.append(f"| {s['config']} ({s['seconds']:g}) | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())

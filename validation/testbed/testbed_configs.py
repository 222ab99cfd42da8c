"""validate.py's configurations, and the scenario each side (the simulator, the kernel) runs of
one: as data, as TOML, and the testbed limits it lifts."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass


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
